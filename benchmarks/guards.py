"""The cost of the runtime guards, with their defaults, on small models (digits, batch 64).

Pairs, each run interleaved (round-robin) on the same model, data and seed:

* a hand-written loop with and without ``trainwell.guards.watch()`` around it, for the digits
  MLP (the smallest step: where hooks cost the most, relatively) and the digits CNN;
* the same MLP pair over a run ``--long`` times as long: the two lengths separate the cost per
  step (hooks, sampled checks every ``guards.every`` steps) from the fixed cost of one watch
  (installing, the first step's full checks, validation forwards, the final read, removal);
* ``trainwell.fit()`` with ``guards.enabled=true`` (the default) vs ``false``: the digits CNN,
  and the MLP over the long run.

Each pair is reported as the guarded run's speed relative to the unguarded one, from median
wall times; the targets: watch() >= 0.97 per step (<= 3% overhead), fit() >= 0.98 (<= 2%).

    python benchmarks/guards.py [--epochs 5] [--long 8] [--repeats 9] [--threads 1]
    python benchmarks/guards.py --small [--repeats 7]   # the ordinary small loops, whole runs
    python benchmarks/guards.py --small --src src --src ../main/src   # two trees, same rounds
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import torch
from _harness import interleaved, report
from torch import nn

import trainwell as tw
from trainwell.config.guards import GuardsConfig
from trainwell.data import epoch_order
from trainwell.guards import watch
from trainwell.recipes.digits import DigitsCNN, load_digits_tensors

BATCH, LR, WD = 64, 3e-3, 0.01


def digits_mlp() -> nn.Module:
    return nn.Sequential(
        nn.Flatten(),
        nn.Linear(64, 128),
        nn.ReLU(),
        nn.Linear(128, 128),
        nn.ReLU(),
        nn.Linear(128, 10),
    )


def hand_loop(train, val, epochs: int, *, guarded: bool, make=DigitsCNN) -> None:
    """The usual loop (zero_grad, forward, backward, clip, step, validate), optionally watched."""
    torch.manual_seed(0)
    model = make()
    optimizer = tw.build_optimizer(model, lr=LR, weight_decay=WD)
    criterion = nn.CrossEntropyLoss()
    (x, y), (xv, yv) = train, val
    guards = watch(model, optimizer, loss_fn=criterion) if guarded else contextlib.nullcontext()
    with guards:
        for epoch in range(epochs):
            model.train()
            order = epoch_order(len(x), 0, epoch)
            for i in range(0, len(x), BATCH):
                index = order[i : i + BATCH]
                optimizer.zero_grad(set_to_none=True)
                loss = criterion(model(x[index]), y[index])
                loss.backward()
                torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                optimizer.step()
            model.eval()
            with torch.inference_mode():
                criterion(model(xv), yv).item()
    if guarded:
        assert not guards.findings, guards.findings  # a healthy loop: the guards stay silent


def fit_run(train, val, epochs: int, *, guarded: bool, make=DigitsCNN) -> None:
    torch.manual_seed(0)
    config = tw.build_config(
        {
            "run": {"quiet": True, "log_every": 50},
            "data": {"batch_size": BATCH},
            "train": {"max_epochs": epochs, "clip_norm": 1.0},
            "optim": {"lr": LR, "weight_decay": WD},
            "monitor": {"metric": "val_accuracy", "mode": "max"},
            "guards": {"enabled": guarded},
        }
    )
    result = tw.fit(make(), train, val, config=config, metrics=["accuracy"])
    assert not result.findings, result.findings  # a healthy run: the guards stay silent


def paired_watch_cost(train, cycles: int, every: int) -> tuple[float, float, float, float]:
    """The steady cost of watch() per step, robust to this machine's drift: two identical MLPs
    in one process, one watched for the whole run, trained in alternating blocks of ``every``
    steps (one cadence cycle: its armed window and read included); the median over ``cycles``
    of (watched block - mean of the plain blocks around it). The process-wide clip wrapper
    serves the plain model too (it is faster than torch's own), so this errs towards more
    overhead. Returns (median, first quartile, third quartile, plain step), in seconds."""
    x, y = train

    def make():
        torch.manual_seed(0)
        model = digits_mlp()
        return model, tw.build_optimizer(model, lr=LR, weight_decay=WD), nn.CrossEntropyLoss()

    plain, watched = make(), make()
    order = epoch_order(len(x), 0, 0)

    def block(model, optimizer, criterion) -> float:
        start = time.perf_counter()
        for s in range(every):
            i = (s * BATCH) % (len(x) - BATCH)
            index = order[i : i + BATCH]
            optimizer.zero_grad(set_to_none=True)
            criterion(model(x[index]), y[index]).backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
        return (time.perf_counter() - start) / every

    model, optimizer, criterion = watched
    with watch(model, optimizer, loss_fn=criterion, every=every) as guards:
        for _ in range(3):
            block(*plain), block(*watched)
        diffs, bases = [], []
        for _ in range(cycles):
            before, during, after = block(*plain), block(*watched), block(*plain)
            diffs.append(during - (before + after) / 2)
            bases.append((before + after) / 2)
    assert not guards.findings, guards.findings
    q1, median, q3 = statistics.quantiles(diffs, n=4)
    return median, q1, q3, statistics.median(bases)


def small_loops(repeats: int, sources: list[str]) -> None:
    """The ordinary small loops of `small_loops.py` as whole processes, interleaved: each with
    ``watch()`` and with a null context in its place; median time per optimizer step. Each of
    ``sources`` (a trainwell ``src`` folder: this checkout's, or another to compare with) is
    measured in the same rounds. Wall time, and the loop thread's CPU time (on a machine shared
    with other work, the time the core was taken away is not in it)."""
    script = str(Path(__file__).with_name("small_loops.py"))
    rows = []
    for loop in ("textbook", "onecycle"):
        runs: dict[tuple[str, bool], list[dict[str, float]]] = {
            (src, guarded): [] for src in sources for guarded in (False, True)
        }
        for _ in range(repeats):
            for src in sources:
                env = {**os.environ, "PYTHONPATH": src}
                for guarded in (False, True):
                    command = [sys.executable, script, loop] + (["--watch"] if guarded else [])
                    out = subprocess.run(
                        command, env=env, capture_output=True, text=True, check=True
                    )
                    runs[(src, guarded)].append(json.loads(out.stdout.strip().splitlines()[-1]))
        for src in sources:
            for clock in ("", "_cpu"):
                rows.append(_small_row(loop, src, clock, runs[(src, False)], runs[(src, True)]))
        for src in sources:  # the same loop in one process, runs back to back
            command = [sys.executable, script, loop, "--pairs", str(2 * repeats + 1)]
            env = {**os.environ, "PYTHONPATH": src}
            out = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
            got = json.loads(out.stdout.strip().splitlines()[-1])
            share = got["paired_fixed_ms"] / (200 * got["step_cpu_ms"])
            rows.append(
                f"{loop} [{src}] in-process pairs (CPU time): {got['paired_ratio']:.3f}x per "
                f"step (10th percentile of the steps: {got['paired_ratio_p10']:.3f}x); fixed cost of one watch {got['paired_fixed_ms']:.1f} ms = {share:.1%} of "
                f"a 200-step run ({got['step_cpu_ms']:.3f} ms/step plain)"
            )
    print(f"small loops, whole processes, {repeats} interleaved runs each, 1 thread:")
    print("\n".join(rows))


def _small_row(
    loop: str, src: str, clock: str, plain_runs: list[dict], watched_runs: list[dict]
) -> str:
    """One line: per-step ratio and fixed cost of one watch, by wall (``clock`` "") or CPU
    time ("_cpu")."""
    plain = statistics.median(r[f"step{clock}_ms"] for r in plain_runs)
    watched = statistics.median(r[f"step{clock}_ms"] for r in watched_runs)
    steps = plain_runs[0]["steps"]
    extra = statistics.median(r[f"whole{clock}_ms"] for r in watched_runs) - statistics.median(
        r[f"whole{clock}_ms"] for r in plain_runs
    )
    fixed = extra - steps * (watched - plain)  # set-up, full checks, reads, close
    share = fixed / (200 * plain)  # of a 200-step run's training time
    kind = "CPU time" if clock else "wall time"
    return (
        f"{loop} [{src}] {kind}: {plain:.3f} ms/step plain, {watched:.3f} ms/step watched: "
        f"{watched / plain:.3f}x per step (target <= 1.03); fixed cost of one watch "
        f"{fixed:.1f} ms = {share:.1%} of a 200-step run (target < 2%)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--small", action="store_true", help="only the ordinary small loops (small_loops.py)"
    )
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--long", type=int, default=8, help="the long MLP run: x --epochs")
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--threads", type=int, default=None, help="torch intra-op threads")
    parser.add_argument(
        "--src",
        action="append",
        help="--small: a trainwell src folder to measure (repeat to compare; default: this one)",
    )
    args = parser.parse_args()
    if args.small:
        here = str(Path(__file__).resolve().parents[1] / "src")
        small_loops(max(args.repeats, 7), args.src or [here])
        return
    if args.threads:
        torch.set_num_threads(args.threads)  # 1 thread: steadier ratios on a busy machine
    train, val = load_digits_tensors(0.2, seed=0)
    steps = args.epochs * math.ceil(len(train[0]) / BATCH)
    print(
        f"digits CNN, batch {BATCH}, {args.epochs} epochs = {steps} steps per run, "
        f"{args.repeats} interleaved repeats, torch {torch.__version__}, "
        f"{torch.get_num_threads()} threads"
    )
    e, long_e = args.epochs, args.epochs * args.long
    times = interleaved(
        {
            "MLP hand loop": lambda: hand_loop(train, val, e, guarded=False, make=digits_mlp),
            "MLP hand loop + watch()": lambda: hand_loop(
                train, val, e, guarded=True, make=digits_mlp
            ),
            "MLP hand loop, long": lambda: hand_loop(
                train, val, long_e, guarded=False, make=digits_mlp
            ),
            "MLP hand loop, long + watch()": lambda: hand_loop(
                train, val, long_e, guarded=True, make=digits_mlp
            ),
            "CNN hand loop": lambda: hand_loop(train, val, e, guarded=False),
            "CNN hand loop + watch()": lambda: hand_loop(train, val, e, guarded=True),
            "MLP fit(), long": lambda: fit_run(train, val, long_e, guarded=False, make=digits_mlp),
            "MLP fit(), long + guards": lambda: fit_run(
                train, val, long_e, guarded=True, make=digits_mlp
            ),
            "fit()": lambda: fit_run(train, val, e, guarded=False),
            "fit() + guards": lambda: fit_run(train, val, e, guarded=True),
        },
        repeats=args.repeats,
    )
    report(times, "CNN hand loop", unit_count=steps, unit="steps")
    pairs = (
        ("MLP hand loop", "MLP hand loop + watch()", 0.97),
        ("CNN hand loop", "CNN hand loop + watch()", 0.97),
        ("fit()", "fit() + guards", 0.98),
        ("MLP fit(), long", "MLP fit(), long + guards", 0.98),
    )
    for plain, guarded, target in pairs:
        base, with_guards = statistics.median(times[plain]), statistics.median(times[guarded])
        ratio = base / with_guards
        run_steps = steps * args.long if "long" in plain else steps
        per_step_us = (with_guards - base) / run_steps * 1e6
        verdict = "ok" if ratio >= target else "OVER BUDGET"
        print(
            f"{guarded}: speed {ratio:.3f}x of {plain}, {per_step_us:+.0f} us/step "
            f"({verdict}, target >= {target})"
        )
    # cost(run) = fixed + per_step x steps, from the short and the long MLP runs
    long_steps = steps * args.long
    extra_short = statistics.median(times["MLP hand loop + watch()"]) - statistics.median(
        times["MLP hand loop"]
    )
    extra_long = statistics.median(times["MLP hand loop, long + watch()"]) - statistics.median(
        times["MLP hand loop, long"]
    )
    per_step = (extra_long - extra_short) / (long_steps - steps)
    fixed = extra_short - per_step * steps
    plain_step = statistics.median(times["MLP hand loop, long"]) / long_steps
    ratio = plain_step / (plain_step + per_step)
    verdict = "ok" if ratio >= 0.97 else "OVER BUDGET"
    print(
        f"MLP watch() per step: {per_step * 1e6:+.1f} us on a {plain_step * 1e6:.0f} us step, "
        f"speed {ratio:.3f}x ({verdict}, target >= 0.97); fixed per watch: "
        f"{fixed * 1e3:.2f} ms (install, first-step checks, validation, close)"
    )
    every = GuardsConfig().every
    median, q1, q3, plain_step = paired_watch_cost(train, cycles=args.repeats * 3, every=every)
    ratio = plain_step / (plain_step + median)
    verdict = "ok" if ratio >= 0.97 else "OVER BUDGET"
    print(
        f"MLP watch() per step, paired blocks of {every} steps: {median * 1e6:+.1f} us "
        f"(IQR {q1 * 1e6:+.1f}..{q3 * 1e6:+.1f}) on a {plain_step * 1e6:.0f} us step, "
        f"speed {ratio:.3f}x ({verdict}, target >= 0.97)"
    )


if __name__ == "__main__":
    main()
