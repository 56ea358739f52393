"""TW017's question of k, the accumulation count: does the file divide anything by it
(the loss, scaled, or a call that may), or only counts and numbers for the log?"""

from __future__ import annotations

import ast

from .._astutil import dotted, last_part, walk
from ..analysis import ScopeWalker

# Integer arithmetic with k (``len(loader) // k``, ``total_steps / k``) is no loss scaling.
_COUNT_WORDS = ("step", "epoch", "iter", "total", "num", "count", "len", "size", "batch")


def k_divides_something(w: ScopeWalker, k: ast.expr) -> bool:
    """``_divides_anything`` of the file, once per k (several gated steps share one)."""
    cache: dict[tuple, bool] = w.fa.__dict__.setdefault("_divided_by", {})
    # (a call of the accumulating function itself hands it k, for its gate: not a divisor)
    own = getattr(w.func, "name", None)
    key = (dotted(k) or ast.dump(k), own)
    if key not in cache:
        cache[key] = _divides_anything(w.fa.nodes, k, own)
    return cache[key]


def _divides_anything(nodes: list[ast.AST], k: ast.expr, own: str | None = None) -> bool:
    """Does k (or a multiple of it) divide anything but a count or a logged number in the
    file (``nodes``: all of its nodes), or go to a call that may divide by it
    (``compute_loss(batch, accum_steps)``)?"""
    names = {last_part(dotted(k) or "")}
    tokens, copies = _aliases_of(nodes, names), _aliases_of(nodes, names, copies=True)
    logged = _logged_numbers(nodes)
    totals = _running_totals(nodes)
    # ``for batch in iter_records(data, batch_size)``: what a loop draws its batches from
    # takes k as a batch size, it does not scale a loss with it
    iterated = {id(n.iter) for n in nodes if isinstance(n, (ast.For, ast.comprehension))}
    counters = _counters_named_like(nodes, k)
    for node in nodes:
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
            if mentions(node.right, tokens) and not _a_count(node.left, logged):
                return True
        elif isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Div):
            scales = mentions(node.value, tokens) and not _a_count(node.target, logged)
            if scales and dotted(node.target) not in totals:  # not an average for the log
                return True
        elif isinstance(node, ast.Call):
            name = _called_name(node)
            args = [*node.args, *(kw.value for kw in node.keywords)]
            if name in {"div", "div_", "true_divide"} and any(mentions(a, tokens) for a in args):
                return True
            if (
                name not in _HARMLESS_CALLS
                and name != own
                and id(node) not in iterated
                and any(
                    isinstance(a, (ast.Name, ast.Attribute))
                    and mentions(a, copies)
                    and dotted(a) not in counters
                    for a in args
                )
            ):
                return True
    return False


def _counters_named_like(nodes: list[ast.AST], k: ast.expr) -> set[str]:
    """Bare names spelled like the attribute k (``step`` for ``args.step``) that the file
    counts with (``step = 0`` ... ``step += 1``): a step counter given to a logger, not k."""
    if not isinstance(k, ast.Attribute):
        return set()
    counted = {
        n.target.id
        for n in nodes
        if isinstance(n, ast.AugAssign)
        and isinstance(n.op, ast.Add)
        and isinstance(n.target, ast.Name)
        and n.target.id == k.attr
        and isinstance(n.value, ast.Constant)
    }
    from_k = any(
        isinstance(n, ast.Assign)
        and any(isinstance(t, ast.Name) and t.id in counted for t in n.targets)
        and mentions(n.value, {k.attr})
        for n in nodes
    )
    return set() if from_k else counted


def _aliases_of(nodes: list[ast.AST], tokens: set[str], *, copies: bool = False) -> set[str]:
    """k's names and its multiples: ``ga = args.accum_steps``, ``self.k = max(1, k)``,
    ``effective = k * world_size``, and the parameters of this file's functions that k is
    passed to (their bodies are in the file: a division there is seen like any other). A
    quotient by k (``steps = total // k``), a string or a call's result is no multiple.
    ``copies``: k's own value only (``ga = int(args.k)``), what a call given it may divide by."""
    tokens = set(tokens)
    functions = {
        node.name: node
        for node in nodes
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
    }
    bindings = [n for n in nodes if isinstance(n, (ast.Assign, ast.Call))]
    grown = True
    while grown:
        before = len(tokens)
        for node in bindings:
            if isinstance(node, ast.Assign) and _a_multiple(node.value, tokens, copies):
                tokens |= {last_part(dotted(t) or "") for t in node.targets} - {""}
            elif isinstance(node, ast.Call) and _called_name(node) in functions:
                function = functions[_called_name(node)]
                tokens |= _parameters_given(function, node, tokens, copies)
        grown = len(tokens) > before
    return tokens


_ARITHMETIC_CALLS = {"int", "float", "max", "min", "round", "ceil", "floor", "abs"}


