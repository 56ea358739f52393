"""Observers: they watch the loop (progress, logs, summaries) and never steer it.

The loop calls a handful of moments: ``on_fit_start``, ``on_step_end``, ``on_eval_end``,
``on_epoch_end``, ``on_fit_end``, and ``close`` (always, even when training fails).
``on_eval_end`` comes with every validation's record; one made between epoch ends
(``train.eval_every_steps``) has ``kind: "eval"`` and is in no epoch's record, so the logs
write it on its own, keyed by its step. An
observer may ask the loop to stop by setting
``should_stop`` (with ``stop_reason``); it never changes the loop otherwise.
"""

from trainwell.observe.base import FitInfo, Observer, StepReport
from trainwell.observe.input_bound import InputBoundDetector, InputBoundWarning
from trainwell.observe.log import MetricsLog
from trainwell.observe.progress import Progress
from trainwell.observe.table import CSVLog
from trainwell.observe.tensorboard import TensorBoardLog

__all__ = [
    "CSVLog",
    "FitInfo",
    "InputBoundDetector",
    "InputBoundWarning",
    "MetricsLog",
    "Observer",
    "Progress",
    "StepReport",
    "TensorBoardLog",
]
