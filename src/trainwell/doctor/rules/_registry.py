"""What a rule family module is made of: :class:`Rule`, :class:`Example` and the decorators
that register check functions, plus :class:`Registry`, which collects them.

This module imports no family, so that a family can import it without an import cycle
(the package ``__init__`` imports this module first, then the families).
"""

from __future__ import annotations

import ast
import textwrap
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING, TypeVar

from ._common import summarize

if TYPE_CHECKING:
    from ..analysis import FileAnalysis, ScopeWalker
    from ..events import Summary
    from ..values import Value

HEADER = """\
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.optim.lr_scheduler import OneCycleLR, ReduceLROnPlateau, StepLR
"""
"""The imports every :class:`Example` snippet is checked after."""

HEADER_LINES = HEADER.count("\n")

_LOOP = """\
def fit(model, loader, criterion, epochs):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(epochs):
        for x, y in loader:
{body}
"""


def in_loop(body: str) -> str:
    """``body`` as the inner batch loop of a typical training function (the body's first
    line is line 5 of the result)."""
    return _LOOP.format(body=textwrap.indent(textwrap.dedent(body), " " * 12))


@dataclass(frozen=True)
class Example:
    """A snippet and the exact findings it must give: a test and documentation of its rule.

    The snippet is dedented and checked after :data:`HEADER` (the usual torch imports);
    ``findings`` are ``(line, code)`` pairs with lines counted from the snippet's first line.
    An example whose findings include its rule's code is *positive* (the rule must fire
    there); one without is *negative* (the rule must stay silent). ``target_torch``
    (``"X.Y"``) is the torch version checked against; None means the default (modern) one.
    """

    name: str
    snippet: str
    findings: tuple[tuple[int, str], ...] = ()
    target_torch: str | None = None

    def __post_init__(self) -> None:
        # accept a list literal, as in a test table, but keep the example hashable
        object.__setattr__(self, "findings", tuple(tuple(f) for f in self.findings))

    def source(self) -> str:
        """The text that is checked: :data:`HEADER` followed by the dedented snippet."""
        return HEADER + textwrap.dedent(self.snippet)

    def fires(self, code: str) -> bool:
        """Whether ``code`` is among the expected findings."""
        return any(found == code for _, found in self.findings)


@dataclass(frozen=True)
class Rule:
    """A check with a stable code."""

    code: str
    name: str
    severity: str  # "error" (a bug) or "warning" (wasteful, risky or very likely wrong)
    summary: str  # one line: what it catches
    why: str  # why it matters (a paragraph)
    bad: str  # example that triggers the rule
    good: str  # the fix
    examples: tuple[Example, ...] = ()  # its tests (see Example)


# -- registering checks -------------------------------------------------------------------
# A check is a plain function marked with the hook it runs at and the rules it reports; the
# registry finds the marked functions in each family module.  The hooks are the methods of
# :class:`~trainwell.doctor.analysis.Checks`, the only places the walk calls back into.
SCOPE = "scope"  # check(w: ScopeWalker): once per walked scope, after its walk
FILE = "file"  # check(fa: FileAnalysis): once per file, after all its scopes
LOSS_CALL = "loss_call"  # check(w, call, loss, logits): at a loss function/criterion call
ACCUMULATE = "accumulate"  # check(w, container, value, node): acc += v, acc.append(v) ...
EXPRESSION = "expression"  # check(w, expr): at an expression statement (result discarded)
HOOKS = (SCOPE, FILE, LOSS_CALL, ACCUMULATE, EXPRESSION)

_MARK = "__trainwell_check__"
F = TypeVar("F", bound=Callable[..., None])


def _marker(hook: str, rules: tuple[Rule, ...]) -> Callable[[F], F]:
    def mark(func: F) -> F:
        setattr(func, _MARK, (hook, tuple(rule.code for rule in rules)))
        return func

    return mark


def scope_check(*rules: Rule) -> Callable[[F], F]:
    """Register ``check(w: ScopeWalker)``, run over the events of every walked scope."""
    return _marker(SCOPE, rules)


def file_check(*rules: Rule) -> Callable[[F], F]:
    """Register ``check(fa: FileAnalysis)``, run once per file over its syntax tree."""
    return _marker(FILE, rules)


def loss_call_check(*rules: Rule) -> Callable[[F], F]:
    """Register ``check(w, call, loss, logits)``, run during the walk at each call of a loss
    (``loss`` is its name, ``logits`` the value of its first argument)."""
    return _marker(LOSS_CALL, rules)


