"""TW012: inference after model.eval() with autograd still on (no torch.no_grad()).

The scope check only collects candidates; :class:`~trainwell.doctor.analysis.FileAnalysis`
reports those whose function this file calls outside no_grad.
"""

from __future__ import annotations

import ast

from ..analysis import ScopeWalker
from ..events import CALL, EVAL, FORWARD, MODE_UNKNOWN, TRAIN, Event, RawFinding
from ..foreign import ForeignNode
from ._common import caller_key, is_training
from ._registry import Example, Rule, scope_check

TW012 = Rule(
    "TW012",
    "inference-without-no-grad",
    "warning",
    "A model is run after model.eval() without torch.no_grad() / torch.inference_mode().",
    "eval() changes layer behaviour but does not turn off autograd. Validation or "
    "inference then records a graph for every forward pass, using several times the "
    "memory and noticeably more time. The rule only fires when nothing in that part of "
    "the code needs gradients and the function is called from this file outside "
    "no_grad.",
    "model.eval()\nfor x, y in val_loader:\n    preds = model(x).argmax(1)\n",
    "model.eval()\n"
    "with torch.no_grad():\n"
    "    for x, y in val_loader:\n"
    "        preds = model(x).argmax(1)\n",
    examples=(
        Example(
            "inference_without_no_grad",
            """\
            def predict(model, xs):
                model.eval()
                return [model(x) for x in xs]

            predict(torch.nn.Linear(2, 2), [])
            """,
            [(3, "TW012")],
        ),
        Example(
            "inference_with_no_grad",
            """\
            @torch.no_grad()
            def predict(model, xs):
                model.eval()
                return [model(x) for x in xs]

            predict(torch.nn.Linear(2, 2), [])
            """,
            [],
        ),
        Example(
            "eval_inside_a_call_argument",
            """\
            def accuracy(model, loader):
                return sum((model(x).argmax(1) == y).sum() for x, y in loader)

            model = torch.nn.Linear(2, 2)
            acc = accuracy(model.eval(), val_loader)
            """,
            [(2, "TW012")],
        ),
        Example(
            "eval_inside_a_call_argument_no_grad",
            """\
            @torch.no_grad()
            def accuracy(model, loader):
                return sum((model(x).argmax(1) == y).sum() for x, y in loader)

            model = torch.nn.Linear(2, 2)
            acc = accuracy(model.eval(), val_loader)
            """,
            [],
        ),
    ),
)


@scope_check(TW012)
def collect_no_grad_candidates(w: ScopeWalker) -> None:
    """TW012: model(x) after model.eval() with autograd on and no gradient use in sight."""
    if w.facts.grad_machinery:
        return
    in_eval: set[str] = set()  # models inside an eval region already examined
    for index, e in enumerate(w.events):
        if e.kind in {TRAIN, MODE_UNKNOWN} and e.receiver:
            in_eval.discard(e.receiver)  # the region ends: a later eval() starts a new one
        if e.kind != EVAL or not e.receiver or e.receiver in in_eval:
            continue
        in_eval.add(e.receiver)
        found = _unguarded_forward(w.events[index + 1 :], e.receiver)
        if found is None:
            continue
        forward, via = found
        line = getattr(forward, "lineno", 1)
        col = getattr(forward, "col_offset", 0) + 1
        message = (
            f"{e.receiver}(...) runs after "
            f"{e.receiver}.eval() without torch.no_grad(): autograd records a "
            "graph for nothing"
        )
        path = None
        if isinstance(forward, ForeignNode):
            # a helper of another file runs the forward: reported there, as for a helper of
            # this file, when that file is checked too; otherwise here, at the call
            if forward.checked:
                path = forward.path
            else:
                line, col = getattr(via, "lineno", 1), getattr(via, "col_offset", 0) + 1
                message = f"{forward.func}() (in {forward.path}:{forward.lineno}): {message}"
        finding = RawFinding("TW012", line, col, message, path)
        w.fa.no_grad_candidates.append((w.func, finding))


def _unguarded_forward(after: list[Event], key: str) -> tuple[ast.AST, ast.AST] | None:
    """The first forward pass of ``key`` with autograd on, here or in a called function
    (with the event's node that reaches it: the forward itself or the call)."""
    forward: ast.AST | None = None
    via: ast.AST | None = None
    for e in after:
        if e.kind in {TRAIN, MODE_UNKNOWN} and e.receiver == key:
            break
        if is_training(e):
            return None
        if forward is not None or e.no_grad:
            continue
        if e.kind == FORWARD and e.receiver == key:
            forward = via = e.node
        elif e.kind == CALL and e.summary is not None:
            forward = next(
                (node for k, node in e.summary.forwards.items() if caller_key(e, k) == key), None
            )
            via = e.node
    return (forward, via) if forward is not None and via is not None else None
