"""Profile a few training steps with ``torch.profiler``: a trace to open, a table to read.

``Profiler`` is an observer. Pass it to ``fit(..., observers=[Profiler("prof")])`` and it
profiles one window of optimizer steps (``ProfileWindow``: skip ``wait`` steps, run
``warmup`` steps under the profiler without keeping them, record ``active`` steps), then
writes into its output directory:

- ``trace-step<N>.pt.trace.json``: a Chrome/Perfetto trace of the recorded steps (``N`` is
  the run's last recorded step). Open it at https://ui.perfetto.dev (or chrome://tracing);
  the ``.pt.trace.json`` suffix is the one TensorBoard's profiler plugin looks for.
- ``profile.txt``: the top operators by self time (CUDA time when CUDA is available), as
  ``torch.profiler``'s ``key_averages().table()`` prints them.

and prints a short summary: the top operators with their share of the self time, the share
of the recorded steps' wall time the loop spent waiting for data, and where the files are.
The same numbers are kept in ``Profiler.summary``.

Cost outside the window. A ``torch.profiler.profile`` with a schedule installs its callbacks
when it starts, even for its "wait" steps. So this observer does not create the torch
profiler until ``wait`` steps have passed: it counts steps (one integer comparison per step)
and only then starts a profiler whose schedule has ``wait=0`` and the window's ``warmup`` and
``active``. Once the window has been recorded the profiler is stopped and the observer does
nothing more than return. The start-up cost of the profiler lands in the warmup steps, which
are discarded (keep ``warmup >= 1``: torch warns that results are skewed without it).

A run that ends inside the window (short run, early stop, an error) is profiled as far as it
got: the profiler is stopped in ``close()`` (which ``fit`` calls in every case, and which
``on_fit_end`` calls too), what was recorded is written, and the summary says how many of the
planned active steps were recorded. No profiler is ever left running.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

import torch

from trainwell.errors import ConfigError, warn_at_user
from trainwell.observe.base import FitInfo, Observer, StepReport

__all__ = ["ProfileWindow", "Profiler", "ProfilerWarning"]

PERFETTO_URL = "https://ui.perfetto.dev"
TABLE_ROWS = 15
TOP_OPS = 5
# the ranges torch.profiler opens around each step ("ProfilerStep#N", averaged as
# "ProfilerStep*"): their self time is the step's time outside any operator
_STEP_RANGE_PREFIX = "ProfilerStep"


class ProfilerWarning(UserWarning):
    """The profile could not be written or summarised; training goes on without it."""


@dataclass(frozen=True)
class ProfileWindow:
    """Which optimizer steps to profile, counted from the start of the run (or resume).

    ``wait``: steps to let pass untouched (start-up, first-touch and compile costs belong
    there). ``warmup``: steps run under the profiler but not kept (its own start-up cost).
    ``active``: steps recorded. A step is one call of ``on_step_end`` (one accumulation
    window: an optimizer step, or one the GradScaler skipped).
    """

    wait: int = 5
    warmup: int = 2
    active: int = 5

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            minimum = 1 if f.name == "active" else 0
            if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
                raise ConfigError(
                    f"ProfileWindow.{f.name} must be an integer >= {minimum}, got {value!r}"
                )

    @property
    def total(self) -> int:
        return self.wait + self.warmup + self.active


class Profiler(Observer):
    """Profile one window of training steps with ``torch.profiler`` (see the module docs).

    ``out_dir``: where the trace and ``profile.txt`` go (created on demand).
    ``window``: which steps (`ProfileWindow`). ``record_shapes``, ``profile_memory``,
    ``with_stack``: passed to ``torch.profiler.profile`` (each adds overhead and detail).
    ``print_fn``: where the summary lines go (``print`` by default).

    After the window (or the run) ends, ``self.summary`` holds: ``trace`` (path or None),
    ``table`` (path of ``profile.txt`` or None), ``top_ops`` (``[(name, self_time_us,
    share)]``, at most 15, by self CPU time, or self CUDA time when CUDA is available),
    ``time_kind`` ("CPU" or "CUDA"), ``data_wait_share`` (share of the recorded steps' wall
    time spent waiting for their batches, or None if no step was recorded),
    ``outside_ops_share`` (CPU only: share of the self time in no operator, i.e. Python),
    ``steps_profiled`` (active steps recorded), ``steps_planned`` (``window.active``),
    ``steps_seen`` (steps the run took), ``complete`` and ``first_step``/``last_step`` (the
    run's step numbers recorded). In the trace, ``ProfilerStep#k`` counts steps from the
    profiler's start (``#0`` .. ``#warmup-1`` are the discarded warmup steps).
    """

    def __init__(
        self,
        out_dir: str | Path,
        window: ProfileWindow = ProfileWindow(),  # frozen: safe to share
        *,
        record_shapes: bool = False,
        profile_memory: bool = False,
        with_stack: bool = False,
        print_fn: Callable[[str], Any] = print,
    ) -> None:
        if not isinstance(window, ProfileWindow):
            raise ConfigError(f"window must be a ProfileWindow, got {type(window).__name__}")
        self.out_dir = Path(out_dir)
        self.window = window
        self.record_shapes = record_shapes
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.print_fn = print_fn
        self.summary: dict[str, Any] = {}
        self._reset()

    # ------------------------------------------------------------------ state

    def _reset(self) -> None:
        self._in_fit = False  # between on_fit_start and close()
        self._seen = 0  # steps ended since fit started
        self._done = False  # the window is over (or the run ended): nothing more to do
        self._stack: contextlib.ExitStack | None = None  # holds the running torch profiler
        self._prof: Any = None
        self._cuda = False
        self._last_t = 0.0
        self._active_steps: list[int] = []
        self._wait_s = 0.0
        self._wall_s = 0.0
        self._trace: Path | None = None

    @property
    def running(self) -> bool:
        """True while this observer holds a started torch profiler."""
        return self._stack is not None

    # ------------------------------------------------------------------ moments

    def on_fit_start(self, info: FitInfo) -> None:
        self.close()  # a Profiler reused for a second fit starts afresh
        self._reset()
        self.summary = {}
        self._in_fit = True
        if self.window.wait == 0:
            self._start()

    def on_step_end(self, report: StepReport) -> None:
        if self._done:
            return
        self._seen += 1
        if self._stack is None:  # still waiting: the only cost outside the window
            if self._seen == self.window.wait:
                self._start()
            return
        now = time.perf_counter()
        index = self._seen - self.window.wait  # 1-based within warmup + active
        if index > self.window.warmup:
            self._active_steps.append(report.step)
            self._wait_s += report.data_wait_s
            self._wall_s += now - self._last_t
        self._prof.step()  # after the last active step this exports the trace
        if index >= self.window.warmup + self.window.active:
            self._finish()
        else:
            self._last_t = time.perf_counter()

    def on_epoch_end(self, record: Any) -> None:
        # Validation and epoch bookkeeping ran since the last step: not a step's wall time
        # (the next step's data wait, e.g. a new epoch's workers starting, is still counted).
        if self._stack is not None:
            self._last_t = time.perf_counter()

    def on_fit_end(self, result: Any) -> None:
        self.close()

    def close(self) -> None:
        """Stop the profiler if it is running, writing what it recorded. Safe to call twice."""
        if self._stack is not None:
            self._finish()
        elif self._in_fit and not self._done:  # the run ended before the window began
            self._done = True
            self._summarise(None)
        self._done, self._in_fit = True, False

    # ------------------------------------------------------------------ the profiler

    def _start(self) -> None:
        from torch.profiler import ProfilerActivity, profile, schedule

        self._cuda = torch.cuda.is_available()
        activities = [ProfilerActivity.CPU]
        if self._cuda:
            activities.append(ProfilerActivity.CUDA)
        prof = profile(
            activities=activities,
            # wait=0: the wait steps were counted here, without a profiler
            schedule=schedule(
                wait=0, warmup=self.window.warmup, active=self.window.active, repeat=1
            ),
            on_trace_ready=self._export_trace,
            record_shapes=self.record_shapes,
            profile_memory=self.profile_memory,
            with_stack=self.with_stack,
        )
        stack = contextlib.ExitStack()
        stack.enter_context(prof)  # start(); the stack's close() stops it
        self._stack, self._prof = stack, prof
        self._last_t = time.perf_counter()

    def _export_trace(self, prof: Any) -> None:
        """torch's ``on_trace_ready``: called once, when the recorded steps end."""
        if not self._active_steps:  # stopped right after warmup: nothing worth a file
            return
        path = self.out_dir / f"trace-step{self._active_steps[-1]}.pt.trace.json"
        try:
            self.out_dir.mkdir(parents=True, exist_ok=True)
            prof.export_chrome_trace(str(path))
        except Exception as exc:  # a profile must never stop a run
            warn_at_user(f"could not write the profiler trace {path}: {exc}", ProfilerWarning)
            return
        self._trace = path

    def _finish(self) -> None:
        """Stop the profiler (never left running), then write and print the summary."""
        stack, prof = self._stack, self._prof
        self._stack, self._prof, self._done = None, None, True
        try:
            stack.close()  # stop(): exports the trace if the window ended while recording
        finally:
            # the profiler is stopped now, even if the trace callback failed
            try:
                self._summarise(prof)
            except Exception as exc:  # a profile must never stop a run
                warn_at_user(f"could not summarise the profile: {exc}", ProfilerWarning)

    def _summarise(self, prof: Any) -> None:
        recorded = len(self._active_steps)
        planned = self.window.active
        summary: dict[str, Any] = {
            "trace": str(self._trace) if self._trace else None,
            "table": None,
            "top_ops": [],
            "time_kind": "CUDA" if self._cuda else "CPU",
            "data_wait_share": None,
            "outside_ops_share": None,
            "steps_profiled": recorded,
            "steps_planned": planned,
            "steps_seen": self._seen,
            "complete": recorded == planned,
            "first_step": self._active_steps[0] if recorded else None,
            "last_step": self._active_steps[-1] if recorded else None,
        }
        self.summary = summary
        if recorded:
            if self._wall_s > 0:
                summary["data_wait_share"] = min(1.0, max(0.0, self._wait_s / self._wall_s))
            averages = prof.key_averages()
            summary["top_ops"], summary["outside_ops_share"] = _top_ops(averages, cuda=self._cuda)
            summary["table"] = self._write_table(averages, summary)
        for line in _describe(summary, self.window):
            self.print_fn(line)

    def _write_table(self, averages: Any, summary: dict[str, Any]) -> str | None:
        sort_by = _sort_key(averages, cuda=self._cuda)
        table = averages.table(sort_by=sort_by, row_limit=TABLE_ROWS)
        steps = f"steps {summary['first_step']}-{summary['last_step']}"
        header = (
            f"torch.profiler: {summary['steps_profiled']} of {summary['steps_planned']} active "
            f"steps recorded ({steps}), top {TABLE_ROWS} operators by {sort_by}\n"
        )
        if summary["data_wait_share"] is not None:
            header += f"data wait: {summary['data_wait_share']:.1%} of the recorded steps' time\n"
        path = self.out_dir / "profile.txt"
        try:
            self.out_dir.mkdir(parents=True, exist_ok=True)
            path.write_text(header + "\n" + table)
        except OSError as exc:
            warn_at_user(f"could not write the profiler table {path}: {exc}", ProfilerWarning)
            return None
        return str(path)


# ---------------------------------------------------------------------- helpers


def _sort_key(averages: Any, *, cuda: bool) -> str:
    if not cuda:
        return "self_cpu_time_total"
    # torch >= 2.4 names device time "device"; "self_cuda_time_total" is its deprecated alias
    sample = next(iter(averages), None)
    if sample is not None and hasattr(sample, "self_device_time_total"):
        return "self_device_time_total"
    return "self_cuda_time_total"


def _self_time(event: Any, key: str) -> float:
    return float(getattr(event, key, 0) or 0)


def _top_ops(averages: Any, *, cuda: bool) -> tuple[list[tuple[str, float, float]], float | None]:
    """``[(name, self_time_us, share)]`` of the operators with the most self time, and (for
    CPU) the share of the time spent in the steps outside any operator.

    The share is of the total self time the profiler saw (for CPU: the recorded steps'
    time on the profiled threads; for CUDA: the kernels' time, counted once each).
    ``ProfilerStep#N`` ranges (the time in a step outside any operator) count in the total
    but are not ranked. For CUDA, host-side operators are ranked by the device time of the
    kernels they launched.
    """
    key = _sort_key(averages, cuda=cuda)
    events = list(averages)
    if cuda:
        device_events = [e for e in events if _is_device_event(e)]
        total = sum(_self_time(e, key) for e in device_events)
        ranked = [e for e in events if not _is_device_event(e)] or device_events
    else:
        total = sum(_self_time(e, key) for e in events)
        ranked = events
    steps = [e for e in ranked if str(e.key).startswith(_STEP_RANGE_PREFIX)]
    ranked = [e for e in ranked if e not in steps and _self_time(e, key) > 0]
    ranked.sort(key=lambda e: _self_time(e, key), reverse=True)
    if total <= 0:
        return [], None
    top = [
        (str(e.key), round(_self_time(e, key), 3), min(1.0, _self_time(e, key) / total))
        for e in ranked[:TABLE_ROWS]
    ]
    outside = None if cuda else min(1.0, sum(_self_time(e, key) for e in steps) / total)
    return top, outside


def _is_device_event(event: Any) -> bool:
    device_type = getattr(event, "device_type", None)
    is_cpu = device_type is None or getattr(device_type, "name", "CPU") == "CPU"
    return not is_cpu and not getattr(event, "is_user_annotation", False)


def _format_us(us: float) -> str:
    if us >= 1e6:
        return f"{us / 1e6:.2f} s"
    if us >= 1e3:
        return f"{us / 1e3:.2f} ms"
    return f"{us:.0f} us"


def _describe(summary: dict[str, Any], window: ProfileWindow) -> list[str]:
    """The printed summary: a few lines."""
    recorded, planned = summary["steps_profiled"], summary["steps_planned"]
    if recorded == 0:
        return [
            f"profiler: the run ended after {summary['steps_seen']} steps, before any step "
            f"was recorded (window: wait {window.wait}, warmup {window.warmup}, active "
            f"{window.active} steps); nothing written"
        ]
    steps = f"steps {summary['first_step']}-{summary['last_step']}"
    if recorded < planned:
        head = (
            f"profiler: only {recorded} of {planned} active steps recorded ({steps}): "
            "the run ended before the window was complete"
        )
    else:
        head = f"profiler: {recorded} steps recorded ({steps})"
    lines = [head, f"  top ops by self {summary['time_kind']} time:"]
    for name, us, share in summary["top_ops"][:TOP_OPS]:
        lines.append(f"    {share:6.1%}  {_format_us(us):>10}  {name}")
    if summary["outside_ops_share"] is not None:
        lines.append(
            f"  outside any operator: {summary['outside_ops_share']:.1%} "
            "(Python: the loop, the observers)"
        )
    if summary["data_wait_share"] is not None:
        lines.append(f"  waiting for data: {summary['data_wait_share']:.1%} of the steps' time")
    if summary["table"]:
        lines.append(f"  table: {summary['table']}")
    if summary["trace"]:
        lines.append(
            f"  trace: {summary['trace']} (open in {PERFETTO_URL} or TensorBoard's profiler)"
        )
    else:
        lines.append("  trace: not written (see the warning above)")
    return lines
