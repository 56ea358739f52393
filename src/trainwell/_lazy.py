"""Lazy package exports (PEP 562): a package's public names are imported on first use, so
importing the package (or one of its submodules) stays cheap and pulls in no torch."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Collection, Mapping
from typing import Any


def lazy_exports(
    package: str,
    exports: Mapping[str, str],
    namespace: dict[str, Any],
    subpackages: Collection[str] = (),
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The module ``__getattr__`` and ``__dir__`` of ``package``: ``exports`` maps each public
    name to the submodule that defines it (or to a module named in full, ``trainwell.x.y``);
    ``subpackages`` are imported by name."""

    def __getattr__(name: str) -> Any:
        if name in subpackages:
            return importlib.import_module(f"{package}.{name}")
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        # a submodule of ``package``, or a module named in full (a name another package defines)
        where = module if module.startswith("trainwell.") else f"{package}.{module}"
        value = getattr(importlib.import_module(where), name)
        namespace[name] = value  # later lookups skip this function
        return value

    def __dir__() -> list[str]:
        return sorted([*namespace, *exports])

    return __getattr__, __dir__
