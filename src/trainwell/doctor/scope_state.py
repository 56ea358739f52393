"""The state of one scope's walk, and what the walk needs from the analysis of its file.

:class:`ScopeState` is the bottom layer of the walker (:class:`~.analysis.ScopeWalker`):
the environment mapping names to :class:`~.values.Value` s, the events recorded so far, the
loop and branch context, the autograd (no_grad) context, and the few primitives every other
layer uses (:meth:`~ScopeState.lookup`, :meth:`~ScopeState.emit`,
:meth:`~ScopeState.model_key`, the hooks into the rules).  The walker's layers see the file
only through :class:`FileContext`, a protocol that :class:`~.analysis.FileAnalysis`
implements; naming the protocol rather than the class keeps the imports one-way, because
the file analysis is what creates the walkers.
"""

from __future__ import annotations

import ast
import itertools
import re
from dataclasses import dataclass, field
from typing import Protocol

from . import values as V
from ._astutil import Imports, dotted, last_part, walk
from .class_facts import requires_grad_settings
from .events import EVAL, Event, IfInfo, LoopInfo, RawFinding, Summary
from .foreign import Foreign, ForeignClass, methods_without_grad
from .mode_switch import TrainingSwitch
from .scope_facts import ScopeFacts
from .values import Value, normalize_receiver, value_from_name

# torch context managers (and decorators) that turn autograd off
GRAD_CONTEXTS = {"no_grad", "inference_mode"}
# a project's own decorator that runs the function without autograd, by its name
_NO_GRAD_DECORATOR = re.compile(r"no_?grad|without_grad|inference_mode", re.I)

NOTHING = object()  # sentinel: "this classifier does not apply", distinct from None (unknown)


@dataclass
class ClassInfo:
    """A class of the file: is it an nn.Module, its methods, what its methods bind to self."""

    node: ast.ClassDef
    is_module: bool
    methods: dict[str, ast.FunctionDef | ast.AsyncFunctionDef]
    attrs: dict[str, Value | None] = field(default_factory=dict)


class WalkHooks(Protocol):
    """The rule hooks a walk calls while the values of the names are current (the rules'
    :class:`~.analysis.Checks` has them, among others)."""

    def at_loss_call(
        self, w: ScopeState, call: ast.Call, loss: str | None, logits: Value | None
    ) -> None:
        """At a loss call: ``loss`` is its name, ``logits`` the value of its first argument."""

    def at_accumulate(
        self, w: ScopeState, container: str | None, value: Value | None, node: ast.AST
    ) -> None:
        """Where ``value`` is added to ``container`` (``+=``, ``append``, ``acc[k] =``)."""

    def at_expression_statement(self, w: ScopeState, expr: ast.expr) -> None:
        """At an expression statement, whose value is discarded."""


class FileContext(Protocol):
    """What a walk reads from, and records into, the analysis of its file.

    :class:`~.analysis.FileAnalysis` is the implementation: see it for what each part means.
    """

    tree: ast.Module
    imports: Imports
    foreign: Foreign | None
    classes: dict[str, ClassInfo]
    functions: dict[str, ast.FunctionDef | ast.AsyncFunctionDef]
    method_class: dict[ast.AST, ClassInfo]
    checks: WalkHooks
    collect: bool
    findings: list[RawFinding]
    summaries: dict[ast.AST, Summary | None]
    seeds: dict[ast.AST, dict[str, Value | None]]
    module_env: dict[str, Value | None]
    step_fns: set[ast.AST]
    evident_models: set[str]
    switched_off: set[ast.AST]
    handed_over: set[ast.AST]
    foreign_objects: dict[str, ForeignClass]
    no_grad_candidates: list[tuple[ast.AST | None, RawFinding]]

    def facts_of(self, scope: ast.AST) -> ScopeFacts: ...

    def training_switch(
        self, func: ast.FunctionDef | ast.AsyncFunctionDef
    ) -> TrainingSwitch | None: ...

    def summary_of(
        self, func: ast.FunctionDef | ast.AsyncFunctionDef, parent_env: dict | None = None
    ) -> Summary | None: ...

    def record_call(
        self,
        func: ast.AST,
        params: list[str],
        arg_values: dict[str, Value | None],
        no_grad: bool,
        caller: ast.AST | None = None,
        call: ast.Call | None = None,
    ) -> None: ...

    def forward_flags(self, cls_name: str | None) -> frozenset[str]: ...


