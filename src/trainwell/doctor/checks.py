"""The rules, expressed over the events and values recorded by :mod:`.analysis`.

Every check is written to stay silent when the structure is not fully understood: an
unknown call that receives the model, a branch that may or may not run, a schedule whose
unit cannot be read from the source.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator

from . import values as V
from ._astutil import dotted, last_part
from .analysis import (
    BACKWARD,
    CALL,
    CLIP,
    EVAL,
    FORWARD,
    MODE_UNKNOWN,
    OPAQUE,
    SCHED,
    STEP,
    TRAIN,
    UNSCALE,
    ZERO,
    Event,
    FileAnalysis,
    ForeignNode,
    ModeEffect,
    RawFinding,
    ScopeWalker,
    Summary,
    _own_nodes,
    compatible,
    is_prefix,
)
from .values import Value

# Calls that certainly do not change a model's train/eval mode even though they receive it.
_HARMLESS_CALLS = {
    "print", "len", "isinstance", "str", "repr", "type", "id", "hasattr", "getattr", "float",
    "int", "sum", "enumerate", "zip", "range", "list", "dict", "tuple", "max", "min", "abs",
    "round", "sorted", "format", "iter", "next", "vars",
}  # fmt: skip
# nn modules without parameters or train/eval behaviour: a plain list of these is harmless.
_STATELESS_MODULES = {
    "ReLU", "ReLU6", "GELU", "SiLU", "Tanh", "Sigmoid", "LeakyReLU", "ELU", "SELU", "CELU",
    "Mish", "Hardswish", "Hardsigmoid", "Hardtanh", "Softplus", "Identity", "Flatten",
    "Unflatten", "Softmax", "LogSoftmax", "MaxPool1d", "MaxPool2d", "MaxPool3d", "AvgPool1d",
    "AvgPool2d", "AvgPool3d", "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveAvgPool3d",
    "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "Upsample", "PixelShuffle", "Tanhshrink",
}  # fmt: skip
_CONTAINERS = {"ModuleList", "ModuleDict", "Sequential", "ParameterList", "ParameterDict"}


# -- small predicates over events ---------------------------------------------------------
def is_backward(e: Event) -> bool:
    return e.kind == BACKWARD or (e.kind == CALL and e.summary is not None and
                                  bool(e.summary.backward))  # fmt: skip


def is_step(e: Event) -> bool:
    return e.kind == STEP or (e.kind == CALL and e.summary is not None and bool(e.summary.steps))


def is_zero(e: Event) -> bool:
    return e.kind == ZERO or (e.kind == CALL and e.summary is not None and e.summary.zero_grad)


def is_training(e: Event) -> bool:
    return e.kind in {BACKWARD, STEP} or (
        e.kind == CALL and e.summary is not None and e.summary.trains
    )


def events_in(w: ScopeWalker, loop_id: int) -> list[Event]:
    return [e for e in w.events if loop_id in e.loops]


def iteration_events(w: ScopeWalker, e: Event) -> list[Event]:
    """The events of the iteration ``e`` belongs to (its innermost loop, or the function)."""
    if e.loops:
        return events_in(w, e.loops[-1])
    return [x for x in w.events if not x.loops]


def caller_key(e: Event, key: str) -> str | None:
    """Translate a name used inside a called function into the caller's name for it."""
    assert e.summary is not None
    if key in e.argmap:
        return V.normalize_receiver(e.argmap[key])
    if key.startswith("self."):
        return key if e.same_class else None
    if key in e.summary.params:
        return None
    return key  # a module-level global seen by both


def mode_effects(w: ScopeWalker, e: Event) -> Iterator[tuple[str, ModeEffect]]:
    """(model name, effect) pairs for an event: eval()/train() or a call that changes modes."""
    if e.kind in {EVAL, TRAIN, MODE_UNKNOWN} and e.receiver:
        final = {EVAL: "eval", TRAIN: "train", MODE_UNKNOWN: "unknown"}[e.kind]
        yield e.receiver, ModeEffect(final=final)
    elif e.kind == CALL and e.summary is not None:
        for key, effect in e.summary.modes.items():
            mapped = caller_key(e, key)
            if mapped:
                yield mapped, effect
    elif e.kind in {CALL, OPAQUE}:
        func = e.node.func if isinstance(e.node, ast.Call) else None
        if dotted(func) in _HARMLESS_CALLS:
            return
        for arg in e.args:
            yield w.model_key(arg) or arg, ModeEffect(final="unknown")


