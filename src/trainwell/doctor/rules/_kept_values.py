"""What a scope keeps with its graph: the names an expression keeps uncut, and the
parameters a method keeps in attributes of its object (a running meter, a history)."""

from __future__ import annotations

import ast
import re
from typing import TYPE_CHECKING

from .. import values as V
from .._astutil import dotted, walk
from ..class_facts import runs_forward
from ..events import BACKWARD, FORWARD, Event

if TYPE_CHECKING:
    from ..analysis import ScopeWalker

# Calls and attributes that turn a tensor into numbers or cut it from its graph.
_CUTTING_METHODS = {"item", "detach", "tolist", "numpy", "detach_"}
_CUTTING_FUNCTIONS = {"float", "int"}


def uncut_names(expr: ast.AST) -> set[str]:
    """The names (and dotted names) in ``expr`` whose values it keeps with their graphs:
    not those read through ``.item()``, ``.detach()``, ``.data``, ``float(...)``."""
    found: set[str] = set()
    stack = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr in _CUTTING_METHODS:
                continue
            if isinstance(func, ast.Name) and func.id in _CUTTING_FUNCTIONS:
                continue
        if isinstance(node, ast.Attribute) and node.attr == "data":
            continue
        name = dotted(node) if isinstance(node, (ast.Name, ast.Attribute)) else None
        if name:
            found.add(name)
        stack.extend(ast.iter_child_nodes(node))
    return found


def kept_in_attributes(w: ScopeWalker) -> frozenset[str]:
    """Parameters of a method that it adds to, or appends to, an attribute of ``self``
    without reading them as numbers (``self.sum += val * n``, ``self.history.append(x)``);
    a parameter it rebinds first (``val = val.item()``) is not."""
    if w.func is None or w.cls is None:
        return frozenset()
    extra = [a.arg for a in (w.func.args.vararg, w.func.args.kwarg) if a is not None]
    params = set(w.params) | set(extra)
    rebound = {
        dotted(t)
        for n in walk(w.func)
        if isinstance(n, ast.Assign)
        for t in n.targets
        if isinstance(t, ast.Name)
    }
    kept: set[str] = set()
    for node in walk(w.func):
        if isinstance(node, ast.AugAssign) and _on_self(node.target):
            kept |= uncut_names(node.value)
        elif (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and _on_self(node.targets[0])
            and dotted(node.targets[0]) in uncut_names(node.value)
        ):
            kept |= uncut_names(node.value)  # self.v = (self.v * self.n + x) / (self.n + 1)
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in {"append", "extend"}
            and _on_self(node.func.value)
        ):
            for arg in node.args:
                kept |= uncut_names(arg)
    return frozenset((kept & params) - rebound)


def _on_self(node: ast.AST) -> bool:
    """``self.x`` or ``self.x[k]``."""
    while isinstance(node, ast.Subscript):
        node = node.value
    return isinstance(node, ast.Attribute) and (dotted(node) or "").startswith("self.")


# nn.Module's own API: reading or moving the module, not what its forward computed
_MODULE_API = V.MODULE_SELF_METHODS | {
    "parameters", "named_parameters", "state_dict", "load_state_dict", "zero_grad",
    "modules", "named_modules", "children", "named_children", "buffers", "register_buffer",
}  # fmt: skip


# methods that run the model anew rather than read what its last forward kept
_RUNS_AGAIN = re.compile(r"predict|sample|generat|infer|evaluat|test|decod|encod|act$|step$")


def read_back_by_a_method(w: ScopeWalker, forward: Event) -> bool:
    """``dist = policy(obs)`` for a logged entropy, then ``logp = policy.log_prob(act)``
    for the loss: a stateful model keeps what its forward computed for the method that
    follows (omnisafe's actors cache their distribution), so that forward's graph reaches
    the loss the scope returns or backpropagates."""
    if forward.kind != FORWARD or not forward.receiver:
        return False
    later = [e for e in w.events if e.seq > forward.seq]
    reads = any(
        isinstance(e.node, ast.Call)
        and isinstance(e.node.func, ast.Attribute)
        and dotted(e.node.func.value) == forward.receiver
        and e.node.func.attr not in _MODULE_API
        and not runs_forward(e.node.func.attr)
        and not _RUNS_AGAIN.match(e.node.func.attr)
        and not e.no_grad  # (model.predict(x) for a logged image: a run of its own)
        # (policy.kl_divergence(policy(x), old): handed the output, it reads no kept state)
        and not any(n is forward.node for a in e.node.args for n in walk(a))
        for e in later
    )
    trains = any(e.kind == BACKWARD for e in later) or bool(w.returns)
    return reads and trains
