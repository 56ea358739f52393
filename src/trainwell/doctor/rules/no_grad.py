"""TW012: inference after model.eval() with autograd still on (no torch.no_grad()).

The scope check only collects candidates; :class:`~trainwell.doctor.analysis.FileAnalysis`
reports those whose function this file calls outside no_grad.
"""

from __future__ import annotations

import ast

from .. import values as V
from .._astutil import dotted, last_part, walk
from ..analysis import ScopeWalker
from ..events import (
    CALL,
    EVAL,
    EVAL_RULE_MARK,
    FORWARD,
    MODE_UNKNOWN,
    RECEIVER,
    TRAIN,
    Event,
    RawFinding,
    Summary,
    compatible,
)
from ..flow_result import built_parameterless, weightless_model
from ..foreign import ForeignNode
from ..sources import silenced_elsewhere
from ._common import (
    evaluation_of,
    flow_of,
    frozen,
    in_training_iteration,
    inference_discards,
    is_module_method,
    is_training,
    mode_effects,
)
from ._eval_forwards import (
    foreign_call_inside,
    registers_hooks,
    shown_name,
    unguarded_forward,
    written_name,
)
from ._frozen import frozen_in_scope_before, frozen_parameters_at
from ._input_gradients import InputGradients
from ._model_of import note_model_of
from ._no_grad_binding_examples import BINDING_EXAMPLES
from ._no_grad_call_examples import CALL_EXAMPLES
from ._no_grad_examples import EXAMPLES
from ._no_grad_flow_examples import FLOW_EXAMPLES
from ._no_grad_framework_examples import FRAMEWORK_EXAMPLES
from ._no_grad_paths_examples import PATH_EXAMPLES
from ._no_grad_role_examples import ROLE_EXAMPLES
from ._no_grad_script_examples import SCRIPT_EXAMPLES
from ._no_grad_state_examples import STATE_EXAMPLES
from ._no_grad_what_runs_examples import WHAT_RUNS_EXAMPLES
from ._registry import Rule, scope_check

TW012 = Rule(
    "TW012",
    "inference-without-no-grad",
    "warning",
    "A model is run for inference (after model.eval(), or with an output that never reaches "
    "backward()) without torch.no_grad() / torch.inference_mode().",
    "Neither eval() nor leaving backward() out turns off autograd. Validation, test loops, "
    "sampling, RL action selection and accuracy helpers then record a graph for every "
    "forward pass, using several times the memory and noticeably more time. Two ways in: a "
    "forward after model.eval() where nothing in that part of the code needs gradients; or, "
    "with or without eval(), a forward whose output is followed (through names, containers, "
    "returns and the functions of the file) and only ever ends in numbers, indices, "
    "detached copies or logging, outside the training step (a frozen teacher in eval() "
    "counts inside it too). Anything handed to code the doctor cannot see counts as used, "
    "and the rule only fires when the function is called outside no_grad (from this file, or, "
    "when the project is checked, from another, where it is said at the call) or trains "
    "itself (no caller runs a training function under no_grad). Grad mode is per thread: "
    "a function handed to another thread or process (Process(target=...), mp.spawn, a "
    "pool's map, a Ray actor) runs with autograd on whatever its caller's no_grad.",
    "model.eval()\nfor x, y in val_loader:\n    preds = model(x).argmax(1)\n",
    "model.eval()\n"
    "with torch.no_grad():\n"
    "    for x, y in val_loader:\n"
    "        preds = model(x).argmax(1)\n",
    examples=(
        EXAMPLES
        + CALL_EXAMPLES
        + BINDING_EXAMPLES
        + WHAT_RUNS_EXAMPLES
        + SCRIPT_EXAMPLES
        + PATH_EXAMPLES
        + FRAMEWORK_EXAMPLES
        + ROLE_EXAMPLES
        + FLOW_EXAMPLES
        + STATE_EXAMPLES
    ),
)


