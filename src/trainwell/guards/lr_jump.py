"""A learning rate that jumps up mid-run (``lr-jump``), or a decay schedule that grows it.

Two checks, neither on the per-step path:

* **At watch start** (static): a ``StepLR``/``MultiStepLR`` with ``gamma > 1``. These are decay
  schedules; ``gamma=30`` where ``1/30`` was meant multiplies the LR thirtyfold at each
  milestone, and the run blows up there. Reported before the first step.
* **At each host read** (every ``guards.every`` steps): the LR of each parameter group, a host
  float, is compared with the reads before it. Reported when it rises above
  ``guards.lr_jump_ratio`` x the highest LR of all earlier reads, unless something explains
  it:

  - a warmup: the LR has only ever risen, read after read, since the first read (linear,
    exponential or one-cycle warmups; a warmup shorter than one read interval too);
  - a return to the base LR the schedule was built with (``initial_lr``): the end of a
    constant or stepped warmup, a warm restart;
  - a cyclic schedule's own ceiling (``OneCycleLR``/``CyclicLR`` ``max_lr``).

A rise after the LR has held or fallen, past anything the run has used and the base LR, is a
multiplier or a milestone gone wrong, or a hand-set ``param_group["lr"]`` that will blow the run
up.
"""

from __future__ import annotations

from typing import Any

from torch.optim import lr_scheduler as S

from trainwell.guards.base import Guard
from trainwell.parts.schedule import TorchSchedule

_DECAYS = (S.StepLR, S.MultiStepLR)  # gamma is a decay factor: > 1 grows the LR


class LRJumpGuard(Guard):
    switch = "lr_jump"
    dynamic = True

    def attach(self) -> None:
        groups = self.ctx.optimizer.param_groups
        self.highest: list[float | None] = [None] * len(groups)  # of all earlier reads
        self.last: list[float | None] = [None] * len(groups)
        self.only_rose = [True] * len(groups)  # every read so far above the one before
        self.ceilings = [_ceiling(group) for group in groups]
        scheduler = self.ctx.scheduler
        if isinstance(scheduler, TorchSchedule):
            scheduler = scheduler.scheduler
        for index, top in enumerate(_cyclic_maxima(scheduler, len(groups))):
            if top is not None:
                self.ceilings[index] = max(self.ceilings[index] or 0.0, top)
        if isinstance(scheduler, _DECAYS) and scheduler.gamma > 1:
            self._report_growing_decay(scheduler)

    def on_read(self) -> None:
        for index, group in enumerate(self.ctx.optimizer.param_groups[: len(self.last)]):
            lr = group.get("lr")
            if isinstance(lr, int | float) and not isinstance(lr, bool):
                self._judge(index, float(lr))

    def _judge(self, index: int, lr: float) -> None:
        last, highest = self.last[index], self.highest[index]
        if last is not None and lr <= last:
            self.only_rose[index] = False
        if highest is not None and highest > 0 and lr > self.ctx.config.lr_jump_ratio * highest:
            ceiling = self.ceilings[index]
            explained = self.only_rose[index] or (ceiling is not None and lr <= ceiling * 1.001)
            if not explained:
                self._report_jump(index, lr, highest, last)
        self.last[index] = lr
        self.highest[index] = lr if highest is None else max(highest, lr)

    def _report_jump(self, index: int, lr: float, highest: float, last: float | None) -> None:
        where = "optimizer" if len(self.last) == 1 else f"optimizer param_group {index}"
        self.ctx.report(
            "lr-jump",
            name="learning rate jumped up",
            message=(
                f"the learning rate rose to {lr:.3g}, {lr / highest:.3g}x the highest it had "
                f"been ({highest:.3g}; {last:.3g} at the read before), after it had held or "
                "fallen: no warmup or restart explains it"
            ),
            where=where,
            why="an LR this far above anything the run trained with throws the weights off: "
            "the loss explodes and ReLUs die, often without a NaN",
            fix="check the scheduler's gamma/milestones (a decay factor must be < 1, e.g. "
            "gamma=1/30 not 30) and any code that sets param_group['lr'] by hand",
            switch=self.switch,
        )

    def _report_growing_decay(self, scheduler: Any) -> None:
        name = type(scheduler).__name__
        self.ctx.report(
            "lr-grows",
            name="decay schedule that grows the learning rate",
            message=(
                f"{name}(gamma={scheduler.gamma:g}) multiplies the LR by {scheduler.gamma:g} at "
                "each of its steps: a decay factor above 1"
            ),
            where=name,
            why="the LR grows at every milestone instead of decaying; the run trains well, "
            "then blows up at the first milestone",
            fix=f"use gamma={1 / scheduler.gamma:.3g} (1/{scheduler.gamma:g}) to divide the "
            "LR, or a schedule meant to raise it (LinearLR, OneCycleLR) for a warmup",
            switch=self.switch,
        )


def _ceiling(group: dict[str, Any]) -> float | None:
    """The base LR a torch scheduler recorded for the group (``initial_lr``)."""
    initial = group.get("initial_lr")
    return float(initial) if isinstance(initial, int | float) else None


def _cyclic_maxima(scheduler: Any, groups: int) -> list[float | None]:
    """OneCycleLR's and CyclicLR's declared peak per group (None for other schedulers)."""
    if isinstance(scheduler, S.OneCycleLR):
        return [float(g.get("max_lr", 0.0)) or None for g in scheduler.optimizer.param_groups]
    if isinstance(scheduler, S.CyclicLR):
        return [float(m) for m in scheduler.max_lrs]
    return [None] * groups
