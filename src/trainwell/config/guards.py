"""The guards' config section: one switch per guard, the non-finite policy, cadence, thresholds."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from trainwell.config.fields import option
from trainwell.errors import ConfigError


@dataclass(frozen=True)
class GuardsConfig:
    enabled: bool = option(
        True, "run the runtime guards in fit() and watch(); False installs no hooks"
    )
    on_finding: Literal["warn", "raise", "error"] = option(
        "warn", "warn once; raise at the step end"
    )
    every: int = option(100, "optimizer steps between the guards' host reads and sampled checks")
    structure_every: int = option(
        16,
        "structural checks (zero_grad, clipping, loss input, scheduler, duplicate batches...) "
        "run in the cycles of `every` steps numbered 0, 1, 2, 4, 8, then every this many "
        "cycles; value checks (non-finite, loss trend, gradient norms) run every cycle; "
        "1: structural checks every cycle too",
    )
    zero_grad: bool = option(
        True, "gradients not zeroed after a step, or zeroed before the step used them"
    )
    lr_schedule: bool = option(True, "LR scheduler stepped on the wrong interval or without a step")
    clipping: bool = option(
        True, "clipping before backward, after step, or of fp16-scaled gradients"
    )
    loss_input: bool = option(
        True, "probabilities/log-probabilities fed to the wrong classification loss"
    )
    train_mode: bool = option(True, "training in eval mode, or validating in train mode")
    eval_graph: bool = option(
        True, "a forward in eval mode that builds an autograd graph nobody uses"
    )
    retained_graph: bool = option(
        True, "graphs of past steps kept alive (e.g. losses.append(loss))"
    )
    retained_steps: int = option(
        3, "optimizer steps after which a training graph still alive is reported"
    )
    optimizer_params: bool = option(
        True, "parameters the optimizer does not update, or stale copies"
    )
    nonfinite_check: bool = option(True, "look for inf/NaN gradients on the device every step")
    nonfinite: Literal["warn", "skip_step", "stop"] = option("stop", "on inf/NaN grads (fp32/bf16)")
    skip_exact: bool = option(False, "skip_step: exact skip via a host read (1 sync per step)")
    max_consecutive_skips: int = option(15, "stop after this many skipped steps in a row")
    batchnorm_batch: bool = option(True, "BatchNorm in training fed a tiny batch")
    min_batchnorm_batch: int = option(
        8, "batches smaller than this make BatchNorm statistics noise"
    )
    grad_norms: bool = option(
        True, "per-layer gradient norms that vanish or explode against their history"
    )
    vanish_ratio: float = option(1e-3, "a layer's norm below this x its running mean is vanishing")
    explode_ratio: float = option(
        100.0, "a layer's norm above this x its running mean is exploding"
    )
    grad_norm_warmup: int = option(5, "readings of a layer before its running mean is trusted")
    grad_norm_decay: float = option(0.8, "EMA decay of the per-layer log-norm, per reading")
    duplicate_batches: bool = option(True, "consecutive training batches with identical content")
    loss_input_rows: int = option(8, "rows of a loss input checked for softmax/log-softmax")
    epoch_horizon_max: int = option(
        1000, "scheduler horizons up to this count epochs, beyond count steps"
    )
    loss_trend: bool = option(
        True, "a training loss that diverges (or stays above its start) without NaN"
    )
    loss_trend_losses: int = option(10, "losses averaged at least into one point of the loss trend")
    loss_diverge_ratio: float = option(
        10.0, "a point this x the lowest one (and above the start) diverges"
    )
    loss_rise_ratio: float = option(
        1.5, "points at or above this x the first losses' mean are rising..."
    )
    loss_rise_reads: int = option(10, "...reported after this many reads in a row")
    lr_jump: bool = option(
        True, "an LR that jumps up mid-run, or a StepLR/MultiStepLR decay with gamma > 1"
    )
    lr_jump_ratio: float = option(
        10.0, "an LR above this x the highest of the earlier reads, unexplained, jumped"
    )
    accumulation_scale: bool = option(
        True, "accumulate_steps=k declared but each loss not divided by k"
    )


def validate_guards(config: GuardsConfig) -> GuardsConfig:
    """Reject values that type-check but cannot work (the main config validator can call this)."""
    for name in (
        "every",
        "structure_every",
        "retained_steps",
        "max_consecutive_skips",
        "min_batchnorm_batch",
        "loss_trend_losses",
        "loss_rise_reads",
    ):
        if getattr(config, name) < 1:
            raise ConfigError(f"guards.{name}={getattr(config, name)!r} must be >= 1")
    if not 0.0 < config.vanish_ratio < 1.0:
        raise ConfigError(f"guards.vanish_ratio={config.vanish_ratio} must be in (0, 1)")
    if not config.explode_ratio > 1.0:
        raise ConfigError(f"guards.explode_ratio={config.explode_ratio} must be > 1")
    if not 0.0 <= config.grad_norm_decay < 1.0:
        raise ConfigError(f"guards.grad_norm_decay={config.grad_norm_decay} must be in [0, 1)")
    for name in ("loss_diverge_ratio", "loss_rise_ratio", "lr_jump_ratio"):
        if not getattr(config, name) > 1.0:
            raise ConfigError(f"guards.{name}={getattr(config, name)} must be > 1")
    return config