class ScopeState:
    """One scope's walk: its environment, events, loops, branches and autograd context.

    The layers above add what the walk does with them: :class:`~.call_effects.CallEffects`
    and :class:`~.call_resolution.CallResolution` (calls),
    :class:`~.expressions.ExpressionWalker` (expressions and bindings),
    :class:`~.statements.StatementWalker` (statements) and :class:`~.analysis.ScopeWalker`.
    """

    def __init__(
        self,
        fa: FileContext,
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
        self.evaluated: set[str] = set()  # models this scope puts in eval() itself
        self.loops: dict[int, LoopInfo] = {}
        self.loop_stack: list[int] = []
        self.ifs: dict[int, IfInfo] = {}
        self.if_tests: dict[tuple, int] = {}  # an if's test (and where it is) -> its id
        self._assigned: set[str] | None = None  # names assigned in the scope
        self.path: list[tuple[int, int]] = []
        self.no_grad_stack: list[bool] = [self._decorated_no_grad()]
        # inside ``with torch.no_grad()`` / ``inference_mode()`` for sure (not a context that
        # may or may not turn autograd off): what is computed there carries no graph
        self.surely_no_grad: list[bool] = [False]
        # inside ``with torch.enable_grad()`` / ``set_grad_enabled(True)``: counted as a grad
        # context (no rule asks for no_grad there), yet what is computed keeps its graph
        self.grad_on_purpose: list[bool] = [False]
        self.grad_context_factories: set[str] = set()  # ctx = torch.no_grad
        self.grad_context_names: set[str] = set()  # ctx = torch.no_grad()
        self.returns: list[Value | None] = []
        self.returned_tuples: list[tuple[Value | None, ...] | None] = []  # per return
        # TW012 said at this scope's calls, once per helper and loop nest (_first_report)
        self.foreign_reported: set[tuple[object, tuple[int, ...]]] = set()
        self.reported_arms: list[tuple[object, tuple]] = []  # ... and the branch it is in
        # TW012 said at this scope's calls (another file's helper, a train-or-evaluate
        # function switched off), owned by the scope once it is walked
        self.foreign_candidates: list[RawFinding] = []
        self.local_funcs: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}
        self.func_aliases: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}  # f = my_fn
        self.alias_choices: dict[str, list[ast.FunctionDef | ast.AsyncFunctionDef]] = {}
        self.class_aliases: dict[str, ast.expr] = {}  # agent = RNDAgent; agent(...)
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
            name = last_part(self.fa.imports.resolve(target)) or ""
            if name in GRAD_CONTEXTS or _NO_GRAD_DECORATOR.search(name):
                return True  # @torch.no_grad(), or the project's own @make_nograd_func
        return False

    def _seed_params(self) -> None:
        if self.func is None:
            return
        args = self.func.args
        # ``def discriminate(self, *images)``: the vararg takes the first surplus positional
        # argument's place (one image, as most calls pass), before the keyword-only ones
        varargs = [args.vararg] if args.vararg is not None else []
        all_args = [*args.posonlyargs, *args.args, *varargs, *args.kwonlyargs]
        names = [a.arg for a in all_args]
        if self.cls is not None and names and names[0] in {"self", "cls"}:
            names = names[1:]
        self.params = names
        seeds = self.fa.seeds.get(self.func, {})
        for name in names:
            value = seeds.get(name)
            if value is None:
                value = value_from_name(name)
            if value is None and name in self.fa.evident_models:
                value = Value(V.MODEL)  # feature_extractor.eval() in the file: a module
            self.env[name] = value
            self.bind_loops[name] = ()

    # -- values ---------------------------------------------------------------------------
    def no_grad_methods(self, value: Value | None) -> frozenset[str]:
        """The methods the class of a model value runs without grad, of any file."""
        cls = value.cls if value is not None and value.kind == V.MODEL else None
        return methods_without_grad(self.fa.classes, self.fa.foreign, cls)

    def lookup(self, name: str | None) -> Value | None:
        if not name:
            return None
        root = name.partition(".")[0]
        if self._is_module_name(root):
            return None  # a module, not a variable
        value = self.env.get(name)
        if value is None and name not in self.env and self.func is not None:
            value = self.fa.module_env.get(name)
        if value is None and name not in self.env:
            value = self._attribute_of_instance(name)
        if value is None:
            value = value_from_name(name)
        return value

    def _attribute_of_instance(self, name: str) -> Value | None:
        """``alg.policy_net`` where ``alg = DDPG(...)``, a class of this file whose methods
        set ``self.policy_net = DPG_PolicyNetwork(...)``: what they set."""
        root, _, attr = name.partition(".")
        if not attr or "." in attr or root in {"self", "cls"}:
            return None
        owner = self.env.get(root)
        if owner is None and self.func is not None:
            owner = self.fa.module_env.get(root)
        if owner is None or owner.kind not in {V.OBJECT, V.MODEL}:
            return None
        info = self.fa.classes.get(owner.cls or "")
        return info.attrs.get(attr) if info is not None else None

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
        if kind == EVAL and event.receiver:
            self.evaluated.add(event.receiver)
        return event

    def model_key(self, name: str | None) -> str | None:
        """Canonical name of a model (follows ``ddp = DDP(model)`` aliases)."""
        name = normalize_receiver(name)
        value = self.env.get(name) if name else None
        if value is not None and value.kind == V.MODEL and value.alias:
            return value.alias
        return name

    def _is_module_name(self, root: str) -> bool:
        """An imported module (or torch) that no assignment of this scope or the module
        rebinds: ``import model; model = model.RNNModel(...)`` makes ``model`` a variable."""
        if root in self.env or (self.func is not None and root in self.fa.module_env):
            return False
        return root in self.fa.imports.names or root == "torch"

    def _is_module_path(self, node: ast.expr | None) -> bool:
        name = dotted(node)
        if name is None:
            return False
        return self._is_module_name(name.partition(".")[0])

    # -- in-walk rules --------------------------------------------------------------------
    def _at_loss_call(self, call: ast.Call, loss: str | None, logits: Value | None) -> None:
        self.fa.checks.at_loss_call(self, call, loss, logits)

    def _at_accumulate(self, container: str | None, value: Value | None, node: ast.AST):
        self.fa.checks.at_accumulate(self, container, value, node)

    def _at_expression_statement(self, expr: ast.expr) -> None:
        self.fa.checks.at_expression_statement(self, expr)


