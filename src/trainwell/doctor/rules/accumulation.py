"""TW017: gradients accumulated over several backward() calls per step() with the loss
not divided by the number of accumulation steps.
"""

from __future__ import annotations

import ast

from .. import values as V
from .._astutil import dotted
from ..analysis import ScopeWalker
from ..events import BACKWARD, STEP, Event, compatible
from ._common import events_in, report
from ._registry import Example, Rule, scope_check

TW017 = Rule(
    "TW017",
    "accumulation-without-loss-scaling",
    "warning",
    "Gradients are accumulated over several backward() calls per step() but the loss "
    "is not divided by the number of accumulation steps.",
    "With step() only every k batches, the gradient is the sum of k mini-batch "
    "gradients: k times larger than the averaged gradient the learning rate was tuned "
    "for. With SGD the effective LR is k times too large; with any optimizer gradient "
    "clipping thresholds change meaning. Divide the loss by k before backward().",
    "for i, (x, y) in enumerate(loader):\n"
    "    loss = criterion(model(x), y)\n"
    "    loss.backward()\n"
    "    if (i + 1) % accum_steps == 0:\n"
    "        optimizer.step()\n"
    "        optimizer.zero_grad()\n",
    "for i, (x, y) in enumerate(loader):\n"
    "    loss = criterion(model(x), y) / accum_steps\n"
    "    loss.backward()\n"
    "    if (i + 1) % accum_steps == 0:\n"
    "        optimizer.step()\n"
    "        optimizer.zero_grad()\n",
    examples=(
        Example(
            "accumulation_unscaled",
            """\
            def fit(model, loader, optimizer, criterion, k):
                for i, (x, y) in enumerate(loader):
                    loss = criterion(model(x), y)
                    loss.backward()
                    if (i + 1) % k == 0:
                        optimizer.step()
                        optimizer.zero_grad()
            """,
            [(4, "TW017")],
        ),
        Example(
            "accumulation_scaled",
            """\
            def fit(model, loader, optimizer, criterion, k):
                for i, (x, y) in enumerate(loader):
                    loss = criterion(model(x), y)
                    (loss / k).backward()
                    if (i + 1) % k == 0:
                        optimizer.step()
                        optimizer.zero_grad()
            """,
            [],
        ),
        Example(
            "the_models_own_loss_method_unscaled",
            """\
            def fit(model, loader, optimizer, k):
                model.train()
                for i, (x, y) in enumerate(loader):
                    loss = model.loss(model(x), y)
                    loss.backward()
                    if not (i % k):
                        optimizer.step()
                        optimizer.zero_grad()
            """,
            [(5, "TW017")],
        ),
        Example(
            # torch.mean() of the model's per-GPU losses is still the model's own loss
            "the_mean_of_the_models_losses_unscaled",
            """\
            def fit(model, loader, optimizer, k):
                for i, (x, y) in enumerate(loader):
                    loss, parts = model(x, y)
                    loss = torch.mean(loss)
                    loss.backward()
                    if (i + 1) % k == 0:
                        optimizer.step()
                        optimizer.zero_grad()
            """,
            [(5, "TW017")],
        ),
        Example(
            # the adversarial loss's backward sits in an if of its own, beside the gated step
            "an_extra_backward_in_an_if_beside_the_gated_step",
            """\
            def fit(model, loader, optimizer, k, adversarial):
                for i, batch in enumerate(loader):
                    loss = model(**batch)[0] / k
                    loss.backward()
                    if adversarial:
                        loss_adv = model(**perturbed(batch))[0]
                        loss_adv.backward()
                    if (i + 1) % k == 0:
                        optimizer.step()
                        optimizer.zero_grad()
            """,
            [(7, "TW017")],
        ),
        Example(
            # an auxiliary head's loss added with a literal weight: still no division by k
            "an_auxiliary_loss_weighted_into_the_unscaled_loss",
            """\
            def fit(model, loader, optimizer, criterion, k):
                for i, (x, y) in enumerate(loader):
                    logits, aux_logits = model(x)
                    loss = criterion(logits, y)
                    if aux_logits is not None:
                        loss = loss + 0.4 * criterion(aux_logits, y)
                    loss.backward()
                    if k is None:
                        optimizer.step()
                        optimizer.zero_grad()
                    elif (i + 1) % k == 0:
                        optimizer.step()
                        optimizer.zero_grad()
            """,
            [(7, "TW017")],
        ),
        Example(
            "a_weighted_sum_divided_by_k",
            """\
            def fit(model, loader, optimizer, criterion, k):
                for i, (x, y) in enumerate(loader):
                    logits, aux_logits = model(x)
                    loss = (criterion(logits, y) + 0.4 * criterion(aux_logits, y)) / k
                    loss.backward()
                    if (i + 1) % k == 0:
                        optimizer.step()
                        optimizer.zero_grad()
            """,
            [],
        ),
        Example(
            # the gradients are averaged by hand before the step
            "gradients_divided_by_hand_before_the_step",
            """\
            def fit(model, loader, optimizer, criterion, k):
                for i, (x, y) in enumerate(loader):
                    criterion(model(x), y).backward()
                    if (i + 1) % k == 0:
                        for p in model.parameters():
                            if p.grad is not None:
                                p.grad /= k
                        optimizer.step()
                        optimizer.zero_grad()
            """,
            [],
        ),
        Example(
            "backward_and_step_in_two_arms_of_one_if",
            """\
            def fit(model, loader, optimizer, k):
                for i, (x, y) in enumerate(loader):
                    loss = model(x, y)[0]
                    if i % k:
                        loss.backward()
                    else:
                        optimizer.step()
                        optimizer.zero_grad()
            """,
            [],
        ),
    ),
)


