"""watch() on small steps, steady state: blocks of 100 optimizer steps, plain and watched.

Two copies of each loop (a OneCycle MLP with AdamW and no clip; a textbook BatchNorm + Dropout
MLP with SGD, clipping and ``.item()`` each step) run interleaved block by block, the watched
copy's watch kept open, so its armed windows and its read every ``guards.every`` steps fall in
the blocks. The minimum over blocks filters a shared machine's bursts; the median is printed too.
``--stub`` replaces parts of the watch by no-ops to see what they cost (attribution only: a
stubbed watch checks less). Pin it to a core on a quiet machine (``taskset -c 2``).

    python benchmarks/guards_blocks.py [--device cpu|cuda] [--blocks 60]
    python benchmarks/guards_blocks.py --stub rows,inputs,loss,sched
"""

from __future__ import annotations

import argparse
import collections
import statistics
import time
import warnings

import torch
from torch import nn

from trainwell.guards import watch

STUBS = ("rows", "inputs", "loss", "sched", "post")


def stub(parts: set[str]) -> None:
    """Replace the named per-step bodies of the guards by no-ops (for attribution only)."""
    import trainwell.guards.loss_trend as lt
    import trainwell.guards.nonfinite as nf
    import trainwell.guards.scheduler as sg

    class NoDeque(collections.deque):
        def append(self, x):  # noqa: ANN001, ANN202
            pass

    if "rows" in parts:
        attach = nf.NonFiniteGuard.attach

        def attach_without_rows(self):  # noqa: ANN001, ANN202
            attach(self)
            self.rows = NoDeque()

        nf.NonFiniteGuard.attach = attach_without_rows
    if "inputs" in parts:
        nf.NonFiniteGuard.on_forward = lambda self, *a: None
    if "loss" in parts:
        lt.LossTrendGuard._on_output = lambda self, o: None
    if "sched" in parts:
        sg.SchedulerGuard.before_scheduler_step = lambda self: None
    if "post" in parts:
        nf.NonFiniteGuard.on_step_post = lambda self: None


def make(kind: str, device: str):
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(0)
    x = torch.randn(2048, 32, generator=g).to(device)
    y = (x[:, 0] > 0).long() + (x[:, 1] > 0).long()
    if kind == "onecycle":
        model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 3)).to(device)
        opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
        sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=1e-2, total_steps=10**7)
    else:
        model = nn.Sequential(
            nn.Linear(32, 64), nn.BatchNorm1d(64), nn.ReLU(), nn.Dropout(0.2), nn.Linear(64, 3)
        ).to(device)
        opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
        sched = None
    crit = nn.CrossEntropyLoss()
    at = [0]

    def block(steps: int = 100) -> None:
        for _ in range(steps):
            i = at[0] = (at[0] + 64) % 2048
            opt.zero_grad(set_to_none=True)
            loss = crit(model(x[i : i + 64]), y[i : i + 64])
            loss.backward()
            if kind == "textbook":
                nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            if sched is not None:
                sched.step()
            if kind == "textbook":
                loss.item()
        if device == "cuda":
            torch.cuda.synchronize()

    return model, opt, crit, sched, block


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--blocks", type=int, default=60)
    parser.add_argument("--stub", default="", help=f"comma-separated, of {', '.join(STUBS)}")
    args = parser.parse_args()
    torch.set_num_threads(1)
    warnings.simplefilter("ignore")
    parts = {p for p in args.stub.split(",") if p}
    if parts - set(STUBS):
        parser.error(
            f"--stub takes {', '.join(STUBS)}, not {', '.join(sorted(parts - set(STUBS)))}"
        )
    stub(parts)
    for kind in ("onecycle", "textbook"):
        *_, plain = make(kind, args.device)
        model, opt, crit, sched, watched = make(kind, args.device)
        guard = watch(model, opt, loss_fn=crit, scheduler=sched)
        with guard:
            plain(), watched()
            times: dict[str, list[float]] = {"plain": [], "watched": []}
            for b in range(args.blocks):
                order = (("plain", plain), ("watched", watched))
                for name, run in order if b % 2 else order[::-1]:
                    start = time.perf_counter()
                    run()
                    times[name].append((time.perf_counter() - start) / 100 * 1e6)
        p, w = min(times["plain"]), min(times["watched"])
        pm, wm = statistics.median(times["plain"]), statistics.median(times["watched"])
        print(
            f"{args.device} {kind}{' [stub ' + args.stub + ']' if parts else ''}: "
            f"{p:.1f} vs {w:.1f} us/step, {w / p:.3f}x (+{w - p:.1f} us); median "
            f"{pm:.1f} vs {wm:.1f}, {wm / pm:.3f}x; findings {len(guard.findings)}"
        )


if __name__ == "__main__":
    main()
