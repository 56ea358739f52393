"""The parts a training loop is made of, each usable alone: precision, accumulation,
clipping, optimizer groups, schedules, EMA, freezing, metrics, the reading of model outputs
and their losses, device, compile, memory and FLOPs."""

from __future__ import annotations

from trainwell._lazy import lazy_exports

#: public name -> the module that defines it
_EXPORTS = {
    "Precision": "precision",
    "Accumulation": "accumulation",
    "MicroBatch": "accumulation",
    "Clipping": "clipping",
    "grad_norm": "clipping",
    "build_optimizer": "optim",
    "param_groups": "optim",
    "LRSchedule": "schedule",
    "PlateauSchedule": "schedule",
    "TorchSchedule": "schedule",
    "Schedule": "schedule",
    "build_schedule": "schedule",
    "EMA": "ema",
    "Freezing": "freezing",
    "Metric": "metric",
    "Accuracy": "metric",
    "F1": "metric",
    "AUROC": "metric",
    "ConfusionMatrix": "metric",
    "accuracy": "metric",
    "logits_of": "outputs",
    "model_loss_of": "outputs",
    "tensors_in": "outputs",
    "call_model": "outputs",
    "compute_loss": "losses",
    "loss_count": "losses",
    "choose_device": "device",
    "move_to": "device",
    "compiled_forward": "compile",
    "checkpoint_blocks": "memory",
    "track_memory": "memory",
    "count_step_flops": "flops",
    "peak_flops": "flops",
}

__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
