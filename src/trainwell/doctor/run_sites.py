"""How a file's functions are run, and which of their forwards a call reaches.

No call in sight does not mean never run: the command line runs ``fire.Fire()`` targets and
``@click.command()`` functions, a framework runs the callbacks handed to it.  And a call
does not reach every forward of its callee: the literal it passes may return first
(``generate(netG, reconstruct=True)``), a ``try`` under no_grad may retry with autograd on
in its ``except`` on purpose.  :class:`~.analysis.FileAnalysis` asks these questions when it
decides which TW012 candidates stand.
"""

from __future__ import annotations

import ast
import re

from ._astutil import Imports, dotted, last_part, names_in, walk
from .events import RawFinding


def callbacks_of(nodes: list[ast.AST], functions: dict[str, ast.AST]) -> set[str]:
    """Functions handed to a call as callbacks (``fit(net, on_save_callback=plot_model)``,
    or positionally to a function of this file whose parameter is one)."""
    found: set[str] = set()
    for node in nodes:
        if not isinstance(node, ast.Call):
            continue
        passed = [(kw.arg or "", kw.value) for kw in node.keywords]
        callee = functions.get(node.func.id) if isinstance(node.func, ast.Name) else None
        if isinstance(callee, (ast.FunctionDef, ast.AsyncFunctionDef)):
            params = [a.arg for a in [*callee.args.posonlyargs, *callee.args.args]]
            passed += list(zip(params, node.args, strict=False))
        for name, value in passed:
            if isinstance(value, ast.Name) and _CALLBACK.search(name):
                found.add(value.id)
    return found


_CALLBACK = re.compile(r"callback|hook", re.I)


_CLI_DECORATORS = {"command", "main", "callback"}  # click.command, app.command, hydra.main


def entry_points_of(
    tree: ast.Module, functions: dict[str, ast.AST], imports: Imports
) -> set[ast.AST]:
    """Functions the command line runs without a call in sight: ``fire.Fire()`` (every
    function), ``fire.Fire(main)`` or ``fire.Fire({"train": train})``, ``@click.command()``,
    ``@app.command()``, ``@hydra.main(...)``."""
    found: set[ast.AST] = set()
    for node in walk(tree):
        if isinstance(node, ast.Call) and last_part(imports.resolve(node.func)) == "Fire":
            if not node.args:
                found |= set(functions.values())
            for arg in node.args:
                values = arg.values if isinstance(arg, ast.Dict) else [arg]
                found |= {
                    functions[v.id] for v in values if isinstance(v, ast.Name) and v.id in functions
                }
    for func in functions.values():
        for deco in func.decorator_list:  # type: ignore[attr-defined]
            target = deco.func if isinstance(deco, ast.Call) else deco
            if last_part(dotted(target)) in _CLI_DECORATORS and isinstance(target, ast.Attribute):
                found.add(func)
    return found


# what a gradio app runs a function of the file for: an Interface's fn, a component's event
_GRADIO_APPS = {"Interface", "ChatInterface", "TabbedInterface"}
_GRADIO_EVENTS = {
    "click", "change", "submit", "upload", "select", "input", "load", "release", "clear",
}  # fmt: skip


def gradio_handlers(
    tree: ast.Module, functions: dict[str, ast.AST], imports: Imports
) -> set[ast.AST]:
    """Functions of the file a gradio app runs (``gr.Interface(fn=predict)``,
    ``button.click(predict, inputs, outputs)``): gradio calls them from its worker threads,
    where autograd is on; no call in the file shows it."""
    if "gradio" not in _imported_packages(tree):
        return set()
    found: set[ast.AST] = set()
    for node in walk(tree):
        if not isinstance(node, ast.Call):
            continue
        name = imports.resolve(node.func) or dotted(node.func) or ""
        app = name.startswith("gradio.") and last_part(name) in _GRADIO_APPS
        event = isinstance(node.func, ast.Attribute) and node.func.attr in _GRADIO_EVENTS
        if not (app or event):
            continue
        handed = [*node.args[:1], *(kw.value for kw in node.keywords if kw.arg == "fn")]
        found |= {functions[v.id] for v in handed if isinstance(v, ast.Name) and v.id in functions}
    return found