#: Module methods that return the module itself: ``evaluate(model.eval(), loader)`` passes
#: ``model``.
_RETURNS_SELF = {"eval", "train", "to", "cuda", "cpu", "float", "half", "double", "bfloat16"}


_TORCH_MODULE_BASES = {"nn.Module", "torch.nn.Module", "Module"}
_REGISTERING = {"register_buffer", "register_parameter", "add_module", "register_module"}
# what registers a weight or a layer (a buffer is no weight: a fixed kernel, a mean)
_REGISTERING_WEIGHTS = _REGISTERING - {"register_buffer"}


def keeps_nothing(info: ClassInfo) -> bool:
    """A direct nn.Module subclass with its own ``__init__`` none of whose methods sets an
    attribute of ``self`` or registers a parameter, buffer or submodule."""
    if not info.is_module or "__init__" not in info.methods:
        return False
    if any(dotted(base) not in _TORCH_MODULE_BASES for base in info.node.bases):
        return False
    for node in walk(info.node):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
            targets = [node.target]
        elif isinstance(node, ast.Call):
            name = dotted(node.func) or ""
            if name.rpartition(".")[2] in _REGISTERING or name == "setattr":
                return False
        for target in targets:
            for part in walk(target):
                if isinstance(part, ast.Attribute) and dotted(part.value) == "self":
                    return False
    return True


# Methods of a tensor (or a number) a module may keep on self: data, not a submodule.
_DATA_METHODS = {
    "to", "cuda", "cpu", "float", "double", "half", "long", "int", "bool", "type", "view",
    "reshape", "clone", "detach", "unsqueeze", "squeeze", "expand", "permute", "contiguous",
}  # fmt: skip


def keeps_no_weights(info: ClassInfo) -> bool:
    """:func:`keeps_nothing`, or an nn.Module that keeps only data on ``self`` and calls
    none of it (``class Normalize(nn.Module)`` with ``self.mean = mean`` used in arithmetic,
    or kept in a buffer): a normalisation, a fixed blur or a metric written as a module,
    with no trainable parameter; or one
    that freezes every weight it keeps (:func:`freezes_its_weights`)."""
    if keeps_nothing(info) or freezes_its_weights(info):
        return True
    if not info.is_module or "__init__" not in info.methods:
        return False
    if any(dotted(base) not in _TORCH_MODULE_BASES for base in info.node.bases):
        return False
    kept: set[str] = set()
    for node in walk(info.node):
        if isinstance(node, ast.Call):
            name = dotted(node.func) or ""
            if name.rpartition(".")[2] in _REGISTERING_WEIGHTS or name == "setattr":
                return False
        if not isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            continue
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        for part in (p for t in targets for p in walk(t)):
            if isinstance(part, ast.Attribute) and dotted(part.value) == "self":
                if node.value is not None and _no_weights_in(node.value):
                    continue  # self.criterion = nn.KLDivLoss(): a layer, but no weights
                if node.value is None or not _plain_data(node.value):
                    return False
                kept.add(part.attr)
    return not any(_calls_kept(node, kept) for node in walk(info.node))


