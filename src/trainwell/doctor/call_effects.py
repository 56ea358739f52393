"""What a call of a recognised object or function does: the value it returns and its events.

Method calls on a tracked value (``loss.backward()``, ``optimizer.step()``,
``scaler.scale(loss)``, ``model.eval()``, ``model.encode(x)`` ...), calls of a tracked value
itself (``model(x)``, ``criterion(out, y)``, trainwell's ``clipping(params)``), and calls of
torch and library functions and classes by their resolved name (optimizer, scheduler,
loss, model and loader constructors, ``clip_grad_norm_``, softmax ...).  This is where the
analysis learns which names hold models, optimizers, schedulers and losses.  Each classifier
returns :data:`~.scope_state.NOTHING` when it does not apply: ``ev_call`` tries the next.
"""

from __future__ import annotations

import ast
import re

from . import values as V
from ._astutil import argument, dotted, last_part, names_in
from .class_facts import runs_forward, runs_own_layers
from .events import (
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
    Summary,
)
from .flow_result import weightless_layers
from .mode_switch import NO_GRAD_BY_STATE, switches_off_grad
from .scope_facts import is_strategy, turns_autograd_off
from .scope_state import (
    NOTHING,
    ClassInfo,
    ScopeState,
    arg_names,
    class_method,
    container_of,
    keeps_nothing,
)
from .values import Value

CLIP_FUNCTIONS = {"clip_grad_norm_", "clip_grad_value_", "clip_grad_norm", "clip_grads_with_norm_"}

ENGINE_WORDS = ("accelerator", "fabric", "engine", "deepspeed", "trainer")

# Wrappers that iterate over their first argument: a loader wrapped in them is still the
# batch loop (``for i, batch in tqdm(enumerate(loader))``).
ITER_WRAPPERS = {"enumerate", "tqdm", "iter", "zip", "track"}

_NOT_MODELS = {
    V.OPTIMIZER, V.SCHEDULER, V.LOADER, V.SCALER, V.LOSS, V.TENSOR, V.CLIPPER, V.OBJECT,
}  # fmt: skip
_SOFTMAX_MODULES = {"Softmax": V.SOFTMAX, "Softmax2d": V.SOFTMAX, "LogSoftmax": V.LOG_SOFTMAX}


