"""Consecutive training batches with identical content: the same data drawn twice.

The classic cause is DataLoader workers that replicate each other: an ``IterableDataset``
without per-worker sharding, or a dataset that draws its samples (or augmentations) from an RNG
every worker inherited in the same state. Batch ``k`` of worker 0 then equals batch ``k`` of
worker 1, and they arrive one after the other.

On the first three steps of every ``every`` (the armed steps, the very first ones included) three
consecutive training batches are fingerprinted (a strided sample of at most 512 values of the
first input tensor) and compared on the device; the guard's cadence read reads the flags. Identical data
everywhere (full-batch training, overfitting one batch on purpose) or constant batches are not
reported: only a mix of identical and different consecutive pairs is.

A batch counts for the optimizer whose update it feeds. In a GAN, one real batch legitimately
feeds the discriminator's update and then, through the discriminator, the generator's (a
relativistic or feature-matching loss forwards it again); to the discriminator's watch that
second forward looks like the same batch drawn twice. So a fingerprint waits until the next
optimizer step after it: this watch's optimizer keeps it, another optimizer's step (a global
step pre-hook, installed only while the guard is armed) drops it.

A *batch* is what the data pipeline yields, not a forward call: one batch is often forwarded
more than once (R-Drop's two dropout passes, two augmented views for a consistency loss, SAM's
second pass at the perturbed weights, MAML's inner steps on one support set). So only the first
training forward after each backward pass (or step) is fingerprinted, and never the very tensor
fingerprinted last (forwarded again after a backward, as SAM and MAML do).
"""

from __future__ import annotations

import functools
import weakref
from collections.abc import Mapping
from typing import Any

import torch
from torch.optim.optimizer import register_optimizer_step_pre_hook

from trainwell.guards.base import ForwardRecord, Guard, first_tensor

_SAMPLE = 512
_KEEP = 16_384  # batches up to this many elements: their fingerprint is a view, no copy
_WINDOW = 3  # batches fingerprinted per sampled step: two consecutive pairs


