"""Functions that train or evaluate by an argument: ``run_epoch(..., mode="eval")``.

Real loops often share one function between training and evaluation, switched by a
parameter: ``backprop(..., training=False)``, ``run_epoch(loader, mode="train")``,
``step(batch, phase)``.  A call that passes a literal for that parameter can be read the way
its author means it: with ``training=False`` no ``backward()`` of the function runs, so the
call trains nothing (it is no training step in eval mode) and the forwards it runs with
autograd on record graphs for nothing.  Only the ``if`` tests on the parameter are evaluated
(a literal, ``not p``, ``p == "train"``, ``p in ("train", "both")``, ``and``/``or``, and a
local name bound once to such a test); anything else leaves the call unknown.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from ._astutil import dotted, walk
from .values import NO_GRAD_WHEN

if TYPE_CHECKING:
    from .events import Summary
    from .foreign import ForeignFunction

_UNKNOWN = object()
Guard = tuple[tuple[ast.expr, bool], ...]  # the enclosing tests and the arm taken


@dataclass(frozen=True)
class TrainingSwitch:
    """Every ``backward()`` of a function sits under ``if`` tests on one parameter."""

    param: str
    index: int  # among the parameters a caller passes (``self`` left out for a method)
    default: object  # the parameter's literal default, or _UNKNOWN
    guards: tuple[Guard, ...]  # one per backward() call
    aliases: tuple[tuple[str, ast.expr], ...] = ()

    def trains_with(self, value: object) -> bool | None:
        """Whether some ``backward()`` runs when the parameter is ``value`` (None: unknown)."""
        env = {self.param: value}
        aliases = dict(self.aliases)
        reachable = []
        for guard in self.guards:
            taken = [_evaluate(test, env, aliases) for test, _ in guard]
            if any(t is _UNKNOWN for t in taken):
                return None
            reachable.append(all(bool(t) == arm for t, (_, arm) in zip(taken, guard, strict=True)))
        return any(reachable)

    def reaches(
        self, func: ast.FunctionDef | ast.AsyncFunctionDef, nodes: list[ast.AST], value: object
    ) -> bool:
        """Some of ``nodes`` (of ``func``) may run when the parameter is ``value``."""
        wanted = {id(n) for n in nodes}
        env = {self.param: value}
        aliases = dict(self.aliases)
        return any(
            _arms_allow(parents, env, aliases)
            for node, parents in _walk_with_ifs(func.body, ())
            if id(node) in wanted
        )

    def value_at(self, call: ast.Call) -> object:
        """The literal the call passes for the parameter (its default when not passed)."""
        for kw in call.keywords:
            if kw.arg == self.param:
                return _literal(kw.value)
        if any(isinstance(a, ast.Starred) for a in call.args) or any(
            kw.arg is None for kw in call.keywords
        ):
            return _UNKNOWN
        if self.index < len(call.args):
            return _literal(call.args[self.index])
        return self.default


def is_known(value: object) -> bool:
    return value is not _UNKNOWN


def training_switches(
    func: ast.FunctionDef | ast.AsyncFunctionDef, method: bool
) -> tuple[TrainingSwitch, ...]:
    """The parameters that each decide whether ``func`` trains: every backward() sits under
    an if arm that a test of the parameter alone rules out (``if is_train and not first:``
    depends on ``is_train`` and on ``first``, either of which can switch it off)."""
    args = [*func.args.posonlyargs, *func.args.args, *func.args.kwonlyargs]
    names = [a.arg for a in args]
    if method and names and names[0] in {"self", "cls"}:
        names = names[1:]
    aliases = _aliases(func, set(names))
    guards: list[tuple[tuple[str, ast.expr, bool], ...]] = []
    for node, parents in _walk_with_ifs(func.body, ()):
        if not _is_backward(node):
            continue
        guard = tuple(
            (_mentions(term, names, aliases), term, term_arm)
            for test, arm in parents
            for term, term_arm in _terms(test, arm, names, aliases)
        )
        if not guard:
            return ()  # this backward() runs whatever the arguments
        guards.append(guard)  # type: ignore[arg-type]
    if not guards:
        return ()
    shared = set.intersection(*({param for param, _, _ in guard} for guard in guards))
    return tuple(
        TrainingSwitch(
            param,
            names.index(param),
            _default_of(func, param),
            tuple(tuple((t, a) for p, t, a in guard if p == param) for guard in guards),
            tuple(aliases.items()),
        )
        for param in names
        if param in shared
    )


def _terms(test: ast.expr, arm: bool, params: list[str], aliases: dict):
    """The parts of an if test, each on one parameter, that must hold (with the arm) for the
    arm to run: ``a and b`` taken needs both, ``a or b`` not taken needs neither."""
    if _mentions(test, params, aliases) is not None:
        yield test, arm
    elif isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        yield from _terms(test.operand, not arm, params, aliases)
    elif isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) == arm:
        for value in test.values:
            yield from _terms(value, arm, params, aliases)


def _is_backward(node: ast.AST) -> bool:
    """``loss.backward()``, ``scaler.scale(loss).backward()``, ``accelerator.backward(loss)``."""
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "backward"
    )


def _walk_with_ifs(body: list[ast.stmt], parents: tuple):
    """Every node of a body (nested scopes left out) with the ``if`` arms around it; what
    follows ``if reconstruct: ...; return x`` sits in that if's other arm."""
    for stmt in body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        if isinstance(stmt, ast.If):
            yield from _nodes(stmt.test, parents)
            yield from _walk_with_ifs(stmt.body, (*parents, (stmt.test, True)))
            yield from _walk_with_ifs(stmt.orelse, (*parents, (stmt.test, False)))
            exits = (_exits(stmt.body), _exits(stmt.orelse))
            if exits[0] != exits[1]:
                parents = (*parents, (stmt.test, not exits[0]))
            continue
        for child in ast.iter_child_nodes(stmt):
            if isinstance(child, ast.stmt):
                yield from _walk_with_ifs([child], parents)
            elif isinstance(child, ast.excepthandler):
                yield from _walk_with_ifs(child.body, parents)
            else:
                yield from _nodes(child, parents)


