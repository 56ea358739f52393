"""trainwell against a hand-written loop and the peers: Lightning, Fabric, Accelerate, Ignite.

Every measurement is a fresh Python process (``peers_run.py``) that runs one contender on one
workload; contenders are interleaved round-robin across repeats (the order rotates each
repeat). Inside each process the ``hand`` loop also runs on the same data (the paired
in-process reference, in ABBA order with the contender), so each process gives a ratio to the
hand loop that cancels whatever the machine was doing meanwhile. Reported: medians and
min-max ranges over the processes, of the raw value and of the paired ratio. Every process
uses 1 intra-op thread (``torch.set_num_threads(1)``, ``OMP_NUM_THREADS=1``): on a small
shared machine more threads mostly measure the neighbours.

Contenders (each only when importable; the peers are the optional extra ``bench``):
  hand                the loop most people write: default DataLoader(shuffle=True) over a
                      TensorDataset, default torch.optim.AdamW, LambdaLR per step
  hand-parts          the hand loop from trainwell's parts (its AdamW, whole-batch indexing)
  trainwell           tw.fit with its defaults (guards on), quiet, no run directory
  trainwell-lean      tw.fit with guards off and nothing logged
  lightning           Lightning Trainer, lean: no logger/checkpoints/progress bar/summary/sanity
  lightning-defaults  Lightning Trainer with its defaults (CSV logger, checkpoint per epoch,
                      progress bar, summary, 2 sanity validation batches)
  fabric, accelerate  Lightning Fabric / HF Accelerate wrapped around the hand loop
  ignite              PyTorch Ignite Engine + supervised evaluator
All train the same model on the same data with the same batch size, AdamW (lr, weight decay,
betas), global-norm clipping at 1.0 and warmup+cosine per step.

Workloads:
  mlp              digits MLP 64-128-128-10, whole runs (setup, 10 epochs, validation per
                   epoch): steps/s, the framework's own overhead
  charlm           the charlm recipe's GPT (small settings), tokens/s from the median of 60 steps after 5
  charlm-compiled  the same with torch.compile (hand: model.compile(); trainwell: train.compile)
  startup          process start to the end of the first optimizer step (seconds)
  checkpoint       seconds the loop is blocked by one save of the charlm model + AdamW state

    python benchmarks/peers.py [--workload mlp|charlm|startup|checkpoint|all] [--repeats N]
                               [--json PATH] [--contenders a,b,...]
"""

from __future__ import annotations

import argparse
import datetime
import importlib.metadata
import importlib.util
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from _harness import print_table, spread

HERE = Path(__file__).resolve().parent
RESULT_TAG = "PEERS_RESULT "
PEER_PACKAGES = ("torch", "lightning", "pytorch-lightning", "accelerate", "pytorch-ignite")


@dataclass
class Workload:
    name: str
    description: str
    contenders: list[str]
    repeats: int
    child_args: list[str] = field(default_factory=list)


MLP_EPOCHS = 10
CHARLM_SMALL = [
    "--n-layer",
    "2",
    "--n-head",
    "4",
    "--n-embd",
    "64",
    "--block",
    "64",
    "--batch",
    "32",
]
CHARLM_STEPS = ["--warm-steps", "5", "--steps", "60"]
ALL_PEERS = ["lightning", "fabric", "accelerate", "ignite"]

WORKLOADS = {
    "mlp": Workload(
        "mlp",
        f"digits MLP 64-128-128-10, batch 64, {MLP_EPOCHS} epochs (230 steps) + validation per "
        "epoch, whole runs incl. setup, after a 1-epoch warm-up of each",
        ["hand", "hand-parts", "trainwell", "trainwell-lean", "lightning", "lightning-defaults"]
        + ALL_PEERS[1:],
        3,
        ["--epochs", str(MLP_EPOCHS), "--inner", "1"],
    ),
    "charlm": Workload(
        "charlm",
        "charlm GPT (2 layers, 4 heads, width 64, block 64, batch 32 = 2,048 tokens/step), "
        "eager, steady state: tokens/s from the median step of steps 6-65",
        ["hand", "hand-parts", "trainwell", *ALL_PEERS],
        3,
        [*CHARLM_SMALL, *CHARLM_STEPS, "--inner", "1"],
    ),
    "charlm-compiled": Workload(
        "charlm-compiled",
        "the same charlm GPT, torch.compile (default mode, inductor); tokens/s from the median step of steps 6-65 "
        "(compilation is before the window); the paired reference is the hand loop compiled",
        ["hand", "trainwell"],
        2,
        [*CHARLM_SMALL, *CHARLM_STEPS, "--inner", "1"],
    ),
    "startup": Workload(
        "startup",
        "process start (the parent's clock just before spawning) to the end of the first "
        "optimizer step: interpreter, imports, digits-shaped data, model, framework set-up",
        ["hand", "trainwell", *ALL_PEERS],
        5,
    ),
    "checkpoint": Workload(
        "checkpoint",
        "loop blocked by one save of the charlm recipe's default model (2 x 128) + AdamW "
        "state; 5 saves per process after one warm-up, alternating with the hand save",
        ["hand", "hand-nofsync", "trainwell", "trainwell-async", *ALL_PEERS],
        2,
        ["--saves", "5"],
    ),
}
GROUPS = {
    "all": list(WORKLOADS),
    "charlm": ["charlm", "charlm-compiled"],
    "charlm-eager": ["charlm"],
}

