"""Small helpers over the stdlib ``ast`` module: dotted names and import resolution."""

from __future__ import annotations

import ast

# Conventional aliases used when a script forgot (or hid) its import; resolving them keeps
# snippets such as ``F.softmax`` recognisable without guessing anything more exotic.
DEFAULT_ALIASES = {"F": "torch.nn.functional", "nn": "torch.nn", "optim": "torch.optim"}


_UNSET = object()


def dotted(node: ast.AST | None) -> str | None:
    """Return ``a.b.c`` for a Name/Attribute chain, else ``None`` (kept on the node: the
    rules ask for the same callee's name many times; the doctor never changes a tree it
    analyses)."""
    if not isinstance(node, ast.AST):
        return None
    found = node.__dict__.get("_tw_dotted", _UNSET)
    if found is _UNSET:
        found = node._tw_dotted = _dotted(node)  # type: ignore[attr-defined]
    return found  # type: ignore[return-value]


def _dotted(node: ast.AST) -> str | None:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


def last_part(name: str | None) -> str:
    """Last component of a dotted name (``""`` for ``None``)."""
    return name.rsplit(".", 1)[-1] if name else ""


def keyword(call: ast.Call, name: str) -> ast.expr | None:
    """The value passed as keyword ``name`` to ``call``, if any."""
    for kw in call.keywords:
        if kw.arg == name:
            return kw.value
    return None


def has_star_kwargs(call: ast.Call) -> bool:
    """True when the call forwards ``**kwargs`` (so any keyword may be hidden in it)."""
    return any(kw.arg is None for kw in call.keywords)


def argument(call: ast.Call, index: int, name: str) -> ast.expr | None:
    """Positional argument ``index`` or keyword ``name`` of ``call``."""
    if len(call.args) > index and not any(isinstance(a, ast.Starred) for a in call.args[:index]):
        arg = call.args[index]
        return None if isinstance(arg, ast.Starred) else arg
    return keyword(call, name)


def walk(node: ast.AST) -> list[ast.AST]:
    """``ast.walk(node)`` as a list, kept on the node: the rules ask the same scopes and
    statements again and again, and the doctor never changes a tree it has parsed."""
    nodes = node.__dict__.get("_tw_walk")
    if nodes is None:
        nodes = list(ast.walk(node))
        node._tw_walk = nodes
    return nodes


def names_in(node: ast.AST | None) -> set[str]:
    """All identifiers and attribute names mentioned in an expression."""
    found: set[str] = set()
    if node is None:
        return found
    for sub in walk(node):
        if isinstance(sub, ast.Name):
            found.add(sub.id)
        elif isinstance(sub, ast.Attribute):
            found.add(sub.attr)
    return found


def closure(seed: set[str], flows: list[tuple[set[str], set[str]]], rounds: int = 4) -> set[str]:
    """``seed`` grown by each flow (targets, sources) whose targets it meets: the names whose
    values reach the seed's (bounded, like the scopes it runs over)."""
    reached = set(seed)
    for _ in range(rounds):
        before = len(reached)
        for targets, sources in flows:
            if targets & reached:
                reached |= sources
        if len(reached) == before:
            break
    return reached


def is_terminal(stmt: ast.stmt) -> bool:
    """Statements after which control never reaches the next statement of the block."""
    return isinstance(stmt, (ast.Return, ast.Raise, ast.Continue, ast.Break))


def block_terminates(body: list[ast.stmt]) -> bool:
    """A block whose last statement leaves it (``continue``, ``return`` ...)."""
    return bool(body) and is_terminal(body[-1])


class Imports:
    """Maps local names to canonical dotted paths from the file's import statements."""

    def __init__(self, nodes: list[ast.AST]) -> None:
        self.names: dict[str, str] = {}
        # classes and functions the file defines: ``class F(nn.Module)`` is no torch alias
        self.defined: set[str] = set()
        for node in nodes:
            if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                self.defined.add(node.name)
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname:
                        self.names[alias.asname] = alias.name
                    else:
                        root = alias.name.split(".")[0]
                        self.names[root] = root
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                for alias in node.names:
                    if alias.name != "*":
                        self.names[alias.asname or alias.name] = f"{node.module}.{alias.name}"

    def resolve(self, node: ast.AST | None) -> str | None:
        """Canonical dotted name of ``node`` (``F.softmax`` -> ``torch.nn.functional.softmax``)."""
        name = dotted(node)
        if name is None:
            return None
        head, _, rest = name.partition(".")
        default = DEFAULT_ALIASES.get(head) if head not in self.defined else None
        base = self.names.get(head) or default
        if base is None:
            return name
        return f"{base}.{rest}" if rest else base

    def is_imported(self, node: ast.AST | None) -> bool:
        """True when the root of the dotted name came from an import."""
        name = dotted(node)
        return bool(name) and name.partition(".")[0] in self.names