def _exits(body: list[ast.stmt]) -> bool:
    """The block always leaves the function (it ends in ``return`` or ``raise``)."""
    return bool(body) and isinstance(body[-1], (ast.Return, ast.Raise))


def reachable_with(
    func: ast.FunctionDef | ast.AsyncFunctionDef, node: ast.AST, call: ast.Call
) -> bool:
    """``node`` (of ``func``) may run for this call, given the literals it passes and the
    defaults it leaves: ``generate(net, reconstruct=True)`` returns before the sampling loop
    that follows ``if reconstruct: ...; return``."""
    args = [*func.args.posonlyargs, *func.args.args]
    defaults = dict(zip([a.arg for a in args][len(args) - len(func.args.defaults) :],
                        func.args.defaults, strict=True))  # fmt: skip
    names = [a.arg for a in args]
    passed = call.args
    if names and names[0] in {"self", "cls"} and isinstance(call.func, ast.Attribute):
        names = names[1:]
    if any(isinstance(a, ast.Starred) for a in passed) or any(k.arg is None for k in call.keywords):
        return True
    env: dict[str, object] = {name: _literal(defaults[name]) for name in names if name in defaults}
    for kw in func.args.kwonlyargs:
        env.pop(kw.arg, None)
    env.update({name: _literal(value) for name, value in zip(names, passed, strict=False)})
    env.update({kw.arg: _literal(kw.value) for kw in call.keywords if kw.arg is not None})
    env = {k: v for k, v in env.items() if v is not _UNKNOWN}
    if not env:
        return True
    for found, parents in _walk_with_ifs(func.body, ()):
        if found is node:
            return _arms_allow(parents, env, {})
    return True


def _arms_allow(parents: tuple, env: dict, aliases: dict) -> bool:
    """Every ``if`` arm around a node may be taken with the parameters' values in ``env``
    (a test the values do not decide may go either way)."""
    arms = [
        (_evaluate(term, env, aliases), term_arm)
        for test, arm in parents
        for term, term_arm in _terms(test, arm, list(env), aliases)
    ]
    return all(taken is _UNKNOWN or bool(taken) == arm for taken, arm in arms)


