"""TW010's guards: an eval() that cannot leak, and training steps that do not train the model."""

from __future__ import annotations

import ast

from .. import values as V
from .._astutil import dotted, walk
from ..analysis import ScopeWalker
from ..events import BACKWARD, CALL, FORWARD, OPAQUE, STEP, Event, Summary
from ..foreign import ForeignNode
from ._common import backward_only_call, caller_key, is_training


def on_last_pass(w: ScopeWalker, e: Event, lid: int) -> bool:
    """``e`` only runs on the loop's last pass (``if i == len(loader) - 1:``): no step of
    that loop follows it; the loop around it, checked on its own, decides."""
    node = w.loops[lid].node
    index = _index_name(node)
    for if_id, branch in e.path:
        info = w.ifs.get(if_id)
        test = getattr(info.node, "test", None) if info is not None else None
        if branch != 0 or info is None or lid not in info.loops or test is None:
            continue
        if (
            isinstance(test, ast.Compare)
            and len(test.ops) == 1
            and isinstance(test.ops[0], ast.Eq)
            and index is not None
            and index in {n.id for n in walk(test) if isinstance(n, ast.Name)}
            and any(isinstance(n, ast.Call) and dotted(n.func) == "len" for n in walk(test))
        ):
            return True
    return False


def ends_the_training(w: ScopeWalker, e: Event, lid: int) -> bool:
    """The eval() is followed by ``break`` (or ``return``) in its block of the loop (early
    stopping: load the best weights, test, stop) and nothing after the loop trains: no
    training step comes after it."""
    loop = w.loops[lid].node
    if not _leaves_the_loop_after(loop, getattr(e.node, "lineno", 0)):
        return False
    end = getattr(loop, "end_lineno", None) or 10**9
    return not any(is_training(x) and getattr(x.node, "lineno", 0) > end for x in w.events)


def _leaves_the_loop_after(loop: ast.stmt, line: int) -> bool:
    """A block of ``loop`` holds the statement at ``line`` and, after it, at its own level
    or at an enclosing one inside the loop, a ``break`` or ``return``."""
    blocks = [loop.body]  # type: ignore[attr-defined]
    while blocks:
        block = blocks.pop()
        for index, stmt in enumerate(block):
            if not stmt.lineno <= line <= (stmt.end_lineno or stmt.lineno):
                continue
            later = block[index + 1 :]
            if any(isinstance(s, (ast.Break, ast.Return)) for s in later):
                return True
            if isinstance(stmt, (ast.For, ast.AsyncFor, ast.While)):
                return False  # a break there ends the inner loop only
            blocks += [getattr(stmt, name) for name in ("body", "orelse", "finalbody")
                       if isinstance(getattr(stmt, name, None), list)]  # fmt: skip
            blocks += [h.body for h in getattr(stmt, "handlers", [])]
    return False


def frozen_right_after(w: ScopeWalker, e: Event, key: str) -> bool:
    """The eval()'d model has its parameters frozen on the next lines: a fixed reference
    (a previous round's model, a teacher), not a model this loop trains."""
    line = getattr(e.node, "lineno", 0)
    scope = w.func if w.func is not None else w.fa.tree
    for node in walk(scope):
        if not line < getattr(node, "lineno", 0) <= line + 3:
            continue
        if (
            isinstance(node, ast.For)
            and isinstance(node.iter, ast.Call)
            and dotted(node.iter.func) in {f"{key}.parameters", f"{key}.named_parameters"}
            and any(
                isinstance(n, ast.Assign)
                and isinstance(n.value, ast.Constant)
                and n.value.value is False
                and any(getattr(t, "attr", None) == "requires_grad" for t in n.targets)
                for n in walk(node)
            )
        ):
            return True
        if (
            isinstance(node, ast.Call)
            and dotted(node.func) == f"{key}.requires_grad_"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and node.args[0].value is False
        ):
            return True
    return False


def _index_name(loop: ast.AST) -> str | None:
    """``i`` of ``for i, x in enumerate(...)`` or ``for i in range(...)``."""
    target = getattr(loop, "target", None)
    if isinstance(target, ast.Tuple) and target.elts and isinstance(target.elts[0], ast.Name):
        return target.elts[0].id
    return target.id if isinstance(target, ast.Name) else None


def steps_another_model(w: ScopeWalker, seq: list[Event], index: int, key: str) -> bool:
    """The step at ``index`` (a backward(): the step that follows it, past the loss's
    logging and clipping) is an optimizer's over another model's parameters (``opt_d =
    Adam(self.d.parameters())`` after the policy's rollout in eval())."""
    for e in seq[index:]:
        if e.kind == STEP:
            value = w.lookup(e.receiver)
            alias = value.alias if value is not None else None
            # (a part of the model, ``Adam(net.img_encoder.parameters())``, is the model's:
            # net.eval() puts it in eval mode too)
            return (
                alias is not None
                and alias != key
                and not key.startswith(f"{alias}.")
                and not alias.startswith(f"{key}.")
            )
        if e.kind == CALL and trains(e):
            return False  # a step of some other code between: whose, it does not say
    return False


