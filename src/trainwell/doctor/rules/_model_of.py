"""What a TW012 finding's model is in its function: the parameter that holds it, the method
its forward calls, whether the function made it itself. A caller elsewhere judges the
finding by them."""

from __future__ import annotations

import ast

from .._astutil import dotted, walk
from ..analysis import ScopeWalker
from ..events import RawFinding


def note_model_of(finding: RawFinding, w: ScopeWalker, forward: object, model: str | None) -> None:
    """Which parameter of the scope holds the finding's model (``policy`` for
    ``policy(obs)``) and which of its methods the forward calls (``predict`` of
    ``model.predict(x)``): a caller elsewhere knows what it passes there."""
    root = (model or "").split(".")[0]
    finding.model_param = root if root and root in w.params else None
    finding.model_built = bool(root) and _made_in(w, root)
    func = getattr(forward, "func", None)
    called = isinstance(func, ast.Attribute) and dotted(func.value) == model
    finding.model_method = func.attr if called else None  # type: ignore[union-attr]


def _made_in(w: ScopeWalker, name: str) -> bool:
    """``name`` is bound in the scope's function to what a call makes, from nothing the
    function was given: ``net = SLRNet().to(device)``, ``model = torch.load(path)``."""
    if w.func is None or name in w.params:
        return False
    for node in walk(w.func):
        if not isinstance(node, ast.Assign) or not isinstance(node.value, ast.Call):
            continue
        if not any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            continue
        made = node.value
        while isinstance(made.func, ast.Attribute) and isinstance(made.func.value, ast.Call):
            made = made.func.value  # SLRNet().to(device).eval()
        root = (dotted(made.func) or "").split(".")[0]
        if root and root not in w.params and root != "self":
            return True
    return False
