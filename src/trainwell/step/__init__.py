"""The step seam: `TrainStep` (``forward_backward`` then ``update``), the optimizers it
holds by name, and the supervised step.
"""

from __future__ import annotations

from trainwell._lazy import lazy_exports

#: public name -> the module that defines it
_EXPORTS = {
    "ConstantLR": "optimizers",
    "OptimizerSlot": "optimizers",
    "Optimizers": "optimizers",
    "slot": "optimizers",
    "LossStep": "train_step",
    "SkipNonfinite": "train_step",
    "StepResult": "train_step",
    "TrainStep": "train_step",
    "StepFn": "supervised",
    "SupervisedStep": "supervised",
}

__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
