"""The supervised step: ``loss(model(inputs), targets)`` for one micro-batch, the same forward
for training and for validation.

Without a loss of the user's (``loss=None``) a model that takes ``labels`` gets them, and a
model that computes its own loss (``outputs.loss``: an HF model given labels, a class-weighted
loss of its own) is trained and validated on that loss; otherwise the loss is
``CrossEntropyLoss``. With a loss of the user's, the model is called on its inputs alone and
the loss is ``loss(prediction, targets)``. The labels are checked on the first batch (class
range, element-wise shapes).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import torch
from torch import nn

from trainwell.data.batch import BOOKKEEPING_KEYS, split_batch
from trainwell.parts.device import match_dtype
from trainwell.parts.losses import (
    check_class_targets,
    check_elementwise_shapes,
    compute_loss,
)
from trainwell.parts.outputs import (
    accepts_labels,
    call_model,
    floating_dtype,
    logits_of,
    model_loss_of,
)

#: ``step_fn(model, batch)`` returns the loss, or ``(loss, outputs)`` so metrics can be measured
StepFn = Callable[[nn.Module, Any], Any]


class Forward(NamedTuple):
    """One supervised forward: the loss, how the output reads, and the targets."""

    loss: torch.Tensor
    output: Any  # what the model returned (read with `trainwell.parts.outputs.logits_of`)
    targets: Any
    own_loss: bool  # the loss is the model's own (``outputs.loss``)


class SupervisedStep:
    """``loss_fn(model(inputs), targets)``, or the model's own loss when ``loss_fn`` is None
    (see the module docstring); called with ``(model, batch)`` it returns the loss."""

    def __init__(
        self,
        loss_fn: Callable[..., torch.Tensor] | None = None,
        skip: frozenset[str] = BOOKKEEPING_KEYS,
        *,
        model_loss: bool | None = None,
    ) -> None:
        # ``model_loss``: the model's own loss may serve (default: when no loss_fn is given;
        # fit() passes its default CrossEntropyLoss with model_loss=True, for the guards)
        self.own_loss_allowed = loss_fn is None if model_loss is None else model_loss
        self.loss_fn = loss_fn if loss_fn is not None else nn.CrossEntropyLoss()
        self.skip = skip  # batch keys that are counts for the loop, not model inputs
        self.checked = False
        self._pass_labels: bool | None = None  # decided on the first batch: one model a step
        self._dtype: torch.dtype | None = None  # the model's floating dtype, read then too

    def __call__(self, model: nn.Module, batch: Any) -> torch.Tensor:
        return self.forward(model, batch).loss

    def forward(self, model: nn.Module, batch: Any) -> Forward:
        """The model on the batch's inputs, and the loss of its output."""
        if self._pass_labels is None:  # the model takes labels= and may compute its own loss
            self._pass_labels = self.own_loss_allowed and accepts_labels(model)
            self._dtype = floating_dtype(model)
        # float64 data (NumPy, scikit-learn) in the model's dtype; integer tensors untouched
        inputs, targets = split_batch(match_dtype(batch, self._dtype), self.skip)
        output = call_model(model, inputs, labels=targets if self._pass_labels else None)
        if self.own_loss_allowed and not isinstance(output, torch.Tensor):
            own = model_loss_of(output)
            if own is not None:
                return Forward(own, output, targets, own_loss=True)
        prediction = logits_of(output)
        if not self.checked:
            if isinstance(targets, torch.Tensor):
                check_class_targets(prediction, targets, self.loss_fn)
                check_elementwise_shapes(prediction, targets, self.loss_fn)
            self.checked = True
        return Forward(compute_loss(self.loss_fn, prediction, targets), output, targets, False)
