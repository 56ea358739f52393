"""Abstract evaluation of expressions, and the binding of their values to names.

:meth:`ExpressionWalker.ev` computes the :class:`~.values.Value` of an expression (what
kind of object it is: a loss, a model output, a tensor from the loader ...) and, through
:meth:`~ExpressionWalker.ev_call`, emits the events of the calls inside it, trying in turn
the functions the analysis can follow (:class:`~.call_resolution.CallResolution`) and the
recognised objects and library functions (:class:`~.call_effects.CallEffects`).
:meth:`~ExpressionWalker.bind` stores values in the environment, including tuple unpacking
and ``accelerator.prepare(...)``; arithmetic on losses keeps track of their scaling.
"""

from __future__ import annotations

import ast
import re

from . import values as V
from ._astutil import dotted, last_part, walk
from .call_effects import CallEffects, detached, is_loss_module, runs_forward
from .call_resolution import CallResolution
from .events import CALL, OPAQUE
from .foreign import ForeignClass, ForeignFunction
from .graph_calls import NOT_FOLLOWED_METHODS
from .handover import handed_over, mapped_here
from .scope_state import NOTHING, arg_names, class_method, container_of
from .values import Value, merge

TRAINWELL_FIT = {"trainwell.fit", "trainwell.loop.fit", "trainwell.loop.fit.fit"}


