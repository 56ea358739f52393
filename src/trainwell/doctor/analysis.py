"""The per-file analysis: a small abstract interpreter over each scope of a script.

Each scope (the module body, every function and method) is walked statement by statement
in source order.  The walker keeps an environment mapping names to :class:`Value` objects
and records *events* (``backward``, optimizer ``step``, ``zero_grad``, clipping, mode
switches, forward calls ...) together with the loops and ``if`` branches they sit in.
Rules (the families of :mod:`.rules`, handed in as a :class:`Checks`; this module never
imports them) then look at the ordered events.  Calls to functions defined in the same
file are summarised (does it zero grads? leave the model in eval mode? ...) so that a loop
calling ``train_one_epoch(...)`` or ``validate(...)`` is understood.

Two passes are made over a file: the first collects what callers pass to each function
and the module-level globals, the second walks again with that knowledge and reports.
"""

from __future__ import annotations

import ast
import itertools
from dataclasses import dataclass, field
from typing import Protocol

from . import values as V
from ._astutil import (
    Imports,
    argument,
    block_terminates,
    dotted,
    keyword,
    last_part,
    names_in,
)
from .values import Value, merge, normalize_receiver, value_from_name

# Event kinds.
BACKWARD = "backward"
STEP = "step"
ZERO = "zero_grad"
CLIP = "clip"
UNSCALE = "unscale"
SCHED = "sched_step"
EVAL = "eval"
TRAIN = "train"
MODE_UNKNOWN = "mode_unknown"
FORWARD = "forward"
CALL = "call"  # call of a function defined in this file (carries a Summary)
OPAQUE = "opaque"  # call of anything else; records which names it received

CLIP_FUNCTIONS = {"clip_grad_norm_", "clip_grad_value_", "clip_grad_norm", "clip_grads_with_norm_"}
GRAD_CONTEXTS = {"no_grad", "inference_mode"}
# Model methods that run the network (seq2seq / autoencoder halves count as forward passes).
FORWARD_METHODS = {"forward", "encode", "decode"}
ENGINE_WORDS = ("accelerator", "fabric", "engine", "deepspeed", "trainer")
TRAINWELL_FIT = {"trainwell.fit", "trainwell.loop.fit"}
Path = tuple[tuple[int, int], ...]


@dataclass
class LoopInfo:
    id: int
    node: ast.stmt
    kind: str  # "batch" | "epoch" | "micro" | "other"
    parent: int | None


@dataclass
class IfInfo:
    node: ast.stmt
    loops: tuple[int, ...]


@dataclass
class ModeEffect:
    """How a function changes the train/eval mode of one model it can see."""

    first: str | None = None  # mode set before the function's own first training step
    final: str | None = None  # "train" | "eval" | "unknown"


@dataclass
class Summary:
    """What a call to a same-file function does, as seen by its callers."""

    params: list[str]
    backward: list[ast.AST] = field(default_factory=list)
    steps: list[ast.AST] = field(default_factory=list)
    zero_grad: bool = False
    train_loop: bool = False
    sched_steps: set[str] = field(default_factory=set)
    modes: dict[str, ModeEffect] = field(default_factory=dict)
    returns: Value | None = None
    # model -> first forward pass run with autograd on, before the function sets that
    # model's mode or trains: it runs in whatever mode the caller left the model in.
    forwards: dict[str, ast.AST] = field(default_factory=dict)

    @property
    def trains(self) -> bool:
        return bool(self.backward or self.steps)


@dataclass
class Event:
    kind: str
    node: ast.AST
    seq: int
    loops: tuple[int, ...]
    path: Path
    no_grad: bool
    receiver: str | None = None
    value: Value | None = None
    summary: Summary | None = None
    argmap: dict[str, str] = field(default_factory=dict)
    args: tuple[str, ...] = ()
    amp: bool = False
    engine: bool = False  # accelerator.backward(loss) & co.
    same_class: bool = False


@dataclass
class ClassInfo:
    node: ast.ClassDef
    is_module: bool
    methods: dict[str, ast.FunctionDef | ast.AsyncFunctionDef]
    attrs: dict[str, Value | None] = field(default_factory=dict)


@dataclass
class RawFinding:
    code: str
    line: int
    col: int
    message: str
    path: str | None = None  # another file of the project (cross-file findings); None: this one


# -- facts from other files of the project (see :mod:`.project`) ---------------------------
@dataclass(frozen=True)
class ForeignNode:
    """Where something happens in another file of the project (stands in for its AST node)."""

    path: str
    lineno: int
    col_offset: int
    checked: bool  # the file is among the checked paths: findings may be reported there
    func: str  # the function it sits in, for messages


@dataclass(frozen=True)
class ForeignClass:
    """A class defined in another file: an nn.Module? does its forward() end in softmax?"""

    name: str
    is_module: bool
    flags: frozenset[str] = frozenset()


@dataclass
class ForeignFunction:
    """A module-level function of another file, summarised as it would be in this one."""

    name: str
    summary: Summary
    path: str
    checked: bool
    # TW012 inside the function itself (its own eval() then a forward without no_grad):
    # reported when a caller anywhere runs it with autograd on.
    candidates: list[RawFinding] = field(default_factory=list)


@dataclass
class Foreign:
    """What the imports of one file resolve to among the project's files."""

    names: dict[str, ForeignClass | ForeignFunction] = field(default_factory=dict)
    modules: dict[str, dict[str, ForeignClass | ForeignFunction]] = field(default_factory=dict)


def is_prefix(a: Path, b: Path) -> bool:
    """``a`` is an enclosing (or the same) branch context of ``b``."""
    return b[: len(a)] == a


def compatible(a: Path, b: Path) -> bool:
    """Two events that can run in the same pass (not in exclusive branches)."""
    return is_prefix(a, b) or is_prefix(b, a)


