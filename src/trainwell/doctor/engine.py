"""Public entry points: check source text or paths and return findings."""

from __future__ import annotations

import ast
import os
import re
import warnings
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from . import checks
from .analysis import FileAnalysis
from .config import MODERN_TORCH, UsageError, parse_version, target_torch_for
from .rules import RULES

SKIPPED_DIRS = {".venv", "venv", "__pycache__", "node_modules", "site-packages"}
_NOQA = re.compile(r"#\s*noqa(?::\s*(?P<codes>[A-Za-z]+\d+(?:\s*,\s*[A-Za-z]+\d+)*))?", re.I)


@dataclass(frozen=True, order=True)
class Finding:
    """One problem found in a file (``line`` and ``col`` are 1-based)."""

    path: str
    line: int
    col: int
    code: str
    message: str
    severity: str = "error"

    def format(self) -> str:
        """``path:line:col: CODE message`` as printed by the CLI."""
        return f"{self.path}:{self.line}:{self.col}: {self.code} {self.message}"

    def to_dict(self) -> dict[str, object]:
        return {
            "path": self.path,
            "line": self.line,
            "col": self.col,
            "code": self.code,
            "name": RULES[self.code].name if self.code in RULES else self.code,
            "severity": self.severity,
            "message": self.message,
        }


def parse_codes(spec: str | Iterable[str] | None) -> tuple[str, ...] | None:
    """Normalise ``"TW001,TW01"`` or an iterable of codes; validate each as a rule prefix."""
    if spec is None:
        return None
    items = spec.split(",") if isinstance(spec, str) else list(spec)
    codes = tuple(item.strip().upper() for item in items if item.strip())
    for code in codes:
        if code in {"ALL", "TW"}:
            continue
        if not any(rule.startswith(code) for rule in RULES):
            known = ", ".join(RULES)
            raise UsageError(f"unknown rule code {code!r}; known codes: {known}")
    return codes


def _selected(code: str, select: tuple[str, ...] | None, ignore: tuple[str, ...] | None) -> bool:
    def matches(prefixes: tuple[str, ...]) -> bool:
        return any(p in {"ALL", "TW"} or code.startswith(p) for p in prefixes)

    if select is not None and not matches(select):
        return False
    return not (ignore and matches(ignore))


def _suppressed(line_text: str, code: str) -> bool:
    match = _NOQA.search(line_text)
    if match is None:
        return False
    codes = match.group("codes")
    if not codes:
        return True  # without codes, the comment suppresses every code
    return code in {c.strip().upper() for c in codes.split(",")}


def _target(target_torch: str | tuple[int, int] | None) -> tuple[int, int]:
    if target_torch is None:
        return MODERN_TORCH
    if isinstance(target_torch, tuple):
        return target_torch
    return parse_version(target_torch)


def check_source(
    text: str,
    path: str = "<string>",
    *,
    target_torch: str | tuple[int, int] | None = None,
    select: str | Iterable[str] | None = None,
    ignore: str | Iterable[str] | None = None,
) -> list[Finding]:
    """Check one script's source text and return its findings sorted by position.

    ``target_torch`` is ``"X.Y"`` (default: a modern torch, >= 2.6). ``select``/``ignore``
    are code prefixes (``"TW00"`` selects TW001..TW009). Inline noqa comments are honoured.
    """
    version = _target(target_torch)
    select_codes, ignore_codes = parse_codes(select), parse_codes(ignore)
    try:
        tree = ast.parse(text, filename=path)
    except (SyntaxError, ValueError) as exc:
        line = getattr(exc, "lineno", None) or 1
        col = getattr(exc, "offset", None) or 1
        msg = getattr(exc, "msg", None) or str(exc)
        raw = [Finding(path, line, col, "TW000", f"syntax error: {msg}", "error")]
        return [f for f in raw if _selected(f.code, select_codes, ignore_codes)]
    try:
        raw_findings = FileAnalysis(tree, version, checks).run()
    except Exception as exc:  # pragma: no cover - defensive (RecursionError included)
        # A checker bug on one odd file must not abort a CI run over a whole tree; say so
        # on stderr and treat the file as clean (precision first).
        warnings.warn(f"trainwell doctor: internal error on {path}: {exc!r}", stacklevel=2)
        return []
    lines = text.splitlines()
    findings: set[Finding] = set()
    for raw in raw_findings:
        if not _selected(raw.code, select_codes, ignore_codes):
            continue
        line_text = lines[raw.line - 1] if 0 < raw.line <= len(lines) else ""
        if _suppressed(line_text, raw.code):
            continue
        severity = RULES[raw.code].severity
        findings.add(Finding(path, raw.line, raw.col, raw.code, raw.message, severity))
    return sorted(findings)


def iter_python_files(paths: Iterable[str | os.PathLike[str]]) -> Iterator[Path]:
    """Expand files and directories (recursively, skipping hidden dirs and venvs)."""
    seen: set[Path] = set()
    for file in _expand(paths):
        key = file.resolve()
        if key not in seen:  # overlapping arguments (a dir and a file in it) count once
            seen.add(key)
            yield file


def _expand(paths: Iterable[str | os.PathLike[str]]) -> Iterator[Path]:
    for entry in paths:
        path = Path(entry)
        if not path.exists():
            raise UsageError(f"path does not exist: {entry} (pass existing files or directories)")
        if path.is_file():
            yield path
            continue
        for root, dirs, files in os.walk(path):
            dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in SKIPPED_DIRS)
            for name in sorted(files):
                if name.endswith(".py"):
                    yield Path(root) / name


def check_paths(
    paths: Iterable[str | os.PathLike[str]],
    *,
    target_torch: str | tuple[int, int] | None = None,
    select: str | Iterable[str] | None = None,
    ignore: str | Iterable[str] | None = None,
) -> list[Finding]:
    """Check files and directories; findings sorted by path, line and column.

    Without ``target_torch`` each file uses the torch floor declared in its nearest
    pyproject.toml ([project].dependencies), or a modern torch when none is declared.
    Raises :class:`UsageError` for a path that does not exist.
    """
    explicit = _target(target_torch) if target_torch is not None else None
    select_codes, ignore_codes = parse_codes(select), parse_codes(ignore)
    findings: list[Finding] = []
    for file in iter_python_files(paths):
        try:
            text = file.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            findings.append(Finding(str(file), 1, 1, "TW000", f"cannot read file: {exc}"))
            continue
        version = explicit or target_torch_for(file)
        findings += check_source(
            text, str(file), target_torch=version, select=select_codes, ignore=ignore_codes
        )
    return sorted(findings)
