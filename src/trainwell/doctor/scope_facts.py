"""Facts about a whole scope, gathered in one traversal before its statement-by-statement walk.

Some questions need the entire scope at once rather than the statements seen so far: which
names end up in ``.backward()`` (they hold losses even before that call is reached), which
names feed one, and whether the scope computes input gradients on purpose (adversarial
attacks, saliency maps).  :func:`scope_facts` answers them in a single pass that does not
descend into nested functions (:func:`own_nodes`); the file analysis caches the answer per
scope across its two walks.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from ._astutil import closure, dotted, last_part, names_in


def own_nodes(scope: ast.AST) -> list[ast.AST]:
    """The nodes of a scope without those of nested functions/classes/lambdas, kept on the
    scope's node: every rule and both passes ask for them again."""
    nodes = scope.__dict__.get("_tw_own_nodes")
    if nodes is None:
        nodes = scope._tw_own_nodes = list(_own_nodes(scope))  # type: ignore[attr-defined]
    return nodes


def _own_nodes(scope: ast.AST):
    nested = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
    if isinstance(scope, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef)):
        body: list[ast.AST] = list(scope.body)
    else:
        body = [scope]
    stack = [node for node in reversed(body) if not isinstance(node, nested)]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(c for c in ast.iter_child_nodes(node) if not isinstance(c, nested))


@dataclass
class ScopeFacts:
    """Facts about a whole scope, gathered in one traversal (cached across passes)."""

    backward_names: set[str]  # names whose .backward() is called: they hold losses
    backward_involved: set[str]  # names that (transitively) feed a .backward()
    grad_machinery: bool  # computes input gradients (attacks, saliency): eval + grad is fine


_GRAD_ATTRS = {"requires_grad", "requires_grad_", "enable_grad", "set_grad_enabled"}


def scope_facts(scope: ast.AST) -> ScopeFacts:
    backward_names: set[str] = set()
    involved: set[str] = set()
    grad_machinery = False
    assigns: list[tuple[set[str], set[str]]] = []
    for node in own_nodes(scope):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr == "backward":
                if is_strategy(dotted(node.func.value)) and len(node.args) >= 2:
                    if isinstance(node.args[0], ast.Name):  # strategy.backward(loss, ...)
                        backward_names.add(node.args[0].id)
                elif isinstance(node.func.value, ast.Name):
                    backward_names.add(node.func.value.id)
                involved |= names_in(node.func.value)
                for arg in node.args:
                    involved |= names_in(arg)
        elif isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            lhs = set().union(*(names_in(t) for t in targets))
            assigns.append((lhs, names_in(node.value)))
        elif isinstance(node, ast.Attribute):
            if node.attr in _GRAD_ATTRS or (
                node.attr == "grad" and last_part(dotted(node.value)) == "autograd"
            ):
                grad_machinery = True
        elif isinstance(node, ast.Name) and node.id in _GRAD_ATTRS:
            grad_machinery = True
    grad_machinery = grad_machinery and not _only_freezes(scope)
    involved = closure(involved, assigns)  # transitive over assignments, bounded
    return ScopeFacts(backward_names, involved, grad_machinery)


def _only_freezes(scope: ast.AST) -> bool:
    """Every ``requires_grad`` of the scope freezes or reads (``p.requires_grad = False``,
    ``requires_grad_(False)``, ``if p.requires_grad``): parameters frozen for a phase, not
    input gradients; and nothing else of autograd's machinery is used."""
    params = _parameter_loop_names(scope) | _created_tensors(scope)
    for node in own_nodes(scope):
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Attribute) and t.attr == "requires_grad" for t in node.targets
        ):
            on_parameters = all(
                isinstance(t, ast.Attribute) and dotted(t.value) in params for t in node.targets
            )
            frozen = isinstance(node.value, ast.Constant) and node.value.value is False
            if not (frozen or on_parameters):  # p.requires_grad = True: unfreezing
                return False
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            attr = node.func.attr
            if attr == "requires_grad_":
                arg = node.args[0] if node.args else None
                frozen = isinstance(arg, ast.Constant) and arg.value is False
                if not (frozen or dotted(node.func.value) in params):
                    return False
            elif attr in _GRAD_ATTRS - {"requires_grad", "requires_grad_"} or (
                attr == "grad" and last_part(dotted(node.func.value)) == "autograd"
            ):
                return False
        elif (
            isinstance(node, ast.Name)
            and node.id in _GRAD_ATTRS - {"requires_grad"}
            or (
                isinstance(node, ast.keyword)
                and node.arg == "requires_grad"
                and not (isinstance(node.value, ast.Constant) and node.value.value is False)
                and not _in_tensor_factory(scope, node)
            )
        ):
            return False
    return True


