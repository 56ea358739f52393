"""Calls of functions the analysis can follow: those of this file and of other project files.

A call of a function defined in the same file (or a method through ``self``) is recorded as
a ``call`` event carrying that function's :class:`~.events.Summary`, after telling the file
analysis what the caller passed (the seeds of the callee's parameters in the next pass).  A
function or class imported from another checked file is resolved through the
:class:`~.foreign.Foreign` facts of this file.  A function handed to trainwell's ``fit()`` as
``step_fn=`` is remembered as one that runs every training step.
"""

from __future__ import annotations

import ast
from dataclasses import replace

from . import values as V
from ._astutil import dotted, keyword, last_part, walk
from .events import (
    BACKWARD,
    CALL,
    EVAL,
    MODE_UNKNOWN,
    OPAQUE,
    STEP,
    TRAIN,
    Event,
    RawFinding,
    Summary,
    compatible,
    receiver_entry,
)
from .flow_result import RETURN_FATE
from .foreign import ForeignClass, ForeignFunction
from .mode_switch import NO_GRAD_BY_STATE, forwards_running, is_known, runs_for_call
from .scope_state import ScopeState, arg_names, class_method, passed_name
from .values import Value, normalize_receiver


class CallResolution(ScopeState):
    """Resolves and records calls of same-file and other-file functions (see module)."""

    def _function_named(
        self, node: ast.expr | None
    ) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
        """The function of this file a bare name refers to (``step = my_step``), or that
        ``functools.partial(my_step, model=model)`` binds keywords of."""
        if isinstance(node, ast.Call) and self._binds_keywords_of_a_function(node):
            node = node.args[0]
        if not isinstance(node, ast.Name):
            return None
        if node.id in self.func_aliases:
            return self.func_aliases[node.id]
        if node.id in self.local_funcs:
            return self.local_funcs[node.id]
        if node.id in self.fa.functions and node.id not in self.env:
            return self.fa.functions[node.id]
        return None

    def _binds_keywords_of_a_function(self, call: ast.Call) -> bool:
        """``partial(get_reward, model=model)``: calling it calls the function, its other
        arguments where they were (only keywords bound, so positions do not shift)."""
        resolved = self.fa.imports.resolve(call.func) or ""
        return resolved == "functools.partial" and len(call.args) == 1

    def _register_step_fn(self, call: ast.Call) -> None:
        """``tw.fit(model, data, step_fn=my_step)``: ``my_step`` runs every training step."""
        func = self._function_named(keyword(call, "step_fn"))
        if func is not None:
            self.fa.step_fns.add(func)

    def _resolve_foreign(self, func: ast.expr) -> ForeignClass | ForeignFunction | None:
        """A class or function imported from another file of the project, if ``func`` is one."""
        foreign = self.fa.foreign
        name = dotted(func)
        if foreign is None or name is None:
            return None
        root = name.partition(".")[0]
        if root in self.env or root in self.local_funcs or root in self.func_aliases:
            return None  # rebound here
        if self.func is not None and root in self.fa.module_env:
            return None
        if "." not in name:
            if name in self.fa.functions or name in self.fa.classes:
                return None
            return foreign.names.get(name)
        module, _, attr = name.rpartition(".")
        return foreign.modules.get(module, {}).get(attr)

    def _argmap(
        self,
        call: ast.Call,
        params: list[str],
        arg_vals: list[Value | None],
        kw_vals: dict[str | None, Value | None],
    ) -> tuple[dict[str, str], dict[str, Value | None]]:
        """Caller's names and values for a callee's parameters."""
        argmap: dict[str, str] = {}
        values: dict[str, Value | None] = {}
        if not any(isinstance(a, ast.Starred) for a in call.args):
            for param, arg, value in zip(params, call.args, arg_vals, strict=False):
                values[param] = _function_or(value, arg, param)
                if passed_name(arg):
                    argmap[param] = passed_name(arg)  # type: ignore[assignment]
        for kw in call.keywords:
            if kw.arg in params:
                values[kw.arg] = _function_or(kw_vals.get(kw.arg), kw.value, kw.arg)
                if passed_name(kw.value):
                    argmap[kw.arg] = passed_name(kw.value)  # type: ignore[assignment]
        return argmap, values

    def _foreign_call(
        self,
        call: ast.Call,
        func: ForeignFunction,
        arg_vals: list[Value | None],
        kw_vals: dict[str | None, Value | None],
    ) -> Value | None:
        summary = forwards_running(func, call)
        argmap, values = self._argmap(call, summary.params, arg_vals, kw_vals)
        if "." in func.name:  # a method: engine.eval(x, y), agent.set_eval()
            argmap.update(receiver_entry(call))
        self.emit(CALL, call, summary=summary, argmap=argmap, args=arg_names(call))
        self._kept_by_the_object(call, summary, values, arg_vals, kw_vals)
        if not self.no_grad() and not _self_switched(arg_vals, kw_vals):
            self._foreign_candidates(call, func, values=values)
        handed_back = _model_handed_back(summary, values)
        if handed_back is None and func.returned_class is not None:
            # model = create_model(opt): an object of a class of the project, its methods
            # known (model.switch_to_eval(), model.evaluate(x))
            cls = func.returned_class
            self.fa.foreign_objects[cls.name] = cls
            return Value(V.MODEL if cls.is_module else V.OBJECT, cls=cls.name, flags=cls.flags)
        return handed_back if handed_back is not None else summary.returns

    def _foreign_candidates(
        self,
        call: ast.Call,
        func: ForeignFunction,
        how: str = "",
        values: dict[str, Value | None] | None = None,
    ) -> None:
        """The helper's own eval() + forward without no_grad, run with autograd on here: it
        stands where this scope runs with autograd on (resolved with the file's other TW012
        candidates), said at the call, where the caller can wrap it; a training function's
        own evaluation is said at its forward, never at the call."""
        if not self.fa.collect:
            return
        summary = func.summary
        for cand in func.candidates:
            if not runs_for_call(func, cand.line, call):
                continue  # plot_sdf(model, is_net=True): that arm does not run
            passed = (values or {}).get(cand.model_param or "")
            if passed is not None and passed.kind == V.FUNCTION:
                continue  # evaluate(agent.get_action, env): the "model" is a function
            if cand.model_method in self.no_grad_methods(passed):
                continue  # model.predict(x) of a class whose predict is @torch.no_grad()
            if summary.trains and func.checked:
                self.foreign_candidates.append(
                    RawFinding(cand.code, cand.line, cand.col, cand.message, cand.path or func.path)
                )
            elif not summary.trains and self._first_foreign_report(func, cand, call):
                self.foreign_candidates.append(_said_at(call, func, cand, how))
        for cand in func.own_evaluation:
            if runs_for_call(func, cand.line, call) and self._first_foreign_report(
                func, cand, call
            ):
                finding = _said_at(call, func, cand, how)
                finding.in_a_training_call = True
                self.foreign_candidates.append(finding)
        for cand in func.cut_candidates if not summary.trains else ():
            passed = (values or {}).get(cand.model_param or "")
            if (passed is None or passed.kind != V.FUNCTION) and self._first_foreign_report(
                func, cand, call
            ):
                finding = _said_at(call, func, cand, how)
                finding.returned_by = call
                self.foreign_candidates.append(finding)

    def hand_over(self, run: ast.Call) -> None:
        """``Process(target=evaluate, args=(model, loader))``, ``pool.map(f, xs)``: the
        function runs in a new thread or process, where autograd is on whatever this scope's
        mode (see :mod:`.handover`).  Recorded as a call made with autograd on and by no
        caller whose own callers could turn it off; nothing it does to a model's mode or
        graph comes back here."""
        local = self._resolve_local(run.func)
        if local is not None:
            func, via_self = local
            params = [
                a.arg for a in [*func.args.posonlyargs, *func.args.args, *func.args.kwonlyargs]
            ]
            params = _called_params(func, params, via_self)
            arg_vals = [self.ev(a) for a in run.args]
            kw_vals = {kw.arg: self.ev(kw.value) for kw in run.keywords}
            _, values = self._argmap(run, params, arg_vals, kw_vals)
            self.fa.record_call(func, params, values, False, None, run)
            self.fa.handed_over.add(func)
            return
        foreign = self._resolve_foreign(run.func)
        if isinstance(foreign, ForeignFunction):
            self._foreign_candidates(run, foreign, " in a new thread or process")

    def _as_switched(
        self, call: ast.Call, func: ast.FunctionDef | ast.AsyncFunctionDef, summary: Summary | None
    ) -> Summary | None:
        """What a call of a train-or-evaluate function does with the literal it passes:
        ``run_epoch(loader, mode="eval")`` runs none of its backward() calls, so it trains
        nothing, and its forwards with autograd on are inference (TW012, said here)."""
        if summary is None or not summary.trains:
            return summary
        switched = next(
            (
                (switch, value)
                for switch in self.fa.training_switches(func)
                for value in [switch.value_at(call)]
                if is_known(value) and switch.trains_with(value) is False
            ),
            None,
        )
        if switched is None:
            return summary
        switch, value = switched
        inference = replace(
            summary,
            backward=[],
            steps=[],
            train_loop=False,
            sched_steps=set(),
            epoch_schedules_each_call=[],
        )
        self.fa.switched_off.add(func)  # its inference is judged at such calls, not inside
        if not self._runs_inference(
            func, summary, switch.reaches(func, summary.grad_forwards, value)
        ):
            # iterate(model, loader, mode="val"): only the forwards of the arm it takes
            inside = {id(n) for n in walk(func)}
            forwards = {
                k: n
                for k, n in summary.forwards.items()
                if id(n) not in inside or switch.reaches(func, [n], value)
            }
            return replace(inference, forwards=forwards)
        if self._first_report(("switch", func)):
            # stands where this scope is run outside no_grad, as a finding of its own
            finding = RawFinding(
                "TW012",
                call.lineno,
                call.col_offset + 1,
                f"{dotted(call.func)}(...) with {switch.param}={value!r} runs none of its "
                "backward() calls, but its forward passes run with autograd on: autograd "
                "records a graph for nothing; call it under torch.no_grad() or "
                "torch.inference_mode()",
            )
            # it stands where this scope runs with autograd on, or without a caller in sight
            # when the scope trains on every call (decided once the scope is walked)
            self.foreign_candidates.append(finding)
        return replace(inference, forwards={})  # reported here, not again by the eval() rule

    def _runs_inference(self, func: ast.AST, summary: Summary, forwards_run: bool) -> bool:
        """The function runs a model forward with autograd on that no caller can train on
        (``forwards_run``: one of its forwards is on the path the call's literal takes)."""
        if not self.fa.collect or self.no_grad() or summary.returns_graph:
            return False
        if self.fa.facts_of(func).grad_machinery or _sets_autograd(func):
            return False  # ``with (enable_grad if train else no_grad)():`` decides inside
        if summary.grad_forwards:
            return forwards_run
        if summary.forwards or summary.discards:
            return True
        # forwards of its inference branches whose graphs nothing uses (grad_flow)
        return any(owner is func for owner, _ in self.fa.no_grad_candidates)

    def _first_report(self, what: object) -> bool:
        """One finding per ``what``, loop nest of this scope and stretch between training
        steps (two calls in a row are one evaluation; one before fine-tuning and one after
        are two)."""
        what = (
            what,
            sum(
                e.kind == STEP or bool(e.kind == CALL and e.summary and e.summary.steps)
                for e in self.events
            ),
        )
        key = (what, tuple(self.loop_stack))
        if key in self.foreign_reported:
            return False
        path = tuple(self.path)
        if not self._in_a_training_loop():
            # the other arm of an if already runs it (an evaluation-only run that takes one
            # checkpoint or several): one evaluation either way; a training run's
            # validation is another region
            if any(w == what and not compatible(p, path) for w, p in self.reported_arms):
                return False
            self.reported_arms.append((what, path))
        self.foreign_reported.add(key)
        return True

    def _in_a_training_loop(self) -> bool:
        """The innermost loop around here has trained by now."""
        if not self.loop_stack:
            return False
        loop = self.loop_stack[-1]
        return any(
            loop in e.loops
            and (
                e.kind in {BACKWARD, STEP}
                or (e.kind == CALL and e.summary is not None and e.summary.trains)
            )
            for e in self.events
        )

    def _first_foreign_report(
        self, func: ForeignFunction, cand: RawFinding, call: ast.Call
    ) -> bool:
        """One finding per helper's forward, model handed to it and loop nest of this scope:
        two calls in a row (``test_img(net, train_set)``, ``test_img(net, test_set)``) are
        one evaluation, and so are two helpers that run the same forward
        (``log_pre_update()`` and ``log_post_update()`` both calling ``get_accuracy()``);
        ``eval(loader, model)`` then ``eval(loader, swa_model)`` are two."""
        model = _name_passed(call, func.summary.params, cand.model_param)
        value = (self.lookup(model) or V.value_from_name(model)) if model else None
        if value is None or value.kind != V.MODEL:
            model = None  # (an encoder of the data, fitted or not, in the arms of an if)
        return self._first_report((func.path, cand.line, model))

    def _mode_passed(self, name: str | None, value: Value | None) -> Value | None:
        """A model handed over while this scope has it in eval() carries the fact to the
        callee (a teacher there is frozen); one put back in train() (or handed to code that
        may change its mode) loses it."""
        if name is None or (value is not None and value.kind != V.MODEL):
            return value
        key = self.model_key(name)
        if key not in self.evaluated and (value is None or V.EVAL_WHEN_PASSED not in value.flags):
            return value  # (no eval() of it in sight: nothing to pass on)
        state = None
        for e in self.events:
            if e.receiver == key and e.kind in {EVAL, TRAIN, MODE_UNKNOWN}:
                state = e.kind
            elif e.kind in {CALL, OPAQUE} and key in e.args:
                state = _mode_after(e, key, state)
        if state == EVAL:  # (only a module has eval())
            return (value or Value(V.MODEL)).plus(V.EVAL_WHEN_PASSED)
        return value if state is None or value is None else value.minus(V.EVAL_WHEN_PASSED)

    def _resolve_local(
        self, func: ast.expr
    ) -> tuple[ast.FunctionDef | ast.AsyncFunctionDef, bool] | None:
        if isinstance(func, ast.Name):
            if func.id in self.local_funcs:
                return self.local_funcs[func.id], False
            if func.id in self.func_aliases:  # train = train_nll; train(...)
                return self.func_aliases[func.id], False
            if func.id in self.fa.functions and func.id not in self.env:
                return self.fa.functions[func.id], False
            return None
        if (
            isinstance(func, ast.Attribute)
            and isinstance(func.value, ast.Name)
            and func.value.id == "self"
            and self.cls is not None
        ):
            # its own method, or one a base class of this file defines
            method = class_method(self.fa.classes, self.cls.node.name, func.attr)
            return (method, True) if method is not None else None
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            # ``cls.valid(...)`` in a classmethod, ``Utils.valid(...)``: a static or class
            # method of a class of this file (an instance method needs its instance)
            owner = func.value.id
            if owner == "cls" and self.cls is not None:
                owner = self.cls.node.name
            if owner not in self.fa.classes or owner in self.env:
                return None
            method = class_method(self.fa.classes, owner, func.attr)
            if method is not None and _bound_to_class(method):
                return method, self.cls is not None and owner == self.cls.node.name
        return None

    def _local_call(
        self,
        call: ast.Call,
        func: ast.FunctionDef | ast.AsyncFunctionDef,
        via_self: bool,
        arg_vals: list[Value | None],
        kw_vals: dict[str | None, Value | None],
        instance: bool = False,
    ) -> Value | None:
        """``instance``: ``obj.m(...)`` on an instance from outside its class (``self`` is
        bound, but the callee's ``self.x`` is not the caller's)."""
        params = [a.arg for a in [*func.args.posonlyargs, *func.args.args, *func.args.kwonlyargs]]
        params = _called_params(func, params, via_self)
        argmap, values = self._argmap(call, params, arg_vals, kw_vals)
        values = {
            k: self._mode_passed(argmap.get(k), _rename_alias(v, argmap)) for k, v in values.items()
        }
        self.fa.record_call(func, params, values, self.no_grad(), self.func, call)
        for other in self._other_choices(call, func):
            self.fa.record_call(other, params, values, self.no_grad(), self.func, call)
        summary = (
            self.fa.summary_of(func)
            if func not in self.local_funcs.values()
            else (self.fa.summaries.get(func))
        )
        summary = self._as_switched(call, func, summary)
        if instance:
            argmap.update(receiver_entry(call))
        self.emit(CALL, call, summary=summary, argmap=argmap, same_class=via_self and not instance,
                  args=arg_names(call))  # fmt: skip
        if summary is not None:
            self._kept_by_the_object(call, summary, values, arg_vals, kw_vals)
        return summary.returns if summary is not None else None

    def _kept_by_the_object(
        self,
        call: ast.Call,
        summary: Summary,
        values: dict[str, Value | None],
        arg_vals: list[Value | None],
        kw_vals: dict[str | None, Value | None],
    ) -> None:
        """``loss_meter.update(loss, n)`` whose method adds ``val`` to ``self.sum``: the
        loss is accumulated into the meter, as ``total += loss`` would be (TW011)."""
        if not summary.kept_params or not isinstance(call.func, ast.Attribute):
            return
        holder = dotted(call.func.value)
        if holder is None or holder == "self":
            return
        kept = [values.get(p) for p in summary.kept_params if p in summary.params]
        if summary.kept_params - set(summary.params):  # update(**kwargs): what it was given
            named = set(summary.params)
            kept += [v for k, v in kw_vals.items() if k not in named]
            kept += arg_vals[len(summary.params) :]
        for value in kept:
            self._at_accumulate(holder, value, call)

    def _other_choices(
        self, call: ast.Call, func: ast.FunctionDef | ast.AsyncFunctionDef
    ) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
        """The other functions a name called here was bound to in another branch (``test =
        test_nll`` or ``test = test_dice``): each is called here; so is, for
        ``self.validate(...)``, each override of ``validate`` in a subclass of the file."""
        if _on_self(call):
            return self.fa.overrides_of(func)  # type: ignore[return-value]
        if not isinstance(call.func, ast.Name):
            return []
        choices = self.alias_choices.get(call.func.id, [])
        return [f for f in dict.fromkeys(choices) if f is not func]