def freezes_its_weights(info: ClassInfo) -> bool:
    """A direct nn.Module subclass whose ``__init__`` freezes every layer with weights it
    keeps (``for p in self.vgg.parameters(): p.requires_grad = False``, or all of
    ``self.parameters()`` after the last one) and that never thaws, adds or registers one:
    a frozen feature extractor or a perceptual metric, whose forward records a graph only
    of what its input carries."""
    init = info.methods.get("__init__")
    if not info.is_module or init is None:
        return False
    if any(dotted(base) not in _TORCH_MODULE_BASES for base in info.node.bases):
        return False
    settings = list(requires_grad_settings(init.body))
    replaced = _frozen_replacements(init)
    if not (settings or replaced) or any(on for _, _, on in settings):
        return False
    if _adds_weights_later(info, init, replaced):
        return False
    frozen_at = {name: line for line, name, _ in settings}
    for line, attr, value in _kept_layers(init):
        if _no_weights_in(value) or _replaced_by_frozen(value, replaced.get(attr), line):
            continue
        at = frozen_at.get(f"self.{attr}", frozen_at.get("self", 0))
        if at <= line:
            return False  # kept after the last freeze, or never frozen
    return True


def _frozen_replacements(init: ast.AST) -> dict[str, dict[str, int]]:
    """{layer: {parameter: line}} of ``self.conv1.weight = nn.Parameter(w,
    requires_grad=False)`` in ``__init__``: a layer's parameters swapped for frozen ones."""
    found: dict[str, dict[str, int]] = {}
    for node in walk(init):
        if not (isinstance(node, ast.Assign) and _a_frozen_parameter(node.value)):
            continue
        for target in node.targets:
            layer = target.value if isinstance(target, ast.Attribute) else None
            if isinstance(layer, ast.Attribute) and dotted(layer.value) == "self":
                found.setdefault(layer.attr, {})[target.attr] = node.lineno  # type: ignore[union-attr]
    return found


def _a_frozen_parameter(value: ast.expr) -> bool:
    return (
        isinstance(value, ast.Call)
        and last_part(dotted(value.func)) == "Parameter"
        and any(
            kw.arg == "requires_grad"
            and isinstance(kw.value, ast.Constant)
            and kw.value.value is False
            for kw in value.keywords
        )
    )


_WEIGHT_AND_BIAS = re.compile(r"^(Conv(Transpose)?[123]d|Linear|BatchNorm[123]d|LayerNorm)$")


def _replaced_by_frozen(value: ast.expr, replaced: dict[str, int] | None, line: int) -> bool:
    """A torch layer with a weight and a bias (``nn.Conv2d(...)``) whose weight, and bias
    unless ``bias=False``, are each swapped for a frozen Parameter after it is made."""
    if not replaced or not isinstance(value, ast.Call):
        return False
    if not _WEIGHT_AND_BIAS.match(last_part(dotted(value.func)) or ""):
        return False
    no_bias = any(
        kw.arg in {"bias", "elementwise_affine", "affine"}
        and isinstance(kw.value, ast.Constant)
        and kw.value.value is False
        for kw in value.keywords
    )
    needed = {"weight"} if no_bias else {"weight", "bias"}
    return all(replaced.get(name, 0) > line for name in needed)


def _kept_layers(init: ast.AST) -> list[tuple[int, str, ast.expr]]:
    """(line, attribute, value) of what a method keeps on ``self`` other than data."""
    return [
        (node.lineno, target.attr, node.value)
        for node in walk(init)
        if isinstance(node, ast.Assign) and not _plain_data(node.value)
        for target in node.targets
        if isinstance(target, ast.Attribute) and dotted(target.value) == "self"
    ]


