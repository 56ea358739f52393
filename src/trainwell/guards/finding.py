"""What a guard reports: a `Finding`, the `GuardWarning` that carries it, and the reporter.

A finding names the bug, where it was seen (module or parameter, optimizer step, and the
user's source line when a stack frame shows it), why it matters and the fix. The reporter
warns once per (code, place), keeps every finding, and raises instead when asked to.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from dataclasses import dataclass

from trainwell.userframe import user_frame, warn_at_user


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
    switch: str  # the GuardsConfig field that turns this guard off

    def __str__(self) -> str:
        at = f" at step {self.step}" if self.step is not None else ""
        src = f" ({self.source})" if self.source else ""
        return (
            f"[{self.code}] {self.name}: {self.message} [{self.where}{at}{src}]\n"
            f"  why: {self.why}\n  fix: {self.fix}\n"
            f"  (switch off: guards.{self.switch}=false)"
        )


def user_source() -> str | None:
    """``path:line`` of the user's code that led here (None when no frame shows it)."""
    frame = user_frame(sys._getframe(1))
    if frame is None:
        return None
    path = frame.f_code.co_filename
    try:
        rel = os.path.relpath(path)
        path = rel if not rel.startswith("..") else path
    except ValueError:  # another drive on Windows
        pass
    return f"{path}:{frame.f_lineno}"


class Reporter:
    """Collects findings, warns once per (code, where), or raises when the policy is "error"."""

    def __init__(self, policy: str = "warn") -> None:
        self.policy = policy
        self.findings: list[Finding] = []
        self._seen: set[tuple[str, str]] = set()
        self.listeners: list[Callable[[Finding], None]] = []

    def seen(self, code: str, where: str) -> bool:
        return (code, where) in self._seen

    def report(self, finding: Finding, *, raise_as: type[GuardError] | None = None) -> None:
        """Record ``finding`` unless already reported; warn, or raise ``raise_as``/GuardError."""
        key = (finding.code, finding.where)
        if key in self._seen:
            return
        self._seen.add(key)
        self.findings.append(finding)
        for listener in self.listeners:
            listener(finding)
        if raise_as is not None:
            raise raise_as(finding)
        if self.policy == "error":
            raise GuardError(finding)
        _warn(finding)


def _warn(finding: Finding) -> None:
    # Point the warning at the user's line when we know it, so IDEs and logs show their code.
    warn_at_user(GuardWarning(finding))