class ExpressionWalker(CallResolution, CallEffects):
    """Evaluates expressions and binds names (see module)."""

    # -- binding --------------------------------------------------------------------------
    def bind(self, target: ast.expr, value: Value | None, value_node: ast.expr | None) -> None:
        if isinstance(target, (ast.Tuple, ast.List)):
            self._bind_tuple(target, value, value_node)
            return
        if isinstance(target, ast.Starred):
            self.bind(target.value, None, None)
            return
        if isinstance(target, ast.Subscript):
            self.ev(target.slice)
            container = dotted(target.value)
            if _to_number(value, value_node) and self._every_key(target, container):
                # for k, v in losses.items(): losses[k] = v.item(): a dict of numbers now
                self.env[container] = Value(V.NUMBER)  # type: ignore[index]
                return
            fixed = isinstance(target.slice, ast.Name) and target.slice.id in self.params
            if not (isinstance(target.slice, ast.Constant) or fixed):
                # losses["d"] = d_loss, or self.losses[name] of the method's parameter,
                # overwrites one slot per call: it keeps one graph, not a history
                self._at_accumulate(container_of(target.value), value, target)
            return
        name = dotted(target)
        if name is None:
            return
        if value is None and self._rebound_to_a_function(name, value_node):
            value = Value(V.FUNCTION)
        added = V.added_to(name, value_node)
        if added is not None:  # total = total + loss: as total += loss
            self._at_accumulate(name, self.lookup(dotted(added)), value_node)  # type: ignore[arg-type]
        if (
            (name in self.backward_names or self._loss_term(name, value_node))
            and (value is None or value.kind in {V.TENSOR, V.OUTPUT})
            and not (value_node is not None and detached(value_node))
            and not _arithmetic_on_a_number(value_node)
            and not self._after_every_backward(name, value_node)
        ):
            # loss = model(batch), loss = out["loss"]: the model's own loss, as it gave it
            raw = self._from_model_output(value, value_node)
            value = Value(V.LOSS, flags=frozenset({V.UNSCALED}) if raw else frozenset())
            if raw and _graphless_output(self, value_node):
                value = Value(V.TENSOR)  # the output of a forward run under no_grad
        if value is None and not self.no_grad() and name not in self.backward_involved:
            value = Value(V.LOSS) if V.hand_written_loss(name, value_node, self.lookup) else None
        if value is not None and value.kind == V.LOSS and self.surely_no_grad[-1]:
            value = Value(V.TENSOR)  # a loss computed under torch.no_grad(): no graph
        self.env[name] = value
        self.bind_loops[name] = tuple(self.loop_stack)
        if self.cls is not None and name.startswith("self.") and name.count(".") == 1:
            attr = name[5:]
            value = V.as_attribute(value)
            previous = self.cls.attrs.get(attr, value)
            # self.scheduler = None where there is none: the attribute, when set, is the other
            none = isinstance(value_node, ast.Constant) and value_node.value is None
            if not self.fa.collect and not none:
                joined = value if previous == value else V.merge_binding(previous, value)
                self.cls.attrs[attr] = joined

    def _every_key(self, target: ast.Subscript, container: str | None) -> bool:
        """``d[k] = ...`` in a loop over every key of ``d`` (``for k, v in d.items()``)."""
        if container is None or not isinstance(target.slice, ast.Name) or not self.loop_stack:
            return False
        loop = self.loops[self.loop_stack[-1]].node
        if not isinstance(loop, (ast.For, ast.AsyncFor)):
            return False
        it, keys = loop.iter, loop.target
        if isinstance(it, ast.Call) and dotted(it.func) == "enumerate" and it.args:
            it = it.args[0]
            keys = keys.elts[1] if isinstance(keys, ast.Tuple) and len(keys.elts) == 2 else keys
        if isinstance(it, ast.Call) and isinstance(it.func, ast.Attribute) and not it.args:
            if it.func.attr not in {"items", "keys"}:
                return False
            it = it.func.value
        if dotted(it) != container:
            return False
        first = keys.elts[0] if isinstance(keys, ast.Tuple) and keys.elts else keys
        return isinstance(first, ast.Name) and first.id == target.slice.id

    def _bind_tuple(
        self, target: ast.Tuple | ast.List, value: Value | None, value_node: ast.expr | None
    ) -> None:
        if (
            isinstance(value_node, ast.Call)
            and isinstance(value_node.func, ast.Attribute)
            and (
                value_node.func.attr == "prepare"
                or (value_node.func.attr == "initialize" and dotted(value_node.func.value) == "amp")
            )
            and len(value_node.args) == len(target.elts)
        ):
            # accelerator.prepare(model, optimizer, loader) returns the same objects, wrapped;
            # so does apex's amp.initialize(model, optimizer, opt_level=...).
            for elt, arg in zip(target.elts, value_node.args, strict=True):
                self.bind(elt, self.lookup(dotted(arg)), None)
            return
        engine_of = _deepspeed_model(value_node)
        if engine_of is not None and target.elts:
            # engine, optimizer, _, _ = deepspeed.initialize(model=model, ...): the engine
            # wraps the model (engine.train() switches the model)
            first = target.elts[0]
            self.bind(first, Value(V.MODEL, alias=self.model_key(engine_of)), None)
            for elt in target.elts[1:]:
                self.bind(elt, None, None)
            return
        # loss, metrics = train_step(...): what each position of its returns holds
        elements = self._returned_elements(value_node, len(target.elts))
        for index, elt in enumerate(target.elts):
            name = dotted(elt.value if isinstance(elt, ast.Starred) else elt) or ""
            returned = elements[index] if elements else None
            if not _sure_of(returned):
                returned = _element_of(value, name)  # a weak guess: the name says more
            self.bind(elt, returned, None)

    def _loss_term(self, name: str, value_node: ast.expr | None) -> bool:
        """``rpn_cls_loss = torch.mean(outputs["losses"][0])``, a term of the loss that is
        backpropagated (``loss = rpn_cls_loss * w + ...``): named a loss, it is one (not
        ``loss = losses.mean().item()``, nor a rebinding after the last backward())."""
        if "." in name or "loss" not in name.lower() or name not in self.backward_involved:
            return False
        cut = (
            isinstance(value_node, ast.Call)
            and isinstance(value_node.func, ast.Attribute)
            and value_node.func.attr in {"item", "tolist", "numpy"}
        )
        return not cut and not self._after_every_backward(None, value_node)

    def _after_every_backward(self, name: str | None, value_node: ast.expr | None) -> bool:
        """``loss = binary_entropy(targets, preds)`` after the loop that ran
        ``loss.backward()`` (any backward() with ``name`` None): a number for the report,
        not the loss of a step."""
        line = getattr(value_node, "lineno", 0)
        scope = self.func if self.func is not None else self.fa.tree
        lines = [
            n.lineno
            for n in walk(scope)
            if isinstance(n, ast.Call)
            and isinstance(n.func, ast.Attribute)
            and n.func.attr == "backward"
            and (name is None or dotted(n.func.value) == name)
        ]
        return bool(lines) and line > max(lines) and not self.loop_stack

    def _returned_elements(
        self, value_node: ast.expr | None, size: int
    ) -> tuple[Value | None, ...] | None:
        """What each position of the tuple a called function returns holds."""
        if not isinstance(value_node, ast.Call):
            return None
        for e in reversed(self.events):
            if e.node is value_node and e.kind == CALL and e.summary is not None:
                elements = e.summary.returned_elements
                return elements if elements is not None and len(elements) == size else None
        return None

    # -- expression evaluation ------------------------------------------------------------
    def ev(self, node: ast.AST | None) -> Value | None:
        """Evaluate an expression abstractly, emitting events for the calls inside it."""
        if node is None:
            return None
        if isinstance(node, ast.Call):
            return self.ev_call(node)
        if isinstance(node, (ast.Name, ast.Attribute)):
            return self.ev_name(node)
        if isinstance(node, ast.BinOp):
            return V.binop_value(node.op, self.ev(node.left), self.ev(node.right))
        if isinstance(node, ast.UnaryOp):
            operand = self.ev(node.operand)
            return operand if operand is not None and operand.kind == V.LOSS else None
        if isinstance(node, ast.Subscript):
            base = self.ev(node.value)
            self.ev(node.slice)
            if base is not None and base.kind == V.LOSS and _names_no_loss(node.slice):
                return None  # losses["predicted_labels"]: what the loss function also hands back
            return V.subscript_value(base)
        if isinstance(node, ast.Constant):
            return Value(V.NUMBER) if isinstance(node.value, (int, float)) else None
        if isinstance(node, ast.IfExp):
            self.ev(node.test)
            return merge(self.ev(node.body), self.ev(node.orelse))
        if isinstance(node, ast.NamedExpr):
            value = self.ev(node.value)
            self.bind(node.target, value, node.value)
            return value
        if isinstance(node, ast.Lambda):
            return None
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
            return self._comprehension(node)
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.expr):
                self.ev(child)
        return None

    def _comprehension(
        self, node: ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp
    ) -> None:
        # Comprehension variables do not leak: evaluate inside a saved environment.
        saved, saved_loops = dict(self.env), dict(self.bind_loops)
        for gen in node.generators:
            self.ev(gen.iter)
            self.bind(gen.target, None, None)
            for cond in gen.ifs:
                self.ev(cond)
        if isinstance(node, ast.DictComp):
            self.ev(node.key)
            self.ev(node.value)
        else:
            self.ev(node.elt)
        self.env, self.bind_loops = saved, saved_loops
        return None

    def ev_name(self, node: ast.Name | ast.Attribute) -> Value | None:
        name = dotted(node)
        if name is not None and not isinstance(node, ast.Attribute):
            return self.lookup(name)
        assert isinstance(node, ast.Attribute)
        if name is not None and (name in self.env or name.startswith("self.")):
            value = self.lookup(name)
            if value is not None:
                return value
        base = self.ev(node.value)
        attr = node.attr
        if base is not None:
            if base.kind == V.MODEL and attr == "module":
                return base  # DDP / DataParallel's wrapped model: the same model
            if base.kind == V.OUTPUT and attr == "loss":
                if V.NO_GRAPH in base.flags:  # with torch.no_grad(): out = model(**b)
                    return Value(V.TENSOR)
                return Value(V.LOSS, flags=frozenset({V.UNSCALED}))
            if base.kind == V.OUTPUT and attr == "logits":
                return Value(V.TENSOR, flags=base.flags)
            if base.kind == V.LOSS and attr in V.GRAPH_CUTTING:
                return Value(V.NUMBER)
            if base.kind == V.BATCH:
                return Value(V.TENSOR, flags=frozenset({V.FROM_LOADER}))
        if name is not None and base is None:
            return self.lookup(name) or V.meter_reading(attr)  # cur_loss = meter.avg
        return V.meter_reading(attr) if base is None else None

    def ev_call(self, call: ast.Call) -> Value | None:
        func = call.func
        if (
            isinstance(func, ast.Name)
            and func.id in self.class_aliases
            and self.lookup(func.id) is None
        ):  # agent = RNDAgent; agent(...): the class's call
            func = self.class_aliases[func.id]
            if isinstance(func, ast.IfExp):  # Policy = A if c else B: an object of either
                return V.merge(*(self._class_call(arm, call) for arm in (func.body, func.orelse)))
            call = ast.copy_location(ast.Call(func, call.args, call.keywords), call)
        qual = self.fa.imports.resolve(func)
        recv_node: ast.expr | None = None
        recv_val: Value | None = None
        func_val: Value | None = None
        if isinstance(func, ast.Attribute):
            recv_node = func.value
            recv_val = self.chosen_class(self.ev(recv_node), func.attr)
        elif isinstance(func, ast.Name):
            func_val = self.lookup(func.id) if func.id in self.env else None
        else:
            func_val = self.ev(func)
        arg_vals = [self.ev(a) for a in call.args]
        kw_vals = {kw.arg: self.ev(kw.value) for kw in call.keywords}

        if qual in TRAINWELL_FIT:
            self._register_step_fn(call)
        if (run := handed_over(call, qual)) is not None:
            self.hand_over(run)  # Process(target=f, ...): f runs with autograd on
        if (mapped := mapped_here(call, qual)) is not None:
            self._run_mapped(mapped)  # list(map(lambda b: val_one_epoch(b), loader))
        if isinstance(func, ast.Attribute) and func.attr == "zero_grad":
            # graph.zero_grad() of any class, this file's or another's, clears gradients
            return self._method_call(call, "zero_grad", recv_node, recv_val, arg_vals)  # type: ignore[return-value]
        local = self._resolve_local(func)
        if local is not None:
            return self._local_call(call, *local, arg_vals, kw_vals)
        method = self._instance_method(recv_val, func) or self._dunder_call(func)
        if method is not None:  # agent.select_action(s): a method of a class of this file
            return self._local_call(call, method, True, arg_vals, kw_vals, instance=True)
        foreign_method = self._foreign_method(recv_val, func) or self._foreign_dunder_call(func)
        if foreign_method is None and self.cls is not None and dotted(recv_node) == "self":
            foreign_method = self._inherited_method(self.cls.node, func.attr)  # type: ignore[union-attr]
        if foreign_method is not None:  # engine.eval(x, y): engine = Trainer(...) elsewhere
            return self._foreign_call(call, foreign_method, arg_vals, kw_vals)
        foreign = self._resolve_foreign(func)
        if isinstance(foreign, ForeignFunction):
            return self._foreign_call(call, foreign, arg_vals, kw_vals)
        if isinstance(foreign, ForeignClass):
            # a model class of another file: its forward()'s softmax comes with it
            if foreign.is_module and is_loss_module(foreign.name):
                return Value(V.CRITERION, cls=foreign.name)  # criterion = CrossEntropyLoss2d()
            if foreign.is_module:
                if foreign.methods:  # net.predict(x) of a model class of another file
                    self.fa.foreign_objects[foreign.name] = foreign
                return Value(V.MODEL, cls=foreign.name, flags=foreign.flags)
            if not foreign.methods:
                return None
            self.fa.foreign_objects[foreign.name] = foreign
            return Value(V.OBJECT, cls=foreign.name)
        if isinstance(func, ast.Attribute) and not self._is_module_path(recv_node):
            result = self._method_call(call, func.attr, recv_node, recv_val, arg_vals)
            if result is not NOTHING:
                return result  # type: ignore[return-value]
        result = self._function_call(call, qual, arg_vals, kw_vals)
        if result is not NOTHING:
            return result  # type: ignore[return-value]
        callee_val = func_val if not isinstance(func, ast.Attribute) else None
        if isinstance(func, ast.Attribute) and self._own_method(recv_val, func.attr):
            # pi.train_net(...): a method of the model's class, not a submodule called
            self.emit(OPAQUE, call, args=arg_names(call))
            return None
        if callee_val is None and isinstance(func, (ast.Name, ast.Attribute)):
            callee_val = self.lookup(dotted(func))
            if _action_name(func, callee_val, self.env):
                callee_val = None  # evaluate_model(...) from a star import: a function
        if callee_val is not None:
            return self._call_value(call, callee_val, arg_vals)
        self.opaque(call, [*arg_vals, *kw_vals.values()])
        return None

    def _run_mapped(self, mapped: ast.Lambda | ast.Call) -> None:
        if isinstance(mapped, ast.Call):
            self.ev(mapped)
            return
        own = {
            a.arg for a in [*mapped.args.posonlyargs, *mapped.args.args, *mapped.args.kwonlyargs]
        }
        shadowed = {name: self.env.pop(name) for name in own if name in self.env}
        self.ev(mapped.body)
        self.env.update(shadowed)

    def _rebound_to_a_function(self, name: str, node: ast.expr | None) -> bool:
        """``model = lambda x: session.run(...)`` after ``model`` held a module: the name now
        holds a function of other code (an ONNX session), not the module it held before; a
        lambda over tensors, models or this file's functions (``net = lambda X: linreg(X, w,
        b)``) may be a model written as a function."""
        previous = self.env.get(name)
        if not isinstance(node, ast.Lambda) or previous is None or previous.kind != V.MODEL:
            return False
        own = {a.arg for a in [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]}
        for used in walk(node.body):
            if not isinstance(used, ast.Name) or used.id in own:
                continue
            value = self.lookup(used.id)
            if value is not None and value.kind in {V.MODEL, V.TENSOR, V.PARAMS}:
                return False
            if self._resolve_local(used) is not None:
                return False
        return True

    def _class_call(self, cls: ast.expr, call: ast.Call) -> Value | None:
        """``call`` made with the class ``cls`` in place of its alias."""
        return self.ev_call(ast.copy_location(ast.Call(cls, call.args, call.keywords), call))

    def _from_model_output(self, value: Value | None, node: ast.expr | None) -> bool:
        """``model(batch)`` itself, or an item of what a model returned (``out["loss"]``)."""
        if value is not None and value.kind == V.OUTPUT:
            return True
        while isinstance(node, (ast.Subscript, ast.Attribute)):
            node = node.value
        if isinstance(node, ast.Call):  # model(batch)["loss"]
            called = self.lookup(dotted(node.func))
            if called is not None and called.kind == V.MODEL:
                return True
            # model.loss(scores, labels), net.compute_loss(batch): the model's own loss
            func = node.func
            if isinstance(func, ast.Attribute) and (
                "loss" in func.attr or func.attr == "criterion"
            ):
                owner = self.lookup(dotted(func.value))
                return owner is not None and owner.kind == V.MODEL
            return False
        base = self.lookup(dotted(node)) if isinstance(node, ast.Name) else None
        return base is not None and base.kind == V.OUTPUT

    def _instance_method(
        self, receiver: Value | None, func: ast.expr
    ) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
        """The method ``obj.m`` calls when ``obj`` is an instance of a plain class of this file."""
        if receiver is None or receiver.kind != V.OBJECT or not isinstance(func, ast.Attribute):
            return None
        info = self.fa.classes.get(receiver.cls or "")
        return info.methods.get(func.attr) if info is not None else None

    def chosen_class(self, value: Value | None, method: str) -> Value | None:
        """An object of one of several classes (``PPO|SAC``, built in the arms of an if)
        whose ``method`` is called: an object of the first of them that has the method,
        here or in another file (the others are alike or the branch's code would fail)."""
        choices = V.class_choices(value.cls if value is not None else None)
        if value is None or len(choices) < 2:
            return value
        for cls in choices:
            info = self.fa.classes.get(cls)
            foreign = self.fa.foreign_objects.get(cls)
            if (
                (info is not None and method in info.methods)
                or (info is not None and self._inherited_method(info.node, method) is not None)
                or (foreign is not None and method in foreign.methods)
            ):
                return Value(value.kind, cls, value.alias, value.flags, value.node)
        return value

    def _dunder_call(self, func: ast.expr) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
        """``__call__`` of an instance of a plain class of this file, called:
        ``self.early_stopping(val_loss, model)``."""
        if not isinstance(func, (ast.Name, ast.Attribute)):
            return None
        value = self.chosen_class(self.lookup(dotted(func) or ""), "__call__")
        if value is None or value.kind != V.OBJECT:
            return None
        info = self.fa.classes.get(value.cls or "")
        return info.methods.get("__call__") if info is not None else None

    def _foreign_dunder_call(self, func: ast.expr) -> ForeignFunction | None:
        """``inferer(df)``: ``__call__`` of an instance of a plain class of another file."""
        if not isinstance(func, (ast.Name, ast.Attribute)):
            return None
        value = self.chosen_class(self.lookup(dotted(func) or ""), "__call__")
        if value is None or value.kind != V.OBJECT or value.cls in self.fa.classes:
            return None
        foreign = self.fa.foreign_objects.get(value.cls or "")
        return foreign.methods.get("__call__") if foreign is not None else None

    def _foreign_method(self, receiver: Value | None, func: ast.expr) -> ForeignFunction | None:
        """The method ``obj.m`` calls when ``obj`` is an instance of a class of another file."""
        if receiver is None or not isinstance(func, ast.Attribute):
            return None
        if receiver.kind == V.MODEL and not _followed_model_method(func.attr):
            return None  # model.encode(x), model.parameters(): its forward, nn.Module's own
        if receiver.kind not in {V.OBJECT, V.MODEL}:
            return None
        if receiver.cls in self.fa.classes:
            return self._inherited_method(self.fa.classes[receiver.cls].node, func.attr)
        foreign = self.fa.foreign_objects.get(receiver.cls or "")
        return foreign.methods.get(func.attr) if foreign is not None else None

    def _inherited_method(self, cls: ast.ClassDef, attr: str) -> ForeignFunction | None:
        """``self._save(...)`` in ``class SeqGANInstructor(BasicInstructor)``: a method the
        class inherits from a class of another file (one it does not override)."""
        if attr in self.fa.classes[cls.name].methods:
            return None
        for base in cls.bases:
            foreign = self._resolve_foreign(base)
            if isinstance(foreign, ForeignClass) and attr in foreign.methods:
                return foreign.methods[attr]
        return None

    def _own_method(self, receiver: Value | None, attr: str) -> bool:
        """``attr`` is a method that the class of ``receiver`` (a model of this file) defines."""
        if receiver is None or receiver.kind != V.MODEL or receiver.cls not in self.fa.classes:
            return False
        return class_method(self.fa.classes, receiver.cls, attr) is not None


