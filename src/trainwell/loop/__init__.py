"""The reference loop: `fit()`, its assembly from the config, the run's state and
result, the `Monitor` of the best metric, the meter, and the LR finder.
"""

from __future__ import annotations

from trainwell._lazy import lazy_exports

#: public name -> the module that defines it
_EXPORTS = {
    "fit": "fit",
    "FitResult": "result",
    "Monitor": "monitor",
    "BestTracker": "monitor",
    "EarlyStopping": "monitor",
    "BestWeights": "monitor",
    "Counters": "run_state",
    "History": "run_state",
    "RunLength": "run_state",
    "Meter": "meter",
    "lr_find": "lr_find",
    "LRFindResult": "lr_find",
}

__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
