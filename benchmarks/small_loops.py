"""Two ordinary small training loops, as users write them, with and without ``watch()``.

* ``textbook``: a BatchNorm + Dropout MLP, a default DataLoader (batch 32, shuffled),
  ``loss.item()`` every step, ``clip_grad_norm_``, ``StepLR`` per epoch, and validation under
  ``no_grad`` every epoch, for 4 epochs (256 steps);
* ``onecycle``: an MLP on in-memory tensors with a per-batch ``OneCycleLR`` (AdamW), 4 epochs.

One run prints, as JSON, the median time of its optimizer steps (``step_ms``: each step timed
on its own, so the few steps the guards check in full do not move it) and the whole loop's
time from the watch's creation to its close (``whole_ms``; imports and building the model excluded): what the
watch adds beyond ``steps`` x its per-step cost is its fixed cost.
``benchmarks/guards.py --small`` runs both scripts as whole processes, interleaved, with the
watch and with a null context in its place, and reports the ratios.

    python benchmarks/small_loops.py textbook [--watch]
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


def textbook(guarded: bool) -> tuple[list[float], float]:
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
    started = time.perf_counter()  # model, data, optimizer built: from here, the watch's part
    guard = (
        watch(model, opt, loss_fn=crit, scheduler=sched) if guarded else contextlib.nullcontext()
    )
    per_step: list[float] = []
    with guard:
        for _epoch in range(4):
            model.train()
            total, last = 0.0, time.perf_counter()
            for xb, yb in train:
                opt.zero_grad()
                loss = crit(model(xb), yb)
                loss.backward()
                nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                opt.step()
                total += loss.item()
                now = time.perf_counter()
                per_step.append(now - last)  # the next batch's loading is in the next step
                last = now
            sched.step()
            model.eval()
            with torch.no_grad():
                correct = sum((model(xb).argmax(1) == yb).sum().item() for xb, yb in val)
            del correct
    return per_step, time.perf_counter() - started


def onecycle(guarded: bool) -> tuple[list[float], float]:
    x, y, _, _ = _data()
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(FEATURES, 64), nn.ReLU(), nn.Linear(64, CLASSES))
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    batch = 64
    sched = torch.optim.lr_scheduler.OneCycleLR(
        opt, max_lr=1e-2, total_steps=4 * (SAMPLES // batch)
    )
    crit = nn.CrossEntropyLoss()
    started = time.perf_counter()  # model, data, optimizer built: from here, the watch's part
    guard = (
        watch(model, opt, loss_fn=crit, scheduler=sched) if guarded else contextlib.nullcontext()
    )
    per_step: list[float] = []
    with guard:
        for _epoch in range(4):
            order = torch.randperm(SAMPLES)
            last = time.perf_counter()
            for start in range(0, SAMPLES, batch):
                index = order[start : start + batch]
                opt.zero_grad(set_to_none=True)
                crit(model(x[index]), y[index]).backward()
                opt.step()
                sched.step()
                now = time.perf_counter()
                per_step.append(now - last)
                last = now
    return per_step, time.perf_counter() - started


LOOPS = {"textbook": textbook, "onecycle": onecycle}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("loop", choices=sorted(LOOPS))
    parser.add_argument("--watch", action="store_true", help="run it under trainwell's watch()")
    args = parser.parse_args()
    torch.set_num_threads(1)
    per_step, whole = LOOPS[args.loop](args.watch)  # the loop, with the watch's set-up and close
    print(
        json.dumps(
            {
                "step_ms": statistics.median(per_step) * 1e3,
                "steps": len(per_step),
                "whole_ms": whole * 1e3,
            }
        )
    )


if __name__ == "__main__":
    main()
