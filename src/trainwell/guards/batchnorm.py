"""BatchNorm in training fed a tiny batch (1 sample, or a short last batch of a few).

A forward pre-hook on each BatchNorm layer reads the batch dimension of its input (host-side
shape, no sync). Below ``min_batchnorm_batch`` samples the batch mean and variance are noise,
and the running statistics used at evaluation are dragged towards that noise.

Under `watch()` the hooks are not there on every forward: a hook on a layer sends each of its
calls through the slow path of ``Module.__call__``. The watch sees the model's input before
each forward (`hooks.before_call_with`, on the wrapper it has anyway); the layers' hooks are
added for a forward whose input shape or train/eval mode differs from the last forward's (the
first one, a short last batch, validation, back to training) and each takes itself off after
one call. A forward with the same input shape and mode feeds every layer the batch it fed last
time, already checked. A model whose first argument is not a tensor, `fit()`, and a model whose
own class is also used inside it keep the hooks on every forward.
"""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

from trainwell.guards.base import Guard
from trainwell.guards.hooks import Hook, before_call_with


class BatchNormBatchGuard(Guard):
    switch = "batchnorm_batch"

    def attach(self) -> None:
        ctx = self.ctx
        self.layers = [m for m in ctx.modules if isinstance(m, nn.modules.batchnorm._BatchNorm)]
        self.hooks: dict[nn.Module, Any] = {}  # layer -> its pre-hook handle, while it has one
        self.always = False  # the hooks stay on every forward
        self.last: tuple[Any, bool] | None = None  # (input shape, model.training) last forward
        if not self.layers:
            return
        if not ctx.forward_wrapped:
            self.always = True
            self._add_hooks()
            return
        ctx.handles.append(before_call_with(ctx.model, "forward", Hook(self._before_forward)))

    def close(self) -> None:
        for handle in self.hooks.values():
            handle.remove()
        self.hooks.clear()

    def _before_forward(self, args: tuple, kwargs: Any) -> None:
        if self.always:
            return
        x = args[0] if args else None
        if type(x) is not torch.Tensor:  # a dict, a tuple: the shape is not one tensor's
            self.always = True
            self._add_hooks()
            return
        now = (x.shape, self.ctx.model.training)
        if now == self.last:
            return  # the batch every layer was checked for last time
        self.last = now
        self._add_hooks()

    def _add_hooks(self) -> None:
        for layer in self.layers:
            if layer not in self.hooks:
                self.hooks[layer] = layer.register_forward_pre_hook(Hook(self._pre))

    def _pre(self, module: nn.Module, args: tuple) -> None:
        if not self.always:  # one call: the next forward with this input shape needs none
            handle = self.hooks.pop(module, None)
            if handle is not None:
                handle.remove()
        if not module.training or not args or not isinstance(args[0], torch.Tensor):
            return
        size = args[0].shape[0] if args[0].dim() > 0 else 0
        if size >= self.ctx.config.min_batchnorm_batch:
            return
        name = self.ctx.name_of(module)
        self.ctx.report(
            "batchnorm-small-batch",
            name="BatchNorm trained on a tiny batch",
            message=f"{name} ({type(module).__name__}) got a training batch of {size}",
            where=name,
            why=(
                "batch statistics of a few samples are noise: the normalisation is erratic "
                "and the running statistics used at evaluation drift"
            ),
            fix=(
                "drop the short last batch (DataLoader(drop_last=True), data.drop_last=true "
                "in fit), use larger batches, or GroupNorm/LayerNorm for tiny batches"
            ),
            switch=self.switch,
        )