def _on_self(call: ast.Call) -> bool:
    func = call.func
    return (
        isinstance(func, ast.Attribute)
        and isinstance(func.value, ast.Name)
        and func.value.id == "self"
    )


def _rename_alias(value: Value | None, argmap: dict[str, str]) -> Value | None:
    """Translate an optimizer's model alias from the caller's names to the callee's."""
    if value is None or value.alias is None:
        return value
    for param, arg in argmap.items():
        if normalize_receiver(arg) == value.alias:
            return Value(value.kind, value.cls, param, value.flags, value.node)
    return value


_AUTOGRAD_SWITCHES = {"no_grad", "enable_grad", "set_grad_enabled", "inference_mode"}


def _sets_autograd(func: ast.AST) -> bool:
    """The function names an autograd switch that may turn autograd off for its forwards
    (``with (enable_grad if train else no_grad)():``, ``set_grad_enabled(train)``). A plain
    ``with torch.no_grad():`` block is not one: what runs inside it is known already."""
    fixed = {
        id(item.context_expr.func)
        for node in walk(func)
        if isinstance(node, (ast.With, ast.AsyncWith))
        for item in node.items
        if isinstance(item.context_expr, ast.Call)
        and not item.context_expr.args
        and not item.context_expr.keywords
        and last_part(dotted(item.context_expr.func)) in {"no_grad", "inference_mode"}
    }
    return any(
        id(n) not in fixed
        and (
            (isinstance(n, ast.Attribute) and n.attr in _AUTOGRAD_SWITCHES)
            or (isinstance(n, ast.Name) and n.id in _AUTOGRAD_SWITCHES)
        )
        for n in walk(func)
    )


