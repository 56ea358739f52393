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
    "Accumulation": "parts.accumulation",
    "MicroBatch": "parts.accumulation",
    "Checkpointer": "state.checkpointer",
    "load_checkpoint": "state.checkpoint",
    "load_weights": "state.weights",
    "export_weights": "state.weights",
    "save_atomic": "state.atomic",
    "Clipping": "parts.clipping",
    "grad_norm": "parts.clipping",
    "Config": "config.sections",
    "build_config": "config.tree",
    "load_config": "config.tree",
    "TensorLoader": "data.epochs",
    "CachedDataset": "data.caching",
    "choose_num_workers": "data.workers",
    "pad_collate": "data.padding",
    "InputBoundDetector": "observe.input_bound",
    "InputBoundWarning": "observe.input_bound",
    "epoch_order": "data.order",
    "make_loader": "data.loader",
    "choose_device": "parts.device",
    "move_to": "parts.device",
    "CheckpointError": "errors",
    "MemoryLimitError": "errors",
    "ConfigError": "errors",
    "DataError": "errors",
    "ShapeError": "errors",
    "UserError": "errors",
    "FitResult": "loop.result",
    "evaluate": "step.evaluation",
    "fit": "loop.fit",
    "predict": "step.evaluation",
    "accuracy": "parts.metric",
    "Metric": "parts.metric",
    "Accuracy": "parts.metric",
    "F1": "parts.metric",
    "AUROC": "parts.metric",
    "ConfusionMatrix": "parts.metric",
    "Observer": "observe.base",
    "StepReport": "observe.base",
    "build_optimizer": "parts.optim",
    "param_groups": "parts.optim",
    "Precision": "parts.precision",
    "GuardsConfig": "config.guards",
    "watch": "guards.watcher",
    "LRSchedule": "parts.schedule",
    "PlateauSchedule": "parts.schedule",
    "TorchSchedule": "parts.schedule",
    "build_schedule": "parts.schedule",
    "Counters": "loop.run_state",
    "RNGState": "state.rng",
    "seed_everything": "state.rng",
    "BestTracker": "loop.monitor",
    "EarlyStopping": "loop.monitor",
    "checkpoint_blocks": "parts.memory",
    "track_memory": "parts.memory",
    "count_step_flops": "parts.flops",
    "peak_flops": "parts.flops",
    "Profiler": "observe.profiler",
    "log": "observe.logged",
    "RunLogger": "observe.logged",
    "EMA": "parts.ema",
    "lr_find": "loop.lr_find",
}

#: subpackages reachable as attributes, e.g. ``tw.data.cache(...)``, ``tw.guards.watch(...)``
_SUBPACKAGES = {
    "cli",
    "config",
    "data",
    "doctor",
    "guards",
    "loop",
    "observe",
    "parts",
    "recipes",
    "state",
    "step",
    "strategy",
}

__all__ = sorted(_EXPORTS)


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals(), _SUBPACKAGES)


if TYPE_CHECKING:  # static analysers and IDEs see the real names
    from trainwell.config.guards import GuardsConfig
    from trainwell.config.sections import Config
    from trainwell.config.tree import build_config, load_config
    from trainwell.data.caching import CachedDataset
    from trainwell.data.epochs import TensorLoader
    from trainwell.data.loader import make_loader
    from trainwell.data.order import epoch_order
    from trainwell.data.padding import pad_collate
    from trainwell.data.workers import choose_num_workers
    from trainwell.errors import CheckpointError, ConfigError, DataError, ShapeError, UserError
    from trainwell.guards.watcher import watch
    from trainwell.loop.fit import fit
    from trainwell.loop.lr_find import lr_find
    from trainwell.loop.monitor import BestTracker, EarlyStopping
    from trainwell.loop.result import FitResult
    from trainwell.loop.run_state import Counters
    from trainwell.observe.base import Observer, StepReport
    from trainwell.observe.input_bound import InputBoundDetector, InputBoundWarning
    from trainwell.observe.logged import RunLogger, log
    from trainwell.parts.accumulation import Accumulation, MicroBatch
    from trainwell.parts.clipping import Clipping, grad_norm
    from trainwell.parts.device import choose_device, move_to
    from trainwell.parts.ema import EMA
    from trainwell.parts.metric import AUROC, F1, Accuracy, ConfusionMatrix, Metric, accuracy
    from trainwell.parts.optim import build_optimizer, param_groups
    from trainwell.parts.precision import Precision
    from trainwell.parts.schedule import LRSchedule, PlateauSchedule, TorchSchedule, build_schedule
    from trainwell.state.atomic import save_atomic
    from trainwell.state.checkpoint import load_checkpoint
    from trainwell.state.checkpointer import Checkpointer
    from trainwell.state.rng import RNGState, seed_everything
    from trainwell.step.evaluation import evaluate, predict
