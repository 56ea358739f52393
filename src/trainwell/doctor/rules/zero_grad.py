"""Clearing gradients: TW001 (never cleared in the training loop) and TW002 (cleared
between backward() and step()).
"""

from __future__ import annotations

import ast
from collections.abc import Iterable

from .. import values as V
from .._astutil import dotted, walk
from ..analysis import ScopeWalker
from ..events import BACKWARD, CALL, OPAQUE, STEP, ZERO, Event, compatible, is_prefix
from ._common import call_name, events_in, is_backward, is_step, is_zero, report
from ._registry import Example, Rule, in_loop, scope_check

# a full-batch L-BFGS step over a closure, alone or in one branch of an if
_LBFGS = """
for x, y in loader:
    def closure():
        {clear}loss = criterion(model(x), y)
        loss.backward()
        return loss
    if lbfgs:
        {other}
"""

TW001 = Rule(
    "TW001",
    "missing-zero-grad",
    "error",
    "A loop calls backward() and optimizer.step() but never clears the gradients.",
    "backward() adds into .grad; it does not overwrite it. Without optimizer.zero_grad() "
    "(or model.zero_grad(), or setting p.grad = None) in the loop, every step uses the "
    "sum of all gradients since the start of training: the update grows each iteration "
    "and training diverges or stalls, with no error.",
    "for x, y in loader:\n"
    "    loss = criterion(model(x), y)\n"
    "    loss.backward()\n"
    "    optimizer.step()\n",
    "for x, y in loader:\n"
    "    optimizer.zero_grad(set_to_none=True)\n"
    "    loss = criterion(model(x), y)\n"
    "    loss.backward()\n"
    "    optimizer.step()\n",
    examples=(
        Example(
            "zero_grad_missing",
            in_loop("loss = criterion(model(x), y)\nloss.backward()\noptimizer.step()"),
            [(7, "TW001")],
        ),
        Example(
            "zero_grad_present",
            in_loop(
                "optimizer.zero_grad()\nloss = criterion(model(x), y)\nloss.backward()\n"
                "optimizer.step()"
            ),
            [],
        ),
        Example(
            "zero_grad_model_set_to_none",
            in_loop(
                "model.zero_grad(set_to_none=True)\ncriterion(model(x), y).backward()\n"
                "optimizer.step()"
            ),
            [],
        ),
        Example(
            # old code clears by hand: each .grad replaced by zeros, in a helper
            "gradients_replaced_by_zeros_in_a_helper",
            """
            def reset_grad():
                for p in params:
                    if p.grad is not None:
                        data = p.grad.data
                        p.grad = Variable(data.new().resize_as_(data).zero_())

            D_solver = optim.Adam(D_params, lr=1e-3)
            for it in range(100000):
                D_loss = bce(D(X), ones) + bce(D(G(z)), zeros)
                D_loss.backward()
                D_solver.step()
                reset_grad()
            """,
            [],
        ),
        Example(
            # the helper replaces each .grad by a copy of itself: nothing is cleared
            "gradients_replaced_by_copies_in_a_helper",
            """
            def detach_grad():
                for p in params:
                    if p.grad is not None:
                        p.grad = p.grad.detach().clone()

            D_solver = optim.Adam(D_params, lr=1e-3)
            for it in range(100000):
                D_loss = bce(D(X), ones) + bce(D(G(z)), zeros)
                D_loss.backward()
                D_solver.step()
                detach_grad()
            """,
            [(11, "TW001")],
        ),
        Example(
            # L-BFGS: step(closure) runs the closure's backward() at each step
            "lbfgs_closure_without_zero_grad",
            _LBFGS.format(clear="", other="optimizer.step(closure)"),
            [(8, "TW001")],
        ),
        Example(
            "lbfgs_closure_clears_its_gradients",
            _LBFGS.format(clear="optimizer.zero_grad()\n        ", other="optimizer.step(closure)"),
            [],
        ),
        Example(
            # the other optimizers' branch clears them, the L-BFGS branch does not
            "lbfgs_branch_without_zero_grad_beside_one_with_it",
            _LBFGS.format(
                clear="",
                other=(
                    "optimizer.step(closure)\n"
                    "    else:\n"
                    "        optimizer.zero_grad()\n"
                    "        closure()\n"
                    "        optimizer.step()"
                ),
            ),
            [(8, "TW001")],
        ),
    ),
)

