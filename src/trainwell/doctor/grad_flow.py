"""Where the graph of each forward pass goes: to a ``backward()``, out of the scope, or nowhere.

A forward pass run with autograd on records a graph.  That is only worth its memory and time
when something can still backpropagate through the result: a ``backward()`` of this scope, a
caller (the result is returned), or code the analysis cannot see (the result is stored on an
object, handed to an unknown function, captured by a closure).  When every use of the result
cuts the graph instead (``.item()``, ``.argmax()``, the indices of ``.max(1)``, ``.detach()``,
a comparison, a print), the forward was inference and belonged under ``torch.no_grad()``.

:func:`graph_flow` answers it for one walked scope with a forward data-flow pass in
statement order.  Each value is the set of *origins* it carries: forward passes (and calls of
functions that return a forward's graph) run with autograd on, and the scope's parameters.
Every origin ends with a set of fates: ``backward``, ``return`` or ``escape``; a forward
whose origin has none is discarded.  Unknown code is assumed to keep what it is given, so
the pass errs towards silence.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable

from . import values as V
from ._astutil import dotted, last_part
from .events import CALL, FORWARD, OPAQUE, Summary
from .flow_result import (
    BACKWARD_FATE,
    CLEAN,
    CUT_LABEL,
    DETACHED,
    DROPPED_FATE,
    ESCAPE_FATE,
    GRAPH_LABEL,
    INDEX_CUTS,
    RETURN_FATE,
    FlowContext,
    GraphFlow,
    Origin,
    Taint,
    calls_used,
    detached_params,
    discards,
    graph_source,
    indices_of,
    model_method,
    of_known_class,
    undefined_name,
    without_indices,
)
from .graph_calls import (
    BACKWARD_CALLS,
    BUILTINS_PURE,
    CONSUMING_METHODS,
    CONTAINER_METHODS,
    CUTTING_ATTRS,
    CUTTING_FUNCTIONS,
    CUTTING_METHODS,
    GRAD_FUNCTIONS,
    HOST_READS,
    SHAPE_READS,
    VALUE_KEEPING,
    VALUES_AND_INDICES,
    bind_arguments,
    decide,
    formatted_values,
    from_pure_library,
    is_abstract,
    is_measure,
    is_metric,
    names_in_nested_scopes,
    own_statements,
    phase_loops,
    trains_on,
    writes_out,
)


def graph_flow(w: FlowContext, is_module_method: bool) -> GraphFlow:
    """Follow every forward of ``w``'s scope run with autograd on to where its graph goes.

    ``is_module_method``: the scope is a method of an ``nn.Module`` (``pi``, ``predict``):
    its callers decide whether autograd is on, so what it discards is reported at them.
    """
    sources: dict[ast.AST, ast.AST] = {}  # call node -> where a discard is reported
    grad_on: dict[ast.AST, bool] = {}  # call node -> ran with autograd on
    summaries: dict[ast.AST, Summary] = {}
    for e in w.events:
        if e.kind in {FORWARD, CALL, OPAQUE}:
            grad_on[e.node] = not e.no_grad
        if e.kind == CALL and e.summary is not None:
            summaries[e.node] = e.summary
        site = graph_source(w, e) if not e.no_grad else None
        if site is not None:
            sources[e.node] = site
    flow = _Flow(w, sources, grad_on, summaries)
    flow.run()
    result = GraphFlow()
    result.discarded = discards(flow)
    result.feeds_training = flow.feeds_training
    # for phase in ("train", "val"): each phase on its own, so that the forward of the
    # validation phase is not counted as used by the train phase's backward()
    for name, values in phase_loops(w.body):
        training = next((v for v in values if "train" in v.lower()), values[0])
        for value in values:
            phased = _Flow(w, sources, grad_on, summaries, {name: value})
            phased.run()
            for found in discards(phased):
                if found not in result.discarded:
                    result.discarded.append(found)
                    result.phase_of[found[0]] = (name, value, training)
            result.feeds_training |= phased.feeds_training
    result.return_positions = flow.return_positions()
    returned = [
        o.node
        for o, f in flow.fates.items()
        # a graph the function already backpropagated (``return output, loss.item()`` after
        # ``loss.backward()``) costs its callers nothing more
        if RETURN_FATE in f and BACKWARD_FATE not in f and not o.cut and o.node in flow.sites
    ]
    if returned:
        result.returns_graph = True
        result.graph_site = None if is_module_method else flow.sites[returned[0]]
    if not is_abstract(w.func):  # (an abstract method's arguments: unknown, not unused)
        result.param_fates = {p: frozenset(flow.fates.get(Origin(p), ())) for p in w.params}
        result.returned_cut = frozenset(
            p
            for p in detached_params(w)
            if any(RETURN_FATE in flow.fates.get(Origin(p, True, h), ()) for h in (False, True))
        )
    result.trained_calls = {
        node for node in sources if BACKWARD_FATE in flow.fates.get(Origin(node), ())
    }
    result.backprop_from_data = {
        node for node in result.trained_calls if node in flow.data_input and node is sources[node]
    }
    result.data_input = flow.data_input
    result.escaped_from_data = {
        node for node in flow.data_input if ESCAPE_FATE in flow.fates.get(Origin(node), ())
    }
    calls_used(flow, result)
    return result


class _Flow:
    """The pass itself: an environment of taints, walked in statement order."""

    def __init__(self, w: FlowContext, sources, grad_on, summaries, assume=None) -> None:
        self.w = w
        self.assume: dict[str, str] = assume or {}  # phase name -> the value this pass takes
        self.sources = sources
        self.grad_on = grad_on
        self.summaries = summaries
        self.env: dict[str, Taint] = {p: frozenset({Origin(p)}) for p in w.params}
        self.fates: dict[Origin, set[str]] = {}
        self.reached: set[ast.AST] = set()
        self.data_input: set[ast.AST] = set()  # forwards whose inputs carry no graph
        # origins read as numbers, indices, detached copies, logs: what makes a discard (a
        # forward whose result is never read at all is a demo, not inference)
        self.sunk: set[Origin] = set()
        self.read: set[Origin] = set()  # origins of names read (not only bound) somewhere
        # discarded forwards whose cut values still feed a backward(): targets, baselines
        self.feeds_training: set[ast.AST] = set()
        # detached values kept on the object, by attribute (``self.memory["td"] = td.data``)
        self.kept_on_self: dict[str, set[Origin]] = {}
        # forwards of a model whose class is known: a shape read of their output only
        # sizes something (``normal.sample(action.shape)``); of a name taken for a model,
        # it may be all that shows the object is no model at all
        self.known_models: set[ast.AST] = {
            e.node
            for e in w.events
            if (e.kind == FORWARD and of_known_class(w, e.receiver))
            or (e.kind == CALL and e.summary is not None and e.summary.returns_graph)
        }
        # every origin node -> where its discard is reported (sources, and calls of a
        # model's own methods that run its forward: ``model.pi(x)``)
        self.sites: dict[ast.AST, ast.AST] = dict(sources)
        # calls of model methods that discard inside, with the methods' summaries
        self.discarding: dict[ast.AST, Summary] = {}
        self.returned_tuples: list[list[Taint] | None] = []  # per return: its elements
        self.call_elements: dict[ast.AST, list[Taint]] = {}  # a called tuple-return, split
        self.captured = names_in_nested_scopes(w.body)
        self.globals = {n for s in own_statements(w.body) if isinstance(s, ast.Global)
                        for n in s.names}  # fmt: skip

    # -- fates ----------------------------------------------------------------------------
    def cut(self, taint: Taint, keeps_values: bool, to_host: bool = False) -> Taint:
        """A value cut from its graph: read (the graph's forward is sunk), not carried.

        What keeps the values (``.detach()``, ``.data``, ``.item()``) may still feed a loss as
        a target; indices, masks and samples (``argmax``, comparisons) are data from then on
        (an action stored in a replay buffer is not part of the step that chose it)."""
        self.sunk |= taint
        if not keeps_values:
            return CLEAN
        return frozenset(
            o
            if o.cut and (o.host or not to_host)
            else Origin(o.node, True, o.host or to_host, o.index)
            for o in taint
        )

    def shape_read(self, taint: Taint) -> Taint:
        """What a shape read (``out.shape``, ``out.size(0)``) carries on. Of a known model's
        output, numbers: no use of the graph, nor a sink (a shape check alone is a smoke
        test, the shape sizing noise or a mask leaves the other uses to decide). Of a
        name taken for a model, a use: it may be all that shows it is no model."""
        unknown = frozenset(o for o in taint if o.node not in self.known_models)
        self.fate(unknown, ESCAPE_FATE)
        return unknown

    def fate(self, taint: Iterable[Origin], what: str) -> None:
        for origin in taint:
            self.fates.setdefault(origin, set()).add(what)

    def run(self) -> None:
        self.block(self.w.body)
        for name in self.captured:  # a closure may backpropagate what it sees
            self.fate(self.env.get(name, CLEAN), ESCAPE_FATE)
            # a detached value a closure reads: a target or advantage of its loss (TRPO)
            self.fate(
                {o for o in without_indices(self.env.get(name, CLEAN)) if o.cut}, BACKWARD_FATE
            )

    # -- statements -----------------------------------------------------------------------
    def block(self, body: list[ast.stmt]) -> None:
        for stmt in body:
            self.stmt(stmt)

    def stmt(self, s: ast.stmt) -> None:
        if isinstance(s, ast.Assign):
            taint = self.ev(s.value)
            elements = self.call_elements.get(s.value)
            for target in s.targets:
                if (
                    elements is not None
                    and isinstance(target, (ast.Tuple, ast.List))
                    and len(target.elts) == len(elements)
                ):
                    for elt, element in zip(target.elts, elements, strict=True):
                        self.bind(elt, element)  # loss, n_correct = f(...): each its own
                else:
                    self.bind(target, taint)
        elif isinstance(s, ast.AugAssign):
            taint = self.ev(s.value) | self.ev(s.target)
            self.bind(s.target, taint)
        elif isinstance(s, ast.AnnAssign):
            if s.value is not None:
                self.bind(s.target, self.ev(s.value))
        elif isinstance(s, ast.Expr):
            taint = self.ev(s.value)
            if isinstance(s.value, ast.Call) and s.value in self.sources:
                # a forward whose result is dropped: kept alive by hooks, perhaps (not a
                # use that makes its callee a training helper: see _calls_used)
                self.fate(taint, DROPPED_FATE)
        elif isinstance(s, ast.Return):
            if isinstance(s.value, ast.Tuple) and not any(
                isinstance(e, ast.Starred) for e in s.value.elts
            ):
                elements = [self.ev(e) for e in s.value.elts]
                self.returned_tuples.append(elements)
                self.fate(frozenset().union(*elements), RETURN_FATE)
            else:
                self.returned_tuples.append(None)
                self.fate(self.ev(s.value), RETURN_FATE)
        elif isinstance(s, (ast.For, ast.AsyncFor)):
            iterated = self.ev(s.iter)
            if self._loader(s.iter):  # batches of a DataLoader carry no graph
                iterated = CLEAN
            for _ in range(2):  # twice: what one iteration leaves reaches the next
                self.bind(s.target, iterated)
                self.branches([s.body])
            self.block(s.orelse)
        elif isinstance(s, ast.While):
            for _ in range(2):
                self.ev(s.test)
                self.branches([s.body])
            self.block(s.orelse)
        elif isinstance(s, ast.If):
            self.ev(s.test)
            decided = decide(s.test, self.assume)
            if decided is None:
                self.branches([s.body, s.orelse], every_path=True)
            else:
                self.block(s.body if decided else s.orelse)
        elif isinstance(s, (ast.With, ast.AsyncWith)):
            for item in s.items:
                taint = self.ev(item.context_expr)
                if item.optional_vars is not None:
                    self.bind(item.optional_vars, taint)
            self.block(s.body)
        elif isinstance(s, ast.Try) or type(s).__name__ == "TryStar":
            self.branches([s.body, *[h.body for h in s.handlers]])  # type: ignore[attr-defined]
            self.block(s.orelse)  # type: ignore[attr-defined]
            self.block(s.finalbody)  # type: ignore[attr-defined]
        elif isinstance(s, ast.Match):
            self.ev(s.subject)
            self.branches([c.body for c in s.cases])
        elif isinstance(s, (ast.Assert, ast.Raise, ast.Delete)):
            for child in ast.iter_child_nodes(s):
                if isinstance(child, ast.expr):
                    self.ev(child)
        # function and class definitions are scopes of their own

    def branches(self, blocks: list[list[ast.stmt]], every_path: bool = False) -> None:
        """Arms that may each run: after, the union of theirs (and of before, but for if/else)."""
        start = dict(self.env)
        merged: dict[str, Taint] = {} if every_path else dict(start)
        for body in blocks:
            self.env = dict(start)
            self.block(body)
            for name, taint in self.env.items():
                merged[name] = merged.get(name, CLEAN) | taint
        self.env = merged

    def bind(self, target: ast.expr, taint: Taint) -> None:
        if isinstance(target, (ast.Tuple, ast.List)):
            for elt in target.elts:
                self.bind(elt, taint)
            return
        if isinstance(target, ast.Starred):
            self.bind(target.value, taint)
            return
        if isinstance(target, ast.Subscript):
            self.ev(target.slice)
            container = target.value
            while isinstance(container, ast.Subscript):
                container = container.value
            self.into(container, taint)
            return
        if isinstance(target, ast.Attribute):
            self.ev(target.value)
            self.fate(taint, ESCAPE_FATE)  # obj.attr = out: whoever holds obj may use it
            self.keep_on_self(target, taint)
            name = dotted(target)
            if name is not None:
                self.env[name] = taint
            return
        if isinstance(target, ast.Name):
            if target.id in self.globals:
                self.fate(taint, ESCAPE_FATE)
            self.env[target.id] = taint

    def into(self, container: ast.expr, taint: Taint) -> None:
        """``container.append(out)`` / ``container[k] = out``: the container now holds it."""
        taint = without_indices(taint)
        while isinstance(container, ast.Subscript):  # outs[k].append(out): outs holds it
            container = container.value
        if isinstance(container, ast.Name) and container.id not in self.globals:
            self.env[container.id] = self.env.get(container.id, CLEAN) | taint
            if container.id in self.w.params:  # results["loss"] = loss: the caller's dict
                self.fate(taint, ESCAPE_FATE)
        else:
            self.fate(taint, ESCAPE_FATE)
            self.keep_on_self(container, taint)

    def keep_on_self(self, target: ast.expr, taint: Taint) -> None:
        """Detached values stored on the object: a method of its class may train on them."""
        parts = (dotted(target) or "").split(".")
        if len(parts) > 1 and parts[0] == "self":
            self.kept_on_self.setdefault(parts[1], set()).update(
                o for o in taint if o.cut and not o.index
            )

    # -- expressions ----------------------------------------------------------------------
    def ev(self, node: ast.AST | None) -> Taint:
        if node is None:
            return CLEAN
        if (values := formatted_values(node)) is not None:  # a string: printed, not kept
            for value in values:
                self.sunk |= self.ev(value)
            return CLEAN
        if isinstance(node, ast.Call):
            return self.call(node)
        if isinstance(node, ast.Name):
            self.read |= self.env.get(node.id, CLEAN)
            return self.env.get(node.id, CLEAN)
        if isinstance(node, ast.Attribute):
            base = self.ev(node.value)
            if node.attr in SHAPE_READS:
                return self.shape_read(base)
            if node.attr in CUTTING_ATTRS:
                return self.cut(base, keeps_values=node.attr == "data")
            held = self.env.get(dotted(node) or "", CLEAN)
            self.read |= held
            return base | held
        if isinstance(node, ast.Compare):
            parts = [self.ev(p) for p in [node.left, *node.comparators]]
            return self.cut(frozenset().union(*parts), keeps_values=False)
        if isinstance(node, ast.UnaryOp):
            taint = self.ev(node.operand)
            return self.cut(taint, keeps_values=False) if isinstance(node.op, ast.Not) else taint
        if isinstance(node, ast.NamedExpr):
            taint = self.ev(node.value)
            self.bind(node.target, taint)
            return taint
        if isinstance(node, (ast.Yield, ast.YieldFrom)):
            self.fate(self.ev(node.value), RETURN_FATE)
            return CLEAN
        if isinstance(node, ast.Lambda):
            return CLEAN
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
            return self.comprehension(node)
        taint = CLEAN
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.expr):
                taint = taint | self.ev(child)
        return taint

    def comprehension(self, node) -> Taint:
        saved = dict(self.env)
        for gen in node.generators:
            self.bind(gen.target, self.ev(gen.iter))
            for cond in gen.ifs:
                self.ev(cond)
        if isinstance(node, ast.DictComp):
            taint = self.ev(node.key) | self.ev(node.value)
        else:
            taint = self.ev(node.elt)
        self.env = saved
        return taint

    def call(self, call: ast.Call) -> Taint:
        func = call.func
        receiver = self.ev(func.value) if isinstance(func, ast.Attribute) else CLEAN
        if isinstance(func, ast.Name):
            # the thing called holds a graph: not a tensor after all (net = Net(); net(x))
            self.fate(self.env.get(func.id, CLEAN), ESCAPE_FATE)
        arg_taints = [self.ev(a) for a in call.args] + [self.ev(k.value) for k in call.keywords]
        passed: Taint = frozenset().union(*arg_taints) if arg_taints else CLEAN
        own: Taint = CLEAN
        if call in self.sources:
            self.reached.add(call)
            own = frozenset({Origin(call)})
            if not any(not o.cut for o in passed):  # (the receiver: the model's holder)
                self.data_input.add(call)  # teacher(x): nothing upstream needs the graph
        name = self.w.fa.imports.resolve(func) or ""
        tail = func.attr if isinstance(func, ast.Attribute) else last_part(name)
        if tail in BACKWARD_CALLS or name in GRAD_FUNCTIONS:
            if isinstance(func, ast.Attribute) and undefined_name(self.w, func.value):
                receiver = frozenset().union(CLEAN, *self.env.values())  # an unwritten loss
            self.fate(receiver | passed, BACKWARD_FATE)
            return CLEAN
        summary = self.summaries.get(call)
        if summary is None and isinstance(func, ast.Attribute):
            summary = model_method(self.w, func)
            if summary is not None and summary.returns_graph and self.grad_on.get(call, False):
                self.sites[call] = call  # model.pi(x): the model's own method runs forward
                self.reached.add(call)
                own = frozenset({Origin(call)})
        if summary is not None:
            if summary.discards and self.grad_on.get(call, False):
                self.discarding[call] = summary
            if summary.returns_cut:  # a detached tensor: maybe a target (see _calls_used)
                own = own | {Origin(call, cut=True)}
            result = own | self.through_summary(call, summary, receiver, arg_taints)
            if summary.return_positions is not None:
                self.call_elements[call] = self.split_return(call, summary, own, arg_taints)
            return result
        if tail in VALUES_AND_INDICES and (name.startswith("torch.") or receiver):
            indices = self.cut(receiver | passed, keeps_values=True)  # _, pred = out.max(1)
            self.call_elements[call] = [own | receiver | passed, indices]
        if isinstance(func, ast.Attribute):
            if tail in SHAPE_READS:
                return own | passed | self.shape_read(receiver)
            if tail in CUTTING_METHODS:
                kept = tail in VALUE_KEEPING
                indices = indices_of(receiver) if tail in INDEX_CUTS else CLEAN
                return own | indices | self.cut(receiver | passed, kept, tail in HOST_READS)
            if from_pure_library(name):  # torch.log(p), np.exp(x): computation, not logging
                return own | receiver | passed
            if receiver and tail == "keys" and not call.args:
                return own  # a dict's keys: names, not what it holds
            if receiver and tail in CONTAINER_METHODS - {"add"}:
                # outs[k].append(ret[k]) where the key came from a graph's dict: a list
                self.into(func.value, passed)
                return own
            if receiver:  # a method of a tensor (or object) holding a graph: it carries on
                if trains_on(tail):  # mine.train_step(z, ...) of an object handed in
                    self.fate(passed, ESCAPE_FATE)
                return own | receiver | passed
            if tail in CONTAINER_METHODS:
                self.into(func.value, passed)
                return own
            if tail in CONSUMING_METHODS:
                self.sunk |= passed
                return own
        if tail in CUTTING_FUNCTIONS or is_metric(tail) or writes_out(name):
            return own | self.cut(passed, tail in VALUE_KEEPING, to_host=True)
        if name.startswith("sklearn."):  # roc_auc_score(labels, scores): NumPy and floats
            return own | self.cut(passed, True, to_host=True)
        if call in self.sources or self._is_pure(name, func):
            return own | passed
        self.fate(passed, ESCAPE_FATE)  # unknown code: it may keep it for a backward
        return own | passed | receiver

    def through_summary(
        self, call: ast.Call, summary: Summary, receiver: Taint, arg_taints: list[Taint]
    ) -> Taint:
        """A call of a function the analysis walked: its parameters' fates are known."""
        result: Taint = CLEAN
        bound = bind_arguments(call, summary.params, arg_taints)
        for param, taint in bound.items():
            fates = summary.param_fates.get(param)
            if fates is None:  # a summary made before the pass knew (or a foreign one)
                self.fate(taint, ESCAPE_FATE)
                result |= taint
                continue
            self.sunk |= taint  # read by the function (acc = accuracy(out, y)), not a demo
            for what in fates - {RETURN_FATE}:
                self.fate(taint, what)
            if RETURN_FATE in fates:
                result |= taint
            if param in summary.returned_cut:
                result |= self.cut(taint, keeps_values=True)
        if len(call.args) + len(call.keywords) > len(bound):  # *args, **kwargs: not followed
            self.fate(frozenset().union(*arg_taints), ESCAPE_FATE)
        self.fate(receiver, BACKWARD_FATE if summary.trains else ESCAPE_FATE)
        return result

    def split_return(
        self, call: ast.Call, summary: Summary, own: Taint, arg_taints: list[Taint]
    ) -> list[Taint]:
        """The taint of each element of a tuple the callee returns."""
        bound = bind_arguments(call, summary.params, arg_taints)
        elements = []
        for labels in summary.return_positions or ():
            element = own if GRAPH_LABEL in labels else CLEAN
            if CUT_LABEL in labels:  # _, etas = optimize_eta(...): maybe a loss's target
                element = element | {Origin(call, cut=True)}
            for param in labels - {GRAPH_LABEL}:
                if param.endswith(DETACHED):  # its detached value: a target of a loss
                    passed = bound.get(param[: -len(DETACHED)], CLEAN)
                    element = element | self.cut(passed, keeps_values=True)
                else:
                    element = element | bound.get(param, CLEAN)
            elements.append(element)
        return elements

    def return_positions(self) -> tuple[frozenset[str], ...] | None:
        """What each element of the returned tuple carries: parameters, and GRAPH_LABEL for a
        graph of the scope's own forwards (None: not always a tuple of one length)."""
        tuples = self.returned_tuples
        if not tuples or any(t is None for t in tuples) or len({len(t) for t in tuples}) != 1:
            return None
        detached = detached_params(self.w)
        positions = []
        for index in range(len(tuples[0])):  # type: ignore[arg-type]
            labels: set[str] = set()
            for elements in tuples:
                for origin in elements[index]:  # type: ignore[index]
                    if origin.cut and origin.node in detached:
                        labels.add(f"{origin.node}{DETACHED}")
                    elif not origin.cut:
                        labels.add(origin.node if isinstance(origin.node, str) else GRAPH_LABEL)
                    elif not isinstance(origin.node, str) and not origin.host:
                        labels.add(CUT_LABEL)  # its own forward's detached tensor
            positions.append(frozenset(labels))
        return tuple(positions)

    def _loader(self, it: ast.expr) -> bool:
        """``loader``, ``enumerate(loader)``, ``tqdm(self.train_loader)``: a DataLoader."""
        while isinstance(it, ast.Call) and it.args:
            it = it.args[0]
        value = self.w.lookup(dotted(it))
        return value is not None and value.kind == V.LOADER

    def _is_pure(self, name: str, func: ast.expr) -> bool:
        if name in BUILTINS_PURE or from_pure_library(name):
            return True
        if isinstance(func, ast.Call):  # nn.CrossEntropyLoss(reduction="none")(logits, y)
            built = last_part(self.w.fa.imports.resolve(func.func) or "")
            return built.endswith("Loss") or built in V.PARAMETERLESS_LAYERS
        value = self.w.lookup(dotted(func)) if isinstance(func, (ast.Name, ast.Attribute)) else None
        if value is not None and value.kind in {V.CRITERION, V.MODEL}:
            return True
        # loss_fn(out, y) imported from a module of the project: a loss keeps nothing
        tail = last_part(name).lower()
        return "loss" in tail or "criterion" in tail or is_measure(tail)
