"""trainwell: train PyTorch models the right way, fast.

Parts you can use one by one inside your own loop, and `fit()`: a short reference loop
built from them.
"""

from trainwell.accumulation import Accumulation, MicroBatch
from trainwell.checkpoint import Checkpointer, load_checkpoint, save_atomic
from trainwell.clipping import Clipping, grad_norm
from trainwell.config import Config, build_config, load_config
from trainwell.data import TensorLoader, epoch_order, make_loader
from trainwell.device import choose_device, move_to
from trainwell.errors import CheckpointError, ConfigError, DataError, ShapeError, UserError
from trainwell.loop import FitResult, evaluate, fit, predict
from trainwell.metric import accuracy
from trainwell.observe import Observer, StepReport
from trainwell.optim import build_optimizer, param_groups
from trainwell.precision import Precision
from trainwell.schedule import LRSchedule, PlateauSchedule, TorchSchedule, build_schedule
from trainwell.state import Counters, RNGState, seed_everything
from trainwell.tracking import BestTracker, EarlyStopping

__version__ = "0.1.0"

__all__ = [
    "Accumulation",
    "BestTracker",
    "CheckpointError",
    "Checkpointer",
    "Clipping",
    "Config",
    "ConfigError",
    "Counters",
    "DataError",
    "EarlyStopping",
    "FitResult",
    "LRSchedule",
    "MicroBatch",
    "Observer",
    "PlateauSchedule",
    "Precision",
    "RNGState",
    "ShapeError",
    "StepReport",
    "TensorLoader",
    "TorchSchedule",
    "UserError",
    "accuracy",
    "build_config",
    "build_optimizer",
    "build_schedule",
    "choose_device",
    "epoch_order",
    "evaluate",
    "fit",
    "grad_norm",
    "load_checkpoint",
    "load_config",
    "make_loader",
    "move_to",
    "param_groups",
    "predict",
    "save_atomic",
    "seed_everything",
]
