"""The folders a script puts on ``sys.path`` before it imports the project's own modules.

Research code often reaches its modules through ``sys.path.append("../semi-supervised")``
or ``sys.path.append(os.path.join(BASE_DIR, "utils"))`` rather than through packages. What
such a call adds is read from the literal parts of its argument (nothing is executed): a
string, an f-string's text, ``os.path.join`` of strings and ``os.pardir``, through
``abspath``/``realpath``/``normpath``/``str``, and a name bound once to such an expression
(``root = os.path.join(os.path.dirname(__file__), "..", "..", ".."); sys.path.append(root)``).
Any other variable part (``BASE_DIR``, ``current_path``) is taken for the script's own
folder, the usual ``dirname(__file__)``; the relative folder it leads to is looked up from
the script's folder and, as a script is also run from the folders above it, from those. A
path of ``..`` alone climbs from the script's folder only, past what the import lookup tries.
"""

from __future__ import annotations

import ast
import os
from pathlib import Path

from ._astutil import dotted, last_part, walk

_WRAPPERS = {"abspath", "realpath", "normpath", "str", "expanduser"}
_JOINS = {"os.path.join", "osp.join", "path.join", "join"}


def script_path_folders(importer: Path, tree: ast.Module) -> list[Path]:
    """Existing folders (beyond the script's own folder and its parents) that ``tree``'s
    ``sys.path.append``/``insert`` calls add, nearest lookup first."""
    folders: list[Path] = []
    bound = _bound_once(tree)
    for node in walk(tree):
        relative = _added_folder(node, bound)
        if relative is None:
            continue
        climbs = all(part == ".." for part in relative.split(os.sep))
        for base in (
            [importer.parent] if climbs else [importer.parent, *list(importer.parents)[1:3]]
        ):
            folder = Path(os.path.normpath(base / relative))
            if folder.is_dir() and folder not in folders and folder != importer.parent:
                folders.append(folder)
    return folders


def _bound_once(tree: ast.Module) -> dict[str, ast.expr]:
    """The names the file binds exactly once, to their value."""
    values: dict[str, list[ast.expr]] = {}
    for node in walk(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name):
                values.setdefault(target.id, []).append(node.value)
    return {name: found[0] for name, found in values.items() if len(found) == 1}


def _added_folder(node: ast.AST, bound: dict[str, ast.expr]) -> str | None:
    """The relative folder of ``sys.path.append(x)`` / ``sys.path.insert(i, x)``, if its
    literal parts name one below some folder (``"src/"``, ``"../lib"``) or climb more than
    one folder (``"../../.."``); a bare ``"."`` or ``".."`` adds nothing the import lookup
    does not already try."""
    if not isinstance(node, ast.Call) or dotted(node.func) not in {
        "sys.path.append",
        "sys.path.insert",
    }:
        return None
    arg = node.args[-1] if node.args else None
    if arg is None or (dotted(node.func) == "sys.path.insert" and len(node.args) != 2):
        return None
    if isinstance(arg, ast.Name) and arg.id in bound:
        arg = bound[arg.id]  # root = os.path.join(dirname(__file__), "..", ".."); append(root)
    text = _literal_path(arg)
    if text is None or text.startswith("/") and not _has_variable_head(arg):
        return None  # an absolute folder of the author's machine
    relative = os.path.normpath(text.lstrip("/")) if text.strip("/") else ""
    parts = relative.split(os.sep)
    if not any(part not in {"", ".", ".."} for part in parts) and parts.count("..") < 2:
        return None
    return relative


def _literal_path(node: ast.expr) -> str | None:
    """The literal text of a path expression, a variable head dropped."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(
            v.value for v in node.values if isinstance(v, ast.Constant) and isinstance(v.value, str)
        )
    if isinstance(node, ast.Attribute) and node.attr == "pardir":
        return ".."
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _literal_path(node.left), _literal_path(node.right)
        if right is None:
            return None
        return (left or "") + right
    if isinstance(node, ast.Name):
        return ""  # BASE_DIR: the script's folder
    if not isinstance(node, ast.Call):
        return None
    name = dotted(node.func) or ""
    if last_part(name) in _WRAPPERS and len(node.args) == 1:
        return _literal_path(node.args[0])
    if name in _JOINS or name.endswith("path.join"):
        parts = [_literal_path(a) for a in node.args]
        if any(p is None for p in parts[1:]):
            return None
        return "/".join(p.strip("/") for p in parts if p)
    return "" if last_part(name) == "dirname" else None


def _has_variable_head(node: ast.expr) -> bool:
    """``f"{root}/lib"`` and ``ROOT + "/lib"``: the leading slash follows a folder."""
    if isinstance(node, ast.JoinedStr):
        return bool(node.values) and not isinstance(node.values[0], ast.Constant)
    if isinstance(node, ast.BinOp):
        return not isinstance(node.left, ast.Constant)
    return isinstance(node, ast.Call)
