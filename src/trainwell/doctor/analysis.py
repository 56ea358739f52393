"""The per-file analysis: a small abstract interpreter over each scope of a script.

Each scope (the module body, every function and method) is walked statement by statement
in source order by a :class:`ScopeWalker`, which keeps an environment mapping names to
:class:`~.values.Value` objects and records *events* (``backward``, optimizer ``step``,
``zero_grad``, clipping, mode switches, forward calls ...) together with the loops and ``if``
branches they sit in.  Rules (the families of :mod:`.rules`, handed in as a :class:`Checks`;
the analysis never imports them) then look at the ordered events.  Calls to functions
defined in the same file are summarised (does it zero grads? leave the model in eval mode?
...) so that a loop calling ``train_one_epoch(...)`` or ``validate(...)`` is understood.

Two passes are made over a file: the first collects what callers pass to each function
and the module-level globals, the second walks again with that knowledge and reports.

This module holds the driver, :class:`FileAnalysis`, and the complete walker.  The walker
is built in layers, each in its own module and each using only those below it:
:mod:`.scope_state` (environment, events, primitives), :mod:`.call_effects` and
:mod:`.call_resolution` (calls), :mod:`.expressions`, :mod:`.statements`; the records they
produce are in :mod:`.events` and :mod:`.foreign`, the per-scope pre-pass in
:mod:`.scope_facts`.
"""

from __future__ import annotations

import ast
import itertools
from collections.abc import Callable
from dataclasses import replace
from typing import Protocol

from . import values as V
from ._astutil import Imports, dotted, walk
from .class_facts import (
    binds_self,
    classes_built,
    evident_models,
    is_module_base,
    subclasses_of,
    takes_input_gradients,
)
from .events import RawFinding, Summary
from .foreign import Foreign, ForeignClass, ForeignNode, reached_twice
from .handover import remote_functions
from .helper_uses import HelperUses
from .mode_switch import (
    NO_GRAD_BY_STATE,
    TrainingSwitch,
    forward_no_grad_switch,
    forward_state_switch,
    reachable_or_twin,
    training_switches,
)
from .run_sites import (
    a_fallback_with_grad,
    callbacks_of,
    dispatched_under_no_grad,
    dormant_function,
    entry_points_of,
    grad_off_for_good,
    gradio_handlers,
    lightning_hooks,
    names_read,
    node_at,
    trains_by_a_parameter,
)
from .scope_facts import ScopeFacts, scope_facts
from .scope_state import ClassInfo, WalkHooks, keeps_no_weights
from .statements import StatementWalker
from .values import Value, merge


class Checks(WalkHooks, Protocol):
    """The rules the walk calls back into (``trainwell.doctor.rules.CHECKS`` is one).

    The ``at_*`` hooks (from :class:`~.scope_state.WalkHooks`) run during the walk, while
    the values of the names are current.
    """

    def run_file_checks(self, fa: FileAnalysis) -> None:
        """Once per file, after its scopes were walked."""

    def run_scope_checks(self, w: ScopeWalker) -> None:
        """Once per scope, after its walk in the reporting pass."""

    def summarize(self, w: ScopeWalker) -> Summary:
        """What the callers of a walked scope need to know."""


def _false_flags(nodes: list[ast.AST]) -> set[str]:
    """Names that every binding in the file sets to a false constant (``False``, ``None``,
    ``0``): any other binding (a parameter, an import, a loop variable, an assignment of
    anything else, in any scope) makes the name a real choice."""
    bindings: dict[str, int] = {}
    false: dict[str, int] = {}
    for node in nodes:
        name = _bound_name(node)
        if name is not None:
            bindings[name] = bindings.get(name, 0) + 1
        if isinstance(node, ast.Assign) and _a_false_constant(node.value):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    false[target.id] = false.get(target.id, 0) + 1
    return {name for name, count in false.items() if bindings.get(name) == count}


