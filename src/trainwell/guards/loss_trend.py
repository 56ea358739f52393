"""Two silent failures of the loss itself, seen through the loss module (``loss_fn``).

`LossTrendGuard` (``loss-diverging``): a training loss that grows without ever turning NaN (an
LR far too high, a bad warm restart, a data bug). Each training call of the loss module (grad
enabled, model in train mode, a scalar output that requires grad) keeps its detached value by
reference: no device op, no host read (every 256 losses without a read are summed on the device
in one op). At the guard's read their sum, read with the other guards' values in one transfer,
becomes one *point*, the mean loss since the last point (a read that has seen fewer than
``loss_trend_losses`` losses lets them carry over, so the points do not depend on the read
cadence). The *first value* is the mean of the first ``loss_trend_losses`` losses: about the
loss of the untrained model. Reported when

* a point is at least ``loss_diverge_ratio`` x the lowest point so far *and* at or above the
  first value (the run has given back all it learned), on two reads in a row; or
* the points stay at or above ``loss_rise_ratio`` x the first value for ``loss_rise_reads``
  reads in a row.

Both ratio rules assume a loss that is positive by nature: once the first value or a point is
<= 0 (a reward, an ELBO, a loss with a negative term) the guard stops judging. Non-finite points
are skipped (the non-finite guard speaks for those).

`AccumulationScaleGuard` (``accumulation-not-scaled``): ``watch(..., accumulate_steps=k)`` with
k > 1, and each micro-batch's loss backwarded undivided, so every update is k times too large.
In the windows of the sampled steps (every ``every`` steps, the first included), a tensor hook
on each training output of the loss module sees the gradient arriving at it: the factor the loss was multiplied by before ``backward()`` (1/k when divided, n_i/N for token
weighting, 0.5 for ``0.5 * loss``, 1 when not divided), times GradScaler's scale with fp16 (the
hook divides by the scaler's scale tensor on the device). The factor is copied into a ring on the
device; the read checks, in one host read, whether every factor since the last read is 1.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Any

import torch
from torch import nn

from trainwell.guards.base import Context, Guard
from trainwell.guards.hooks import Hook, after_call

_TOLERANCE = 1e-6  # a factor within this of 1 (relative) is "not divided at all"
_CONFIRM = 2  # reads in a row a diverging loss must hold on
_FOLD = 256  # losses kept by reference before they are summed on the device


def watch_loss(ctx: Context, callback: Callable[[Any], None]) -> list[Any]:
    """Call ``callback(output)`` after each call of the loss module (``ctx.loss_fn``); the
    handles to remove. Under `watch()` through `hooks.after_call` (a wrapper on the module's
    class: a forward hook would send every loss call through the slow path of
    ``Module.__call__``, several microseconds a step); in `fit()`, which wraps nothing
    process-wide, a forward hook. A plain function has neither: nothing is seen."""
    loss_fn = ctx.loss_fn
    if not isinstance(loss_fn, nn.Module):
        return []
    if ctx.in_fit:
        return [loss_fn.register_forward_hook(Hook(_output_only, callback))]
    return [after_call(loss_fn, "forward", callback)]


def _output_only(callback: Callable[[Any], None], module: Any, args: Any, output: Any) -> None:
    callback(output)


def _stacked(losses: list[torch.Tensor]) -> torch.Tensor:
    """The losses as one 1-D tensor (one op; a loss of shape (1,) among scalars: a few more)."""
    try:
        values = torch.stack(losses)
    except RuntimeError:  # different shapes or devices
        values = torch.stack([v.reshape(()).to(losses[0].device) for v in losses])
    return values if values.dim() == 1 else values.reshape(-1)


def _loss_name(loss_fn: Any) -> str:
    if loss_fn is None:
        return "training loss"
    if isinstance(loss_fn, nn.Module):
        return type(loss_fn).__name__
    return getattr(loss_fn, "__name__", None) or type(loss_fn).__name__


def _training_loss(output: Any) -> torch.Tensor | None:
    """The loss module's output when it is a scalar that a backward can reach (else None)."""
    if (
        isinstance(output, torch.Tensor)
        and output.requires_grad
        and output.numel() == 1
        and torch.is_grad_enabled()
    ):
        return output
    return None


