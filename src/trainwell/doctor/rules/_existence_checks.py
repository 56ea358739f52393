"""An ``if`` that only asks whether an optional object is there (``if self.scheduler is not
None: self.scheduler.step()``) runs its body on every pass where the object exists: for
the schedule rules, the step stands where the ``if`` stands."""

from __future__ import annotations

import ast

from .._astutil import dotted
from ..analysis import ScopeWalker
from ..events import Event


def without_existence_checks(w: ScopeWalker, sched: Event) -> tuple:
    """The scheduler step's branch path without the ifs that only ask whether there is a
    scheduler (``if self.scheduler is not None: self.scheduler.step()``): every pass."""
    path = sched.path
    while (
        path
        and path[-1][1] == 0
        and _asks_for(getattr(w.ifs[path[-1][0]].node, "test", None), sched.receiver)
    ):
        path = path[:-1]
    return path


def _asks_for(test: ast.expr | None, name: str | None) -> bool:
    """``if sched:``, ``if sched is not None:``, ``if sched != None:``."""
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        none = isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value is None
        return (
            none and isinstance(test.ops[0], (ast.IsNot, ast.NotEq)) and _asks_for(test.left, name)
        )
    return name is not None and dotted(test) == name
