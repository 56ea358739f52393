"""Shared by the rule families: predicates over events, the translation of a called
function's names into its caller's, and the summary of a scope that its callers use.

Not a family (its name starts with ``_``, so the registry skips it).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from .. import values as V
from .._astutil import dotted, last_part, walk
from ..analysis import ScopeWalker
from ..class_facts import runs_forward
from ..events import (
    BACKWARD,
    CALL,
    EVAL,
    FORWARD,
    MODE_UNKNOWN,
    OPAQUE,
    RECEIVER,
    SCHED,
    STEP,
    TRAIN,
    ZERO,
    Event,
    ModeEffect,
    Summary,
    is_prefix,
)
from ..grad_flow import GraphFlow, graph_flow
from ..graph_calls import decide
from ..mode_switch import switched_by_own_state
from ..scope_facts import hand_made_parameters
from ..values import Value
from ._frozen import bound_in, frozen_in_scope_before, frozen_parameters_at
from ._kept_values import kept_in_attributes, read_back_by_a_method
from ._step_facts import (
    epoch_schedules_each_call,
    leaves_scaled_gradients,
    only_clips,
    unscaled_backward,
)

# Calls that certainly do not change a model's train/eval mode even though they receive it.
_HARMLESS_CALLS = {
    "print", "len", "isinstance", "str", "repr", "type", "id", "hasattr", "getattr", "float",
    "int", "sum", "enumerate", "zip", "range", "list", "dict", "tuple", "max", "min", "abs",
    "round", "sorted", "format", "iter", "next", "vars",
    # a model saved or copied keeps its mode
    "torch.save", "pickle.dump", "copy.deepcopy",
}  # fmt: skip


# -- small predicates over events ---------------------------------------------------------
# A call of a function of this file (CALL, with its Summary) counts as what it does inside.
def is_backward(e: Event) -> bool:
    """A backward() call, or a call of a function that runs one."""
    return e.kind == BACKWARD or (e.kind == CALL and e.summary is not None and
                                  bool(e.summary.backward))  # fmt: skip


def is_step(e: Event) -> bool:
    """An optimizer step, or a call of a function that steps."""
    return e.kind == STEP or (e.kind == CALL and e.summary is not None and bool(e.summary.steps))


def is_zero(e: Event) -> bool:
    """A zero_grad() (or ``p.grad = None``), or a call of a function that clears."""
    return e.kind == ZERO or (e.kind == CALL and e.summary is not None and e.summary.zero_grad)


def is_training(e: Event) -> bool:
    """backward() or step(), or a call of a function that runs either."""
    return e.kind in {BACKWARD, STEP} or (
        e.kind == CALL and e.summary is not None and e.summary.trains
    )


def events_in(w: ScopeWalker, loop_id: int) -> list[Event]:
    """The events inside a loop (nested loops included), in source order."""
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
    if key == "self" or key.startswith("self."):
        if e.same_class:
            return key
        holder = e.argmap.get(RECEIVER)  # agent.set_eval(): its self.critic is agent.critic
        return V.normalize_receiver(holder + key[4:]) if holder else None
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
        name = (w.fa.imports.resolve(func) if func is not None else None) or dotted(func)
        if name in _HARMLESS_CALLS:
            return
        for arg in e.args:
            yield w.model_key(arg) or arg, ModeEffect(final="unknown")


def report(w: ScopeWalker, code: str, node: ast.AST, message: str) -> None:
    """Report a finding at ``node`` (kept only in the reporting pass)."""
    w.fa.report(code, node, message)


def call_name(node: ast.AST) -> str:
    """``optimizer.step()``: how a step call is named in messages."""
    if isinstance(node, ast.Call):
        return (dotted(node.func) or "step") + "()"
    return "step()"


# -- summaries ----------------------------------------------------------------------------
def summarize(w: ScopeWalker) -> Summary:
    """What callers of this scope need to know (see :class:`~.analysis.Summary`)."""
    summary = Summary(params=list(w.params))
    for e in w.events:
        if is_training(e):
            summary.training_sites.append(e.node)
        if e.kind == BACKWARD:
            summary.backward.append(e.node)
        elif e.kind == STEP and not (e.value is not None and V.OVER_INPUTS in e.value.flags):
            # (an optimizer over plain tensors, an attack's delta, trains no model)
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
    if not summary.steps:
        summary.unscaled_backward = unscaled_backward(w)
        summary.scaled_backward = leaves_scaled_gradients(w)
        summary.clips = only_clips(w)
    summary.epoch_schedules_each_call = epoch_schedules_each_call(w)
    copied = _copied_params(w)  # model = deepcopy(model); model.eval(): the copy's mode
    summary.modes = {k: v for k, v in final_modes(w).items() if k.split(".")[0] not in copied}
    summary.grad_forwards = [
        e.node
        for e in w.events
        if not e.no_grad
        and (
            e.kind == FORWARD
            or (e.kind == CALL and e.summary is not None and e.summary.grad_forwards)
        )
    ]
    summary.returns = _merged_returns(w.returns)
    summary.returns_per_step_schedule = any(V.PER_STEP in v.flags for v in w.returns if v)
    summary.returned_elements = _merged_elements(w.returned_tuples)
    summary.kept_params = kept_in_attributes(w)
    summary.forwards = _mode_dependent_forwards(w)
    flow = flow_of(w)
    # a scope that sets autograd itself (``set_grad_enabled(model.training)``, autograd.grad)
    # may return no graph at all: its callers are not told it does
    summary.returns_graph = flow.returns_graph and not w.facts.grad_machinery
    summary.graph_site = flow.graph_site
    summary.graph_by_own_state = w.cls is not None and switched_by_own_state(w.func)
    if not summary.returns_graph and _function_model(w):
        # def model(xb): return xb @ weight + bias, over hand-made parameters: a forward,
        # reported at its calls
        summary.returns_graph, summary.graph_site = True, None
    summary.param_fates = flow.param_fates
    summary.returned_cut = flow.returned_cut
    summary.return_positions = flow.return_positions
    summary.returns_cut = flow.returns_cut
    if is_module_method(w) and not w.facts.grad_machinery:
        summary.discards = [node for node, _ in inference_discards(w)]
    return summary


def inference_discards(w: ScopeWalker) -> list[tuple[ast.AST, ast.AST]]:
    """The discarded forwards of the scope (see grad_flow.py) that are inference.

    A forward whose detached value still feeds a backward() is part of a training step:
    targets are often computed with autograd on and detached (a target network's
    bootstrap, a value baseline, a WGAN critic's fake batch): wasteful, but that step's own
    business. A model put in eval() and never trained here (a frozen teacher) is inference
    wherever it runs.
    """
    flow = flow_of(w)
    by_node = {e.node: e for e in w.events if e.kind in {FORWARD, CALL, OPAQUE}}
    # a model's own update method (``agent.train_net()``: GAE values, old log-probs, then
    # the optimizer steps) builds its targets with the model: the update's business
    updates = is_module_method(w) and any(is_training(e) for e in w.events)
    kept = []
    for node, site in flow.discarded:
        event = by_node.get(node)
        if event is None:
            continue
        if updates and not (_after_eval(w, event) or frozen(w, event) or evaluation_of(w, event)):
            continue
        if read_back_by_a_method(w, event):
            continue  # policy(obs), then policy.log_prob(act) of the state it kept
        # a detached value of it feeds a loss (a target network's bootstrap, a baseline):
        # part of the training step, unless the model is frozen in eval() (a teacher)
        if node in flow.feeds_training and not frozen(w, event):
            continue
        # every parameter of the model frozen just before, on data that needs no gradient
        # (a WGAN critic's dev pass after the generator step froze it): no graph is recorded
        if node in flow.data_input and frozen_parameters_at(w, event):
            continue
        # an inference script that froze the whole model first (``model.requires_grad_(
        # False)``, then ``model(img)``): nothing in the scope trains, no graph is recorded
        if _frozen_for_inference(w, event):
            continue
        # a second forward of the step itself (the batch accuracy of the model being
        # trained, in train mode): the step's business too; after eval() it is evaluation,
        # and so is a forward after the iteration's update (a validation batch drawn
        # after optimizer.step())
        phase = flow.phase_of.get(node)
        assume = {phase[0]: phase[1]} if phase else {}
        in_step = in_training_iteration(w, event, assume, True) or _in_inner_loops_of_a_step(
            w, event, assume
        )
        if in_step and not (_after_eval(w, event) or frozen(w, event)):
            continue
        if updates and site is node and event.kind == CALL and event.summary is not None:
            # self.evaluate_agent(env): said at its forward, inside the method of this file
            site = next(iter(event.summary.discards), site)
        kept.append((node, site))
    return kept


def _frozen_for_inference(w: ScopeWalker, event: Event) -> bool:
    line = getattr(event.node, "lineno", 0)
    return (
        event.receiver is not None
        and not any(is_training(e) for e in w.events)
        and frozen_in_scope_before(w, event.receiver, line)
    )


def _function_model(w: ScopeWalker) -> bool:
    """A function of the module that returns a computation on the module's hand-made
    parameters (``weight = torch.randn(1, requires_grad=True)``) and trains nothing itself."""
    func = w.func
    if func is None or w.cls is not None or any(is_training(e) for e in w.events):
        return False
    params = hand_made_parameters(w.fa.tree)
    if not params:
        return False
    local = bound_in(func) | set(w.params)
    returned = {
        n.id
        for r in walk(func)
        if isinstance(r, ast.Return) and r.value is not None
        for n in walk(r.value)
        if isinstance(n, ast.Name)
    }
    return bool((returned - local) & params)


def in_training_iteration(
    w: ScopeWalker, event: Event, assume: dict[str, str], later: bool = False
) -> bool:
    """A backward() or step() runs in the same loop iteration and branch as ``event``
    (``later``: after it, so that ``event`` comes before the iteration's update)."""
    return any(
        e.kind in {BACKWARD, STEP}
        and e.loops == event.loops
        and is_prefix(event.path, e.path)
        and not _dead_in_phase(w, e, assume)
        and (not later or e.seq > event.seq)
        for e in w.events
    )


def _in_inner_loops_of_a_step(w: ScopeWalker, event: Event, assume: dict[str, str]) -> bool:
    """``event`` runs in loops over no data (``for k in range(1, 3):``, over the sources of
    a batch) nested in a training iteration, before that iteration's backward() or step():
    a term of the step, even when only printed."""
    for e in w.events:
        extra = event.loops[len(e.loops) :]
        if (
            e.kind in {BACKWARD, STEP}
            and e.seq > event.seq
            and extra
            and event.loops[: len(e.loops)] == e.loops
            and all(w.loops[loop].kind not in {"batch", "epoch"} for loop in extra)
            and is_prefix(e.path, event.path)
            and not _dead_in_phase(w, e, assume)
        ):
            return True
    return False


def _dead_in_phase(w: ScopeWalker, e: Event, assume: dict[str, str]) -> bool:
    """``e`` sits in a branch that this phase does not take (``if phase == "train":``)."""
    for if_id, arm in e.path:
        info = w.ifs.get(if_id)
        test = getattr(info.node, "test", None) if info is not None else None
        decided = decide(test, assume) if isinstance(test, ast.expr) else None
        if decided is not None and decided != (arm == 0):
            return True
    return False


def evaluation_of(w: ScopeWalker, event: Event) -> bool:
    """In a model's own training method, ``event`` evaluates: it runs in a loop over batches
    that trains nothing (a ``fit()``'s test loop), or it calls a method of the model that
    neither trains nor returns a target (``self.evaluate_agent(env)``, not ``adv = ...``)."""
    summary, func = event.summary if event.kind == CALL else None, getattr(event.node, "func", None)
    helper = summary is not None and not (summary.trains or summary.returns_cut)
    # (one that puts a model in eval() has its evaluation said by the eval() rule)
    helper = helper and not any("eval" in (m.first, m.final) for m in summary.modes.values())
    if helper and dotted(getattr(func, "value", None)) == "self" and not runs_forward(func.attr):
        return True  # (not self.forward(x): the model itself, in its own update)
    for loop_id in event.loops:
        if w.loops[loop_id].kind == "batch":
            return not any(is_training(e) for e in events_in(w, loop_id))
    return False


def _after_eval(w: ScopeWalker, event: Event) -> bool:
    """A model was put in eval() before ``event`` (and not back in train()) in its iteration."""
    inside = event.loops[-1] if event.loops else None
    mode = None
    for e in w.events[: event.seq]:
        if e.kind not in {EVAL, TRAIN} or (inside is not None and inside not in e.loops):
            continue
        if event.kind == FORWARD and event.receiver and e.receiver != event.receiver:
            continue
        mode = e.kind
    return mode == EVAL


def frozen(w: ScopeWalker, forward: Event) -> bool:
    """The forward's model was put in eval() earlier in the scope and not back in train()."""
    if forward.kind != FORWARD or not forward.receiver:
        return False
    passed = w.lookup(forward.receiver)
    state = EVAL if passed is not None and V.EVAL_WHEN_PASSED in passed.flags else None
    for e in w.events[: forward.seq]:
        if e.receiver == forward.receiver and e.kind in {EVAL, TRAIN, MODE_UNKNOWN}:
            state = e.kind
    trained_here = any(
        e.kind == BACKWARD for e in w.events
    ) and forward.receiver in _trained_models(w)
    return (
        state == EVAL and not trained_here and not _copied_from_another_model(w, forward.receiver)
    )


def _copied_from_another_model(w: ScopeWalker, receiver: str) -> bool:
    """``target_net.load_state_dict(policy_net.state_dict())``: a target network, a copy of
    the model the file runs and trains, whose outputs are the update's targets; not a
    teacher copied from a loaded network the file never runs (``teacher.state_dict()``)."""
    calls = [n for n in w.fa.nodes if isinstance(n, ast.Call)]
    for node in calls:
        if not isinstance(node.func, ast.Attribute):
            continue
        if node.func.attr != "load_state_dict" or dotted(node.func.value) != receiver:
            continue
        source = node.args[0] if node.args else None
        if isinstance(source, ast.Call) and isinstance(source.func, ast.Attribute):
            copied = source.func.attr == "state_dict" and dotted(source.func.value)
            if copied and copied != receiver and any(dotted(c.func) == copied for c in calls):
                return True
    return False


def _trained_models(w: ScopeWalker) -> set[str]:
    """Models whose optimizer this scope steps."""
    models: set[str] = set()
    for e in w.events:
        optimizer = w.lookup(e.receiver) if e.kind == STEP else None
        if optimizer is not None and optimizer.alias:
            models.add(optimizer.alias)
    return models


def is_module_method(w: ScopeWalker) -> bool:
    """A method of an nn.Module class of this file (``pi``, ``predict``, ``sample_action``)."""
    return w.func is not None and w.cls is not None and w.cls.is_module


def flow_of(w: ScopeWalker) -> GraphFlow:
    """Where the graph of each forward of the scope goes (computed once per walk)."""
    cached = getattr(w, "_graph_flow", None)
    if cached is None:
        cached = graph_flow(w, is_module_method(w))
        w._graph_flow = cached  # type: ignore[attr-defined]
    return cached


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


def _copied_params(w: ScopeWalker) -> set[str]:
    """Parameters the scope rebinds to a copy of what it was given (``deepcopy(model)``)."""
    if w.func is None:
        return set()
    copied = set()
    for node in walk(w.func):
        if not (isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)):
            continue
        if last_part(dotted(node.value.func)) not in {"deepcopy", "copy"}:
            continue
        copied |= {t.id for t in node.targets if isinstance(t, ast.Name) and t.id in w.params}
    return copied


def final_modes(w: ScopeWalker) -> dict[str, ModeEffect]:
    """How the scope leaves each model's mode (and sets it before its first training step)."""
    # (a helper that runs backward() for an attack, stepping nothing, is no training step)
    training = [e for e in w.events if is_training(e) and not backward_only_call(e)]
    first_training = training[0].seq if training else len(w.events)
    modes: dict[str, ModeEffect] = {}
    for e in w.events:
        for key, effect in mode_effects(w, e):
            current = modes.setdefault(key, ModeEffect())
            final = effect.final
            if final is None:
                continue
            if (
                e.seq < first_training
                and e.kind in {EVAL, TRAIN, CALL}
                and (not e.path or (training and all(_runs_whenever(w, e, t) for t in training)))
            ):
                current.first = final  # the last mode it sets before it trains
            elif (
                e.seq == first_training
                and effect.first is not None
                and (not e.path or _each_arm_sets_first(w, e, key, effect.first, training))
            ):
                current.first = effect.first  # fit() -> train_one_epoch(): model.train() first
            # A conditional switch to eval may not happen: the end state is unknown. A
            # conditional train() still counts as restoring (staying silent is the safe side).
            if e.path and final != "train":
                final = "unknown"
            current.final = final
    for key, arms in _arms_setting_mode(w, first_training).items():
        if modes[key].first is None and any({(i, 0), (i, 1)} <= arms for i, _ in arms):
            modes[key].first = "unknown"  # if c: m.train() else: m.eval(): set either way
    return modes


def _each_arm_sets_first(
    w: ScopeWalker, e: Event, key: str, first: str, training: list[Event]
) -> bool:
    """``if weights is None: self._train(...) else: self._train_weighted(...)``, each
    helper putting the model in ``first`` mode before it trains: set either way."""
    if len(e.path) != 1:
        return False
    if_id, branch = e.path[0]
    others = [t for t in training if t.path == ((if_id, 1 - branch),)]
    return bool(others) and all(
        any(k == key and eff.first == first for k, eff in mode_effects(w, t)) for t in others
    )


def _runs_whenever(w: ScopeWalker, switch: Event, step: Event) -> bool:
    """``switch`` runs whenever ``step`` does: each if-arm around the switch also holds the
    step, or an if of the same test holds it in the same arm (``if with_params:
    model.train()`` ... ``if with_params: loss.backward()``), its names not rebound between."""
    arms = {_arm_key(w, i, b) for i, b in step.path}
    return all(_arm_key(w, i, b) in arms for i, b in switch.path) and not _rebound_between(
        w, switch, step
    )


def _arm_key(w: ScopeWalker, if_id: int, branch: int) -> tuple[str, int]:
    test = getattr(w.ifs[if_id].node, "test", None) if if_id in w.ifs else None
    return (ast.dump(test) if test is not None else f"#{if_id}", branch)


def _rebound_between(w: ScopeWalker, switch: Event, step: Event) -> bool:
    """A name the switch's tests read is assigned between the switch and the step."""
    names = {
        n.id
        for i, _ in switch.path
        if i in w.ifs
        for n in walk(getattr(w.ifs[i].node, "test", ast.Pass()))
        if isinstance(n, ast.Name)
    }
    first, last = switch.node.lineno, step.node.lineno  # type: ignore[attr-defined]
    scope = w.func if w.func is not None else w.fa.tree
    return any(
        isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign))
        and first < n.lineno < last
        and any(isinstance(t, ast.Name) and t.id in names for t in _targets(n))
        for n in walk(scope)
    )