# -- summaries ----------------------------------------------------------------------------
def summarize(w: ScopeWalker) -> Summary:
    """What callers of this scope need to know (see :class:`~.analysis.Summary`)."""
    summary = Summary(params=list(w.params))
    for e in w.events:
        if e.kind == BACKWARD:
            summary.backward.append(e.node)
        elif e.kind == STEP:
            summary.steps.append(e.node)
            summary.train_loop = summary.train_loop or bool(e.loops)
        elif e.kind == ZERO:
            summary.zero_grad = True
        elif e.kind == SCHED and e.receiver:
            summary.sched_steps.add(e.receiver)
        elif e.kind == CALL and e.summary is not None:
            inner = e.summary
            summary.backward += inner.backward
            summary.steps += inner.steps
            summary.zero_grad = summary.zero_grad or inner.zero_grad
            summary.train_loop = (
                summary.train_loop or inner.train_loop or (bool(e.loops) and bool(inner.steps))
            )
            summary.sched_steps |= {k for k in map(lambda s: caller_key(e, s),
                                                   inner.sched_steps) if k}  # fmt: skip
    summary.modes = _final_modes(w)
    summary.returns = _merged_returns(w.returns)
    summary.forwards = _mode_dependent_forwards(w)
    return summary


def _mode_dependent_forwards(w: ScopeWalker) -> dict[str, ast.AST]:
    """Forward passes with autograd on whose mode is the caller's (see Summary.forwards)."""
    forwards: dict[str, ast.AST] = {}
    if w.facts.grad_machinery:
        return forwards  # input gradients, saliency ...: the graph is wanted
    touched: set[str] = set()
    for e in w.events:
        if is_training(e):
            break
        if e.kind == FORWARD and e.receiver and not e.no_grad and e.receiver not in touched:
            forwards.setdefault(e.receiver, e.node)
        elif e.kind == CALL and e.summary is not None and not e.no_grad:
            for key, node in e.summary.forwards.items():
                mapped = caller_key(e, key)
                if mapped and mapped not in touched:
                    forwards.setdefault(mapped, node)
        touched |= {key for key, _ in mode_effects(w, e)}
    return forwards


def _final_modes(w: ScopeWalker) -> dict[str, ModeEffect]:
    first_training = min((e.seq for e in w.events if is_training(e)), default=len(w.events))
    modes: dict[str, ModeEffect] = {}
    for e in w.events:
        for key, effect in mode_effects(w, e):
            current = modes.setdefault(key, ModeEffect())
            final = effect.final
            if final is None:
                continue
            if (
                current.final is None
                and e.seq < first_training
                and not e.path
                and e.kind in {EVAL, TRAIN}
            ):
                current.first = final
            # A conditional switch to eval may not happen: the end state is unknown. A
            # conditional train() still counts as restoring (staying silent is the safe side).
            if e.path and final != "train":
                final = "unknown"
            current.final = final
    return modes


def _merged_returns(returns: list[Value | None]) -> Value | None:
    if not returns:
        return None
    result = returns[0]
    for value in returns[1:]:
        result = V.merge(result, value)
    return result


# -- scope checks -------------------------------------------------------------------------
def run_scope_checks(w: ScopeWalker) -> None:
    """Run every event-based rule over one walked scope."""
    check_missing_zero_grad(w)
    check_zero_grad_between(w)
    check_clipping(w)
    check_scheduler_placement(w)
    check_plateau(w)
    check_accumulation_scaling(w)
    check_eval_leak(w)
    check_step_fn_eval(w)
    collect_no_grad_candidates(w)


def _report(w: ScopeWalker, code: str, node: ast.AST, message: str) -> None:
    w.fa.report(code, node, message)


def _first_step_node(seq: Iterable[Event]) -> ast.AST | None:
    for e in seq:
        if e.kind == STEP:
            return e.node
        if e.kind == CALL and e.summary is not None and e.summary.steps:
            return e.summary.steps[0]
    return None


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
        if any(is_zero(e) for e in seq):
            continue
        node = _first_step_node(seq)
        if node is not None:
            _report(
                w,
                "TW001",
                node,
                _name(w, node) + " is called in a loop that runs "
                "backward() but never zero_grad(): gradients accumulate across iterations",
            )


