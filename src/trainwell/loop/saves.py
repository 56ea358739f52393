"""When the loop saves: `Saves` binds the run's checkpointer to the state it saves, and asks it
after each step and each epoch; the checkpointer decides its own cadence.

After a step: on ``checkpoint.every_steps`` (a step GradScaler skipped is not saved again
under the same step number), when the run stops, and at a new best of an evaluation made
after the step (``train.eval_every_steps``). After an epoch: on
``checkpoint.every_epochs``, at the end, and at a new best the best checkpoint must hold (held
in memory until the next save when ``checkpoint.min_interval_s`` says not yet).
"""

from __future__ import annotations

import functools
from typing import Any

from trainwell.loop.monitor import Monitor
from trainwell.loop.run_state import Counters


class Saves:
    """The saves of one run (see the module docstring)."""

    def __init__(
        self,
        checkpointer: Any,
        state: dict[str, Any],
        counters: Counters,
        monitor: Monitor,
        **manifest: Any,
    ) -> None:
        self.checkpointer, self.counters, self.monitor = checkpointer, counters, monitor
        self.save = functools.partial(checkpointer.save, state, counters, **manifest)
        self.hold = functools.partial(checkpointer.hold, state, counters, **manifest)

    def after_step(
        self, stepped: bool, stop: str | None, evaluation: dict[str, Any] | None = None
    ) -> None:
        """Save when the step cadence says so, when the run stops here, and at a new best of
        the step's ``evaluation`` (``train.eval_every_steps``), which the save then records."""
        new_best = evaluation is not None and self.monitor.best_save_due(evaluation)
        cadence = stepped and self.checkpointer.due_after_step(self.counters.step)
        # a best is due like an epoch's: now, unless checkpoint.min_interval_s says not yet
        if cadence or stop or (new_best and self._best_due()):
            self.save(metrics=evaluation)
        elif new_best:  # within checkpoint.min_interval_s: copied now, written next save
            self.hold(metrics=evaluation)

    def _best_due(self) -> bool:
        return self.checkpointer.due_after_epoch(self.counters.epoch, False, best=True)

    def after_epoch(self, record: dict[str, Any], *, final: bool) -> None:
        """Save on the epoch cadence, at the end (``final``), and at a new best."""
        new_best = self.monitor.best_save_due(record)
        if self.checkpointer.due_after_epoch(self.counters.epoch, final, best=new_best):
            self.save(metrics=record)
        elif new_best:  # within checkpoint.min_interval_s: copied now, written next save
            self.hold(metrics=record)