@scope_check(TW012)
def collect_no_grad_candidates(w: ScopeWalker) -> None:
    """TW012: model(x) after model.eval() with autograd on and no gradient use in sight."""
    if w.facts.grad_machinery or _runs_a_model_that_needs_grad(w):
        return
    # models inside an eval region already examined, with the loops of the eval() that
    # opened it: an eval() outside those loops (the test after the epoch loop's
    # validation) opens another region
    in_eval: dict[str, tuple[int, ...]] = {}
    for index, e in enumerate(w.events):
        for receiver, final in _modes_set(w, e):
            opened = in_eval.get(receiver)
            if final != "eval":
                in_eval.pop(receiver, None)  # the region ends: a later eval() starts a new one
            elif opened is None or e.loops[: len(opened)] != opened:
                in_eval[receiver] = e.loops
                _eval_region(w, index, e, receiver)


def _modes_set(w: ScopeWalker, e: Event) -> list[tuple[str, str]]:
    """(model, "eval" | "train" | "unknown") for ``model.eval()`` and the like, and for a
    call of another object's method that sets them (``agent.set_eval()``)."""
    if e.kind in {EVAL, TRAIN, MODE_UNKNOWN}:
        final = {EVAL: "eval", TRAIN: "train", MODE_UNKNOWN: "unknown"}[e.kind]
        return [(e.receiver, final)] if e.receiver else []
    if e.kind != CALL or e.summary is None or RECEIVER not in e.argmap:
        return []
    return [(key, effect.final) for key, effect in mode_effects(w, e) if effect.final]


def _eval_region(w: ScopeWalker, index: int, e: Event, receiver: str) -> None:
    """The first forward of ``receiver`` with autograd on after its eval() at ``e``."""
    # forwards in the other arm of the eval()'s test run without it (a training step
    # there still marks a train-or-evaluate function, judged at its calls)
    after = [f for f in w.events[index + 1 :] if is_training(f) or not _exclusive_arms(w, e, f)]
    found = unguarded_forward(w, after, receiver)
    if found is None:
        return
    forward, via = found
    line = getattr(forward, "lineno", 1)
    if forward is via and frozen_in_scope_before(w, receiver, line):
        return  # model.eval(); model.requires_grad_(False); model(x): no graph is recorded
    if weightless_model(w, receiver):
        return  # a random-feature CNN whose layers its __init__ froze: no graph either
    col = getattr(forward, "col_offset", 0) + 1
    shown = written_name(w, getattr(e.node, "func", None), receiver, receiver=True)
    runs = written_name(w, getattr(forward, "func", None), shown_name(forward, receiver))
    message = (
        f"{runs if forward is via else shown}(...){EVAL_RULE_MARK}{shown}.eval() without "
        "torch.no_grad(): autograd records a graph for nothing"
    )
    silenced_at = None
    if isinstance(forward, ForeignNode):
        # a helper of another file runs the forward: said here, at the call, where the
        # caller can wrap it in no_grad (a noqa on the helper's forward still counts)
        via = foreign_call_inside(w, via, forward.func)
        line, col = getattr(via, "lineno", 1), getattr(via, "col_offset", 0) + 1
        message = f"{forward.func}() (in {forward.path}:{forward.lineno}): {message}"
        silenced_at = (forward.path, forward.lineno)
    finding = RawFinding("TW012", line, col, message, silenced_at=silenced_at)
    note_model_of(finding, w, forward, receiver)
    if via is not forward and silenced_at is None and isinstance(via, ast.Call):
        finding.at_call = _at_call(via, f"{dotted(via.func)}(...) runs {receiver}", message)
        finding.helper = _summary_at(w, via)
    w.fa.no_grad_candidates.append((_owner(w), finding))


