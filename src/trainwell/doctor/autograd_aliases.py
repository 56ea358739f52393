"""Another name for ``torch.no_grad`` / ``torch.inference_mode``, read as the switch itself.

``nograd = torch.no_grad`` or sktime's ``torchNo_grad = _safe_import("torch.no_grad")``,
then ``with torchNo_grad():``: the block runs without autograd all the same. A name bound
once in the file, and only to such a switch (the object, or a lookup by its dotted name),
is rewritten where it is called to ``torch.no_grad`` (or ``torch.inference_mode``), so that
every rule reads it as the call it stands for.
"""

from __future__ import annotations

import ast
import re

from ._astutil import dotted, last_part

_SWITCHES = {"no_grad", "inference_mode"}
_DOTTED_SWITCH = re.compile(r"^torch(\.autograd)?(\.grad_mode)?\.(no_grad|inference_mode)$")


def resolve_autograd_aliases(tree: ast.Module) -> None:
    """Rewrite, in place, the calls of names that stand for an autograd switch."""
    bound: dict[str, list[str | None]] = {}  # name -> what each binding makes it
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    bound.setdefault(target.id, []).append(_switch_of(node.value))
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)) and isinstance(node.target, ast.Name):
            bound.setdefault(node.target.id, []).append(None)
    aliases = {
        name: kinds[0]
        for name, kinds in bound.items()
        if len(kinds) == 1 and kinds[0] is not None and name not in _SWITCHES
    }
    if not aliases:
        return
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            switch = aliases.get(node.func.id)
            if switch is not None:
                torch = ast.copy_location(ast.Name("torch", ast.Load()), node.func)
                node.func = ast.copy_location(ast.Attribute(torch, switch, ast.Load()), node.func)


def _switch_of(value: ast.expr) -> str | None:
    """``torch.no_grad`` (not called), or a lookup of it by name: which switch, if one."""
    if isinstance(value, ast.Attribute) and (dotted(value) or "").startswith("torch."):
        name = last_part(dotted(value))
        return name if name in _SWITCHES else None
    if isinstance(value, ast.Call) and len(value.args) == 1 and not value.keywords:
        arg = value.args[0]
        if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
            found = _DOTTED_SWITCH.match(arg.value)
            return found.group(3) if found else None
    return None
