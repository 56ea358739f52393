"""TW017: gradients accumulated over several backward() calls per step() with the loss
not divided by the number of accumulation steps.
"""

from __future__ import annotations

import ast

from .. import values as V
from .._astutil import dotted, last_part, walk
from ..analysis import ScopeWalker
from ..events import BACKWARD, CALL, STEP, ZERO, Event, compatible
from ._accumulation_average_examples import COUNTER_EXAMPLES
from ._accumulation_average_examples import EXAMPLES as AVERAGE_EXAMPLES
from ._accumulation_countdown import EXAMPLES as COUNTDOWN_EXAMPLES
from ._accumulation_countdown import countdown_start, counted_by_one, opens_a_countdown
from ._accumulation_divisor import k_divides_something, mentions
from ._accumulation_examples import EXAMPLES
from ._accumulation_flags import EXAMPLES as FLAG_EXAMPLES
from ._accumulation_flags import flag_gate_divisor
from ._common import events_in, report
from ._registry import Rule, scope_check

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
    examples=EXAMPLES + COUNTDOWN_EXAMPLES + FLAG_EXAMPLES + AVERAGE_EXAMPLES + COUNTER_EXAMPLES,
)


def _has_modulo(node: ast.AST) -> bool:
    """``i % k`` with k not the literal 1 (``(ct + 1) % 1 == 0`` holds every iteration)."""
    return any(
        isinstance(n, ast.BinOp)
        and isinstance(n.op, ast.Mod)
        and not (isinstance(n.right, ast.Constant) and n.right.value == 1)
        for n in walk(node)
    )


def _is_accumulation_gate(test: ast.AST, loop: ast.stmt) -> bool:
    """``if (i + 1) % k == 0``, or a counter of the loop compared with k:
    ``count += 1`` ... ``if count >= k: count = 0; optimizer.step()``, or a flag the loop
    sets from such a test: ``update = (i + 1) % k == 0`` ... ``if update:``."""
    if _has_modulo(test) or bool(_flag_sources(test, loop)):
        return True
    if countdown_start(test, loop) is not None:
        return True  # left -= 1 ... if not left: step(); left = k
    return any(name in _reset_counters(loop) for name in _compared_names(test))


def _flag_sources(test: ast.AST, loop: ast.stmt) -> list[ast.expr]:
    """The modulo tests a flag ``test`` is set from in ``loop``: ``update = i % k == 0``,
    or ``update = True`` in the arm of ``if i % k == 0`` (``elif`` included)."""
    if not isinstance(test, ast.Name):
        return []
    sources: list[ast.expr] = []
    for node in walk(loop):
        if isinstance(node, ast.Assign) and _assigns_name(node, test.id):
            if _has_modulo(node.value):
                sources.append(node.value)
        elif isinstance(node, ast.If) and _has_modulo(node.test):
            sets_true = any(
                isinstance(s, ast.Assign)
                and _assigns_name(s, test.id)
                and isinstance(s.value, ast.Constant)
                and s.value.value is True
                for s in node.body
            )
            if sets_true:
                sources.append(node.test)
    return sources


def _assigns_name(node: ast.Assign, name: str) -> bool:
    return any(isinstance(t, ast.Name) and t.id == name for t in node.targets)


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
    for node in walk(loop):
        if counted_by_one(node, ast.Add):
            counted.add(dotted(node.target) or "")  # type: ignore[attr-defined]
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
        undivided = k is not None and not k_divides_something(w, k)
        divided = _divided_containers(w.func or w.fa.tree, k) if k is not None else set()
        for back in _accumulating_backwards(w, step, gate):
            if _root_name(back.node) in divided:
                continue  # loss[key] = v / k over the dict's items, then loss["lm"].backward()
            if k is not None and _without_accumulation(w, back, k):
                continue  # if k > 1: loss = loss / k ... else: loss.backward()
            for node in _unscaled_nodes(back, undivided or _undivided_micro_loop(w, back, gate)):
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


def _without_accumulation(w: ScopeWalker, back: Event, k: ast.expr) -> bool:
    """The backward() runs only in an arm where k is 1: ``else`` of ``if k > 1:``, the
    body of ``if k == 1:``: one backward per step there."""
    name = dotted(k)
    for if_id, branch in back.path:
        test = _test_of(w, if_id)
        if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
            continue
        bound = test.comparators[0]
        if dotted(test.left) != name or not isinstance(bound, ast.Constant):
            continue
        op, value = type(test.ops[0]), bound.value
        at_most_one = (op is ast.Gt and value == 1) or (op is ast.GtE and value == 2)
        just_one = (op is ast.Eq and value == 1) or (op is ast.LtE and value == 1)
        if (at_most_one and branch == 1) or (just_one and branch == 0):
            return True
    return False


