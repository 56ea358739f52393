"""Data-parallel scaling: samples/s (tokens/s) of one process against N, through the CLI.

Every measurement is one fresh ``python -m trainwell train`` (with ``--nproc N`` for N
processes: torchrun's launcher, gloo on the CPU, nccl on CUDA), its run directory in a
tempdir; the rates are the run's own ``summary.json`` "throughput" (training only: validation
and checkpoint saves are left out, so start-up and process-group set-up do not count).
Contenders are interleaved round-robin across repeats, the order rotating every repeat; every
speed number is a ratio to a baseline of the same repeat, reported as the median over repeats
with its min-max range.

Contenders (CPU):
  1p x 1t                 one process, one thread (OMP_NUM_THREADS=1): the classic baseline
  1p x 2t                 one process, two threads (OMP_NUM_THREADS=2; torch follows it): the
                          same cores as two processes, the fair baseline on a 2-core machine
  2p x 1t <strategy>      two processes of one thread each, data.batch_size per rank: the
                          global batch doubles
  2p x 1t <strategy> /2   the same with half the batch per rank: the same global batch as one
                          process (the same optimisation, smaller matmuls)
Strategies: ddp (default) and fsdp (FSDP2), ``--strategies ddp,fsdp``.

On CUDA with more than one GPU (``--device auto`` picks it) the points are 1 process and 2
(and ``torch.cuda.device_count()``) processes, one GPU each, over nccl; there is no thread
baseline. With one GPU, N processes cannot each have one, so ``auto`` measures the CPU
(``run.device=cpu``).

Columns:
  samples/s, tokens/s     the whole job's rate: under N processes the sum over ranks
  eff vs 1p x 1t          rate / (cores x rate of 1p x 1t), cores = processes x threads: the
                          scaling efficiency (1.0: N cores give N times the rate)
  x 1p x Nt               rate / rate of 1p x Nt: processes against threads on the same cores
                          (> 1: data parallelism beats intra-op threads)

What the numbers mean on a 2-core machine: two processes share the two cores with everything
else each of them does: its own data loading and Python overhead (the loop, the optimizer
step, the guards), the gloo all-reduce of the gradients (a CPU copy and sum, in a background
thread) and the launcher. An efficiency well below 1 against ``1p x 1t`` is expected there,
and says little about a machine with cores to spare; ``x 1p x 2t`` is the fair comparison, the
same cores spent as processes or as threads. The digits MLP is small (150k parameters, a
step of ~15 ms on one thread), so the per-step work outside the matmuls (Python, the optimizer,
the all-reduce, the per-step stop vote) weighs heavily; a charlm step is ~130 ms of mostly
matmuls. ``/2`` halves the per-rank matmuls, which a CPU does less efficiently, and keeps the
per-step overhead.

Another busy process on the machine (a test suite) does not slow every contender alike, and
pairing the ratios within a repeat cancels only part of it. Threads suffer most: an OpenMP
thread that loses its core stalls the others at every parallel region's barrier, so with one
of two cores taken ``1p x 2t`` can run several times slower than ``1p x 1t`` (the script warns
when it does); two processes stall each other at every all-reduce, less often. Measure on a
quiet machine; each run's load average before it started is in the JSON.

    python benchmarks/scaling.py [--workload digits|charlm|all] [--repeats 3]
                                 [--strategies ddp[,fsdp]] [--device auto|cpu|cuda]
                                 [--json benchmarks/results/scaling.json]
"""

from __future__ import annotations

import argparse
import datetime
import importlib
import importlib.metadata
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import torch
import yaml
from _harness import print_table, spread

HERE = Path(__file__).resolve().parent
TIMEOUT_S = 900
BASELINE = "1p x 1t"


@dataclass(frozen=True)
class Workload:
    name: str
    recipe: str
    description: str
    sets: list[str] = field(default_factory=list)
    tokens: bool = False


WORKLOADS = {
    "digits": Workload(
        "digits",
        "digits",
        "the digits MLP (the default recipe), 8 epochs of 1,437 images (~180 steps at batch "
        "64 in one process)",
        ["train.max_epochs=8"],
    ),
    "charlm": Workload(
        "charlm",
        "charlm",
        "the charlm GPT (2 layers, width 128, block 64), 1 epoch of 54,000 characters of the "
        "standard library (27 steps at batch 32 in one process)",
        ["model.max_chars=60000", "train.max_epochs=1"],
        tokens=True,
    ),
}


