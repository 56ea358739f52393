"""Gradient clipping that does nothing: before backward, after step, or on fp16-scaled gradients.

Clipping has no hook of its own, so `watch()` wraps ``torch.nn.utils.clip_grad_norm_`` and
``clip_grad_value_`` while it is active (see `trainwell.guards.patch` for why a wrapper and not a
``TorchFunctionMode``); trainwell's `Clipping` tells the guard itself, in `watch()` and in
`fit()` (which wraps nothing). A call counts as this watch's when its first parameter is the
model's. Judged on the armed steps, where the watch counts backward passes (a misplaced clip
is misplaced on every step).

A clip the wrapper cannot see (``from torch.nn.utils import clip_grad_norm_`` before the watch
began holds the original function) is found by its effect: the optimizer step post-hook leading
into an armed step keeps the sampled parameters' gradient tensors and their version counters
(bumped by every in-place write); at the next forward that builds a graph (before any
backward adds into ``.grad``), a gradient written in place
since — more than once, or once and not by a ``zero_()`` (its content is not all zero, read
with the guards' cadence read) — was changed after the step had used it. ``zero_grad()``
(either way) and accumulation stay silent: dropping ``.grad`` writes nothing, ``zero_()``
writes zeros once.
"""

from __future__ import annotations

import functools

import torch
from torch.amp.grad_scaler import OptState

from trainwell.guards import patch
from trainwell.guards.base import Guard


class ClippingGuard(Guard):
    switch = "clipping"

    def attach(self) -> None:
        self.ids = self.ctx.param_ids
        patch.add_clip_listener(self.on_clip, wrap_torch=not self.ctx.in_fit)
        # the sampled gradients the last step used, with their versions then (until checked)
        self.used: list[tuple[torch.Tensor, int]] = []
        self.after_step_seen = False  # clip-after-step reported (by the call or its effect)

    def on_step_post(self) -> None:
        params = self.ctx.params
        self.used = [(g, g._version) for i in self.ctx.sample if (g := params[i].grad) is not None]

    def on_forward(self, args, kwargs, output, record, grad_enabled) -> None:  # type: ignore[no-untyped-def]
        # the first forward that builds a graph after the step, before any backward can add
        # into .grad (an attack's backward in eval mode included); validation builds none
        if record is None or not self.used:
            return
        used, self.used = self.used, []
        changed = [(g, g._version - v) for g, v in used if g._version != v]
        if not changed or self.after_step_seen:
            return
        # per gradient: is anything left but zeros? (one small device op; read at the read)
        peaks = torch.stack([g.detach().abs().amax().float().reshape(()) for g, _ in changed])
        writes = [delta for _, delta in changed]
        self.ctx.read_later(
            peaks, functools.partial(self._judge_after_step, writes, self.ctx.steps)
        )

    def _judge_after_step(self, writes: list[int], step: int, peaks: list[float]) -> None:
        if self.after_step_seen:
            return
        if not any(n >= 2 or peak != 0.0 for n, peak in zip(writes, peaks, strict=True)):
            return  # zero_grad(set_to_none=False): one write of zeros
        self.after_step_seen = True
        self.ctx.report(
            "clip-after-step",
            name="gradients changed after step()",
            message=(
                "the gradients were changed in place after optimizer.step() had used them "
                "(their version counters moved between the step and the next forward): a "
                "clip_grad_norm_/clip_grad_value_ (or another in-place op on .grad) after the step"
            ),
            where="gradients",
            step=step,
            why="the clip changes nothing the optimizer uses: training runs unclipped",
            fix="clip between loss.backward() and optimizer.step()",
            switch=self.switch,
        )

    def close(self) -> None:
        patch.remove_clip_listener(self.on_clip)

    def on_clip(self, call: str, params: list[torch.Tensor]) -> None:
        ctx = self.ctx
        if not ctx.armed or not params or id(params[0]) not in self.ids:
            return  # judged on the armed steps (backwards counted); or another model's clipping
        if ctx.backwards == 0:
            has_grads = any(p.grad is not None for p in params)
            before_backward = not has_grads
            self.after_step_seen |= not before_backward  # its effect is the same finding
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
