"""Finding the torch version a project targets (``--target-torch`` or pyproject.toml)."""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

try:  # Python >= 3.11
    import tomllib as _toml
except ModuleNotFoundError:  # pragma: no cover - Python 3.10
    try:
        import tomli as _toml  # type: ignore[no-redef]
    except ModuleNotFoundError:
        _toml = None  # type: ignore[assignment]

MODERN_TORCH = (2, 6)
"""Assumed when a project declares nothing: the first release with safe torch.load."""

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


@lru_cache(maxsize=256)
def _declared_in(pyproject: Path) -> tuple[int, int] | None:
    if _toml is None:
        return None
    try:
        data = _toml.loads(pyproject.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    deps = data.get("project", {}).get("dependencies", [])
    floors = [f for f in (torch_floor(d) for d in deps if isinstance(d, str)) if f]
    return min(floors) if floors else None


@lru_cache(maxsize=1024)
def _nearest_pyproject(directory: Path) -> Path | None:
    for folder in (directory, *directory.parents):
        candidate = folder / "pyproject.toml"
        if candidate.is_file():
            return candidate
    return None


def target_torch_for(path: str | Path) -> tuple[int, int]:
    """Torch version to assume for ``path``: nearest pyproject.toml's torch floor, or modern."""
    start = Path(path).resolve()
    directory = start if start.is_dir() else start.parent
    pyproject = _nearest_pyproject(directory)
    declared = _declared_in(pyproject) if pyproject else None
    return declared or MODERN_TORCH
