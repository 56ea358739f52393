"""The data flow of graphs (`grad_flow`): what it needs from a walked scope, what it
tracks (origins and their fates), and what it finds in one scope."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from . import values as V
from ._astutil import Imports, dotted, walk
from .events import BACKWARD, CALL, FORWARD, STEP, Event, Summary
from .graph_calls import NOT_FOLLOWED_METHODS
from .scope_facts import turns_autograd_off
from .scope_state import ClassInfo, FileContext, class_method, keeps_no_weights

GRAPH_LABEL = "@graph"  # in Summary.return_positions: the callee's own forward's graph
CUT_LABEL = "@cut"  # ... and its own forward's detached tensor
BACKWARD_FATE = "backward"
RETURN_FATE = "return"
ESCAPE_FATE = "escape"
DROPPED_FATE = "dropped"


class FlowContext(Protocol):
    """What the pass needs from the walk of the scope (a ScopeWalker has it all)."""

    func: ast.FunctionDef | ast.AsyncFunctionDef | None
    body: list[ast.stmt]
    env: dict[str, V.Value | None]
    events: list[Event]
    params: list[str]
    cls: ClassInfo | None
    fa: FileContext

    def lookup(self, name: str | None) -> V.Value | None: ...

    def chosen_class(self, value: V.Value | None, method: str) -> V.Value | None: ...


@dataclass(frozen=True)
class Origin:
    node: ast.AST | str  # a source call, or a parameter's name
    # a value cut from the graph of ``node`` (``out.detach()``, ``out.argmax(1)``): it no
    # longer carries the graph, but may still feed a loss (a target, an advantage)
    cut: bool = False
    # cut to host values (``.item()``, ``.tolist()``, ``.numpy()``): numbers, not a tensor
    host: bool = False
    # indices chosen by the graph's values (``q(s).argmax(1)``): data, unless a loss is
    # built from them in this scope (double DQN's ``q_target(s).gather(1, index)``)
    index: bool = False


Taint = frozenset[Origin]
CLEAN: Taint = frozenset()


@dataclass
class GraphFlow:
    """The outcome of :func:`graph_flow` for one scope."""

    # forwards (and graph-returning calls) whose graph nothing can use: (call, where to report)
    discarded: list[tuple[ast.AST, ast.AST]] = field(default_factory=list)
    # the scope returns a graph built by a forward of its own (or of a function it calls)
    returns_graph: bool = False
    # the forward the returned graph comes from (None: the scope's own callers are the site)
    graph_site: ast.AST | None = None
    # parameter -> what becomes of what is passed in it
    param_fates: dict[str, frozenset[str]] = field(default_factory=dict)
    # parameters whose detached value it returns (``old_log_prob.detach()`` in a loss)
    returned_cut: frozenset[str] = frozenset()
    # a tuple return: what each element carries (see _Flow.return_positions)
    return_positions: tuple[frozenset[str], ...] | None = None
    # calls of graph-returning functions whose graph this scope backpropagates
    trained_calls: set[ast.AST] = field(default_factory=set)
    # forwards on data (no graph upstream) whose output this scope backpropagates: a frozen
    # model among them (a teacher in eval()) builds a graph that only wastes the backward
    backprop_from_data: set[ast.AST] = field(default_factory=set)
    # forwards whose inputs carry no graph (data)
    data_input: set[ast.AST] = field(default_factory=set)
    # forwards on data whose output (graph and all) goes to code the analysis cannot see
    escaped_from_data: set[ast.AST] = field(default_factory=set)
    # discarded forwards whose detached values feed a backward(): part of a training step
    feeds_training: set[ast.AST] = field(default_factory=set)
    # it returns a detached tensor of a forward (``net(s2).detach().max(1)[0]``): a target?
    returns_cut: bool = False
    # calls of this file's functions whose returned graph (detached tensor) this scope trains
    # on or hands to unknown code, those it returns itself, and its discarded forwards whose
    # detached tensor it returns (a target if a caller uses it so: see `analysis`)
    used_calls: set[ast.AST] = field(default_factory=set)
    returned_calls: set[ast.AST] = field(default_factory=set)
    used_cut_calls: set[ast.AST] = field(default_factory=set)
    returned_cut_calls: set[ast.AST] = field(default_factory=set)
    cut_returned: set[ast.AST] = field(default_factory=set)
    # discards found only in one phase of a ``for phase in ("train", "val")`` loop
    # (the loop's name, the phase, the training phase)
    phase_of: dict[ast.AST, tuple[str, str, str]] = field(default_factory=dict)


def of_known_class(w: FlowContext, receiver: str | None) -> bool:
    """The model's class is known: built by a constructor the analysis saw."""
    value = w.lookup(receiver) if receiver else None
    return value is not None and value.kind == V.MODEL and bool(value.cls)