class CallEffects(ScopeState):
    """Classifies calls of tracked values and of torch and library functions (see module)."""

    # -- method calls ---------------------------------------------------------------------
    def _method_call(
        self,
        call: ast.Call,
        method: str,
        recv_node: ast.expr | None,
        recv_val: Value | None,
        arg_vals: list[Value | None],
    ) -> object:
        recv_name = dotted(recv_node)
        kind = recv_val.kind if recv_val is not None else None
        if method == "backward" and _an_inverse_pass(call, recv_val, arg_vals):
            # samples, log_det = flow.backward(u): a normalizing flow's inverse, a forward
            self.emit(FORWARD, call, receiver=self.model_key(recv_name))
            return self._model_output(recv_val)  # type: ignore[arg-type]
        if method == "backward":
            return self._backward(call, recv_node, recv_name, recv_val, arg_vals)
        if method == "step":
            return self._step(call, recv_name, recv_val)
        if method == "zero_grad":
            self.emit(ZERO, call, receiver=self.model_key(recv_name))
            return None
        if method == "zero_" and _is_grad_attribute(recv_node):
            self.emit(ZERO, call)
            return None
        if method == "unscale_" and kind == V.SCALER:
            self.emit(UNSCALE, call)
            return None
        clipper = arg_vals[0] if arg_vals else None
        if method == "clip" and clipper is not None and clipper.kind == V.CLIPPER:
            self.emit(CLIP, call)  # trainwell: strategy.clip(clipping, params)
            return None
        if method == "scale" and kind == V.SCALER and arg_vals:
            scaled = arg_vals[0]
            return scaled.plus(V.AMP) if scaled is not None and scaled.kind == V.LOSS else None
        if method in {"eval", "train"} and recv_name is None:
            recv_name = _part_name(_moved(recv_node))  # model.to(device).train()
        if method in {"eval", "train"} and recv_name is not None and kind not in _NOT_MODELS:
            self._mode_event(call, method, recv_name)
            return recv_val
        if method in {"parameters", "named_parameters"} and recv_name is not None:
            return Value(V.PARAMS, alias=self.model_key(recv_name))
        if method in {"configure_optimizers", "create_optimizer"}:
            return Value(V.OPTIMIZER, alias=self.model_key(recv_name))
        # (not ``add``: ``averager.add(loss)`` of an unknown class usually reads loss.data)
        if method in {"append", "extend", "insert", "appendleft"} and arg_vals:
            self._at_accumulate(container_of(recv_node), arg_vals[-1], call)
            return None
        if method in {"softmax", "log_softmax"} and kind not in {V.MODEL, V.CRITERION}:
            flag = V.SOFTMAX if method == "softmax" else V.LOG_SOFTMAX
            return Value(V.TENSOR, flags=frozenset({flag}))
        if recv_val is None:
            return NOTHING
        return self._known_receiver_method(call, method, recv_name, recv_val)

    def _known_receiver_method(
        self, call: ast.Call, method: str, recv_name: str | None, recv: Value
    ) -> object:
        if recv.kind == V.MODEL:
            # ddp.module(x): the model; net.forward_masks(x), forward_features(x): a forward
            if _tokenizer_call(call, method):
                return NOTHING  # model.decode(ids, skip_special_tokens=True): text, no forward
            if runs_forward(method) and any(
                turns_autograd_off(own) for own in self._own_methods(recv, method)
            ):
                return NOTHING  # its own no_grad inside: followed as the model's method
            if method in self.no_grad_methods(recv):  # rwkv's RWKV.forward, another file's
                return Value(V.OUTPUT, flags=frozenset({V.NO_GRAPH}))
            given = bool(call.args or call.keywords)  # criterion.forward_epoch_metrics(): no input
            layers = given and runs_own_layers(
                getattr(self.fa.classes.get(recv.cls or ""), "node", None), method
            )
            if (runs_forward(method) and given) or method == "module" or layers:
                self.emit(FORWARD, call, receiver=self.model_key(recv_name))
                return self._model_output(recv)
            if V.SUBMODULE in recv.flags and call.args and method not in V.MODULE_SELF_METHODS:
                # for flow in self.flows[::-1]: z, ld = flow.inverse(z) runs the layer
                self.emit(FORWARD, call, receiver=self.model_key(recv_name))
                return self._model_output(recv)
            if method in V.MODULE_SELF_METHODS:
                return recv
            return NOTHING
        if recv.kind == V.LOSS:
            if method in V.GRAPH_CUTTING:
                return Value(V.NUMBER)
            if method in {"div", "true_divide", "mul"} and call.args:
                # loss.div(accum_steps): as loss / accum_steps
                weighted = method == "mul" and isinstance(call.args[0], ast.Constant)
                flags = (recv.flags - {V.UNSCALED}) | {V.SCALED}
                return Value(V.LOSS, flags=flags | ({V.WEIGHTED} if weighted else set()))
            return recv if method in V.GRAPH_PRESERVING else None
        if recv.kind == V.TENSOR:
            if method == "log" and V.SOFTMAX in recv.flags:
                return Value(V.TENSOR, flags=frozenset({V.LOG_SOFTMAX}))
            if method in V.GRAPH_PRESERVING or method in V.SHAPE_METHODS:
                return recv
            return Value(V.TENSOR)
        if recv.kind == V.OUTPUT and method in V.SHAPE_METHODS:
            # model(x).view(...): a reshaped output keeps its softmax / log_softmax flags
            return Value(V.TENSOR, flags=recv.flags)
        if recv.kind == V.BATCH and method in {"to", "cuda"}:
            return recv
        if recv.kind == V.CRITERION and method in V.MODULE_SELF_METHODS:
            return recv  # nll = nn.NLLLoss().cuda(): still the criterion
        return NOTHING

    def _backward(
        self,
        call: ast.Call,
        recv_node: ast.expr | None,
        recv_name: str | None,
        recv_val: Value | None,
        arg_vals: list[Value | None],
    ) -> None:
        if recv_val is not None and recv_val.kind == V.SCALER and call.args:
            # trainwell's precision.backward(loss): scaler.scale(loss).backward() when fp16
            amp = V.FP16 in recv_val.flags
            self.emit(BACKWARD, call, value=arg_vals[0], receiver=dotted(call.args[0]), amp=amp)
            return None
        if is_strategy(recv_name) and len(call.args) >= 2:
            # trainwell: strategy.backward(loss, precision, model, last=...)
            precision = arg_vals[1]
            amp = precision is not None and precision.kind == V.SCALER and V.FP16 in precision.flags
            self.emit(BACKWARD, call, value=arg_vals[0], receiver=dotted(call.args[0]), amp=amp)
            return None
        if recv_name == "torch.autograd.backward":
            # torch.autograd.backward([loss1, loss2]): the losses it is handed
            first = call.args[0]
            first = (
                first.elts[0] if isinstance(first, (ast.List, ast.Tuple)) and first.elts else first
            )
            self.emit(
                BACKWARD, call, value=self.lookup(dotted(first) or ""), receiver=dotted(first)
            )
            return None
        engine = recv_name is not None and any(w in recv_name.lower() for w in ENGINE_WORDS)
        if engine and call.args:
            # accelerator.backward(loss) / fabric.backward(loss)
            self.emit(BACKWARD, call, value=arg_vals[0], receiver=dotted(call.args[0]), engine=True)
            return None
        amp = isinstance(recv_node, ast.Call) and last_part(dotted(recv_node.func)) == "scale"
        amp = amp or (recv_val is not None and V.AMP in recv_val.flags)
        self.emit(BACKWARD, call, value=recv_val, receiver=recv_name, amp=amp)
        return None

    def _step(self, call: ast.Call, recv_name: str | None, recv_val: Value | None) -> object:
        kind = recv_val.kind if recv_val is not None else None
        if kind == V.SCALER and call.args:
            # scaler.step(optimizer), or trainwell's precision.step(optimizer) (a GradScaler
            # step only in fp16)
            amp = recv_val.cls != "Precision" or V.FP16 in recv_val.flags  # type: ignore[union-attr]
            self.emit(STEP, call, receiver=dotted(call.args[0]), amp=amp)
            return None
        if kind == V.OPTIMIZER:
            self._closure_run_by_the_step(call)
            self.emit(STEP, call, receiver=recv_name, value=recv_val)
            return None
        if kind == V.SCHEDULER:
            self.emit(SCHED, call, receiver=recv_name, value=recv_val)
            return None
        return NOTHING

    def _closure_run_by_the_step(self, call: ast.Call) -> None:
        """``optimizer.step(closure)`` (L-BFGS) runs the closure first: its backward(), and
        its zero_grad() if it has one, happen at the step."""
        closure = argument(call, 0, "closure")
        func = self.local_funcs.get(closure.id) if isinstance(closure, ast.Name) else None
        summary = self.fa.summaries.get(func) if func is not None else None
        if summary is not None and summary.backward:
            self.emit(CALL, call, summary=summary, args=arg_names(call))

    def _mode_event(self, call: ast.Call, method: str, recv_name: str) -> None:
        key = self.model_key(recv_name)
        if method == "eval" and not call.args and not call.keywords:
            self.emit(EVAL, call, receiver=key)
            return
        if method == "train":
            mode = argument(call, 0, "mode")
            if mode is None or (isinstance(mode, ast.Constant) and mode.value is True):
                self.emit(TRAIN, call, receiver=key)
            elif isinstance(mode, ast.Constant) and mode.value is False:
                self.emit(EVAL, call, receiver=key)
            else:
                self.emit(MODE_UNKNOWN, call, receiver=key)
            return
        self.emit(MODE_UNKNOWN, call, receiver=key)

    # -- function calls -------------------------------------------------------------------
    def _function_call(
        self,
        call: ast.Call,
        qual: str | None,
        arg_vals: list[Value | None],
        kw_vals: dict[str | None, Value | None],
    ) -> object:
        if qual is None:
            return NOTHING
        tail = last_part(qual)
        if V.from_other_framework(qual) and self.fa.imports.is_imported(call.func):
            return Value(V.OBJECT, cls=qual)  # net = cv2.dnn.readNet(...): not a torch module
        torchy = qual.startswith("torch.") or self.fa.imports.is_imported(call.func)
        if tail in ITER_WRAPPERS - {"zip"} and arg_vals and arg_vals[0] is not None:
            inner = arg_vals[0]
            if inner.kind == V.LOADER:  # pbar = tqdm(loader): iterating it is the batch loop
                return inner.plus(V.ENUMERATED) if tail == "enumerate" else inner
        if qual == "torch.autograd.backward" and call.args:
            return self._backward(call, None, qual, None, arg_vals)
        if tail in CLIP_FUNCTIONS and qual.startswith("torch."):
            self.emit(CLIP, call)
            return None
        if qual in V.TRAINWELL_PRECISION:
            return V.trainwell_precision(call)
        if qual in V.TRAINWELL_CLIPPING:
            return Value(V.CLIPPER)
        if qual in {"torch.softmax", "torch.nn.functional.softmax", "torch.special.softmax"}:
            return Value(V.TENSOR, flags=frozenset({V.SOFTMAX}))
        if qual in {"torch.log_softmax", "torch.nn.functional.log_softmax",
                    "torch.special.log_softmax"}:  # fmt: skip
            return Value(V.TENSOR, flags=frozenset({V.LOG_SOFTMAX}))
        first = arg_vals[0] if arg_vals else None
        if qual in {"torch.mean", "torch.sum"} and first is not None and first.kind == V.LOSS:
            return first  # torch.mean(loss): as loss.mean(), still the same loss
        if qual == "torch.log" and arg_vals and arg_vals[0] and V.SOFTMAX in arg_vals[0].flags:
            return Value(V.TENSOR, flags=frozenset({V.LOG_SOFTMAX}))
        if qual.startswith("torch.nn.functional.") and tail in V.FUNCTIONAL_LOSSES:
            self._at_loss_call(call, tail, arg_vals[0] if arg_vals else None)
            return _loss_value(self, call)
        if tail in {"float", "int"} and qual == tail:
            return Value(V.NUMBER)
        if not torchy and tail not in self.fa.classes:
            return self._constructor_by_name(call, qual, tail, arg_vals)
        return self._constructor(call, qual, tail, arg_vals)

    def _constructor_by_name(
        self, call: ast.Call, qual: str, tail: str, arg_vals: list[Value | None]
    ) -> object:
        # Unimported, unbound names (a snippet without imports, or a star import): only
        # the distinctive PyTorch class names are trusted.
        distinctive = (V.OPTIMIZER_CLASSES | V.SCHEDULER_CLASSES | {"GradScaler", "DataLoader"}) - {
            "SGD",
            "Adam",
        }
        if "." not in qual and qual not in self.env and tail in distinctive:
            return self._constructor(call, qual, tail, arg_vals)
        if tail == "from_pretrained" or tail == "create_model":
            return self._constructor(call, qual, tail, arg_vals)
        return NOTHING

    def _constructor(
        self, call: ast.Call, qual: str, tail: str, arg_vals: list[Value | None]
    ) -> object:
        if tail in V.OPTIMIZER_CLASSES:
            params = arg_vals[0] if arg_vals else None
            alias = params.alias if params is not None and params.kind == V.PARAMS else None
            flags = frozenset({V.OVER_INPUTS}) if self._over_tensors(call) else frozenset()
            return Value(V.OPTIMIZER, cls=tail, alias=alias, node=call, flags=flags)
        if tail in V.SCHEDULER_CLASSES:
            flags = V.scheduler_unit_flags(tail, call, self._lambda_names(call))
            return Value(V.SCHEDULER, cls=tail, flags=frozenset(flags), node=call)
        if V.WARMUP_SCHEDULE.match(tail) or (
            tail == "get_scheduler" and qual.split(".")[0] in {"transformers", "diffusers"}
        ):
            total = argument(call, 2, "num_training_steps")
            flags = set() if V.expr_unit(total) == "epoch" else {V.PER_STEP}
            return Value(V.SCHEDULER, cls=tail, flags=frozenset(flags), node=call)
        if tail == "GradScaler":
            return Value(V.SCALER)
        if tail == "DataLoader":
            return Value(V.LOADER)
        if is_loss_class(tail):
            return Value(V.CRITERION, cls=tail)
        if qual.startswith("poptorch.") and tail in {"trainingModel", "inferenceModel"}:
            # an IPU's compiled model: training runs the whole step on each call; inference
            # runs there too, with no graph on the host
            trains = tail == "trainingModel"
            return Value(
                V.MODEL, flags=frozenset({V.TRAINS_ON_CALL if trains else NO_GRAD_BY_STATE})
            )
        wrapper = tail in V.MODEL_WRAPPERS or bool(V.WRAPPER_CLASS.search(tail))
        if wrapper and arg_vals and arg_vals[0] is not None:
            inner = arg_vals[0]
            if inner.kind == V.MODEL:
                alias = inner.alias or self.model_key(dotted(call.args[0]))
                return Value(V.MODEL, cls=inner.cls, alias=alias, flags=inner.flags)
        if qual == "torch.nn.Sequential":
            last = arg_vals[-1] if arg_vals else None
            flags: frozenset[str] = frozenset()
            if last is not None and last.kind == V.MODEL and last.cls in _SOFTMAX_MODULES:
                flags = frozenset({_SOFTMAX_MODULES[last.cls]})
            if weightless_layers(call, self.fa.imports, self.func or self.fa.tree):
                flags |= {V.WEIGHTLESS}
            return Value(V.MODEL, cls="Sequential", flags=flags)
        if qual.startswith("torch.nn.") and tail[:1].isupper() and qual.count(".") == 2:
            return Value(V.MODEL, cls=tail)
        if qual.startswith("torch.") and tail in V.TENSOR_FACTORIES:
            return Value(V.TENSOR)
        if tail in self.fa.classes and qual == tail:
            info = self.fa.classes[tail]
            if any(last_part(dotted(b)) == "Optimizer" for b in info.node.bases):
                return Value(V.OPTIMIZER, cls=tail, node=call)  # class BERTAdam(Optimizer)
            if info.is_module and (is_loss_module(tail) or _a_metric_module(info)):
                return Value(V.CRITERION, cls=tail)  # criterion = yoloLoss(7, 2, 5, 0.5)
            return Value(V.MODEL if info.is_module else V.OBJECT, cls=tail)
        if ".models." in f".{qual}" or tail == "create_model":
            return Value(V.MODEL)
        if tail == "from_pretrained":
            owner = last_part(qual.rsplit(".", 1)[0]) if "." in qual else ""
            return Value(V.MODEL) if "Model" in owner or "For" in owner else None
        return NOTHING

    def _over_tensors(self, call: ast.Call) -> bool:
        """``SGD([delta], lr=1)``: the optimizer updates plain tensors (an attack's
        perturbation, an image being optimised), no model's parameters."""
        first = call.args[0] if call.args else None
        if not isinstance(first, (ast.List, ast.Tuple)) or not first.elts:
            return False
        values = [self.lookup(dotted(e)) if dotted(e) else None for e in first.elts]
        return all(v is not None and v.kind == V.TENSOR for v in values)

    def _lambda_names(self, call: ast.Call) -> set[str]:
        fn = argument(call, 1, "lr_lambda")
        if isinstance(fn, ast.Lambda):
            params = {a.arg for a in fn.args.args}
            return names_in(fn.body) - params
        target = self.local_funcs.get(dotted(fn) or "") or self.fa.functions.get(dotted(fn) or "")
        if target is not None:
            params = {a.arg for a in target.args.args}
            return set().union(*(names_in(s) for s in target.body)) - params
        return set()

    def _call_value(
        self, call: ast.Call, callee: Value, arg_vals: list[Value | None]
    ) -> Value | None:
        if callee.kind == V.MODEL and _argless_method_of_a_model(self, call):
            self.opaque(call, arg_vals)  # cur_model.net_name(): a submodule takes an input
            return None
        if callee.kind == V.MODEL and V.TRAINS_ON_CALL in callee.flags:
            step = Summary(params=[], backward=[call], steps=[call], zero_grad=True)
            self.emit(CALL, call, summary=step, args=arg_names(call))
            return Value(V.OUTPUT, flags=frozenset({V.NO_GRAPH}))
        if callee.kind == V.MODEL:
            if callee.cls in _SOFTMAX_MODULES:
                return Value(V.TENSOR, flags=frozenset({_SOFTMAX_MODULES[callee.cls]}))
            forward = self.emit(FORWARD, call, receiver=self.model_key(dotted(call.func)))
            flags = callee.flags or self.fa.forward_flags(callee.cls)
            if switches_off_grad(flags, call) or "forward" in self.no_grad_methods(callee):
                forward.no_grad = True  # model(batch, is_eval=True): no_grad inside forward()
            return self._model_output(callee)
        if callee.kind == V.CRITERION:
            self._at_loss_call(call, callee.cls, arg_vals[0] if arg_vals else None)
            return _loss_value(self, call)
        if callee.kind == V.CLIPPER:  # trainwell: clipping(model.parameters())
            self.emit(CLIP, call)
            return None
        self.opaque(call, arg_vals)
        return None

    def opaque(self, call: ast.Call, arg_vals: list[Value | None]) -> None:
        """A call the analysis cannot see into.  Handed the loss and the optimizer
        (``loss_scaler(loss, optimizer)``: timm's NativeScaler, an amp helper), it is a
        training step: backward() and step() inside, and maybe zero_grad() too."""
        kinds = {v.kind for v in arg_vals if v is not None}
        if V.LOSS in kinds and V.OPTIMIZER in kinds:
            step = Summary(params=[], backward=[call], steps=[call], zero_grad=True)
            self.emit(CALL, call, summary=step, args=arg_names(call))
            return
        self.emit(OPAQUE, call, args=arg_names(call))

    def _own_methods(self, model: Value, method: str) -> list[ast.FunctionDef]:
        """The definitions of ``method`` a model of this file may run: its class's, or, of
        a model whose class is not known, those of the file's module classes."""
        classes = (
            [model.cls] if model.cls else [n for n, c in self.fa.classes.items() if c.is_module]
        )
        found = [class_method(self.fa.classes, cls, method) for cls in classes]
        return [f for f in found if isinstance(f, ast.FunctionDef)]

    def _model_output(self, model: Value) -> Value:
        flags = model.flags & {V.SOFTMAX, V.LOG_SOFTMAX}
        if model.cls in self.fa.classes:
            flags = flags | self.fa.forward_flags(model.cls)
        if self.surely_no_grad[-1]:
            flags = flags | {V.NO_GRAPH}
        return Value(V.OUTPUT, flags=frozenset(flags))


