"""TW017: gradients accumulated over several backward() calls per step() with the loss
not divided by the number of accumulation steps.
"""

from __future__ import annotations

import ast

from .. import values as V
from .._astutil import dotted, last_part
from ..analysis import ScopeWalker
from ..events import BACKWARD, CALL, STEP, ZERO, Event, compatible
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
        Example(
            # a counter of the loop, set back to zero at each step, is the accumulation gate
            "a_counter_gate_unscaled",
            """\
            def fit(model, loader, optimizer, criterion, accum_steps):
                count = 0
                for x, y in loader:
                    loss = criterion(model(x), y)
                    loss.backward()
                    count += 1
                    if count >= accum_steps:
                        count = 0
                        optimizer.step()
                        optimizer.zero_grad()
            """,
            [(5, "TW017")],
        ),
        Example(
            "a_counter_gate_scaled",
            """\
            def fit(model, loader, optimizer, criterion, accum_steps):
                count = 0
                for x, y in loader:
                    loss = criterion(model(x), y) / accum_steps
                    loss.backward()
                    count += 1
                    if count >= accum_steps:
                        count = 0
                        optimizer.step()
                        optimizer.zero_grad()
            """,
            [],
        ),
        Example(
            # the backward() runs in a method the epoch loop calls, the step in the loop
            "a_helper_of_the_file_backpropagates_each_batch",
            """\
            class Trainer:
                def train_batch(self, x, y):
                    loss = F.cross_entropy(self.model(x), y)
                    loss.backward()
                    return loss.item()

                def train_epoch(self, loader):
                    for i, (x, y) in enumerate(loader):
                        self.train_batch(x, y)
                        if (i + 1) % self.iter_size == 0:
                            self.optimizer.step()
                            self.optimizer.zero_grad()
            """,
            [(4, "TW017")],
        ),
        Example(
            # a loss of unseen origin, and k divides nothing in the file
            "k_divides_nothing_in_the_file",
            """\
            def fit(model, loader, optimizer, args):
                steps_per_epoch = len(loader) / args.accumulation_steps
                for step, batch in enumerate(loader):
                    results = model.train_step(batch)
                    loss = results["loss"]
                    loss.backward()
                    if (step + 1) % args.accumulation_steps == 0:
                        optimizer.step()
                        optimizer.zero_grad()
            """,
            [(6, "TW017")],
        ),
        Example(
            "k_divides_the_loss_through_another_name",
            """\
            def fit(model, loader, optimizer, args):
                ga = args.accumulation_steps
                for step, batch in enumerate(loader):
                    loss = model.train_step(batch)["loss"]
                    (loss / ga).backward()
                    if (step + 1) % args.accumulation_steps == 0:
                        optimizer.step()
                        optimizer.zero_grad()
            """,
            [],
        ),
        Example(
            # compute_loss is handed k: it may divide by it
            "k_handed_to_the_function_that_makes_the_loss",
            """\
            def fit(model, loader, optimizer, args):
                for step, batch in enumerate(loader):
                    loss = compute_loss(model, batch, args.accumulation_steps)
                    loss.backward()
                    if (step + 1) % args.accumulation_steps == 0:
                        optimizer.step()
                        optimizer.zero_grad()
            """,
            [],
        ),
        Example(
            # the critics clear their gradients every update; the actor steps every d updates
            "a_delayed_update_whose_other_losses_are_cleared_each_iteration",
            """\
            def update(agent, batches, d):
                for i, batch in enumerate(batches):
                    for opt in agent.q_optimizers:
                        opt.zero_grad()
                    q_loss = agent.q_loss(batch)
                    q_loss.backward()
                    if (i + 1) % d == 0:
                        agent.policy_optimizer.zero_grad()
                        agent.policy_loss(batch).backward()
                    for opt in agent.q_optimizers:
                        opt.step()
                    if (i + 1) % d == 0:
                        agent.policy_optimizer.step()
            """,
            [],
        ),
    ),
)


def _has_modulo(node: ast.AST) -> bool:
    return any(isinstance(n, ast.BinOp) and isinstance(n.op, ast.Mod) for n in ast.walk(node))


