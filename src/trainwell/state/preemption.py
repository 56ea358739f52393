"""Preemption: SIGTERM and SIGINT ask the loop to save and stop; they do nothing else.

A signal handler only sets a flag (doing I/O or touching tensors inside a handler is unsafe);
the loop finishes the optimizer step it is in, saves, says where and how to resume, and
returns. A second SIGINT (Ctrl-C twice) aborts at once, also in the middle of that save:
`KeyboardInterrupt` is raised and the save's temporary file removed (`interrupted_twice`
lets the writer tell this from a failed write when torch reports it as a RuntimeError), so
the previous checkpoint stays the newest and nothing is torn.
"""

from __future__ import annotations

import signal
import threading
from types import FrameType
from typing import Any

_interrupted_twice = threading.Event()


def interrupted_twice() -> bool:
    """Whether a second Ctrl-C aborted the run (the save it interrupted must not be reported
    as a failed write: torch turns the KeyboardInterrupt raised inside its writer into a
    RuntimeError)."""
    return _interrupted_twice.is_set()


class Preemption:
    """Context manager that turns SIGTERM/SIGINT into a flag the loop polls once per step."""

    def __init__(self, signals: tuple[int, ...] = (signal.SIGTERM, signal.SIGINT)) -> None:
        self.signals = signals
        self.requested: str | None = None  # the signal's name once one arrived
        self._previous: dict[int, Any] = {}

    def __enter__(self) -> Preemption:
        if threading.current_thread() is not threading.main_thread():
            return self  # handlers can only be installed from the main thread
        _interrupted_twice.clear()
        for sig in self.signals:
            self._previous[sig] = signal.getsignal(sig)
            signal.signal(sig, self._handle)
        return self

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        if self.requested is not None and signum == signal.SIGINT:
            _interrupted_twice.set()
            raise KeyboardInterrupt  # second Ctrl-C: the user means it
        self.requested = signal.Signals(signum).name

    def __exit__(self, *exc: object) -> None:
        _interrupted_twice.clear()  # what it told the writer is over with the run
        for sig, previous in self._previous.items():
            signal.signal(sig, previous)
        self._previous.clear()