def _argless_method_of_a_model(state: object, call: ast.Call) -> bool:
    """``model.net_name()``, ``net.get_config()``: called on a model without any input, an
    attribute of it is a method, not a submodule run."""
    func = call.func
    if call.args or call.keywords or not isinstance(func, ast.Attribute):
        return False
    owner = state.lookup(dotted(func.value))  # type: ignore[attr-defined]
    return owner is not None and owner.kind == V.MODEL


def _loss_value(state: ScopeState, call: ast.Call) -> Value:
    """A criterion's result: a loss, or a plain tensor when every input was detached
    (``criterion(pred.detach().cpu(), true.detach().cpu())`` for logging: no graph), or
    when its prediction is a forward's output computed under torch.no_grad() and nothing
    it is given carries a graph (``with torch.no_grad(): out = model(x)`` then
    ``criterion(out, y)`` to log a validation loss)."""
    inputs = [*call.args, *(k.value for k in call.keywords)]
    if inputs and all(detached(node) for node in inputs):
        return Value(V.TENSOR)
    roots = [_root_value(state, node) for node in inputs if not detached(node)]
    if any(_graphless(v) for _, v in roots) and all(_no_graph_in(n, v) for n, v in roots):
        return Value(V.TENSOR)
    return Value(V.LOSS, flags=frozenset({V.UNSCALED}))