class LossTrendGuard(Guard):
    switch = "loss_trend"
    dynamic = True

    def attach(self) -> None:
        self.losses: list[torch.Tensor] = []  # detached losses since the last point (no device op)
        self.count = 0  # losses since the last point
        self.folded: torch.Tensor | None = None  # device: sum of losses folded out of the list
        self.first_total: torch.Tensor | None = None  # device: sum of the first losses folded
        self.first_folded = 0  # how many of the first losses ``first_total`` holds
        self.first: float | None = None  # mean of the first ``loss_trend_losses`` losses
        self.first_loss: torch.Tensor | None = None  # the very first loss (untrained model)
        self.start: float | None = None  # its value, or ln(C) for C-class CE when lower
        self.peak: tuple[float, int] | None = None  # (highest single loss read, its read's step)
        self.folded_max: torch.Tensor | None = None  # device: max of the folded losses
        self.at_chance = 0  # reads in a row at ln(C) after the loss exploded
        self.points = 0
        self.minimum: tuple[float, int] | None = None  # (lowest point, step of its read)
        self.diverging = 0  # reads in a row that met the divergence rule
        self.rising = 0  # reads in a row at or above loss_rise_ratio x the first value
        self.judging = True  # False once the loss is seen to be not positive
        self.numbers: dict[str, float | int] | None = None  # the latest point's numbers
        self.reported: dict[str, float | int] | None = None  # the numbers when reported
        self.host_total, self.host_count = 0.0, 0  # fit(): logged losses not yet in a point
        if not self.ctx.in_fit:  # fit() hands over each step's loss itself (`add`): no hook
            self.ctx.handles.extend(watch_loss(self.ctx, self._on_output))

    def add_mean(self, mean: float, count: int, step: int) -> None:
        """fit(), once the first value is known: the mean of ``count`` training losses that
        the loop has read at its log (a host number: no device work). Points form as from
        the device losses: at least ``loss_trend_losses`` losses each."""
        if not self.judging or self.first is None or count <= 0:
            return
        self.host_total += mean * count
        self.host_count += count
        if self.host_count >= self.ctx.config.loss_trend_losses:
            now = self.host_total / self.host_count
            self.host_total, self.host_count = 0.0, 0
            self._judge(now, step)

    def add(self, loss: torch.Tensor) -> None:
        """One training loss, detached (fit(): each optimizer step's, from the loop)."""
        if self.judging:
            if self.first_loss is None:
                self.first_loss = loss
            self.losses.append(loss)
            self.count += 1
            if len(self.losses) >= _FOLD:  # no read for long: sum them (one op per _FOLD)
                self._fold()

    def _on_output(self, output: Any) -> None:
        # every training call: a scalar that a backward can reach, the model in train mode
        if (
            self.judging
            and isinstance(output, torch.Tensor)
            and output.requires_grad
            and torch.is_grad_enabled()
            and self.ctx.model.training
            and output.numel() == 1
        ):
            loss = output.detach()  # kept by reference: no device op per loss
            if self.first_loss is None:
                self.first_loss = loss
            self.losses.append(loss)
            self.count += 1
            if len(self.losses) >= _FOLD:  # no read for long: sum them (one op per _FOLD)
                self._fold()

    def _fold(self) -> None:
        """Sum the listed losses into ``folded`` (the first ones also into ``first_total``)."""
        losses, self.losses = self.losses, []
        values = _stacked(losses)
        wanted = self.ctx.config.loss_trend_losses - self.first_folded
        if self.first is None and wanted > 0:
            first = values[:wanted].sum(dtype=torch.float32)
            self.first_total = first if self.first_total is None else self.first_total + first
            self.first_folded += min(wanted, len(losses))
        total = values.sum(dtype=torch.float32)
        self.folded = total if self.folded is None else self.folded + total
        top = values.max().float()
        self.folded_max = top if self.folded_max is None else torch.maximum(self.folded_max, top)

    def on_read(self) -> None:
        if self.count < self.ctx.config.loss_trend_losses:
            return  # too few losses for a point: they carry over to the next read
        losses, self.losses = self.losses, []
        folded, self.folded = self.folded, None
        folded_max, self.folded_max = self.folded_max, None
        first_total = self.first_total if self.first is None else None
        first_loss = self.first_loss if self.start is None else None
        parts = [_stacked(losses)] if losses else []
        extra = (folded, folded_max, first_total, first_loss)
        parts += [t.reshape(1) for t in extra if t is not None]
        layout = (len(losses), *(t is not None for t in extra))
        count, self.count = self.count, 0
        self.ctx.read_later(
            parts[0] if len(parts) == 1 else torch.cat(parts),
            functools.partial(self._point, layout, count, self.ctx.steps),
        )

    def _point(
        self, layout: tuple[int, bool, bool, bool, bool], count: int, step: int, values: list[float]
    ) -> None:
        listed, has_folded, has_max, has_first, has_first_loss = layout
        extra = iter(values[listed:])
        folded = next(extra) if has_folded else 0.0
        folded_max = next(extra) if has_max else -math.inf
        first_total = next(extra) if has_first else 0.0
        total = math.fsum(values[:listed]) + folded
        if self.first is None:  # the first losses: folded ones, then the first listed ones
            wanted = self.ctx.config.loss_trend_losses - self.first_folded
            first = first_total + math.fsum(values[: max(wanted, 0)][:listed])
            self.first = first / (self.first_folded + min(max(wanted, 0), listed))
            self.first_total = None
        if has_first_loss:
            self._anchor(next(extra))
        top = max([*values[:listed], folded_max])
        if math.isfinite(top) and (self.peak is None or top > self.peak[0]):
            self.peak = (top, step)
        self._judge(total / count, step)

    def _anchor(self, first_loss: float) -> None:
        """The reference from step 0: the untrained model's loss, or ln(C) for a C-class
        cross-entropy when lower (a first loss already inflated by raw inputs)."""
        self.first_loss = None
        chance = self._chance()
        if math.isfinite(first_loss) and first_loss > 0:
            self.start = first_loss if chance is None else min(first_loss, chance)

    def _chance(self) -> float | None:
        """ln(C): a mean cross-entropy over C classes at chance (None when not known)."""
        classes = self.ctx.classes
        if not classes or getattr(self.ctx.loss_fn, "reduction", None) != "mean":
            return None  # a summed loss grows with the batch; a function's reduction is unseen
        return math.log(classes)

    def _judge(self, now: float, step: int) -> None:
        first = self.first
        if first is None or not math.isfinite(now) or not math.isfinite(first):
            return  # the non-finite guard reports these
        if now <= 0 or first <= 0:
            self.judging = False  # not a positive loss: ratios say nothing
            return
        config = self.ctx.config
        self.points += 1
        if self.minimum is None or now < self.minimum[0]:
            self.minimum = (now, step)
        lowest, lowest_step = self.minimum
        # "back where it started": the first losses' mean, or the reference from step 0 when
        # lower (the first losses already exploding inflate their mean)
        anchor = first if self.start is None else min(first, self.start)
        diverged = now >= config.loss_diverge_ratio * lowest and now >= anchor
        self.diverging = self.diverging + 1 if diverged else 0
        self.rising = self.rising + 1 if now >= config.loss_rise_ratio * first else 0
        chance = self._chance()
        exploded = (
            self.peak is not None and chance and self.peak[0] >= config.loss_diverge_ratio * chance
        )
        self.at_chance = (
            self.at_chance + 1 if exploded and abs(now - chance) <= 0.05 * chance else 0
        )
        self.numbers = {
            "first": first,
            "minimum": lowest,
            "minimum_step": lowest_step,
            "now": now,
            "step": step,
        }
        if self.start is not None and now >= config.loss_diverge_ratio * self.start:
            self._report(
                f"the training loss is {now:.4g} at step {step} (mean since the last read): "
                f"{now / self.start:.3g}x where it started ({self.start:.4g}: the untrained "
                "model's first loss"
                + (f", or ln({self.ctx.classes}) at chance" if chance else "")
                + ")",
                step,
            )
        elif self.at_chance >= _CONFIRM and self.peak is not None and chance:
            peak, peak_step = self.peak
            self._report(
                f"the training loss exploded (a batch's loss reached {peak:.4g} by step "
                f"{peak_step}, {peak / chance:.3g}x ln({self.ctx.classes})) and has sat at "
                f"chance since: {now:.4g} at step {step}, ln({self.ctx.classes}) = {chance:.4g}; "
                "the units are dead and the model predicts the same for every input",
                step,
            )
        elif self.diverging >= _CONFIRM:
            self._report(
                f"the training loss is {now:.4g} at step {step} (mean since the last read): "
                f"{now / lowest:.3g}x its minimum {lowest:.4g} (step {lowest_step}) and above "
                f"its first value {first:.4g}, on {self.diverging} reads in a row",
                step,
            )
        elif self.rising >= config.loss_rise_reads:
            self._report(
                f"the training loss has stayed at or above {config.loss_rise_ratio:g}x its "
                f"first value {first:.4g} for {self.rising} reads: {now:.4g} at step {step} "
                f"(minimum {lowest:.4g} at step {lowest_step})",
                step,
            )

    def _report(self, message: str, step: int) -> None:
        if self.reported is None:
            self.reported = self.numbers
        self.ctx.report(
            "loss-diverging",
            name="training loss diverging",
            message=message,
            where=_loss_name(self.ctx.loss_fn),
            step=step,
            why=(
                "the run is undoing what it learned without any error or NaN: every further "
                "step is wasted, and the last checkpoint is worse than an earlier one"
            ),
            fix=(
                "lower the learning rate or add warmup, clip gradients, check the LR schedule "
                "(a restart or a wrong interval) and the data of those steps; resume from the "
                "checkpoint before the minimum"
            ),
            switch=self.switch,
        )