def trains(e: Event) -> bool:
    return e.summary is not None and e.summary.trains


def runs(e: Event, key: str) -> bool:
    """The training step ``e`` may run the model ``key``: a step of this scope, or a call
    that is handed the model or reaches it itself (``warmup(net1)`` does not run net2)."""
    if e.kind != CALL or e.summary is None:
        return True
    if key in e.args:
        return not _only_held(e, key)
    touched = set(e.summary.forwards) | set(e.summary.modes) | set(e.summary.sched_steps)
    if not touched and _of_another_file(e.summary):
        # another file's function keeps only what it does to its parameters: a helper that
        # trains a head of its own (``train_clf(X, y, ...)``) runs none of the caller's models
        return False
    return any(caller_key(e, k) in {key, None} for k in touched) or not touched


def _only_held(e: Event, key: str) -> bool:
    """``update(loader, model, optimizer, swa_model)`` that only averages weights into
    ``swa_model``: the callee neither sets its mode, nor runs it, nor lets it reach a
    backward(), a return or code out of sight (its value has no fate there)."""
    assert e.summary is not None
    params = [p for p, k in e.argmap.items() if V.normalize_receiver(k) == key]
    touched = set(e.summary.forwards) | set(e.summary.modes) | set(e.summary.sched_steps)
    return bool(params) and all(
        p in e.summary.param_fates and not e.summary.param_fates[p] and p not in touched
        for p in params
    )


def _of_another_file(summary: Summary) -> bool:
    return any(isinstance(n, ForeignNode) for n in (*summary.backward, *summary.steps))


# the model's own training step, and its mode, come after an attack's backward()
attack_only = backward_only_call


def backward_of_other_models(seq: list[Event], index: int, key: str) -> bool:
    """The backward() at ``index`` is of a loss built from other models' forwards only: since
    the previous backward or step, forwards of other models ran, and none of ``key`` nor a
    call handed it (``fusehead.eval()`` in a fine-tuning phase, then the next pass's first
    phase trains ``fuse`` and ``head``: the eval()'d copy is not in that step)."""
    if seq[index].kind == STEP:  # the step of that backward()
        index = next((i for i in range(index - 1, -1, -1) if seq[i].kind == BACKWARD), index)
    if seq[index].kind != BACKWARD:
        return False
    others = False
    for e in reversed(seq[:index]):
        if e.kind in {BACKWARD, STEP}:
            break
        if e.kind == FORWARD:
            if e.receiver is None or _same_model(e.receiver, key):
                return False
            others = True
        elif e.kind in {CALL, OPAQUE} and any(_same_model(a, key) for a in e.args):
            return False
        elif e.kind == CALL and (e.summary is None or e.summary.forwards):
            return False  # a helper that runs forwards of its own: who knows which
    return others


def _same_model(name: str, key: str) -> bool:
    return name == key or name.startswith((f"{key}.", f"{key}[")) or key.startswith(f"{name}.")


def trains_a_copy_in_its_own_mode(e: Event, key: str) -> bool:
    """``local.train(net=copy.deepcopy(net_glob))`` where ``train`` puts its ``net`` in a
    mode of its own first: the copy it trains does not inherit the eval() of ``key``
    (a copy that it does not put in train() does: deepcopy keeps the mode)."""
    if e.kind != CALL or e.summary is None or not isinstance(e.node, ast.Call):
        return False
    call = e.node
    handed = list(zip(e.summary.params, call.args, strict=False))
    handed += [(kw.arg, kw.value) for kw in call.keywords if kw.arg]
    return any(
        _copy_of(arg, key) and param in e.summary.modes and e.summary.modes[param].first is not None
        for param, arg in handed
    )


def _copy_of(arg: ast.expr, key: str) -> bool:
    """``deepcopy(key)``, ``copy.deepcopy(key).to(device)``."""
    while (
        isinstance(arg, ast.Call)
        and isinstance(arg.func, ast.Attribute)
        and arg.func.attr in {"to", "cuda", "cpu", "float", "half"}
    ):
        arg = arg.func.value
    if not (isinstance(arg, ast.Call) and arg.args):
        return False
    called = dotted(arg.func) or ""
    return called.rpartition(".")[2] == "deepcopy" and dotted(arg.args[0]) == key


def in_another_arm(w: ScopeWalker, path: tuple, eval_path: tuple, lid: int | None) -> bool:
    """``path`` runs in another arm of an ``if`` of loop ``lid`` itself that the eval() runs
    in: the two cannot both run in one pass of that loop (in an inner loop they can: the
    next batch takes the other arm)."""
    arms = dict(eval_path)
    return any(
        if_id in arms
        and arm != arms[if_id]
        and lid is not None
        and if_id in w.ifs
        and w.ifs[if_id].loops[-1:] == (lid,)
        for if_id, arm in path
    )