def _root_value(state: ScopeState, node: ast.expr) -> tuple[ast.expr, Value | None]:
    """The tensor an expression reshapes or indexes (``out.view(-1, n)``, ``out[0]``), and
    what the analysis knows of it."""
    while True:
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr not in V.SHAPE_METHODS:
                break
            node = node.func.value
        elif isinstance(node, (ast.Subscript, ast.Attribute)):
            node = node.value
        else:
            break
    return node, state.lookup(node.id) if isinstance(node, ast.Name) else None


def _graphless(value: Value | None) -> bool:
    """A forward's output, or an element of it, computed under torch.no_grad()."""
    return value is not None and value.kind in {V.OUTPUT, V.TENSOR} and V.NO_GRAPH in value.flags


def _no_graph_in(node: ast.expr, value: Value | None) -> bool:
    """A name holding no graph that the analysis knows of: a no_grad output, a batch's
    tensor, a number, or something it cannot tell (a label from a helper); an expression
    it cannot follow (``model(x)`` inline) may hold one."""
    if not isinstance(node, ast.Name):
        return isinstance(node, ast.Constant)
    if value is None or value.kind in {V.NUMBER, V.BATCH}:
        return True
    return value.kind in {V.OUTPUT, V.TENSOR} and bool({V.NO_GRAPH, V.FROM_LOADER} & value.flags)


