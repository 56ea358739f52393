"""Why a run stops before its length, decided by every process together: `Stops`.

A signal (SIGTERM, SIGINT: `trainwell.state.preemption`), an observer that asks (a guard,
your own) or the time limit (``train.max_time``: `TimeLimit`) stops the run, after a save. After a step the processes vote without waiting
(`BaseStrategy.vote`: several processes stop one step after the first asked, at the same
step); after an epoch, with early stopping, they agree at once. One process's reason stops
them all, after the same save.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import Any

from trainwell.config.sections import duration_seconds
from trainwell.state.preemption import Preemption


class TimeLimit:
    """``train.max_time``: the wall time this `fit()` call may train for, from its start. Read
    from the host clock at step boundaries (no device sync); a resumed run gets a new limit."""

    def __init__(
        self, max_time: float | str | None, clock: Callable[[], float] | None = None
    ) -> None:
        self.seconds, self.written = duration_seconds(max_time), max_time
        self.clock = clock or _now
        self.started = self.clock()

    def reason(self) -> str | None:
        """Why to stop now, when the time is up."""
        if self.seconds is None or self.clock() - self.started < self.seconds:
            return None
        return f"{TIME_UP} train.max_time={self.written} ({self.seconds:g}s)"


_now = time.monotonic  # the clock TimeLimit reads (a test can replace it)

#: How a stop reason for ``train.max_time`` begins (the summary and the next commands read it).
TIME_UP = "time limit reached:"


class Stops:
    """The stop decisions of one run (see the module docstring)."""

    def __init__(
        self,
        strategy: Any,
        preemption: Preemption,
        observers: Iterable[Any],
        time_limit: TimeLimit | None = None,
    ) -> None:
        self.strategy, self.preemption, self.observers = strategy, preemption, observers
        self.time_limit = time_limit or TimeLimit(None)
        self._asked: str | None = None  # this process's reason, voted for, not yet agreed

    def after_step(self) -> str | None:
        """The reason to stop after this step, the same on every process (or None)."""
        self._asked = self._asked or self._interruption()
        if self.strategy.vote(self._asked is not None):
            return self._asked or "stopped by another process"
        return None

    def after_epoch(self, reason: str | None) -> str | None:
        """The reason to stop after this epoch (``reason``: early stopping's, the same on every
        process), agreed by every process now; a reason voted for at the epoch's last step,
        not yet learnt by the others, is part of it."""
        reason = reason or self._asked or self._interruption()
        if self.strategy.agree(reason is not None):
            return reason or "stopped by another process"
        return None

    def _interruption(self) -> str | None:
        """Why the run must stop now: a signal arrived, or an observer (e.g. a guard) asked."""
        if self.preemption.requested:
            return f"preempted by {self.preemption.requested}"
        stopper = next((o for o in self.observers if o.should_stop), None)
        if stopper is not None:
            return f"stopped by {type(stopper).__name__}: {stopper.stop_reason}"
        return self.time_limit.reason()  # train.max_time: each rank's clock, then the vote
