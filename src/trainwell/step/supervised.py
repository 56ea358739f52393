"""The supervised step: ``loss(model(inputs), targets)`` for one micro-batch, with the labels
checked on the first batch (class range, element-wise shapes)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
from torch import nn

from trainwell.data.batch import BOOKKEEPING_KEYS, split_batch
from trainwell.parts.outputs import (
    call_model,
    check_class_targets,
    check_elementwise_shapes,
    compute_loss,
    logits_of,
)

#: ``step_fn(model, batch)`` returns the loss, or ``(loss, outputs)`` so metrics can be measured
StepFn = Callable[[nn.Module, Any], Any]


class SupervisedStep:
    """The default step: ``loss_fn(model(inputs), targets)``, labels checked on the first batch."""

    def __init__(
        self, loss_fn: Callable[..., torch.Tensor], skip: frozenset[str] = BOOKKEEPING_KEYS
    ) -> None:
        self.loss_fn = loss_fn
        self.skip = skip  # batch keys that are counts for the loop, not model inputs
        self.checked = False

    def __call__(self, model: nn.Module, batch: Any) -> torch.Tensor:
        inputs, targets = split_batch(batch, self.skip)
        output = call_model(model, inputs)
        if not self.checked:
            if isinstance(targets, torch.Tensor):
                check_class_targets(logits_of(output), targets, self.loss_fn)
                check_elementwise_shapes(logits_of(output), targets, self.loss_fn)
            self.checked = True
        return compute_loss(self.loss_fn, output, targets)