def _name(w: ScopeWalker, node: ast.AST) -> str:
    if isinstance(node, ast.Call):
        return (dotted(node.func) or "step") + "()"
    return "step()"


def _descends(w: ScopeWalker, child: int, ancestor: int) -> bool:
    parent = w.loops[child].parent
    while parent is not None:
        if parent == ancestor:
            return True
        parent = w.loops[parent].parent
    return False


def check_zero_grad_between(w: ScopeWalker) -> None:
    """TW002: zero_grad() after backward() and before the step() that should use the grads."""
    events = w.events
    for index, zero in enumerate(events):
        if zero.kind != ZERO:
            continue
        step = _next_step_before_backward(events[index + 1 :], zero)
        if step is None or not _zero_matches(w, zero, step):
            continue
        if _backward_since_last_step(events[:index], zero):
            receiver = zero.receiver + "." if zero.receiver else ""
            _report(
                w,
                "TW002",
                zero.node,
                f"{receiver}zero_grad() runs after backward() and "
                f"before {_name(w, step.node)}: the step sees no gradients",
            )


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
    return step_val is None or not step_val.alias or step_val.alias == zero.receiver


def check_clipping(w: ScopeWalker) -> None:
    """TW005 (clip before backward / after step) and TW006 (clip of AMP-scaled grads)."""
    for clip in (e for e in w.events if e.kind == CLIP):
        problem = _clipping_problem(iteration_events(w, clip), clip)
        if problem is not None:
            _report(w, problem[0], clip.node, problem[1])


def _clipping_problem(seq: list[Event], clip: Event) -> tuple[str, str] | None:
    pos = seq.index(clip)
    relevant = {BACKWARD, STEP}
    before = [e for e in seq[:pos] if e.kind in relevant and compatible(e.path, clip.path)]
    after = [e for e in seq[pos + 1 :] if e.kind in relevant and compatible(e.path, clip.path)]
    prev = before[-1] if before else None
    nxt = after[0] if after else None
    no_backward_yet = prev is None or prev.kind == STEP
    backward_then_step = (
        nxt is not None and nxt.kind == BACKWARD and any(e.kind == STEP for e in after[1:])
    )
    if no_backward_yet and backward_then_step:
        return "TW005", (
            "gradients are clipped before backward(): the clipping is overwritten and the "
            "step is unclipped"
        )
    after_step = prev is not None and prev.kind == STEP and is_prefix(prev.path, clip.path)
    if after_step and (nxt is None or nxt.kind == BACKWARD):
        return "TW005", (
            "gradients are clipped after optimizer.step(): the update was already applied unclipped"
        )
    if prev is not None and prev.kind == BACKWARD and prev.amp:
        between = seq[seq.index(prev) + 1 : pos]
        next_is_scaler_step = nxt is not None and nxt.kind == STEP and nxt.amp
        if next_is_scaler_step and not any(e.kind == UNSCALE for e in between):
            return "TW006", (
                "gradients are clipped while still scaled by GradScaler: call "
                "scaler.unscale_(optimizer) before clipping"
            )
    return None


def check_scheduler_placement(w: ScopeWalker) -> None:
    """TW003 (epoch scheduler in the batch loop) and TW004 (per-step scheduler per epoch)."""
    for sched in (e for e in w.events if e.kind == SCHED and e.value is not None):
        call = sched.node
        has_args = isinstance(call, ast.Call) and bool(call.args or call.keywords)
        if V.EPOCH_BASED in sched.value.flags and not has_args:
            _check_epoch_scheduler(w, sched)
        elif V.PER_STEP in sched.value.flags and not has_args:
            _check_step_scheduler(w, sched)


def _check_epoch_scheduler(w: ScopeWalker, sched: Event) -> None:
    if not sched.loops:
        return
    loop = w.loops[sched.loops[-1]]
    steps = [e for e in events_in(w, loop.id) if e.kind == STEP and e.loops[-1] == loop.id]
    if not steps or not (loop.kind == "batch" or loop.parent is not None):
        return
    if any(is_prefix(sched.path, s.path) or _gated_by(w, sched, s) for s in steps):
        cls = sched.value.cls if sched.value else "scheduler"
        _report(
            w,
            "TW003",
            sched.node,
            f"{cls} is configured in epochs but stepped every "
            "batch: move scheduler.step() after the batch loop",
        )