TW002 = Rule(
    "TW002",
    "zero-grad-before-step",
    "error",
    "zero_grad() is called between backward() and step(), so the step uses no gradient.",
    "The gradients computed by backward() are erased before the optimizer reads them. "
    "step() then sees zero (or None) gradients and the parameters do not learn: with "
    "weight decay they even shrink towards zero. The loss stays flat and nothing fails.",
    "loss.backward()\noptimizer.zero_grad()\noptimizer.step()\n",
    "loss.backward()\noptimizer.step()\noptimizer.zero_grad()\n",
    examples=(
        Example(
            "zero_grad_between",
            in_loop("criterion(model(x), y).backward()\noptimizer.zero_grad()\noptimizer.step()"),
            [(6, "TW002")],
        ),
        Example(
            "zero_grad_after_step",
            in_loop("criterion(model(x), y).backward()\noptimizer.step()\noptimizer.zero_grad()"),
            [],
        ),
        Example(
            # a GAN in one module and one optimizer: the discriminator's step keeps its own
            # gradients and drops the generator's (TranAD)
            "zero_grad_of_a_submodule_before_a_shared_step",
            """
            def make():
                model = GAN()
                return model, torch.optim.Adam(model.parameters())

            model, optimizer = make()
            for x in loader:
                model.discriminator.zero_grad()
                real, fake = model(x)
                bce(real, fake).backward()
                model.generator.zero_grad()
                optimizer.step()
            """,
            [],
        ),
        Example(
            # SCAFFOLD: the gradient is read, the .grad cleared and a corrected one set
            "gradients_set_by_hand_after_zero_grad",
            """
            for x, y in loader:
                optimizer.zero_grad()
                criterion(model(x), y).backward()
                grad = flatten_grads(model).detach().clone()
                optimizer.zero_grad()
                model = assign_grads(model, grad - c_i + c)
                optimizer.step()
            """,
            [],
        ),
        Example(
            # the except clause clears the gradients and skips the step
            "zero_grad_in_an_except_clause_that_skips_the_step",
            """
            for x, y in loader:
                optimizer.zero_grad()
                try:
                    criterion(model(x), y).backward()
                except RuntimeError:
                    optimizer.zero_grad()
                    continue
                optimizer.step()
            """,
            [],
        ),
        Example(
            "zero_grad_of_the_stepped_submodule",
            """
            model = GAN()
            optimizer = torch.optim.Adam(model.generator.parameters())
            for x in loader:
                real, fake = model(x)
                bce(real, fake).backward()
                model.generator.zero_grad()
                optimizer.step()
            """,
            [(7, "TW002")],
        ),
    ),
)


def _first_step_node(seq: Iterable[Event]) -> ast.AST | None:
    for e in seq:
        if e.kind == STEP:
            return e.node
        if e.kind == CALL and e.summary is not None and e.summary.steps:
            return e.summary.steps[0]
    return None


@scope_check(TW001)
def check_missing_zero_grad(w: ScopeWalker) -> None:
    """TW001: the innermost loop with backward() and step() never clears gradients."""
    trains = {
        lid
        for lid in w.loops
        if any(is_backward(e) for e in events_in(w, lid))
        and any(is_step(e) for e in events_in(w, lid))
    }
    for lid in trains:
        if any(_descends(w, other, lid) for other in trains if other != lid):
            continue  # a nested loop is the real training loop; it is checked itself
        seq = events_in(w, lid)
        zeros = [e.path for e in seq if is_zero(e)]
        # a step whose arm of an if clears nothing (``if lbfgs: optimizer.step(closure)``
        # beside an ``else`` that calls zero_grad()) still accumulates
        unzeroed = [
            e
            for e in seq
            if is_step(e)
            and not any(compatible(z, e.path) for z in zeros)
            and any(is_backward(b) and compatible(b.path, e.path) for b in seq)
        ]
        if zeros and not unzeroed:
            continue
        node = _first_step_node(unzeroed if zeros else seq)
        where = (
            "on a path of its loop that runs backward() but no zero_grad() (only another "
            "branch clears)"
            if zeros
            else "in a loop that runs backward() but never zero_grad()"
        )
        if node is not None:
            report(
                w,
                "TW001",
                node,
                f"{call_name(node)} is called {where}: gradients accumulate across iterations",
            )


def _descends(w: ScopeWalker, child: int, ancestor: int) -> bool:
    parent = w.loops[child].parent
    while parent is not None:
        if parent == ancestor:
            return True
        parent = w.loops[parent].parent
    return False


