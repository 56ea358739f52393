"""What kind of loop a ``for`` or ``while`` is: over batches, epochs, micro-batches or
anything else, and the small readings of its header (enumerate, wrappers, containers)."""

from __future__ import annotations

import ast

from ._astutil import dotted, last_part, names_in
from .call_effects import ITER_WRAPPERS

MICRO_BATCH_WORDS = ("accum", "micro", "virtual")


def loop_kind(node: ast.For | ast.AsyncFor, is_loader: bool) -> str:
    """ "batch" over a loader (or pulling from one each pass), "epoch" by its names,
    "micro" for accumulation micro-batches, else "other"."""
    if is_loader or draws_a_batch_each_pass(node):
        return "batch"
    words = {w.lower() for w in names_in(node.target) | names_in(node.iter)}
    if any("epoch" in w for w in words):
        return "epoch"
    if any(part in w for w in words for part in MICRO_BATCH_WORDS):
        return "micro"
    return "other"


_NOT_DATA = {"parameters", "named_parameters", "buffers", "children", "modules"}


def draws_a_batch_each_pass(loop: ast.For | ast.AsyncFor | ast.While) -> bool:
    """``for _ in range(100): src, tgt = test_data.next()``, ``x, y = next(it)``: a loop
    that is not over a loader but pulls the next batch from one at the top of each pass."""
    for stmt in loop.body:
        if isinstance(stmt, ast.Try):  # try: batch = next(it) except StopIteration: ...
            drawn = [s.value for s in stmt.body if isinstance(s, ast.Assign)]
        elif isinstance(stmt, ast.Assign | ast.AnnAssign) and stmt.value is not None:
            drawn = [stmt.value]
        else:
            continue
        if any(_next_of_a_stream(value) for value in drawn):
            return True
    return False


def _next_of_a_stream(node: ast.expr) -> bool:
    if not isinstance(node, ast.Call):
        return False
    if isinstance(node.func, ast.Name) and node.func.id == "next" and node.args:
        source = node.args[0]
        if isinstance(source, ast.Call):
            inner = source.args[0] if dotted(source.func) == "iter" and source.args else source
            if isinstance(inner, ast.Call) and last_part(dotted(inner.func) or "") in _NOT_DATA:
                return False  # next(model.parameters()).device
        return True
    return (
        isinstance(node.func, ast.Attribute)
        and node.func.attr in {"next", "__next__"}
        and not node.args
    )


def unwrap_iter(node: ast.expr) -> ast.expr:
    """``enumerate(tqdm(loader))`` -> ``loader``."""
    while (
        isinstance(node, ast.Call) and last_part(dotted(node.func)) in ITER_WRAPPERS and node.args
    ):
        node = node.args[0]
    return node


def module_container(node: ast.expr) -> ast.expr | None:
    """``self.flows`` of ``reversed(self.flows)``, ``self.flows[::-1]``,
    ``enumerate(self.layers)``, ``self.blocks.values()``."""
    while True:
        if (
            isinstance(node, ast.Call)
            and node.args
            and dotted(node.func) in {"reversed", "enumerate"}
        ):
            node = node.args[0]
        elif isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice):
            node = node.value
        elif isinstance(node, ast.Call) and not node.args and isinstance(node.func, ast.Attribute):
            if node.func.attr != "values":
                return None
            node = node.func.value
        else:
            break
    return node if isinstance(node, (ast.Name, ast.Attribute)) else None


def enumerate_like(node: ast.expr) -> bool:
    return isinstance(node, ast.Call) and last_part(dotted(node.func)) == "enumerate"