def _gated_by(w: ScopeWalker, e: Event, step: Event) -> bool:
    """``e`` runs exactly when ``step`` succeeds: ``if precision.step(opt): sched.step()``."""
    if len(e.path) != len(step.path) + 1 or not is_prefix(step.path, e.path):
        return False
    if_id, branch = e.path[-1]
    test = getattr(w.ifs[if_id].node, "test", None)
    return branch == 0 and test is not None and any(n is step.node for n in ast.walk(test))


def _check_step_scheduler(w: ScopeWalker, sched: Event) -> None:
    region = events_in(w, sched.loops[-1]) if sched.loops else list(w.events)
    training_loops = {
        e.loops[-1] for e in region if e.kind == STEP and e.loops and e.loops != sched.loops
    }
    called_training = any(
        e.kind == CALL and e.summary is not None and e.summary.train_loop for e in region
    )
    if any(lid in sched.loops for lid in training_loops):
        return  # stepped inside the training loop after all
    if not training_loops and not called_training:
        return
    stepped_elsewhere = any(
        (e.kind == SCHED and e.receiver == sched.receiver and e is not sched)
        or (e.kind == CALL and e.summary is not None and e.summary.sched_steps)
        for e in w.events
    )
    if stepped_elsewhere:
        return
    cls = sched.value.cls if sched.value else "scheduler"
    _report(
        w,
        "TW004",
        sched.node,
        f"{cls} is a per-step schedule but is stepped once per "
        "epoch: call scheduler.step() after every optimizer.step()",
    )


def check_plateau(w: ScopeWalker) -> None:
    """TW018: ReduceLROnPlateau.step() needs the monitored metric."""
    for sched in (e for e in w.events if e.kind == SCHED and e.value is not None):
        if sched.value.cls != "ReduceLROnPlateau" or not isinstance(sched.node, ast.Call):
            continue
        call = sched.node
        if not call.args and not call.keywords:
            _report(
                w,
                "TW018",
                call,
                "ReduceLROnPlateau.step() is called without the "
                "metric it monitors: pass it, e.g. scheduler.step(val_loss)",
            )
        elif len(call.args) == 1 and not call.keywords:
            arg = last_part(dotted(call.args[0])).lower()
            if "epoch" in arg:
                _report(
                    w,
                    "TW018",
                    call,
                    "ReduceLROnPlateau.step() receives the epoch "
                    "number as its metric: pass the validation metric instead",
                )


def _has_modulo(node: ast.AST) -> bool:
    return any(isinstance(n, ast.BinOp) and isinstance(n.op, ast.Mod) for n in ast.walk(node))


def check_accumulation_scaling(w: ScopeWalker) -> None:
    """TW017: backward() every micro-batch, step() every k, loss never divided."""
    flagged: set[int] = set()
    for step in (e for e in w.events if e.kind == STEP):
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
                _report(
                    w,
                    "TW017",
                    back.node,
                    "gradients are accumulated over several "
                    "backward() calls per step but the loss is not divided by the number "
                    "of accumulation steps",
                )


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
            ]
    for e in w.events:
        if e.kind != BACKWARD or not e.loops or e.engine:
            continue
        inner = w.loops[e.loops[-1]]
        micro_before_step = inner.kind == "micro" and e.seq < step.seq
        if micro_before_step and inner.parent == home and inner.id not in step.loops:
            found.append(e)
    return found


# -- train/eval mode ----------------------------------------------------------------------
def trained_models(w: ScopeWalker) -> set[str]:
    """Models this scope trains: the optimizer's parameters, or models put in train()."""
    keys: set[str] = set()
    candidates = list(w.env.values()) + list(w.fa.module_env.values())
    for value in candidates:
        if value is not None and value.kind == V.OPTIMIZER and value.alias:
            keys.add(value.alias)
    for e in w.events:
        for key, effect in mode_effects(w, e):
            if effect.final == "train" or effect.first == "train":
                keys.add(key)
    if keys:
        return keys
    # Fallback: the only model run in a loop that also calls backward().
    forwarded = {
        e.receiver
        for e in w.events
        if e.kind == FORWARD
        and e.receiver
        and e.loops
        and any(b.kind == BACKWARD and e.loops[-1] in b.loops for b in w.events)
    }
    return forwarded if len(forwarded) == 1 else set()


