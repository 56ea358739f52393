"""Public entry points: check source text or paths and return findings."""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from .analysis import FileAnalysis
from .autograd_aliases import resolve_autograd_aliases
from .config import (
    DoctorConfig,
    UsageError,
    clear_caches,
    config_for,
    parse_version,
)
from .events import RawFinding
from .project import ProjectIndex
from .recovery import parse_recovering
from .rules import CHECKS, RULES, Registry, Rule
from .sources import (
    NOTEBOOK_SUFFIX,
    SourceError,
    read_notebook,
    read_python,
    silenced_elsewhere,
    suppressed,
)
from .target import MODERN_TORCH, Target, find_target

SKIPPED_DIRS = {".venv", "venv", "__pycache__", "node_modules", "site-packages"}
CHECKED_SUFFIXES = (".py", NOTEBOOK_SUFFIX)
#: What ``rules=`` takes: family modules, or `Rule`s and their marked check functions.
ExtraRules = Iterable[ModuleType | Rule | Callable[..., None]]


@dataclass(frozen=True, order=True)
class Finding:
    """One problem found in a file (``line`` and ``col`` are 1-based).

    In a notebook ``cell`` is the code cell's number (from 1, counting code cells only) and
    ``line`` the line within that cell; ``cell`` is None for a Python file.
    """

    path: str
    line: int
    col: int
    code: str
    message: str
    severity: str = "error"
    cell: int | None = None

    @property
    def location(self) -> str:
        """``path:line:col``, or ``path:cell N:line:col`` in a notebook."""
        cell = f"cell {self.cell}:" if self.cell is not None else ""
        return f"{self.path}:{cell}{self.line}:{self.col}"

    def sort_key(self) -> tuple:
        return (self.path, self.cell or 0, self.line, self.col, self.code, self.message)

    def format(self) -> str:
        """``path:line:col: CODE message`` as printed by the CLI."""
        return f"{self.location}: {self.code} {self.message}"

    def to_dict(self) -> dict[str, object]:
        return {
            "path": self.path,
            "line": self.line,
            "col": self.col,
            "cell": self.cell,
            "code": self.code,
            "name": RULES[self.code].name if self.code in RULES else self.code,
            "severity": self.severity,
            "message": self.message,
        }


def parse_codes(
    spec: str | Iterable[str] | None, rules: Mapping[str, Rule] = RULES
) -> tuple[str, ...] | None:
    """Normalise ``"TW001,TW01"`` or an iterable of codes; validate each as a prefix of a
    code in ``rules``."""
    if spec is None:
        return None
    items = spec.split(",") if isinstance(spec, str) else list(spec)
    codes = tuple(item.strip().upper() for item in items if item.strip())
    for code in codes:
        if code in {"ALL", "TW"}:
            continue
        if not any(rule.startswith(code) for rule in rules):
            known = ", ".join(rules)
            raise UsageError(f"unknown rule code {code!r}; known codes: {known}")
    return codes


def _selected(code: str, select: tuple[str, ...] | None, ignore: tuple[str, ...] | None) -> bool:
    def matches(prefixes: tuple[str, ...]) -> bool:
        return any(p in {"ALL", "TW"} or code.startswith(p) for p in prefixes)

    if select is not None and not matches(select):
        return False
    return not (ignore and matches(ignore))


def with_rules(rules: ExtraRules = ()) -> Registry:
    """The built-in checks, plus ``rules`` (family modules, or `Rule`s and their check
    functions) after them; a code defined twice is a ValueError."""
    rules = tuple(rules)
    return Registry([*CHECKS.families, *rules]) if rules else CHECKS


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
    rules: ExtraRules = (),
) -> list[Finding]:
    """Check one script's source text and return its findings sorted by position.

    ``target_torch`` is ``"X.Y"`` (default: a modern torch, >= 2.6). ``select``/``ignore``
    are code prefixes (``"TW00"`` selects TW001..TW009). Inline noqa comments are honoured.
    ``rules``: more rules to run with the built-in ones, not in this package: family modules
    (as under ``trainwell/doctor/rules/``), or `Rule`s and their marked check functions.
    """
    checks = with_rules(rules)
    select_codes = parse_codes(select, checks.rules)
    ignore_codes = parse_codes(ignore, checks.rules)
    return _check_text(text, path, _target(target_torch), select_codes, ignore_codes, checks=checks)


