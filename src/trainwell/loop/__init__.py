"""The reference loop: `fit()`, its assembly from the config, the run's state and
result, the `Monitor` of the best metric, the meter, and the LR finder.
"""

from __future__ import annotations

from trainwell._lazy import lazy_exports

#: public name -> the module that defines it
_EXPORTS = {
    "fit": "fit",
    "FitResult": "result",
    "build_strategy": "assembly",
    "fast_kernels_for": "assembly",
    "build_loader": "assembly",
    "default_train_step": "assembly",
    "as_schedule": "assembly",
    "build_checkpointer": "assembly",
    "nonfinite_skip": "assembly",
    "default_observers": "assembly",
    "stateful_observers": "assembly",
    "build_validator": "assembly",
    "FromEpochZero": "assembly",
    "fit_info": "assembly",
    "vars_of": "assembly",
    "with_shards_at": "resume",
    "load_resume_state": "resume",
    "changed_keys": "resume",
    "elastic_resume": "resume",
    "RunLength": "run_state",
    "num_batches": "run_state",
    "Counters": "run_state",
    "History": "run_state",
    "BestTracker": "monitor",
    "EarlyStopping": "monitor",
    "BestWeights": "monitor",
    "Meter": "meter",
    "LRFindResult": "lr_find",
    "lr_find": "lr_find",
    "suggest": "lr_find",
    "plot_sweep": "lr_find",
}

__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