def _targets(node: ast.stmt) -> list[ast.expr]:
    if isinstance(node, ast.Assign):
        return [t for target in node.targets for t in walk(target)]  # type: ignore[misc]
    return list(walk(node.target))  # type: ignore[attr-defined]


def _arms_setting_mode(w: ScopeWalker, before: int) -> dict[str, set[tuple[int, int]]]:
    """Per model, the if-arms (innermost) where the scope sets its mode itself before its
    first training step."""
    arms: dict[str, set[tuple[int, int]]] = {}
    for e in w.events:
        if e.seq < before and e.kind in {EVAL, TRAIN} and e.receiver and e.path:
            arms.setdefault(e.receiver, set()).add(e.path[-1])
    return arms


def _merged_elements(
    returned: list[tuple[Value | None, ...] | None],
) -> tuple[Value | None, ...] | None:
    """Position by position, what every ``return a, b`` of the scope gives (None: a return
    of another shape, or none)."""
    if not returned or any(r is None for r in returned):
        return None
    sizes = {len(r) for r in returned if r is not None}
    if len(sizes) != 1:
        return None
    columns = zip(*[r for r in returned if r is not None], strict=True)
    return tuple(_merged_returns(list(column)) for column in columns)


def _merged_returns(returns: list[Value | None]) -> Value | None:
    if not returns:
        return None
    result = returns[0]
    for value in returns[1:]:
        result = V.merge(result, value)
    return result


def backward_only_call(e: Event) -> bool:
    """A call that runs backward() but steps no optimizer (an attack's perturbation)."""
    return (
        e.kind == CALL
        and e.summary is not None
        and bool(e.summary.backward)
        and not (e.summary.steps)
    )