def weightless(w: FlowContext, e: Event) -> bool:
    """``nn.Sigmoid()(preds)``, ``self.pool(x)`` with ``self.pool = nn.MaxPool2d(2)``: a
    layer without weights records a graph only of what its input carries."""
    if isinstance(e.node, ast.Call) and isinstance(e.node.func, ast.Call):
        return built_parameterless(w, e.node)
    return weightless_model(w, e.receiver)


def built_parameterless(w: FlowContext, node: ast.AST) -> bool:
    """``nn.Upsample(size=...)(x)``: a layer without parameters built and run at once."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Call)):
        return False
    built = w.fa.imports.resolve(node.func.func) or dotted(node.func.func) or ""
    return built.rpartition(".")[2] in V.PARAMETERLESS_LAYERS


def weightless_layers(call: ast.Call, imports: Imports, scope: ast.AST) -> bool:
    """``nn.Sequential(Spectrogram(...), AmplitudeToDB())``, or ``nn.Sequential(*modules)``
    over a list of such layers bound in ``scope``: every layer is one without weights (a
    feature transform), so the container records a graph only of what its input carries."""
    layers: list[ast.expr] = []
    for arg in call.args:
        if isinstance(arg, ast.Starred):
            listed = _listed_before(arg.value, call, scope)
            if listed is None:
                return False
            layers.extend(listed)
        else:
            layers.append(arg)
    return bool(layers) and all(_weightless_layer(layer, imports) for layer in layers)


def _weightless_layer(node: ast.expr, imports: Imports) -> bool:
    if not isinstance(node, ast.Call):
        return False
    qual = imports.resolve(node.func) or dotted(node.func) or ""
    if qual.startswith(V.TRANSFORM_MODULES):
        return True
    return qual.startswith("torch.nn.") and qual.rpartition(".")[2] in V.PARAMETERLESS_LAYERS


def _listed_before(name: ast.expr, call: ast.Call, scope: ast.AST) -> list[ast.expr] | None:
    """The elements of the list literal last bound to ``name`` before ``call``."""
    if not isinstance(name, ast.Name):
        return None
    found = None
    for node in walk(scope):
        if (
            isinstance(node, ast.Assign)
            and isinstance(node.value, ast.List)
            and node.lineno < call.lineno
            and any(isinstance(t, ast.Name) and t.id == name.id for t in node.targets)
            and (found is None or node.lineno > found.lineno)
        ):
            found = node
    return list(found.value.elts) if found is not None else None  # type: ignore[union-attr]


def graph_source(w: FlowContext, e: Event) -> ast.AST | None:
    """Where the graph an event builds with autograd on is said when it is discarded: a
    forward with weights, or a call whose callee returns a graph (at its site)."""
    if e.kind == FORWARD and not weightless(w, e):
        return e.node
    summary = e.summary
    if e.kind == CALL and summary is not None and summary.returns_graph:
        if summary.graph_by_own_state:
            return None  # self._forward(batch): with no_grad or not as self.training says
        return None if runs_passed_functions(e) else summary.graph_site or e.node
    return None


def runs_passed_functions(e: Event) -> bool:
    """A call whose callee runs no model but what the caller passes, and the caller passes
    functions (``evaluate_return(agent.get_action, env)``): their code is out of sight."""
    summary = e.summary
    if summary is None or not summary.forwards:
        return False
    roots = {receiver.split(".")[0] for receiver in summary.forwards}
    return all(root in summary.params and V.is_function_name(e.argmap.get(root)) for root in roots)


def weightless_model(w: FlowContext, receiver: str | None) -> bool:
    """``receiver`` holds a layer without weights: a torch one (``nn.Upsample``), a module
    class of this file or of the project that keeps no weights (``class RMSE(nn.Module)``
    whose ``__init__`` only calls ``super().__init__()``, a ``Normalize(mean, std)`` that
    keeps two tensors: a metric, a loss or a transform written as a module), or an
    ``nn.Sequential`` of such layers and feature transforms (a mel spectrogram)."""
    value = w.lookup(receiver) if receiver else None
    if value is None or value.kind != V.MODEL:
        return False
    if value.cls in V.PARAMETERLESS_LAYERS or V.WEIGHTLESS in value.flags:
        return True
    info = w.fa.classes.get(value.cls or "")
    return info is not None and keeps_no_weights(info)


DETACHED = ".detached"  # a returned position's label: a parameter's detached value


def detached_params(w: FlowContext) -> set[str]:
    """Parameters the function detaches itself (``old_log_policy.detach()``): what it
    returns of them is their detached value, a target or a ratio's old term."""
    if w.func is None:
        return set()
    found = set()
    for node in walk(w.func):
        attr = node.func if isinstance(node, ast.Call) else node
        if isinstance(attr, ast.Attribute) and attr.attr in {"detach", "data", "detach_"}:
            name = dotted(attr.value)
            if name in w.params:
                found.add(name)
    return found