class DuplicateBatchGuard(Guard):
    switch = "duplicate_batches"
    window = _WINDOW  # three consecutive batches: two consecutive pairs

    def attach(self) -> None:
        self.remaining = _WINDOW
        self.block = 0  # which run of armed steps the fingerprints below belong to
        # (block, fingerprint, its version when small) of the batches not yet compared:
        # compared at the read, in a few ops for all of them
        self.prints: list[tuple[int, torch.Tensor, int | None]] = []
        # taken since the last optimizer step: kept at this optimizer's step, dropped at another's
        self.waiting: list[tuple[int, torch.Tensor, int | None]] = []
        self.step_hook: Any = None
        self.same = False  # an identical non-constant consecutive pair was seen
        self.different = False  # a differing consecutive pair was seen
        self.passes = 0  # backward passes and steps seen: a new batch comes after one of them
        self.batch_pass = -1  # ``passes`` when the last batch was fingerprinted
        self.last: weakref.ref | None = None  # the input tensor fingerprinted last
        self.reported = False

    def on_arm(self) -> None:
        if self.step_hook is None:
            self.step_hook = register_optimizer_step_pre_hook(self._any_step)

    def on_disarm(self) -> None:
        if self.step_hook is not None:
            self.step_hook.remove()
            self.step_hook = None

    def close(self) -> None:
        self.on_disarm()

    def _any_step(self, optimizer: Any, args: Any, kwargs: Any) -> None:
        """Any optimizer is about to step: the batches waiting fed this watch's update (kept)
        or another optimizer's (dropped: a GAN's second use of a real batch)."""
        if not self.waiting:
            return
        if optimizer is self.ctx.optimizer:
            self.prints.extend(self.waiting)
        else:  # not this watch's batches: their places in the window go to the next ones
            self.remaining += sum(1 for p in self.waiting if p[0] == self.block)
        self.waiting = []

    def on_backward(self, record: ForwardRecord) -> None:
        self.passes += 1

    def on_forward(
        self,
        args: tuple,
        kwargs: Mapping[str, Any],
        output: Any,
        record: ForwardRecord | None,
        grad_enabled: bool,
    ) -> None:
        if self.remaining == 0 or record is None or not record.training or self.reported:
            return
        if self.batch_pass == self.passes:
            return  # no backward since the last batch: the same batch forwarded again
        batch = first_tensor(args)
        if batch is None or batch.numel() == 0 or self._seen_last(batch):
            return
        self.batch_pass = self.passes
        self.last = weakref.ref(batch)
        self.remaining -= 1
        count = batch.numel()
        every = max(1, count // _SAMPLE)
        sample = batch.detach().reshape(-1)[: every * _SAMPLE : every]
        if count > _KEEP:  # a copy: holding a view would hold the whole batch
            self.waiting.append((self.block, sample.clone(), None))
        else:  # small: the view itself, and its version to tell a later in-place change
            self.waiting.append((self.block, sample, sample._version))

    def _seen_last(self, batch: torch.Tensor) -> bool:
        """``batch`` is (a view of the same memory as) the tensor fingerprinted last."""
        last = self.last() if self.last is not None else None
        if last is None:
            return False
        if last is batch:
            return True
        try:  # both alive: the same memory is the same data
            return (
                last.data_ptr() == batch.data_ptr()
                and last.shape == batch.shape
                and last.stride() == batch.stride()
                and last.dtype == batch.dtype
                and last.device == batch.device
            )
        except (RuntimeError, NotImplementedError):  # sparse, nested: no plain memory to compare
            return False

    def on_step_post(self) -> None:
        self.passes += 1
        ctx = self.ctx
        if ctx.steps % ctx.config.every == 0 and ctx.checks_structure(ctx.steps):  # armed next
            self.remaining, self.block = _WINDOW, self.block + 1

    def on_read(self) -> None:
        prints = self.prints
        if len(prints) < 2 or self.reported:
            return
        self.prints = prints[-1:]  # the last one may pair with the next
        # consecutive fingerprints of one block, neither changed in place since: the pairs
        pairs = [
            i
            for i in range(len(prints) - 1)
            if prints[i][0] == prints[i + 1][0] and _intact(prints[i]) and _intact(prints[i + 1])
        ]
        samples = [p[1] for p in prints]
        # compared on the device: the host reads 3 numbers a pair, not the fingerprints
        comparable = []
        for i in pairs:  # a pair that differs in shape or dtype differs
            a, b = samples[i], samples[i + 1]
            if a.shape == b.shape and a.dtype == b.dtype and a.device == b.device:
                comparable.append(i)
            else:
                self.different = True
        if comparable and all(samples[i].device.type == "cpu" for i in comparable):
            # on the CPU nothing waits for a transfer: compared here, two calls a pair
            equal = [float(torch.equal(samples[i], samples[i + 1])) for i in comparable]
            constant = [
                float(torch.equal(b, b[:1].expand_as(b))) for b in _seconds(samples, comparable)
            ]
            self._judge_host(list(range(len(comparable))), len(comparable), equal + constant)
        elif comparable:
            a = torch.stack([samples[i] for i in comparable])
            b = torch.stack([samples[i + 1] for i in comparable])
            low, high = b.aminmax(dim=1)
            flags = torch.cat([(a == b).all(1), low, high])
            positions = list(range(len(comparable)))
            self.ctx.read_later(flags, functools.partial(self._judge, positions, len(comparable)))

    def _judge(self, pairs: list[int], count: int, flags: list[float]) -> None:
        """``flags``: for ``count`` consecutive pairs, equal?, then the second's min and max;
        only the pairs listed in ``pairs`` count."""
        equal, low, high = flags[:count], flags[count : 2 * count], flags[2 * count :]
        constant = [float(lo == hi) for lo, hi in zip(low, high, strict=True)]
        self._judge_host(pairs, count, equal + constant)

    def _judge_host(self, pairs: list[int], count: int, flags: list[float]) -> None:
        """``flags``: for ``count`` consecutive pairs, equal?, then is the second constant?"""
        equal, constant = flags[:count], flags[count:]
        for i in pairs:
            if not equal[i]:
                self.different = True
            elif not constant[i]:  # a constant batch says nothing
                self.same = True
        if self.reported or not (self.same and self.different):
            return
        self.reported = True
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


def _seconds(samples: list[torch.Tensor], pairs: list[int]) -> list[torch.Tensor]:
    """The second fingerprint of each pair."""
    return [samples[i + 1] for i in pairs]


def _intact(print_: tuple[int, torch.Tensor, int | None]) -> bool:
    """A fingerprint that is a copy, or a view whose batch was not changed in place since."""
    return print_[2] is None or print_[1]._version == print_[2]
