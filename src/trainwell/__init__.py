"""trainwell: train PyTorch models the right way, fast.

Parts you can use one by one inside your own loop, and `fit()`: a short reference loop
built from them. Names are imported on first use, so ``trainwell doctor`` (which never needs
torch) starts in a fraction of a second.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from trainwell._lazy import lazy_exports

__version__ = "0.1.0"

#: public name -> the module that defines it
_EXPORTS = {
    "Accumulation": "accumulation",
    "MicroBatch": "accumulation",
    "Checkpointer": "checkpoint",
    "load_checkpoint": "checkpoint",
    "load_weights": "weights",
    "export_weights": "weights",
    "save_atomic": "atomic",
    "Clipping": "clipping",
    "grad_norm": "clipping",
    "Config": "config",
    "build_config": "config",
    "load_config": "config",
    "TensorLoader": "data",
    "CachedDataset": "data",
    "choose_num_workers": "data",
    "pad_collate": "data",
    "InputBoundDetector": "observe",
    "InputBoundWarning": "observe",
    "epoch_order": "data",
    "make_loader": "data",
    "choose_device": "device",
    "move_to": "device",
    "CheckpointError": "errors",
    "ConfigError": "errors",
    "DataError": "errors",
    "ShapeError": "errors",
    "UserError": "errors",
    "FitResult": "loop",
    "evaluate": "evaluation",
    "fit": "loop",
    "predict": "evaluation",
    "accuracy": "metric",
    "Metric": "metric",
    "Accuracy": "metric",
    "F1": "metric",
    "AUROC": "metric",
    "ConfusionMatrix": "metric",
    "Observer": "observe",
    "StepReport": "observe",
    "build_optimizer": "optim",
    "param_groups": "optim",
    "Precision": "precision",
    "GuardsConfig": "guards",
    "watch": "guards",
    "LRSchedule": "schedule",
    "PlateauSchedule": "schedule",
    "TorchSchedule": "schedule",
    "build_schedule": "schedule",
    "Counters": "state",
    "RNGState": "state",
    "seed_everything": "state",
    "BestTracker": "tracking",
    "EarlyStopping": "tracking",
    "checkpoint_blocks": "memory",
    "track_memory": "memory",
    "count_step_flops": "flops",
    "peak_flops": "flops",
    "Profiler": "profiling",
    "log": "logged",
    "RunLogger": "logged",
    "EMA": "ema",
    "lr_find": "lr_finder",
}

#: subpackages reachable as attributes, e.g. ``tw.data.cache(...)``, ``tw.guards.watch(...)``
_SUBPACKAGES = {"data", "guards", "doctor", "observe", "recipes"}

__all__ = sorted(_EXPORTS)


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals(), _SUBPACKAGES)


if TYPE_CHECKING:  # static analysers and IDEs see the real names
    from trainwell.accumulation import Accumulation, MicroBatch
    from trainwell.atomic import save_atomic
    from trainwell.checkpoint import Checkpointer, load_checkpoint
    from trainwell.clipping import Clipping, grad_norm
    from trainwell.config import Config, build_config, load_config
    from trainwell.data import (
        CachedDataset,
        TensorLoader,
        choose_num_workers,
        epoch_order,
        make_loader,
        pad_collate,
    )
    from trainwell.device import choose_device, move_to
    from trainwell.ema import EMA
    from trainwell.errors import CheckpointError, ConfigError, DataError, ShapeError, UserError
    from trainwell.evaluation import evaluate, predict
    from trainwell.guards import GuardsConfig, watch
    from trainwell.logged import RunLogger, log
    from trainwell.loop import FitResult, fit
    from trainwell.lr_finder import lr_find
    from trainwell.metric import AUROC, F1, Accuracy, ConfusionMatrix, Metric, accuracy
    from trainwell.observe import InputBoundDetector, InputBoundWarning, Observer, StepReport
    from trainwell.optim import build_optimizer, param_groups
    from trainwell.precision import Precision
    from trainwell.schedule import LRSchedule, PlateauSchedule, TorchSchedule, build_schedule
    from trainwell.state import Counters, RNGState, seed_everything
    from trainwell.tracking import BestTracker, EarlyStopping