def _function_or(value: Value | None, arg: ast.expr, param: str) -> Value | None:
    """What the caller passes: its value, or a function when its name says so and the
    parameter's name would make it a model (``policy`` given ``agent.get_action``)."""
    if value is None and V.names_a_function(arg):
        by_name = V.value_from_name(param)
        if by_name is not None and by_name.kind == V.MODEL:
            return Value(V.FUNCTION)
    return value


def _self_switched(arg_vals: list[Value | None], kw_vals: dict[str | None, Value | None]) -> bool:
    """A model handed to the helper turns autograd off itself, as its own state says
    (``if not self.trainable: return self.inference(x)``): its forwards there may be."""
    return any(
        v is not None and v.kind == V.MODEL and NO_GRAD_BY_STATE in v.flags
        for v in [*arg_vals, *kw_vals.values()]
    )


def _model_handed_back(summary: Summary, values: dict[str, Value | None]) -> Value | None:
    """``cc(AE(config))`` where another file's ``def cc(net): return net.to(device)``: a
    function that returns the one model it is given hands back that model, class and all."""
    if summary.returns is not None and summary.returns.kind != V.MODEL:
        return None
    models = [
        (param, value)
        for param, value in values.items()
        if value is not None and value.kind == V.MODEL and value.cls
    ]
    if len(models) != 1:
        return None
    param, model = models[0]
    return model if RETURN_FATE in summary.param_fates.get(param, frozenset()) else None


