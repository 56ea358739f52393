"""Checks of values that a type cannot express (ranges, paths, combinations): each failure is
a `ConfigError` naming the key, the value and what it must be."""

from __future__ import annotations

import difflib
import re

from trainwell.config.compile import CompileSettings
from trainwell.config.guards import validate_guards
from trainwell.config.sections import Config, duration_seconds
from trainwell.errors import ConfigError

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
    "train.eval_every_steps",
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
#: The names ``run.strategy`` takes: the built-in strategies, and those
#: `trainwell.strategy.register_strategy` adds.
STRATEGY_NAMES = {"auto", "single", "ddp", "fsdp"}


def validate_config(config: Config) -> Config:
    """Reject values that type-check but cannot work, naming the key and the valid range."""
    _check_strategy_name(config.run.strategy)
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
    duration_seconds(config.train.max_time)  # 2h, 90m, 45s or seconds
    if config.train.eval_every_steps is not None and config.train.eval_every != 1:
        raise ConfigError(
            f"train.eval_every={config.train.eval_every} and train.eval_every_steps="
            f"{config.train.eval_every_steps} both set when to validate; keep one (with "
            "eval_every_steps, validation is every N steps and not at epoch ends)"
        )
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

    CompileSettings.of(config.train.compile)
    validate_guards(config.guards)
    return config


def _check_strategy_name(name: str) -> None:
    if name in STRATEGY_NAMES:
        return
    close = difflib.get_close_matches(name, sorted(STRATEGY_NAMES), n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    raise ConfigError(
        f"run.strategy={name!r} is not a strategy{hint}; known: {', '.join(sorted(STRATEGY_NAMES))} "
        "(more with trainwell.strategy.register_strategy)"
    )
