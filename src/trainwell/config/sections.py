"""The config tree: one frozen dataclass per section (``run``, ``data``, ``train``, ``optim``,
``schedule``, ``monitor``, ``early_stop``, ``checkpoint``, ``log``, ``profile``, ``guards``),
each field with its default and a one-line help text, and `Config`, the whole tree.

`MonitorConfig` is also the one definition of "better" (`MonitorConfig.improved`): best
tracking, early stopping, the plateau schedule and checkpoint retention all ask it.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from trainwell.config.fields import option
from trainwell.config.guards import GuardsConfig
from trainwell.errors import ConfigError

PrecisionMode = Literal["fp32", "bf16", "fp16", "auto"]


ScheduleName = Literal[
    "constant",
    "warmup_cosine",
    "warmup_linear",
    "one_cycle",
    "step",
    "multistep",
    "exponential",
    "cosine_restarts",
    "plateau",
]


@dataclass(frozen=True)
class RunConfig:
    recipe: str | None = option(
        None, "the built-in recipe or module:function this run trains (CLI)"
    )
    seed: int = option(0, "seeds python, numpy, torch and the data order")
    deterministic: bool = option(False, "deterministic kernels (slower): bit-exact repeats on GPU")
    device: str = option("auto", "auto (cuda > mps > cpu), or cpu, cuda, cuda:1, mps")
    strategy: str = option(
        "auto",
        "auto: single in one process; under torchrun ddp when weights, gradients and AdamW "
        "state (16 bytes/parameter) fit in half of one device's memory, else fsdp; or single, "
        "ddp, fsdp, or a name registered with trainwell.strategy.register_strategy",
    )
    fsdp_blocks: str = option(
        "auto",
        "fsdp: the modules sharded as units (dotted paths; a ModuleList means each child); "
        "auto: the model's block list (blocks/layers/h...), else its top-level children",
    )
    fsdp_reshard_after_forward: bool = option(
        True, "fsdp: free gathered parameters after each block's forward (less memory)"
    )
    dir: str | None = option(
        None, "run directory for config, metrics, checkpoints; null: write nothing"
    )
    overwrite: bool = option(
        False,
        "replace the run already in run.dir (its checkpoints and logs are deleted when this "
        "one starts); false: such a directory is refused unless resumed (CLI: --overwrite)",
    )
    log_every: int = option(
        50, "optimizer steps between logged values (the only per-step host syncs)"
    )
    progress: bool = option(True, "live progress bar per epoch and a one-line summary per epoch")
    quiet: bool = option(False, "print nothing but errors")


@dataclass(frozen=True)
class DataConfig:
    batch_size: int = option(64, "samples per micro-batch")
    eval_batch_size: int | None = option(None, "samples per validation batch; null: 4 x batch_size")
    shuffle: bool = option(True, "reshuffle the training data every epoch (order = f(seed, epoch))")
    drop_last: bool = option(False, "drop a short last batch (spares BatchNorm a tiny batch)")
    num_workers: int | Literal["auto"] = option(
        0, "Dataset worker processes (0: none; auto: measured)"
    )
    pin_memory: bool | None = option(
        None, "page-locked host batches; null: on when training on CUDA"
    )
    persistent_workers: bool = option(True, "keep workers alive between epochs")
    prefetch_factor: int = option(2, "batches each worker loads ahead")
    device_fraction: float = option(
        0.25, "tensors move to the GPU once if they fit in this share of it"
    )
    input_bound_threshold: float | None = option(
        0.2, "warn when data wait exceeds this share; null: off"
    )


@dataclass(frozen=True)
class TrainConfig:
    max_epochs: int = option(10, "passes over the training data")
    max_steps: int | None = option(
        None, "stop after this many optimizer steps (sets schedule length)"
    )
    max_time: float | str | None = option(
        None,
        "wall-time limit of this fit() call: 2h, 90m, 45s, 1h30m or seconds; when it is up the "
        "run saves and stops (exit 0; --resume auto goes on, with a new limit); null: none",
    )
    accumulate_steps: int = option(1, "micro-batches per optimizer step (gradient accumulation)")
    weight_by: str | None = option(
        None,
        "batch key with a per-batch count to weight by; `num_tokens` is used whenever a batch "
        "carries it, so set this only for another key",
    )
    precision: PrecisionMode = option(
        "auto",
        "auto (bf16 on CUDA GPUs that have it, else fp16 with GradScaler; fp32 on CPU and MPS) "
        "| fp32 | bf16 | fp16",
    )
    matmul_precision: Literal["auto", "highest", "high", "medium"] = option(
        "auto", "float32 matmuls; auto: high (TF32) on Ampere+ GPUs unless run.deterministic"
    )
    cudnn_benchmark: bool | None = option(
        None, "cuDNN autotuning; null: on for CUDA with static shapes unless run.deterministic"
    )
    channels_last: bool = option(False, "NHWC memory format for conv nets (weights and images)")
    clip_norm: float | None = option(
        1.0, "clip to this global L2 norm (after unscaling); null: off"
    )
    clip_value: float | None = option(None, "clamp each gradient element to [-v, v]; null: off")
    eval_every: int = option(1, "epochs between validations")
    eval_every_steps: int | None = option(
        None,
        "validate every N optimizer steps instead of at epoch ends (and at the end of the "
        "run); patience counts these evaluations; null: per epoch (train.eval_every)",
    )
    freeze: str | None = option(
        None, "modules (dotted paths, comma-separated) frozen for train.freeze_epochs"
    )
    freeze_epochs: int = option(0, "epochs before train.freeze's modules train too")
    ema_decay: float | None = option(
        None,
        "exponential moving average of the weights, e.g. 0.999 (with a warmup of the decay): "
        "validated, saved, left in the model and exported; null: off",
    )
    compile: bool | dict[str, Any] = option(
        False,
        "torch.compile the model's forward: true, or {mode, dynamic, fullgraph, backend, "
        "options}; compile time and graph breaks are reported at the end",
    )
    checkpoint_blocks: str | None = option(
        None,
        "activation checkpointing of these blocks (dotted paths, comma-separated; a ModuleList "
        "means each child; auto: model.blocks/layers/h...): recomputed in backward, less memory",
    )


_DURATION = re.compile(r"(\d+(?:\.\d*)?|\.\d+)\s*([dhms])")
_SECONDS = {"d": 86400.0, "h": 3600.0, "m": 60.0, "s": 1.0}


def duration_seconds(value: float | str | None, key: str = "train.max_time") -> float | None:
    """``value`` in seconds: a number, or ``2h``, ``90m``, ``45s``, ``1h30m``, ``1d``; None
    stays None. A `ConfigError` naming ``key`` and an example otherwise."""
    if value is None:
        return None
    seconds: float | None = None
    if isinstance(value, int | float) and not isinstance(value, bool):
        seconds = float(value)
    elif isinstance(value, str):
        text = value.strip().lower().replace(" ", "")
        parts = _DURATION.findall(text)
        if parts and "".join(f"{n}{u}" for n, u in parts) == text:
            seconds = sum(float(n) * _SECONDS[u] for n, u in parts)
    if seconds is None or not math.isfinite(seconds) or seconds <= 0:
        raise ConfigError(
            f"{key}={value!r} is not a positive duration; write e.g. {key}=2h, 90m, 45s, "
            "1h30m or a number of seconds (or null for no limit)"
        )
    return seconds


@dataclass(frozen=True)
class OptimConfig:
    name: Literal["adamw", "sgd"] = option("adamw", "optimizer")
    lr: float = option(1e-3, "peak learning rate")
    weight_decay: float = option(
        0.01, "decoupled weight decay; never on biases, norms, embeddings, 1-D"
    )
    betas: tuple[float, float] = option((0.9, 0.999), "AdamW moment coefficients")
    eps: float = option(1e-8, "AdamW denominator epsilon")
    momentum: float = option(0.9, "SGD momentum")
    nesterov: bool = option(False, "SGD Nesterov momentum")
    layer_decay: float | None = option(
        None, "layer-wise LR decay for fine-tuning (e.g. 0.75); null: off"
    )
    layers: str | None = option(
        None, "ModuleList path(s) for layer_decay, comma-separated; null: auto"
    )
    impl: Literal["auto", "fused", "foreach", "for_loop"] = option(
        "auto", "auto: fused where available"
    )


@dataclass(frozen=True)
class ScheduleConfig:
    name: ScheduleName = option("warmup_cosine", "LR schedule, stepped for you on its interval")
    warmup_steps: int = option(
        0, "optimizer steps of linear warmup (cosine, linear, constant, plateau)"
    )
    warmup_ratio: float = option(
        0.0, "warmup as a fraction of total steps (when warmup_steps is 0)"
    )
    min_lr_ratio: float = option(0.0, "floor of the decay, as a fraction of the peak LR")
    step_size: int = option(10, "step: epochs between decays")
    milestones: tuple[int, ...] = option((), "multistep: epochs at which the LR decays")
    gamma: float = option(0.1, "step, multistep, exponential: decay factor")
    cycle_epochs: int = option(10, "cosine_restarts: epochs in the first cycle")
    cycle_mult: int = option(1, "cosine_restarts: growth factor of each next cycle")
    pct_start: float = option(0.3, "one_cycle: fraction of steps spent increasing the LR")
    plateau_patience: int = option(2, "plateau: evaluations without improvement before a reduction")
    plateau_factor: float = option(0.5, "plateau: LR multiplier on each reduction")
    plateau_threshold: float = option(1e-4, "plateau: relative improvement that counts as better")


@dataclass(frozen=True)
class MonitorConfig:
    metric: str = option(
        "val_loss", "metric for best checkpoint, early stopping and plateau schedule"
    )
    mode: Literal["min", "max"] = option("min", "whether lower or higher is better")
    restore_best: bool = option(True, "after fit(), the model holds the best weights, not the last")

    # The one definition of "better": best tracking, early stopping, the plateau schedule and
    # checkpoint retention all ask the monitor section.
    def __post_init__(self) -> None:
        if self.mode not in ("min", "max"):
            raise ConfigError(f"monitor.mode={self.mode!r} must be 'min' or 'max'")

    def improved(
        self, value: float, best: float | None, *, min_delta: float = 0.0, rel: float = 0.0
    ) -> bool:
        """``value`` beats ``best`` by more than ``min_delta`` (absolute) and ``rel`` x |best|
        (relative); any finite-or-infinite non-NaN value beats no best at all. NaN never does."""
        if math.isnan(value):
            return False
        if best is None:
            return True
        margin = min_delta + abs(best) * rel
        if self.mode == "min":
            return value < best - margin
        return value > best + margin

    def rank_key(self, value: float) -> float:
        """Sort key, best first (ties keep their order: a tie is no improvement)."""
        return value if self.mode == "min" else -value

    def value_of(self, metrics: Mapping[str, float]) -> float:
        """The monitored value in ``metrics``; a `ConfigError` listing them when it is absent."""
        if self.metric not in metrics:
            available = sorted(k for k in metrics if k.endswith("loss") or k.startswith("val_"))
            raise ConfigError(
                f"monitor.metric={self.metric!r} is not among the metrics {available}; "
                "set monitor.metric to one of them"
            )
        return float(metrics[self.metric])


@dataclass(frozen=True)
class EarlyStopConfig:
    patience: int | None = option(
        None, "evaluations without improvement before stopping; null: off"
    )
    min_delta: float = option(
        0.0, "smallest change of the monitored metric that counts as improvement"
    )


@dataclass(frozen=True)
class CheckpointConfig:
    every_epochs: int | None = option(
        1, "save the full training state every N epochs (and at the end)"
    )
    every_steps: int | None = option(
        None, "also save every N optimizer steps, mid-epoch; null: off"
    )
    keep_last: int = option(2, "newest checkpoints to keep")
    keep_best: int = option(1, "best checkpoints (by monitor.metric) to keep besides the newest")
    async_save: bool = option(False, "copy state to CPU and write it in a background thread")
    sharded: bool | Literal["auto"] = option(
        "auto",
        "fsdp: every rank writes its own shards (torch.distributed.checkpoint) beside the "
        "step file; false: rank 0 writes the gathered full state as one file; auto: on "
        "under fsdp",
    )
    min_interval_s: float | None = option(
        None,
        "seconds between cadence/best saves at least; null: 20x the last save's time "
        "(saving <= ~5% of the run); 0: every due save. The end and a stop always save; "
        "a new best inside the interval is written before the next save",
    )
    grace_period_s: float = option(
        30.0, "warn when one save takes longer (preemption notices are short)"
    )
    resume: str | None = option(
        None, 'a checkpoint file, a run directory, or "auto" (this run\'s newest)'
    )


@dataclass(frozen=True)
class ProfileConfig:
    enabled: bool = option(
        False, "record a torch.profiler window into RUN/profile (CLI: --profile)"
    )
    wait: int = option(5, "optimizer steps before the window (nothing recorded, no cost)")
    warmup: int = option(2, "steps profiled but discarded (the profiler's own start-up)")
    active: int = option(5, "steps recorded into the trace and the top-operators table")


@dataclass(frozen=True)
class LogConfig:
    csv: bool = option(True, "RUN/metrics.csv beside metrics.jsonl: the same records as columns")
    tensorboard: bool | Literal["auto"] = option(
        "auto",
        "TensorBoard event files in RUN/tensorboard (torch.utils.tensorboard); auto: when the "
        "tensorboard package is installed (pip install 'trainwell[tensorboard]')",
    )
    plots: bool = option(
        False, "PNGs of loss, metrics, LR, grad norm, throughput into RUN/plots at the end"
    )
    mlflow: bool = option(
        False, "log the run to MLflow (pip install 'trainwell[mlflow]'); see log.mlflow_uri"
    )
    mlflow_uri: str | None = option(
        None, "MLflow tracking URI; null: a SQLite store in the run, sqlite:///RUN/mlflow.db"
    )
    mlflow_experiment: str = option("trainwell", "the MLflow experiment the runs go into")
    wandb: bool = option(False, "log the run to Weights & Biases (pip install 'trainwell[wandb]')")
    wandb_project: str = option("trainwell", "the W&B project the runs go into")
    wandb_mode: Literal["offline", "online"] = option(
        "offline", "offline: files under RUN/wandb, no account or network (wandb sync later)"
    )


@dataclass(frozen=True)
class NoModelConfig:
    """Placeholder for the `model` section when a job has no model options."""


@dataclass(frozen=True)
class Config:
    run: RunConfig = field(default_factory=RunConfig)
    data: DataConfig = field(default_factory=DataConfig)
    train: TrainConfig = field(default_factory=TrainConfig)
    optim: OptimConfig = field(default_factory=OptimConfig)
    schedule: ScheduleConfig = field(default_factory=ScheduleConfig)
    monitor: MonitorConfig = field(default_factory=MonitorConfig)
    early_stop: EarlyStopConfig = field(default_factory=EarlyStopConfig)
    checkpoint: CheckpointConfig = field(default_factory=CheckpointConfig)
    guards: GuardsConfig = field(
        default_factory=GuardsConfig, metadata={"help": "runtime guards (docs/guards.md)"}
    )
    profile: ProfileConfig = field(default_factory=ProfileConfig)
    log: LogConfig = field(
        default_factory=LogConfig, metadata={"help": "what the run directory logs besides JSONL"}
    )
    model: Any = field(
        default_factory=NoModelConfig, metadata={"help": "the recipe's own options (a dataclass)"}
    )

    def to_dict(self) -> dict[str, Any]:
        """The config as plain nested dicts (tuples become lists), ready for YAML or JSON."""
        return _plain(dataclasses.asdict(self))

    def replace(self, **sections: Any) -> Config:
        """A copy with whole sections replaced: ``cfg.replace(train=TrainConfig(max_epochs=3))``."""
        return dataclasses.replace(self, **sections)

    def fingerprint(self) -> str:
        """A short hash of the resolved config, stored with every checkpoint."""
        text = json.dumps(self.to_dict(), sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:16]


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value
