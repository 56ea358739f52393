"""Python lines run per training step: a deterministic proxy for a loop's own overhead.

On a small model the step is about half Python interpretation, and Python that runs between
kernels runs cold (its code and data were evicted by the kernels), so the number of lines a
mechanism adds per step tracks its cost; unlike wall time on a shared machine, the count does
not drift. Counted with ``sys.settrace`` line events over steady steps (past the first guard
cycle), for the digits MLP:

* the hand loop with and without ``trainwell.guards.watch()`` around it;
* ``fit()`` with guards on and off (nothing logged in between).

    python benchmarks/lines.py [--steps 500] [--top 12]
"""

from __future__ import annotations

import argparse
import collections
import sys
from collections.abc import Callable
from typing import Any

import torch
from guards import BATCH, LR, WD, digits_mlp
from torch import nn

import trainwell as tw
from trainwell.data import epoch_order
from trainwell.guards import watch
from trainwell.recipes.digits import load_digits_tensors

Counts = collections.Counter[tuple[str, str]]


class LineCounter:
    """Counts line events per (file, function) while on."""

    def __init__(self) -> None:
        self.lines: Counts = collections.Counter()

    def _call(self, frame: Any, event: str, arg: Any) -> Callable | None:
        if event == "call":
            frame.f_trace_lines = True
            return self._line
        return None

    def _line(self, frame: Any, event: str, arg: Any) -> Callable:
        if event == "line":
            name = frame.f_code.co_filename
            short = name.split("site-packages/")[-1].split("src/")[-1]
            self.lines[(short, frame.f_code.co_name)] += 1
        return self._line

    def on(self) -> None:
        sys.settrace(self._call)

    def off(self) -> None:
        sys.settrace(None)


def hand_loop_lines(train, steps: int, guarded: bool) -> Counts:
    x, y = train
    torch.manual_seed(0)
    model = digits_mlp()
    optimizer = tw.build_optimizer(model, lr=LR, weight_decay=WD)
    criterion = nn.CrossEntropyLoss()
    order = epoch_order(len(x), 0, 0)
    batches = [order[i : i + BATCH] for i in range(0, len(x) - BATCH, BATCH)]

    def step(s: int) -> None:
        index = batches[s % len(batches)]
        optimizer.zero_grad(set_to_none=True)
        criterion(model(x[index]), y[index]).backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()

    counter = LineCounter()
    guards = watch(model, optimizer, loss_fn=criterion) if guarded else None
    try:
        for s in range(150):  # past the first cycle of checks
            step(s)
        counter.on()
        for s in range(steps):
            step(s)
        counter.off()
    finally:
        counter.off()
        if guards is not None:
            guards.close()
    return counter.lines


def fit_lines(train, val, steps: int, guarded: bool) -> Counts:
    counter = LineCounter()
    first, last = 150, 150 + steps

    class Window(tw.Observer):
        def on_step_end(self, report):
            if report.step == first:
                counter.on()
            elif report.step == last:
                counter.off()

    epochs = -(-last // -(-len(train[0]) // BATCH)) + 1
    config = tw.build_config(
        {
            "run": {"quiet": True, "log_every": 10**9},
            "data": {"batch_size": BATCH},
            "train": {"max_epochs": epochs, "clip_norm": 1.0},
            "optim": {"lr": LR, "weight_decay": WD},
            "guards": {"enabled": guarded},
        }
    )
    torch.manual_seed(0)
    try:
        tw.fit(digits_mlp(), train, val, config=config, observers=[Window()])
    finally:
        counter.off()
    return counter.lines


def compare(name: str, plain: Counts, other: Counts, steps: int, top: int) -> None:
    base, more = sum(plain.values()) / steps, sum(other.values()) / steps
    print(
        f"{name}: {more:.0f} lines/step vs {base:.0f} ({more - base:+.0f}, {more / base - 1:+.1%})"
    )
    diff = collections.Counter({k: other[k] - plain[k] for k in set(plain) | set(other)})
    for (file, function), count in diff.most_common(top):
        if count > 0:
            print(f"  {count / steps:+7.1f}  {file}:{function}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=500)
    parser.add_argument("--top", type=int, default=12)
    args = parser.parse_args()
    torch.set_num_threads(1)
    train, val = load_digits_tensors(0.2, seed=0)
    steps = args.steps
    print(f"digits MLP, batch {BATCH}, {steps} steady steps, torch {torch.__version__}")
    compare(
        "hand loop + watch()",
        hand_loop_lines(train, steps, guarded=False),
        hand_loop_lines(train, steps, guarded=True),
        steps,
        args.top,
    )
    compare(
        "fit() guards on vs off",
        fit_lines(train, val, steps, guarded=False),
        fit_lines(train, val, steps, guarded=True),
        steps,
        args.top,
    )


if __name__ == "__main__":
    main()