@scope_check(TW012)
def collect_foreign_helper_candidates(w: ScopeWalker) -> None:
    """TW012 of another file's helper that this scope calls with autograd on: it stands,
    like a helper of this file, where this scope itself runs outside no_grad."""
    if not w.foreign_candidates:
        return
    # a closure handed out (a training callback returned by a factory) runs where this file
    # cannot see: its call stands
    owner = None if _nested(w) else _owner(w)
    calls = {getattr(e.node, "lineno", 0): e for e in w.events if e.kind == CALL}
    said: set[tuple] = set()  # one per helper, model and inference block
    arms: list[tuple[tuple, tuple]] = []  # (block, path) of each call said
    trains = any(is_training(e) for e in w.events)
    for finding in w.foreign_candidates:
        if finding.returned_by is not None and _made_a_target(w, finding.returned_by):
            continue  # what the helper returns detached is a target here, or goes on
        call = calls.get(finding.line) if finding.path is None else None
        if call is not None and frozen_parameters_at(w, call):
            continue  # val_model(info, net) right after net's parameters were frozen
        model = _model_handed(w, call)
        if silenced_elsewhere(finding.silenced_at, "TW012"):
            model = None  # the helper's forward is marked noqa: it stands for no evaluation
        if call is not None and model is not None:
            helper = last_part(dotted(call.node.func))  # type: ignore[attr-defined]
            block = (model, call.loops if trains else (), _training_region(w, call))
            if (helper, *block) in said or any(
                b[:2] == block[:2] and _other_arm(path, call.path) for b, path in arms
            ):
                # model.evaluate(test_a) then model.evaluate(test_b), or evaluate(model) in
                # one arm of an if and mini_batch_evaluate(model) in the other (each arm
                # with its own training step): one evaluation (two helpers in a row are two
                # passes: a loss, then a decoding)
                continue
            said.add((helper, *block))
            arms.append((block, call.path))
        w.fa.no_grad_candidates.append((owner, finding))


def _made_a_target(w: ScopeWalker, call: ast.AST) -> bool:
    """The detached tensor ``call`` returns feeds a loss here, goes to code the analysis
    cannot see, or is returned on to this scope's callers."""
    flow = flow_of(w)
    return call in flow.used_cut_calls or call in flow.returned_cut_calls


def _other_arm(a: tuple, b: tuple) -> bool:
    """Two calls in different arms of one if."""
    arms = dict(a)
    return any(i in arms and arms[i] != branch for i, branch in b)


def _model_handed(w: ScopeWalker, call: Event | None) -> str | None:
    """The model a call of another file's helper runs: its receiver (``model.evaluate()``)
    or the one model among its arguments."""
    if call is None or not isinstance(call.node, ast.Call):
        return None
    func = call.node.func
    if isinstance(func, ast.Attribute) and _is_model(w, dotted(func.value), V.OBJECT):
        return dotted(func.value)  # (a plain class holding its networks: MegaDepth's HGModel)
    models = [a for a in call.args if _is_model(w, a)]
    if not models and call.summary is not None:  # the parameter the helper runs or switches
        used = [*call.summary.forwards, *call.summary.modes]
        models = list(dict.fromkeys(call.argmap[k] for k in used if k in call.argmap))
    return models[0] if len(models) == 1 else None


def _is_model(w: ScopeWalker, name: str | None, *also: str) -> bool:
    value = w.lookup(name) if name else None
    if value is None:  # self.__model of an unknown class whose .parameters() the file reads
        return name in w.fa.evident_models
    return value.kind in {V.MODEL, *also}


def _nested(w: ScopeWalker) -> bool:
    """The scope is a function defined inside another function."""
    fa = w.fa
    return (
        w.func is not None
        and w.func not in fa.method_class
        and all(w.func is not f for f in fa.functions.values())
    )


def _exclusive_arms(w: ScopeWalker, a: Event, b: Event) -> bool:
    """``if self.onnx_mode: ... else: model.eval()`` then ``if self.onnx_mode:
    predict_onnx(x)``: the two sit in opposite arms of ifs with the same test."""
    tests = {
        i: ast.dump(w.ifs[i].node.test)
        for i, _ in (*a.path, *b.path)
        if i in w.ifs and isinstance(w.ifs[i].node, ast.If)  # (a match's cases: no test)
    }
    return any(
        tests.get(i) is not None and tests.get(i) == tests.get(j) and arm_a != arm_b
        for i, arm_a in a.path
        for j, arm_b in b.path
    )


