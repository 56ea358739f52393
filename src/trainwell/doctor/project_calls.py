"""Which functions of each project file the other checked files call.

A plain function of a helpers module that nothing in its own file runs
(``apply_to_file``, called as ``apply.apply_to_file(model, wav)`` from ``main.py``) is
judged at those calls: what it runs is said in the caller's file, not inside it.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable
from pathlib import Path

from ._astutil import dotted, walk
from .recovery import parse_recovering
from .sources import SourceError, read_python

Resolve = Callable[[Path, str | None, int], Path | None]


def calls_into(files: Iterable[Path], resolve: Resolve) -> dict[Path, set[str]]:
    """For each project file, the names of its functions that another of ``files`` calls
    (``module.func(...)`` after ``import module``, ``func(...)`` after ``from module
    import func``)."""
    called: dict[Path, set[str]] = {}
    for file in files:
        try:
            tree, _ = parse_recovering(read_python(file).text, str(file))
        except (SourceError, ValueError, RecursionError):
            continue
        if tree is None:
            continue
        for target, name in _calls_of_imports(file, tree, resolve):
            called.setdefault(target, set()).add(name)
    return called


def _calls_of_imports(file: Path, tree: ast.Module, resolve: Resolve) -> set[tuple[Path, str]]:
    modules: dict[str, Path] = {}  # local name -> the file it imports
    functions: dict[str, tuple[Path, str]] = {}  # local name -> (file, its name there)
    for node in walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                found = resolve(file, alias.name, 0)
                if found is not None:
                    modules[alias.asname or alias.name] = found
        elif isinstance(node, ast.ImportFrom):
            for alias in node.names:
                sub = f"{node.module}.{alias.name}" if node.module else alias.name
                found = resolve(file, sub, node.level)
                if found is not None:  # from pkg import module
                    modules[alias.asname or alias.name] = found
                    continue
                owner = resolve(file, node.module, node.level) if node.module else None
                if owner is not None and alias.name != "*":
                    functions[alias.asname or alias.name] = (owner, alias.name)
    if not modules and not functions:
        return set()
    found_calls: set[tuple[Path, str]] = set()
    for node in walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Name) and func.id in functions:
            found_calls.add(functions[func.id])
        elif isinstance(func, ast.Attribute) and dotted(func.value) in modules:
            found_calls.add((modules[dotted(func.value)], func.attr))  # type: ignore[index]
    return found_calls
