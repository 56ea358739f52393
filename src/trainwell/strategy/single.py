"""One process on one device: `SingleDevice`, every verb the plain single-process operation
(`BaseStrategy`'s defaults), on the device ``run.device`` chooses."""

from __future__ import annotations

from trainwell.strategy.base import BaseStrategy


class SingleDevice(BaseStrategy):
    """One process on ``device`` (``cpu``, ``cuda:1``, ``mps``...)."""