def _name_passed(call: ast.Call, params: list[str], param: str | None) -> str | None:
    """The caller's name for the callee's parameter ``param`` at ``call``."""
    if param is None:
        return None
    for kw in call.keywords:
        if kw.arg == param:
            return passed_name(kw.value)
    index = params.index(param) if param in params else len(call.args)
    starred = any(isinstance(a, ast.Starred) for a in call.args[: index + 1])
    return passed_name(call.args[index]) if index < len(call.args) and not starred else None


def _mode_after(call: Event, key: str, state: str | None) -> str | None:
    """The mode of the caller's model ``key`` after a call it is handed to: as the callee's
    summary leaves it, unknown when the callee is out of sight."""
    if call.kind != CALL or call.summary is None:
        return MODE_UNKNOWN
    for param, effect in call.summary.modes.items():
        if normalize_receiver(call.argmap.get(param)) == key and effect.final is not None:
            state = {"eval": EVAL, "train": TRAIN}.get(effect.final, MODE_UNKNOWN)
    return state


def _said_at(call: ast.Call, func: ForeignFunction, cand: RawFinding, how: str) -> RawFinding:
    """Another file's TW012 said at its call here, where the caller can wrap it."""
    return RawFinding(
        cand.code,
        call.lineno,
        call.col_offset + 1,
        f"{dotted(call.func)}(){how} (in {func.path}:{cand.line}): {cand.message}",
        silenced_at=(cand.path or func.path, cand.line),
    )


def _decorated(func: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> bool:
    return any(dotted(d) == name for d in func.decorator_list)


def _bound_to_class(func: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """A ``@staticmethod`` or ``@classmethod``: callable on the class itself."""
    return _decorated(func, "staticmethod") or _decorated(func, "classmethod")


def _called_params(
    func: ast.FunctionDef | ast.AsyncFunctionDef, params: list[str], via_self: bool
) -> list[str]:
    """The parameters a call's arguments fill: without ``self`` (a call through self) or
    ``cls`` (a classmethod, however it is called), all of a staticmethod's."""
    if _decorated(func, "staticmethod") or not params:
        return params
    if (via_self and params[0] == "self") or _decorated(func, "classmethod"):
        return params[1:]
    return params