# Hooks Lightning runs inside its fit loop, with autograd on (the training loop does not
# turn it off; the validation, test and predict loops do, so their hooks are not here).
_GRAD_ON_HOOKS = {
    "on_fit_start", "on_fit_end", "on_train_start", "on_train_end",
    "on_train_epoch_start", "on_train_epoch_end", "on_epoch_start", "on_epoch_end",
    "on_train_batch_start", "on_train_batch_end", "on_batch_start", "on_batch_end",
    "training_epoch_end",
}  # fmt: skip


def lightning_hooks(tree: ast.Module, imports: Imports) -> set[ast.AST]:
    """Methods of a ``LightningModule`` or a Lightning ``Callback`` that the Trainer calls
    during training (``on_train_epoch_end``, the older ``on_epoch_end``): no call in the file
    runs them, and they run with autograd on."""
    classes = [n for n in walk(tree) if isinstance(n, ast.ClassDef)]
    hooked: set[str] = set()
    for _ in range(3):  # a subclass of this file's LightningModule is one too
        for cls in classes:
            if any(_a_lightning_base(b, imports) or dotted(b) in hooked for b in cls.bases):
                hooked.add(cls.name)
    if _imports_lightning(tree):
        # class SimpleTarget(TransferLearningTarget): a project's LightningModule subclassed
        # in a file that imports Lightning; its hooks are the Trainer's to call
        hooked |= {cls.name for cls in classes if cls.bases and not _torch_bases(cls, imports)}
    return {
        method
        for cls in classes
        if cls.name in hooked
        for method in cls.body
        if isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef))
        and method.name in _GRAD_ON_HOOKS
    }


def _imports_lightning(tree: ast.Module) -> bool:
    return bool(_imported_packages(tree) & {"pytorch_lightning", "lightning"})


def _imported_packages(tree: ast.Module) -> set[str]:
    """The top-level packages the module imports at its top level."""
    return {
        (alias.name if isinstance(node, ast.Import) else node.module or "").split(".")[0]
        for node in tree.body
        if isinstance(node, (ast.Import, ast.ImportFrom))
        for alias in node.names
    }


def _torch_bases(cls: ast.ClassDef, imports: Imports) -> bool:
    """A base of the class is torch's or a library's (``nn.Module``, ``Dataset``): not a
    Lightning class of the project."""
    roots = {(imports.resolve(b) or dotted(b) or "").split(".")[0] for b in cls.bases}
    return bool(roots & {"torch", "torchvision", "torch_geometric", "transformers", ""})


def _a_lightning_base(base: ast.expr, imports: Imports) -> bool:
    name = imports.resolve(base) or ""
    if not name.startswith(("pytorch_lightning.", "lightning.")):
        return False
    return last_part(name) in {"LightningModule", "Callback"}


def node_at(func: ast.AST, finding: RawFinding) -> ast.AST | None:
    """The call of ``func`` the finding stands at (its forward pass), if it is there."""
    if finding.path is not None:
        return None
    return next(
        (
            n
            for n in walk(func)
            if isinstance(n, ast.Call)
            and n.lineno == finding.line
            and n.col_offset + 1 == finding.col
        ),
        None,
    )


def a_fallback_with_grad(func: ast.AST, finding: RawFinding) -> bool:
    """The forward is the ``except`` fallback of a ``try`` that first runs under no_grad:
    the author retries with autograd on because the model needs it (a VAE whose forward
    takes input gradients)."""
    forward = node_at(func, finding)
    if forward is None:
        return False
    for node in walk(func):
        if not isinstance(node, ast.Try) or not any(_surely_no_grad_block(s) for s in node.body):
            continue
        if any(forward in walk(handler) for handler in node.handlers):
            return True
    return False