def _has_modulo(node: ast.AST) -> bool:
    return any(isinstance(n, ast.BinOp) and isinstance(n.op, ast.Mod) for n in ast.walk(node))


@scope_check(TW017)
def check_accumulation_scaling(w: ScopeWalker) -> None:
    """TW017: backward() every micro-batch, step() every k, loss never divided."""
    flagged: set[int] = set()
    for step in (e for e in w.events if e.kind == STEP):
        if _gradients_divided_before(w, step):
            continue  # for p in model.parameters(): p.grad /= k (the average, by hand)
        for back in _accumulating_backwards(w, step):
            value = back.value
            if (
                value is not None
                and value.kind == V.LOSS
                and V.UNSCALED in value.flags
                and V.SCALED not in value.flags
                and id(back.node) not in flagged
            ):
                flagged.add(id(back.node))
                report(
                    w,
                    "TW017",
                    back.node,
                    "gradients are accumulated over several "
                    "backward() calls per step but the loss is not divided by the number "
                    "of accumulation steps",
                )


def _gradients_divided_before(w: ScopeWalker, step: Event) -> bool:
    """The gradients are divided by hand in the lines just before the step:
    ``p.grad /= k``, ``p.grad.div_(k)``, ``p.grad = p.grad / k``."""
    line = getattr(step.node, "lineno", 0)
    lines = getattr(w, "_gradient_divisions", None)
    if lines is None:  # once per scope
        scope = w.func if w.func is not None else w.fa.tree
        lines = [n.lineno for n in ast.walk(scope) if _divides_a_gradient(n)]
        w._gradient_divisions = lines  # type: ignore[attr-defined]
    return any(line - 8 <= n < line for n in lines)


def _divides_a_gradient(node: ast.AST) -> bool:
    if isinstance(node, ast.AugAssign) and isinstance(node.op, (ast.Div, ast.Mult)):
        return "grad" in (dotted(node.target) or "").split(".")
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        on_grad = "grad" in (dotted(node.func.value) or "").split(".")
        return node.func.attr in {"div_", "mul_"} and on_grad
    if isinstance(node, ast.Assign) and isinstance(node.value, ast.BinOp):
        target = dotted(node.targets[0]) or ""
        return target.endswith(".grad") and isinstance(node.value.op, ast.Div)
    return False


def _stepped_by_another(w: ScopeWalker, back: Event, step: Event, gate: tuple) -> bool:
    """Another optimizer steps right after ``back`` on every iteration (TD3's critics step
    each iteration, its actor every ``policy_delay``): those gradients are that step's."""
    for e in w.events[back.seq + 1 :]:
        if e.kind == BACKWARD:
            return False
        if e.kind == STEP and gate not in e.path and e.receiver != step.receiver:
            return True
    return False


def _accumulating_backwards(w: ScopeWalker, step: Event) -> list[Event]:
    found: list[Event] = []
    home = step.loops[-1] if step.loops else None
    if home is not None:
        gates = [
            (if_id, branch)
            for if_id, branch in step.path
            if branch == 0 and home in w.ifs[if_id].loops and _has_modulo(w.ifs[if_id].node.test)  # type: ignore[attr-defined]
        ]
        if gates:
            gate = gates[0]
            found += [
                e
                for e in events_in(w, home)
                if e.kind == BACKWARD
                and gate not in e.path
                and compatible(e.path, step.path)
                and not e.engine  # accelerator.backward(loss) may divide by itself
                and not _stepped_by_another(w, e, step, gate)
            ]
    for e in w.events:
        if e.kind != BACKWARD or not e.loops or e.engine:
            continue
        inner = w.loops[e.loops[-1]]
        micro_before_step = inner.kind == "micro" and e.seq < step.seq
        if micro_before_step and inner.parent == home and inner.id not in step.loops:
            found.append(e)
    return found