def _is_accumulation_gate(test: ast.AST, loop: ast.stmt) -> bool:
    """``if (i + 1) % k == 0``, or a counter of the loop compared with k:
    ``count += 1`` ... ``if count >= k: count = 0; optimizer.step()``."""
    return _has_modulo(test) or any(name in _reset_counters(loop) for name in _compared_names(test))


def _compared_names(test: ast.AST) -> list[str]:
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return []
    if not isinstance(test.ops[0], (ast.Eq, ast.GtE, ast.Gt)):
        return []
    return [n for n in (dotted(test.left), dotted(test.comparators[0])) if n]


def _reset_counters(loop: ast.stmt) -> set[str]:
    """Names the loop counts up by one and sets back to zero: an accumulation counter."""
    counted: set[str] = set()
    reset: set[str] = set()
    for node in ast.walk(loop):
        if (
            isinstance(node, ast.AugAssign)
            and isinstance(node.op, ast.Add)
            and isinstance(node.value, ast.Constant)
            and node.value.value == 1
        ):
            counted.add(dotted(node.target) or "")
        elif _assigns_zero(node):
            reset.add(dotted(node.targets[0]) or "")  # type: ignore[attr-defined]
    return (counted & reset) - {""}


def _assigns_zero(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Assign)
        and len(node.targets) == 1
        and isinstance(node.value, ast.Constant)
        and node.value.value == 0
    )


@scope_check(TW017)
def check_accumulation_scaling(w: ScopeWalker) -> None:
    """TW017: backward() every micro-batch, step() every k, loss never divided."""
    flagged: set[int] = set()
    for step in (e for e in w.events if e.kind == STEP):
        if _gradients_divided_before(w, step):
            continue  # for p in model.parameters(): p.grad /= k (the average, by hand)
        gate = _gate_of(w, step)
        k = _divisor(w, gate)
        undivided = k is not None and not _divides_anything(w.fa.tree, k)
        for back in _accumulating_backwards(w, step, gate):
            for node in _unscaled_nodes(back, undivided):
                if id(node) in flagged:
                    continue
                flagged.add(id(node))
                report(
                    w,
                    "TW017",
                    node,
                    "gradients are accumulated over several "
                    "backward() calls per step but the loss is not divided by the number "
                    "of accumulation steps",
                )


def _unscaled_nodes(back: Event, undivided: bool) -> list:
    """The backward() calls of ``back`` whose loss is not divided by k: a loss straight
    from its criterion, or any loss when k divides nothing in the file."""
    if back.kind == BACKWARD:
        return [back.node] if undivided or V.unscaled_loss(back.value) else []
    summary = back.summary  # self.loss_backpass(loss): a function of this file backpropagates
    if summary is None:
        return []
    return list(summary.backward) if undivided else list(summary.unscaled_backward)


def _gate_of(w: ScopeWalker, step: Event) -> tuple[int, int] | None:
    """The if around ``step`` that lets it run every k micro-batches of its loop."""
    home = step.loops[-1] if step.loops else None
    if home is None:
        return None
    for if_id, branch in step.path:
        node = w.ifs[if_id].node
        in_home = branch == 0 and home in w.ifs[if_id].loops
        if in_home and _is_accumulation_gate(node.test, w.loops[home].node):  # type: ignore[attr-defined]
            return (if_id, branch)
    return None


def _divisor(w: ScopeWalker, gate: tuple[int, int] | None) -> ast.expr | None:
    """k of the gate, when it is a setting (``args.accum_steps``), not a literal."""
    if gate is None:
        return None
    test = w.ifs[gate[0]].node.test  # type: ignore[attr-defined]
    for node in ast.walk(test):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
            return node.right if dotted(node.right) else None
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        right = test.comparators[0]
        return right if dotted(right) else None
    return None


# Integer arithmetic with k (``len(loader) // k``, ``total_steps / k``) is no loss scaling.
_COUNT_WORDS = ("step", "epoch", "iter", "total", "num", "count", "len", "size", "batch")