def _at_call(call: ast.Call, what: str, message: str) -> RawFinding:
    """The same finding, at the call of the helper that runs the forward."""
    return RawFinding("TW012", call.lineno, call.col_offset + 1, f"{what}: {message}")


def _summary_at(w: ScopeWalker, call: ast.AST) -> Summary | None:
    return next((e.summary for e in w.events if e.node is call and e.kind == CALL), None)


@scope_check(TW012)
def collect_discarded_graphs(w: ScopeWalker) -> None:
    """TW012 by data flow: a forward run with autograd on whose output nothing backpropagates.

    No eval() is needed: test loops, rollouts, sample grids and accuracy helpers of scripts
    that never call it are inference all the same.  The forward's output (followed through
    names, containers, returns and the functions of this file) must end only in numbers,
    indices, detached copies or logging; anything handed to code the analysis cannot see
    counts as used.  A model's own method (``model.pi(x)``) is reported where it is called,
    unless it trains the model itself (``self.fit(...)``, with its own test loop).
    """
    _record_helper_uses(w)
    # (a scope with input gradients, a WGAN-GP's penalty or an attack, is followed all the
    # same: a forward whose output reaches autograd.grad() or backward() is used there)
    trains = any(is_training(e) for e in w.events)
    # a model's method the Trainer runs itself (on_train_epoch_end): no call to report at
    own_method = is_module_method(w) and w.func not in w.fa.entry_points
    if (own_method and not trains) or registers_hooks(w):
        return
    if _runs_a_model_that_needs_grad(w):
        return  # model.time_derivative(z) takes input gradients: autograd is needed
    input_gradients = InputGradients(w) if w.facts.grad_machinery else None
    reported: dict[tuple, int] = {}  # block -> line of its finding
    reported_arms: dict[tuple, list] = {}  # the paths of the first finding of each block
    eval_rule = [c for c in w.fa.no_grad_candidates if c[1].by_eval_rule]  # (it runs first)
    by_node = {e.node: e for e in w.events}
    for node, site in inference_discards(w):
        what = dotted(node.func) if isinstance(node, ast.Call) else None
        event = by_node.get(node)
        if own_method and (event is None or not (evaluation_of(w, event) or _teacher(w, event))):
            continue  # a model's own update: only its test loop and teachers are inference
        model = (event.receiver if event is not None else None) or _method_owner(w, what)
        # one finding per model and inference block: the whole scope when it does not
        # train, else each loop (an evaluation inside the training loop, one after it) and
        # each stretch between training steps (a script that trains and tests two models
        # in turn under one name)
        if weightless_model(w, model) or built_parameterless(w, node):
            continue  # nn.Upsample(...)(x): no weights, so no graph of its own
        if input_gradients is not None and input_gradients.any_wanted(node):
            continue  # x.requires_grad_(); out = model(x): the gradient of x is wanted
        region = _training_region(w, event)
        loops = event.loops if event is not None and trains else ()
        arm = _arm_of(w, event, reported_arms.get((model, loops, region), []))
        block = (model, loops, region, arm)
        parents = {(p, loops, region, arm) for p in _parents(model)}
        here = getattr(node, "lineno", 1)
        if block in reported and _rebound(w, model, reported[block], here):
            del reported[block]  # model = solver.model again: another model, evaluated anew
        if block in reported or parents & reported.keys():
            continue  # model.generator(...) after model(...): the same model's inference
        # (a helper the model is handed to, ``compute_loss(model, x)``, runs that model)
        ran = {model, _model_handed(w, event)} - {None}
        if any(_reported_by_eval_rule(w, eval_rule, event, m, region) for m in ran):
            continue
        reported[block] = here
        if event is not None and arm == 0:
            reported_arms.setdefault((model, loops, region), []).append(event.path)
        line = getattr(site, "lineno", 1)
        col = getattr(site, "col_offset", 0) + 1
        phase = flow_of(w).phase_of.get(node)
        when = f" in the {phase[1]!r} phase" if phase else ""
        fix = (
            f"wrap the forward in torch.set_grad_enabled({phase[0]} == {phase[2]!r})"
            if phase
            else "run this inference under torch.no_grad() or torch.inference_mode()"
        )
        message = (
            f"{what or 'the model'}(...) runs with autograd on{when}, but its output never "
            "reaches backward() there (only numbers, indices, detached copies or logs are "
            f"kept): autograd records a graph for nothing; {fix}"
        )
        path = None
        if isinstance(site, ForeignNode) and isinstance(node, ast.Call):
            # another file's helper runs the forward: said at its call here, where the
            # caller can wrap it in no_grad (the helper's file has no say over its callers)
            line, col = node.lineno, node.col_offset + 1
            message = f"{what}() (in {site.path}:{site.lineno}): {message}"
        elif isinstance(site, ForeignNode):
            if not site.checked:
                continue
            path = site.path
        finding = RawFinding("TW012", line, col, message, path)
        if isinstance(site, ForeignNode) and path is None:
            finding.silenced_at = (site.path, site.lineno)
        if site is not node and path is None and isinstance(node, ast.Call):
            finding.at_call = _at_call(node, f"{what}(...)", message.partition(": ")[2] or message)
            finding.at_call.message = message
            finding.helper = _summary_at(w, node)
        finding.cut_returned = node in flow_of(w).cut_returned
        finding.every_call = event is not None and frozen(w, event)
        note_model_of(finding, w, node, model)
        w.fa.no_grad_candidates.append((_owner(w), finding))


