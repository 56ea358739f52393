"""The model in the wrong train/eval mode for the phase, while it holds Dropout or BatchNorm.

* training in eval mode: a backward pass reached the output of a forward that ran under
  ``model.eval()`` (``model.train()`` forgotten after validation);
* validating in train mode: a forward under ``no_grad``/``inference_mode`` while
  ``model.training`` (``model.eval()`` forgotten), so Dropout drops and BatchNorm updates its
  running statistics with validation data.

Models without Dropout/BatchNorm behave the same in both modes and are never reported.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from trainwell.guards.base import ForwardRecord, Guard


class TrainModeGuard(Guard):
    switch = "train_mode"

    def on_backward(self, record: ForwardRecord) -> None:
        ctx = self.ctx
        if record.training or not ctx.sensitive:
            return
        frozen = [ctx.name_of(m) for m in ctx.sensitive if not m.training]
        if len(frozen) < len(ctx.sensitive):
            return  # only some layers in eval: a deliberate freeze (e.g. frozen BatchNorm)
        ctx.report(
            "eval-mode-training",
            name="training in eval mode",
            message=(
                f"backward() ran through a forward made in eval mode; "
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
