"""Built-in jobs: a model, its data and a config, each small. ``trainwell recipes`` lists them.

A recipe is a module with ``DESCRIPTION``, a ``ModelConfig`` dataclass (its ``model`` section),
``CONFIG`` (its default `Config`) and ``build(config) -> Job``. A user's own recipe is named as
``module:function`` where the function takes a `Config` and returns a `Job`.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from trainwell.errors import ConfigError

BUILTIN = {"digits": "trainwell.recipes.digits", "spiral": "trainwell.recipes.spiral"}
DEFAULT = "digits"


@dataclass
class Job:
    """Everything `fit()` needs besides the config."""

    model: Any
    train_data: Any
    val_data: Any = None
    loss: Any = None
    metrics: Any = None
    step_fn: Any = None
    extra: dict[str, Any] = field(default_factory=dict)


def load_recipe(name: str) -> ModuleType:
    """The recipe module for a built-in ``name``."""
    if name not in BUILTIN:
        import difflib

        close = difflib.get_close_matches(name, list(BUILTIN), n=1)
        hint = f"did you mean {close[0]!r}? " if close else ""
        raise ConfigError(
            f"unknown recipe {name!r}; {hint}built-in recipes: {', '.join(BUILTIN)} "
            "(or name your own as module:function)"
        )
    return importlib.import_module(BUILTIN[name])


def load_user_recipe(spec: str) -> Any:
    """The function named by ``module:function`` (the module must be importable)."""
    module_name, _, func_name = spec.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ConfigError(f"cannot import recipe module {module_name!r}: {exc}") from None
    func = getattr(module, func_name, None)
    if not callable(func):
        raise ConfigError(f"{module_name!r} has no function {func_name!r} (recipe {spec!r})")
    return func
