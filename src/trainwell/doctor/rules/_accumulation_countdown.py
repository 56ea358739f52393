"""TW017's countdown gate: a loop that counts its micro-batches down instead of up.

``left = k`` ... ``left -= 1`` ... ``if not left: optimizer.step(); left = k`` steps every
k micro-batches as surely as ``if (i + 1) % k == 0`` does; k is the count it is reset to.
"""

from __future__ import annotations

import ast

from .._astutil import dotted, walk
from ._registry import Example


def countdown_start(test: ast.AST, loop: ast.stmt) -> ast.expr | None:
    """k, when ``test`` asks whether a counter that ``loop`` counts down by one and sets
    back to k (a setting, not a literal) has reached zero; None otherwise."""
    countdowns = _countdowns(loop)
    return next((countdowns[n] for n in _tested_for_zero(test) if n in countdowns), None)


def opens_a_countdown(test: ast.AST, loop: ast.stmt) -> bool:
    """``if left == k: optimizer.zero_grad()``: the first micro-batch of a countdown."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return False
    if not isinstance(test.ops[0], ast.Eq):
        return False
    countdowns = _countdowns(loop)
    start = countdowns.get(dotted(test.left) or "")
    return start is not None and dotted(start) == dotted(test.comparators[0])


def _countdowns(loop: ast.stmt) -> dict[str, ast.expr]:
    """The names ``loop`` counts down by one and sets back to a setting, with it."""
    counted_down: set[str] = set()
    starts: dict[str, ast.expr] = {}
    for node in walk(loop):
        if counted_by_one(node, ast.Sub):
            counted_down.add(dotted(node.target) or "")  # type: ignore[attr-defined]
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 and dotted(node.value):
            starts.setdefault(dotted(node.targets[0]) or "", node.value)
    return {name: starts[name] for name in counted_down if name in starts}


def counted_by_one(node: ast.AST, op: type[ast.operator]) -> bool:
    """``n += 1`` (``op`` Add) or ``left -= 1`` (Sub): a counter of the loop."""
    return (
        isinstance(node, ast.AugAssign)
        and isinstance(node.op, op)
        and isinstance(node.value, ast.Constant)
        and node.value.value == 1
    )


def _tested_for_zero(test: ast.AST) -> set[str]:
    """``x`` of ``not x``, ``x == 0`` or ``x <= 0``."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        name = dotted(test.operand)
        return {name} if name else set()
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        bound = test.comparators[0]
        zero = isinstance(bound, ast.Constant) and bound.value == 0
        name = dotted(test.left)
        if zero and name and isinstance(test.ops[0], (ast.Eq, ast.LtE)):
            return {name}
    return set()


_COUNTDOWN = """\
def train(model, loader, optimizer, criterion, args):
    left = args.update_steps
    for x, y in loader:
        if left == args.update_steps:
            optimizer.zero_grad()
        left -= 1
        loss = criterion(model(x), y){scaled}
        loss.backward()
        if not left:
            optimizer.step()
            left = args.update_steps
"""

EXAMPLES = (
    Example(
        # counted down from args.update_steps: a step every update_steps batches
        "accumulation_counted_down_unscaled",
        _COUNTDOWN.format(scaled=""),
        [(8, "TW017")],
    ),
    Example(
        "accumulation_counted_down_scaled",
        _COUNTDOWN.format(scaled=" / args.update_steps"),
        [],
    ),
    Example(
        # a countdown to the end of a warmup, not a gate of micro-batches
        "a_countdown_that_is_no_gate",
        """\
        def train(model, loader, optimizer, criterion, args):
            patience = args.patience
            for x, y in loader:
                optimizer.zero_grad()
                criterion(model(x), y).backward()
                optimizer.step()
                patience -= 1
                if not patience:
                    break
        """,
        [],
    ),
)