def kept_for_training(w: FlowContext, kept_on_self: dict[str, set[Origin]], node: ast.AST) -> bool:
    """A detached value of ``node`` kept on the object (``self.memory["advantage"] +=
    advantages``) that a method of its class reads as data where it runs ``backward()``:
    a target, a GAE advantage, built with autograd on but the update's business."""
    kept = {attr for attr, origins in kept_on_self.items() if any(o.node is node for o in origins)}
    return bool(kept & _read_where_trained(w))


def _read_where_trained(w: FlowContext) -> set[str]:
    """Attributes of ``self`` that the class's training methods read as data (an operand,
    an argument), not only as the receiver of a method (``self.history[k].append(v)``)."""
    cls = getattr(w, "cls", None)
    if cls is None:
        return set()
    found: set[str] = set()
    for method in cls.node.body:
        if not isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        calls = [n for n in ast.walk(method) if isinstance(n, ast.Call)]
        if not any(isinstance(c.func, ast.Attribute) and c.func.attr == "backward" for c in calls):
            continue
        receivers = {id(c.func.value) for c in calls if isinstance(c.func, ast.Attribute)}
        for node in ast.walk(method):
            if isinstance(node, (ast.BinOp, ast.Call)):
                operands = [node.left, node.right] if isinstance(node, ast.BinOp) else node.args
                for operand in operands:
                    while isinstance(operand, ast.Subscript) and id(operand) not in receivers:
                        operand = operand.value
                    parts = (dotted(operand) or "").split(".")
                    if len(parts) == 2 and parts[0] == "self" and id(operand) not in receivers:
                        found.add(parts[1])
    return found


def model_method(w: FlowContext, func: ast.Attribute) -> Summary | None:
    """``model.pi`` where ``model`` is an instance of a module class of this file."""
    value = w.chosen_class(w.lookup(dotted(func.value)), func.attr)
    if value is None or value.kind != V.MODEL:
        return None
    if value.cls not in w.fa.classes:  # a model class of another file
        foreign = w.fa.foreign_objects.get(value.cls or "")
        if foreign is None or not foreign.is_module:
            return None  # a plain class's method is no forward of a model
        exported = foreign.methods.get(func.attr)
        return exported.summary if exported is not None else None
    method = class_method(w.fa.classes, value.cls, func.attr)
    if method is None or func.attr in NOT_FOLLOWED_METHODS:
        return None
    summary = w.fa.summary_of(method)
    if summary is not None and turns_autograd_off(method):
        # forward_classifier(batch, train=False) runs its forward under no_grad inside:
        # what it returns carries a graph on some calls only
        return replace(summary, returns_graph=False)
    return summary


def undefined_name(w: FlowContext, node: ast.AST | None) -> bool:
    """``d_loss.backward()`` where neither the scope nor the module binds ``d_loss``:
    unfinished code (a homework template), whose loss may be built from anything."""
    if not isinstance(node, ast.Name) or any(
        isinstance(n, ast.ImportFrom) and any(a.name == "*" for a in n.names)
        for n in w.fa.tree.body
    ):
        return False
    cache = w.fa.__dict__.setdefault("_bound_names", {})  # the module's, then per scope
    if None not in cache:
        cache[None] = _bound_in(w.fa.tree.body, None)
    if w.func is not None and w.func not in cache:
        cache[w.func] = _bound_in([w.func], w.func)
    return node.id not in cache[None] and node.id not in cache.get(w.func, set())


