"""TW017's flag gate: a step function told by its caller whether to step.

``def train_step(batch, should_step): loss.backward(); if should_step: optimizer.step()``
called as ``train_step(batch, should_step=(i + 1) % k == 0)`` accumulates k backward()
calls per step as surely as a loop with ``if (i + 1) % k == 0`` does; k is what the
caller's test divides by.  Only callers in the same file are read.
"""

from __future__ import annotations

import ast

from .._astutil import dotted, last_part, walk
from ._registry import Example


def flag_gate_divisor(
    test: ast.expr, func: ast.FunctionDef | ast.AsyncFunctionDef, nodes: list[ast.AST]
) -> ast.expr | None:
    """k, when ``test`` is (``not``) a parameter of ``func`` for which a caller among
    ``nodes`` passes ``i % k`` (directly, or as a name it set to such a test); else None."""
    flag = _flag_parameter(test, func)
    if flag is None:
        return None
    for call in _calls_of(func, nodes):
        passed = _argument_for(call, func, flag)
        modulo = _modulo_in(passed, nodes) if passed is not None else None
        if modulo is not None and dotted(modulo.right):
            return modulo.right
    return None


def _flag_parameter(test: ast.expr, func: ast.FunctionDef | ast.AsyncFunctionDef) -> str | None:
    node = test.operand if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) else test
    names = {a.arg for a in (*func.args.posonlyargs, *func.args.args, *func.args.kwonlyargs)}
    return node.id if isinstance(node, ast.Name) and node.id in names else None


def _calls_of(func: ast.FunctionDef | ast.AsyncFunctionDef, nodes: list[ast.AST]) -> list[ast.Call]:
    """Calls by the function's name: ``train_step(...)``, ``self._update(...)``."""
    return [
        n for n in nodes if isinstance(n, ast.Call) and last_part(dotted(n.func) or "") == func.name
    ]


def _argument_for(
    call: ast.Call, func: ast.FunctionDef | ast.AsyncFunctionDef, name: str
) -> ast.expr | None:
    for keyword in call.keywords:
        if keyword.arg == name:
            return keyword.value
    positional = [a.arg for a in (*func.args.posonlyargs, *func.args.args)]
    if positional and positional[0] in ("self", "cls") and isinstance(call.func, ast.Attribute):
        positional = positional[1:]  # self._update(results, flag): self is bound
    index = positional.index(name) if name in positional else -1
    if 0 <= index < len(call.args) and not isinstance(call.args[index], ast.Starred):
        return call.args[index]
    return None


def _modulo_in(passed: ast.expr, nodes: list[ast.AST]) -> ast.BinOp | None:
    """The ``i % k`` of what a caller passes: the expression itself, or the test a name it
    passes was set to (``accum = (it % k) != 0`` ... ``train_step(x, accum)``)."""
    sources = [passed]
    if isinstance(passed, ast.Name):
        sources += [
            n.value
            for n in nodes
            if isinstance(n, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == passed.id for t in n.targets)
        ]
    for source in sources:
        for node in walk(source):
            by_one = (
                isinstance(getattr(node, "right", None), ast.Constant) and node.right.value == 1
            )
            if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod) and not by_one:
                return node
    return None


_FLAGGED_STEP = """\
def train_step(model, x, y, optimizer, criterion, args, accumulate=False):
    loss = criterion(model(x), y){scaled}
    loss.backward()
    if not accumulate:
        optimizer.step()
        optimizer.zero_grad()


def train(model, loader, optimizer, criterion, args):
    for i, (x, y) in enumerate(loader):
        accumulate = (i + 1) % args.accum_steps != 0
        train_step(model, x, y, optimizer, criterion, args, accumulate)
"""

EXAMPLES = (
    Example(
        # the caller decides every call whether to step: every accum_steps batches
        "accumulation_by_a_flag_the_caller_passes_unscaled",
        _FLAGGED_STEP.format(scaled=""),
        [(3, "TW017")],
    ),
    Example(
        "accumulation_by_a_flag_the_caller_passes_scaled",
        _FLAGGED_STEP.format(scaled=" / args.accum_steps"),
        [],
    ),
    Example(
        "a_method_told_to_step_by_a_keyword_unscaled",
        """\
        class Algorithm:
            def update(self, batch, is_epoch_end):
                self.batch_idx += 1
                self._update(batch, should_step=self.batch_idx % self.accum == 0 or is_epoch_end)

            def _update(self, batch, should_step=False):
                objective = self.loss(self.model(batch.x), batch.y)
                objective.backward()
                if should_step:
                    self.optimizer.step()
                    self.model.zero_grad()
        """,
        [(8, "TW017")],
    ),
    Example(
        # the flag is a setting, not a count of batches: one backward per step
        "a_step_flag_that_is_no_accumulation_gate",
        """\
        def train_step(model, x, y, optimizer, criterion, update=True):
            loss = criterion(model(x), y)
            loss.backward()
            if update:
                optimizer.step()
                optimizer.zero_grad()


        def train(model, loader, optimizer, criterion, args):
            for x, y in loader:
                train_step(model, x, y, optimizer, criterion, update=not args.frozen)
        """,
        [],
    ),
    Example(
        # accumulate is only ever False: `not accumulate or ...` steps every batch
        "an_accumulation_gate_switched_off_by_a_false_flag",
        """\
        def fit(model, loader, optimizer, criterion):
            accumulate = False
            for batch_id, (x, y) in enumerate(loader):
                loss = criterion(model(x), y)
                loss.backward()
                if not accumulate or (batch_id + 1) % accumulate == 0:
                    optimizer.step()
                    model.zero_grad()
        """,
        [],
    ),
    Example(
        # the epoch function takes k from its caller for its gate: handing it k divides
        # nothing (the loss of a library's compute_loss is divided by nobody here)
        "an_accumulation_window_handed_in_by_the_caller",
        """\
        def train_epoch(model, loader, optimizer, accumulation):
            for i, (x, y) in enumerate(loader):
                loss, score = compute_loss(model(x), y)
                loss.backward()
                if (i + 1) % accumulation == 0:
                    optimizer.step()
                    optimizer.zero_grad()

        for epoch in range(cfg.epochs):
            train_epoch(model, loader, optimizer, cfg.optim.accumulation)
        """,
        [(4, "TW017")],
    ),
)