def _is_module_base(base: ast.expr, imports: Imports, local_modules: set[str]) -> bool:
    name = imports.resolve(base) or ""
    tail = last_part(name)
    if tail in local_modules:
        return True
    if tail in {"Module", "LightningModule", "PreTrainedModel"}:
        return True
    # any nn layer class: ``class Layer(nn.Linear)`` is an nn.Module too
    return name.startswith("torch.nn.") and name.count(".") == 2 and tail[:1].isupper()


class Checks(Protocol):
    """The rules the walk calls back into (``trainwell.doctor.rules.CHECKS`` is one).

    The ``at_*`` hooks run during the walk, while the values of the names are current.
    """

    def run_file_checks(self, fa: FileAnalysis) -> None:
        """Once per file, after its scopes were walked."""

    def run_scope_checks(self, w: ScopeWalker) -> None:
        """Once per scope, after its walk in the reporting pass."""

    def summarize(self, w: ScopeWalker) -> Summary:
        """What the callers of a walked scope need to know."""

    def at_loss_call(
        self, w: ScopeWalker, call: ast.Call, loss: str | None, logits: Value | None
    ) -> None:
        """At a loss call: ``loss`` is its name, ``logits`` the value of its first argument."""

    def at_accumulate(
        self, w: ScopeWalker, container: str | None, value: Value | None, node: ast.AST
    ) -> None:
        """Where ``value`` is added to ``container`` (``+=``, ``append``, ``acc[k] =``)."""

    def at_expression_statement(self, w: ScopeWalker, expr: ast.expr) -> None:
        """At an expression statement, whose value is discarded."""


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
        self.nodes = list(ast.walk(tree))
        self.imports = Imports(
            [n for n in self.nodes if isinstance(n, (ast.Import, ast.ImportFrom))]
        )
        self.classes: dict[str, ClassInfo] = {}
        self.functions: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}
        self.method_class: dict[ast.AST, ClassInfo] = {}
        self.findings: list[RawFinding] = []
        self.collect = False
        self.summaries: dict[ast.AST, Summary | None] = {}
        self.call_sites: dict[ast.AST, list[bool]] = {}
        self.seeds: dict[ast.AST, dict[str, Value | None]] = {}
        self._new_seeds: dict[ast.AST, dict[str, Value | None]] = {}
        self.module_env: dict[str, Value | None] = {}
        self.no_grad_candidates: list[tuple[ast.AST | None, RawFinding]] = []
        self._facts: dict[ast.AST, ScopeFacts] = {}
        # functions passed as ``step_fn=`` to trainwell's fit(): each call is a training step
        # (kept across the two passes: the fit() call may come after the function's walk)
        self.step_fns: set[ast.AST] = set()
        self._index()

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
                if any(_is_module_base(b, self.imports, local_modules) for b in cls.bases):
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

    # -- driving --------------------------------------------------------------------------
    def run(self) -> list[RawFinding]:
        """Walk the file twice (see module docstring) and return the raw findings."""
        for pass_no in (1, 2):
            self.collect = pass_no == 2
            self.summaries = {}
            self.call_sites = {}
            self.no_grad_candidates = []
            if pass_no == 2:
                self.seeds = self._new_seeds
            self._new_seeds = {}
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
        self.checks.run_file_checks(self)
        return self.findings

    def _resolve_no_grad_candidates(self) -> None:
        # Only report an un-guarded inference function when this file calls it outside
        # no_grad: a caller elsewhere may well wrap it.  Two callers reaching the same
        # forward pass in a helper give one finding.
        seen: set[tuple[str, int, int]] = set()
        for func, finding in self.no_grad_candidates:
            sites = self.call_sites.get(func, []) if func is not None else [False]
            key = (finding.code, finding.line, finding.col)
            if sites and not all(sites) and key not in seen:
                seen.add(key)
                self.findings.append(finding)

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
        self, func: ast.FunctionDef | ast.AsyncFunctionDef, parent_env: dict | None = None
    ) -> Summary | None:
        """Walk ``func`` once per pass (memoised); ``None`` while recursion is in progress."""
        if func in self.summaries:
            return self.summaries[func]
        self.summaries[func] = None
        cls = self.method_class.get(func)
        env: dict[str, Value | None] = dict(parent_env or {})
        if cls is not None:
            env.update({f"self.{k}": v for k, v in cls.attrs.items()})
        walker = ScopeWalker(self, func, func.body, env, cls)
        summary = walker.walk()
        self.summaries[func] = summary
        return summary

    def record_call(
        self, func: ast.AST, params: list[str], arg_values: dict[str, Value | None], no_grad: bool
    ) -> None:
        self.call_sites.setdefault(func, []).append(no_grad)
        seeds = self._new_seeds.setdefault(func, {})
        for name in params:
            if name not in arg_values:
                continue
            new = arg_values[name]
            seeds[name] = new if name not in seeds else merge(seeds[name], new)

    def forward_flags(self, cls_name: str | None) -> frozenset[str]:
        """SOFTMAX / LOG_SOFTMAX when every ``return`` of the class's forward() has it."""
        info = self.classes.get(cls_name or "")
        if info is None or "forward" not in info.methods:
            return frozenset()
        summary = self.summary_of(info.methods["forward"])
        if summary is None or summary.returns is None:
            return frozenset()
        return summary.returns.flags & {V.SOFTMAX, V.LOG_SOFTMAX}


# Wrappers that iterate over their first argument: a loader wrapped in them is still the
# batch loop (``for i, batch in tqdm(enumerate(loader))``).
ITER_WRAPPERS = {"enumerate", "tqdm", "iter", "zip", "track"}


def _unwrap_iter(node: ast.expr) -> ast.expr:
    """``enumerate(tqdm(loader))`` -> ``loader``."""
    while (
        isinstance(node, ast.Call) and last_part(dotted(node.func)) in ITER_WRAPPERS and node.args
    ):
        node = node.args[0]
    return node