# what a position of a returned tuple is taken for (a tensor or a number there is often a
# guess about an object of unseen class: ``model_class(dims).double()``)
_RETURNED_KINDS = {V.LOSS, V.MODEL, V.OPTIMIZER, V.SCHEDULER, V.CRITERION}


def _sure_of(value: Value | None) -> bool:
    """A returned value known for what it is: a loss, a model, an optimizer, a scheduler,
    a criterion."""
    return value is not None and value.kind in _RETURNED_KINDS


def _element_of(value: Value | None, name: str) -> Value | None:
    """An element of what a model or a loader gave, by the name it is bound to."""
    if value is not None and value.kind == V.OUTPUT:
        if "loss" in last_part(name).lower():
            return Value(V.LOSS, flags=frozenset({V.UNSCALED}))
        return Value(V.TENSOR, flags=value.flags)
    if value is not None and value.kind == V.BATCH:
        return Value(V.TENSOR, flags=frozenset({V.FROM_LOADER}))
    return None


def _followed_model_method(method: str) -> bool:
    """A method of a model class of another file that its summary stands for: not a forward
    (``encode``, ``forward_features``: forward events of their own) nor nn.Module's own."""
    return not (
        runs_forward(method) or method in NOT_FOLLOWED_METHODS or method in V.MODULE_SELF_METHODS
    )


