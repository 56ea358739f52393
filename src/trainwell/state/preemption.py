"""Preemption: SIGTERM and SIGINT ask the loop to save and stop; they do nothing else.

A signal handler only sets a flag (doing I/O or touching tensors inside a handler is unsafe);
the loop finishes the optimizer step it is in, saves, says where and how to resume, and
returns. A second SIGINT (Ctrl-C twice) aborts at once.
"""

from __future__ import annotations

import signal
import threading
from types import FrameType
from typing import Any


class Preemption:
    """Context manager that turns SIGTERM/SIGINT into a flag the loop polls once per step."""

    def __init__(self, signals: tuple[int, ...] = (signal.SIGTERM, signal.SIGINT)) -> None:
        self.signals = signals
        self.requested: str | None = None  # the signal's name once one arrived
        self._previous: dict[int, Any] = {}

    def __enter__(self) -> Preemption:
        if threading.current_thread() is not threading.main_thread():
            return self  # handlers can only be installed from the main thread
        for sig in self.signals:
            self._previous[sig] = signal.getsignal(sig)
            signal.signal(sig, self._handle)
        return self

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        if self.requested is not None and signum == signal.SIGINT:
            raise KeyboardInterrupt  # second Ctrl-C: the user means it
        self.requested = signal.Signals(signum).name

    def __exit__(self, *exc: object) -> None:
        for sig, previous in self._previous.items():
            signal.signal(sig, previous)
        self._previous.clear()