def check_eval_leak(w: ScopeWalker) -> None:
    """TW010: eval() in the epoch loop not undone before the next training step."""
    trained = trained_models(w)
    if not trained:
        return
    reported: set[int] = set()
    for lid in w.loops:
        seq = events_in(w, lid)
        if not any(is_training(e) for e in seq):
            continue
        for index, e in enumerate(seq):
            for key, effect in mode_effects(w, e):
                if key not in trained or effect.final != "eval" or id(e.node) in reported:
                    continue
                if _mode_chosen_per_iteration(seq, e, key):
                    continue
                if _leaks_into_training(w, seq, index, key):
                    reported.add(id(e.node))
                    what = (
                        f"{key}.eval()"
                        if e.kind == EVAL
                        else f"{_name(w, e.node)} (which calls {key}.eval())"
                    )
                    _report(
                        w,
                        "TW010",
                        e.node,
                        f"{what} leaves the model in eval mode for the "
                        f"next training step: call {key}.train() at the start of each epoch",
                    )


def _mode_chosen_per_iteration(seq: list[Event], e: Event, key: str) -> bool:
    """``if phase == "train": model.train() else: model.eval()`` sets the mode every pass."""
    if not e.path:
        return False
    if_id, branch = e.path[-1]
    return any(
        other.kind == TRAIN
        and other.receiver == key
        and any(i == if_id and b != branch for i, b in other.path)
        for other in seq
    )


def _leaks_into_training(w: ScopeWalker, seq: list[Event], start: int, key: str) -> bool:
    # Paths of the train() calls seen since the eval(). A restore counts for a training
    # step when it runs whenever that step runs (its branch encloses the step), or whenever
    # the eval() itself ran (its branch encloses the eval: ``if log: m.eval(); ...; m.train()``).
    eval_path = seq[start].path
    restored: list[tuple] = []
    n = len(seq)
    for offset in range(1, n):
        e = seq[(start + offset) % n]
        effects = [eff for k, eff in mode_effects(w, e) if k == key]
        trains_itself = any(eff.first == "train" for eff in effects)
        if is_training(e) and not trains_itself:
            return not any(
                is_prefix(path, e.path) or is_prefix(path, eval_path) for path in restored
            )
        for effect in effects:
            if effect.final in {"unknown", "eval"}:
                return False  # unknowable, or another eval() that is checked on its own
            if effect.final == "train":
                restored.append(e.path)
    return False


def check_step_fn_eval(w: ScopeWalker) -> None:
    """TW010: a ``step_fn`` given to trainwell's fit() that leaves a model in eval mode."""
    if not w.is_step_fn:
        return
    modes = _final_modes(w)
    for key, effect in modes.items():
        if effect.final != "eval":
            continue
        evals = [e for e in w.events if e.kind == EVAL and e.receiver == key and not e.path]
        if evals:
            _report(
                w,
                "TW010",
                evals[-1].node,
                f"{key}.eval() in the step_fn given to fit(): step_fn runs every training "
                f"step, so the model trains in eval mode (dropout off, BatchNorm statistics "
                "frozen): remove it",
            )


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


# -- in-walk checks (called from the walker while values are current) ---------------------
def check_softmax_into_loss(
    w: ScopeWalker, call: ast.Call, loss: str | None, logits: Value | None
) -> None:
    """TW007 / TW008 / TW009 at a criterion call."""
    if logits is None:
        return
    cross_entropy = loss in {"CrossEntropyLoss", "cross_entropy"}
    nll = loss in {"NLLLoss", "nll_loss"}
    if V.SOFTMAX in logits.flags:
        if cross_entropy:
            _report(
                w,
                "TW007",
                call,
                "softmax output is passed to cross-entropy, which "
                "applies log_softmax itself: pass the raw logits",
            )
        elif nll:
            _report(
                w,
                "TW009",
                call,
                "softmax output is passed to NLLLoss, which expects "
                "log-probabilities: use log_softmax",
            )
    elif V.LOG_SOFTMAX in logits.flags and cross_entropy:
        _report(
            w,
            "TW008",
            call,
            "log_softmax output is passed to cross-entropy, which "
            "applies log_softmax again: pass logits, or use NLLLoss",
        )