def _bound_in(nodes: list, scope: ast.AST | None) -> set[str]:
    """Names bound in ``scope`` (or by the module's statements), not looking into the other
    functions and classes they define."""
    bound: set[str] = set()
    stack = list(nodes)
    while stack:
        n = stack.pop()
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(n.name)
            if n is not scope:
                continue  # another definition binds its name only
        if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load):
            bound.add(n.id)
        elif isinstance(n, ast.arg):
            bound.add(n.arg)
        elif isinstance(n, (ast.Import, ast.ImportFrom)):
            bound.update((a.asname or a.name).partition(".")[0] for a in n.names)
        stack.extend(ast.iter_child_nodes(n))
    return bound


_USES = {BACKWARD_FATE, ESCAPE_FATE}


def calls_used(flow, result: GraphFlow) -> None:  # flow: grad_flow's _Flow
    """The calls of this file's functions whose graph (or detached tensor) this scope uses for
    training, or may (unknown code), and those it returns to its own callers."""
    tensor_cut = {o: f for o, f in flow.fates.items() if o.cut and not o.host}
    for call in flow.summaries:
        graph = flow.fates.get(Origin(call), set())
        cut = tensor_cut.get(Origin(call, cut=True), set())
        if graph & _USES:
            result.used_calls.add(call)
        if RETURN_FATE in graph:
            result.returned_calls.add(call)
        split = call in flow.call_elements  # a tuple's element: a target only if backward here
        if cut & ({BACKWARD_FATE} if split else _USES):
            result.used_cut_calls.add(call)
        if RETURN_FATE in cut and not split:
            result.returned_cut_calls.add(call)
    for origin, fates in tensor_cut.items():
        if RETURN_FATE in fates and (origin.node in flow.sites or origin.node in flow.summaries):
            result.returns_cut = True
            if origin.node in flow.sites:
                result.cut_returned.add(origin.node)


INDEX_CUTS = {"argmax", "argmin", "argsort"}


def indices_of(taint: Taint) -> Taint:
    """The index origins of what ``argmax`` reads: they count only where a backward() of
    the scope reaches them (host cuts, so that no caller takes them for a target)."""
    return frozenset(Origin(o.node, True, True, True) for o in taint if not o.cut)


def without_indices(taint: Taint) -> Taint:
    """What a replay buffer, the object or a closure keeps: actions chosen, not targets."""
    return frozenset(o for o in taint if not o.index)


def in_a_training_loop(w: FlowContext, node: ast.AST) -> bool:
    """``node`` runs in a loop whose passes also run a backward() or step()."""
    event = next((e for e in w.events if e.node is node), None)
    if event is None or not event.loops:
        return False
    loop = event.loops[-1]
    return any(e.kind in {BACKWARD, STEP} and loop in e.loops for e in w.events)


def discards(flow: Any) -> list[tuple[ast.AST, ast.AST]]:
    """(forward, where it is reported) for each forward of a pass of ``grad_flow`` (its
    ``_Flow``) whose graph nothing backpropagates, and each model method it calls that
    discards one inside."""
    found = []
    for node, site in flow.sites.items():
        origin = Origin(node)
        # a forward whose result is never read is a demo; a helper's call is read through
        # what else it returns (loss, acc = fast_adapt(...); only acc printed), or through
        # what it does, but not when a training loop binds its result and never reads it
        # (``x = vae.inference()`` every 100 batches, overwritten by the next batch)
        helper_read = (
            origin in flow.read
            or node in flow.call_elements
            or not in_a_training_loop(flow.w, node)  # calibration, a printing evaluation
        )
        read = origin in flow.sunk or (node in flow.summaries and helper_read)
        if node in flow.reached and read and not flow.fates.get(origin):
            if any(
                BACKWARD_FATE in flow.fates.get(Origin(node, True, host, index), ())
                for host, index in ((False, False), (True, False), (True, True))
            ) or kept_for_training(flow.w, flow.kept_on_self, node):
                flow.feeds_training.add(node)
            found.append((node, site))
    return found + [(call, call) for call in flow.discarding if not _cut_value_trained(flow, call)]


def _cut_value_trained(flow: Any, call: ast.AST) -> bool:
    """``torch.sigmoid(self.conf_mlp(y).detach()) * self.causal_mlp(x)``: the method's
    detached forward comes back in what it returns, with the graph of a trained forward,
    and both feed a backward() here (a weight inside the update, training like a detached
    target in the loop). A method returning only the detached value (``get_embedding``,
    features for a linear probe) is inference, whatever its caller trains on them."""
    fates = flow.fates
    return (
        flow.discarding[call].returns_cut
        and BACKWARD_FATE in fates.get(Origin(call, cut=True), ())
        and BACKWARD_FATE in fates.get(Origin(call), ())
    )
