"""How long a save blocks the training loop: synchronous vs asynchronous checkpoints.

A 25M-parameter MLP with AdamW state (~300 MB of training state) is saved repeatedly with
each policy, interleaved; the median time the loop is blocked per save is compared. Async
copies the state to CPU at the step boundary and writes it from a background thread, so the
loop waits only for the copy (and for a previous save still in flight). End-to-end, a few
training steps run between saves, so the write overlaps with compute.

    python benchmarks/checkpoint.py [--repeats 5] [--steps-between 3]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
import time
from pathlib import Path

import torch
from torch import nn

import trainwell as tw
from trainwell.state.checkpointer import Checkpointer


def build() -> tuple[nn.Module, torch.optim.Optimizer]:
    torch.manual_seed(0)
    model = nn.Sequential(
        nn.Linear(1024, 4096), nn.ReLU(), nn.Linear(4096, 4096), nn.ReLU(), nn.Linear(4096, 1024)
    )
    optimizer = tw.build_optimizer(model, lr=1e-4)
    return model, optimizer


def train_steps(model: nn.Module, optimizer: torch.optim.Optimizer, steps: int) -> None:
    for _ in range(steps):
        optimizer.zero_grad(set_to_none=True)
        model(torch.randn(64, 1024)).square().mean().backward()
        optimizer.step()


def one_round(
    directory: Path, async_save: bool, model, optimizer, steps_between: int
) -> tuple[float, float]:
    """Blocked time of one save, and wall time of (save + steps + the next save's wait)."""
    checkpointer = Checkpointer(directory, async_save=async_save, keep_last=1)
    counters = tw.Counters(step=1)
    parts = {"model": model, "optimizer": optimizer}
    start = time.perf_counter()
    record = checkpointer.save(parts, counters)
    train_steps(model, optimizer, steps_between)
    checkpointer.close()  # the next save (or the end of training) waits for this one
    return record.blocked_s, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--steps-between", type=int, default=3)
    args = parser.parse_args()
    model, optimizer = build()
    train_steps(model, optimizer, 1)  # create the optimizer state
    params = sum(p.numel() for p in model.parameters())
    tmp = Path(tempfile.mkdtemp(prefix="tw-ckpt-bench-"))
    blocked: dict[str, list[float]] = {"sync": [], "async": []}
    wall: dict[str, list[float]] = {"sync": [], "async": []}
    compute = []
    try:
        for i in range(args.repeats + 1):
            for name in ("sync", "async"):
                b, w = one_round(tmp / name, name == "async", model, optimizer, args.steps_between)
                if i:  # the first round warms up the page cache and allocator
                    blocked[name].append(b)
                    wall[name].append(w)
            start = time.perf_counter()
            train_steps(model, optimizer, args.steps_between)
            if i:
                compute.append(time.perf_counter() - start)
        size = next((tmp / "sync").glob("step-*.pt")).stat().st_size
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(
        f"{params / 1e6:.1f}M parameters, checkpoint {size / 1e6:.0f} MB, {args.repeats} interleaved repeats"
    )
    b_sync, b_async = statistics.median(blocked["sync"]), statistics.median(blocked["async"])
    w_sync, w_async = statistics.median(wall["sync"]), statistics.median(wall["async"])
    print(
        f"loop blocked per save: sync {b_sync:.3f}s, async {b_async:.3f}s -> async blocks {b_async / b_sync:.2f}x as long"
    )
    print(
        f"save + {args.steps_between} steps (compute alone {statistics.median(compute):.3f}s): "
        f"sync {w_sync:.3f}s, async {w_async:.3f}s -> {w_sync / w_async:.2f}x faster with async"
    )


if __name__ == "__main__":
    main()
