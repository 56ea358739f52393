"""Why a run stops before its length, decided by every process together: `Stops`.

A signal (SIGTERM, SIGINT: `trainwell.state.preemption`) or an observer that asks (a guard,
your own) stops the run. After a step the processes vote without waiting
(`BaseStrategy.vote`: several processes stop one step after the first asked, at the same
step); after an epoch, with early stopping, they agree at once. One process's reason stops
them all, after the same save.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from trainwell.state.preemption import Preemption


class Stops:
    """The stop decisions of one run (see the module docstring)."""

    def __init__(self, strategy: Any, preemption: Preemption, observers: Iterable[Any]) -> None:
        self.strategy, self.preemption, self.observers = strategy, preemption, observers
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
        return None