def _enumerate_like(node: ast.expr) -> bool:
    return isinstance(node, ast.Call) and last_part(dotted(node.func)) == "enumerate"


def _own_nodes(scope: ast.AST):
    """Walk a scope without descending into nested functions/classes/lambdas."""
    nested = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
    if isinstance(scope, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef)):
        body: list[ast.AST] = list(scope.body)
    else:
        body = [scope]
    stack = [node for node in reversed(body) if not isinstance(node, nested)]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(c for c in ast.iter_child_nodes(node) if not isinstance(c, nested))


@dataclass
class ScopeFacts:
    """Facts about a whole scope, gathered in one traversal (cached across passes)."""

    backward_names: set[str]  # names whose .backward() is called: they hold losses
    backward_involved: set[str]  # names that (transitively) feed a .backward()
    grad_machinery: bool  # computes input gradients (attacks, saliency): eval + grad is fine


_GRAD_ATTRS = {"requires_grad", "requires_grad_", "enable_grad", "set_grad_enabled"}


def scope_facts(scope: ast.AST) -> ScopeFacts:
    backward_names: set[str] = set()
    involved: set[str] = set()
    grad_machinery = False
    assigns: list[tuple[set[str], set[str]]] = []
    for node in _own_nodes(scope):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr == "backward":
                if _is_strategy(dotted(node.func.value)) and len(node.args) >= 2:
                    if isinstance(node.args[0], ast.Name):  # strategy.backward(loss, ...)
                        backward_names.add(node.args[0].id)
                elif isinstance(node.func.value, ast.Name):
                    backward_names.add(node.func.value.id)
                involved |= names_in(node.func.value)
                for arg in node.args:
                    involved |= names_in(arg)
        elif isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            lhs = set().union(*(names_in(t) for t in targets))
            assigns.append((lhs, names_in(node.value)))
        elif isinstance(node, ast.Attribute):
            if node.attr in _GRAD_ATTRS or (
                node.attr == "grad" and last_part(dotted(node.value)) == "autograd"
            ):
                grad_machinery = True
        elif isinstance(node, ast.Name) and node.id in _GRAD_ATTRS:
            grad_machinery = True
    for _ in range(4):  # transitive closure over assignments, bounded
        before = len(involved)
        for lhs, rhs in assigns:
            if lhs & involved:
                involved |= rhs
        if len(involved) == before:
            break
    return ScopeFacts(backward_names, involved, grad_machinery)