def _undivided_micro_loop(w: ScopeWalker, back: Event, gate: tuple[int, int] | None) -> bool:
    """``for a in range(virtual_batch_size): ... loss.backward()`` before the step: k is the
    loop's count, and nothing in the file is divided by it."""
    if gate is not None or not back.loops:
        return False
    loop = w.loops[back.loops[-1]]
    iterated = getattr(loop.node, "iter", None)
    if _a_models_micro_batches(w, iterated):
        # for out in model(**batch): out.loss.backward(): a pipeline-parallel model yields
        # one output per micro-batch, each loss a micro-batch's mean
        scaled = back.value is not None and V.SCALED in back.value.flags
        return not scaled and not _divided_in_the_loop(loop.node, back.node)
    if loop.kind != "micro" or not (isinstance(iterated, ast.Call) and iterated.args):
        return False
    if dotted(iterated.func) != "range" or len(iterated.args) > 1 or not dotted(iterated.args[0]):
        return False  # range(0, n, micro): the count is not a name
    if back.value is not None and V.SCALED in back.value.flags:
        return False  # loss * micro / batch_size: scaled, by whatever
    return not k_divides_something(w, iterated.args[0])


def _divided_in_the_loop(loop: ast.AST, backward: ast.AST) -> bool:
    """``(out.loss / n).backward()``, or ``loss = out.loss / n`` before ``loss.backward()``."""
    loss = backward.func.value if isinstance(backward, ast.Call) else None  # type: ignore[attr-defined]
    scaled = (ast.Div, ast.Mult)
    if isinstance(loss, ast.BinOp):
        return isinstance(loss.op, scaled)
    return isinstance(loss, ast.Name) and any(
        isinstance(n, ast.Assign)
        and any(isinstance(t, ast.Name) and t.id == loss.id for t in n.targets)
        and isinstance(n.value, ast.BinOp)
        and isinstance(n.value.op, scaled)
        for n in walk(loop)
    )


def _a_models_micro_batches(w: ScopeWalker, iterated: ast.expr | None) -> bool:
    """The loop runs over what a call of the model yields (its outputs, micro-batch by
    micro-batch), not over data."""
    if not isinstance(iterated, ast.Call):
        return False
    value = w.lookup(dotted(iterated.func) or "")
    return value is not None and value.kind == V.MODEL


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
        return _gate_of_a_call(w, step)
    for if_id, branch in step.path:
        node = w.ifs[if_id].node
        in_home = branch == 0 and home in w.ifs[if_id].loops
        if in_home and _is_accumulation_gate(node.test, w.loops[home].node):  # type: ignore[attr-defined]
            return (if_id, branch)
    return None


def _gate_of_a_call(w: ScopeWalker, step: Event) -> tuple[int, int] | None:
    """A function called once per micro-batch, with no loop of its own, that steps when
    the batch index it is given passes ``if batch_idx % k == k - 1:``, or when its caller
    tells it to (``should_step=(i + 1) % k == 0``)."""
    if w.func is None:
        return None
    params = {a.arg for a in (*w.func.args.posonlyargs, *w.func.args.args)}
    for if_id, branch in step.path:
        test = _test_of(w, if_id)
        if test is None:
            continue
        counted = [
            n.left for n in walk(test) if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Mod)
        ]
        if branch == 0 and _has_modulo(test) and any(mentions(c, params) for c in counted):
            return (if_id, branch)
        if branch == 0 and flag_gate_divisor(test, w.func, w.fa.nodes) is not None:
            return (if_id, branch)
    return None


def _divisor(w: ScopeWalker, gate: tuple[int, int] | None) -> ast.expr | None:
    """k of the gate, when it is a setting (``args.accum_steps``), not a literal."""
    if gate is None:
        return None
    test = w.ifs[gate[0]].node.test  # type: ignore[attr-defined]
    loops = w.ifs[gate[0]].loops
    if not loops and w.func is not None:
        passed = flag_gate_divisor(test, w.func, w.fa.nodes)
        if passed is not None:
            return passed
    flags = _flag_sources(test, w.loops[loops[-1]].node) if loops else []  # type: ignore[attr-defined]
    test = flags[0] if flags else test
    start = countdown_start(test, w.loops[loops[-1]].node) if loops else None
    if start is not None:
        return start
    for node in walk(test):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
            return node.right if dotted(node.right) else None
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        right = test.comparators[0]
        return right if dotted(right) else None
    return None


def _divided_containers(scope: ast.AST, k: ast.expr) -> set[str]:
    """Dicts and lists whose entries the scope sets to something divided by k."""
    tokens = {last_part(dotted(k) or "")}
    return {
        dotted(target.value) or ""
        for node in walk(scope)
        if isinstance(node, ast.Assign)
        and isinstance(node.value, ast.BinOp)
        and isinstance(node.value.op, ast.Div)
        and mentions(node.value.right, tokens)
        for target in node.targets
        if isinstance(target, ast.Subscript)
    } - {""}


