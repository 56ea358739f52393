"""Two ordinary small training loops, as users write them, with and without ``watch()``.

* ``textbook``: a BatchNorm + Dropout MLP, a default DataLoader (batch 32, shuffled),
  ``loss.item()`` every step, ``clip_grad_norm_``, ``StepLR`` per epoch, and validation under
  ``no_grad`` every epoch, for 4 epochs (256 steps);
* ``onecycle``: an MLP on in-memory tensors with a per-batch ``OneCycleLR`` (AdamW), 4 epochs.

One run prints the median time per optimizer step of its epochs (imports, model building and
the watch's set-up excluded: those are the fixed cost, printed apart as ``fixed_ms``) as JSON.
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
    started = time.perf_counter()
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
    guard = (
        watch(model, opt, loss_fn=crit, scheduler=sched) if guarded else contextlib.nullcontext()
    )
    per_step, fixed = [], time.perf_counter() - started
    with guard:
        for _epoch in range(4):
            model.train()
            total, steps, begin = 0.0, 0, time.perf_counter()
            for xb, yb in train:
                opt.zero_grad()
                loss = crit(model(xb), yb)
                loss.backward()
                nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                opt.step()
                total += loss.item()
                steps += 1
            per_step.append((time.perf_counter() - begin) / steps)
            sched.step()
            model.eval()
            with torch.no_grad():
                correct = sum((model(xb).argmax(1) == yb).sum().item() for xb, yb in val)
            del correct
    return per_step, fixed


def onecycle(guarded: bool) -> tuple[list[float], float]:
    x, y, _, _ = _data()
    started = time.perf_counter()
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(FEATURES, 64), nn.ReLU(), nn.Linear(64, CLASSES))
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    batch = 64
    sched = torch.optim.lr_scheduler.OneCycleLR(
        opt, max_lr=1e-2, total_steps=4 * (SAMPLES // batch)
    )
    crit = nn.CrossEntropyLoss()
    guard = (
        watch(model, opt, loss_fn=crit, scheduler=sched) if guarded else contextlib.nullcontext()
    )
    per_step, fixed = [], time.perf_counter() - started
    with guard:
        for _epoch in range(4):
            order = torch.randperm(SAMPLES)
            steps, begin = 0, time.perf_counter()
            for start in range(0, SAMPLES, batch):
                index = order[start : start + batch]
                opt.zero_grad(set_to_none=True)
                crit(model(x[index]), y[index]).backward()
                opt.step()
                sched.step()
                steps += 1
            per_step.append((time.perf_counter() - begin) / steps)
    return per_step, fixed


LOOPS = {"textbook": textbook, "onecycle": onecycle}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("loop", choices=sorted(LOOPS))
    parser.add_argument("--watch", action="store_true", help="run it under trainwell's watch()")
    args = parser.parse_args()
    torch.set_num_threads(1)
    per_step, fixed = LOOPS[args.loop](args.watch)
    print(json.dumps({"step_ms": statistics.median(per_step) * 1e3, "fixed_ms": fixed * 1e3}))


if __name__ == "__main__":
    main()