def check_accumulation(
    w: ScopeWalker, container: str | None, value: Value | None, node: ast.AST
) -> None:
    """TW011 at ``acc += loss`` / ``acc.append(loss)`` / ``acc[k] = loss``."""
    if value is None or value.kind != V.LOSS or container is None:
        return
    if not w.loop_stack and w.is_step_fn and not w.no_grad():
        # a step_fn given to fit() runs once per training step: whatever it did not create
        # itself (a global, an attribute, a closure's list) outlives the step
        root = container.split(".")[0]
        outlives = root not in w.bind_loops or ("." in container and root in w.params)
        if (
            not outlives
            or root in w.backward_involved
            or last_part(container) in w.backward_involved
        ):
            return
        _report(
            w,
            "TW011",
            node,
            f"the loss tensor is kept in '{container}' beyond the step (step_fn runs every "
            "training step) with its whole autograd graph: use loss.item() or loss.detach()",
        )
        return
    if not w.loop_stack or w.no_grad() or container not in w.bind_loops:
        return
    bound_in = w.bind_loops[container]
    if all(loop in bound_in for loop in w.loop_stack):
        return  # created in this very iteration: not kept across iterations
    if (
        container.split(".")[0] in w.backward_involved
        or last_part(container) in w.backward_involved
    ):
        return  # summed on purpose and back-propagated later
    _report(
        w,
        "TW011",
        node,
        f"the loss tensor is kept in '{container}' across iterations "
        "with its whole autograd graph: use loss.item() or loss.detach()",
    )


def check_discarded_to(w: ScopeWalker, expr: ast.expr) -> None:
    """TW019 at an expression statement ``x.to(device)`` whose result is dropped."""
    if not (isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute)):
        return
    if expr.func.attr not in {"to", "cuda", "cpu"}:
        return
    name = dotted(expr.func.value)
    value = w.lookup(name) if name else None
    if value is not None and value.kind == V.TENSOR:
        _report(
            w,
            "TW019",
            expr,
            f"{name}.{expr.func.attr}(...) returns a new tensor that "
            f"is discarded: write {name} = {name}.{expr.func.attr}(...)",
        )


# -- file-level checks --------------------------------------------------------------------
def run_file_checks(fa: FileAnalysis) -> None:
    """Rules that need no data flow: plain-list sub-modules and torch.load safety."""
    check_module_lists(fa)
    check_torch_load(fa)


def _module_ctor(fa: FileAnalysis, node: ast.AST) -> str | None:
    """Class name when ``node`` constructs an nn.Module with state, else None."""
    while (  # Layer(...).to(device) is still the new Layer
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in V.MODULE_SELF_METHODS
    ):
        node = node.func.value
    if not isinstance(node, ast.Call):
        return None
    qual = fa.imports.resolve(node.func) or ""
    tail = last_part(qual)
    if qual == tail and tail in fa.classes and fa.classes[tail].is_module:
        return tail
    if qual.startswith("torch.nn.") and qual.count(".") == 2 and tail[:1].isupper():
        if tail in _STATELESS_MODULES or tail in _CONTAINERS:
            return None
        return tail
    return None


def _collection_ctor(fa: FileAnalysis, node: ast.AST) -> str | None:
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
        return _collection_ctor(fa, node.left) or _collection_ctor(fa, node.right)
    if isinstance(node, (ast.List, ast.Tuple)):
        return next((c for c in (_module_ctor(fa, e) for e in node.elts) if c), None)
    if isinstance(node, (ast.ListComp, ast.GeneratorExp)):
        return _module_ctor(fa, node.elt)
    if isinstance(node, ast.Dict):
        return next((c for c in (_module_ctor(fa, v) for v in node.values) if c), None)
    if isinstance(node, ast.DictComp):
        return _module_ctor(fa, node.value)
    return None


def check_module_lists(fa: FileAnalysis) -> None:
    """TW013: nn.Module.__init__ storing modules in a list/dict attribute."""
    for info in fa.classes.values():
        init = info.methods.get("__init__")
        if info.is_module and init is not None:
            for node, attr, ctor, kind in _unregistered_candidates(fa, init):
                _module_list_finding(fa, node, attr, ctor, kind)


