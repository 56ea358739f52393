"""Frozen modules for the first epochs of a run (``train.freeze``, ``train.freeze_epochs``).

The usual fine-tuning schedule: train a new head on a pretrained backbone with the backbone
frozen, then unfreeze it (often with a lower LR: ``optim.layer_decay``). The modules named in
``train.freeze`` (dotted paths, comma-separated) get ``requires_grad=False`` until the step
count reaches ``train.freeze_epochs`` epochs of steps, then ``True``: while frozen they get no
gradient, so the optimizer neither moves them nor builds moments for them, and weight decay
leaves them alone. The state is a function of the step count, so a resumed run freezes
exactly as an unbroken one. `TrainStep` applies it before each step.
"""

from __future__ import annotations

from collections.abc import Sequence

from torch import nn

from trainwell.errors import ConfigError


class Freezing:
    """``paths`` of ``model`` frozen while fewer than ``until_step`` steps are done."""

    def __init__(self, model: nn.Module, paths: str | Sequence[str], until_step: int) -> None:
        names = [p.strip() for p in paths.split(",")] if isinstance(paths, str) else list(paths)
        self.parameters = [p for name in names if name for p in _module(model, name).parameters()]
        self.until_step = until_step
        self.frozen: bool | None = None  # not applied yet

    def apply(self, steps_done: int) -> None:
        """Freeze or unfreeze for the step about to run (a no-op unless that changes)."""
        frozen = steps_done < self.until_step
        if frozen is not self.frozen:
            for parameter in self.parameters:
                parameter.requires_grad_(not frozen)
            self.frozen = frozen


def _module(model: nn.Module, path: str) -> nn.Module:
    try:
        return model.get_submodule(path)
    except AttributeError:
        children = [name for name, _ in model.named_children()]
        raise ConfigError(
            f"train.freeze: the model has no module {path!r}; its top-level modules are {children}"
        ) from None