def _nodes(node: ast.AST, parents: tuple):
    for sub in walk(node):
        yield sub, parents


def _aliases(func: ast.FunctionDef | ast.AsyncFunctionDef, params: set[str]) -> dict:
    """Local names bound once, at the top of the function, to a test of one parameter
    (``train = phase == "train"``)."""
    bound: dict[str, list[ast.expr]] = {}
    for node in walk(func):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    bound.setdefault(target.id, []).append(node.value)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)) and isinstance(node.target, ast.Name):
            bound.setdefault(node.target.id, []).append(node.value or node.target)
    aliases = {}
    for name, values in bound.items():
        if name in params or len(values) != 1:
            continue
        used = {n.id for n in walk(values[0]) if isinstance(n, ast.Name)}
        if len(used & params) == 1 and used <= params:
            aliases[name] = values[0]
    return aliases


def _mentions(test: ast.expr, params: list[str], aliases: dict) -> str | None:
    """The one parameter a test reads (through aliases), when it reads nothing else (a test
    of ``model.name`` or of a call's result is not a test of the parameter)."""
    if any(isinstance(n, (ast.Attribute, ast.Call, ast.Subscript)) for n in walk(test)):
        return None
    names = {n.id for n in walk(test) if isinstance(n, ast.Name)}
    read: set[str] = set()
    for name in names:
        if name in params:
            read.add(name)
        elif name in aliases:
            read |= {n.id for n in walk(aliases[name]) if isinstance(n, ast.Name)}
        else:
            return None
    return read.pop() if len(read) == 1 else None


def _default_of(func: ast.FunctionDef | ast.AsyncFunctionDef, param: str) -> object:
    positional = [*func.args.posonlyargs, *func.args.args]
    defaults = func.args.defaults
    for arg, default in zip(positional[len(positional) - len(defaults) :], defaults, strict=True):
        if arg.arg == param:
            return _literal(default)
    for arg, default in zip(func.args.kwonlyargs, func.args.kw_defaults, strict=True):
        if arg.arg == param and default is not None:
            return _literal(default)
    return _UNKNOWN


def _literal(node: ast.expr) -> object:
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return _UNKNOWN


def _evaluate(node: ast.expr, env: dict, aliases: dict) -> object:
    """The value of a test over the parameter, or _UNKNOWN."""
    if isinstance(node, ast.Name):
        if node.id in env:
            return env[node.id]
        if node.id in aliases:
            return _evaluate(aliases[node.id], env, aliases)
        return _UNKNOWN
    if isinstance(node, (ast.Constant, ast.Tuple, ast.List, ast.Set)):
        return _literal(node)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        value = _evaluate(node.operand, env, aliases)
        return _UNKNOWN if value is _UNKNOWN else not value
    if isinstance(node, ast.BoolOp):
        values = [_evaluate(v, env, aliases) for v in node.values]
        if any(v is _UNKNOWN for v in values):
            return _UNKNOWN
        return all(values) if isinstance(node.op, ast.And) else any(values)
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        left = _evaluate(node.left, env, aliases)
        right = _evaluate(node.comparators[0], env, aliases)
        if left is _UNKNOWN or right is _UNKNOWN:
            return _UNKNOWN
        return _compare(node.ops[0], left, right)
    return _UNKNOWN


def _compare(op: ast.cmpop, left: object, right: object) -> object:
    try:
        if isinstance(op, ast.Eq):
            return left == right
        if isinstance(op, ast.NotEq):
            return left != right
        if isinstance(op, ast.Is):
            return left is right
        if isinstance(op, ast.IsNot):
            return left is not right
        if isinstance(op, ast.In):
            return left in right  # type: ignore[operator]
        if isinstance(op, ast.NotIn):
            return left not in right  # type: ignore[operator]
    except TypeError:
        return _UNKNOWN
    return _UNKNOWN


