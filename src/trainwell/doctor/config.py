"""Settings: the torch version a project targets and ``[tool.trainwell.doctor]``."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from .target import MODERN_TORCH, find_target, project_root, target_for_root
from .tomlfile import load_toml

# The settings API: MODERN_TORCH (the default target) is defined in .target, which reads
# the project files, and load_toml in .tomlfile; both are offered here too.
__all__ = [
    "MODERN_TORCH",
    "DoctorConfig",
    "UsageError",
    "clear_caches",
    "config_for",
    "load_toml",
    "parse_version",
    "target_torch_for",
    "torch_floor",
]

_VERSION = re.compile(r"^\s*(\d+)\.(\d+)")
_REQUIREMENT = re.compile(r"^\s*torch\s*(\[[^\]]*\])?\s*(?P<spec>[^;]*)", re.I)
_LOWER_BOUND = re.compile(r"(>=|==|~=|>|===)\s*(\d+(?:\.\d+)*)")


class UsageError(ValueError):
    """A problem with the command line; the CLI prints it and exits with status 2."""


def parse_version(text: str) -> tuple[int, int]:
    """``"2.4"`` / ``"2.4.1"`` -> ``(2, 4)``; raises UsageError for anything else."""
    match = _VERSION.match(text)
    if not match:
        raise UsageError(
            f"invalid torch version {text!r}: expected MAJOR.MINOR, e.g. --target-torch 2.4"
        )
    return int(match.group(1)), int(match.group(2))


def torch_floor(requirement: str) -> tuple[int, int] | None:
    """Lowest torch version allowed by a PEP 508 requirement string, if it names torch.

    ``torch>=2.4,<3`` -> (2, 4); ``torch`` (no version) -> None; ``torchvision`` -> None.
    """
    match = _REQUIREMENT.match(requirement)
    if not match:
        return None
    spec = match.group("spec")
    if spec and spec.lstrip()[:1].isalnum():
        return None  # e.g. "torchvision": a different package that starts with "torch"
    bounds = [parse_version(v) for _, v in _LOWER_BOUND.findall(spec)]
    return min(bounds) if bounds else None


def target_torch_for(path: str | Path) -> tuple[int, int]:
    """Torch version to assume for ``path``: the lowest torch its project pins, or modern.

    See :mod:`trainwell.doctor.target` for the files read and the rule.
    """
    return find_target(path).version


# --- [tool.trainwell.doctor] in pyproject.toml -------------------------------------------

_CONFIG_KEYS = {"select", "ignore", "target-torch", "per-file-ignores"}


@dataclass(frozen=True)
class DoctorConfig:
    """Settings from the nearest pyproject.toml with a ``[tool.trainwell.doctor]`` table.

    Codes are kept as written; the engine validates them (and names ``source`` on error).
    """

    source: Path | None = None  # the pyproject.toml read, if any
    select: tuple[str, ...] | None = None
    ignore: tuple[str, ...] | None = None
    target_torch: tuple[int, int] | None = None
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()

    def ignored_for(self, path: Path) -> tuple[str, ...]:
        """Codes that ``per-file-ignores`` switches off for ``path``.

        Patterns are matched against the path relative to the pyproject.toml's directory
        (``/`` separators, ``*`` does not cross ``/``, ``**`` does) and, for a pattern
        without ``/``, against the file name alone (``"test_*.py"``).
        """
        if not self.per_file_ignores or self.source is None:
            return ()
        try:
            relative = path.resolve().relative_to(self.source.parent.resolve()).as_posix()
        except ValueError:
            relative = path.as_posix()
        codes: list[str] = []
        for pattern, pattern_codes in self.per_file_ignores:
            subject = relative if "/" in pattern else path.name
            if _glob(pattern).fullmatch(subject):
                codes += pattern_codes
        return tuple(codes)


@lru_cache(maxsize=256)
def _glob(pattern: str) -> re.Pattern[str]:
    out, i = [], 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(out))


def _codes(value: object, key: str, source: Path) -> tuple[str, ...]:
    if isinstance(value, str):
        value = value.split(",")
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise UsageError(f"{source}: [tool.trainwell.doctor] {key} must be a list of codes")
    return tuple(v.strip().upper() for v in value if v.strip())


def _read_config(pyproject: Path, table: dict) -> DoctorConfig:
    unknown = sorted(set(table) - _CONFIG_KEYS)
    if unknown:
        known = ", ".join(sorted(_CONFIG_KEYS))
        raise UsageError(
            f"{pyproject}: unknown key {unknown[0]!r} in [tool.trainwell.doctor] (known: {known})"
        )
    target = table.get("target-torch")
    if target is not None:
        try:
            target = parse_version(str(target))
        except UsageError:
            raise UsageError(
                f'{pyproject}: [tool.trainwell.doctor] target-torch must be "X.Y", got {target!r}'
            ) from None
    pfi = table.get("per-file-ignores", {})
    if not isinstance(pfi, dict):
        raise UsageError(f"{pyproject}: [tool.trainwell.doctor] per-file-ignores must be a table")
    return DoctorConfig(
        source=pyproject,
        select=_codes(table["select"], "select", pyproject) if "select" in table else None,
        ignore=_codes(table["ignore"], "ignore", pyproject) if "ignore" in table else None,
        target_torch=target,
        per_file_ignores=tuple(
            (str(k), _codes(v, f"per-file-ignores {k!r}", pyproject)) for k, v in pfi.items()
        ),
    )


@lru_cache(maxsize=1024)
def _config_in(directory: Path) -> DoctorConfig:
    for folder in (directory, *directory.parents):
        candidate = folder / "pyproject.toml"
        if not candidate.is_file():
            continue
        data = load_toml(candidate) or {}
        table = data.get("tool", {}).get("trainwell", {}).get("doctor")
        if isinstance(table, dict):
            return _read_config(candidate, table)
    return DoctorConfig()


def clear_caches() -> None:
    """Forget cached project files (each :func:`~trainwell.doctor.engine.check_files` run
    starts afresh, so a long-lived process sees edited pyproject/requirements files)."""
    load_toml.cache_clear()
    _config_in.cache_clear()
    project_root.cache_clear()
    target_for_root.cache_clear()


def config_for(path: str | Path) -> DoctorConfig:
    """The doctor settings for ``path``: nearest pyproject.toml with the table, or none."""
    start = Path(path).resolve()
    return _config_in(start if start.is_dir() else start.parent)
