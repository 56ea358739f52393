"""Gradient clipping that does nothing: before backward, after step, or on fp16-scaled gradients.

Clipping has no hook of its own, so the watch wraps ``torch.nn.utils.clip_grad_norm_`` and
``clip_grad_value_`` while it is active (see `trainwell.guards.patch` for why a wrapper and not a
``TorchFunctionMode``). A call counts as this watch's when its first parameter is the model's.
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
        patch.add_clip_listener(self.on_clip)

    def close(self) -> None:
        patch.remove_clip_listener(self.on_clip)

    def on_clip(self, kind: str, params: list[torch.Tensor]) -> None:
        if not params or id(params[0]) not in self.ids:
            return  # another model's clipping
        ctx = self.ctx
        call = f"clip_grad_{kind}_"
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
