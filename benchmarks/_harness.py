"""Shared benchmark harness: interleaved repeats, medians, ratios against a baseline."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable


def interleaved(
    contenders: dict[str, Callable[[], object]], *, repeats: int, warmup: int = 1
) -> dict[str, list[float]]:
    """Run each contender ``repeats`` times, round-robin, and return its wall times in seconds.

    Round-robin order spreads machine noise (other processes, thermal state) evenly.
    """
    for _ in range(warmup):
        for run in contenders.values():
            run()
    times: dict[str, list[float]] = {name: [] for name in contenders}
    for _ in range(repeats):
        for name, run in contenders.items():
            start = time.perf_counter()
            run()
            times[name].append(time.perf_counter() - start)
    return times


def report(times: dict[str, list[float]], baseline: str, *, unit_count: float, unit: str) -> None:
    """Print the median time, units/s and the speed ratio of each contender vs ``baseline``."""
    base = statistics.median(times[baseline])
    print(f"{'contender':<28} {'median s':>9} {unit + '/s':>12} {'speed vs ' + baseline:>24}")
    for name, values in times.items():
        median = statistics.median(values)
        print(f"{name:<28} {median:>9.4f} {unit_count / median:>12,.0f} {base / median:>23.3f}x")


def spread(values: list[float]) -> dict[str, float]:
    """The median and the range (min, max) of ``values``."""
    return {"median": statistics.median(values), "min": min(values), "max": max(values)}


def print_table(headers: list[str], rows: list[list[str]]) -> None:
    """Print ``rows`` under ``headers``: the first column left-aligned, the others right."""
    widths = [max(len(str(r[i])) for r in [headers, *rows]) for i in range(len(headers))]
    for row in [headers, *rows]:
        cells = [f"{row[0]:<{widths[0]}}"] + [f"{c:>{w}}" for c, w in zip(row[1:], widths[1:])]
        print("  ".join(cells).rstrip())