class ScopeWalker:
    """Walks one scope in source order, tracking values and recording events."""

    def __init__(
        self,
        fa: FileAnalysis,
        func: ast.FunctionDef | ast.AsyncFunctionDef | None,
        body: list[ast.stmt],
        env: dict[str, Value | None],
        cls: ClassInfo | None,
    ) -> None:
        self.fa = fa
        self.func = func
        self.body = body
        self.cls = cls
        self.env: dict[str, Value | None] = env
        self.bind_loops: dict[str, tuple[int, ...]] = {}
        self.events: list[Event] = []
        self.loops: dict[int, LoopInfo] = {}
        self.loop_stack: list[int] = []
        self.ifs: dict[int, IfInfo] = {}
        self.path: list[tuple[int, int]] = []
        self.no_grad_stack: list[bool] = [self._decorated_no_grad()]
        self.grad_context_factories: set[str] = set()  # ctx = torch.no_grad
        self.grad_context_names: set[str] = set()  # ctx = torch.no_grad()
        self.returns: list[Value | None] = []
        self.local_funcs: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}
        self.func_aliases: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}  # f = my_fn
        self.is_step_fn = func is not None and func in fa.step_fns
        self.params: list[str] = []
        self._ids = itertools.count()
        scope = func if func is not None else fa.tree
        self.facts = fa.facts_of(scope)
        self.backward_names = self.facts.backward_names
        self.backward_involved = self.facts.backward_involved
        self._seed_params()

    # -- setup ----------------------------------------------------------------------------
    def _decorated_no_grad(self) -> bool:
        if self.func is None:
            return False
        for deco in self.func.decorator_list:
            target = deco.func if isinstance(deco, ast.Call) else deco
            if last_part(self.fa.imports.resolve(target)) in GRAD_CONTEXTS:
                return True
        return False

    def _seed_params(self) -> None:
        if self.func is None:
            return
        args = self.func.args
        all_args = [*args.posonlyargs, *args.args, *args.kwonlyargs]
        names = [a.arg for a in all_args]
        if self.cls is not None and names and names[0] in {"self", "cls"}:
            names = names[1:]
        self.params = names
        seeds = self.fa.seeds.get(self.func, {})
        for name in names:
            value = seeds.get(name)
            self.env[name] = value if value is not None else value_from_name(name)
            self.bind_loops[name] = ()

    # -- values ---------------------------------------------------------------------------
    def lookup(self, name: str | None) -> Value | None:
        if not name:
            return None
        root = name.partition(".")[0]
        if self._is_module_name(root):
            return None  # a module, not a variable
        value = self.env.get(name)
        if value is None and name not in self.env and self.func is not None:
            value = self.fa.module_env.get(name)
        if value is None:
            value = value_from_name(name)
        return value

    def no_grad(self) -> bool:
        return self.no_grad_stack[-1]

    def emit(self, kind: str, node: ast.AST, **kw) -> Event:
        event = Event(
            kind,
            node,
            len(self.events),
            tuple(self.loop_stack),
            tuple(self.path),
            self.no_grad(),
            **kw,
        )
        self.events.append(event)
        return event

    def model_key(self, name: str | None) -> str | None:
        """Canonical name of a model (follows ``ddp = DDP(model)`` aliases)."""
        name = normalize_receiver(name)
        value = self.env.get(name) if name else None
        if value is not None and value.kind == V.MODEL and value.alias:
            return value.alias
        return name

    # -- walking --------------------------------------------------------------------------
    def walk(self) -> Summary:
        self.visit_block(self.body)
        if self.fa.collect:
            self.fa.checks.run_scope_checks(self)
        return self.summarize()

    def visit_block(self, body: list[ast.stmt]) -> None:
        for stmt in body:
            self.visit(stmt)

    def visit(self, stmt: ast.stmt) -> None:
        handler = getattr(self, f"visit_{type(stmt).__name__}", None)
        if handler is not None:
            handler(stmt)
            return
        for name in ("body", "orelse", "finalbody"):
            block = getattr(stmt, name, None)
            if isinstance(block, list):
                self.visit_block(block)

    def visit_Expr(self, node: ast.Expr) -> None:
        self.ev(node.value)
        if isinstance(node.value, ast.Call):
            self._grad_switch(node.value)
        self._at_expression_statement(node.value)

    def visit_Assign(self, node: ast.Assign) -> None:
        value_node = node.value
        for target in node.targets:
            if (
                isinstance(target, (ast.Tuple, ast.List))
                and isinstance(value_node, (ast.Tuple, ast.List))
                and len(target.elts) == len(value_node.elts)
            ):
                for sub_target, sub_value in zip(target.elts, value_node.elts, strict=True):
                    self.bind(sub_target, self.ev(sub_value), sub_value)
                return
        value = self.ev(value_node)
        aliased = self._function_named(value_node)
        for target in node.targets:
            if isinstance(target, ast.Name):
                if aliased is not None:
                    self.func_aliases[target.id] = aliased
                else:
                    self.func_aliases.pop(target.id, None)
        chained_eval = _chained_eval(value_node)
        if chained_eval is not None and value is None:
            value = Value(V.MODEL)  # only modules have .eval()
        for target in node.targets:
            if (
                isinstance(target, ast.Attribute)
                and target.attr == "grad"
                and isinstance(value_node, ast.Constant)
                and value_node.value is None
            ):
                self.emit(ZERO, node)  # p.grad = None clears the gradient
            self.bind(target, value, value_node)
            self._bind_grad_context(dotted(target), value_node)
            if chained_eval is not None and dotted(target):
                # enc = Encoder(...).eval(): the new model starts in eval mode
                self.emit(EVAL, chained_eval, receiver=self.model_key(dotted(target)))

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is not None:
            self.bind(node.target, self.ev(node.value), node.value)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        rhs = self.ev(node.value)
        target = node.target
        if isinstance(target, ast.Subscript):
            self.ev(target.slice)
            self._at_accumulate(_container(target.value), rhs, node)
            return
        name = dotted(target)
        if name is None:
            return
        current = self.lookup(name)
        if isinstance(node.op, (ast.Add, ast.Sub)):
            self._at_accumulate(name, rhs, node)
        self.env[name] = _binop_value(node.op, current, rhs)

    def visit_For(self, node: ast.For | ast.AsyncFor) -> None:
        iter_value = self.ev(node.iter)
        inner = _unwrap_iter(node.iter)
        inner_value = iter_value if inner is node.iter else self.lookup(dotted(inner))
        if inner is not node.iter and iter_value is not None and iter_value.kind == V.LOADER:
            inner_value = iter_value  # tqdm(enumerate(pbar_of_loader))
        is_loader = inner_value is not None and inner_value.kind == V.LOADER
        if not is_loader and isinstance(inner, ast.Name | ast.Attribute):
            guess = value_from_name(dotted(inner) or "")
            is_loader = guess is not None and guess.kind == V.LOADER
        kind = self._loop_kind(node, is_loader)
        loop_id = self._push_loop(node, kind)
        self._bind_loop_target(node, is_loader)
        self.visit_block(node.body)
        self.loop_stack.pop()
        del loop_id
        self.visit_block(node.orelse)

    visit_AsyncFor = visit_For

    def visit_While(self, node: ast.While) -> None:
        self.ev(node.test)
        self._push_loop(node, "other")
        self.visit_block(node.body)
        self.loop_stack.pop()
        self.visit_block(node.orelse)

    def _push_loop(self, node: ast.stmt, kind: str) -> int:
        loop_id = next(self._ids)
        parent = self.loop_stack[-1] if self.loop_stack else None
        self.loops[loop_id] = LoopInfo(loop_id, node, kind, parent)
        self.loop_stack.append(loop_id)
        return loop_id

    def _loop_kind(self, node: ast.For | ast.AsyncFor, is_loader: bool) -> str:
        if is_loader:
            return "batch"
        words = {w.lower() for w in names_in(node.target) | names_in(node.iter)}
        if any("epoch" in w for w in words):
            return "epoch"
        if any("accum" in w or "micro" in w for w in words):
            return "micro"
        return "other"

    def _bind_loop_target(self, node: ast.For | ast.AsyncFor, is_loader: bool) -> None:
        target = node.target
        inner = _unwrap_iter(node.iter)
        inner_value = self.lookup(dotted(inner)) if inner is not node.iter else None
        enumerated = _enumerate_like(node.iter) or (
            # pbar = tqdm(enumerate(loader)); for i, batch in pbar:
            inner_value is not None and V.ENUMERATED in inner_value.flags
        )
        if is_loader and enumerated and isinstance(target, ast.Tuple):
            self.bind(target.elts[0], Value(V.NUMBER), None)
            target = target.elts[1] if len(target.elts) == 2 else target
            if target is node.target:
                self.bind(target, None, None)
                return
        if not is_loader:
            self.bind(target, None, None)
        elif isinstance(target, (ast.Tuple, ast.List)):
            for elt in target.elts:
                self.bind(elt, Value(V.TENSOR, flags=frozenset({V.FROM_LOADER})), None)
        else:
            self.bind(target, Value(V.BATCH), None)

    def visit_If(self, node: ast.If) -> None:
        self.ev(node.test)
        self._branches(node, [node.body, node.orelse])

    def _branches(self, node: ast.stmt, blocks: list[list[ast.stmt]]) -> None:
        if_id = next(self._ids)
        self.ifs[if_id] = IfInfo(node, tuple(self.loop_stack))
        start = dict(self.env)
        outcomes: list[dict[str, Value | None]] = []
        for index, block in enumerate(blocks):
            self.env = dict(start)
            self.path.append((if_id, index))
            self.visit_block(block)
            self.path.pop()
            if not block_terminates(block):
                outcomes.append(self.env)
        self.env = _merge_envs(start, outcomes) if outcomes else start

    def visit_Match(self, node: ast.stmt) -> None:
        self.ev(node.subject)  # type: ignore[attr-defined]
        self._branches(node, [case.body for case in node.cases])  # type: ignore[attr-defined]

    def visit_With(self, node: ast.With | ast.AsyncWith) -> None:
        grad_off = self.no_grad()
        for item in node.items:
            value = self.ev(item.context_expr)
            grad_off = grad_off or self._is_grad_context(item.context_expr)
            if item.optional_vars is not None:
                self.bind(item.optional_vars, value, item.context_expr)
        self.no_grad_stack.append(grad_off)
        self.visit_block(node.body)
        self.no_grad_stack.pop()

    visit_AsyncWith = visit_With

    def _is_grad_context(self, expr: ast.expr | None) -> bool:
        """``torch.no_grad()`` & co., also through a name bound to one (``ctx()``, ``ctx``)."""
        if isinstance(expr, ast.IfExp):
            # ``torch.no_grad() if evaluating else nullcontext()``: unsure, count it as one.
            return self._is_grad_context(expr.body) or self._is_grad_context(expr.orelse)
        if not isinstance(expr, ast.Call):
            return dotted(expr) in self.grad_context_names  # ctx = torch.no_grad(); with ctx:
        if dotted(expr.func) in self.grad_context_factories:
            return True  # ctx = torch.no_grad; with ctx():
        return self._is_grad_factory(expr.func)

    def _is_grad_factory(self, func: ast.expr | None) -> bool:
        name = last_part(self.fa.imports.resolve(func))
        # set_grad_enabled(phase == "train") may or may not disable grad: treat it as a
        # grad context so that no rule complains about code inside it.
        return name in GRAD_CONTEXTS or name == "set_grad_enabled"

    def _grad_switch(self, call: ast.Call) -> None:
        """Calls that switch autograd for the rest of the block they are in.

        ``torch.set_grad_enabled(False)`` (or a phase flag: unsure, so counted as off) and
        ``stack.enter_context(torch.no_grad())`` on an ExitStack.
        """
        name = last_part(self.fa.imports.resolve(call.func))
        if name == "set_grad_enabled" and self.fa.imports.resolve(call.func) != name:
            flag = argument(call, 0, "mode")
            enabled = isinstance(flag, ast.Constant) and flag.value is True
            self.no_grad_stack[-1] = not enabled
        elif (
            isinstance(call.func, ast.Attribute)
            and call.func.attr == "enter_context"
            and call.args
            and self._is_grad_context(call.args[0])
        ):
            self.no_grad_stack[-1] = True

    def _bind_grad_context(self, name: str | None, value_node: ast.expr) -> None:
        """Remember names bound to ``torch.no_grad`` (the factory) or ``torch.no_grad()``."""
        if name is None:
            return
        self.grad_context_factories.discard(name)
        self.grad_context_names.discard(name)
        if isinstance(value_node, (ast.Name, ast.Attribute)) and self._is_grad_factory(value_node):
            self.grad_context_factories.add(name)
        elif self._is_grad_context(value_node):
            self.grad_context_names.add(name)

    def visit_Try(self, node: ast.Try) -> None:
        self.visit_block(node.body)
        for handler in node.handlers:
            if handler.name:
                self.env[handler.name] = None
            self.visit_block(handler.body)
        self.visit_block(node.orelse)
        self.visit_block(node.finalbody)

    visit_TryStar = visit_Try

    def visit_Return(self, node: ast.Return) -> None:
        self.returns.append(self.ev(node.value) if node.value is not None else None)

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        if self.func is None and node in self.fa.functions.values():
            return  # module-level functions are walked on their own
        if node in self.fa.method_class:
            return
        self.local_funcs[node.name] = node
        self.fa.summary_of(node, parent_env=self.env)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        return  # classes are indexed and their methods walked separately

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
            self._at_accumulate(_container(target.value), value, target)
            return
        name = dotted(target)
        if name is None:
            return
        if name in self.backward_names and (value is None or value.kind in {V.TENSOR, V.OUTPUT}):
            value = Value(V.LOSS)
        self.env[name] = value
        self.bind_loops[name] = tuple(self.loop_stack)
        if self.cls is not None and name.startswith("self.") and name.count(".") == 1:
            attr = name[5:]
            previous = self.cls.attrs.get(attr, value)
            if not self.fa.collect:
                self.cls.attrs[attr] = value if previous == value else merge(previous, value)

    def _bind_tuple(
        self, target: ast.Tuple | ast.List, value: Value | None, value_node: ast.expr | None
    ) -> None:
        if (
            isinstance(value_node, ast.Call)
            and isinstance(value_node.func, ast.Attribute)
            and value_node.func.attr == "prepare"
            and len(value_node.args) == len(target.elts)
        ):
            # accelerator.prepare(model, optimizer, loader) returns the same objects, wrapped.
            for elt, arg in zip(target.elts, value_node.args, strict=True):
                self.bind(elt, self.lookup(dotted(arg)), None)
            return
        for elt in target.elts:
            elt_value: Value | None = None
            name = dotted(elt.value if isinstance(elt, ast.Starred) else elt) or ""
            if value is not None and value.kind == V.OUTPUT:
                if "loss" in last_part(name).lower():
                    elt_value = Value(V.LOSS, flags=frozenset({V.UNSCALED}))
                else:
                    elt_value = Value(V.TENSOR, flags=value.flags)
            elif value is not None and value.kind == V.BATCH:
                elt_value = Value(V.TENSOR, flags=frozenset({V.FROM_LOADER}))
            self.bind(elt, elt_value, None)

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
            return _binop_value(node.op, self.ev(node.left), self.ev(node.right))
        if isinstance(node, ast.UnaryOp):
            operand = self.ev(node.operand)
            return operand if operand is not None and operand.kind == V.LOSS else None
        if isinstance(node, ast.Subscript):
            base = self.ev(node.value)
            self.ev(node.slice)
            return _subscript_value(base)
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
            if base.kind == V.OUTPUT and attr == "loss":
                return Value(V.LOSS, flags=frozenset({V.UNSCALED}))
            if base.kind == V.OUTPUT and attr == "logits":
                return Value(V.TENSOR, flags=base.flags)
            if base.kind == V.LOSS and attr in V.GRAPH_CUTTING:
                return Value(V.NUMBER)
            if base.kind == V.BATCH:
                return Value(V.TENSOR, flags=frozenset({V.FROM_LOADER}))
        if name is not None and base is None:
            return self.lookup(name)
        return None

    def ev_call(self, call: ast.Call) -> Value | None:
        func = call.func
        qual = self.fa.imports.resolve(func)
        recv_node: ast.expr | None = None
        recv_val: Value | None = None
        func_val: Value | None = None
        if isinstance(func, ast.Attribute):
            recv_node = func.value
            recv_val = self.ev(recv_node)
        elif isinstance(func, ast.Name):
            func_val = self.lookup(func.id) if func.id in self.env else None
        else:
            func_val = self.ev(func)
        arg_vals = [self.ev(a) for a in call.args]
        kw_vals = {kw.arg: self.ev(kw.value) for kw in call.keywords}

        if qual in TRAINWELL_FIT:
            self._register_step_fn(call)
        local = self._resolve_local(func)
        if local is not None:
            return self._local_call(call, *local, arg_vals, kw_vals)
        foreign = self._resolve_foreign(func)
        if isinstance(foreign, ForeignFunction):
            return self._foreign_call(call, foreign)
        if isinstance(foreign, ForeignClass):
            # a model class of another file: its forward()'s softmax comes with it
            return (
                Value(V.MODEL, cls=foreign.name, flags=foreign.flags) if foreign.is_module else None
            )
        if isinstance(func, ast.Attribute) and not self._is_module_path(recv_node):
            result = self._method_call(call, func.attr, recv_node, recv_val, arg_vals)
            if result is not NOTHING:
                return result  # type: ignore[return-value]
        result = self._function_call(call, qual, arg_vals, kw_vals)
        if result is not NOTHING:
            return result  # type: ignore[return-value]
        callee_val = func_val if not isinstance(func, ast.Attribute) else None
        if callee_val is None and isinstance(func, (ast.Name, ast.Attribute)):
            callee_val = self.lookup(dotted(func))
        if callee_val is not None:
            return self._call_value(call, callee_val, arg_vals)
        self.emit(OPAQUE, call, args=_arg_names(call))
        return None

    # -- other files of the project, trainwell's fit() ------------------------------------
    def _function_named(
        self, node: ast.expr | None
    ) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
        """The function of this file a bare name refers to (``step = my_step``)."""
        if not isinstance(node, ast.Name):
            return None
        if node.id in self.func_aliases:
            return self.func_aliases[node.id]
        if node.id in self.local_funcs:
            return self.local_funcs[node.id]
        if node.id in self.fa.functions and node.id not in self.env:
            return self.fa.functions[node.id]
        return None

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
                values[param] = value
                if dotted(arg):
                    argmap[param] = dotted(arg)  # type: ignore[assignment]
        for kw in call.keywords:
            if kw.arg in params:
                values[kw.arg] = kw_vals.get(kw.arg)
                if dotted(kw.value):
                    argmap[kw.arg] = dotted(kw.value)  # type: ignore[assignment]
        return argmap, values

    def _foreign_call(self, call: ast.Call, func: ForeignFunction) -> Value | None:
        summary = func.summary
        argmap, _ = self._argmap(call, summary.params, [None] * len(call.args), {})
        self.emit(CALL, call, summary=summary, argmap=argmap, args=_arg_names(call))
        if self.fa.collect and not self.no_grad():
            for cand in func.candidates:  # the helper's own eval() + forward without no_grad
                if func.checked:
                    self.fa.findings.append(
                        RawFinding(
                            cand.code, cand.line, cand.col, cand.message, cand.path or func.path
                        )
                    )
                else:  # its file is not checked: say it at the call
                    self.fa.findings.append(
                        RawFinding(
                            cand.code,
                            call.lineno,
                            call.col_offset + 1,
                            f"{dotted(call.func)}() (in {func.path}:{cand.line}): {cand.message}",
                        )
                    )
        return summary.returns

    def _is_module_path(self, node: ast.expr | None) -> bool:
        name = dotted(node)
        if name is None:
            return False
        return self._is_module_name(name.partition(".")[0])

    def _is_module_name(self, root: str) -> bool:
        """An imported module (or torch) that no assignment of this scope or the module
        rebinds: ``import model; model = model.RNNModel(...)`` makes ``model`` a variable."""
        if root in self.env or (self.func is not None and root in self.fa.module_env):
            return False
        return root in self.fa.imports.names or root == "torch"

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
        if method in {"eval", "train"} and recv_name is not None and kind not in _NOT_MODELS:
            self._mode_event(call, method, recv_name)
            return recv_val
        if method in {"parameters", "named_parameters"} and recv_name is not None:
            return Value(V.PARAMS, alias=self.model_key(recv_name))
        if method in {"configure_optimizers", "create_optimizer"}:
            return Value(V.OPTIMIZER, alias=self.model_key(recv_name))
        if method in {"append", "extend", "insert", "add"} and arg_vals:
            self._at_accumulate(_container(recv_node), arg_vals[-1], call)
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
            if method in FORWARD_METHODS:
                self.emit(FORWARD, call, receiver=self.model_key(recv_name))
                return self._model_output(recv)
            if method in V.MODULE_SELF_METHODS:
                return recv
            return NOTHING
        if recv.kind == V.LOSS:
            if method in V.GRAPH_CUTTING:
                return Value(V.NUMBER)
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
        if _is_strategy(recv_name) and len(call.args) >= 2:
            # trainwell: strategy.backward(loss, precision, model, last=...)
            precision = arg_vals[1]
            amp = precision is not None and precision.kind == V.SCALER and V.FP16 in precision.flags
            self.emit(BACKWARD, call, value=arg_vals[0], receiver=dotted(call.args[0]), amp=amp)
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
            self.emit(STEP, call, receiver=recv_name)
            return None
        if kind == V.SCHEDULER:
            self.emit(SCHED, call, receiver=recv_name, value=recv_val)
            return None
        return NOTHING

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
        torchy = qual.startswith("torch.") or self.fa.imports.is_imported(call.func)
        if tail in ITER_WRAPPERS - {"zip"} and arg_vals and arg_vals[0] is not None:
            inner = arg_vals[0]
            if inner.kind == V.LOADER:  # pbar = tqdm(loader): iterating it is the batch loop
                return inner.plus(V.ENUMERATED) if tail == "enumerate" else inner
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
        if qual == "torch.log" and arg_vals and arg_vals[0] and V.SOFTMAX in arg_vals[0].flags:
            return Value(V.TENSOR, flags=frozenset({V.LOG_SOFTMAX}))
        if qual.startswith("torch.nn.functional.") and tail in V.FUNCTIONAL_LOSSES:
            self._at_loss_call(call, tail, arg_vals[0] if arg_vals else None)
            return Value(V.LOSS, flags=frozenset({V.UNSCALED}))
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
            return Value(V.OPTIMIZER, cls=tail, alias=alias, node=call)
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
        if tail.endswith("Loss") and tail[:1].isupper():
            return Value(V.CRITERION, cls=tail)
        if tail in V.MODEL_WRAPPERS and arg_vals and arg_vals[0] is not None:
            inner = arg_vals[0]
            if inner.kind == V.MODEL:
                alias = inner.alias or self.model_key(dotted(call.args[0]))
                return Value(V.MODEL, cls=inner.cls, alias=alias, flags=inner.flags)
        if qual == "torch.nn.Sequential":
            last = arg_vals[-1] if arg_vals else None
            flags: frozenset[str] = frozenset()
            if last is not None and last.kind == V.MODEL and last.cls in _SOFTMAX_MODULES:
                flags = frozenset({_SOFTMAX_MODULES[last.cls]})
            return Value(V.MODEL, cls="Sequential", flags=flags)
        if qual.startswith("torch.nn.") and tail[:1].isupper() and qual.count(".") == 2:
            return Value(V.MODEL, cls=tail)
        if qual.startswith("torch.") and tail in V.TENSOR_FACTORIES:
            return Value(V.TENSOR)
        if tail in self.fa.classes and qual == tail:
            info = self.fa.classes[tail]
            return Value(V.MODEL, cls=tail) if info.is_module else None
        if ".models." in f".{qual}" or tail == "create_model":
            return Value(V.MODEL)
        if tail == "from_pretrained":
            owner = last_part(qual.rsplit(".", 1)[0]) if "." in qual else ""
            return Value(V.MODEL) if "Model" in owner or "For" in owner else None
        return NOTHING

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

    def _resolve_local(
        self, func: ast.expr
    ) -> tuple[ast.FunctionDef | ast.AsyncFunctionDef, bool] | None:
        if isinstance(func, ast.Name):
            if func.id in self.local_funcs:
                return self.local_funcs[func.id], False
            if func.id in self.fa.functions and func.id not in self.env:
                return self.fa.functions[func.id], False
            return None
        if (
            isinstance(func, ast.Attribute)
            and isinstance(func.value, ast.Name)
            and func.value.id == "self"
            and self.cls is not None
            and func.attr in self.cls.methods
        ):
            return self.cls.methods[func.attr], True
        return None

    def _local_call(
        self,
        call: ast.Call,
        func: ast.FunctionDef | ast.AsyncFunctionDef,
        via_self: bool,
        arg_vals: list[Value | None],
        kw_vals: dict[str | None, Value | None],
    ) -> Value | None:
        params = [a.arg for a in [*func.args.posonlyargs, *func.args.args, *func.args.kwonlyargs]]
        if via_self and params and params[0] == "self":
            params = params[1:]
        argmap, values = self._argmap(call, params, arg_vals, kw_vals)
        values = {k: _rename_alias(v, argmap) for k, v in values.items()}
        self.fa.record_call(func, params, values, self.no_grad())
        summary = (
            self.fa.summary_of(func)
            if func not in self.local_funcs.values()
            else (self.fa.summaries.get(func))
        )
        self.emit(CALL, call, summary=summary, argmap=argmap, same_class=via_self,
                  args=_arg_names(call))  # fmt: skip
        return summary.returns if summary is not None else None

    def _call_value(
        self, call: ast.Call, callee: Value, arg_vals: list[Value | None]
    ) -> Value | None:
        if callee.kind == V.MODEL:
            if callee.cls in _SOFTMAX_MODULES:
                return Value(V.TENSOR, flags=frozenset({_SOFTMAX_MODULES[callee.cls]}))
            self.emit(FORWARD, call, receiver=self.model_key(dotted(call.func)))
            return self._model_output(callee)
        if callee.kind == V.CRITERION:
            self._at_loss_call(call, callee.cls, arg_vals[0] if arg_vals else None)
            return Value(V.LOSS, flags=frozenset({V.UNSCALED}))
        if callee.kind == V.CLIPPER:  # trainwell: clipping(model.parameters())
            self.emit(CLIP, call)
            return None
        self.emit(OPAQUE, call, args=_arg_names(call))
        return None

    def _model_output(self, model: Value) -> Value:
        flags = model.flags & {V.SOFTMAX, V.LOG_SOFTMAX}
        if model.cls in self.fa.classes:
            flags = flags | self.fa.forward_flags(model.cls)
        return Value(V.OUTPUT, flags=frozenset(flags))

    # -- in-walk rules --------------------------------------------------------------------
    def _at_loss_call(self, call: ast.Call, loss: str | None, logits: Value | None) -> None:
        self.fa.checks.at_loss_call(self, call, loss, logits)

    def _at_accumulate(self, container: str | None, value: Value | None, node: ast.AST):
        self.fa.checks.at_accumulate(self, container, value, node)

    def _at_expression_statement(self, expr: ast.expr) -> None:
        self.fa.checks.at_expression_statement(self, expr)

    # -- summary --------------------------------------------------------------------------
    def summarize(self) -> Summary:
        return self.fa.checks.summarize(self)