def _a_multiple(node: ast.expr, tokens: set[str], copies: bool = False) -> bool:
    """``node`` is arithmetic on k that keeps it a factor: k, ``k * n``, ``int(k)``
    (``copies``: k itself, ``int(k)``, ``max(1, k)``)."""
    if isinstance(node, (ast.Name, ast.Attribute)):
        return last_part(dotted(node) or "") in tokens
    if isinstance(node, ast.Call) and _called_name(node) in _ARITHMETIC_CALLS:
        return any(_a_multiple(a, tokens, copies) for a in node.args)
    if isinstance(node, ast.IfExp):  # k if full_window else residue
        return _a_multiple(node.body, tokens, copies) or _a_multiple(node.orelse, tokens, copies)
    if copies or not isinstance(node, ast.BinOp):
        return False
    if isinstance(node.op, (ast.Mult, ast.Add, ast.Sub)):
        return _a_multiple(node.left, tokens) or _a_multiple(node.right, tokens)
    if isinstance(node.op, (ast.Div, ast.FloorDiv)):
        return _a_multiple(node.left, tokens)  # k / 2 still grows with k; n / k does not
    return False


def _parameters_given(
    function: ast.FunctionDef | ast.AsyncFunctionDef,
    call: ast.Call,
    tokens: set[str],
    copies: bool = False,
) -> set[str]:
    """The parameters of ``function`` that ``call`` passes k to."""
    params = [a.arg for a in (*function.args.posonlyargs, *function.args.args)]
    if params and params[0] in {"self", "cls"} and isinstance(call.func, ast.Attribute):
        params = params[1:]
    given = {
        params[i]
        for i, arg in enumerate(call.args)
        if i < len(params) and not isinstance(arg, ast.Starred) and _a_multiple(arg, tokens, copies)
    }
    return given | {
        kw.arg
        for kw in call.keywords
        if kw.arg is not None and _a_multiple(kw.value, tokens, copies)
    }


def _called_name(call: ast.Call) -> str:
    """``format`` of ``"{}".format(k)``, ``Train`` of ``Train(...)``."""
    if isinstance(call.func, ast.Attribute):
        return call.func.attr
    return last_part(dotted(call.func) or "")


def _logged_numbers(nodes: list[ast.AST]) -> set[str]:
    """Names that only ever add up Python numbers for a log line: ``train_loss +=
    loss.item()``; dividing one by k is an average for printing, not loss scaling."""
    numbers: set[str] = set()
    tensors: set[str] = set()
    for node in nodes:
        if isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Add):
            name = dotted(node.target)
            if name:
                (numbers if _a_python_number(node.value) else tensors).add(name)
    return numbers - tensors


def _running_totals(nodes: list[ast.AST]) -> set[str]:
    """Names that add up losses (``avg_loss += loss``) and that no backward() reads:
    ``avg_loss /= k`` after the step averages them for the log, it scales no gradient."""
    summed = {
        dotted(n.target)
        for n in nodes
        if isinstance(n, ast.AugAssign) and isinstance(n.op, ast.Add) and dotted(n.target)
    }
    backpropagated: set[str] = set()
    for node in nodes:
        if isinstance(node, ast.Call) and _called_name(node) == "backward":
            read = [*node.args, *(kw.value for kw in node.keywords)]
            if isinstance(node.func, ast.Attribute):
                read.append(node.func.value)  # loss.backward(), scaler.scale(loss).backward()
            backpropagated |= {dotted(n) for part in read for n in walk(part)} - {None}
    return summed - backpropagated  # type: ignore[return-value]


def _a_python_number(node: ast.expr) -> bool:
    calls = [n for n in walk(node) if isinstance(n, ast.Call)]
    return any(_called_name(c) in {"item", "float"} for c in calls) or isinstance(
        node, ast.Constant
    )


_HARMLESS_CALLS = {"range", "print", "format", "int", "float", "str", "len", "max", "min",
                   "info", "debug", "warning", "log", "add_scalar", "write", "append"}  # fmt: skip


def mentions(node: ast.AST, tokens: set[str]) -> bool:
    return any(
        isinstance(n, (ast.Name, ast.Attribute)) and last_part(dotted(n) or "") in tokens
        for n in walk(node)
    )


def _a_count(node: ast.expr, logged: set[str] = frozenset()) -> bool:  # type: ignore[assignment]
    """A number of steps or samples (``len(loader)``, ``1.0 * total_steps``), or a number
    the file only adds up for logging."""
    if isinstance(node, ast.Call) and dotted(node.func) == "len":
        return True
    if isinstance(node, ast.BinOp):  # 1.0 * len(dataset), not loss * batch_size
        sides = (node.left, node.right)
        numeric = [isinstance(n, ast.Constant) or _a_count(n, logged) for n in sides]
        return all(numeric) and not all(isinstance(n, ast.Constant) for n in sides)
    if dotted(node) in logged:
        return True
    name = last_part(dotted(node) or "").lower()
    if "loss" in name:
        return False  # total_loss /= k: the loss, scaled
    return any(word in name for word in _COUNT_WORDS)