def _unregistered_candidates(fa: FileAnalysis, init: ast.AST) -> list[tuple]:
    candidates: list[tuple[ast.AST, str, str, str]] = []
    empty: set[str] = set()
    assigned: dict[str, int] = {}  # attr -> number of assignments in __init__
    handed_over: set[str] = set()  # attrs passed to a call: nn.ModuleList(self.layers) & co.
    registers = False
    for node in _own_nodes(init):
        grown = _grown_list(node)
        if grown is not None:
            # self.layers = self.layers + [Layer(...)] / self.layers += [...]: an append
            attr, added = grown
            ctor = _collection_ctor(fa, added)
            if attr in empty and ctor:
                candidates.append((node, attr, ctor, "list"))
            continue
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            attr = _self_attr(node.targets[0])
            if attr is None:
                continue
            assigned[attr] = assigned.get(attr, 0) + 1
            ctor = _collection_ctor(fa, node.value)
            if ctor:
                kind = "dict" if isinstance(node.value, (ast.Dict, ast.DictComp)) else "list"
                candidates.append((node, attr, ctor, kind))
            elif isinstance(node.value, (ast.List, ast.Dict)) and not _elements(node.value):
                empty.add(attr)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            registers = registers or node.func.attr in {"add_module", "register_module"}
            attr = _self_attr(node.func.value)
            if attr in empty and node.func.attr in {"append", "extend", "insert"} and node.args:
                ctor = _module_ctor(fa, node.args[-1]) or _collection_ctor(fa, node.args[-1])
                if ctor:
                    candidates.append((node, attr, ctor, "list"))
        if isinstance(node, ast.Call):
            for arg in [*node.args, *(kw.value for kw in node.keywords)]:
                inner = arg.value if isinstance(arg, ast.Starred) else arg
                if _self_attr(inner):
                    handed_over.add(_self_attr(inner))  # type: ignore[arg-type]
    if registers:
        return []  # modules registered by hand with add_module(): unsure, stay silent
    # A list that is later wrapped (self.layers = nn.ModuleList(self.layers)) or handed to
    # nn.Sequential(*self.layers) is registered after all.
    return [c for c in candidates if assigned.get(c[1]) == 1 and c[1] not in handed_over]


def _grown_list(node: ast.AST) -> tuple[str, ast.expr] | None:
    """(attr, added) for ``self.attr = self.attr + added`` or ``self.attr += added``."""
    if isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Add):
        attr = _self_attr(node.target)
        return (attr, node.value) if attr else None
    if not (isinstance(node, ast.Assign) and len(node.targets) == 1):
        return None
    attr, value = _self_attr(node.targets[0]), node.value
    if attr is None or not (isinstance(value, ast.BinOp) and isinstance(value.op, ast.Add)):
        return None
    if _self_attr(value.left) == attr:
        return attr, value.right
    if _self_attr(value.right) == attr:
        return attr, value.left
    return None


def _elements(node: ast.List | ast.Dict) -> list:
    return node.elts if isinstance(node, ast.List) else node.keys


def _self_attr(node: ast.AST) -> str | None:
    is_self = isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
    return node.attr if is_self and node.value.id == "self" else None  # type: ignore[attr-defined]


def _module_list_finding(fa: FileAnalysis, node: ast.AST, attr: str, ctor: str, kind: str):
    container = "nn.ModuleDict" if kind == "dict" else "nn.ModuleList"
    fa.report(
        "TW013",
        node,
        f"self.{attr} holds {ctor} modules in a plain {kind}: their "
        f"parameters are not registered (use {container})",
    )


def check_torch_load(fa: FileAnalysis) -> None:
    """TW015 (weights_only=False) and TW016 (implicit default before torch 2.6)."""
    aliases = {name for name, path in fa.imports.names.items() if path == "torch.load"}
    for node in fa.nodes:
        if not isinstance(node, ast.Call):
            continue
        name = dotted(node.func)
        if last_part(name) != "load" and name not in aliases:
            continue
        if fa.imports.resolve(node.func) != "torch.load":
            continue
        if any(kw.arg is None for kw in node.keywords):
            continue  # **kwargs may carry weights_only
        weights_only = next((kw.value for kw in node.keywords if kw.arg == "weights_only"), None)
        if isinstance(weights_only, ast.Constant) and weights_only.value is False:
            fa.report(
                "TW015",
                node,
                "torch.load(weights_only=False) can execute arbitrary "
                "code from the checkpoint file",
            )
        elif weights_only is None and fa.target_torch < (2, 6):
            major, minor = fa.target_torch
            fa.report(
                "TW016",
                node,
                f"torch.load() without weights_only: torch {major}."
                f"{minor} defaults to the full (unsafe) unpickler; pass "
                "weights_only=True",
            )