NOTHING = object()  # sentinel: "this classifier does not apply", distinct from None (unknown)
_NOT_MODELS = {V.OPTIMIZER, V.SCHEDULER, V.LOADER, V.SCALER, V.LOSS, V.TENSOR, V.CLIPPER}
_SOFTMAX_MODULES = {"Softmax": V.SOFTMAX, "LogSoftmax": V.LOG_SOFTMAX}


def _chained_eval(node: ast.expr | None) -> ast.Call | None:
    """The ``.eval()`` call in ``Ctor(...).to(device).eval()`` (a fresh object, not a name)."""
    found: ast.Call | None = None
    while (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in V.MODULE_SELF_METHODS
    ):
        if node.func.attr == "eval" and not node.args and not node.keywords:
            found = found or node
        node = node.func.value
    return found if isinstance(node, ast.Call) else None


def _is_strategy(name: str | None) -> bool:
    """trainwell's strategy object (``strategy.backward(loss, precision, model, last=...)``)."""
    return "strategy" in last_part(name).lower()


def _arg_names(call: ast.Call) -> tuple[str, ...]:
    names = [dotted(a) for a in call.args] + [dotted(k.value) for k in call.keywords]
    return tuple(normalize_receiver(n) for n in names if n)  # type: ignore[misc]