def _rebound(w: ScopeWalker, model: str | None, first: int, last: int) -> bool:
    """The name holding ``model`` is bound to another object between two lines of the scope
    (``model = solver.model``; not ``model = model.cuda()``, the same model)."""
    root = (model or "").split(".")[0]
    scope = w.func if w.func is not None else w.fa.tree
    return bool(root) and any(
        isinstance(n, ast.Assign)
        and first < n.lineno < last
        and any(isinstance(t, ast.Name) and t.id == root for t in n.targets)
        and not any(isinstance(v, ast.Name) and v.id == root for v in walk(n.value))
        for n in walk(scope)
    )


def _record_helper_uses(w: ScopeWalker) -> None:
    """What this scope does with what the file's functions return: a graph it trains on (or
    hands to unknown code: maybe trains on), a detached tensor it makes a target of, and
    which of them it returns to its own callers (closed over in `analysis`)."""
    flow = flow_of(w)
    uses = w.fa.helper_uses
    for call in flow.trained_calls | flow.used_calls:
        uses.graph_used.append(_summary_at(w, call))
    for call in flow.used_cut_calls:
        uses.cut_used.append(_summary_at(w, call))
    for call in flow.returned_calls:
        uses.graph_links.append((w.func, _summary_at(w, call)))
    for call in flow.returned_cut_calls:
        uses.cut_links.append((w.func, _summary_at(w, call)))


def _teacher(w: ScopeWalker, event: Event) -> bool:
    """A model the method is handed, puts in eval() and does not train (a teacher)."""
    return (event.receiver or "").split(".")[0] in w.params and frozen(w, event)


def _runs_a_model_that_needs_grad(w: ScopeWalker) -> bool:
    """A model of the scope has a method that takes input gradients (V.NEEDS_GRAD)."""
    for value in w.env.values():
        if value is None or value.kind != V.MODEL:
            continue
        flags = value.flags  # (of each class it may be of: Clean|FGSM, an attack or not)
        for cls in (c for c in V.class_choices(value.cls) if c in w.fa.classes):
            flags = flags | w.fa.forward_flags(cls)
        if V.NEEDS_GRAD in flags:
            return True
    return False


def _owner(w: ScopeWalker) -> ast.AST | None:
    """Whose call sites decide whether a finding of this scope stands (None: it stands).

    A finding in a function is reported when this file calls it outside no_grad: a caller
    elsewhere may wrap it.  Not so for a function that runs ``backward()`` or ``step()`` on
    every call, itself or through a helper (``Solver.train`` called from ``main.py``, which
    calls ``self._train_epoch()``): nobody runs a training step under no_grad, so its
    evaluation part runs with autograd on.
    """
    if w.func is None or any(is_training(e) and _every_call(w, e.path) for e in w.events):
        return None
    return w.func