# contender -> the distributions any of which makes it runnable
NEEDS = {
    "lightning": ("lightning", "pytorch_lightning"),
    "lightning-defaults": ("lightning", "pytorch_lightning"),
    "fabric": ("lightning", "lightning_fabric"),
    "accelerate": ("accelerate",),
    "ignite": ("ignite",),
}


def unavailable(contender: str) -> str | None:
    """Why ``contender`` cannot run here, or None."""
    needs = NEEDS.get(contender)
    if needs and not any(importlib.util.find_spec(module) for module in needs):
        return f"not installed ({' or '.join(needs)}; pip install 'trainwell[bench]')"
    return None


def compile_pending() -> str | None:
    """Why trainwell cannot compile yet (the ``train.compile`` key is not accepted), or None."""
    try:
        from trainwell.config.tree import build_config

        build_config({"train": {"compile": True}})
    except Exception as exc:  # ConfigError: unknown key; anything else: not ready either
        return f"pending: train.compile is not accepted yet ({str(exc).splitlines()[0]})"
    return None


def versions() -> dict[str, str | None]:
    out = {"python": platform.python_version()}
    for name in (*PEER_PACKAGES, "trainwell", "numpy", "scikit-learn"):
        try:
            out[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            out[name] = None
    return out


def machine(threads: int) -> dict:
    model = None
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {
        "cpu_count": os.cpu_count(),
        "cpu": model or platform.processor(),
        "platform": platform.platform(),
        "torch_threads": threads,
        "load_average_at_start": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
    }


def child_env(threads: int) -> dict[str, str]:
    """The children's environment: ``threads`` OpenMP/MKL threads, ``benchmarks/`` importable,
    and bytecode caching on as on any user's machine (a PYTHONDONTWRITEBYTECODE inherited from
    the shell is dropped: it would make every process recompile trainwell's editable sources,
    ~0.2 s, while the peers' installed .pyc files load as usual)."""
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), MKL_NUM_THREADS=str(threads))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(HERE), env.get("PYTHONPATH")]))
    return env


def prime(threads: int) -> None:
    """One untimed process that imports everything the contenders import: bytecode written,
    files in the page cache, before the first measured process."""
    modules = ["torch", "trainwell.loop.fit", "trainwell.state.checkpointer", "peers_contenders"]
    modules += [
        m
        for m in ("lightning", "accelerate", "ignite.engine")
        if importlib.util.find_spec(m.split(".")[0])
    ]
    code = f"import importlib\nfor m in {modules!r}:\n    importlib.import_module(m)"
    subprocess.run(
        [sys.executable, "-c", code], env=child_env(threads), cwd=HERE, capture_output=True
    )


def spawn(
    workload: Workload, contender: str, repeat: int, cache: str, threads: int
) -> tuple[dict, float]:
    """Run one measurement in a fresh process; (its result or {"error": ...}, wall seconds)."""
    command = [
        sys.executable,
        str(HERE / "peers_run.py"),
        "--contender",
        contender,
        "--workload",
        workload.name,
        "--repeat",
        str(repeat),
        "--threads",
        str(threads),
        "--cache",
        cache,
        *workload.child_args,
        "--spawn-t",
    ]
    env = child_env(threads)
    spawn_t = time.clock_gettime(time.CLOCK_MONOTONIC)  # the start-up workload's zero
    try:
        proc = subprocess.run(
            [*command, repr(spawn_t)],
            capture_output=True,
            text=True,
            timeout=900,
            env=env,
            cwd=HERE,
        )
    except subprocess.TimeoutExpired:
        return {"error": "timed out after 900 s"}, 900.0
    wall = time.clock_gettime(time.CLOCK_MONOTONIC) - spawn_t
    for line in reversed(proc.stdout.splitlines()):
        if line.startswith(RESULT_TAG):
            return json.loads(line[len(RESULT_TAG) :]), wall
    tail = (proc.stderr.strip().splitlines() or ["(no output)"])[-6:]
    return {"error": f"exit {proc.returncode}: " + " | ".join(tail)}, wall


