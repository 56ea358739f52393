"""Config is data: one frozen dataclass tree with a default and a one-line doc per field.

Load it from YAML or TOML files plus ``section.key=value`` overrides. Unknown keys and values
of the wrong type are rejected with the key's name and the closest valid key. Each part of the
loop receives only its own section.
"""

from __future__ import annotations

import dataclasses
import difflib
import hashlib
import json
import re
import sys
import types
import typing
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Union

import yaml

from trainwell.errors import ConfigError
from trainwell.fields import option
from trainwell.guards.config import GuardsConfig, validate_guards

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
    strategy: Literal["auto", "single", "ddp", "fsdp"] = option(
        "auto",
        "auto: single in one process; under torchrun ddp when weights, gradients and AdamW "
        "state (16 bytes/parameter) fit in half of one device's memory, else fsdp",
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
    accumulate_steps: int = option(1, "micro-batches per optimizer step (gradient accumulation)")
    weight_by: str | None = option(
        None, "batch key with a per-batch count (e.g. num_tokens) to weight by"
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


# --------------------------------------------------------------------------- building


def build_config(
    values: Mapping[str, Any] | None = None,
    overrides: Iterable[str] = (),
    *,
    base: Config | None = None,
    model_type: type | None = None,
) -> Config:
    """Build a `Config` from nested ``values`` and ``section.key=value`` override strings.

    ``base`` supplies defaults (e.g. a recipe's); ``model_type`` is the dataclass of the
    ``model`` section. Raises `ConfigError` naming the key and the closest valid key.
    """
    base = base or Config()
    if model_type is None:
        model_type = type(base.model)
    tree = base.to_dict()
    tree["model"] = _plain(dataclasses.asdict(base.model))
    if values:
        _merge(tree, _check_mapping(values, "config"), Config, model_type, prefix="")
    for item in overrides:
        key, value = _parse_override(item)
        _merge(tree, _nest(key, value), Config, model_type, prefix="")
    return validate_config(_construct(Config, tree, model_type, prefix=""))


def load_config(
    paths: Iterable[str | Path] = (),
    overrides: Iterable[str] = (),
    *,
    base: Config | None = None,
    model_type: type | None = None,
) -> Config:
    """Load YAML/TOML files (later files win), then apply ``section.key=value`` overrides."""
    merged: dict[str, Any] = {}
    for path in paths:
        _deep_update(merged, read_config_file(path))
    return build_config(merged, overrides, base=base, model_type=model_type)


def read_config_file(path: str | Path) -> dict[str, Any]:
    """Read one YAML or TOML config file into nested dicts."""
    path = Path(path)
    if not path.is_file():
        raise ConfigError(
            f"config file {path} does not exist; pass the path of a .yaml or .toml file"
        )
    text = path.read_text()
    try:
        if path.suffix == ".toml":
            if sys.version_info >= (3, 11):
                import tomllib
            else:  # pragma: no cover - Python 3.10
                import tomli as tomllib
            data = tomllib.loads(text)
        else:
            data = yaml.safe_load(text) or {}
    except Exception as exc:  # both parsers raise their own error types
        raise ConfigError(f"config file {path} does not parse: {exc}") from None
    if not isinstance(data, dict):
        raise ConfigError(
            f"config file {path} must hold a mapping of sections, not {type(data).__name__}"
        )
    return data


def save_config(config: Config, path: str | Path) -> None:
    """Write the resolved config as YAML."""
    from trainwell.atomic import write_text_atomic  # a kill mid-write must not lose the config

    write_text_atomic(yaml.safe_dump(config.to_dict(), sort_keys=False), path)


def config_help(config: Config | None = None) -> str:
    """Every config key with its default and its one-line doc, for ``--help`` screens."""
    config = config or Config()
    lines = []
    for section in dataclasses.fields(config):
        sub = getattr(config, section.name)
        if not dataclasses.is_dataclass(sub):
            continue
        for f in dataclasses.fields(sub):
            default = getattr(sub, f.name)
            lines.append(
                f"  {section.name}.{f.name}={_as_written(default)}  {field_help(f)}".rstrip()
            )
    return "\n".join(lines)


def field_help(f: dataclasses.Field[Any]) -> str:
    """A config field's one-line help: its ``metadata["help"]`` (see `option`), or ""."""
    return f.metadata.get("help") or ""


#: Help for the ``guards`` keys until `GuardsConfig` (trainwell/guards/config.py) carries it in
#: its fields' metadata, like the sections above; a field's own metadata wins. Delete this then.


def _as_written(value: Any) -> str:
    """A value as it is written in a config file or override: null, true, [0.9, 0.999]."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list | tuple):
        return f"[{', '.join(_as_written(v) for v in value)}]"
    if isinstance(value, str):
        return value if value and _parse_yaml_scalar(value) == value else json.dumps(value)
    return repr(value)


def _deep_update(target: dict[str, Any], source: Mapping[str, Any]) -> None:
    for key, value in source.items():
        if isinstance(value, Mapping) and isinstance(target.get(key), dict):
            _deep_update(target[key], value)
        else:
            target[key] = dict(value) if isinstance(value, Mapping) else value


def _parse_override(item: str) -> tuple[str, Any]:
    key, sep, raw = item.partition("=")
    if not sep or not key.strip():
        raise ConfigError(
            f"override {item!r} is not of the form section.key=value (e.g. optim.lr=3e-4)"
        )
    try:
        value = yaml.safe_load(raw) if raw.strip() else None
    except yaml.YAMLError:
        value = raw
    return key.strip(), value


def _nest(dotted: str, value: Any) -> dict[str, Any]:
    parts = dotted.split(".")
    nested: dict[str, Any] = {parts[-1]: value}
    for part in reversed(parts[:-1]):
        nested = {part: nested}
    return nested


def _check_mapping(value: Any, where: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise ConfigError(f"{where} must be a mapping of keys to values, got {value!r}")
    return value


def _merge(tree: dict, values: Mapping, cls: type, model_type: type, prefix: str) -> None:
    hints = _hints(cls, model_type)
    for key, value in values.items():
        name = f"{prefix}{key}"
        if key not in hints:
            raise ConfigError(_unknown_key_message(name, prefix, list(hints), value))
        sub = _dataclass_of(hints[key])
        if sub is not None:
            _merge(
                tree.setdefault(key, {}), _check_mapping(value, name), sub, model_type, f"{name}."
            )
        elif isinstance(value, Mapping) and isinstance(tree.get(key), dict):
            _deep_update(tree[key], value)  # train.compile.mode=..., then train.compile.dynamic=...
        else:
            tree[key] = dict(value) if isinstance(value, Mapping) else value


def _construct(cls: type, tree: Mapping, model_type: type, prefix: str) -> Any:
    hints = _hints(cls, model_type)
    kwargs = {}
    for f in dataclasses.fields(cls):
        if f.name not in tree:
            continue
        name = f"{prefix}{f.name}"
        sub = _dataclass_of(hints[f.name])
        if sub is not None:
            kwargs[f.name] = _construct(sub, tree[f.name], model_type, f"{name}.")
        else:
            kwargs[f.name] = _coerce(tree[f.name], hints[f.name], name)
    return cls(**kwargs)


def _hints(cls: type, model_type: type) -> dict[str, Any]:
    hints = typing.get_type_hints(cls)
    if cls is Config:
        hints["model"] = model_type
    return hints


def _dataclass_of(tp: Any) -> type | None:
    return tp if isinstance(tp, type) and dataclasses.is_dataclass(tp) else None


def _unknown_key_message(name: str, prefix: str, valid: list[str], value: Any = None) -> str:
    key = name[len(prefix) :]
    close = difflib.get_close_matches(key, valid, n=1, cutoff=0.5)
    if not close:
        return f"unknown config key {name!r}; valid keys: {', '.join(prefix + v for v in valid)}"
    suggestion = f"{prefix}{close[0]}"
    if isinstance(value, Mapping) and len(value) == 1:  # a misspelt section: name the whole key
        suggestion += f".{next(iter(value))}"
    return f"unknown config key {name!r}; did you mean {suggestion}?"


def _coerce(value: Any, tp: Any, name: str) -> Any:
    """``value`` converted to type ``tp``, or a one-line `ConfigError` in plain words."""
    ok, result = _convert(value, tp)
    if ok:
        return result
    raise ConfigError(_mismatch(value, tp, name))


_NoneType = type(None)


def _is_union(tp: Any) -> bool:
    return typing.get_origin(tp) in (Union, types.UnionType)


def _says_none(value: Any) -> bool:
    """The text None (Python's spelling), which YAML reads as a string, not as null."""
    return isinstance(value, str) and value.strip().lower() == "none"


def _convert(value: Any, tp: Any) -> tuple[bool, Any]:
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if _is_union(tp):
        if _NoneType in args:
            if value is None:
                return True, None
            if _says_none(value):  # not a directory called "None": the user meant null
                return False, None
        for arg in (a for a in args if a is not _NoneType):
            ok, result = _convert(value, arg)
            if ok:
                return True, result
        return False, None
    if origin is Literal:
        return (value in args and not isinstance(value, bool)), value
    if origin is tuple:
        if not isinstance(value, list | tuple):
            return False, None
        items = args[:1] * len(value) if len(args) == 2 and args[1] is Ellipsis else args
        if len(value) != len(items):
            return False, None
        converted = [_convert(v, a) for v, a in zip(value, items, strict=True)]
        return all(ok for ok, _ in converted), tuple(r for _, r in converted)
    if tp is Any:
        return True, value
    if tp is bool:
        return isinstance(value, bool), value
    if tp is int:
        return (isinstance(value, int) and not isinstance(value, bool)), value
    if tp is float:
        if isinstance(value, int | float) and not isinstance(value, bool):
            return True, float(value)
        if isinstance(value, str):  # YAML 1.1 reads 1e-3 (no dot) as a string
            try:
                return True, float(value)
            except ValueError:
                pass
        return False, None
    if tp is str:
        return isinstance(value, str), value
    return True, value


def _mismatch(value: Any, tp: Any, name: str) -> str:
    """Why ``value`` does not fit ``tp``, in words a user can act on."""
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if _is_union(tp) and _NoneType in args and _says_none(value):
        return f"{name}={value!r} is read as the text {value.strip()!r}; write null, not None"
    if isinstance(value, str):
        parsed = _parse_yaml_scalar(value)
        if not isinstance(parsed, str) and _convert(parsed, tp)[0]:
            return (
                f"{name}={value!r} is a string (quoted in the file?); "
                f"write {value.strip()} without quotes"
            )
    if origin is Literal:
        close = difflib.get_close_matches(str(value), [str(a) for a in args], n=1, cutoff=0.4)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        return f"{name}={value!r} is not one of {', '.join(map(repr, args))}{hint}"
    if origin is tuple and isinstance(value, list | tuple):
        items = args[:1] * len(value) if len(args) == 2 and args[1] is Ellipsis else args
        if len(value) == len(items):
            for i, (v, a) in enumerate(zip(value, items, strict=True)):
                if not _convert(v, a)[0]:
                    return _mismatch(v, a, f"{name}[{i}]")
    message = f"{name}={value!r} must be {_describe(tp, name)}"
    choices = [str(a) for a in _literal_choices(tp)]
    if isinstance(value, str) and choices:
        close = difflib.get_close_matches(value, choices, n=1, cutoff=0.4)
        if close:
            message += f"; did you mean {close[0]!r}?"
    elif _accepts_str(tp) and isinstance(value, int | float):
        message += f"; to mean the text, quote it: '{value}'"
    return message


def _parse_yaml_scalar(text: str) -> Any:
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError:
        return text


def _literal_choices(tp: Any) -> list[Any]:
    if typing.get_origin(tp) is Literal:
        return list(typing.get_args(tp))
    if _is_union(tp):
        return [c for a in typing.get_args(tp) for c in _literal_choices(a)]
    return []


def _accepts_str(tp: Any) -> bool:
    return tp is str or (_is_union(tp) and str in typing.get_args(tp))


def _describe(tp: Any, name: str = "") -> str:
    """A type in plain words: "a whole number >= 0 or auto", "a list of 2 numbers", ..."""
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if _is_union(tp):
        options = [a for a in args if a is not _NoneType]
        text = _join_or([_describe(a, name) for a in options])
        if len(options) == len(args):
            return text
        return "true, false or null" if options == [bool] else f"{text}, or null"
    if origin is Literal:
        words = [str(a) for a in args]
        return _join_or(words) if len(words) <= 2 else f"one of {', '.join(words)}"
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return f"a list of {_plural(args[0])}"
        if len(set(args)) == 1:
            return f"a list of {len(args)} {_plural(args[0])}"
        return f"a list of {len(args)} values ({', '.join(_describe(a) for a in args)})"
    bound = f" {_BOUNDS[name]}" if name in _BOUNDS else ""
    if tp is bool:
        return "true or false"
    if tp is int:
        return f"a whole number{bound}"
    if tp is float:
        return f"a number{bound}"
    if tp is str:
        return "a string"
    if tp is Any:
        return "any value"
    return getattr(tp, "__name__", str(tp))


def _plural(tp: Any) -> str:
    plurals = {int: "whole numbers", float: "numbers", bool: "true/false values", str: "strings"}
    return plurals.get(tp) or f"values that are each {_describe(tp)}"


def _join_or(words: list[str]) -> str:
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} or {words[-1]}"


# --------------------------------------------------------------------------- value checks

_POSITIVE = {
    "run.log_every",
    "data.batch_size",
    "data.prefetch_factor",
    "train.max_epochs",
    "train.accumulate_steps",
    "train.eval_every",
    "schedule.step_size",
    "schedule.cycle_epochs",
    "schedule.cycle_mult",
    "schedule.plateau_patience",
    "checkpoint.keep_last",
    "checkpoint.grace_period_s",
}
_NON_NEGATIVE = {
    "schedule.warmup_steps",
    "optim.weight_decay",
    "early_stop.min_delta",
    "schedule.min_lr_ratio",
    "checkpoint.keep_best",
}
_POSITIVE_OR_NULL = (
    "data.eval_batch_size",
    "train.max_steps",
    "early_stop.patience",
    "checkpoint.every_epochs",
    "checkpoint.every_steps",
)
_POSITIVE_NUMBERS = ("train.clip_norm", "train.clip_value", "optim.lr")
#: The valid range of each numeric key, added to type errors ("a whole number > 0").
_BOUNDS: dict[str, str] = {
    **{key: "> 0" for key in (*_POSITIVE, *_POSITIVE_OR_NULL, *_POSITIVE_NUMBERS)},
    **{key: ">= 0" for key in (*_NON_NEGATIVE, "data.num_workers")},
    "data.device_fraction": "in [0, 1]",
    "data.input_bound_threshold": "in (0, 1)",
    "schedule.warmup_ratio": "in [0, 1)",
    "schedule.pct_start": "in (0, 1)",
    "optim.layer_decay": "in (0, 1]",
}
_DOTTED_PATH = re.compile(r"[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)*")


def validate_config(config: Config) -> Config:
    """Reject values that type-check but cannot work, naming the key and the valid range."""
    for key in _POSITIVE | _NON_NEGATIVE:
        section, name = key.split(".")
        value = getattr(getattr(config, section), name)
        low_ok = value > 0 if key in _POSITIVE else value >= 0
        if not low_ok:
            bound = "> 0" if key in _POSITIVE else ">= 0"
            raise ConfigError(f"{key}={value!r} must be {bound}")
    for key in _POSITIVE_OR_NULL:
        section, name = key.split(".")
        value = getattr(getattr(config, section), name)
        if value is not None and value <= 0:
            raise ConfigError(f"{key}={value!r} must be > 0, or null to turn it off")
    for key in _POSITIVE_NUMBERS:
        section, name = key.split(".")
        value = getattr(getattr(config, section), name)
        if value is not None and not value > 0:
            raise ConfigError(f"{key}={value!r} must be > 0")
    profile = config.profile
    for name, low in (("wait", 0), ("warmup", 0), ("active", 1)):
        if getattr(profile, name) < low:
            raise ConfigError(f"profile.{name}={getattr(profile, name)!r} must be >= {low}")
    interval = config.checkpoint.min_interval_s
    if interval is not None and interval < 0:
        raise ConfigError(
            f"checkpoint.min_interval_s={interval!r} must be >= 0 (0: every due save), or null "
            "(auto)"
        )
    workers = config.data.num_workers
    if workers != "auto" and workers < 0:
        raise ConfigError(f"data.num_workers={workers!r} must be >= 0, or auto")
    if not 0.0 <= config.data.device_fraction <= 1.0:
        raise ConfigError(f"data.device_fraction={config.data.device_fraction} must be in [0, 1]")
    threshold = config.data.input_bound_threshold
    if threshold is not None and not 0.0 < threshold < 1.0:
        raise ConfigError(f"data.input_bound_threshold={threshold} must be in (0, 1), or null")
    if not 0.0 <= config.schedule.warmup_ratio < 1.0:
        raise ConfigError(f"schedule.warmup_ratio={config.schedule.warmup_ratio} must be in [0, 1)")
    if not 0.0 < config.schedule.pct_start < 1.0:
        raise ConfigError(f"schedule.pct_start={config.schedule.pct_start} must be in (0, 1)")
    if config.optim.layer_decay is not None and not 0.0 < config.optim.layer_decay <= 1.0:
        raise ConfigError(f"optim.layer_decay={config.optim.layer_decay} must be in (0, 1]")
    layers = config.optim.layers
    if layers is not None:
        for part in layers.split(","):
            if not _DOTTED_PATH.fullmatch(part.strip()):
                raise ConfigError(
                    f"optim.layers={layers!r} must be a dotted path to the ModuleList of layers "
                    f"(e.g. encoder.layers), or several separated by commas; {part.strip()!r} "
                    "is not one"
                )
    from trainwell.compiling import CompileSettings  # the keys of train.compile

    CompileSettings.of(config.train.compile)
    validate_guards(config.guards)
    return config