def forward_no_grad_switch(
    forward: ast.FunctionDef | ast.AsyncFunctionDef,
    methods: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] | None = None,
) -> str | None:
    """The flag of a forward() that runs its computation under no_grad when one parameter
    says so: its body is an ``if`` on that parameter, one arm of which only switches modes
    and runs ``with torch.no_grad():`` blocks, or returns what a method of the class
    computes under no_grad (``else: return self.reverse_flow(z)``)."""
    methods = methods or {}
    names = [
        a.arg for a in [*forward.args.posonlyargs, *forward.args.args, *forward.args.kwonlyargs]
    ]
    names = [n for n in names if n not in {"self", "cls"}]
    aliases = _aliases(forward, set(names))
    for at, stmt in enumerate(forward.body):
        if not isinstance(stmt, ast.If):
            continue
        param = _mentions(stmt.test, names, aliases)
        if param is None:
            continue
        for arm, taken in ((stmt.body, True), (stmt.orelse, False)):
            if _computes_after(arm, forward.body[at + 1 :]):
                continue  # if test: with no_grad(): hid = zeros(...); then the layers run
            if arm and all(_without_grad(s) or _returns_no_grad_method(s, methods) for s in arm):
                for value in (True, False):
                    if bool(_evaluate(stmt.test, {param: value}, aliases)) == taken:
                        return f"{NO_GRAD_WHEN}{param}={value!r}"
    return None


def _computes_after(arm: list[ast.stmt], rest: list[ast.stmt]) -> bool:
    """The arm does not return and the forward's layers run after the ``if``
    (``self.conv(x)``): a no_grad block in it only prepares something (a zero state)."""
    if any(isinstance(n, ast.Return) for s in arm for n in walk(s)):
        return False
    return any(
        isinstance(n, ast.Call) and (dotted(n.func) or "").startswith("self.")
        for s in rest
        for n in walk(s)
    )


# the flag of a forward() that turns autograd off by the model's own state (its class
# decides when): every call of such a model may run without a graph
NO_GRAD_BY_STATE = f"{NO_GRAD_WHEN}self"


def forward_state_switch(
    forward: ast.FunctionDef | ast.AsyncFunctionDef,
    methods: dict[str, ast.FunctionDef | ast.AsyncFunctionDef],
) -> bool:
    """forward() turns autograd off itself when an attribute of the model says so:
    ``if not self.trainable: return self.inference(x)`` with ``inference`` under
    ``@torch.no_grad()``, or ``if not self.training: with torch.no_grad(): ...``."""
    for stmt in forward.body:
        if not isinstance(stmt, ast.If) or not _reads_own_attribute(stmt.test):
            continue
        for arm in (stmt.body, stmt.orelse):
            no_grad = [s for s in arm if _returns_no_grad_method(s, methods)]
            no_grad += [s for s in arm if isinstance(s, (ast.With, ast.AsyncWith))]
            if no_grad and all(
                _without_grad(s) or _returns_no_grad_method(s, methods) for s in arm
            ):
                return True
    return False


def _reads_own_attribute(test: ast.expr) -> bool:
    return any(
        isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == "self"
        for n in walk(test)
    )


def _returns_no_grad_method(
    stmt: ast.stmt, methods: dict[str, ast.FunctionDef | ast.AsyncFunctionDef]
) -> bool:
    """``return self.inference(x)``, a method of the class decorated ``@torch.no_grad()``."""
    call = stmt.value if isinstance(stmt, ast.Return) else None
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)):
        return False
    if not (isinstance(call.func.value, ast.Name) and call.func.value.id == "self"):
        return False
    method = methods.get(call.func.attr)
    if method is None:
        return False
    if any(_is_no_grad(d) for d in method.decorator_list):
        return True
    # def reverse_flow(self, z): with torch.no_grad(): ... return x
    body = [s for s in method.body if not _docstring(s)]
    if body and isinstance(body[-1], ast.Return) and isinstance(body[-1].value, ast.Name):
        body = body[:-1]
    return bool(body) and all(
        isinstance(s, (ast.With, ast.AsyncWith)) and _without_grad(s) for s in body
    )


def _docstring(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)


def _is_no_grad(decorator: ast.expr) -> bool:
    func = decorator.func if isinstance(decorator, ast.Call) else decorator
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
    return name in {"no_grad", "inference_mode"}


