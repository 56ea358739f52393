"""The model in the wrong train/eval mode for the phase, while it holds Dropout or BatchNorm.

* training in eval mode: an optimizer step used gradients that a backward through a forward
  made under ``model.eval()`` wrote (``model.train()`` forgotten after validation). Gradients
  *of the input* taken in eval mode are not training: an adversarial attack
  (``torch.autograd.grad(loss, x)``, which writes no ``.grad``), or a ``loss.backward()`` for
  ``x.grad`` whose parameter gradients ``zero_grad()`` clears before the step;
* validating in train mode: a forward under ``no_grad``/``inference_mode`` while
  ``model.training`` (``model.eval()`` forgotten), so Dropout drops and BatchNorm updates its
  running statistics with validation data.

Models without Dropout/BatchNorm behave the same in both modes and are never reported.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from trainwell.guards.base import ForwardRecord, Guard
from trainwell.guards.zero_grad import GradWrites, graph_task


class TrainModeGuard(Guard):
    switch = "train_mode"

    def attach(self) -> None:
        self.writes = GradWrites.of(self.ctx) if self.ctx.sensitive else None
        if self.writes is not None:
            self.writes.listeners.append(self._on_write)
        self.start: tuple[int, list[str]] | None = None  # a backward through an eval forward
        self.pending: list[str] | None = None  # its gradients are in .grad, not cleared since

    def on_arm(self) -> None:
        if self.writes is not None:
            self.writes.arm(self)

    def on_disarm(self) -> None:
        if self.writes is not None:
            self.writes.disarm(self)

    def on_backward(self, record: ForwardRecord) -> None:
        ctx = self.ctx
        if self.writes is None:
            return
        if self.pending is not None and self.writes.cleared():
            self.pending = None  # zero_grad() since: the step will not use them
        self.start = None
        if record.training:
            return
        frozen = [ctx.name_of(m) for m in ctx.sensitive if not m.training]
        if len(frozen) < len(ctx.sensitive):
            return  # only some layers in eval: a deliberate freeze (e.g. frozen BatchNorm)
        self.start = (graph_task(), frozen)

    def _on_write(self, task: int) -> bool:
        if self.start is not None and self.start[0] == task:
            self.pending = self.start[1]  # the eval forward's gradients are in .grad now
        return self.pending is not None  # then `cleared` must know what this pass leaves

    def on_step_pre(self) -> None:
        frozen, self.pending = self.pending, None
        if frozen is None:
            return
        ctx = self.ctx
        ctx.report(
            "eval-mode-training",
            name="training in eval mode",
            message=(
                f"an optimizer step used gradients of a forward made in eval mode; "
                f"{_names(frozen)} were in eval mode"
            ),
            where=type(ctx.model).__name__,
            why=(
                "Dropout is off and BatchNorm uses frozen running statistics: the model "
                "trains without regularisation and BatchNorm never adapts"
            ),
            fix="call model.train() at the start of every training epoch (after validation)",
            switch=self.switch,
        )

    def on_step_post(self) -> None:
        self.pending = None

    def on_skip(self) -> None:
        self.pending = None  # GradScaler skipped: no update used them

    def on_forward(
        self,
        args: tuple,
        kwargs: Mapping[str, Any],
        output: Any,
        record: ForwardRecord | None,
        grad_enabled: bool,
    ) -> None:
        ctx = self.ctx
        if grad_enabled or not ctx.model.training or not ctx.sensitive:
            return
        active = [ctx.name_of(m) for m in ctx.sensitive if m.training]
        if not active:
            return
        ctx.report(
            "train-mode-validation",
            name="validation in train mode",
            message=(
                f"a forward without gradients ran in train mode; {_names(active)} were "
                "in train mode"
            ),
            where=type(ctx.model).__name__,
            why=(
                "Dropout drops units and BatchNorm normalises by batch statistics and "
                "overwrites its running statistics with validation data: metrics are noisy "
                "and the trained model changes"
            ),
            fix="call model.eval() before validating (and model.train() after)",
            switch=self.switch,
        )


def _names(names: list[str], most: int = 3) -> str:
    shown = ", ".join(names[:most])
    return shown + (f" and {len(names) - most} more" if len(names) > most else "")