def _deepspeed_model(node: ast.expr | None) -> str | None:
    """The model of ``deepspeed.initialize(model=model, ...)``."""
    if not (isinstance(node, ast.Call) and last_part(dotted(node.func)) == "initialize"):
        return None
    if "deepspeed" not in (dotted(node.func) or ""):
        return None
    for kw in node.keywords:
        if kw.arg == "model":
            return dotted(kw.value)
    return dotted(node.args[1]) if len(node.args) > 1 else None


def _to_number(value: Value | None, node: ast.expr | None) -> bool:
    """A plain number: ``x.item()``, ``float(x)``, or a value known to be one."""
    if value is not None and value.kind == V.NUMBER:
        return True
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    if (dotted(func) or "").partition(".")[0] in {"np", "numpy"}:
        return True  # np.sum(batch_loss_history): numpy holds no graph
    if isinstance(func, ast.Attribute):
        return func.attr in {"item", "tolist"} and not node.args
    return isinstance(func, ast.Name) and func.id in {"float", "int"}


# evaluate_model(), train_net(): a function named for what it does to a model, not a model
_ACTION = re.compile(
    r"(?:^|_)(train|test|eval|evaluate|validate|valid|run|save|load|predict|infer|update|fit|compute"
    r"|export|print|log|plot|show|visualize|freeze|prune|quantize|warmup|finetune|fine_tune)_",
    re.I,
)


