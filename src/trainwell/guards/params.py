"""Parameters the optimizer never updates.

* submodules or tensors held in a plain ``list``/``dict``/``tuple`` attribute are invisible to
  ``model.parameters()``, so no optimizer built from it trains them (nor does ``.to()`` move
  them or ``state_dict()`` save them);
* trainable parameters of the model that are missing from the optimizer;
* optimizer parameters that are no longer the model's (the model was converted or reloaded
  with new Parameter objects after the optimizer was built: it updates the discarded copies).

Scanned at start; identities are compared again on the sampled steps (host only, no sync).
"""

from __future__ import annotations

import torch
from torch import nn

from trainwell.guards.base import Guard, optimizer_param_ids


class OptimizerParamsGuard(Guard):
    switch = "optimizer_params"

    def attach(self) -> None:
        ctx = self.ctx
        self._scan_attributes()
        # the model as the watch found it (walked once, in the Context)
        self._judge(ctx.params, ctx.param_names, ctx.param_ids)

    def on_step_pre(self) -> None:
        if self.ctx.due:
            self._compare()

    def _scan_attributes(self) -> None:
        ctx = self.ctx
        known = ctx.param_ids
        for module in ctx.modules:
            for attr, value in vars(module).items():
                if attr.startswith("_"):
                    continue
                hidden = _hidden(value, known)
                if hidden:
                    owner = ctx.name_of(module)
                    ctx.report(
                        "unregistered-module",
                        name="submodules/tensors held in a plain container",
                        message=(
                            f"{owner}.{attr} is a {type(value).__name__} holding {hidden}, "
                            "which model.parameters() does not see"
                        ),
                        where=f"{owner}.{attr}",
                        why=(
                            "their weights are never trained, moved by .to() or saved by "
                            "state_dict(); the model silently trains without them"
                        ),
                        fix=(
                            "use nn.ModuleList / nn.ModuleDict (or nn.Parameter / "
                            "nn.ParameterList for tensors)"
                        ),
                        switch=self.switch,
                    )

    def _compare(self) -> None:
        """The model now (a parameter added, unfrozen or replaced since the start): one walk
        of its modules' own parameters, names only when one is missing."""
        trainable: list[torch.Tensor] = []
        ids: set[int] = set()
        for module in self.ctx.model.modules():
            for p in module._parameters.values():
                if p is not None and id(p) not in ids:
                    ids.add(id(p))
                    if p.requires_grad:
                        trainable.append(p)
        self._judge(trainable, None, ids)

    def _judge(
        self, trainable: list[torch.Tensor], names: list[str] | None, model_ids: set[int]
    ) -> None:
        """``trainable``: the model's parameters that require grad (``names``: theirs, or None
        to look them up when needed); ``model_ids``: all its parameters."""
        ctx = self.ctx
        owned = optimizer_param_ids(ctx.optimizer)
        missing = [i for i, p in enumerate(trainable) if id(p) not in owned]
        if missing:
            if names is None:
                named = {id(p): n for n, p in ctx.model.named_parameters()}
                names = [named.get(id(p), "?") for p in trainable]
            missing = [names[i] for i in missing]
            ctx.report(
                "param-not-in-optimizer",
                name="trainable parameters missing from the optimizer",
                message=f"{len(missing)} trainable parameter(s) are not in the optimizer: "
                + _few(missing),
                where=_few(missing, 1),
                why="they keep receiving gradients but are never updated",
                fix=(
                    "build the optimizer from model.parameters() after the model is complete "
                    "(or set requires_grad=False on parameters meant to stay frozen)"
                ),
                switch=self.switch,
            )
        strays = sum(
            1 for g in ctx.optimizer.param_groups for p in g["params"] if id(p) not in model_ids
        )
        if strays:
            ctx.report(
                "optimizer-param-not-in-model",
                name="the optimizer updates tensors that are not the model's",
                message=(
                    f"{strays} optimizer parameter(s) are no longer parameters of the model "
                    "(the model got new Parameter objects after the optimizer was built)"
                ),
                where=type(ctx.optimizer).__name__,
                why=(
                    "the optimizer updates the discarded copies; the model's weights never change"
                ),
                fix=(
                    "convert/move the model (.half(), .to(dtype), load_state_dict(assign=True)) "
                    "before building the optimizer"
                ),
                switch=self.switch,
            )


def _hidden(value: object, known: set[int]) -> str:
    """What an attribute hides from parameters() ('' when nothing): aliases of registered
    modules and non-leaf tensors (cached activations) are fine."""
    items: list[object]
    if isinstance(value, nn.Module):
        return ""
    if isinstance(value, dict):
        items = list(value.values())
    elif isinstance(value, list | tuple | set):
        items = list(value)
    else:
        items = [value]
    modules = sum(
        1
        for v in items
        if isinstance(v, nn.Module) and any(id(p) not in known for p in v.parameters())
    )
    tensors = sum(
        1
        for v in items
        if isinstance(v, torch.Tensor) and v.is_leaf and v.requires_grad and id(v) not in known
    )
    parts = [
        f"{modules} module(s)" * bool(modules),
        f"{tensors} trainable tensor(s)" * bool(tensors),
    ]
    return " and ".join(p for p in parts if p)


def _few(names: list[str], most: int = 3) -> str:
    shown = ", ".join(names[:most])
    return shown + (f" (+{len(names) - most} more)" if len(names) > most else "")
