"""What a guard reports: a `Finding`, the `GuardWarning` that carries it, and the reporter.

A finding names the bug, where it was seen (module or parameter, optimizer step, and the
user's source line when a stack frame shows it), why it matters and the fix. The reporter
warns once per (code, place), keeps every finding, and raises instead when asked to.
"""

from __future__ import annotations

import dataclasses
import os
import sys
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from types import FrameType

from trainwell.errors import user_frame, warn_at_user


class GuardWarning(UserWarning):
    """A silent training bug seen at run time; ``.finding`` holds the details."""

    def __init__(self, finding: Finding) -> None:
        super().__init__(str(finding))
        self.finding = finding


class GuardError(RuntimeError):
    """Raised for a finding when ``guards.on_finding="error"``; ``.finding`` holds the details."""

    def __init__(self, finding: Finding) -> None:
        super().__init__(str(finding))
        self.finding = finding


class NonFiniteError(GuardError):
    """A hand-written loop under `watch()` hit inf/NaN gradients and ``nonfinite="stop"``."""


@dataclass(frozen=True)
class Finding:
    """One silent bug, seen once at one place."""

    code: str  # stable identifier, e.g. "grad-not-zeroed"
    name: str  # the bug in a few words
    message: str  # what was seen, with numbers
    where: str  # module, parameter, loss or object where it was seen
    step: int | None  # optimizer steps done when it was seen
    source: str | None  # "file.py:42": the first frame outside torch and trainwell
    why: str  # why it quietly hurts the run
    fix: str  # what to change
    switch: str  # the GuardsConfig field that turns this guard off ("enabled": the guards)
    rank: int | None = None  # the process that saw it, when there are several (torchrun)
    also_on: tuple[int, ...] = ()  # the other ranks that saw it too (`merge_findings`)

    def as_dict(self) -> dict[str, str | int | None]:
        """The finding as plain data (summary.json, metrics.jsonl, tools)."""
        return dataclasses.asdict(self)

    def __str__(self) -> str:
        at = f" at step {self.step}" if self.step is not None else ""
        src = f" ({self.source})" if self.source else ""
        also = f" (also {', '.join(map(str, self.also_on))})" if self.also_on else ""
        on = f"rank {self.rank}{also}: " if self.rank is not None else ""
        return (
            f"{on}[{self.code}] {self.name}: {self.message} [{self.where}{at}{src}]\n"
            f"  why: {self.why}\n  fix: {self.fix}\n"
            f"  (switch off: guards.{self.switch or 'enabled'}=false)"
        )


def merge_findings(per_rank: list[list[Finding]]) -> list[Finding]:
    """Every rank's findings, each reported once: the same bug (code, where, source line) seen
    by several ranks becomes one finding of the lowest rank, naming the others in
    ``also_on``; in order of rank, then as each rank saw them."""
    merged: dict[tuple[str, str, str | None], Finding] = {}
    for findings in per_rank:
        for finding in findings:
            key = (finding.code, finding.where, finding.source)
            first = merged.get(key)
            if first is None:
                merged[key] = finding
            elif finding.rank is not None and finding.rank != first.rank:
                also = (*first.also_on, finding.rank)
                merged[key] = dataclasses.replace(first, also_on=also)
    return list(merged.values())


@dataclass(frozen=True)
class FrameInfo:
    """A line of the user's code, kept (without the frame) to point a later finding at it."""

    filename: str
    lineno: int
    module: str
    source: str  # "path:line", relative to the working directory when under it


UserLine = tuple[str, int, str]  # (filename, line, module): cheap to take, `line_info` later


def user_line(start: FrameType | None = None) -> UserLine | None:
    """The user's line that led here, cheaply (no path work): for `line_info` when reporting."""
    frame = user_frame(start or sys._getframe(1))
    if frame is None:
        return None
    return frame.f_code.co_filename, frame.f_lineno, frame.f_globals.get("__name__", "__main__")


def frame_info(start: FrameType | None = None) -> FrameInfo | None:
    """The user's line that led here (None when no frame shows it)."""
    return line_info(user_line(start or sys._getframe(1)))


def line_info(line: UserLine | None) -> FrameInfo | None:
    """The `FrameInfo` of a `user_line`."""
    if line is None:
        return None
    path, lineno, module = line
    try:
        rel = os.path.relpath(path)
        shown = rel if not rel.startswith("..") else path
    except ValueError:  # another drive on Windows
        shown = path
    return FrameInfo(path, lineno, module, f"{shown}:{lineno}")


def user_source() -> str | None:
    """``path:line`` of the user's code that led here (None when no frame shows it)."""
    info = frame_info(sys._getframe(1))
    return info.source if info else None


class Reporter:
    """Collects findings and warns once per (code, where); with the policy "raise" (or its
    older name "error") the first finding is raised as `GuardError` at the next safe point.

    Findings are often made inside autograd hooks (during ``backward()``), where an exception
    would surface as an autograd engine error, or leave the graph half-run; so a finding to
    raise is held until `raise_pending` is called at the end of the optimizer step (or at a
    host read, a skipped step, or when the watch closes).
    """

    def __init__(self, policy: str = "warn") -> None:
        self.policy = policy
        self.findings: list[Finding] = []
        self._seen: set[tuple[str, str]] = set()
        self.listeners: list[Callable[[Finding], None]] = []
        self.pending: Finding | None = None  # the first finding to raise, not raised yet

    @property
    def raises(self) -> bool:
        return self.policy in ("raise", "error")

    def seen(self, code: str, where: str) -> bool:
        return (code, where) in self._seen

    def report(
        self,
        finding: Finding,
        *,
        raise_as: type[GuardError] | None = None,
        at: FrameInfo | None = None,
    ) -> None:
        """Record ``finding`` unless already reported; warn, or hold it to raise
        (``raise_as`` raises now: the caller is at a safe point and is stopping the loop)."""
        key = (finding.code, finding.where)
        if key in self._seen:
            return
        self._seen.add(key)
        self.findings.append(finding)
        for listener in self.listeners:
            listener(finding)
        if raise_as is not None:
            raise raise_as(finding)
        if self.raises:
            if self.pending is None:
                self.pending = finding
            return
        _warn(finding, at)

    def raise_pending(self) -> None:
        """Raise the held finding as `GuardError` (call only outside autograd hooks)."""
        finding, self.pending = self.pending, None
        if finding is not None:
            raise GuardError(finding)


def _warn(finding: Finding, at: FrameInfo | None) -> None:
    # Point the warning at the line that caused it (IDEs and logs show the user's code).
    if at is None:
        warn_at_user(GuardWarning(finding))
        return
    warnings.warn_explicit(
        GuardWarning(finding), GuardWarning, at.filename, at.lineno, module=at.module
    )