def _check_text(
    text: str,
    path: str,
    version: tuple[int, int],
    select_codes: tuple[str, ...] | None,
    ignore_codes: tuple[str, ...] | None,
    project: ProjectIndex | None = None,
    routed: list[RawFinding] | None = None,
    checks: Registry = CHECKS,
) -> list[Finding]:
    """Findings of one file; with a ``project``, imports of its other files are followed and
    findings that belong in another file (a helper's forward pass) go to ``routed``."""
    # Lines Python cannot read (a %magic, Python 2 print) are reported and blanked; the
    # rest of the file is still checked.
    tree, problems = parse_recovering(text, path)
    raw_findings = [RawFinding("TW000", p.line, p.col, p.message) for p in problems]
    if tree is not None:
        resolve_autograd_aliases(tree)  # with torchNo_grad(): as with torch.no_grad():
    if tree is None:
        raw = [Finding(path, p.line, p.col, "TW000", p.message, "error") for p in problems]
        return [f for f in raw if _selected(f.code, select_codes, ignore_codes)]
    try:
        foreign = project.foreign_for(Path(path), tree) if project is not None else None
        analysis = FileAnalysis(tree, version, checks, foreign)
        if project is not None:
            file = Path(path).resolve()
            analysis.called_elsewhere = lambda name: project.calls_across.called(file, name)
        raw_findings += analysis.run()
    except Exception as exc:  # pragma: no cover - defensive (RecursionError included)
        # A checker bug on one odd file must not abort a CI run over a whole tree; say so
        # on stderr and treat the file as clean (precision first).
        warnings.warn(f"trainwell doctor: internal error on {path}: {exc!r}", stacklevel=2)
        return []
    lines = text.splitlines()
    findings: set[Finding] = set()
    for raw in raw_findings:
        if raw.path is not None and raw.path != path:
            if routed is not None:
                routed.append(raw)
            continue
        if not _selected(raw.code, select_codes, ignore_codes):
            continue
        line_text = lines[raw.line - 1] if 0 < raw.line <= len(lines) else ""
        if suppressed(line_text, raw.code) or silenced_elsewhere(raw.silenced_at, raw.code):
            continue
        severity = checks.rules[raw.code].severity
        findings.add(Finding(path, raw.line, raw.col, raw.code, raw.message, severity))
    return sorted(findings)


def iter_python_files(paths: Iterable[str | os.PathLike[str]]) -> Iterator[Path]:
    """Expand files and directories (recursively, skipping hidden dirs and venvs).

    Directories yield ``*.py`` and ``*.ipynb``; a file named explicitly is always checked.
    Raises :class:`UsageError` for a missing path or a directory with nothing to check.
    """
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
        found = False
        for root, dirs, files in os.walk(path):
            dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in SKIPPED_DIRS)
            for name in sorted(files):
                if name.endswith(CHECKED_SUFFIXES):
                    found = True
                    yield Path(root) / name
        if not found:
            raise UsageError(
                f"nothing to check in {entry}: no .py or .ipynb files (hidden directories "
                "and virtual environments are skipped)"
            )


@dataclass
class CheckResult:
    """What :func:`check_files` found: the findings and the torch target of each file."""

    findings: list[Finding]
    targets: dict[str, Target]  # reported path -> target used for it
    files: list[Path]


def _file_codes(
    config: DoctorConfig, cache: dict[DoctorConfig, tuple]
) -> tuple[tuple[str, ...] | None, tuple[str, ...] | None]:
    if config not in cache:
        try:
            cache[config] = (parse_codes(config.select), parse_codes(config.ignore))
            for _, codes in config.per_file_ignores:
                parse_codes(codes)
        except UsageError as exc:
            raise UsageError(f"{config.source}: [tool.trainwell.doctor]: {exc}") from None
    return cache[config]


def _check_file(
    file: Path,
    version: tuple[int, int],
    select: tuple[str, ...] | None,
    ignore: tuple[str, ...] | None,
    project: ProjectIndex | None = None,
    routed: list[RawFinding] | None = None,
) -> list[Finding]:
    path = str(file)
    if file.suffix == NOTEBOOK_SUFFIX:
        try:
            notebook = read_notebook(file)
        except SourceError as exc:
            return [Finding(path, 1, 1, "TW000", str(exc))]
        mapped = []
        for f in _check_text(notebook.text, path, version, select, ignore, project, routed):
            cell, line = notebook.locate(f.line)
            mapped.append(Finding(path, line, f.col, f.code, f.message, f.severity, cell))
        return mapped
    try:
        source = read_python(file)
    except SourceError as exc:
        return [Finding(path, 1, 1, "TW000", str(exc))]
    return _check_text(source.text, path, version, select, ignore, project, routed)


