"""The rules: one module per family, each holding its rules, their examples and their checks.

A family module (any module of this package whose name does not start with ``_``) defines

* its rules as module-level constants named after their code, ``TW001 = Rule(...)``: the
  code, name, severity, summary, explanation and bad/good snippets shown by ``--explain``,
  ``--list-rules`` and the rule section of ``docs/doctor.md``, plus ``examples``: snippets
  with the exact findings they must give, which are the rule's tests
  (``tests/unit/doctor/test_rules.py`` runs them all);
* the checks that report them: functions marked with the hook they run at,
  ``@scope_check(TW001)``, ``@file_check(...)``, ``@loss_call_check(...)``,
  ``@accumulate_check(...)`` or ``@expression_check(...)`` (see :mod:`._registry`).

The families are found here with :func:`pkgutil.iter_modules`, so adding a rule, or a
family, touches that one file.  Shared predicates and the scope summary live in
:mod:`._common`.  The analysis (:mod:`trainwell.doctor.analysis`) never imports this
package: the engine hands it :data:`CHECKS`, which runs the registered checks.
"""

from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType

from ._registry import (
    HEADER,
    HEADER_LINES,
    Example,
    Registry,
    Rule,
    accumulate_check,
    expression_check,
    file_check,
    in_loop,
    loss_call_check,
    scope_check,
)


def _families() -> list[ModuleType]:
    """Every family module of this package, in name order."""
    return [
        importlib.import_module(f"{__name__}.{info.name}")
        for info in pkgutil.iter_modules(__path__)
        if not info.name.startswith("_")
    ]


CHECKS = Registry(_families())
"""The registered checks, as the :class:`~trainwell.doctor.analysis.Checks` of the walk."""

RULES: dict[str, Rule] = CHECKS.rules
"""All rules by code, in code order."""

# There is no TW014 and no DataLoader-seeding rule: their premises do not hold for any
# supported torch version (see "Rules considered and not shipped" in docs/doctor.md).


def rule_name(code: str) -> str:
    """Human name for a code (``TW001`` -> ``missing-zero-grad``)."""
    return RULES[code].name


__all__ = [
    "CHECKS",
    "HEADER",
    "HEADER_LINES",
    "RULES",
    "Example",
    "Registry",
    "Rule",
    "accumulate_check",
    "expression_check",
    "file_check",
    "in_loop",
    "loss_call_check",
    "rule_name",
    "scope_check",
]
