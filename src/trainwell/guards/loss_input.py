"""Probabilities or log-probabilities fed to the wrong classification loss.

``CrossEntropyLoss``/``F.cross_entropy`` take raw logits and apply log-softmax themselves;
``NLLLoss``/``F.nll_loss`` take log-probabilities. A few rows of the input are tested on the
device, on the first call and every ``every`` calls (one host read per check):

* rows already a softmax (non-negative, summing to 1) -> softmax applied twice (CE) or log
  missing (NLL);
* rows already a log-softmax (logsumexp = 0) -> redundant for CE (same loss, wasted work);
* rows that are neither -> raw logits fed to NLL.

A loss module passed as ``loss_fn`` is checked by a forward pre-hook; functional calls by the
scoped wrapper in `trainwell.guards.patch`.
"""

from __future__ import annotations

import functools
from typing import Any

import torch
from torch import nn

from trainwell.guards import patch
from trainwell.guards.base import Guard
from trainwell.guards.hooks import Hook

_KINDS = {nn.CrossEntropyLoss: "cross_entropy", nn.NLLLoss: "nll_loss"}


class LossInputGuard(Guard):
    switch = "loss_input"

    def attach(self) -> None:
        self.calls = 0
        loss_fn = self.ctx.loss_fn
        kind = loss_kind(loss_fn)
        if kind is not None:
            hook = Hook(functools.partial(self._module_pre, kind))
            self.ctx.handles.append(loss_fn.register_forward_pre_hook(hook))
        patch.add_loss_listener(self.on_loss)

    def close(self) -> None:
        patch.remove_loss_listener(self.on_loss)

    def _module_pre(self, kind: str, module: nn.Module, args: tuple) -> None:
        patch.in_hooked_loss(True)  # the functional call inside is this same check
        if args and isinstance(args[0], torch.Tensor):
            self.on_loss(kind, args[0])

    def on_loss(self, kind: str, logits: torch.Tensor) -> None:
        self.calls += 1
        if (self.calls - 1) % self.ctx.config.every:
            return
        shape = classify_rows(logits, self.ctx.config.loss_input_rows)
        if shape is not None:
            self._report(kind, shape)

    def _report(self, kind: str, shape: str) -> None:
        loss = "CrossEntropyLoss" if kind == "cross_entropy" else "NLLLoss"
        if kind == "cross_entropy" and shape == "probabilities":
            code, name = "softmax-into-cross-entropy", "softmax output fed to CrossEntropyLoss"
            why = (
                "CrossEntropyLoss applies log-softmax itself: softmax twice squashes the "
                "logits, the gradients shrink and the model converges to a worse solution"
            )
            fix = "return raw logits from forward() (apply softmax only for predictions)"
        elif kind == "cross_entropy" and shape == "log_probabilities":
            code, name = "log-softmax-into-cross-entropy", "log-softmax fed to CrossEntropyLoss"
            why = "same loss value (log-softmax is idempotent) computed twice; wasted work"
            fix = "return raw logits, or keep log_softmax and use NLLLoss"
        elif kind == "nll_loss" and shape == "probabilities":
            code, name = "probabilities-into-nll", "probabilities fed to NLLLoss"
            why = "NLLLoss expects log-probabilities: it minimises -p instead of -log p"
            fix = "apply log_softmax instead of softmax, or use CrossEntropyLoss on logits"
        elif kind == "nll_loss" and shape == "logits":
            code, name = "logits-into-nll", "raw logits fed to NLLLoss"
            why = "NLLLoss does not normalise: it pushes one logit up without bound"
            fix = "use CrossEntropyLoss on logits, or apply log_softmax first"
        else:
            return
        self.ctx.report(
            code,
            name=name,
            message=f"the rows passed to {loss} look like {shape.replace('_', '-')}",
            where=loss,
            why=why,
            fix=fix,
            switch=self.switch,
        )


def classify_rows(logits: torch.Tensor, rows: int) -> str | None:
    """ "probabilities", "log_probabilities", "logits" for the first ``rows`` rows; None: unsure.

    Classes are on dim 1 (PyTorch's convention for these losses). One host read.
    """
    if logits.dim() < 2 or not logits.is_floating_point() or logits.shape[1] < 2:
        return None
    x = logits.detach()[:rows].float()
    if x.numel() == 0:
        return None
    tol = 1e-3 if logits.dtype in (torch.float32, torch.float64) else 2e-2
    flags = torch.stack(
        [
            (x >= 0).all() & ((x.sum(1) - 1).abs() <= tol).all(),
            (torch.logsumexp(x, 1).abs() <= tol).all(),
            torch.isfinite(x).all(),
        ]
    ).tolist()
    probabilities, log_probabilities, finite = flags
    if not finite:
        return None  # the non-finite guard speaks for these
    if probabilities:
        return "probabilities"
    return "log_probabilities" if log_probabilities else "logits"


def loss_kind(loss_fn: Any) -> str | None:
    """ "cross_entropy" or "nll_loss" for the loss modules this guard checks, else None."""
    return next((k for cls, k in _KINDS.items() if isinstance(loss_fn, cls)), None)
