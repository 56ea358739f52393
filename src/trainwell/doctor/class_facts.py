"""What a file's classes are, read from their source: an nn.Module (or a LightningModule),
the classes their methods build, the names a file treats as modules, and whether a class
takes input gradients (``torch.autograd.grad`` outside its training steps)."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

from ._astutil import Imports, dotted, last_part, walk


def is_module_base(base: ast.expr, imports: Imports, local_modules: set[str]) -> bool:
    name = imports.resolve(base) or ""
    tail = last_part(name)
    if tail in local_modules:
        return True
    if tail in {"Module", "LightningModule", "PreTrainedModel"}:
        return True
    # any nn layer class: ``class Layer(nn.Linear)`` is an nn.Module too
    return name.startswith("torch.nn.") and name.count(".") == 2 and tail[:1].isupper()


_MODULE_ONLY_METHODS = {
    "eval", "parameters", "named_parameters", "modules", "children", "named_modules",
    "requires_grad_",
}  # fmt: skip


def evident_models(nodes: list[ast.AST]) -> set[str]:
    """Names on which a method only an nn.Module has is called."""
    found: set[str] = set()
    for node in nodes:
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in _MODULE_ONLY_METHODS
            and not node.args
        ):
            name = dotted(node.func.value)
            if name:
                found.add(name)
    return found


def binds_self(func: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """The function has a ``self`` of its own (a parameter), not its enclosing method's."""
    args = func.args
    return any(a.arg in {"self", "cls"} for a in [*args.posonlyargs, *args.args, *args.kwonlyargs])


def classes_built(node: ast.ClassDef) -> set[str]:
    """Names of the classes its methods instantiate (``self.hnn = HNN(...)``)."""
    return {
        n.func.id
        for n in walk(node)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id[:1].isupper()
    }


def takes_input_gradients(node: ast.ClassDef) -> bool:
    """A method calls ``torch.autograd.grad`` (or ``autograd.grad``), unless only the class's
    training methods call it: a WGAN-GP's ``compute_gradient_penalty()``, called from its
    ``training_step()``, is part of the loss, and sampling from the model needs no autograd."""
    methods = {
        m.name: m for m in node.body if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))
    }
    if not any(_calls_autograd_grad(m) for m in methods.values()):
        return _calls_autograd_grad(node)  # (a class-level lambda, a nested class)
    return any(
        _calls_autograd_grad(method) and not _only_for_training(name, methods)
        for name, method in methods.items()
    )


def _calls_autograd_grad(node: ast.AST) -> bool:
    return any(
        isinstance(n, ast.Call)
        and isinstance(n.func, ast.Attribute)
        and n.func.attr == "grad"
        and dotted(n.func.value) in {"torch.autograd", "autograd"}
        for n in walk(node)
    )


def _only_for_training(name: str, methods: dict[str, ast.AST]) -> bool:
    """The method is called by the class's own methods, all of them training steps (one
    that runs backward() or is Lightning's ``training_step``), and is not the forward."""
    if name in {"forward", "__call__"}:
        return False
    callers = [
        other
        for other_name, other in methods.items()
        if other_name != name
        and any(
            isinstance(n, ast.Call)
            and isinstance(n.func, ast.Attribute)
            and n.func.attr == name
            and isinstance(n.func.value, ast.Name)
            and n.func.value.id == "self"
            for n in walk(other)
        )
    ]
    return bool(callers) and all(_a_training_method(c) for c in callers)


def _a_training_method(method: ast.AST) -> bool:
    if getattr(method, "name", "") == "training_step":
        return True
    return any(
        isinstance(n, ast.Call)
        and isinstance(n.func, ast.Attribute)
        and n.func.attr in {"backward", "manual_backward"}
        for n in walk(method)
    )


