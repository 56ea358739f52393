"""The statement-by-statement walk: assignments, loops, branches and autograd contexts.

:class:`StatementWalker` visits a scope's statements in source order.  ``for`` loops are
classified (``batch`` over a DataLoader, ``epoch``, ``micro`` for accumulation, ``other``)
and pushed on the loop stack that every event is stamped with; the arms of an ``if`` or
``match`` are walked on copies of the environment, which are then merged, and each arm adds
a step to the branch path; ``with torch.no_grad()`` (also through a name bound to one) and
``torch.set_grad_enabled(...)`` switch autograd off for what they cover.  Nested functions
are summarised where they are defined.
"""

from __future__ import annotations

import ast
import re

from . import values as V
from ._astutil import argument, block_terminates, dotted, last_part, walk
from .call_effects import runs_forward
from .events import EVAL, ZERO, IfInfo, LoopInfo
from .expressions import ExpressionWalker
from .foreign import ForeignClass
from .loop_kinds import (
    draws_a_batch_each_pass,
    enumerate_like,
    loop_kind,
    module_container,
    unwrap_iter,
)
from .scope_state import GRAD_CONTEXTS, container_of
from .values import Value, merge_binding, value_from_name


# A loop over micro-batches (a virtual batch of several backward() calls per step)
class StatementWalker(ExpressionWalker):
    """Walks a scope's statements in source order (see module)."""

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
        if isinstance(node.value, ast.IfExp):
            self.visit_If(_as_if_statement(self.fa, node.value))
            return
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
                    # if dice: test = test_dice / else: test = test_nll: either may run
                    self.alias_choices.setdefault(target.id, []).append(aliased)
                else:
                    self.func_aliases.pop(target.id, None)
                self._note_class_alias(target.id, value_node)
        chained_eval = _chained_eval(value_node)
        if chained_eval is not None and value is None:
            value = Value(V.MODEL)  # only modules have .eval()
        if value is None and isinstance(value_node, ast.Attribute):
            value = self._bound_forward(value_node)
        if (
            (value is None or value.kind == V.OUTPUT)  # (model_cls(...) read as a forward)
            and (_instantiates_class(value_node) or self._calls_own_function(value_node))
            and any(dotted(t) in self.fa.evident_models for t in node.targets)
            and not self._builds_a_transform(value_node)
        ):
            # G = GeneratorResNet() from ``from models import *``, self.actor =
            # policy_class(...), net = model_unet(U_Net, 3, 1): the class is out of sight,
            # but G.eval() / G.parameters() elsewhere in the file say it is a module
            value = Value(V.MODEL)
        for target in node.targets:
            grad = isinstance(target, ast.Attribute) and target.attr == "grad"
            if grad and _clears_gradient(value_node):
                self.emit(ZERO, node)  # p.grad = None, p.grad = torch.zeros_like(p)
            self.bind(target, value, value_node)
            if isinstance(target, (ast.Tuple, ast.List)) and isinstance(value_node, ast.Call):
                self._evident_elements(target)
            self._bind_grad_context(dotted(target), value_node)
            if chained_eval is not None and dotted(target):
                # enc = Encoder(...).eval(): the new model starts in eval mode
                self.emit(EVAL, chained_eval, receiver=self.model_key(dotted(target)))

    def _bound_forward(self, node: ast.Attribute) -> Value | None:
        """``forward = self.net.forward``: calling the name runs the model (it stands for it)."""
        owner = dotted(node.value)
        model = self.lookup(owner) if owner and runs_forward(node.attr) else None
        if model is None or model.kind != V.MODEL:
            return None
        return Value(V.MODEL, cls=model.cls, alias=self.model_key(owner), flags=model.flags)

    def _note_class_alias(self, name: str, value_node: ast.expr) -> None:
        """``agent = RNDAgent`` (a class of this file or of the project, not an instance):
        a later ``agent(...)`` builds an ``RNDAgent``; ``Policy = ActorCritic if
        using_value else DiscretePolicy``: one of the two."""
        arms = [value_node.body, value_node.orelse] if isinstance(value_node, ast.IfExp) else []
        if all(self._names_a_class(arm) for arm in arms or [value_node]):
            self.class_aliases[name] = value_node
        else:
            self.class_aliases.pop(name, None)

    def _names_a_class(self, node: ast.expr) -> bool:
        if not isinstance(node, (ast.Name, ast.Attribute)) or dotted(node) in self.env:
            return False
        if isinstance(node, ast.Name) and node.id in self.fa.classes:
            return True
        return isinstance(self._resolve_foreign(node), ForeignClass)

    def _calls_own_function(self, node: ast.expr) -> bool:
        """``model_unet(U_Net, 3, 1)``: a call of a function of this file."""
        return (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in self.fa.functions
        )

    def _builds_a_transform(self, node: ast.expr) -> bool:
        """``transform = transforms.Compose([...])`` in a helper, while a ``transform``
        model elsewhere in the file is put in eval(): a data transform, whose class is known."""
        if not isinstance(node, ast.Call):
            return False
        qual = self.fa.imports.resolve(node.func) or ""
        return qual.startswith(V.TRANSFORM_MODULES)

    def _evident_elements(self, target: ast.Tuple | ast.List) -> None:
        """``(encoder, head) = get_model(opt)``: an element the file uses as a module
        (``head.parameters()``) is a model, whatever the call returned."""
        for elt in target.elts:
            name = dotted(elt)
            if name in self.fa.evident_models and self.env.get(name) is None:
                self.env[name] = Value(V.MODEL)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is not None:
            self.bind(node.target, self.ev(node.value), node.value)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        rhs = self.ev(node.value)
        target = node.target
        if isinstance(target, ast.Subscript):
            self.ev(target.slice)
            self._at_accumulate(container_of(target.value), rhs, node)
            return
        name = dotted(target)
        if name is None:
            return
        current = self.lookup(name)
        if isinstance(node.op, (ast.Add, ast.Sub)):
            self._at_accumulate(name, rhs, node)
        self.env[name] = V.binop_value(node.op, current, rhs)

    def visit_For(self, node: ast.For | ast.AsyncFor) -> None:
        iter_value = self.ev(node.iter)
        inner = unwrap_iter(node.iter)
        inner_value = iter_value if inner is node.iter else self.lookup(dotted(inner))
        if inner is not node.iter and iter_value is not None and iter_value.kind == V.LOADER:
            inner_value = iter_value  # tqdm(enumerate(pbar_of_loader))
        is_loader = inner_value is not None and inner_value.kind == V.LOADER
        if not is_loader and isinstance(inner, ast.Name | ast.Attribute):
            guess = value_from_name(dotted(inner) or "")
            is_loader = guess is not None and guess.kind == V.LOADER
        kind = loop_kind(node, is_loader)
        loop_id = self._push_loop(node, kind)
        self._bind_loop_target(node, is_loader)
        self.visit_block(node.body)
        self.loop_stack.pop()
        del loop_id
        self.visit_block(node.orelse)

    visit_AsyncFor = visit_For

    def visit_While(self, node: ast.While) -> None:
        self.ev(node.test)
        self._push_loop(node, "batch" if draws_a_batch_each_pass(node) else "other")
        self.visit_block(node.body)
        self.loop_stack.pop()
        self.visit_block(node.orelse)

    def _push_loop(self, node: ast.stmt, kind: str) -> int:
        loop_id = next(self._ids)
        parent = self.loop_stack[-1] if self.loop_stack else None
        self.loops[loop_id] = LoopInfo(loop_id, node, kind, parent)
        self.loop_stack.append(loop_id)
        return loop_id

    def _bind_loop_target(self, node: ast.For | ast.AsyncFor, is_loader: bool) -> None:
        target = node.target
        inner = unwrap_iter(node.iter)
        inner_value = self.lookup(dotted(inner)) if inner is not node.iter else None
        enumerated = enumerate_like(node.iter) or (
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
            self._bind_element(node, target)
        elif isinstance(target, (ast.Tuple, ast.List)):
            for elt in target.elts:
                self.bind(elt, Value(V.TENSOR, flags=frozenset({V.FROM_LOADER})), None)
        else:
            self.bind(target, Value(V.BATCH), None)

    def _bind_element(self, node: ast.For | ast.AsyncFor, target: ast.expr) -> None:
        """``for flow in self.flows[::-1]``, ``for i, layer in enumerate(self.layers)``
        over an nn.ModuleList, Sequential or ModuleDict's values: each element is one of
        its submodules."""
        element = None
        container = module_container(node.iter)
        if container is not None:
            value = self.lookup(dotted(container))
            if value is not None and value.kind == V.MODEL and value.cls in V.MODULE_CONTAINERS:
                element = Value(V.MODEL, flags=frozenset({V.SUBMODULE}))
        pair = isinstance(target, ast.Tuple) and len(target.elts) == 2
        if element is not None and enumerate_like(node.iter) and pair:
            self.bind(target.elts[0], Value(V.NUMBER), None)  # type: ignore[attr-defined]
            target = target.elts[1]  # type: ignore[attr-defined]
        self.bind(target, element, None)

    def visit_If(self, node: ast.If) -> None:
        self.ev(node.test)
        truth = _constant_truth(node.test, self.fa.false_flags)
        if truth is not None:  # if False:, if USE_AMP: with USE_AMP only ever False
            self.visit_block(node.body if truth else node.orelse)
            return
        self._branches(node, [node.body, node.orelse])

    def _branches(self, node: ast.stmt, blocks: list[list[ast.stmt]]) -> None:
        if_id = self._same_test(node)
        if if_id is None:
            if_id = next(self._ids)
            self.ifs[if_id] = IfInfo(node, tuple(self.loop_stack))
            if isinstance(node, ast.If) and self._stable_test(node.test):
                self.if_tests[self._test_key(node.test)] = if_id
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

    def _same_test(self, node: ast.stmt) -> int | None:
        """An earlier ``if`` of this block with the very same test, which nothing rebinds
        (``if self.train_cameras: pose.eval()`` ... ``if self.train_cameras: pose.train()``):
        one choice, taken the same way both times."""
        if not isinstance(node, ast.If):
            return None
        return self.if_tests.get(self._test_key(node.test))

    def _test_key(self, test: ast.expr) -> tuple:
        return (ast.dump(test), tuple(self.loop_stack), tuple(self.path))

    def _stable_test(self, test: ast.expr) -> bool:
        """A test of names and attributes only (no call), none of them assigned in the
        scope."""
        if any(isinstance(n, (ast.Call, ast.NamedExpr, ast.Await)) for n in walk(test)):
            return False
        read = {dotted(n) for n in walk(test) if isinstance(n, (ast.Name, ast.Attribute))}
        assigned = self._assigned_names()
        return not any(
            name and any(name == a or name.startswith(f"{a}.") for a in assigned) for name in read
        )

    def _assigned_names(self) -> set[str]:
        """The names and attributes the scope binds (``x``, ``self.flag``)."""
        if self._assigned is None:
            scope = self.func if self.func is not None else self.fa.tree
            targets: list[ast.expr] = []
            for n in walk(scope):
                if isinstance(n, ast.Assign):
                    targets.extend(n.targets)
                elif isinstance(n, (ast.AugAssign, ast.AnnAssign, ast.For, ast.AsyncFor)):
                    targets.append(n.target)
            found: set[str] = set()
            while targets:
                target = targets.pop()
                if isinstance(target, (ast.Tuple, ast.List)):
                    targets.extend(target.elts)
                elif isinstance(target, ast.Starred):
                    targets.append(target.value)
                elif dotted(target):
                    found.add(dotted(target))  # type: ignore[arg-type]
            self._assigned = found
        return self._assigned

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
        self.surely_no_grad.append(
            self.surely_no_grad[-1] or any(_surely_no_grad(i.context_expr) for i in node.items)
        )
        self.grad_on_purpose.append(
            self.grad_on_purpose[-1]
            or any(
                _enables_grad(self._resolved(i.context_expr), i.context_expr) for i in node.items
            )
        )
        self.visit_block(node.body)
        self.grad_on_purpose.pop()
        self.surely_no_grad.pop()
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
        if any(
            k.arg == "no_grad" and isinstance(k.value, ast.Constant) and k.value.value is True
            for k in expr.keywords
        ):
            return True  # with utils.eval_mode(net, no_grad=True): a project's context
        return self._is_grad_factory(expr.func) or self._local_grad_context(expr.func)

    def _local_grad_context(self, func: ast.expr) -> bool:
        """A function of this file that makes a context without autograd for what it
        covers: one that returns ``torch.no_grad()`` (``_get_no_grad_ctx_mgr()``), or a
        @contextmanager that sets ``requires_grad = False`` on the parameters before it
        yields (``preserve_grad_state(model)``: no parameter records a graph inside; what
        is left, input gradients, is wanted)."""
        local = self.fa.functions.get(func.id) if isinstance(func, ast.Name) else None
        if local is None:
            return False
        returned = [n.value for n in walk(local) if isinstance(n, ast.Return) and n.value]
        if any(isinstance(r, ast.Call) and self._is_grad_factory(r.func) for r in returned):
            return True
        if not any(last_part(dotted(d)) == "contextmanager" for d in local.decorator_list):
            return False
        return any(
            isinstance(n, ast.Assign)
            and isinstance(n.value, ast.Constant)
            and n.value.value is False
            and any(isinstance(t, ast.Attribute) and t.attr == "requires_grad" for t in n.targets)
            for n in walk(local)
        )

    def _resolved(self, expr: ast.expr) -> str | None:
        return self.fa.imports.resolve(expr.func) if isinstance(expr, ast.Call) else None

    def _is_grad_factory(self, func: ast.expr | None) -> bool:
        name = last_part(self.fa.imports.resolve(func))
        # set_grad_enabled(phase == "train") may or may not disable grad: treat it as a
        # grad context so that no rule complains about code inside it.
        if name in GRAD_CONTEXTS or name in {"set_grad_enabled", "enable_grad"}:
            return True
        # with NO_GRAD(): the project's own name for torch.no_grad (config.py's alias)
        return bool(name) and _PROJECT_NO_GRAD.fullmatch(name or "") is not None

    def _grad_switch(self, call: ast.Call) -> None:
        """Calls that switch autograd for the rest of the block they are in.

        ``torch.set_grad_enabled(False)`` (or a phase flag: unsure, so counted as off),
        ``stack.enter_context(torch.no_grad())`` on an ExitStack and a context entered by
        hand (``torch.no_grad().__enter__()``).
        """
        name = last_part(self.fa.imports.resolve(call.func))
        if name == "set_grad_enabled" and self.fa.imports.resolve(call.func) != name:
            flag = argument(call, 0, "mode")
            enabled = isinstance(flag, ast.Constant) and flag.value is True
            self.no_grad_stack[-1] = not enabled
        elif self._enters_grad_context(call):
            self.no_grad_stack[-1] = True

    def _enters_grad_context(self, call: ast.Call) -> bool:
        if not isinstance(call.func, ast.Attribute):
            return False
        if call.func.attr == "enter_context":  # an ExitStack's
            return bool(call.args) and self._is_grad_context(call.args[0])
        return call.func.attr == "__enter__" and self._is_grad_context(call.func.value)

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
        if isinstance(node.value, ast.Tuple) and not any(
            isinstance(e, ast.Starred) for e in node.value.elts
        ):
            # return loss, metrics: what each position holds, for ``a, b = f(...)``
            self.returned_tuples.append(tuple(self.ev(e) for e in node.value.elts))
            self.returns.append(None)
            return
        self.returned_tuples.append(None)
        self.returns.append(self.ev(node.value) if node.value is not None else None)

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        if self.func is None and node in self.fa.functions.values():
            return  # module-level functions are walked on their own
        if node in self.fa.method_class:
            return
        self.local_funcs[node.name] = node
        self.fa.summary_of(node, parent_env=self.env, enclosing=self.cls)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        return  # classes are indexed and their methods walked separately


def _enables_grad(name: str | None, call: ast.expr) -> bool:
    """``torch.enable_grad()``, ``torch.set_grad_enabled(True)``: autograd on, on purpose."""
    if not isinstance(call, ast.Call):
        return False
    flag = argument(call, 0, "mode")
    literal_true = isinstance(flag, ast.Constant) and flag.value is True
    return last_part(name) == "enable_grad" or (
        last_part(name) == "set_grad_enabled" and literal_true
    )


def _surely_no_grad(expr: ast.expr) -> bool:
    """``torch.no_grad()``, ``torch.inference_mode()`` (not ``inference_mode(False)``)."""
    if not (
        isinstance(expr, ast.Call) and last_part(dotted(expr.func)) in {"no_grad", "inference_mode"}
    ):
        return False
    return not any(isinstance(a, ast.Constant) and a.value is False for a in expr.args)


_ZEROS = {"zero_", "zeros_like", "zeros", "new_zeros"}


def _clears_gradient(value: ast.expr) -> bool:
    """``p.grad = None`` or a zero tensor (``torch.zeros_like(p)``, old code's
    ``Variable(data.new().resize_as_(data).zero_())``): the gradient starts again from 0."""
    if isinstance(value, ast.Constant):
        return value.value is None
    return any(isinstance(n, ast.Call) and _called(n) in _ZEROS for n in walk(value))


def _called(call: ast.Call) -> str:
    """The name of what is called, at the end of any chain (``x.new().zero_``: ``zero_``)."""
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")


def _instantiates_class(node: ast.expr) -> bool:
    """``Foo(...)``, ``policy_class(...)``, ``Foo(...).to(device)``: something built by a call."""
    while (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in {"to", "cuda", "cpu", "float", "double", "half"}
    ):
        node = node.func.value
    return isinstance(node, ast.Call) and isinstance(node.func, (ast.Name, ast.Attribute))


_PROJECT_NO_GRAD = re.compile(r"_*(no_?grad|nograd_?context|no_?grad_?context)", re.I)


def _as_if_statement(fa: object, node: ast.IfExp) -> ast.If:
    """``model.train() if phase == "train" else model.eval()`` as the ``if`` statement it
    stands for (one per expression, kept for both passes of the file)."""
    made: dict[int, ast.If] = fa.__dict__.setdefault("_if_statements", {})
    if id(node) not in made:
        arms = [[ast.copy_location(ast.Expr(value), value)] for value in (node.body, node.orelse)]
        made[id(node)] = ast.copy_location(ast.If(node.test, arms[0], arms[1]), node)
    return made[id(node)]


def _constant_truth(test: ast.expr, false_flags: set[str]) -> bool | None:
    """The value of an if's test when the file fixes it: a literal, or a name the file
    only ever sets to False (``not`` of either too); None when it can vary."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = _constant_truth(test.operand, false_flags)
        return None if inner is None else not inner
    if isinstance(test, ast.BoolOp):  # if not accumulate or (i + 1) % accumulate == 0:
        parts = [_constant_truth(value, false_flags) for value in test.values]
        decides = isinstance(test.op, ast.Or)  # True decides an or, False an and
        if decides in parts:
            return decides
        return not decides if all(part is not None for part in parts) else None
    if isinstance(test, ast.Constant):
        return bool(test.value)
    if isinstance(test, ast.Name) and test.id in false_flags:
        return False
    return None


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


def _merge_envs(
    start: dict[str, Value | None], outcomes: list[dict[str, Value | None]]
) -> dict[str, Value | None]:
    merged: dict[str, Value | None] = {}
    keys = set(start).union(*outcomes)
    for key in keys:
        # a branch that never binds the name (``else: sys.exit("unknown net")``, or one that
        # only reports and falls through) has no value to offer: a later use of the name
        # reads what the binding branches gave it
        vals = [env.get(key, start.get(key)) for env in outcomes if key in env or key in start]
        value = vals[0]
        for other in vals[1:]:
            value = merge_binding(value, other)
        merged[key] = value
    return merged
