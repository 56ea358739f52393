"""Gradients not zeroed after a step, or zeroed before the step could use them.

PyTorch adds each backward's gradients into ``.grad``. Three placements of ``zero_grad()`` go
wrong without an error:

* missing (or only every few steps): the first backward after a step finds the old gradients
  still there, untouched since the step, and adds to them;
* between ``backward()`` and ``step()``: the step sees no gradients and does nothing (or only
  weight decay);
* inside an accumulation window: the micro-batches before it are thrown away.

Everything is checked on the host from ``.grad is None`` and tensor version counters (bumped by
every in-place write, ``zero_()`` included), on a few sampled parameters: no device sync, except
a zero-norm check on the sampled steps for ``zero_grad(set_to_none=False)``.
"""

from __future__ import annotations

from trainwell.guards.base import ForwardRecord, Guard

_NOT_ZEROED_WHY = (
    "backward() adds into .grad, so each update uses the sum of this batch's gradient and "
    "all earlier ones: the effective step grows and points at old batches; the loss still "
    "falls, just worse"
)


class ZeroGradGuard(Guard):
    switch = "zero_grad"

    def attach(self) -> None:
        # (id, version) of the sampled .grad tensors after the last step; ids, not the tensors,
        # so a cleared gradient's memory is not kept alive.
        self.versions: list[tuple[int, int] | None] = []

    def on_backward(self, record: ForwardRecord) -> None:
        ctx = self.ctx
        if ctx.backwards == 0 and ctx.steps > 0 and self._untouched_since_step():
            self._report_stale()
        elif 0 < ctx.backwards < ctx.accumulate_steps and self._all_none():
            ctx.report(
                "zero-grad-in-window",
                name="zero_grad() inside an accumulation window",
                message=(
                    f"backward {ctx.backwards + 1} of a {ctx.accumulate_steps}-step accumulation "
                    "window found the gradients cleared"
                ),
                where=type(ctx.model).__name__,
                why="the micro-batches before the zero_grad() are discarded; the step uses one",
                fix="call zero_grad() once per window, right after optimizer.step()",
                switch=self.switch,
            )

    def _report_stale(self) -> None:
        ctx, where = self.ctx, type(self.ctx.model).__name__
        if ctx.reporter.seen("grad-not-zeroed", where) or ctx.reporter.seen(
            "zero-grad-before-step", where
        ):
            return
        if self._sampled_zero():  # one host read, only until reported
            self._report_before_step()  # zeros left from a zero_grad() before the last step
            return
        ctx.report(
            "grad-not-zeroed",
            name="gradients not zeroed between steps",
            message=(
                "a backward pass started while .grad still held the gradients of the last "
                "optimizer step (not zeroed since)"
            ),
            where=where,
            why=_NOT_ZEROED_WHY,
            fix=(
                "call optimizer.zero_grad(set_to_none=True) at the start of each step "
                "(with accumulation: once per window, before its first backward)"
            ),
            switch=self.switch,
        )

    def on_step_pre(self) -> None:
        ctx = self.ctx
        if ctx.backwards == 0:
            return
        if self._all_none() or (ctx.due and self._all_zero()):
            self._report_before_step()

    def _report_before_step(self) -> None:
        ctx = self.ctx
        if not self._sample_is_the_models():
            return  # new Parameter objects: the params guard reports that, not a zero_grad bug
        ctx.report(
            "zero-grad-before-step",
            name="zero_grad() between backward() and step()",
            message=(
                "backward passes ran before a step, but the step found no gradients "
                "(cleared after backward)"
            ),
            where=type(ctx.model).__name__,
            why="the optimizer updates with zero gradients: the model does not learn",
            fix="order each step as zero_grad() -> forward -> backward() -> step()",
            switch=self.switch,
        )

    def on_step_post(self) -> None:
        params = self.ctx.params
        self.versions = [
            (id(g), g._version) if (g := params[i].grad) is not None else None
            for i in self.ctx.sample
        ]

    def _untouched_since_step(self) -> bool:
        params, checked = self.ctx.params, 0
        for i, seen in zip(self.ctx.sample, self.versions, strict=False):
            if seen is None:
                continue
            grad = params[i].grad
            if grad is None or id(grad) != seen[0] or grad._version != seen[1]:
                return False  # cleared, replaced or zeroed in place since the step
            checked += 1
        return checked > 0

    def _sample_is_the_models(self) -> bool:
        current = {id(p) for p in self.ctx.model.parameters()}
        return all(id(self.ctx.params[i]) in current for i in self.ctx.sample)

    def _all_none(self) -> bool:
        params = self.ctx.params
        return bool(self.ctx.sample) and all(params[i].grad is None for i in self.ctx.sample)

    def _sampled_zero(self) -> bool:
        params = self.ctx.params
        grads = [g for i in self.ctx.sample if (g := params[i].grad) is not None]
        return bool(grads) and not any(bool(g.any()) for g in grads)

    def _all_zero(self) -> bool:
        _, norms = self.ctx.grad_norms()
        return norms is not None and bool(norms.sum() == 0)  # a host sync: only on due steps
