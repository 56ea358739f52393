"""Two ordinary small training loops, as users write them, with and without ``watch()``.

* ``textbook``: a BatchNorm + Dropout MLP, a default DataLoader (batch 32, shuffled),
  ``loss.item()`` every step, ``clip_grad_norm_``, ``StepLR`` per epoch, and validation under
  ``no_grad`` every epoch, for 4 epochs (256 steps);
* ``onecycle``: an MLP on in-memory tensors with a per-batch ``OneCycleLR`` (AdamW), 4 epochs.

One run prints, as JSON, the median time of its optimizer steps (``step_ms``: each step timed
on its own, so the few steps the guards check in full do not move it) and the whole loop's
time from the watch's creation to its close (``whole_ms``; imports and building the model excluded): what the
watch adds beyond ``steps`` x its per-step cost is its fixed cost. ``step_cpu_ms`` and
``whole_cpu_ms`` are the same in this thread's CPU time: on a shared machine, the time other
processes held the core is not in them.
``benchmarks/guards.py --small`` runs both scripts as whole processes, interleaved, with the
watch and with a null context in its place, and reports the ratios.

    python benchmarks/small_loops.py textbook [--watch]
    python benchmarks/small_loops.py textbook --pairs 15   # in one process: see `paired`
"""

from __future__ import annotations

import argparse
import contextlib
import json
import statistics
import time

import torch
from torch import nn

from trainwell.guards import watch

SAMPLES, FEATURES, CLASSES = 2048, 32, 3


def _data() -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(0)
    x = torch.randn(SAMPLES, FEATURES, generator=g)
    y = (x[:, 0] > 0).long() + (x[:, 1] > 0).long()
    xv = torch.randn(512, FEATURES, generator=g)
    return x, y, xv, (xv[:, 0] > 0).long() + (xv[:, 1] > 0).long()


Times = tuple[list[float], float, list[float], float]  # wall per step, whole; CPU the same


def _clock() -> tuple[float, float]:
    return time.perf_counter(), time.thread_time()


def textbook(guarded: bool) -> Times:
    x, y, xv, yv = _data()
    torch.manual_seed(0)
    model = nn.Sequential(
        nn.Linear(FEATURES, 64), nn.BatchNorm1d(64), nn.ReLU(), nn.Dropout(0.2), nn.Linear(64, 3)
    )
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    sched = torch.optim.lr_scheduler.StepLR(opt, 2, 0.5)
    crit = nn.CrossEntropyLoss()
    train = torch.utils.data.DataLoader(
        torch.utils.data.TensorDataset(x, y), batch_size=32, shuffle=True
    )
    val = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(xv, yv), batch_size=128)
    started = _clock()  # model, data, optimizer built: from here, the watch's part
    guard = (
        watch(model, opt, loss_fn=crit, scheduler=sched) if guarded else contextlib.nullcontext()
    )
    per_step: list[float] = []
    per_cpu: list[float] = []
    with guard:
        for _epoch in range(4):
            model.train()
            total, last = 0.0, _clock()
            for xb, yb in train:
                opt.zero_grad()
                loss = crit(model(xb), yb)
                loss.backward()
                nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                opt.step()
                total += loss.item()
                now = _clock()
                per_step.append(now[0] - last[0])  # the next batch's loading is in the next step
                per_cpu.append(now[1] - last[1])
                last = now
            sched.step()
            model.eval()
            with torch.no_grad():
                correct = sum((model(xb).argmax(1) == yb).sum().item() for xb, yb in val)
            del correct
    end = _clock()
    return per_step, end[0] - started[0], per_cpu, end[1] - started[1]


def onecycle(guarded: bool) -> Times:
    x, y, _, _ = _data()
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(FEATURES, 64), nn.ReLU(), nn.Linear(64, CLASSES))
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    batch = 64
    sched = torch.optim.lr_scheduler.OneCycleLR(
        opt, max_lr=1e-2, total_steps=4 * (SAMPLES // batch)
    )
    crit = nn.CrossEntropyLoss()
    started = _clock()  # model, data, optimizer built: from here, the watch's part
    guard = (
        watch(model, opt, loss_fn=crit, scheduler=sched) if guarded else contextlib.nullcontext()
    )
    per_step: list[float] = []
    per_cpu: list[float] = []
    with guard:
        for _epoch in range(4):
            order = torch.randperm(SAMPLES)
            last = _clock()
            for start in range(0, SAMPLES, batch):
                index = order[start : start + batch]
                opt.zero_grad(set_to_none=True)
                crit(model(x[index]), y[index]).backward()
                opt.step()
                sched.step()
                now = _clock()
                per_step.append(now[0] - last[0])
                per_cpu.append(now[1] - last[1])
                last = now
    end = _clock()
    return per_step, end[0] - started[0], per_cpu, end[1] - started[1]


LOOPS = {"textbook": textbook, "onecycle": onecycle}


def _tenth(values: list[float]) -> float:
    return sorted(values)[len(values) // 10]


def paired(loop: str, pairs: int) -> dict[str, float]:
    """In one process, ``pairs`` runs of the loop without and with the watch, back to back (in
    alternating order), after one warm-up pair: the median over pairs of the per-step ratio
    (median steps, CPU time) and of the fixed cost (the extra whole time beyond steps x the
    per-step extra). A pair's two runs are a fraction of a second apart, so a machine whose
    speed drifts (other work on the sibling core) moves both alike, where whole processes
    minutes apart do not; the first watch's one-time costs in a process (caches) are not in it."""
    run = LOOPS[loop]
    run(False), run(True)
    ratios, lows, fixed, plain_steps = [], [], [], []
    for i in range(pairs):
        order = (False, True) if i % 2 == 0 else (True, False)
        got = {guarded: run(guarded) for guarded in order}
        plain, watched = statistics.median(got[False][2]), statistics.median(got[True][2])
        extra = got[True][3] - got[False][3]
        ratios.append(watched / plain)
        lows.append(_tenth(got[True][2]) / _tenth(got[False][2]))
        fixed.append(extra - len(got[False][2]) * (watched - plain))
        plain_steps.append(plain)
    return {
        "paired_ratio": statistics.median(ratios),
        # the 10th percentile of the steps: the steps no other process slowed down
        "paired_ratio_p10": statistics.median(lows),
        "paired_fixed_ms": statistics.median(fixed) * 1e3,
        "step_cpu_ms": statistics.median(plain_steps) * 1e3,
        "steps": len(got[False][2]),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("loop", choices=sorted(LOOPS))
    parser.add_argument("--watch", action="store_true", help="run it under trainwell's watch()")
    parser.add_argument("--pairs", type=int, default=0, help="in-process pairs (see `paired`)")
    args = parser.parse_args()
    torch.set_num_threads(1)
    if args.pairs:
        print(json.dumps(paired(args.loop, args.pairs)))
        return
    # the loop, with the watch's set-up and close
    per_step, whole, per_cpu, whole_cpu = LOOPS[args.loop](args.watch)
    print(
        json.dumps(
            {
                "step_ms": statistics.median(per_step) * 1e3,
                "steps": len(per_step),
                "whole_ms": whole * 1e3,
                "step_cpu_ms": statistics.median(per_cpu) * 1e3,
                "whole_cpu_ms": whole_cpu * 1e3,
            }
        )
    )


if __name__ == "__main__":
    main()
