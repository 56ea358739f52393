"""Gradient clipping that does nothing: before backward, after step, or on fp16-scaled gradients.

Clipping has no hook of its own, so `watch()` wraps ``torch.nn.utils.clip_grad_norm_`` and
``clip_grad_value_`` while it is active (see `trainwell.guards.patch` for why a wrapper and not a
``TorchFunctionMode``); trainwell's `Clipping` tells the guard itself, in `watch()` and in
`fit()` (which wraps nothing). A call counts as this watch's when its first parameter is the
model's. Judged on the armed steps, where the watch counts backward passes (a misplaced clip
is misplaced on every step).
"""

from __future__ import annotations

import torch
from torch.amp.grad_scaler import OptState

from trainwell.guards import patch
from trainwell.guards.base import Guard


class ClippingGuard(Guard):
    switch = "clipping"

    def attach(self) -> None:
        self.ids = {id(p) for p in self.ctx.model.parameters()}
        patch.add_clip_listener(self.on_clip, wrap_torch=not self.ctx.in_fit)

    def close(self) -> None:
        patch.remove_clip_listener(self.on_clip)

    def on_clip(self, call: str, params: list[torch.Tensor]) -> None:
        ctx = self.ctx
        if not ctx.armed or not params or id(params[0]) not in self.ids:
            return  # judged on the armed steps (backwards counted); or another model's clipping
        if ctx.backwards == 0:
            has_grads = any(p.grad is not None for p in params)
            before_backward = not has_grads
            ctx.report(
                "clip-before-backward" if before_backward else "clip-after-step",
                name=f"{call}() {'before backward()' if before_backward else 'after step()'}",
                message=(
                    f"{call}() ran when no gradients existed yet"
                    if before_backward
                    else f"{call}() ran after optimizer.step() had already used the gradients"
                ),
                where=call,
                why="the clip changes nothing the optimizer uses: training runs unclipped",
                fix="clip between loss.backward() and optimizer.step()",
                switch=self.switch,
            )
        elif self._scaled():
            ctx.report(
                "clip-scaled-grads",
                name=f"{call}() on fp16-scaled gradients",
                message=f"{call}() ran before scaler.unscale_(optimizer)",
                where=call,
                why=(
                    "the gradients are still multiplied by the loss scale (e.g. 65536): the "
                    "threshold is compared with scaled values, so every step is clipped hard"
                ),
                fix="call scaler.unscale_(optimizer) before clipping, then scaler.step(optimizer)",
                switch=self.switch,
            )

    def _scaled(self) -> bool:
        scaler = self.ctx.scaler
        if scaler is None:
            return False
        state = scaler._per_optimizer_states.get(id(self.ctx.optimizer))
        return state is None or state["stage"] is not OptState.UNSCALED
