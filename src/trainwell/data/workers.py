"""``num_workers="auto"``: worker processes only when fetching a batch costs real time.

A worker pays for itself when it fetches a batch while the model computes one. It costs a
process (and, on a CPU-only machine, a core the model would use), pickling every batch through
a queue, and start-up time. So: in-memory tensors never get workers (a whole-batch gather takes
microseconds), nor does data whose batches come faster than a small fixed budget; otherwise
enough workers that together they fetch a batch per step, capped by the spare cores.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable
from typing import Any

from trainwell.data.fetch import (
    BatchSeededDataset,
    PreservedRNG,
    SeededIndices,
    as_tensors,
    collate_batch,
)
from trainwell.data.order import batch_seed

#: A batch fetched faster than this is cheaper in the main process than through a worker queue
#: (pickling, a pipe, unpickling; ~0.1-1 ms per batch for small batches).
FETCH_BUDGET_S = 2e-3
#: Fetching in the main process is fine while it takes at most this share of a step.
MAX_MAIN_PROCESS_SHARE = 0.05
#: Time spent measuring: at least one batch, at most this many batches or seconds.
PROBE_BATCHES, PROBE_S = 4, 1.0


def cpu_count() -> int:
    """CPUs this process may run on (the affinity mask, not the machine's total)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def choose_num_workers(
    dataset: Any,
    batch_size: int,
    collate_fn: Callable[[Any], Any] | None = None,
    step_time_s: float | None = None,
    *,
    cpus: int | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> tuple[int, str]:
    """How many DataLoader workers ``dataset`` needs, and a one-line reason.

    Fetches a few batches in the main process (seeded, with the training RNG preserved) and
    compares the time per batch with ``step_time_s`` (the model's time per step, if known) or
    with a fixed budget. In-memory tensors get 0 without measuring.
    """
    cpus = cpus or cpu_count()
    if as_tensors(dataset) is not None:
        return 0, "in-memory tensors: whole-batch indexing in the main process beats workers"
    if cpus <= 1:
        return 0, "one CPU: a worker would only compete with the model for it"
    fetch_s = measure_fetch_s(dataset, batch_size, collate_fn, clock=clock)
    fetch = _ms(fetch_s)
    spare = cpus - 1  # one core stays with the main process (the model's step)
    if not step_time_s or step_time_s <= 0:
        if fetch_s <= FETCH_BUDGET_S:
            return 0, (
                f"fetching a batch takes {fetch}, under the {_ms(FETCH_BUDGET_S)} a worker "
                "queue costs: loading in the main process"
            )
        return spare, (
            f"fetching a batch takes {fetch} and the step time is unknown: {spare} worker(s), "
            f"one per spare CPU of {cpus}"
        )
    share = fetch_s / step_time_s
    if share <= MAX_MAIN_PROCESS_SHARE:
        return 0, (
            f"fetching a batch ({fetch}) is {share:.0%} of a {_ms(step_time_s)} step: "
            "loading in the main process"
        )
    needed = math.ceil(share)
    workers = min(spare, needed)
    capped = f", capped by {spare} spare CPU(s)" if needed > spare else ""
    return workers, (
        f"fetching a batch takes {fetch} vs a {_ms(step_time_s)} step: {workers} worker(s) "
        f"fetch one batch per step{capped}"
    )


def measure_fetch_s(
    dataset: Any,
    batch_size: int,
    collate_fn: Callable[[Any], Any] | None = None,
    *,
    clock: Callable[[], float] = time.perf_counter,
) -> float:
    """Median seconds to fetch and collate one batch in the main process.

    The first batch is fetched untimed (it pays for opening files and warming caches). Each
    batch is seeded like a real one and the training RNG streams are left untouched.
    """
    seeded = BatchSeededDataset(dataset, use_get_batch=collate_fn is None)
    collate = collate_fn or collate_batch
    n = len(dataset)
    batches = max(1, min(PROBE_BATCHES, n // max(batch_size, 1)))
    times: list[float] = []
    started = clock()
    with PreservedRNG():
        for batch in range(batches + 1):
            indices = SeededIndices(
                [(batch * batch_size + i) % n for i in range(min(batch_size, n))]
            )
            indices.seed = batch_seed(0, 0, batch)
            begin = clock()
            collate(seeded.__getitems__(indices))
            if batch > 0:
                times.append(clock() - begin)
            if batch > 0 and clock() - started > PROBE_S:
                break
    times.sort()
    return times[len(times) // 2]


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:.2f} ms" if seconds < 0.1 else f"{seconds:.2f} s"