def _every_call(w: ScopeWalker, path: tuple) -> bool:
    """A branch path that every call of the function takes at some iteration: none, or only
    ``if i % k == 0`` gates (a GAN stepping its discriminator every ``d_every`` batches)."""
    for if_id, _ in path:
        info = w.ifs.get(if_id)
        test = getattr(info.node, "test", None) if info is not None else None
        if test is None or not any(
            isinstance(n, ast.BinOp) and isinstance(n.op, ast.Mod) for n in walk(test)
        ):
            return False
    return True


@scope_check(TW012)
def collect_frozen_teachers(w: ScopeWalker) -> None:
    """TW012 for a frozen model on the backward path: ``teacher.eval()``, never trained here,
    run on data with autograd on and its output fed to the loss. backward() then goes
    through the whole teacher for gradients nobody uses (its inputs need none, its
    parameters get no step); under torch.no_grad() the loss is the same."""
    if w.facts.grad_machinery or _freezes_parameters(w):
        return
    flow = flow_of(w)
    forwards = [e for e in w.events if e.kind == FORWARD]
    reported: set[tuple] = set()  # one finding per teacher and training iteration
    for e in forwards:
        if not frozen(w, e) or not _beside_a_trained_model(w, e, forwards):
            continue
        if (e.receiver, e.loops, _training_region(w, e)) in reported:
            continue
        # its output fed to the loss, or, in the training step, to a loss function the
        # analysis cannot see (``self.calculate_kd_loss(student_out, teacher_out, y)``)
        if e.node in flow.backprop_from_data or (
            e.node in flow.escaped_from_data and in_training_iteration(w, e, {})
        ):
            through = (
                "backward() goes through it for nothing"
                if e.node in flow.backprop_from_data
                else "its graph, handed to the loss, serves no gradient"
            )
            message = (
                f"{e.receiver}(...) is in eval() and not trained here, but runs with autograd "
                f"on and {through} (its input needs no gradient and its parameters get no "
                "step): compute it under torch.no_grad()"
            )
            line, col = e.node.lineno, e.node.col_offset + 1  # type: ignore[attr-defined]
            w.fa.no_grad_candidates.append((_owner(w), RawFinding("TW012", line, col, message)))
            reported.add((e.receiver, e.loops, _training_region(w, e)))


def _beside_a_trained_model(w: ScopeWalker, teacher: Event, forwards: list[Event]) -> bool:
    """Another model, not frozen, whose graph this scope trains on (the student): a frozen
    model's own backward alone computes gradients for something else (importance scores,
    saliency), not a waste."""
    used = flow_of(w).trained_calls | flow_of(w).escaped_from_data
    return any(
        e.receiver != teacher.receiver and e.node in used and not frozen(w, e) for e in forwards
    )


def _freezes_parameters(w: ScopeWalker) -> bool:
    """``requires_grad_(False)`` / ``p.requires_grad = False`` anywhere in the file: a frozen
    model then builds no graph at all."""
    if "_freezes_parameters" not in w.fa.__dict__:  # a fact of the file, asked by every scope
        w.fa._freezes_parameters = any(_freezes(n) for n in w.fa.nodes)
    return w.fa._freezes_parameters


