"""Tell the user when the input pipeline, not the model, limits training speed.

The loop already measures how long each batch took to arrive (host clocks around the
loader's ``next()``, no device sync) and reports the share of training time spent waiting:
every ``run.log_every`` steps (``report.logged["data_wait"]``, in ``metrics.jsonl``) and for
each epoch (the epoch record's ``data_wait``, its first batch left out). This observer reads
only those values (no extra host syncs) and warns once: when the wait stays above the
threshold for ``patience`` consecutive log intervals (the first skipped: worker start-up and
first-touch costs belong there), or, in a run too short for that (fewer log intervals than
``skip + patience``: the default ``run.log_every=50`` needs 150 steps), when an epoch's wait
is above it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from trainwell.errors import warn_at_user
from trainwell.observe.base import FitInfo, Observer, StepReport


class InputBoundWarning(UserWarning):
    """Training spends a large share of its time waiting for the next batch."""


@dataclass
class InputBoundFinding:
    """The numbers behind an `InputBoundWarning`."""

    wait_share: float  # share of wall time spent waiting for data (mean of the intervals)
    fetch_s: float  # seconds per micro-batch waiting for data
    compute_s: float  # seconds per micro-batch doing everything else
    intervals: int  # consecutive log intervals above the threshold (0: judged by an epoch)
    message: str


class InputBoundDetector(Observer):
    """Warn once (`InputBoundWarning`) when waiting for data exceeds ``threshold`` of the time.

    ``threshold``: share of wall time spent waiting for batches above which the run counts as
    input-bound. ``patience``: consecutive log intervals that must exceed it (one slow interval
    is noise: a checkpoint, a page-cache miss). ``skip``: log intervals ignored at the start
    (and after a resume), where worker start-up inflates the wait. ``min_epoch_wait_s``: a
    run too short to judge by log intervals is judged by an epoch, if its waiting cost at
    least this many seconds (a toy run's milliseconds are not worth a warning). ``clock``:
    injectable for tests. The finding is also kept in ``self.finding``.
    """

    def __init__(
        self,
        threshold: float = 0.2,
        *,
        patience: int = 2,
        skip: int = 1,
        min_epoch_wait_s: float = 1.0,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        if not 0.0 < threshold < 1.0:
            raise ValueError(f"threshold must be in (0, 1), got {threshold}")
        self.threshold, self.patience, self.skip = threshold, max(1, patience), skip
        self.min_epoch_wait_s = min_epoch_wait_s
        self.clock = clock
        self.finding: InputBoundFinding | None = None
        self.num_workers: Any = None
        self._reset()

    def _reset(self) -> None:
        self._interval_started: float | None = None
        self._intervals_seen = 0
        self._batches = 0
        self._last_batch_in_epoch = 0
        self._streak: list[tuple[float, float, int]] = []  # (wait share, seconds, batches)
        self._epoch_waits: list[float] = []  # each step's wait for its batch, this epoch

    def on_fit_start(self, info: FitInfo) -> None:
        self._reset()
        self._interval_started = self.clock()
        self.num_workers = info.config.get("data", {}).get("num_workers")

    def on_step_end(self, report: StepReport) -> None:
        if self.finding is not None:
            return
        self._count_batches(report.batch_in_epoch)
        self._epoch_waits.append(report.data_wait_s)
        if report.logged is None or "data_wait" not in report.logged:
            return
        now = self.clock()
        started = self._interval_started if self._interval_started is not None else now
        elapsed, batches = now - started, self._batches
        self._interval_started, self._batches = now, 0
        self._intervals_seen += 1
        if self._intervals_seen <= self.skip or batches == 0:
            return
        wait = float(report.logged["data_wait"])
        if wait <= self.threshold:
            self._streak.clear()
            return
        self._streak.append((wait, elapsed, batches))
        if len(self._streak) >= self.patience:
            self.finding = self._finding()
            warn_at_user(self.finding.message, InputBoundWarning)

    def on_epoch_end(self, record: Any) -> None:
        """A run with too few log intervals to judge by them is judged by its epochs."""
        waits, self._epoch_waits = self._epoch_waits[1:], []  # the first: worker start-up
        if self.finding is not None or self._intervals_seen >= self.skip + self.patience:
            return
        share = record.get("data_wait")
        if share is None or share <= self.threshold or sum(waits) < self.min_epoch_wait_s:
            return
        fetch_s = sum(waits) / len(waits)
        compute_s = fetch_s * (1 - share) / max(share, 1e-12)
        message = (
            f"{share:.0%} of training time is spent waiting for data ({_ms(fetch_s)}/batch "
            f"fetch vs {_ms(compute_s)} compute, over epoch {record.get('epoch')}): the input "
            f"pipeline, not the model, limits speed. Try: {self._advice()}"
        )
        self.finding = InputBoundFinding(share, fetch_s, compute_s, 0, message)
        warn_at_user(message, InputBoundWarning)

    def _count_batches(self, batch_in_epoch: int) -> None:
        # batch_in_epoch counts micro-batches and restarts at each epoch.
        if batch_in_epoch >= self._last_batch_in_epoch:
            self._batches += batch_in_epoch - self._last_batch_in_epoch
        else:
            self._batches += batch_in_epoch
        self._last_batch_in_epoch = batch_in_epoch

    def _finding(self) -> InputBoundFinding:
        seconds = sum(s for _, s, _ in self._streak)
        batches = sum(b for _, _, b in self._streak)
        wait = sum(w * s for w, s, _ in self._streak) / max(seconds, 1e-12)
        per_batch = seconds / batches
        fetch_s, compute_s = wait * per_batch, (1 - wait) * per_batch
        message = (
            f"{wait:.0%} of training time is spent waiting for data "
            f"({_ms(fetch_s)}/batch fetch vs {_ms(compute_s)} compute, over the last "
            f"{len(self._streak)} log intervals): the input pipeline, not the model, limits "
            f"speed. Try: {self._advice()}"
        )
        return InputBoundFinding(wait, fetch_s, compute_s, len(self._streak), message)

    def _advice(self) -> str:
        if self.num_workers in (0, None):
            workers = "worker processes (data.num_workers=auto, or a count)"
        elif self.num_workers == "auto":
            workers = "more workers than auto chose (set data.num_workers)"
        else:
            workers = f"more workers (data.num_workers is {self.num_workers})"
        return (
            f"{workers}; caching the deterministic preprocessing once with "
            "trainwell.data.cache(dataset, path) and augmenting after; the in-memory fast path "
            "(pass tensors (X, y), or a Dataset with __getitems__/get_batch that reads a whole "
            "batch at once)"
        )


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:.1f} ms" if seconds < 1 else f"{seconds:.2f} s"