def _is_grad_attribute(node: ast.expr | None) -> bool:
    """``p.grad`` or ``p.grad.data``."""
    if not isinstance(node, ast.Attribute):
        return False
    if node.attr == "data":
        node = node.value
    return isinstance(node, ast.Attribute) and node.attr == "grad"


def _container(node: ast.expr | None) -> str | None:
    """``history["loss"]`` -> ``history``: the object that outlives the iteration."""
    while isinstance(node, ast.Subscript):
        node = node.value
    return dotted(node)


def _rename_alias(value: Value | None, argmap: dict[str, str]) -> Value | None:
    """Translate an optimizer's model alias from the caller's names to the callee's."""
    if value is None or value.alias is None:
        return value
    for param, arg in argmap.items():
        if normalize_receiver(arg) == value.alias:
            return Value(value.kind, value.cls, param, value.flags, value.node)
    return value


def _binop_value(op: ast.operator, left: Value | None, right: Value | None) -> Value | None:
    losses = [v for v in (left, right) if v is not None and v.kind == V.LOSS]
    if losses:
        if len(losses) == 1 and isinstance(op, (ast.Div, ast.Mult)):
            return Value(V.LOSS, flags=(losses[0].flags - {V.UNSCALED}) | {V.SCALED})
        flags = losses[0].flags if len(losses) == 1 or losses[0] == losses[1] else frozenset()
        if len(losses) == 1 and isinstance(op, (ast.Add, ast.Sub)):
            flags = flags - {V.UNSCALED} if not _is_number(left, right) else flags
        return Value(V.LOSS, flags=frozenset(flags) - {V.AMP})
    tensors = [v for v in (left, right) if v is not None and v.kind == V.TENSOR]
    if tensors and isinstance(op, (ast.Div, ast.Mult)) and tensors[0].flags & {V.SOFTMAX}:
        return None
    return None


def _is_number(left: Value | None, right: Value | None) -> bool:
    return any(v is not None and v.kind == V.NUMBER for v in (left, right))


def _subscript_value(base: Value | None) -> Value | None:
    if base is None:
        return None
    if base.kind == V.BATCH:
        return Value(V.TENSOR, flags=frozenset({V.FROM_LOADER}))
    if base.kind == V.TENSOR:
        return base
    if base.kind == V.OUTPUT:
        return Value(V.TENSOR, flags=base.flags)
    if base.kind == V.LOSS:
        return base
    return None


def _merge_envs(
    start: dict[str, Value | None], outcomes: list[dict[str, Value | None]]
) -> dict[str, Value | None]:
    merged: dict[str, Value | None] = {}
    keys = set(start).union(*outcomes)
    for key in keys:
        vals = [env.get(key, start.get(key)) for env in outcomes]
        value = vals[0]
        for other in vals[1:]:
            value = merge(value, other)
        merged[key] = value
    return merged


__all__ = ["Checks", "FileAnalysis", "ScopeWalker", "Event", "Summary", "RawFinding", "keyword"]