def _freezes(node: ast.AST) -> bool:
    """``x.requires_grad_(False)`` or ``p.requires_grad = False`` (not ``requires_grad_()``,
    which turns gradients on)."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        if node.func.attr != "requires_grad_" or not node.args:
            return False
        return isinstance(node.args[0], ast.Constant) and node.args[0].value is False
    if isinstance(node, ast.Assign):
        return any(
            isinstance(t, ast.Attribute) and t.attr == "requires_grad" for t in node.targets
        ) and (isinstance(node.value, ast.Constant) and node.value.value is False)
    return False


def _arm_of(w: ScopeWalker, event: Event | None, reported_paths: list) -> int:
    """0, or the line of ``event`` when it runs in another arm than every finding of its
    block so far, of an if that also chooses training: ``if self.eval_mode: act(policy)
    else: explore(policy); train()`` holds two inference regions. Arms that only choose
    between two evaluations (``if loss == "a": ... else: ...``) stay one region."""
    if event is None or not reported_paths:
        return 0
    if any(compatible(path, event.path) for path in reported_paths):
        return 0
    arms = dict(event.path)
    splits = {
        if_id
        for path in reported_paths
        for if_id, branch in path
        if arms.get(if_id, branch) != branch
    }
    trains_in = {if_id for e in w.events if is_training(e) for if_id, _ in e.path}
    return getattr(event.node, "lineno", 0) if splits & trains_in else 0


def _training_region(w: ScopeWalker, event: Event | None) -> tuple[int, int]:
    """The lines between the training steps of the scope before and after ``event`` (the
    whole scope when it does not train)."""
    line = getattr(event.node, "lineno", 0) if event is not None else 0
    steps = [getattr(e.node, "lineno", 0) for e in w.events if is_training(e)]
    before = [n for n in steps if n < line]
    after = [n for n in steps if n > line]
    return (max(before) if before else 1, min(after) if after else 10**9)


def _reported_by_eval_rule(
    w: ScopeWalker, found: list, event: Event | None, model: str | None, region: tuple[int, int]
) -> bool:
    """The eval() rule already reported this model's inference in the same block: the
    innermost loop around the forward in a function that also trains, else the stretch of
    the scope between its training steps (a sampling function with two loops is one
    inference block)."""
    trains = region != (1, 10**9)
    first, last = region
    if event is not None and event.loops and trains:
        loop = w.loops[event.loops[-1]].node
        first, last = loop.lineno, getattr(loop, "end_lineno", None) or last
    elif w.func is not None and not trains:
        first, last = w.func.lineno, getattr(w.func, "end_lineno", None) or last
    # (``self`` of a trainer is no model: its student's eval() says nothing of its teacher)
    models = {model, *(p for p in _parents(model) if p != "self" or is_module_method(w))}
    since = _put_in_eval_before(w, event, models)
    if since is not None:  # the region the eval() opened: a sampling block of two loops
        first = min(first, since)
    return any(
        f.path is None and first <= f.line <= last and _names_one_of(f.message, models)
        for _, f in found
    )


def _names_one_of(message: str, models: set) -> bool:
    """The eval() rule's finding is about one of ``models`` or a part of one: ``model(...)``,
    or another file's helper running ``model.netG(...)`` (``run() (in f.py:3): model.netG(``)."""
    head, said, rest = message.partition("): ")
    name = (rest if said and " (in " in head else message).partition("(")[0]
    return any(m is not None and (name == m or name.startswith(m + ".")) for m in models)


def _put_in_eval_before(w: ScopeWalker, event: Event | None, models: set) -> int | None:
    """The line of the eval() that left the model in eval mode up to ``event`` (no train()
    since), in the same iteration of the loops around both."""
    if event is None:
        return None
    line = None
    for e in w.events[: event.seq]:
        if e.receiver not in models or e.kind not in {EVAL, TRAIN, MODE_UNKNOWN}:
            continue
        inside = e.kind == EVAL and e.loops == event.loops[: len(e.loops)]
        line = getattr(e.node, "lineno", None) if inside else None
    return line


def _method_owner(w: ScopeWalker, what: str | None) -> str | None:
    """``net`` for ``net.predict``, a method of the model ``net`` (its inference, like
    ``net(x)``'s); else ``what`` itself."""
    owner, _, method = (what or "").rpartition(".")
    value = w.lookup(owner) if owner and method else None
    return owner if value is not None and value.kind == V.MODEL else what


def _parents(model: str | None) -> list[str]:
    """``a`` and ``a.b`` for ``a.b.c``: the models a submodule's forward belongs to."""
    parts = (model or "").split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts))]
