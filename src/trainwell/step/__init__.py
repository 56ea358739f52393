"""The step seam: `TrainStep` (``forward_backward`` then ``update`` of each optimizer slot),
the optimizers it holds by name, the supervised step, and evaluation and prediction: how a
step validates."""

from __future__ import annotations

from trainwell._lazy import lazy_exports

#: public name -> the module that defines it
_EXPORTS = {
    "TrainStep": "train_step",
    "StepResult": "train_step",
    "SlotUpdate": "train_step",
    "Optimizers": "optimizers",
    "OptimizerSlot": "optimizers",
    "slot": "optimizers",
    "SupervisedStep": "supervised",
    "evaluate": "evaluation",
    "predict": "evaluation",
    "evaluate_loader": "evaluation",
}

__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