# --------------------------------------------------------------------------- summaries


def per_process(workload: str, result: dict) -> tuple[float, float | None]:
    """(value, paired ratio) of one process. The ratio reads "x the hand loop": speed for mlp
    and charlm (higher is better), blocked time for checkpoint (lower is better)."""
    if workload == "mlp":
        run, ref = statistics.median(result["run_s"]), statistics.median(result["ref_s"])
        return result["steps"] / run, ref / run
    if workload.startswith("charlm"):
        run = statistics.median(result["run_tokens_per_s"])
        return run, run / statistics.median(result["ref_tokens_per_s"])
    if workload == "startup":
        return result["first_step_s"], None
    run, ref = statistics.median(result["run_s"]), statistics.median(result["ref_s"])
    return run, run / ref


def summarize(workload: str, raw: dict[str, list[dict]]) -> dict[str, dict]:
    out = {}
    for contender, results in raw.items():
        good = [r for r in results if "error" not in r]
        entry: dict = {"raw": results, "processes": len(good)}
        if good:
            values, ratios = zip(*(per_process(workload, r) for r in good))
            entry["value"] = spread(list(values))
            if ratios[0] is not None:
                entry["ratio"] = spread(list(ratios))
            if workload == "startup":
                entry["cpu"] = spread([r["first_step_cpu_s"] for r in good])
                entry["rest_cpu"] = spread([r["framework_to_first_step_cpu_s"] for r in good])
                for part in ("interpreter_s", "torch_import_s", "framework_to_first_step_s"):
                    entry[part] = statistics.median(r[part] for r in good)
            if workload.startswith("charlm"):
                entry["first_step_s"] = spread([r["run_first_step_s"][0] for r in good])
        if len(good) < len(results):
            entry["errors"] = [r["error"] for r in results if "error" in r]
        out[contender] = entry
    if workload == "startup" and "value" in out.get("hand", {}):
        # each process minus the hand process of the same round (they ran close in time)
        for contender, entry in out.items():
            pairs = [
                (r, h)
                for r, h in zip(raw[contender], raw["hand"])
                if "error" not in r and "error" not in h
            ]
            if pairs:
                entry["over_hand_s"] = spread(
                    [r["first_step_s"] - h["first_step_s"] for r, h in pairs]
                )
                entry["cpu_over_hand_s"] = spread(
                    [r["first_step_cpu_s"] - h["first_step_cpu_s"] for r, h in pairs]
                )
                # the same from torch's import on: what differs between the contenders, without
                # the interpreter and `import torch`, which are the same work for all of them
                # and the noisiest part of a start-up on a busy machine
                entry["rest_over_hand_s"] = spread(
                    [
                        r["framework_to_first_step_s"] - h["framework_to_first_step_s"]
                        for r, h in pairs
                    ]
                )
                entry["rest_cpu_over_hand_s"] = spread(
                    [
                        r["framework_to_first_step_cpu_s"] - h["framework_to_first_step_cpu_s"]
                        for r, h in pairs
                    ]
                )
    return out


def fmt_range(s: dict, digits: int, scale: float = 1.0) -> str:
    return f"{s['min'] * scale:,.{digits}f}-{s['max'] * scale:,.{digits}f}"


