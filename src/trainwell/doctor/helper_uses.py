"""What the scopes of one file do with what its functions return (see HelperUses): which
helpers' returned graphs are trained on and which detached values become targets, closed
over the functions that return a callee's value in turn."""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass, field

from .events import Summary


@dataclass
class HelperUses:
    """What the scopes' callers do with what this file's functions return, gathered over one
    pass: a returned graph backpropagated (or handed to code the analysis cannot see), a
    returned detached tensor made a target, and the (function, callee) pairs where a function
    returns its callee's graph or detached tensor in turn (``compute_loss`` returning what
    ``actor(...)`` built, ``targets()`` returning ``q_next()``'s value)."""

    graph_used: list[Summary | None] = field(default_factory=list)
    cut_used: list[Summary | None] = field(default_factory=list)
    graph_links: list[tuple[ast.AST | None, Summary | None]] = field(default_factory=list)
    cut_links: list[tuple[ast.AST | None, Summary | None]] = field(default_factory=list)

    def graph_helpers(
        self,
        summaries: dict[ast.AST, Summary | None],
        overrides: Callable[[ast.AST], list[ast.AST]] | None = None,
    ) -> set[int]:
        """ids of the summaries of functions whose returned graph some caller trains on (or
        may), directly or through functions returning it; with ``overrides``, a subclass's
        method that overrides such a function too (its base class's loop calls it)."""
        found = _closed(self.graph_used, self.graph_links, summaries)
        if overrides is not None:
            func_of = {id(s): f for f, s in summaries.items() if s is not None}
            extra = [
                summaries.get(o)
                for s in found
                if id(s) in func_of
                for o in overrides(func_of[id(s)])
            ]
            found = _closed(found + extra, self.graph_links, summaries)
        return {id(s) for s in found if s}

    def cut_functions(self, summaries: dict[ast.AST, Summary | None]) -> set[ast.AST]:
        """Functions whose returned detached tensor some caller makes a target (or may)."""
        used = {id(s) for s in _closed(self.cut_used, self.cut_links, summaries) if s}
        return {func for func, summary in summaries.items() if id(summary) in used}


def _closed(
    used: list[Summary | None],
    links: list[tuple[ast.AST | None, Summary | None]],
    summaries: dict[ast.AST, Summary | None],
) -> list[Summary | None]:
    """``used`` and, repeatedly, the callees that a used function returns the value of."""
    found = list(used)
    ids = {id(s) for s in found}
    changed = True
    while changed:
        changed = False
        for func, callee in links:
            outer = summaries.get(func) if func is not None else None
            if outer is not None and id(outer) in ids and id(callee) not in ids:
                found.append(callee)
                ids.add(id(callee))
                changed = True
    return found
