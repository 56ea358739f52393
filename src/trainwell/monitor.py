"""The monitored metric: one definition of "better", used by best tracking, early stopping,
the plateau schedule and checkpoint retention."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from trainwell.errors import ConfigError


@dataclass(frozen=True)
class Monitor:
    """``metric`` watched in ``mode`` ``"min"`` or ``"max"``. NaN is never better."""

    metric: str = "val_loss"
    mode: str = "min"

    def __post_init__(self) -> None:
        if self.mode not in ("min", "max"):
            raise ConfigError(f"monitor.mode={self.mode!r} must be 'min' or 'max'")

    def improved(
        self, value: float, best: float | None, *, min_delta: float = 0.0, rel: float = 0.0
    ) -> bool:
        """``value`` beats ``best`` by more than ``min_delta`` (absolute) and ``rel`` x |best|
        (relative); any finite-or-infinite non-NaN value beats no best at all."""
        if math.isnan(value):
            return False
        if best is None:
            return True
        margin = min_delta + abs(best) * rel
        if self.mode == "min":
            return value < best - margin
        return value > best + margin

    def rank_key(self, value: float) -> float:
        """Sort key, best first (ties keep their order: a tie is no improvement)."""
        return value if self.mode == "min" else -value

    def value_of(self, metrics: Mapping[str, float]) -> float:
        """The monitored value in ``metrics``; a `ConfigError` listing them when it is absent."""
        if self.metric not in metrics:
            available = sorted(k for k in metrics if k.endswith("loss") or k.startswith("val_"))
            raise ConfigError(
                f"monitor.metric={self.metric!r} is not among the metrics {available}; "
                "set monitor.metric to one of them"
            )
        return float(metrics[self.metric])
