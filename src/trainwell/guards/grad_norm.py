"""Per-layer gradient norms that vanish or explode against their own running history.

On the sampled steps (every ``every`` optimizer steps) the per-parameter norms the watch
already computed on the device are kept, read at the guards' next read (one transfer with the
other guards' values), summed per layer, and compared with an
exponential moving average of that layer's log-norm. A layer far below its history is
vanishing (dead units, saturated activations, a broken residual path); far above is exploding
(an LR too high, missing clipping, a bad batch). The first ``grad_norm_warmup`` readings only
build the history.
"""

from __future__ import annotations

import functools
import math

import torch

from trainwell.guards.base import Guard


class GradNormGuard(Guard):
    switch = "grad_norms"
    dynamic = True  # a layer can vanish or explode at any step

    def attach(self) -> None:
        self.ema: dict[str, float] = {}  # layer -> running mean of log10(norm)
        self.readings: dict[str, int] = {}
        self.pending: list[tuple[int, list[int], torch.Tensor]] = []  # sampled steps' norms

    def on_step_pre(self) -> None:
        ctx = self.ctx
        if not ctx.due:
            return
        index, norms = ctx.grad_norms()
        if norms is not None and len(self.pending) < 16:  # kept by reference until the read
            self.pending.append((ctx.steps, index, norms))

    def on_read(self) -> None:
        pending, self.pending = self.pending, []
        for step, index, norms in pending:
            self.ctx.read_later(norms, functools.partial(self._judge, step, index))

    def _judge(self, step: int, index: list[int], norms: list[float]) -> None:
        ctx = self.ctx
        squares: dict[str, float] = {}
        for i, norm in zip(index, norms, strict=True):
            layer = ctx.layer_of(i)
            squares[layer] = squares.get(layer, 0.0) + norm * norm
        for layer, square in squares.items():
            self._update(layer, math.sqrt(square), step)

    def _update(self, layer: str, norm: float, step: int) -> None:
        if not math.isfinite(norm):
            return  # the non-finite guard reports these
        config = self.ctx.config
        log = math.log10(max(norm, 1e-30))
        count = self.readings.get(layer, 0)
        mean = self.ema.get(layer)
        if mean is not None and count >= config.grad_norm_warmup:
            ratio = 10 ** (log - mean)
            if ratio >= config.explode_ratio:
                self._report(layer, norm, 10**mean, step, exploding=True)
            elif ratio <= config.vanish_ratio:
                self._report(layer, norm, 10**mean, step, exploding=False)
        decay = config.grad_norm_decay
        self.ema[layer] = log if mean is None else decay * mean + (1 - decay) * log
        self.readings[layer] = count + 1

    def _report(
        self, layer: str, norm: float, typical: float, step: int, *, exploding: bool
    ) -> None:
        kind = "exploding" if exploding else "vanishing"
        self.ctx.report(
            f"grad-{kind}",
            name=f"{kind} gradients",
            message=f"gradient norm of {layer} is {norm:.3g}, against {typical:.3g} before",
            where=layer,
            step=step,
            why=(
                "one update this large throws the weights far off and can end in NaN"
                if exploding
                else "this layer has stopped learning: its updates are almost zero"
            ),
            fix=(
                "lower the LR or add warmup, clip gradients (clip_grad_norm_), check the batch"
                if exploding
                else "check for dead ReLUs/saturated activations, a detach() in the path, "
                "a learning rate decayed to zero, or a broken residual/normalisation"
            ),
            switch=self.switch,
        )