def check_files(
    paths: Iterable[str | os.PathLike[str]],
    *,
    target_torch: str | tuple[int, int] | None = None,
    select: str | Iterable[str] | None = None,
    ignore: str | Iterable[str] | None = None,
    use_config: bool = True,
) -> CheckResult:
    """Check files, notebooks and directories; see :func:`check_paths`.

    ``select``/``ignore`` given here replace those of ``[tool.trainwell.doctor]``;
    ``per-file-ignores`` always apply. The torch target is, in order: ``target_torch``, the
    config's ``target-torch``, the project's torch pins, the default.
    """
    explicit = _target(target_torch) if target_torch is not None else None
    select_codes, ignore_codes = parse_codes(select), parse_codes(ignore)
    files = list(iter_python_files(paths))  # usage errors before any output
    clear_caches()  # project files are cached per directory within one run
    validated: dict[DoctorConfig, tuple] = {}
    findings: list[Finding] = []
    targets: dict[str, Target] = {}
    # module name -> facts of the checked files (and their siblings), once per run
    project = ProjectIndex(files, CHECKS)
    routed: list[RawFinding] = []
    file_codes: dict[str, tuple] = {}
    for file in files:
        config = config_for(file) if use_config else DoctorConfig()
        config_select, config_ignore = _file_codes(config, validated)
        file_select = select_codes if select_codes is not None else config_select
        file_ignore = ignore_codes if ignore_codes is not None else config_ignore
        extra = config.ignored_for(file)
        if extra:
            file_ignore = (*(file_ignore or ()), *extra)
        if explicit is not None:
            target = Target(explicit, "from --target-torch")
        elif config.target_torch is not None:
            source = config.source.name if config.source else "pyproject.toml"
            target = Target(config.target_torch, f"from {source} [tool.trainwell.doctor]")
        else:
            target = find_target(file)
        targets[str(file)] = target
        file_codes[str(file)] = (file_select, file_ignore)
        findings += _check_file(file, target.version, file_select, file_ignore, project, routed)
    findings += _routed_findings(routed, file_codes, findings)
    return CheckResult(sorted(findings, key=Finding.sort_key), targets, files)


def _routed_findings(
    routed: list[RawFinding], file_codes: dict[str, tuple], findings: list[Finding]
) -> list[Finding]:
    """Findings that one file's analysis placed in another checked file (a forward pass in a
    helper it imports), under that file's select/ignore and noqa comments, each once."""
    seen = {(f.path, f.line, f.col, f.code) for f in findings}
    lines: dict[str, list[str]] = {}
    result: list[Finding] = []
    for raw in routed:
        path = raw.path or ""
        key = (path, raw.line, raw.col, raw.code)
        if path not in file_codes or key in seen:
            continue
        seen.add(key)
        if not _selected(raw.code, *file_codes[path]):
            continue
        if path not in lines:
            try:
                lines[path] = read_python(Path(path)).text.splitlines()
            except SourceError:
                lines[path] = []
        text = lines[path]
        if suppressed(text[raw.line - 1] if 0 < raw.line <= len(text) else "", raw.code):
            continue
        result.append(Finding(path, raw.line, raw.col, raw.code, raw.message,
                              RULES[raw.code].severity))  # fmt: skip
    return result


def check_paths(
    paths: Iterable[str | os.PathLike[str]],
    *,
    target_torch: str | tuple[int, int] | None = None,
    select: str | Iterable[str] | None = None,
    ignore: str | Iterable[str] | None = None,
) -> list[Finding]:
    """Check files, notebooks and directories; findings sorted by path, (cell,) line, column.

    Without ``target_torch`` each file uses ``[tool.trainwell.doctor] target-torch`` or the
    lowest torch its project pins (pyproject.toml, requirements*.txt, setup.py, setup.cfg,
    environment.yml), else a modern torch. Raises :class:`UsageError` for a path that does
    not exist or a directory with nothing to check.
    """
    return check_files(paths, target_torch=target_torch, select=select, ignore=ignore).findings