def _no_weights_in(value: ast.expr) -> bool:
    """``nn.AdaptiveAvgPool2d(1) if pool else None``, ``nn.KLDivLoss()``: layers without
    weights, torch's criteria, or nothing."""
    if isinstance(value, ast.IfExp):
        return _no_weights_in(value.body) and _no_weights_in(value.orelse)
    if isinstance(value, ast.Constant):
        return True
    if not isinstance(value, ast.Call):
        return False
    name = dotted(value.func) or ""
    if last_part(name) in V.PARAMETERLESS_LAYERS:
        return True
    return name.startswith(("nn.", "torch.nn.")) and name.endswith("Loss")


def _adds_weights_later(
    info: ClassInfo, init: ast.AST, replaced: dict[str, dict[str, int]]
) -> bool:
    """A parameter made (other than the frozen ones swapped in), registered or thawed
    anywhere in the class, or a layer kept by a method other than ``__init__``."""
    swapped = {line for lines in replaced.values() for line in lines.values()}
    for node in walk(info.node):
        if isinstance(node, ast.Assign) and node.lineno in swapped:
            continue
        if _makes_or_thaws_a_parameter(node) and getattr(node, "lineno", 0) not in swapped:
            return True
    return any(method is not init and _kept_layers(method) for method in info.methods.values())


def _makes_or_thaws_a_parameter(node: ast.AST) -> bool:
    """``nn.Parameter(...)``, ``register_parameter``, ``requires_grad_()``,
    ``p.requires_grad = flag``: anything but freezing."""
    if isinstance(node, ast.Call):
        name = last_part(dotted(node.func)) or ""
        if name in _REGISTERING_WEIGHTS or name in {"Parameter", "setattr"}:
            return True
        first = node.args[0] if node.args else None
        return name == "requires_grad_" and not (
            isinstance(first, ast.Constant) and first.value is False
        )
    if isinstance(node, ast.Assign):
        sets_flag = any((dotted(t) or "").endswith(".requires_grad") for t in node.targets)
        return sets_flag and not (
            isinstance(node.value, ast.Constant) and node.value.value is False
        )
    return False


def _plain_data(value: ast.expr) -> bool:
    """Names, numbers and arithmetic, tensor methods (``self.mean.to(x.device)``) at most."""
    return not any(
        isinstance(n, ast.Lambda)
        or isinstance(n, ast.Call)
        and not (isinstance(n.func, ast.Attribute) and n.func.attr in _DATA_METHODS)
        for n in walk(value)
    )


def _calls_kept(node: ast.AST, kept: set[str]) -> bool:
    """``self.backbone(x)``, ``self.backbone.encode(x)``: something kept is a module."""
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
        return False
    name = dotted(node.func) or ""
    parts = name.split(".")
    if len(parts) < 2 or parts[0] != "self" or parts[1] not in kept:
        return False
    return len(parts) == 2 or parts[-1] not in _DATA_METHODS


def class_method(
    classes: dict[str, ClassInfo], cls: str | None, attr: str
) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The method ``attr`` of the class ``cls`` of this file, its own or inherited from a
    base class of this file (``class SCALE(VAE)`` calling ``self.encode_batch()``)."""
    seen: set[str] = set()
    queue = [cls] if cls else []
    while queue:
        name = queue.pop(0)
        info = classes.get(name)  # type: ignore[arg-type]
        if info is None or name in seen:
            continue
        seen.add(name)
        if attr in info.methods:
            return info.methods[attr]
        queue += [last_part(dotted(base)) for base in info.node.bases if dotted(base)]
    return None


def passed_name(arg: ast.expr) -> str | None:
    """The name an argument passes: ``model``, ``self.net``, or the receiver of a method
    that returns it (``model.eval()``, ``model.to(device)``)."""
    while (
        isinstance(arg, ast.Call)
        and isinstance(arg.func, ast.Attribute)
        and arg.func.attr in _RETURNS_SELF
    ):
        arg = arg.func.value
    return dotted(arg)


def arg_names(call: ast.Call) -> tuple[str, ...]:
    """The names a call passes (positional, then keyword), as receivers: ``model.module`` ->
    ``model``; arguments that are not names are left out."""
    names = [passed_name(a) for a in call.args] + [passed_name(k.value) for k in call.keywords]
    return tuple(normalize_receiver(n) for n in names if n)  # type: ignore[misc]


def container_of(node: ast.expr | None) -> str | None:
    """``history["loss"]`` -> ``history``: the object that outlives the iteration; so is
    ``history`` of ``history.setdefault("loss", [])`` (the list it keeps, or makes and keeps)."""
    while True:
        if isinstance(node, ast.Subscript):
            node = node.value
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "setdefault"
        ):
            node = node.func.value
        else:
            return dotted(node)