@dataclass(frozen=True)
class Contender:
    name: str
    nproc: int
    threads: int
    strategy: str | None = None  # None: one process (run.strategy=auto, i.e. single)
    batch_div: int = 1  # per-rank batch = the recipe's data.batch_size // batch_div

    @property
    def cores(self) -> int:
        return self.nproc * self.threads


def contenders(device: str, strategies: list[str], points: list[int]) -> list[Contender]:
    out = [Contender(BASELINE, 1, 1)]
    if device == "cpu":
        out += [Contender(f"1p x {n}t", 1, n) for n in points]
    for n in points:
        for strategy in strategies:
            out.append(Contender(f"{n}p x 1t {strategy}", n, 1, strategy))
            out.append(Contender(f"{n}p x 1t {strategy} /{n}", n, 1, strategy, n))
    return out


def recipe_batch(recipe: str) -> int:
    """The recipe's default ``data.batch_size``."""
    from trainwell.recipes import BUILTIN

    return importlib.import_module(BUILTIN[recipe]).CONFIG.data.batch_size


def child_env(threads: int) -> dict[str, str]:
    """The environment passed through, with ``threads`` OpenMP/MKL threads and bytecode caching
    on (an inherited PYTHONDONTWRITEBYTECODE would recompile trainwell in every process)."""
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), MKL_NUM_THREADS=str(threads))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


# --------------------------------------------------------------------------- one measurement


