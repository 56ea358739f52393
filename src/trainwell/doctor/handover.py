"""Functions a script hands to another thread or process, which run with autograd on.

Grad mode is thread-local: ``with torch.no_grad():`` around ``Process(target=evaluate)``
does not reach ``evaluate``, and neither does the caller's mode reach a pool worker, a
``mp.spawn`` worker or a Ray actor.  Each starts with autograd on.  A hand-over is read as
the call the new thread or process makes, with the arguments the script gives it as far as
they are in sight, made with autograd on whatever the caller's mode; the analysis resolves
that call as it resolves any other (a function of this file, or of another file of the
project, where its TW012 finding then stands at the hand-over).
"""

from __future__ import annotations

import ast
import re

from ._astutil import argument, dotted, keyword, last_part

_THREADS = {"Process", "Thread"}  # Process(target=f, args=(...), kwargs={...})
_SPAWNERS = {"spawn", "start_processes"}  # mp.spawn(f, args=(...)): f(rank, *args)
# pool.map(f, xs), executor.submit(f, *args), pool.apply_async(f, args=(...))
_ONE_ELEMENT = {"map", "imap", "imap_unordered", "map_async"}
_ELEMENTS_UNSEEN = {"starmap", "starmap_async"}
_APPLY = {"apply", "apply_async"}
_POOLS = re.compile(r"pool|executor|^(p|ex|exe|executer)$", re.I)


def handed_over(call: ast.Call, qual: str | None) -> ast.Call | None:
    """The call a new thread or process makes of the function ``call`` hands to it, or
    ``None`` when ``call`` hands nothing over.  Its arguments the script cannot see (an
    element of the mapped iterable, a spawned worker's rank) are ``None`` constants."""
    name = last_part(qual or dotted(call.func))
    receiver = dotted(call.func.value) if isinstance(call.func, ast.Attribute) else None
    made: tuple[ast.expr | None, list[ast.expr], list[ast.keyword]] | None = None
    if name in _THREADS:
        made = (
            keyword(call, "target"),
            _elements(keyword(call, "args")),
            _named(keyword(call, "kwargs")),
        )
    elif name in _SPAWNERS and ("multiprocessing" in (qual or "") or receiver in {"mp", "xmp"}):
        made = argument(call, 0, "fn"), [_unseen(), *_elements(argument(call, 1, "args"))], []
    elif receiver is not None and _POOLS.search(receiver.rpartition(".")[2]):
        made = _pool_call(call, name)
    if made is None or made[0] is None:
        return None
    target, args, keywords = _unwrapped(*made)
    if target is None:
        return None
    return ast.copy_location(ast.Call(func=target, args=args, keywords=keywords), call)


def mapped_here(call: ast.Call, qual: str | None) -> ast.Lambda | ast.Call | None:
    """``map(f, xs)`` / ``filter(f, xs)``: ``f`` runs here, in this thread, once per element
    when the result is consumed (``list(map(...))``). The lambda handed (its body runs with
    its parameters unknown), or a call of the function handed with unseen arguments."""
    if qual not in {"map", "filter"} or len(call.args) < 2:
        return None
    func = call.args[0]
    if isinstance(func, ast.Lambda):
        return func
    if not isinstance(func, (ast.Name, ast.Attribute)):
        return None
    return ast.copy_location(ast.Call(func, [_unseen() for _ in call.args[1:]], []), call)


def remote_functions(tree: ast.Module) -> set[ast.AST]:
    """Functions run by Ray in a worker or actor process (``@ray.remote`` on the function,
    or on the class whose methods they are): called through ``.remote()``, from this file
    or another, each runs with autograd on."""
    found: set[ast.AST] = set()
    for node in tree.body:
        if not _ray_remote(node):
            continue
        if isinstance(node, ast.ClassDef):
            found |= {
                s for s in node.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))
            }
        else:
            found.add(node)
    return found


def _ray_remote(node: ast.stmt) -> bool:
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return False
    return any(
        dotted(d.func if isinstance(d, ast.Call) else d) == "ray.remote"
        for d in node.decorator_list
    )


def _pool_call(
    call: ast.Call, method: str
) -> tuple[ast.expr | None, list[ast.expr], list[ast.keyword]] | None:
    func = argument(call, 0, "func") or argument(call, 0, "fn")
    if method in _ONE_ELEMENT:
        return func, [_unseen()], []
    if method in _ELEMENTS_UNSEEN:
        return func, [], []
    if method in _APPLY:
        return func, _elements(argument(call, 1, "args")), _named(argument(call, 2, "kwds"))
    if method == "submit":
        return call.args[0] if call.args else None, list(call.args[1:]), list(call.keywords)
    return None


def _unwrapped(
    target: ast.expr, args: list[ast.expr], keywords: list[ast.keyword]
) -> tuple[ast.expr | None, list[ast.expr], list[ast.keyword]]:
    """``partial(evaluate, model, loader=dl)`` handed over: ``evaluate`` is called with
    the partial's arguments first."""
    while isinstance(target, ast.Call) and last_part(dotted(target.func)) == "partial":
        if not target.args:
            return None, args, keywords
        target, args, keywords = (
            target.args[0],
            [*target.args[1:], *args],
            [*target.keywords, *keywords],
        )
    if isinstance(target, (ast.Lambda, ast.Call)):
        return None, args, keywords  # what a lambda runs is not a function of the file
    return target, args, keywords


def _elements(node: ast.expr | None) -> list[ast.expr]:
    """``args=(opt, model)``: the arguments; anything else passes what cannot be seen."""
    if isinstance(node, (ast.Tuple, ast.List)) and not any(
        isinstance(e, ast.Starred) for e in node.elts
    ):
        return list(node.elts)
    return []


def _named(node: ast.expr | None) -> list[ast.keyword]:
    if not isinstance(node, ast.Dict):
        return []
    return [
        ast.keyword(arg=k.value, value=v)
        for k, v in zip(node.keys, node.values, strict=True)
        if isinstance(k, ast.Constant) and isinstance(k.value, str)
    ]


def _unseen() -> ast.expr:
    return ast.Constant(value=None)