def detached(node: ast.expr) -> bool:
    """``x.detach()``, ``x.detach().cpu()``, ``x.data``, a constant: no graph in it."""
    if isinstance(node, ast.Constant):
        return True
    while isinstance(node, (ast.Call, ast.Attribute, ast.Subscript)):
        if isinstance(node, ast.Attribute) and node.attr == "data":
            return True
        if isinstance(node, ast.Call):
            if isinstance(node.func, ast.Attribute) and node.func.attr == "detach":
                return True
            node = node.func
        else:
            node = node.value
    return False


def _is_grad_attribute(node: ast.expr | None) -> bool:
    """``p.grad`` or ``p.grad.data``."""
    if not isinstance(node, ast.Attribute):
        return False
    if node.attr == "data":
        node = node.value
    return isinstance(node, ast.Attribute) and node.attr == "grad"


# Module methods that return the module itself, moved or cast: ``model.to(device).train()``.
_RETURN_SELF = {"to", "cuda", "cpu", "float", "half", "double", "bfloat16", "requires_grad_"}


def _moved(node: ast.expr | None) -> ast.expr | None:
    """The module under ``.to(...)``/``.cuda()``/``.float()`` calls."""
    while (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in _RETURN_SELF
    ):
        node = node.func.value
    return node


def _part_name(node: ast.expr | None) -> str | None:
    """A module's name, ``model.heads[]`` for an item of a container of modules."""
    if isinstance(node, ast.Subscript):
        base = dotted(node.value)
        return f"{base}[]" if base is not None else None
    return dotted(node)