def requires_grad_settings(body: list[ast.stmt]) -> Iterator[tuple[int, str, bool]]:
    """(line, model, requires_grad) of each setting of a model's parameters in ``body``."""
    for node in walk(ast.Module(body=body, type_ignores=[])):
        if (
            isinstance(node, ast.For)
            and parameters_of(node.iter)
            and isinstance(node.target, ast.Name)
        ):
            for inner in walk(node):
                if (
                    isinstance(inner, ast.Assign)
                    and any(dotted(t) == f"{node.target.id}.requires_grad" for t in inner.targets)
                    and isinstance(inner.value, ast.Constant)
                    and isinstance(inner.value.value, bool)
                ):
                    yield inner.lineno, parameters_of(node.iter), inner.value.value
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "requires_grad_"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, bool)
            and dotted(node.func.value)
        ):
            yield node.lineno, dotted(node.func.value), node.args[0].value
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in {"freeze", "unfreeze"}
            and not node.args
            and not node.keywords
            and dotted(node.func.value)
        ):
            # a LightningModule's freeze(): every parameter frozen, and eval()
            yield node.lineno, dotted(node.func.value), node.func.attr == "unfreeze"


def parameters_of(it: ast.expr) -> str:
    """``netD`` of ``netD.parameters()`` (or ``named_parameters``); '' otherwise."""
    if (
        isinstance(it, ast.Call)
        and isinstance(it.func, ast.Attribute)
        and it.func.attr == "parameters"
    ):
        return dotted(it.func.value) or ""
    return ""


def no_grad_methods(node: ast.ClassDef) -> frozenset[str]:
    """The methods the class runs under ``@torch.no_grad()`` / ``@torch.inference_mode()``
    (``def predict(self, x)``), or whose whole body is one ``with torch.no_grad():`` block:
    a call of one records no graph, wherever it is made."""
    return frozenset(
        method.name
        for method in node.body
        if isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef))
        and (
            any(_no_grad_context(d) for d in method.decorator_list)
            or _whole_body_without_grad(method.body)
        )
    )


def _no_grad_context(node: ast.expr) -> bool:
    return last_part(dotted(node.func if isinstance(node, ast.Call) else node)) in _NO_GRAD


def _whole_body_without_grad(body: list[ast.stmt]) -> bool:
    """``def forward(self, x): with torch.no_grad(): ...`` (a docstring before it)."""
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    return (
        len(body) == 1
        and isinstance(body[0], ast.With)
        and any(_no_grad_context(item.context_expr) for item in body[0].items)
    )


_NO_GRAD = {"no_grad", "inference_mode"}


def subclasses_of(bases: dict[str, list[ast.expr]], name: str) -> list[str]:
    """The classes (of ``bases``: class -> its base expressions) deriving from class
    ``name``, directly or not."""
    found: list[str] = []
    frontier = [name]
    while frontier:
        base = frontier.pop()
        for cls, written in bases.items():
            derives = base in {last_part(dotted(b) or "") for b in written}
            if derives and cls not in found and cls != name:
                found.append(cls)
                frontier.append(cls)
    return found


def runs_own_layers(cls: ast.ClassDef | None, method: str) -> bool:
    """``flow.invert(z)``: the module class's own method ``method`` runs layers of the module
    picked by index (``self.m[i](x)``, which the walk of the method does not take for a
    forward; ``self.decoder(z)`` and ``self(x)`` it does) and neither trains nor turns
    autograd off (no ``with``, no no_grad decorator): calling it is a forward pass."""
    own = {m.name: m for m in (cls.body if cls else []) if isinstance(m, ast.FunctionDef)}
    if method not in own or own[method].decorator_list:
        return False
    runs = False
    for node in walk(own[method]):
        if isinstance(node, ast.With) or (
            isinstance(node, ast.Attribute) and node.attr in {"backward", "step", "no_grad"}
        ):
            return False
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Subscript):
            name = dotted(node.func.value) or ""
            runs |= name.count(".") == 1 and name.startswith("self.") and name[5:] not in own
    return runs


# Model methods that run the network (seq2seq / autoencoder halves count as forward passes).
# a model's methods that run it (``forward_*`` too): i3d.extract_features(x), net.extract(x)
FORWARD_METHODS = {
    "forward", "encode", "decode", "extract", "extract_features", "extract_feat", "infer",
}  # fmt: skip
# (not ``inference``: as often a trainer's method that returns numbers, ``local.inference(model)``)


def runs_forward(method: str) -> bool:
    """``encode``, ``forward_features``, ``forwardAE``: a model's method that runs it."""
    return (
        method in FORWARD_METHODS
        or method.startswith("forward_")
        or bool(re.match(r"forward[A-Z0-9]", method))
    )