# Tensor factories: ``torch.zeros(1, requires_grad=True)`` makes a parameter by hand.
_FACTORIES = {"tensor", "randn", "rand", "zeros", "ones", "empty", "full", "normal", "arange"}


def _is_factory_call(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Call)
        and last_part(dotted(node.func)) in _FACTORIES
        and (dotted(node.func) or "").startswith("torch.")
    )


def _created_tensors(scope: ast.AST) -> set[str]:
    """Names bound to a new tensor (``weight = torch.randn(1)``): requires_grad_() on them
    makes a hand-written parameter, not an input whose gradient is wanted."""
    return {
        t.id
        for node in own_nodes(scope)
        if isinstance(node, ast.Assign) and _is_factory_call(node.value)
        for t in node.targets
        if isinstance(t, ast.Name)
    }


def _in_tensor_factory(scope: ast.AST, keyword: ast.keyword) -> bool:
    return any(
        _is_factory_call(node) and keyword in node.keywords  # type: ignore[attr-defined]
        for node in own_nodes(scope)
    )


def _parameter_loop_names(scope: ast.AST) -> set[str]:
    """Names bound by ``for p in model.parameters()`` (or ``named_parameters()``) loops."""
    names: set[str] = set()
    for node in own_nodes(scope):
        if (
            isinstance(node, (ast.For, ast.AsyncFor))
            and isinstance(node.iter, ast.Call)
            and isinstance(node.iter.func, ast.Attribute)
            and node.iter.func.attr in {"parameters", "named_parameters"}
        ):
            target = node.target
            if isinstance(target, ast.Tuple) and target.elts:
                target = target.elts[-1]
            if isinstance(target, ast.Name):
                names.add(target.id)
    return names


def is_strategy(name: str | None) -> bool:
    """trainwell's strategy object (``strategy.backward(loss, precision, model, last=...)``)."""
    return "strategy" in last_part(name).lower()


def hand_made_parameters(tree: ast.Module) -> set[str]:
    """Module-level names of tensors made to require gradients by hand."""
    names: set[str] = set()
    for node in tree.body:
        value = node.value if isinstance(node, (ast.Assign, ast.Expr)) else None
        if isinstance(node, ast.Assign) and isinstance(value, ast.Call):
            made = (
                any(
                    k.arg == "requires_grad"
                    and isinstance(k.value, ast.Constant)
                    and k.value.value is True
                    for k in value.keywords
                )
                or last_part(dotted(value.func)) == "Parameter"
            )
            if made:
                names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
        elif (
            isinstance(value, ast.Call)
            and isinstance(value.func, ast.Attribute)
            and value.func.attr == "requires_grad_"
            and isinstance(value.func.value, ast.Name)
            and not (
                value.args and isinstance(value.args[0], ast.Constant) and not value.args[0].value
            )
        ):
            names.add(value.func.value.id)
    return names


def turns_autograd_off(func: ast.AST) -> bool:
    """The function runs some of its code under ``torch.no_grad()`` / ``inference_mode()``
    (a block or a decorator): what it returns may or may not carry a graph."""
    for node in ast.walk(func):
        exprs: list[ast.expr] = []
        if isinstance(node, (ast.With, ast.AsyncWith)):
            exprs = [item.context_expr for item in node.items]
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            exprs = list(node.decorator_list)
        for expr in exprs:
            target = expr.func if isinstance(expr, ast.Call) else expr
            if last_part(dotted(target)) in {"no_grad", "inference_mode"}:
                return True
    return False
