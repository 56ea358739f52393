"""Runtime guards: catch the silent training bugs while they happen.

`watch()` wraps a hand-written loop with PyTorch hooks; `for_fit()` runs the same guards inside
`trainwell.fit()` as an observer. Each bug family is one module here; each finding names the bug,
where it was seen, why it matters and the fix, and is warned once as a `GuardWarning`.

A guard of your own: subclass `Guard` (its moments, and ``self.ctx``, a `Context`, to read
the run and ``ctx.report`` a finding), then `register_guard` it; `unregister_guard` undoes it.

Names are imported on first use. The ``guards`` config section is `trainwell.config.guards`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from trainwell._lazy import lazy_exports

#: public name -> the module that defines it
_EXPORTS = {
    "GuardsConfig": "trainwell.config.guards",
    "validate_guards": "trainwell.config.guards",
    "Finding": "finding",
    "GuardError": "finding",
    "GuardWarning": "finding",
    "NonFiniteError": "finding",
    "FitGuards": "fit",
    "for_fit": "fit",
    "Context": "base",
    "Guard": "base",
    "GUARDS": "registry",
    "register_guard": "registry",
    "registered_guards": "registry",
    "unregister_guard": "registry",
    "Watch": "watcher",
    "watch": "watcher",
}

__all__ = [
    "GUARDS",
    "Context",
    "FitGuards",
    "Finding",
    "Guard",
    "GuardError",
    "GuardWarning",
    "GuardsConfig",
    "NonFiniteError",
    "Watch",
    "for_fit",
    "register_guard",
    "registered_guards",
    "unregister_guard",
    "validate_guards",
    "watch",
]


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())


if TYPE_CHECKING:  # static analysers and IDEs see the real names
    from trainwell.config.guards import GuardsConfig, validate_guards
    from trainwell.guards.base import Context, Guard
    from trainwell.guards.finding import Finding, GuardError, GuardWarning, NonFiniteError
    from trainwell.guards.fit import FitGuards, for_fit
    from trainwell.guards.registry import (
        GUARDS,
        register_guard,
        registered_guards,
        unregister_guard,
    )
    from trainwell.guards.watcher import Watch, watch