def _action_name(func: ast.expr, value: Value | None, env: dict) -> bool:
    """An unbound callee whose model-like name starts with a verb (its value only guessed
    from the name)."""
    name = dotted(func)
    if value is None or value.kind != V.MODEL or name is None or name in env:
        return False
    return bool(_ACTION.search(name.rpartition(".")[2]))


def _arithmetic_on_a_number(node: ast.expr | None) -> bool:
    """``loss.item() / n``, ``float(loss) * k``: a Python number, whatever the other side."""
    if not isinstance(node, ast.BinOp):
        return False
    sides = (node.left, node.right)
    return any(_to_number(None, side) or _arithmetic_on_a_number(side) for side in sides)


# an entry of a loss function's dict that is not a loss: predictions, labels, a metric
_NOT_A_LOSS_KEY = re.compile(r"pred|label|logit|output|prob|score|acc|target|sample", re.I)


def _names_no_loss(key: ast.expr) -> bool:
    return (
        isinstance(key, ast.Constant)
        and isinstance(key.value, str)
        and "loss" not in key.value.lower()
        and bool(_NOT_A_LOSS_KEY.search(key.value))
    )


def _graphless_output(state: object, node: ast.expr | None) -> bool:
    """``outputs["loss"]`` / ``outputs[0]`` of a name bound to a model's output computed
    under torch.no_grad(): it holds no graph."""
    while isinstance(node, (ast.Subscript, ast.Attribute)):
        node = node.value
    if not isinstance(node, ast.Name):
        return False
    base = state.lookup(node.id)  # type: ignore[attr-defined]
    return base is not None and base.kind == V.OUTPUT and V.NO_GRAPH in base.flags
