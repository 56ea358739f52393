"""Consecutive training batches with identical content: the same data drawn twice.

The classic cause is DataLoader workers that replicate each other: an ``IterableDataset``
without per-worker sharding, or a dataset that draws its samples (or augmentations) from an RNG
every worker inherited in the same state. Batch ``k`` of worker 0 then equals batch ``k`` of
worker 1, and they arrive one after the other.

At each sampled step three consecutive training batches are fingerprinted (a strided sample of
at most 512 values of the first input tensor) and compared on the device. Identical data
everywhere (full-batch training, overfitting one batch on purpose) or constant batches are not
reported: only a mix of identical and different consecutive pairs is.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import torch

from trainwell.guards.base import ForwardRecord, Guard, first_tensor

_SAMPLE = 512
_WINDOW = 3  # batches fingerprinted per sampled step: two consecutive pairs


class DuplicateBatchGuard(Guard):
    switch = "duplicate_batches"

    def attach(self) -> None:
        self.remaining = _WINDOW
        self.previous: torch.Tensor | None = None
        self.same: torch.Tensor | None = None  # device: an identical non-constant pair was seen
        self.different: torch.Tensor | None = None  # device: a differing pair was seen
        self.host_different = False  # a pair differed in shape (known without the device)

    def on_forward(
        self,
        args: tuple,
        kwargs: Mapping[str, Any],
        output: Any,
        record: ForwardRecord | None,
        grad_enabled: bool,
    ) -> None:
        if self.remaining == 0 or record is None or not record.training:
            return
        self.remaining -= 1
        batch = first_tensor(args)
        if batch is None or batch.numel() == 0:
            return
        flat = batch.detach().reshape(-1)
        sample = flat[:: max(1, flat.numel() // _SAMPLE)][:_SAMPLE]
        previous, self.previous = self.previous, sample.clone()
        if previous is None:
            return
        if previous.shape != sample.shape or previous.dtype != sample.dtype:
            self.host_different = True
            return
        equal = (previous == sample).all()
        varied = sample.amax() != sample.amin()  # a constant batch says nothing
        if self.same is None:
            self.same = torch.zeros((), dtype=torch.bool, device=sample.device)
            self.different = torch.zeros((), dtype=torch.bool, device=sample.device)
        self.same |= equal & varied
        self.different |= ~equal

    def on_step_post(self) -> None:
        if self.ctx.due:
            self.remaining, self.previous = _WINDOW, None

    def on_read(self) -> None:
        if self.same is None or self.different is None:
            return
        same, different = torch.stack([self.same, self.different]).tolist()
        if not (same and (different or self.host_different)):
            return
        self.ctx.report(
            "duplicate-batches",
            name="identical consecutive training batches",
            message="two consecutive training batches had identical inputs",
            where="training data",
            why=(
                "the model sees the same samples (or the same augmentation) twice per round "
                "of workers: fewer distinct samples per epoch than you think"
            ),
            fix=(
                "shard an IterableDataset per worker (torch.utils.data.get_worker_info()), and "
                "seed per-worker RNGs in worker_init_fn (numpy, random) from torch.initial_seed()"
            ),
            switch=self.switch,
        )