def accumulate_check(*rules: Rule) -> Callable[[F], F]:
    """Register ``check(w, container, value, node)``, run during the walk where ``value`` is
    added to ``container`` (``acc += v``, ``acc.append(v)``, ``acc[k] = v``)."""
    return _marker(ACCUMULATE, rules)


def expression_check(*rules: Rule) -> Callable[[F], F]:
    """Register ``check(w, expr)``, run during the walk at each expression statement."""
    return _marker(EXPRESSION, rules)


def marked_checks(module: ModuleType) -> list[tuple[str, tuple[str, ...], Callable]]:
    """(hook, codes, check) for the checks a module defines, in definition order."""
    found = []
    for value in vars(module).values():
        mark = getattr(value, _MARK, None)
        if mark is not None and getattr(value, "__module__", None) == module.__name__:
            found.append((*mark, value))  # an imported check belongs to its own module
    return found


def module_rules(module: ModuleType) -> list[Rule]:
    """The rules a family module defines, as module-level ``TWxxx = Rule(...)`` constants."""
    rules = []
    for name, value in vars(module).items():
        if isinstance(value, Rule) and name == value.code:
            rules.append(value)
        elif isinstance(value, Rule):
            raise ValueError(f"{module.__name__}: rule {value.code} is bound to {name!r}")
    return rules


def _contents(
    family: ModuleType | Rule | Callable,
) -> tuple[str, list[Rule], list[tuple[str, tuple[str, ...], Callable]]]:
    """(name, rules, checks) of a family module, or of one `Rule` or one marked check given
    on its own (a rule not yet in a module of this package: ``check_source(..., rules=...)``)."""
    if isinstance(family, ModuleType):
        return family.__name__, module_rules(family), marked_checks(family)
    if isinstance(family, Rule):
        return family.code, [family], []
    mark = getattr(family, _MARK, None)
    if mark is None:
        raise TypeError(
            f"{family!r} is not a rule family: pass a module, a Rule, or a check function "
            "marked with a hook decorator (@scope_check(...), @expression_check(...), ...)"
        )
    return getattr(family, "__qualname__", repr(family)), [], [(*mark, family)]


# -- the registry -------------------------------------------------------------------------
class Registry:
    """The rules and checks of a set of family modules (or of rules and checks given one by
    one, see `_contents`).

    It is the :class:`~trainwell.doctor.analysis.Checks` the analysis is handed: each hook
    runs the checks registered for it, family by family in the order given.
    """

    def __init__(self, families: Iterable[ModuleType | Rule | Callable]) -> None:
        self.families = tuple(families)
        rules: dict[str, Rule] = {}
        checks: dict[str, list[Callable]] = {hook: [] for hook in HOOKS}
        reported: set[str] = set()
        for family in self.families:
            name, family_rules, family_checks = _contents(family)
            for rule in family_rules:
                if rules.setdefault(rule.code, rule) is not rule:
                    raise ValueError(f"{name}: rule {rule.code} is defined twice")
            for hook, codes, check in family_checks:
                checks[hook].append(check)
                reported.update(codes)
        unknown = reported - set(rules)
        if unknown:
            raise ValueError(f"checks report undefined rules: {sorted(unknown)}")
        self.rules: dict[str, Rule] = dict(sorted(rules.items()))
        self._scope = tuple(checks[SCOPE])
        self._file = tuple(checks[FILE])
        self._loss_call = tuple(checks[LOSS_CALL])
        self._accumulate = tuple(checks[ACCUMULATE])
        self._expression = tuple(checks[EXPRESSION])

    # -- analysis.Checks ------------------------------------------------------------------
    def run_scope_checks(self, w: ScopeWalker) -> None:
        for check in self._scope:
            check(w)

    def run_file_checks(self, fa: FileAnalysis) -> None:
        for check in self._file:
            check(fa)

    def summarize(self, w: ScopeWalker) -> Summary:
        return summarize(w)

    def at_loss_call(
        self, w: ScopeWalker, call: ast.Call, loss: str | None, logits: Value | None
    ) -> None:
        for check in self._loss_call:
            check(w, call, loss, logits)

    def at_accumulate(
        self, w: ScopeWalker, container: str | None, value: Value | None, node: ast.AST
    ) -> None:
        for check in self._accumulate:
            check(w, container, value, node)

    def at_expression_statement(self, w: ScopeWalker, expr: ast.expr) -> None:
        for check in self._expression:
            check(w, expr)

    def __repr__(self) -> str:
        return f"<Registry of {len(self.rules)} rules>"
