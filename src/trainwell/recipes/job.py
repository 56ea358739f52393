"""Jobs to train: a model, its data and a config. ``trainwell recipes`` lists the built-in ones.

The recipe contract (docs/cli.md, "Your own recipe")
-----------------------------------------------------
A recipe is a function ``build(config: Config) -> Job``, named on the command line as
``--recipe module:function`` (``module`` is imported from the working directory or
``PYTHONPATH``). It receives the resolved `Config` — the recipe's defaults, then the
``--config`` files, then the ``--set`` overrides — and returns a `Job`: the model (a
``torch.nn.Module``, freshly built; ``fit()`` moves it to the device) and the data, plus
optionally the loss, the metrics and a ``step_fn``. It must not train, move the model or seed
anything itself: ``trainwell`` seeds (``run.seed``) before calling it, so the initial weights
are part of the run.

A recipe declares its defaults, and its own ``model:`` config section, by attaching a
`Config` to the function::

    @dataclass(frozen=True)
    class ModelConfig:
        hidden: int = 128  # width of the hidden layer

    def build(config: Config) -> Job:
        m = config.model  # a ModelConfig, with --set model.hidden=... applied
        ...

    build.config = Config(train=TrainConfig(max_epochs=10), model=ModelConfig())

``model.*`` keys are then checked like every other key: unknown keys and wrong types are
refused. Without ``build.config`` the defaults are `Config()` and the ``model`` section is
empty.

The run directory records where the module was imported from (``recipe.json``), so
``trainwell resume``/``eval`` of the run work from any working directory. Data paths inside
a recipe should be absolute or relative to the recipe's own file (``Path(__file__).parent``),
not to the working directory.

A built-in recipe is a module here with ``DESCRIPTION``, a ``ModelConfig`` dataclass,
``CONFIG`` (its default `Config`) and ``build(config) -> Job``.
"""

from __future__ import annotations

import importlib
import sys
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from trainwell.errors import ConfigError

BUILTIN = {
    "digits": "trainwell.recipes.digits",
    "spiral": "trainwell.recipes.spiral",
    "gan": "trainwell.recipes.gan",
    "charlm": "trainwell.recipes.charlm",
    "fused": "trainwell.recipes.fused",
    "tabular": "trainwell.recipes.tabular",
    "finetune": "trainwell.recipes.finetune",
}
DEFAULT = "digits"
#: The file in a run directory that says where a ``module:function`` recipe was imported from.
RECIPE_FILE = "recipe.json"

_MUST_RETURN = (
    "a recipe must return trainwell.recipes.Job(model=<torch.nn.Module>, "
    "train_data=..., val_data=..., loss=..., metrics=...)"
)


@dataclass
class Job:
    """What a recipe returns: everything `fit()` needs besides the config.

    - ``model``: a ``torch.nn.Module`` (required), built fresh from ``config.model``;
    - ``train_data`` (required) / ``val_data``: a Dataset, a DataLoader, or tensors/arrays
      ``(X, y)`` (``val_data`` also several sets by name, ``{"clean": ..., "noisy": ...}``); without ``val_data`` there is no validation, no best checkpoint and
      nothing for ``trainwell eval`` to measure;
    - ``test_data``: held out from training and from model selection, for
      ``trainwell eval RUN --split test`` only;
    - ``loss``: ``loss(model(x), y)``, default ``CrossEntropyLoss``;
    - ``metrics``: names (``["accuracy"]``) or `Metric` objects measured on ``val_data``;
    - ``step_fn``: ``step_fn(model, batch) -> loss`` (or ``(loss, outputs)``) for models whose
      training loss is not ``loss(model(x), y)`` (it never validates);
    - ``val_step_fn``: the same for validation (``trainwell eval`` too); without it validation
      is the plain ``loss(model(x), y)``;
    - ``train_step``: a `trainwell.step.TrainStep` (subclass) that replaces the whole optimizer
      step, with its own optimizers (several, e.g. a GAN: see ``trainwell.recipes.gan``);
    - ``observers``: `trainwell.Observer` objects of the recipe's own (a picture it records);
    - ``extra``: anything else the recipe wants to hand back (not used by ``fit()``).
    """

    model: Any
    train_data: Any
    val_data: Any = None
    test_data: Any = None
    loss: Any = None
    metrics: Any = None
    step_fn: Any = None
    val_step_fn: Any = None
    train_step: Any = None
    observers: list[Any] = field(default_factory=list)
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


def check_job(job: Any, spec: str) -> Any:
    """``job`` if it is a `Job` `fit()` can train; `ConfigError` saying what a recipe returns."""
    if not isinstance(job, Job):
        got = "None" if job is None else f"a {type(job).__name__}"
        raise ConfigError(f"recipe {spec!r} returned {got}; {_MUST_RETURN}")
    from torch import nn

    if not isinstance(job.model, nn.Module):
        raise ConfigError(
            f"recipe {spec!r}: Job.model must be a torch.nn.Module, not a "
            f"{type(job.model).__name__}; {_MUST_RETURN}"
        )
    if job.train_data is None:
        raise ConfigError(f"recipe {spec!r}: Job.train_data is None; {_MUST_RETURN}")
    return job


def recipe_origin(spec: str) -> dict[str, str] | None:
    """Where the (imported) module of recipe ``spec`` came from: its file and the ``sys.path``
    entry it was found under; None for a built-in recipe or a module without a file."""
    module_name = spec.partition(":")[0]
    module = sys.modules.get(module_name)
    file = getattr(module, "__file__", None)
    if ":" not in spec or not file:
        return None
    root = Path(file).resolve()
    if root.name == "__init__.py":
        root = root.parent  # the package directory stands for the last dotted part
    for _ in module_name.split("."):
        root = root.parent
    return {
        "recipe": spec,
        "module": module_name,
        "file": str(Path(file).resolve()),
        "sys_path": str(root),
    }
