"""Models whose parameters a scope froze (``p.requires_grad = False`` over
``model.parameters()``, ``model.requires_grad_(False)``) before a forward: no graph is
recorded for them, whatever autograd's mode."""

from __future__ import annotations

import ast

from .. import values as V
from .._astutil import walk
from ..analysis import ScopeWalker
from ..class_facts import requires_grad_settings
from ..events import Event


def frozen_parameters_at(w: ScopeWalker, forward: Event) -> bool:
    """The last statement before ``forward`` (in the scope's text) that sets its model's
    ``requires_grad`` froze it: ``for p in netD.parameters(): p.requires_grad = False`` or
    ``netD.requires_grad_(False)``."""
    line = getattr(forward.node, "lineno", 0)
    if forward.receiver is None:
        # val_model(info, net): a helper handed every model it runs, each frozen just before
        handed = [a for a in forward.args if a and w.lookup(a) is not None]
        models = [a for a in handed if w.lookup(a).kind == V.MODEL]  # type: ignore[union-attr]
        return bool(models) and all(_frozen_before(w.body, m, line) for m in models)
    model = forward.receiver
    if _frozen_before(w.body, model, line) or _frozen_by_its_class(w, model):
        return True
    func = w.func
    if func is None or model in w.params or model in bound_in(func):
        return False
    # a function using the file's global model (``generate_image()``): frozen at each of
    # its calls in the module's own code
    calls = [
        n.lineno
        for n in walk(ast.Module(body=w.fa.tree.body, type_ignores=[]))
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == func.name
    ]
    return bool(calls) and all(_frozen_before(w.fa.tree.body, model, at) for at in calls)


def _frozen_by_its_class(w: ScopeWalker, model: str) -> bool:
    """``self.encoder`` frozen in the class's ``__init__`` (a linear probe's copy of the
    backbone) and thawed by none of its methods."""
    init = w.cls.methods.get("__init__") if w.cls is not None else None
    if init is None or not model.startswith("self.") or w.func is init:
        return False
    if not _frozen_before(init.body, model, getattr(init, "end_lineno", 0) + 1):
        return False
    return not any(
        on
        for method in w.cls.methods.values()  # type: ignore[union-attr]
        if method is not init
        for _, name, on in requires_grad_settings(method.body)
        if name == model
    )


def frozen_in_scope_before(w: ScopeWalker, model: str, line: int) -> bool:
    """``model.requires_grad_(False)`` (or its parameters frozen one by one) in this scope,
    before ``line``, and not thawed since."""
    return _frozen_before(w.body, model, line)


def _frozen_before(body: list[ast.stmt], model: str, line: int) -> bool:
    last: tuple[int, bool] | None = None
    for lineno, name, on in requires_grad_settings(body):
        if name == model and lineno < line and (last is None or lineno > last[0]):
            last = (lineno, on)
    return last is not None and not last[1]


def bound_in(func: ast.AST) -> set[str]:
    return {n.id for n in walk(func) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