def measure(
    workload: Workload,
    contender: Contender,
    batch: int,
    device_sets: list[str],
    run_dir: Path,
) -> dict:
    """One CLI run in a fresh process; its global rates, or {"error": ...}."""
    per_rank = max(batch // contender.batch_div, 1)
    sets = ["run.progress=false", *workload.sets, *device_sets]
    if contender.batch_div != 1:
        sets.append(f"data.batch_size={per_rank}")
    command = [sys.executable, "-m", "trainwell", "train", "--recipe", workload.recipe]
    command += ["--run-dir", str(run_dir), "--quiet"]
    if contender.nproc > 1:
        command += ["--nproc", str(contender.nproc)]
        sets.append(f"run.strategy={contender.strategy}")
    for item in sets:
        command += ["--set", item]
    load = list(os.getloadavg()) if hasattr(os, "getloadavg") else None
    started = time.perf_counter()
    try:
        proc = subprocess.run(
            command,
            capture_output=True,
            text=True,
            timeout=TIMEOUT_S,
            env=child_env(contender.threads),
            cwd=run_dir.parent,
        )
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {TIMEOUT_S} s"}
    wall = time.perf_counter() - started
    summary_path = run_dir / "summary.json"
    if proc.returncode != 0 or not summary_path.exists():
        tail = (proc.stderr.strip() or proc.stdout.strip() or "(no output)").splitlines()[-6:]
        return {"error": f"exit {proc.returncode}: " + " | ".join(tail), "wall_s": wall}
    summary = json.loads(summary_path.read_text())
    config = yaml.safe_load((run_dir / "config.yaml").read_text())
    per_rank = config["data"]["batch_size"]
    rates = summary.get("throughput") or {}
    if "samples_per_s" not in rates:
        return {"error": "summary.json has no throughput.samples_per_s", "wall_s": wall}
    result = {  # under N processes the summary's rates are the sums over ranks
        "samples_per_s": rates["samples_per_s"],
        "per_rank_batch": per_rank,
        "global_batch": per_rank * contender.nproc,
        "steps": summary.get("steps"),
        "run_wall_time_s": summary.get("wall_time_s"),
        "process_wall_s": wall,
        "load_average_before": load,
        "summary_throughput": rates,
    }
    if "tokens_per_s" in rates:
        result["tokens_per_s"] = rates["tokens_per_s"]
    return result


# --------------------------------------------------------------------------- summaries


def summarize(raw: dict[str, list[dict]], specs: dict[str, Contender]) -> dict[str, dict]:
    """Per contender: medians and ranges of its rates and of its ratios to the baselines of
    the same repeat."""
    repeats = len(raw[BASELINE])
    out: dict[str, dict] = {}
    for name, results in raw.items():
        spec = specs[name]
        good = [r for r in results if "error" not in r]
        entry: dict = {"contender": asdict(spec), "raw": results, "runs": len(good)}
        if good:
            entry["per_rank_batch"] = good[0]["per_rank_batch"]
            entry["global_batch"] = good[0]["global_batch"]
            for key in ("samples_per_s", "tokens_per_s"):
                if key in good[0]:
                    entry[key] = spread([r[key] for r in good])
        same_cores = f"1p x {spec.cores}t"
        efficiency, versus_threads = [], []
        for i in range(repeats):
            mine, base = results[i], raw[BASELINE][i]
            if "error" in mine:
                continue
            if "error" not in base:
                efficiency.append(mine["samples_per_s"] / (spec.cores * base["samples_per_s"]))
            if spec.nproc > 1 and same_cores in raw and "error" not in raw[same_cores][i]:
                versus_threads.append(mine["samples_per_s"] / raw[same_cores][i]["samples_per_s"])
        if efficiency:
            entry["efficiency_vs_1p1t"] = spread(efficiency)
        if versus_threads:
            entry["ratio_vs_same_cores_threads"] = {
                "baseline": same_cores,
                **spread(versus_threads),
            }
        errors = [r["error"] for r in results if "error" in r]
        if errors:
            entry["errors"] = errors
        out[name] = entry
    return out


def fmt(s: dict | None, digits: int, part: str) -> str:
    if not s:
        return "-"
    if part == "median":
        return f"{s['median']:,.{digits}f}"
    return f"{s['min']:,.{digits}f}-{s['max']:,.{digits}f}"


def print_workload(workload: Workload, summary: dict[str, dict], repeats: int) -> None:
    print(f"\n== {workload.name}: {workload.description}; {repeats} repeat(s)")
    headers = ["contender", "batch/rank", "global", "samples/s", "range"]
    if workload.tokens:
        headers += ["tokens/s", "range"]
    headers += ["eff vs 1p x 1t", "range", "x 1p x Nt (same cores)", "range", "n"]
    rows = []
    for name, e in summary.items():
        if "samples_per_s" not in e:
            rows.append([name, *["-"] * (len(headers) - 2), "0"])
            continue
        row = [name, str(e["per_rank_batch"]), str(e["global_batch"])]
        row += [fmt(e["samples_per_s"], 0, "median"), fmt(e["samples_per_s"], 0, "range")]
        if workload.tokens:
            row += [fmt(e.get("tokens_per_s"), 0, "median"), fmt(e.get("tokens_per_s"), 0, "range")]
        eff = e.get("efficiency_vs_1p1t")
        vs = e.get("ratio_vs_same_cores_threads")
        row += [fmt(eff, 3, "median"), fmt(eff, 3, "range")]
        row += [fmt(vs, 3, "median") + ("x" if vs else ""), fmt(vs, 3, "range")]
        row.append(str(e["runs"]))
        rows.append(row)
    print_table(headers, rows)
    for name, e in summary.items():
        for error in e.get("errors", [])[:1]:
            print(f"  {name} failed: {error[:400]}")
    threads = [n for n, e in summary.items() if n != BASELINE and n.startswith("1p x ")]
    base = summary.get(BASELINE, {}).get("samples_per_s")
    for name in threads:
        mine = summary[name].get("samples_per_s")
        if base and mine and mine["median"] < base["median"]:
            print(
                f"  warning: {name} is slower than {BASELINE}: the cores were busy with something"
                "\n  else (an OpenMP thread that loses its core stalls the others at every"
                "\n  barrier), so the 'same cores' column measures the neighbours this time"
            )


# --------------------------------------------------------------------------- main


def machine(device: str) -> dict:
    model = None
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    info = {
        "cpu_count": os.cpu_count(),
        "cpu": model or platform.processor(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "torch": torch.__version__,
        "trainwell": importlib.metadata.version("trainwell"),
        "device": device,
        "cuda_device_count": torch.cuda.device_count() if torch.cuda.is_available() else 0,
        "load_average_at_start": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
    }
    if device == "cuda":
        info["gpu"] = torch.cuda.get_device_name(0)
    return info


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workload", default="all", help="digits | charlm | all")
    parser.add_argument("--repeats", type=int, default=3, help="runs per contender")
    parser.add_argument("--strategies", default="ddp", help="ddp, fsdp or ddp,fsdp")
    parser.add_argument(
        "--device",
        default="auto",
        choices=["auto", "cpu", "cuda"],
        help="auto: cuda when there are 2+ GPUs (nccl), else cpu (gloo)",
    )
    parser.add_argument("--json", default=str(HERE / "results" / "scaling.json"))
    args = parser.parse_args()
    names = list(WORKLOADS) if args.workload == "all" else args.workload.split(",")
    for name in names:
        if name not in WORKLOADS:
            parser.error(f"unknown workload {name!r}")
    strategies = [s.strip() for s in args.strategies.split(",") if s.strip()]
    for strategy in strategies:
        if strategy not in ("ddp", "fsdp"):
            parser.error(f"unknown strategy {strategy!r} (ddp or fsdp)")
    gpus = torch.cuda.device_count() if torch.cuda.is_available() else 0
    device = args.device if args.device != "auto" else ("cuda" if gpus > 1 else "cpu")
    if device == "cuda" and gpus < 2:
        parser.error(f"--device cuda needs 2+ GPUs, this machine has {gpus}")
    points = [2] if device == "cpu" or gpus == 2 else [2, gpus]
    # the CLI picks cuda whenever it is there; one GPU cannot hold N processes
    device_sets = ["run.device=cpu"] if device == "cpu" and gpus else []

    started = time.perf_counter()
    report: dict = {
        "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "command": " ".join([Path(sys.executable).name, *sys.argv]),
        "machine": machine(device),
        "settings": {
            "repeats": args.repeats,
            "strategies": strategies,
            "points": points,
            "baseline": BASELINE,
        },
        "workloads": {},
    }
    print(
        f"torch {torch.__version__}, {os.cpu_count()} CPUs, device {device}"
        + (f" ({gpus} GPUs)" if device == "cuda" else "")
        + f", N = {', '.join(map(str, points))}"
    )
    tmp = Path(tempfile.mkdtemp(prefix="tw-scaling-"))
    try:
        for name in names:
            workload = WORKLOADS[name]
            batch = recipe_batch(workload.recipe)
            specs = {c.name: c for c in contenders(device, strategies, points)}
            order = list(specs)
            raw: dict[str, list[dict]] = {c: [] for c in order}
            t0 = time.perf_counter()
            for r in range(args.repeats):
                k = r % len(order)
                for contender in order[k:] + order[:k]:  # round-robin, rotated
                    run_dir = tmp / f"{name}-{r}-{contender.replace(' ', '_').replace('/', 'h')}"
                    result = measure(workload, specs[contender], batch, device_sets, run_dir)
                    shutil.rmtree(run_dir, ignore_errors=True)
                    raw[contender].append(result)
                    status = (
                        "failed"
                        if "error" in result
                        else f"{result['samples_per_s']:,.0f} samples/s, "
                        f"{result['process_wall_s']:.1f}s"
                    )
                    print(
                        f"  [{name} {r + 1}/{args.repeats}] {contender}: {status}", file=sys.stderr
                    )
            summary = summarize(raw, specs)
            print_workload(workload, summary, args.repeats)
            report["workloads"][name] = {
                "description": workload.description,
                "recipe": workload.recipe,
                "sets": workload.sets + device_sets,
                "recipe_batch_size": batch,
                "order": order,
                "contenders": summary,
                "wall_s": time.perf_counter() - t0,
            }
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    report["machine"]["load_average_at_end"] = (
        list(os.getloadavg()) if hasattr(os, "getloadavg") else None
    )
    report["runtime_s"] = time.perf_counter() - started
    print(
        "\n  eff vs 1p x 1t: rate / (processes x threads x rate of 1p x 1t); x 1p x Nt: rate /"
        "\n  rate of one process with as many threads as these processes have cores together."
        "\n  Ratios are paired within each repeat; medians and min-max ranges over repeats."
    )
    path = Path(args.json)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(report, indent=1) + "\n")
    print(f"\n{report['runtime_s']:.0f} s in all; results in {path}")


if __name__ == "__main__":
    main()