def _divides_anything(tree: ast.AST, k: ast.expr) -> bool:
    """Does k (or a name bound to it) divide anything but a count in the file, or go to a
    call that may divide by it (``compute_loss(batch, accum_steps)``)?"""
    tokens = {last_part(dotted(k) or "")}
    for node in ast.walk(tree):  # ga = args.accum_steps: ga divides for it
        if isinstance(node, ast.Assign) and _mentions(node.value, tokens):
            tokens |= {last_part(dotted(t) or "") for t in node.targets} - {""}
    for node in ast.walk(tree):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
            if _mentions(node.right, tokens) and not _a_count(node.left):
                return True
        elif isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Div):
            if _mentions(node.value, tokens):
                return True
        elif isinstance(node, ast.Call):
            name = last_part(dotted(node.func) or "")
            args = [*node.args, *(kw.value for kw in node.keywords)]
            if name in {"div", "div_", "true_divide"} and any(_mentions(a, tokens) for a in args):
                return True
            if name not in _HARMLESS_CALLS and any(
                isinstance(a, (ast.Name, ast.Attribute)) and _mentions(a, tokens) for a in args
            ):
                return True
    return False


_HARMLESS_CALLS = {"range", "print", "format", "int", "float", "str", "len", "max", "min",
                   "info", "debug", "warning", "log", "add_scalar", "write", "append"}  # fmt: skip


def _mentions(node: ast.AST, tokens: set[str]) -> bool:
    return any(
        isinstance(n, (ast.Name, ast.Attribute)) and last_part(dotted(n) or "") in tokens
        for n in ast.walk(node)
    )


def _a_count(node: ast.expr) -> bool:
    if isinstance(node, ast.Call) and dotted(node.func) == "len":
        return True
    name = last_part(dotted(node) or "").lower()
    return any(word in name for word in _COUNT_WORDS)


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
        if e.kind == BACKWARD and not _gated_alike(w, e, gate):
            return False
        if e.kind == STEP and not _gated_alike(w, e, gate) and e.receiver != step.receiver:
            return True
    return False


def _gated_alike(w: ScopeWalker, e: Event, gate: tuple[int, int]) -> bool:
    """``e`` runs under the gate, or under an if of the same test (REDQ's policy update and
    its step sit in two ifs of ``(i + 1) % policy_update_delay == 0``)."""
    if gate in e.path:
        return True
    test = ast.dump(w.ifs[gate[0]].node.test)  # type: ignore[attr-defined]
    return any(
        branch == gate[1] and ast.dump(w.ifs[if_id].node.test) == test  # type: ignore[attr-defined]
        for if_id, branch in e.path
    )


def _cleared_before(w: ScopeWalker, back: Event, home: int, gate: tuple[int, int]) -> bool:
    """A zero_grad() on every iteration before ``back``: nothing accumulates across
    iterations (REDQ's critics clear their gradients each update; the actor steps every d)."""
    return any(
        e.kind == ZERO
        and e.seq < back.seq
        and home in e.loops
        and not _gated_alike(w, e, gate)
        and compatible(e.path, back.path)
        for e in w.events
    )


def _backward_of_the_loop(e: Event) -> bool:
    """A backward() call, or the call of a function of this file that runs one without
    stepping (``trainer.inference_one_batch(batch, "train")``)."""
    if e.kind == BACKWARD:
        return True
    summary = e.summary
    return e.kind == CALL and summary is not None and bool(summary.backward) and not summary.steps


def _accumulating_backwards(
    w: ScopeWalker, step: Event, gate: tuple[int, int] | None
) -> list[Event]:
    found: list[Event] = []
    home = step.loops[-1] if step.loops else None
    if home is not None and gate is not None:
        found += [
            e
            for e in events_in(w, home)
            if _backward_of_the_loop(e)
            and not _gated_alike(w, e, gate)
            and compatible(e.path, step.path)
            and not e.engine  # accelerator.backward(loss) may divide by itself
            and not _stepped_by_another(w, e, step, gate)
            and not _cleared_before(w, e, home, gate)
        ]
    for e in w.events:
        if e.kind != BACKWARD or not e.loops or e.engine:
            continue
        inner = w.loops[e.loops[-1]]
        micro_before_step = inner.kind == "micro" and e.seq < step.seq
        if micro_before_step and inner.parent == home and inner.id not in step.loops:
            found.append(e)
    return found