def _root_name(call: ast.AST) -> str | None:
    """``loss``, of ``loss["lm"].backward()``."""
    node = (
        call.func.value
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
        else None
    )
    while isinstance(node, ast.Subscript):
        node = node.value
    return dotted(node) if node is not None else None


def _gradients_divided_before(w: ScopeWalker, step: Event) -> bool:
    """The gradients are divided by hand in the lines just before the step:
    ``p.grad /= k``, ``p.grad.div_(k)``, ``p.grad = p.grad / k``."""
    line = getattr(step.node, "lineno", 0)
    lines = getattr(w, "_gradient_divisions", None)
    if lines is None:  # once per scope
        scope = w.func if w.func is not None else w.fa.tree
        lines = [n.lineno for n in walk(scope) if _divides_a_gradient(n)]
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
        if not (compatible(e.path, back.path) and compatible(e.path, step.path)):
            continue  # the other arm of an if: never runs in the same iteration
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
        branch == gate[1] and ast.dump(_test_of(w, if_id) or ast.Pass()) == test
        for if_id, branch in e.path
    )


def _cleared_before(w: ScopeWalker, back: Event, home: int | None, gate: tuple[int, int]) -> bool:
    """A zero_grad() on every iteration before ``back``: nothing accumulates across
    iterations (REDQ's critics clear their gradients each update; the actor steps every d).
    One under an accumulation gate of its own (``if i % k == 0: opt.zero_grad()``) opens
    the window; it does not clear each iteration."""
    return any(
        e.kind == ZERO
        and e.seq < back.seq
        and (home in e.loops if home is not None else not e.loops)
        and not _gated_alike(w, e, gate)
        and not _opens_a_window(w, e, home)
        and compatible(e.path, back.path)
        for e in w.events
    )


def _cleared_when_stepping(w: ScopeWalker, back: Event, step: Event, home: int | None) -> bool:
    """A zero_grad() under the step's very test, before ``back`` (``if (it + 1) % k == 0:
    opt.zero_grad()`` ... ``backward()`` ... ``if (it + 1) % k == 0: opt.step()``): the
    passes that step clear first, so each step sees one backward's gradients; the others'
    are thrown away, not accumulated."""
    step_tests = _tests_on(w, step)
    return any(
        e.kind == ZERO
        and e.seq < back.seq
        and (home in e.loops if home is not None else not e.loops)
        and _tests_on(w, e) & step_tests
        and compatible(e.path, back.path)
        for e in w.events
    )


def _tests_on(w: ScopeWalker, e: Event) -> set[str]:
    """The tests of the ifs around ``e`` whose arm it is in (their dumps)."""
    return {
        ast.dump(test)
        for if_id, branch in e.path
        if branch == 0 and (test := _test_of(w, if_id)) is not None and _has_modulo(test)
    }


def _opens_a_window(w: ScopeWalker, zero: Event, home: int | None) -> bool:
    for if_id, branch in zero.path:
        info = w.ifs[if_id]
        in_home = home in info.loops if home is not None else not info.loops
        test = _test_of(w, if_id)
        if branch == 0 and in_home and test is not None and _has_modulo(test):
            return True
        countdown = home is not None and test is not None
        if branch == 0 and countdown and opens_a_countdown(test, w.loops[home].node):
            return True
    return False


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
    if gate is not None:
        scope = events_in(w, home) if home is not None else [e for e in w.events if not e.loops]
        found += [
            e
            for e in scope
            if _backward_of_the_loop(e)
            and (home is not None or e.seq < step.seq)
            and not _gated_alike(w, e, gate)
            and compatible(e.path, step.path)
            and not e.engine  # accelerator.backward(loss) may divide by itself
            and not _stepped_by_another(w, e, step, gate)
            and not _cleared_before(w, e, home, gate)
            and not _cleared_when_stepping(w, e, step, home)
        ]
    for e in w.events:
        if e.kind != BACKWARD or not e.loops or e.engine:
            continue
        inner = w.loops[e.loops[-1]]
        micro = inner.kind == "micro" or _a_models_micro_batches(
            w, getattr(inner.node, "iter", None)
        )
        micro_before_step = micro and e.seq < step.seq
        if micro_before_step and inner.parent == home and inner.id not in step.loops:
            found.append(e)
    return found


def _test_of(w: ScopeWalker, if_id: int) -> ast.expr | None:
    """The test of an ``if`` on an event's path (``None`` for a ``match`` case)."""
    node = w.ifs[if_id].node
    return node.test if isinstance(node, ast.If) else None