def print_workload(workload: Workload, summary: dict, notes: dict[str, str]) -> None:
    name = workload.name
    print(f"\n== {name}: {workload.description}")
    rows = []
    if name == "mlp" or name.startswith("charlm"):
        unit = "steps/s" if name == "mlp" else "tokens/s"
        headers = [
            "contender",
            unit,
            "range",
            "x hand (paired)",
            "range",
            "n",
        ]
        for contender, e in summary.items():
            if "value" not in e:
                rows.append([contender, "failed", "", "", "", "0"])
                continue
            row = [
                contender,
                f"{e['value']['median']:,.0f}",
                fmt_range(e["value"], 0),
                f"{e['ratio']['median']:.3f}x",
                fmt_range(e["ratio"], 3),
                str(e["processes"]),
            ]
            rows.append(row)
    elif name == "startup":
        headers = [
            "contender",
            "s to 1st step",
            "range",
            "- hand",
            "range",
            "after torch: - hand",
            "range",
            "CPU - hand",
            "torch",
            "rest",
            "n",
        ]

        def paired(e: dict, key: str, part: str) -> str:
            if key not in e:
                return ""
            s = e[key]
            return (
                f"{s['median']:+.3f}" if part == "median" else f"{s['min']:+.3f}..{s['max']:+.3f}"
            )

        for contender, e in summary.items():
            if "value" not in e:
                rows.append([contender, "failed", *[""] * 8, "0"])
                continue
            rows.append(
                [
                    contender,
                    f"{e['value']['median']:.3f}",
                    fmt_range(e["value"], 3),
                    paired(e, "over_hand_s", "median"),
                    paired(e, "over_hand_s", "range"),
                    paired(e, "rest_over_hand_s", "median"),
                    paired(e, "rest_over_hand_s", "range"),
                    paired(e, "rest_cpu_over_hand_s", "median"),
                    f"{e['torch_import_s']:.3f}",
                    f"{e['framework_to_first_step_s']:.3f}",
                    str(e["processes"]),
                ]
            )
    else:
        headers = ["contender", "blocked ms", "range", "x hand (paired)", "range", "n"]
        for contender, e in summary.items():
            if "value" not in e:
                rows.append([contender, "failed", "", "", "", "0"])
                continue
            rows.append(
                [
                    contender,
                    f"{e['value']['median'] * 1e3:.1f}",
                    fmt_range(e["value"], 1, 1e3),
                    f"{e['ratio']['median']:.2f}x",
                    fmt_range(e["ratio"], 2),
                    str(e["processes"]),
                ]
            )
    print_table(headers, rows)
    for contender, e in summary.items():
        for error in e.get("errors", [])[:1]:
            print(f"  {contender} failed: {error[:400]}")
    for contender, note in notes.items():
        print(f"  {contender}: skipped, {note}")
    if name == "startup":
        print(
            "  s to 1st step: wall seconds from the parent's clock just before spawning to the\n"
            "  end of the first optimizer step. '- hand': the median over rounds of each process\n"
            "  minus the hand process of the same round. 'after torch': the same from `import\n"
            "  torch` done on (the interpreter and torch's import are the same work for every\n"
            "  contender, and the noisiest part on a busy machine), and its CPU time (user +\n"
            "  system). torch: the import; rest: the library's imports, data, model, set-up and\n"
            "  the first step (medians)"
        )
    if name == "checkpoint":
        sizes = [r["bytes"] for e in summary.values() for r in e["raw"] if "bytes" in r]
        if sizes:
            print(f"  checkpoint (hand torch.save) {sizes[0] / 1e6:.1f} MB")