# Keywords of a tokenizer's encode()/decode(), which LLM wrappers pass on: token ids in,
# text out (or text in, ids out), no network run.
_TOKENIZER_KEYWORDS = {
    "skip_special_tokens", "clean_up_tokenization_spaces", "return_tensors", "padding",
    "add_special_tokens", "truncation", "max_length", "return_attention_mask",
}  # fmt: skip


def _tokenizer_call(call: ast.Call, method: str) -> bool:
    if method not in {"encode", "decode", "batch_decode"}:
        return False
    return any(kw.arg in _TOKENIZER_KEYWORDS for kw in call.keywords)


def is_loss_class(name: str) -> bool:
    """``CrossEntropyLoss``, ``CrossEntropyLoss2d``, ``FocalLoss``: a criterion, whatever module
    it subclasses; a project's plain ``Loss`` too (not ``LossNet``: a net predicting losses)."""
    if name == "Loss":
        return True
    return name[:1].isupper() and "Loss" in name and not name.startswith("Loss")


_METRIC_NAME = re.compile(r"rmse|mse|mae|error|metric|psnr|ssim|distance", re.I)


def _a_metric_module(info: ClassInfo) -> bool:
    """``class RMSE(nn.Module)`` that keeps nothing on self: a measure written as a module,
    called on a prediction and a target like a criterion."""
    return bool(_METRIC_NAME.search(info.node.name)) and keeps_nothing(info)


def is_loss_module(name: str) -> bool:
    """A module class of the project named as a loss: ``FocalLoss``, and, a class
    being known for one, ``yoloLoss`` or ``yolo_loss`` too."""
    return is_loss_class(name) or (name[:1].islower() and name.lower().endswith("loss"))


def _an_inverse_pass(call: ast.Call, model: Value | None, arg_vals: list[Value | None]) -> bool:
    """``model.backward(u)`` on a model of the file's own (no DeepSpeed engine) with a tensor
    that is no loss: the inverse pass of a normalizing flow, named ``backward``."""
    if model is None or model.kind != V.MODEL or model.alias is not None or not call.args:
        return False
    data = arg_vals[0]
    named = (dotted(call.args[0]) or "").lower()
    return data is not None and data.kind in {V.TENSOR, V.BATCH} and "loss" not in named
