"""Tensors a scope makes require gradients, read in source order: a forward on one of them
serves the gradient wanted at its input (an attack, a gradient penalty), whatever else
becomes of its output."""

from __future__ import annotations

import ast

from .._astutil import dotted, names_in, walk
from ..analysis import ScopeWalker
from ..call_effects import detached


class InputGradients:
    """Where the scope makes a tensor require gradients (``x.requires_grad_()``,
    ``x.requires_grad = True``, ``torch.randn(..., requires_grad=True)``: an attack's input,
    a gradient penalty's interpolates), read in source order: at a given line a name wants
    gradients when the last thing done to it before set the flag, or bound it to a value
    computed from such a tensor (``delta = delta.detach()`` ends it)."""

    def __init__(self, w: ScopeWalker) -> None:
        scope = w.func if w.func is not None else w.fa.tree
        self.events: dict[str, list[tuple[int, bool | ast.expr]]] = {}
        for node in walk(scope):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                if node.func.attr == "requires_grad_":
                    on = not (node.args and _false(node.args[0]))
                    self._add(dotted(node.func.value), node.lineno, on)
            elif isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Attribute) and target.attr == "requires_grad":
                        self._add(dotted(target.value), node.lineno, not _false(node.value))
                    elif isinstance(target, (ast.Name, ast.Attribute)):
                        made = any(
                            kw.arg == "requires_grad" and not _false(kw.value)
                            for kw in _keywords(node)
                        )
                        self._add(dotted(target), node.lineno, True if made else node.value)
        for events in self.events.values():
            events.sort(key=lambda item: item[0])

    def _add(self, name: str | None, line: int, what: bool | ast.expr) -> None:
        if name:
            self.events.setdefault(name, []).append((line, what))

    def wanted(self, name: str, line: int, depth: int = 3) -> bool:
        before = [what for at, what in self.events.get(name, []) if at < line]
        if not before or depth == 0:
            return False
        last = before[-1]
        if isinstance(last, bool):
            return last
        if detached(last):
            return False
        at = getattr(last, "lineno", line)
        return any(self.wanted(n, at, depth - 1) for n in names_in(last) if n != name)

    def any_wanted(self, node: ast.AST) -> bool:
        if not isinstance(node, ast.Call) or not self.events:
            return False
        line = node.lineno
        return any(self.wanted(n, line) for n in _call_inputs(node))


def _false(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is False


def _keywords(node: ast.Assign) -> list[ast.keyword]:
    return [kw for n in walk(node.value) if isinstance(n, ast.Call) for kw in n.keywords]


def _call_inputs(node: ast.AST) -> set[str]:
    if not isinstance(node, ast.Call):
        return set()
    return set().union(*(names_in(a) for a in [*node.args, *(k.value for k in node.keywords)]))