@scope_check(TW002)
def check_zero_grad_between(w: ScopeWalker) -> None:
    """TW002: zero_grad() after backward() and before the step() that should use the grads."""
    events = w.events
    for index, zero in enumerate(events):
        if zero.kind != ZERO:
            continue
        step = _next_step_before_backward(events[index + 1 :], zero)
        if step is None or not _zero_matches(w, zero, step):
            continue
        if _gradients_written(w, zero, step):
            continue  # SCAFFOLD: corrected gradients set by hand after the zero_grad()
        if _leaves_the_block(w, zero.node):
            continue  # except RuntimeError: optimizer.zero_grad(); continue
        if _backward_since_last_step(events[:index], zero):
            receiver = zero.receiver + "." if zero.receiver else ""
            report(
                w,
                "TW002",
                zero.node,
                f"{receiver}zero_grad() runs after backward() and "
                f"before {call_name(step.node)}: the step sees no gradients",
            )


def _gradients_written(w: ScopeWalker, zero: Event, step: Event) -> bool:
    """Between the zero_grad() and the step(), gradients are set by hand (``p.grad = g``,
    ``p.grad.copy_(g)``) or the stepped model is handed to a function
    (``assign_grads(model, grad)``), which may set them."""
    first, last = zero.seq, step.seq
    models = _stepped_models(w, step)
    for e in w.events[first + 1 : last]:
        if e.kind in {OPAQUE, CALL} and any(_may_be_stepped(w, arg, models) for arg in e.args):
            return True
    start = getattr(zero.node, "lineno", 0)
    end = getattr(step.node, "lineno", 0)
    scope = w.func if w.func is not None else w.fa.tree
    for node in walk(scope):
        if not start < getattr(node, "lineno", 0) < end:
            continue
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Attribute) and t.attr == "grad" for t in node.targets
        ):
            return True
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in {"copy_", "add_", "set_"}
            and "grad" in (dotted(node.func.value) or "").split(".")
        ):
            return True
    return False


def _leaves_the_block(w: ScopeWalker, node: ast.AST) -> bool:
    """The statement of ``node`` is followed in its block by ``continue``, ``break``,
    ``return`` or ``raise``: no step() after it is reached from there."""
    scope = w.func if w.func is not None else w.fa.tree
    for parent in walk(scope):
        for field in ("body", "orelse", "finalbody", "handlers"):
            block = getattr(parent, field, None)
            if not isinstance(block, list):
                continue
            for index, stmt in enumerate(block):
                if isinstance(stmt, ast.Expr) and stmt.value is node:
                    rest = block[index + 1 :]
                    return any(
                        isinstance(s, (ast.Continue, ast.Break, ast.Return, ast.Raise))
                        for s in rest
                    )
    return False


def _stepped_models(w: ScopeWalker, step: Event) -> list[str]:
    """The model whose parameters the stepped optimizer holds, when known."""
    value = w.lookup(step.receiver)
    return [value.alias] if value is not None and value.alias else []


def _may_be_stepped(w: ScopeWalker, name: str, models: list[str]) -> bool:
    if models:
        return name in models
    value = w.lookup(name)  # the optimizer's model unknown: any model may be its
    return value is not None and value.kind == V.MODEL


def _next_step_before_backward(after: list[Event], zero: Event) -> Event | None:
    for e in after:
        if e.kind == BACKWARD:
            return None
        if (
            e.kind == STEP
            and is_prefix(zero.path, e.path)
            and zero.loops[: len(e.loops)] == e.loops
        ):
            return e
    return None


def _backward_since_last_step(before: list[Event], zero: Event) -> bool:
    for e in reversed(before):
        if e.kind == STEP:
            return False
        if e.kind == BACKWARD and compatible(e.path, zero.path):
            return True
    return False


def _zero_matches(w: ScopeWalker, zero: Event, step: Event) -> bool:
    if zero.receiver is None or zero.receiver == step.receiver:
        return True
    zero_val = w.lookup(zero.receiver)
    if zero_val is not None and zero_val.kind == V.OPTIMIZER:
        return False  # another optimizer's gradients (GANs, multi-optimizer setups)
    step_val = w.lookup(step.receiver)
    if step_val is not None and step_val.alias == zero.receiver:
        return True
    if _is_submodule(w, zero.receiver):
        return False  # model.generator.zero_grad(): the step may well use the rest's gradients
    return step_val is None or not step_val.alias


def _is_submodule(w: ScopeWalker, name: str) -> bool:
    """``model.generator`` (an attribute of a model), or ``self.head`` in a module's method."""
    owner, dot, _ = name.rpartition(".")
    if not dot:
        return False
    if owner == "self":
        return w.cls is not None and w.cls.is_module
    value = w.lookup(owner)
    return value is not None and value.kind == V.MODEL
