"""Reading TOML project files (``pyproject.toml``), each parsed once per path.

Both the doctor's settings (:mod:`.config`, the ``[tool.trainwell.doctor]`` table) and the
torch target (:mod:`.target`, the project's torch pins) read ``pyproject.toml``; they share
this cached reader, which sits below both so that neither has to import the other for it.
Python 3.10 has no :mod:`tomllib`: there ``tomli`` is used if installed, else nothing is read.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

try:  # Python >= 3.11
    import tomllib as _toml
except ModuleNotFoundError:  # pragma: no cover - Python 3.10
    try:
        import tomli as _toml  # type: ignore[no-redef]
    except ModuleNotFoundError:
        _toml = None  # type: ignore[assignment]


@lru_cache(maxsize=256)
def load_toml(path: Path) -> dict | None:
    """A TOML file's table, or None when it cannot be read or parsed (cached per path)."""
    if _toml is None:
        return None
    try:
        return _toml.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, UnicodeDecodeError):
        return None
