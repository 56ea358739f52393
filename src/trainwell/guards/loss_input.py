"""Probabilities or log-probabilities fed to the wrong classification loss.

``CrossEntropyLoss``/``F.cross_entropy`` take raw logits and apply log-softmax themselves;
``NLLLoss``/``F.nll_loss`` take log-probabilities. A few rows of the input are tested on the
device, on the first call of every ``every``-th step's window (the first step included); the
flags are read with the guards' cadence read (no host read of its own):

* rows already a softmax (non-negative, summing to 1) -> softmax applied twice (CE) or log
  missing (NLL);
* rows already a log-softmax (logsumexp = 0) -> redundant for CE (same loss, wasted work);
* rows that are neither -> raw logits fed to NLL.

A loss module passed as ``loss_fn`` is checked by a forward pre-hook, present only on those
windows; functional calls by the scoped wrapper in `trainwell.guards.patch`.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import torch
from torch import nn

from trainwell.guards import patch
from trainwell.guards.base import Guard
from trainwell.guards.finding import UserLine, line_info, user_line
from trainwell.guards.hooks import Hook
from trainwell.observe import signals

_KINDS = {nn.CrossEntropyLoss: "cross_entropy", nn.NLLLoss: "nll_loss"}
_RAW = 256  # rows of at most this many values in all are read as they are


class LossInputGuard(Guard):
    switch = "loss_input"

    def attach(self) -> None:
        self.checked = -1  # ctx.steps of the window last checked
        # Checks waiting for the read: (kind, step, device flags, the user's line)
        self.pending: list[tuple[str, int, torch.Tensor, int, bool, UserLine | None]] = []
        self.kind = loss_kind(self.ctx.loss_fn)
        self.hooked: Any = None  # the loss module's pre-hook, while armed
        self.listening = False  # the functional losses' listener (and wrapper), while armed

    def on_arm(self) -> None:
        if self.kind is not None and self.hooked is None:
            hook = Hook(self._module_pre, self.kind)
            self.hooked = self.ctx.loss_fn.register_forward_pre_hook(hook)
        if not self.listening:
            patch.add_loss_listener(self.on_loss, wrap_torch=not self.ctx.in_fit)
            self.listening = True

    def on_disarm(self) -> None:
        if self.hooked is not None:
            self.hooked.remove()
            self.hooked = None
        if self.listening:
            patch.remove_loss_listener(self.on_loss)
            self.listening = False

    def close(self) -> None:
        self.on_disarm()

    def _module_pre(self, kind: str, module: nn.Module, args: tuple) -> None:
        signals.in_hooked_loss(True)  # the functional call inside is this same check
        if args and isinstance(args[0], torch.Tensor):
            self.on_loss(kind, args[0])

    def on_loss(self, kind: str, logits: torch.Tensor) -> None:
        ctx = self.ctx
        if ctx.classes is None and logits.dim() >= 2 and logits.shape[1] > 1:
            ctx.classes = logits.shape[1]  # the loss at chance is ln(C): the loss trend's anchor
        steps = ctx.steps
        if steps == self.checked or len(self.pending) >= 4 or not ctx.structure_due:
            return  # one call per structural window; nothing else between reads
        self.checked = steps
        found = row_flags(logits, ctx.config.loss_input_rows)
        if found is not None:
            half = logits.dtype not in (torch.float32, torch.float64)
            self.pending.append((kind, steps, *found, half, user_line()))

    def on_read(self) -> None:
        pending, self.pending = self.pending, []
        for kind, step, values, classes, half, at in pending:
            judge = functools.partial(self._judge, kind, step, classes, half, at)
            self.ctx.read_later(values, judge)

    def _judge(
        self,
        kind: str,
        step: int,
        classes: int,
        half: bool,
        at: UserLine | None,
        values: list[float],
    ) -> None:
        shape = classify(values, half, classes)
        if shape is not None:
            self._report(kind, shape, step, at)

    def _report(self, kind: str, shape: str, step: int, at: UserLine | None) -> None:
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
            step=step,
            at=line_info(at),
            why=why,
            fix=fix,
            switch=self.switch,
        )


def row_flags(logits: torch.Tensor, rows: int) -> tuple[torch.Tensor, int] | None:
    """What `classify` needs of the first ``rows`` rows (classes on dim 1, PyTorch's convention
    for these losses), on the device, in one op or a few, and the row length when these are the
    rows themselves (0: reduced). Few values: the rows. Else each row's sum and logsumexp, then
    the smallest value; for (N, C, d1, ...) inputs (a row per position) the largest deviations,
    the smallest value and the total (None: not checkable)."""
    if logits.dim() < 2 or not logits.is_floating_point() or logits.shape[1] < 2:
        return None
    x = logits.detach()[:rows]
    if x.numel() == 0:
        return None
    if x.dim() == 2 and x.numel() <= _RAW:
        return x.reshape(-1), x.shape[1]
    x = x.float()
    sums, lse, smallest = x.sum(1), torch.logsumexp(x, 1), x.amin()
    if x.dim() == 2:
        return torch.cat([sums, lse, smallest.reshape(1)]), 0
    return torch.stack([(sums - 1).abs().amax(), lse.abs().amax(), smallest, sums.sum()]), 0


def classify(values: list[float], half: bool = False, classes: int = 0) -> str | None:
    """ "probabilities", "log_probabilities", "logits" from `row_flags`' values (None: unsure);
    ``classes``: the row length when they are the rows themselves."""
    if classes:  # the rows themselves
        rows = [values[i : i + classes] for i in range(0, len(values), classes)]
        if not all(math.isfinite(v) for v in values):
            return None  # the non-finite guard speaks for these
        values = [*map(math.fsum, rows), *map(_logsumexp, rows), min(values)]
    if len(values) % 2 == 0:  # reduced on the device (per-row values come in an odd count)
        sum_dev, lse_dev, smallest, total = values
        finite = math.isfinite(total)
    else:
        count = (len(values) - 1) // 2
        sums, lse, smallest = values[:count], values[count : 2 * count], values[-1]
        finite = all(math.isfinite(v) for v in sums)
        sum_dev = max(abs(v - 1) for v in sums) if finite else math.inf
        lse_dev = max(abs(v) for v in lse) if finite else math.inf
    if not finite:
        return None  # the non-finite guard speaks for these
    tol = 2e-2 if half else 1e-3
    if smallest >= 0 and sum_dev <= tol:
        return "probabilities"
    return "log_probabilities" if lse_dev <= tol else "logits"


def _logsumexp(row: list[float]) -> float:
    top = max(row)
    return top + math.log(math.fsum(math.exp(v - top) for v in row))


def loss_kind(loss_fn: Any) -> str | None:
    """ "cross_entropy" or "nll_loss" for the loss modules this guard checks, else None."""
    return next((k for cls, k in _KINDS.items() if isinstance(loss_fn, cls)), None)