def _surely_no_grad_block(stmt: ast.stmt) -> bool:
    return isinstance(stmt, (ast.With, ast.AsyncWith)) and any(
        last_part(dotted(item.context_expr.func)) in {"no_grad", "inference_mode"}
        for item in stmt.items
        if isinstance(item.context_expr, ast.Call)
    )


def grad_off_for_good(nodes: list[ast.AST]) -> bool:
    """The file turns autograd off for the thread (``torch.set_grad_enabled(False)`` as a
    statement, an inference script's set-up) and nothing turns it on again."""
    off = False
    for node in nodes:
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            call = node.value
            if last_part(dotted(call.func)) == "set_grad_enabled" and len(call.args) == 1:
                flag = call.args[0]
                off = off or (isinstance(flag, ast.Constant) and flag.value is False)
        if isinstance(node, ast.Call) and last_part(dotted(node.func)) in {
            "enable_grad",
            "backward",
        }:
            return False
        if isinstance(node, ast.Call) and last_part(dotted(node.func)) == "set_grad_enabled":
            flag = node.args[0] if node.args else None
            if not (isinstance(flag, ast.Constant) and flag.value is False):
                return False  # set_grad_enabled(True) or (phase == "train") somewhere
    return off


def dormant_function(
    func: ast.AST | None, functions: dict[str, ast.AST], read: set[str], entry_points: set
) -> bool:
    """A plain module-level function, undecorated, not an entry point, whose name nothing in
    the file reads: with no call of it here either, only other files run it."""
    if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)) or func.decorator_list:
        return False
    return functions.get(func.name) is func and func.name not in read and func not in entry_points


def names_read(nodes: list[ast.AST]) -> set[str]:
    """Every name the file reads (a function handed on: ``Thread(target=worker)``)."""
    return {n.id for n in nodes if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def trains_by_a_parameter(func: ast.AST, training_sites: list[ast.AST]) -> bool:
    """A call of ``func`` that trains sits under an if testing one of its parameters
    (``if train:``; not ``if args.is_per: agent.increase_beta(t)``)."""
    if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return True
    params = {a.arg for a in (*func.args.args, *func.args.kwonlyargs)} - {"self"}
    sites = {id(n) for n in training_sites}
    return any(
        isinstance(node, ast.If)
        and names_in(node.test) & params
        and any(id(n) in sites for stmt in (*node.body, *node.orelse) for n in walk(stmt))
        for node in walk(func)
    )


def dispatched_under_no_grad(tree: ast.Module) -> set[str]:
    """Functions of a dict of commands (``COMMANDS = {"eval": evaluate_prior, ...}``) that
    the file runs only through ``COMMANDS[args.command](args)`` inside ``with
    torch.no_grad():`` (or a function decorated with it): each runs under no_grad."""
    tables = {
        target.id: [v.id for v in node.value.values if isinstance(v, ast.Name)]
        for node in tree.body
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Dict)
        for target in node.targets
        if isinstance(target, ast.Name)
    }
    if not tables:
        return set()
    dispatches: dict[str, list[bool]] = {}
    _dispatches_in(tree, tables, False, dispatches)
    return {
        name
        for table, under in dispatches.items()
        if under and all(under)
        for name in tables[table]
    }


def _dispatches_in(node: ast.AST, tables: dict, off: bool, found: dict[str, list[bool]]) -> None:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        off = off or any(_turns_grad_off(d) for d in node.decorator_list)
    elif isinstance(node, (ast.With, ast.AsyncWith)):
        off = off or any(_turns_grad_off(item.context_expr) for item in node.items)
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Subscript):
        table = node.func.value
        if isinstance(table, ast.Name) and table.id in tables:
            found.setdefault(table.id, []).append(off)
    for child in ast.iter_child_nodes(node):
        _dispatches_in(child, tables, off, found)


def _turns_grad_off(expr: ast.expr) -> bool:
    func = expr.func if isinstance(expr, ast.Call) else expr
    return last_part(dotted(func) or "") in {"no_grad", "inference_mode"}
