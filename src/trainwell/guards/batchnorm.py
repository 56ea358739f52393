"""BatchNorm in training fed a tiny batch (1 sample, or a short last batch of a few).

A forward pre-hook on each BatchNorm layer reads the batch dimension of its input (host-side
shape, no sync). Below ``min_batchnorm_batch`` samples the batch mean and variance are noise,
and the running statistics used at evaluation are dragged towards that noise.
"""

from __future__ import annotations

import torch
from torch import nn

from trainwell.guards.base import Guard
from trainwell.guards.hooks import Hook


class BatchNormBatchGuard(Guard):
    switch = "batchnorm_batch"

    def attach(self) -> None:
        for module in self.ctx.modules:
            if isinstance(module, nn.modules.batchnorm._BatchNorm):
                self.ctx.handles.append(module.register_forward_pre_hook(Hook(self._pre)))

    def _pre(self, module: nn.Module, args: tuple) -> None:
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