def targets(summaries: dict[str, dict]) -> list[dict]:
    out = []
    mlp = summaries.get("mlp", {})
    if "ratio" in mlp.get("trainwell", {}):
        mine = mlp["trainwell"]["ratio"]["median"]
        # the hand loop and the peers; trainwell's own variants and its parts are no rivals
        others = {
            c: e["ratio"]["median"]
            for c, e in mlp.items()
            if not c.startswith(("trainwell", "hand-parts")) and "ratio" in e
        }
        best = max(others, key=others.get)
        detail = (
            f"trainwell {mine:.3f}x hand; fastest other {best} {others[best]:.3f}x "
            f"({(mine / others[best] - 1) * 100:+.1f}%)"
        )
        if "ratio" in mlp.get("hand-parts", {}):
            parts = mlp["hand-parts"]["ratio"]["median"]
            detail += (
                f"; the hand loop from trainwell's parts {parts:.3f}x "
                f"(trainwell {(mine / parts - 1) * 100:+.1f}%)"
            )
        out.append(
            {
                "target": "mlp: trainwell (defaults) fastest of the hand loop and the peers",
                "met": mine >= others[best],
                "detail": detail,
            }
        )
    for name, base in (("charlm", "hand"), ("charlm-compiled", "hand")):
        s = summaries.get(name, {})
        if "ratio" in s.get("trainwell", {}):
            ratio = s["trainwell"]["ratio"]["median"]
            out.append(
                {
                    "target": f"{name}: trainwell within 3% of the {base} loop (tokens/s)",
                    "met": ratio >= 0.97,
                    "detail": f"{ratio:.3f}x ({(ratio - 1) * 100:+.1f}%), range "
                    f"{fmt_range(s['trainwell']['ratio'], 3)}",
                }
            )
    s = summaries.get("startup", {})
    if "rest_over_hand_s" in s.get("trainwell", {}):
        e = s["trainwell"]
        over = e["rest_over_hand_s"]["median"]
        out.append(
            {
                "target": "startup: trainwell <= 0.1 s over the hand loop",
                "met": over <= 0.1,
                "detail": f"{over:+.3f} s after torch's import (paired, range "
                f"{e['rest_over_hand_s']['min']:+.3f}..{e['rest_over_hand_s']['max']:+.3f}; "
                f"CPU time {e['rest_cpu_over_hand_s']['median']:+.3f} s); whole start-up "
                f"{e['over_hand_s']['median']:+.3f} s (paired, range "
                f"{e['over_hand_s']['min']:+.3f}..{e['over_hand_s']['max']:+.3f})",
            }
        )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--workload",
        default="all",
        help="mlp | charlm (eager and compiled) | charlm-eager | charlm-compiled | startup | "
        "checkpoint | all; comma-separated for several",
    )
    parser.add_argument("--repeats", type=int, default=None, help="processes per contender")
    parser.add_argument("--json", default=str(HERE / "results" / "peers.json"))
    parser.add_argument("--contenders", default=None, help="only these (comma-separated)")
    parser.add_argument("--threads", type=int, default=1, help="torch intra-op threads")
    args = parser.parse_args()
    names: list[str] = []
    for part in args.workload.split(","):
        for name in GROUPS.get(part, [part]):
            if name not in WORKLOADS:
                parser.error(f"unknown workload {part!r}")
            if name not in names:
                names.append(name)
    only = set(args.contenders.split(",")) if args.contenders else None

    started = time.perf_counter()
    report: dict = {
        "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "command": " ".join([Path(sys.executable).name, *sys.argv]),
        "machine": machine(args.threads),
        "versions": versions(),
        "workloads": {},
    }
    v = report["versions"]
    print(
        f"torch {v['torch']}, python {v['python']}, {os.cpu_count()} CPUs, "
        f"{args.threads} torch thread(s) per process; peers: lightning {v['lightning']}, "
        f"accelerate {v['accelerate']}, ignite {v['pytorch-ignite']}"
    )
    cache = tempfile.mkdtemp(prefix="tw-peers-cache-")
    prime(args.threads)
    summaries: dict[str, dict] = {}
    try:
        for name in names:
            workload = WORKLOADS[name]
            notes: dict[str, str] = {}
            contenders = []
            for contender in workload.contenders:
                if only is not None and contender not in only and contender != "hand":
                    continue
                why = unavailable(contender)
                if why is None and name == "charlm-compiled" and contender.startswith("trainwell"):
                    why = compile_pending()
                if why:
                    notes[contender] = why
                else:
                    contenders.append(contender)
            repeats = args.repeats or workload.repeats
            raw: dict[str, list[dict]] = {c: [] for c in contenders}
            walls: dict[str, list[float]] = {c: [] for c in contenders}
            t0 = time.perf_counter()
            for r in range(repeats):
                k = r % len(contenders)
                for contender in contenders[k:] + contenders[:k]:  # round-robin, rotated
                    result, wall = spawn(workload, contender, r, cache, args.threads)
                    raw[contender].append(result)
                    walls[contender].append(wall)
                    status = "failed" if "error" in result else f"{wall:.1f}s"
                    print(f"  [{name} {r + 1}/{repeats}] {contender}: {status}", file=sys.stderr)
            summary = summarize(name, raw)
            for contender in contenders:
                summary[contender]["process_wall_s"] = walls[contender]
            summaries[name] = summary
            print_workload(workload, summary, notes)
            report["workloads"][name] = {
                "description": workload.description,
                "repeats": repeats,
                "child_args": workload.child_args,
                "contenders": summary,
                "skipped": notes,
                "wall_s": time.perf_counter() - t0,
            }
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    report["targets"] = targets(summaries)
    report["machine"]["load_average_at_end"] = (
        list(os.getloadavg()) if hasattr(os, "getloadavg") else None
    )
    report["runtime_s"] = time.perf_counter() - started
    if report["targets"]:
        print("\n== targets")
        for t in report["targets"]:
            print(f"  {'met' if t['met'] else 'NOT MET'}: {t['target']}: {t['detail']}")
    path = Path(args.json)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(report, indent=1) + "\n")
    print(f"\n{report['runtime_s']:.0f} s in all; results in {path}")


if __name__ == "__main__":
    main()