class AccumulationScaleGuard(Guard):
    switch = "accumulation_scale"

    def attach(self) -> None:
        self.closed = False
        self.ring: torch.Tensor | None = None  # device: the factor each loss output received
        self.factors = 0  # factors recorded since the last read
        self.windows = 0  # steps since the last read that accumulated (>= 2 backward passes)
        ctx = self.ctx
        loss_fn = ctx.loss_fn
        if (
            ctx.accumulate_steps <= 1
            or ctx.in_fit  # fit() divides by the window by construction
            or not isinstance(loss_fn, nn.Module)  # no loss module: the loss cannot be seen
            or getattr(loss_fn, "reduction", None) == "sum"  # a summed loss is meant unscaled
        ):
            self.active = False
            return
        self.active = True
        self.size = max(64, 4 * ctx.config.every * ctx.accumulate_steps)
        self._grad_hook = Hook(self._on_grad)
        ctx.handles.extend(watch_loss(ctx, self._on_output))

    def close(self) -> None:
        self.closed = True  # loss graphs still alive must not write into the ring any more

    def _on_output(self, output: Any) -> None:
        # Sampled: only the windows of the steps that run the structural checks (the next
        # step is one when ``steps % every == 0`` in a structural cycle); the read right after
        # that step sees the whole window. An undivided loss is undivided in every window.
        ctx = self.ctx
        if self.closed or ctx.steps % ctx.config.every or not ctx.checks_structure(ctx.steps):
            return
        loss = _training_loss(output)
        if loss is not None:
            loss.register_hook(self._grad_hook)  # lives as long as that loss's graph

    def _on_grad(self, grad: torch.Tensor) -> None:
        if self.closed:
            return
        if self.ring is None:
            self.ring = torch.empty(self.size, dtype=torch.float32, device=grad.device)
        slot = self.ring[self.factors % self.size]
        slot.copy_(grad.detach().reshape(()))  # one tiny device op, no host read
        scaler = self.ctx.scaler
        scale = getattr(scaler, "_scale", None) if scaler is not None else None
        if isinstance(scale, torch.Tensor):  # fp16: remove GradScaler's scale on the device
            slot.div_(scale.reshape(()).to(slot.device, non_blocking=True))
        self.factors += 1

    def on_step_pre(self) -> None:
        if self.active and self.ctx.backwards >= 2:
            self.windows += 1

    def on_read(self) -> None:
        k = self.ctx.accumulate_steps
        if not self.active or self.ring is None or self.factors < k or self.windows == 0:
            return  # no full accumulation window seen yet: wait for the next read
        used = min(self.factors, self.size)
        last = self.ring[(self.factors - 1) % self.size]
        count = self.factors
        self.factors = 0
        self.windows = 0
        worst = (self.ring[:used] - 1).abs().max()
        self.ctx.read_later(torch.stack([worst, last]), functools.partial(self._judge, count))

    def _judge(self, count: int, values: list[float]) -> None:
        worst, factor = values
        k = self.ctx.accumulate_steps
        if worst > _TOLERANCE:
            return  # divided (1/k), weighted (n_i/N) or scaled some other way: fine
        name = _loss_name(self.ctx.loss_fn)
        self.ctx.report(
            "accumulation-not-scaled",
            name="accumulated loss not divided by accumulate_steps",
            message=(
                f"accumulate_steps={k}, but all {count} {name} outputs backwarded since the "
                f"last read received a gradient factor of {factor:.4g} (1/{k} = {1 / k:.4g} "
                "when divided): each update sums the gradients of "
                f"{k} micro-batches instead of averaging them"
            ),
            where=name,
            why=(
                f"the gradients (and so the updates) are {k}x larger than the same batch "
                "would give without accumulation: the effective learning rate is k times "
                "too high, and changing accumulate_steps changes the training"
            ),
            fix=(
                f"backward loss / {k} (or weight each micro-batch by its share of the "
                "window's samples/tokens); if you rescale the gradients or the LR yourself, "
                "switch this check off"
            ),
            switch=self.switch,
        )
