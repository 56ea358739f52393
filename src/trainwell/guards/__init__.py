"""Runtime guards: catch the silent training bugs while they happen.

`watch()` wraps a hand-written loop with PyTorch hooks; `for_fit()` runs the same guards inside
`trainwell.fit()` as an observer. Each bug family is one module here; each finding names the bug,
where it was seen, why it matters and the fix, and is warned once as a `GuardWarning`.

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
    "GUARDS": "watcher",
    "Watch": "watcher",
    "watch": "watcher",
}

__all__ = [
    "GUARDS",
    "FitGuards",
    "Finding",
    "GuardError",
    "GuardWarning",
    "GuardsConfig",
    "NonFiniteError",
    "Watch",
    "for_fit",
    "validate_guards",
    "watch",
]


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())


if TYPE_CHECKING:  # static analysers and IDEs see the real names
    from trainwell.config.guards import GuardsConfig, validate_guards
    from trainwell.guards.finding import Finding, GuardError, GuardWarning, NonFiniteError
    from trainwell.guards.fit import FitGuards, for_fit
    from trainwell.guards.watcher import GUARDS, Watch, watch
