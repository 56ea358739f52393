"""What a TW012 finding's model is in its function: the parameter that holds it and the
method its forward calls. A caller elsewhere judges the finding by them."""

from __future__ import annotations

import ast

from .._astutil import dotted
from ..analysis import ScopeWalker
from ..events import RawFinding


def note_model_of(finding: RawFinding, w: ScopeWalker, forward: object, model: str | None) -> None:
    """Which parameter of the scope holds the finding's model (``policy`` for
    ``policy(obs)``) and which of its methods the forward calls (``predict`` of
    ``model.predict(x)``): a caller elsewhere knows what it passes there."""
    root = (model or "").split(".")[0]
    finding.model_param = root if root and root in w.params else None
    func = getattr(forward, "func", None)
    called = isinstance(func, ast.Attribute) and dotted(func.value) == model
    finding.model_method = func.attr if called else None  # type: ignore[union-attr]