def _a_false_constant(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and not node.value


def _bound_name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
        return node.id  # x = ..., for x in ..., with ... as x, x += 1, del x
    if isinstance(node, ast.arg):
        return node.arg
    if isinstance(node, ast.alias):
        return (node.asname or node.name).split(".")[0]
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return node.name
    return None


class FileAnalysis:
    """Holds everything known about one file and drives the walks over its scopes."""

    def __init__(
        self,
        tree: ast.Module,
        target_torch: tuple[int, int],
        checks: Checks,
        foreign: Foreign | None = None,
    ) -> None:
        self.tree = tree
        self.foreign = foreign
        self.target_torch = target_torch
        # The analysis walks the code and records events; the rules judge them.  The rules
        # depend on the analysis, never the reverse, so they are handed in here (engine.py
        # passes trainwell.doctor.rules.CHECKS) rather than imported.
        self.checks = checks
        # One traversal of the whole tree serves imports, classes and torch.load calls.
        self.nodes = walk(tree)
        self.imports = Imports(
            [n for n in self.nodes if isinstance(n, (ast.Import, ast.ImportFrom, ast.ClassDef))]
            + [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
        )
        self.classes: dict[str, ClassInfo] = {}
        self.functions: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}
        self.method_class: dict[ast.AST, ClassInfo] = {}
        self.findings: list[RawFinding] = []
        self.collect = False
        self.summaries: dict[ast.AST, Summary | None] = {}
        self.call_sites: dict[ast.AST, list[bool]] = {}
        self.callers: dict[ast.AST, list[tuple[bool, ast.AST | None]]] = {}  # (no_grad, caller)
        self._names_read: set[str] | None = None
        self.called_elsewhere: Callable[[str], bool] | None = None  # (set for a project)
        self.calls_of: dict[ast.AST, list[ast.Call | None]] = {}  # the calls, as in callers
        self.seeds: dict[ast.AST, dict[str, Value | None]] = {}
        self._new_seeds: dict[ast.AST, dict[str, Value | None]] = {}
        self.module_env: dict[str, Value | None] = {}
        self.no_grad_candidates: list[tuple[ast.AST | None, RawFinding]] = []
        # train-or-evaluate functions (mode_switch) whose inference calls were reported
        self.switched_off: set[ast.AST] = set()
        # functions handed to another thread or process (Process(target=f), pool.map(f))
        self.handed_over: set[ast.AST] = set()
        # plain classes of other files instantiated here, by name (their methods' summaries)
        self.foreign_objects: dict[str, ForeignClass] = {}
        self._switches: dict[ast.AST, tuple[TrainingSwitch, ...]] = {}
        # what callers do with what the file's functions return (see HelperUses)
        self.helper_uses = HelperUses()
        self._facts: dict[ast.AST, ScopeFacts] = {}
        # functions passed as ``step_fn=`` to trainwell's fit(): each call is a training step
        # (kept across the two passes: the fit() call may come after the function's walk)
        self.step_fns: set[ast.AST] = set()
        # names the file treats as modules (``G.eval()``, ``G.parameters()``) whatever their
        # class: a class the analysis cannot see (``from models import *``) is a model then
        self.evident_models: set[str] = evident_models(self.nodes)
        # names only ever bound to False (``USE_AMP = False`` in both arms of a try): an
        # ``if USE_AMP:`` arm never runs
        self.false_flags: set[str] = _false_flags(self.nodes)
        self._index()
        self.entry_points: set[ast.AST] = entry_points_of(self.tree, self.functions, self.imports)
        self.entry_points |= remote_functions(self.tree)  # @ray.remote: run in a worker
        self.entry_points |= lightning_hooks(self.tree, self.imports)  # the Trainer runs them
        self.entry_points |= gradio_handlers(self.tree, self.functions, self.imports)
        self.callbacks: set[str] = callbacks_of(self.nodes, self.functions)
        self.callbacks |= dispatched_under_no_grad(self.tree)  # COMMANDS[cmd](args)

    # -- indexing -------------------------------------------------------------------------
    def _index(self) -> None:
        for node in self.tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.functions[node.name] = node
        class_nodes = [n for n in self.nodes if isinstance(n, ast.ClassDef)]
        local_modules: set[str] = {
            name
            for name, sym in (self.foreign.names.items() if self.foreign else ())
            if isinstance(sym, ForeignClass) and sym.is_module
        }
        # Iterate to a fixpoint so that subclasses of local nn.Module subclasses count too.
        for _ in range(3):
            for cls in class_nodes:
                if any(is_module_base(b, self.imports, local_modules) for b in cls.bases):
                    local_modules.add(cls.name)
        own_classes = {cls.name for cls in class_nodes}
        for cls in class_nodes:
            if cls.name not in local_modules and self._unseen_module_base(cls, own_classes):
                local_modules.add(cls.name)
        for cls in class_nodes:
            methods = {
                n.name: n
                for n in cls.body
                if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
            }
            info = ClassInfo(cls, cls.name in local_modules, methods)
            self.classes[cls.name] = info
            for method in methods.values():
                self.method_class[method] = info

    def _unseen_module_base(self, cls: ast.ClassDef, own_classes: set[str]) -> bool:
        """``class Speech2Text(ModelBase)`` with ``def forward(self, batch)``, its base in a
        file the analysis does not have: a model (a class of torch's own, an autograd
        Function among them, or of this file is known for what it is)."""
        forward = next(
            (n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "forward"),
            None,
        )
        if forward is None or forward.decorator_list or not forward.args.args:
            return False
        if forward.args.args[0].arg != "self" or not cls.bases:
            return False
        for base in cls.bases:
            name = self.imports.resolve(base) or dotted(base) or ""
            if name in {"object", "ABC", "abc.ABC"} or name.startswith("torch."):
                return False
            if name in own_classes:
                return False  # a class of this file, not a module: known
        return True

    # -- driving --------------------------------------------------------------------------
    def run(self) -> list[RawFinding]:
        """Walk the file twice (see module docstring) and return the raw findings."""
        for pass_no in (1, 2):
            self.collect = pass_no == 2
            self.summaries = {}
            self.call_sites = {}
            self.callers = {}
            self.calls_of = {}
            self.no_grad_candidates = []
            self.switched_off = set()
            self.helper_uses = HelperUses()
            if pass_no == 2:
                self.seeds = self._new_seeds
            self._new_seeds = {}
            if pass_no == 1:
                # a function walked at its first call sees what that call passed: a model
                # handed down two levels (main -> train -> train_single_epoch) keeps its
                # class for the second pass
                self.seeds = self._new_seeds
            for info in self.classes.values():
                init = info.methods.get("__init__")
                if init is not None:
                    self.summary_of(init)
            module = ScopeWalker(self, None, self.tree.body, {}, None)
            module.walk()
            if pass_no == 1:
                self.module_env = dict(module.env)
            for func in itertools.chain(self.functions.values(), self.method_class):
                self.summary_of(func)
        self._resolve_no_grad_candidates()
        self._drop_losses_kept_without_grad()
        self.checks.run_file_checks(self)
        return self.findings

    def _drop_losses_kept_without_grad(self) -> None:
        """TW011 in a function that every call of this file runs under no_grad (an
        evaluation helper of a ``@torch.no_grad()`` method): its losses carry no graph."""
        kept = []
        for finding in self.findings:
            func = self._innermost(finding) if finding.code == "TW011" else None
            sites = self._grad_sites(func) if func is not None else []
            if not (sites and all(sites)):
                kept.append(finding)
        self.findings = kept

    def _resolve_no_grad_candidates(self) -> None:
        # Only report an un-guarded inference function when this file calls it outside
        # no_grad: a caller elsewhere may well wrap it.  Two callers reaching the same
        # forward pass in a helper give one finding.
        if grad_off_for_good(self.nodes):
            return  # torch.set_grad_enabled(False) once, never undone: nothing records a graph
        seen: set[tuple[str, str | None, int]] = set()
        trained = self.helper_uses.graph_helpers(self.summaries, self.overrides_of)
        targets = self.helper_uses.cut_functions(self.summaries)
        for func, finding in self.no_grad_candidates:
            if func in self.switched_off and not finding.every_call:
                continue  # said at its calls that switch training off
            if a_fallback_with_grad(func if func is not None else self.tree, finding):
                continue  # try: with no_grad(): model(x) / except RuntimeError: model(x)
            if finding.cut_returned and (func or self._innermost(finding)) in targets:
                continue  # its detached value is a target where a caller uses it
            if finding.at_call is not None and id(finding.helper) in trained:
                finding = finding.at_call
            elif self._inside_a_trained_helper(func, finding, trained):
                continue  # a forward training also runs: its evaluation calls are said
            sites = self._grad_sites(func, finding) if func is not None else [False]
            if not sites and func in self.entry_points:
                sites = [False]  # fire.Fire() / @click.command: run from the command line
            if not sites and self._trains(func):
                sites = [False]  # agent.run() trains: no caller runs it under no_grad
            key = (finding.code, finding.path, finding.line)  # one per line: net2(net1(x))
            if sites and not all(sites) and key not in seen:
                seen.add(key)
                self.findings.append(_in_its_thread(finding, func, self.handed_over))
        self.findings = reached_twice(self.findings, self.tree)

    def overrides_of(self, func: ast.AST) -> list[ast.AST]:
        """The methods of this file's subclasses that override method ``func``: what
        ``self._get_losses(...)`` in a base class's training loop runs for them."""
        info = self.method_class.get(func)
        if info is None or not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return []
        bases = {cls: c.node.bases for cls, c in self.classes.items()}
        subclasses = subclasses_of(bases, info.node.name)
        return [
            self.classes[c].methods[func.name]
            for c in subclasses
            if func.name in self.classes[c].methods
        ]

    def _inside_a_trained_helper(
        self, func: ast.AST | None, finding: RawFinding, trained: set[int]
    ) -> bool:
        """The finding stands in another function (``compute_batch()``, reached from an
        evaluation two calls down) whose returned graph a training caller backpropagates:
        no_grad there would break training; the data flow says it at the evaluation's call."""
        inner = self._innermost(finding)
        return inner is not None and inner is not func and id(self.summaries[inner]) in trained

    def _innermost(self, finding: RawFinding) -> ast.AST | None:
        """The innermost function of this file the finding stands in."""
        if finding.path is not None:
            return None
        around = [
            f
            for f in self.summaries
            if f.lineno <= finding.line <= (getattr(f, "end_lineno", None) or f.lineno)
        ]
        return max(around, key=lambda f: f.lineno, default=None)

    def _trains(self, func: ast.AST | None) -> bool:
        """A function of the file that runs backward() or step() (itself or through its
        callees): called from elsewhere, it is never wrapped in no_grad."""
        summary = self.summaries.get(func) if func is not None else None
        if summary is None or not summary.trains:
            return False
        # run(loader, train=False): a caller may ask for its evaluation, under no_grad
        return not trains_by_a_parameter(func, summary.training_sites)

    def training_switches(
        self, func: ast.FunctionDef | ast.AsyncFunctionDef
    ) -> tuple[TrainingSwitch, ...]:
        if func not in self._switches:
            self._switches[func] = training_switches(func, func in self.method_class)
        return self._switches[func]

    def _grad_sites(self, func: ast.AST, finding: RawFinding | None = None) -> list[bool]:
        """Per call of ``func`` that may reach the finding's forward: does it run under
        no_grad (its own, or because every call of the function it sits in does:
        ``predict_multiscale()`` called under no_grad runs ``predict_sliding()`` under it
        too)?"""
        forward = node_at(func, finding) if finding is not None else None
        calls = self.calls_of.get(func, [])
        return [
            no_grad or self._only_under_no_grad(caller, set())
            for (no_grad, caller), call in zip(self.callers.get(func, []), calls, strict=True)
            if not self._dormant(caller)
            and (
                forward is None
                or call is None
                or not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef))
                or reachable_or_twin(func, forward, call)
            )
        ]

    def _dormant(self, func: ast.AST | None) -> bool:
        """A plain function another file calls, never run here, training nothing: said there."""
        trains = getattr(self.summaries.get(func), "trains", False)  # type: ignore[arg-type]
        if self.called_elsewhere is None or self.callers.get(func) or trains:  # type: ignore[arg-type]
            return False
        self._names_read = self._names_read or names_read(self.nodes)  # Thread(target=f)
        dormant = dormant_function(func, self.functions, self._names_read, self.entry_points)
        return dormant and self.called_elsewhere(func.name)  # type: ignore[union-attr]

    def _only_under_no_grad(self, func: ast.AST | None, seen: set[ast.AST]) -> bool:
        if func is None or func in seen or func in self.entry_points:
            return False
        seen.add(func)
        calls = self.callers.get(func, [])
        if not calls:
            # never called here but handed over as a callback (``on_save=plot_model``):
            # the code that calls it, maybe under no_grad, is out of sight
            return getattr(func, "name", None) in self.callbacks
        return all(no_grad or self._only_under_no_grad(caller, seen) for no_grad, caller in calls)

    def facts_of(self, scope: ast.AST) -> ScopeFacts:
        if scope not in self._facts:
            self._facts[scope] = scope_facts(scope)
        return self._facts[scope]

    def report(self, code: str, node: ast.AST | ForeignNode, message: str) -> None:
        if self.collect:
            line = getattr(node, "lineno", 1)
            col = getattr(node, "col_offset", 0) + 1
            path = None
            if isinstance(node, ForeignNode):
                if not node.checked:
                    return  # in a file outside the checked paths: nowhere to report it
                path = node.path
            self.findings.append(RawFinding(code, line, col, message, path))

    def summary_of(
        self,
        func: ast.FunctionDef | ast.AsyncFunctionDef,
        parent_env: dict | None = None,
        enclosing: ClassInfo | None = None,
    ) -> Summary | None:
        """Walk ``func`` once per pass (memoised); ``None`` while recursion is in progress.
        ``enclosing``: the class of the method ``func`` is nested in, whose ``self`` it
        closes over (a Flask route in ``deploy()`` calling ``self.predict(text)``)."""
        if func in self.summaries:
            return self.summaries[func]
        self.summaries[func] = None
        cls = self.method_class.get(func)
        if cls is None and enclosing is not None and not binds_self(func):
            cls = enclosing
        env: dict[str, Value | None] = dict(parent_env or {})
        if cls is not None:
            env.update({f"self.{k}": self._evident(f"self.{k}", v) for k, v in cls.attrs.items()})
            if cls.is_module and "self" not in env:
                # inside an nn.Module's own method, ``self(x)`` runs the model
                env["self"] = Value(V.MODEL, cls=cls.node.name)
        walker = ScopeWalker(self, func, func.body, env, cls)
        summary = walker.walk()
        self.summaries[func] = summary
        return summary

    def _evident(self, name: str, value: Value | None) -> Value | None:
        """``self.G = G`` from an unknown argument, ``self.G.parameters()`` elsewhere: a
        module all the same."""
        return Value(V.MODEL) if value is None and name in self.evident_models else value

    def record_call(
        self,
        func: ast.AST,
        params: list[str],
        arg_values: dict[str, Value | None],
        no_grad: bool,
        caller: ast.AST | None = None,
        call: ast.Call | None = None,
    ) -> None:
        self.call_sites.setdefault(func, []).append(no_grad)
        self.callers.setdefault(func, []).append((no_grad, caller))
        self.calls_of.setdefault(func, []).append(call)
        seeds = self._new_seeds.setdefault(func, {})
        for name in params:
            if name not in arg_values:
                continue
            new = arg_values[name]
            seeds[name] = new if name not in seeds else merge(seeds[name], new)

    def _needs_grad(self, info: ClassInfo, seen: frozenset[str] = frozenset()) -> bool:
        """A method takes input gradients, itself or through a submodule it builds."""
        if takes_input_gradients(info.node):
            return True
        for name in classes_built(info.node) - seen - {info.node.name}:
            inner = self.classes.get(name)
            if inner is not None and self._needs_grad(inner, seen | {info.node.name}):
                return True
            foreign = self.foreign.names.get(name) if self.foreign else None
            if isinstance(foreign, ForeignClass) and V.NEEDS_GRAD in foreign.flags:
                return True
        return False

    def forward_flags(self, cls_name: str | None) -> frozenset[str]:
        """SOFTMAX / LOG_SOFTMAX when every ``return`` of the class's forward() has it;
        NEEDS_GRAD when a method of the class takes input gradients; WEIGHTLESS when it
        keeps no weights."""
        info = self.classes.get(cls_name or "")
        if info is None:
            return frozenset()
        needs_grad = frozenset({V.NEEDS_GRAD}) if self._needs_grad(info) else frozenset()
        if keeps_no_weights(info):
            needs_grad |= {V.WEIGHTLESS}  # for the files that import it
        if "forward" not in info.methods:
            return needs_grad
        switch = forward_no_grad_switch(info.methods["forward"], info.methods)
        if switch is not None:  # forward(batch, is_eval=True) runs under no_grad itself
            needs_grad |= {switch}
        elif forward_state_switch(info.methods["forward"], info.methods):
            needs_grad |= {NO_GRAD_BY_STATE}  # if not self.trainable: self.inference(x)
        summary = self.summary_of(info.methods["forward"])
        if summary is None:
            return needs_grad
        returned = summary.returns
        if returned is None and summary.returned_elements:
            # return F.log_softmax(logits), hidden: the prediction comes first
            returned = summary.returned_elements[0]
        if returned is None:
            return needs_grad
        return (returned.flags & {V.SOFTMAX, V.LOG_SOFTMAX}) | needs_grad


class ScopeWalker(StatementWalker):
    """Walks one scope in source order, tracking values and recording events.

    The top of the walker's layers (see the module docstring): it runs the walk and hands
    the walked scope to the rules.  The layers below see ``fa`` as a
    :class:`~.scope_state.FileContext`; here it is the :class:`FileAnalysis` itself.
    """

    fa: FileAnalysis

    def walk(self) -> Summary:
        self.visit_block(self.body)
        if self.fa.collect:
            self.fa.checks.run_scope_checks(self)
        return self.summarize()

    # -- summary --------------------------------------------------------------------------
    def summarize(self) -> Summary:
        return self.fa.checks.summarize(self)


__all__ = ["Checks", "FileAnalysis", "ScopeWalker"]


def _in_its_thread(finding: RawFinding, func: ast.AST | None, handed_over: set) -> RawFinding:
    """A function run in another thread or process says why a no_grad around its hand-over
    does not help."""
    if func not in handed_over:
        return finding
    note = (
        f"; {getattr(func, 'name', 'it')}() runs in another thread or process, which starts "
        "with autograd on whatever its caller's no_grad: turn it off inside"
    )
    return replace(finding, message=finding.message + note)
