"""Autograd graphs nobody uses: built in validation, or kept alive across training steps.

Every forward that builds a graph gets a small `ForwardRecord`, referenced only by a hook on its
output: the record lives exactly as long as the output tensor or its graph does. So

* a forward in eval mode with grad enabled whose output never sees a backward before the next
  training step is a validation (or inference) pass that built a graph for nothing;
* a training record still alive ``retained_steps`` optimizer steps later means something keeps
  that step's graph: ``losses.append(loss)``, ``total += loss``, stored outputs.
"""

from __future__ import annotations

import gc
import weakref
from collections import deque
from collections.abc import Mapping
from typing import Any

from trainwell.guards.base import ForwardRecord, Guard


class EvalGraphGuard(Guard):
    switch = "eval_graph"

    def attach(self) -> None:
        self.pending: ForwardRecord | None = None  # first graph-building eval forward unresolved
        self.source: str | None = None

    def on_forward(
        self,
        args: tuple,
        kwargs: Mapping[str, Any],
        output: Any,
        record: ForwardRecord | None,
        grad_enabled: bool,
    ) -> None:
        if record is None:
            return
        if not record.training:
            if self.pending is None:
                self.pending = record
            return
        self._resolve()

    def on_step_pre(self) -> None:
        self._resolve()

    def on_read(self) -> None:
        self._resolve()

    def close(self) -> None:
        self._resolve()

    def _resolve(self) -> None:
        pending, self.pending = self.pending, None
        if pending is None or pending.backwarded:
            return  # a backward used it: training in eval mode, the mode guard's business
        ctx = self.ctx
        ctx.report(
            "validation-graph",
            name="validation builds an autograd graph",
            message=(
                "the model ran in eval mode with gradients enabled and no backward used the "
                "output before training resumed"
            ),
            where=type(ctx.model).__name__,
            step=pending.step,
            why=(
                "every validation batch records a graph and keeps its activations: slower, "
                "and memory grows with each batch kept (e.g. summed losses) until OOM"
            ),
            fix="wrap validation and inference in torch.inference_mode() (or torch.no_grad())",
            switch=self.switch,
        )


class RetainedGraphGuard(Guard):
    switch = "retained_graph"

    def attach(self) -> None:
        self.records: deque[tuple[int, weakref.ref]] = deque(maxlen=10_000)
        self.done = False  # reported: stop looking (and stop paying for gc.collect)

    def on_forward(
        self,
        args: tuple,
        kwargs: Mapping[str, Any],
        output: Any,
        record: ForwardRecord | None,
        grad_enabled: bool,
    ) -> None:
        if record is not None and record.training and not self.done:
            self.records.append((record.step, weakref.ref(record)))

    def on_step_post(self) -> None:
        ctx, records = self.ctx, self.records
        horizon = ctx.steps - ctx.config.retained_steps
        while records and records[0][0] < horizon:
            step, ref = records.popleft()
            if ref() is None:
                continue
            gc.collect()  # a reference cycle is not a leak; rule it out before reporting
            if ref() is not None:
                self._report(step)
                self.done = True
                records.clear()
                return

    def _report(self, step: int) -> None:
        ctx = self.ctx
        ctx.report(
            "retained-graph",
            name="graphs kept alive across steps",
            message=(
                f"the graph of a forward at step {step} is still alive {ctx.steps - step} "
                "optimizer steps later"
            ),
            where=type(ctx.model).__name__,
            step=ctx.steps,
            why=(
                "a loss or output tensor stored with its graph (losses.append(loss), "
                "total += loss) keeps every step's graph: memory grows each step until OOM"
            ),
            fix="store loss.item() (at the logging interval) or loss.detach(), not loss",
            switch=self.switch,
        )