def switched_by_own_state(func: ast.AST) -> bool:
    """A method whose body chooses by a flag of its object (``if self.training:``) between
    an arm with autograd on and one under ``torch.no_grad()``: the object's state decides."""
    for stmt in getattr(func, "body", []):
        if not isinstance(stmt, ast.If):
            continue
        test = stmt.test.operand if isinstance(stmt.test, ast.UnaryOp) else stmt.test
        on_self = isinstance(test, ast.Attribute) and dotted(test.value) == "self"
        arms = (stmt.body, stmt.orelse)
        if on_self and any(arm and all(_without_grad(s) for s in arm) for arm in arms):
            return True
    return False


def _without_grad(stmt: ast.stmt) -> bool:
    """A statement of a no-grad arm: ``self.eval()``, a ``with torch.no_grad():`` block."""
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
        func = stmt.value.func
        return isinstance(func, ast.Attribute) and func.attr in {"eval", "train"}
    if isinstance(stmt, (ast.With, ast.AsyncWith)):
        return all(
            isinstance(item.context_expr, ast.Call)
            and isinstance(item.context_expr.func, (ast.Attribute, ast.Name))
            and (
                getattr(item.context_expr.func, "attr", None)
                or getattr(item.context_expr.func, "id", None)
            )
            in {"no_grad", "inference_mode"}
            for item in stmt.items
        )
    return isinstance(stmt, ast.Pass)


def switches_off_grad(flags: frozenset[str], call: ast.Call) -> bool:
    """The model call passes the literal its forward() turns autograd off with."""
    for flag in flags:
        if flag == NO_GRAD_BY_STATE:
            return True  # when, the model's own state decides: it may run without a graph
        if flag.startswith(NO_GRAD_WHEN):
            param, _, value = flag[len(NO_GRAD_WHEN) :].partition("=")
            passed = next((kw.value for kw in call.keywords if kw.arg == param), None)
            if passed is not None and repr(_literal(passed)) == value:
                return True
    return False


def reachable_or_twin(
    func: ast.FunctionDef | ast.AsyncFunctionDef, node: ast.AST, call: ast.Call
) -> bool:
    """``node`` may run for this call, or, when ``node`` is the first forward of its model in
    ``func``, another of them may: ``predict(x, mode="with_uncertainty")`` runs the model in
    the arm its mode picks, and the function's inference stands at its first forward."""
    if reachable_with(func, node, call):
        return True
    if not isinstance(node, ast.Call) or (name := dotted(node.func)) is None:
        return False
    twins = [n for n in ast.walk(func) if isinstance(n, ast.Call) and dotted(n.func) == name]
    first = min(twins, key=lambda n: (n.lineno, n.col_offset))
    return node is first and any(reachable_with(func, n, call) for n in twins)


def forwards_running(func: ForeignFunction, call: ast.Call) -> Summary:
    """The summary of another file's ``func`` for this call, without the forwards of its own
    body that the literals the call passes rule out: ``plot_sdf(model, is_net=True)`` never
    runs the arm ``if not is_net: sdf_func(point)``."""
    summary = func.summary
    kept = {
        key: node
        for key, node in summary.forwards.items()
        if getattr(node, "path", None) != func.path or runs_for_call(func, node.lineno, call)
    }
    return summary if len(kept) == len(summary.forwards) else replace(summary, forwards=kept)


def runs_for_call(func: ForeignFunction, line: int, call: ast.Call) -> bool:
    """Some call at ``line`` of another file's ``func`` may run for this call of it, or its
    twin in another arm (``if adversarial: out = model(x_adv) else: out = model(x)``)."""
    if func.node is None:
        return True
    at_line = [n for n in walk(func.node) if isinstance(n, ast.Call) and n.lineno == line]
    if not at_line or any(reachable_with(func.node, n, call) for n in at_line):
        return True
    guarded = {
        id(n)
        for w in walk(func.node)
        if isinstance(w, ast.With) and any(_is_no_grad(i.context_expr) for i in w.items)
        for n in walk(w)
    }
    names = {dotted(n.func) for n in at_line} - {None}
    twins = [
        n
        for n in walk(func.node)
        if isinstance(n, ast.Call) and dotted(n.func) in names and id(n) not in guarded
    ]
    return any(reachable_with(func.node, n, call) for n in twins)
