"""Non-finite (inf/NaN) gradients, and the policy for them: warn, skip_step or stop.

fp32/bf16: before every optimizer step the per-parameter gradient norms (one foreach kernel) are
added to a running total on the device (a non-finite norm makes it non-finite for good) and kept
in a ring of ``every`` rows. Nothing is read on the host until the guard's cadence (``every``
steps, or when fit() logs), so a NaN run goes on for at most that many steps before it is
stopped; the ring then tells which step went bad first and which parameters. The
report names the first module, in backward order, whose gradient went non-finite: the NaN was
born there (the layers before it only inherit it).

``skip_step`` must decide before the step, without a host read: the gradients of a bad step are
zeroed on the device (``masked_fill_`` with the device flag). The trade-off: plain SGD then does
not move, but optimizers with state (momentum, Adam's moments, weight decay) still apply an
update from that state. ``skip_exact=True`` reads the flag on the host every step instead and
drops the gradients (``grad=None``), which optimizers skip entirely: exact, one sync per step.

When the NaN is already in the data, no module is to blame: each graph-building forward also
keeps, per floating input tensor, its float32 sum on the device (NaN and inf propagate into a
sum; one small kernel), read on the host only when the gradients of that interval went bad. If an
input of the first bad step held inf/NaN, the finding (``nonfinite-input``) names that step's
input batch, which input (``input 0``, ``input 'image'``) and its shape, and (under fit()) the
epoch and batch.

fp16 with GradScaler: the scaler already skips inf/NaN steps and lowers its scale; a long run of
consecutive skips means the NaN is not an overflow but a real one, and the run is stopped.
"""

from __future__ import annotations

import functools
from collections import deque
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import torch

from trainwell.guards.base import ForwardRecord, Guard
from trainwell.guards.finding import NonFiniteError
from trainwell.guards.hooks import Hook

_MAX_INPUTS = 8  # floating input tensors flagged per forward


@dataclass
class _InputCheck:
    """One graph-building forward's inputs: names and shapes on the host, sums on the device."""

    step: int  # optimizer steps done when the forward ran
    index: int  # forwards since that step began (micro-batch index under accumulation)
    names: list[str]
    shapes: list[tuple[int, ...]]
    dtypes: list[torch.dtype]
    sums: list[torch.Tensor]  # device, one float32 sum per input: NaN/inf propagate into it


class NonFiniteGuard(Guard):
    switch = "nonfinite_check"

    def attach(self) -> None:
        self.total: torch.Tensor | None = None  # device: sum of all gradient norms since a read
        self.history: torch.Tensor | None = None  # device: per-parameter norms, one row a step
        self.row_steps: list[int | None] = []  # host: the step each history row holds
        self.run = 0  # bad steps in a row at the end of the last read interval
        self.reported = False  # non-finite gradients reported (once per run)
        self.skips = 0  # fp16: consecutive steps skipped by GradScaler
        self.order: list[int] = []  # parameter indices in the order backward produced them
        self._order_hooks = [
            p.register_post_accumulate_grad_hook(Hook(functools.partial(self._backward_order, i)))
            for i, p in enumerate(self.ctx.params)
        ]
        self.ctx.handles.extend(self._order_hooks)
        # The inputs of each graph-building forward since the last read (bounded: a loop that
        # never steps must not grow it).
        every = self.ctx.config.every
        self.inputs: deque[_InputCheck] = deque(maxlen=4 * every * self.ctx.accumulate_steps)
        self.forwards = (-1, 0)  # (step, forwards seen in it)

    def _backward_order(self, index: int, param: torch.Tensor) -> None:
        self.order.append(index)

    # ------------------------------------------------------------------ inputs

    def on_forward(
        self,
        args: tuple,
        kwargs: Mapping[str, Any],
        output: Any,
        record: ForwardRecord | None,
        grad_enabled: bool,
    ) -> None:
        if record is None or self.ctx.scaler is not None:
            return  # no gradients from it; fp16: GradScaler skips those steps itself
        step = self.ctx.steps
        index = self.forwards[1] if self.forwards[0] == step else 0
        self.forwards = (step, index + 1)
        if len(args) == 1 and not kwargs and isinstance(args[0], torch.Tensor):  # the usual
            found = [("input 0", args[0])] if _floating(args[0]) else []
        else:
            found = list(_floating_inputs(args, kwargs))
        if not found:
            return
        tensors = [t.detach() if t.requires_grad else t for _, t in found]
        self.inputs.append(
            _InputCheck(
                step,
                index,
                [name for name, _ in found],
                [tuple(t.shape) for t in tensors],
                [t.dtype for t in tensors],
                # One small kernel per input and nothing else until a read finds bad gradients.
                [t.sum(dtype=torch.float32) for t in tensors],
            )
        )

    # ------------------------------------------------------------------ fp32 / bf16

    def on_step_pre(self) -> None:
        self._drop_order_hooks()
        if self.ctx.scaler is not None:
            return  # GradScaler only steps on finite gradients
        index, norms = self.ctx.grad_norms()
        if norms is None:
            return
        full = _full(norms, index, len(self.ctx.params))
        self._record(full)
        if self.ctx.config.nonfinite == "skip_step":
            self._skip(~torch.isfinite(full.sum()))

    def _record(self, norms: torch.Tensor) -> None:
        # Three small device ops a step: a non-finite norm makes the running total non-finite
        # for good (inf + x = inf, NaN + x = NaN), and the row keeps which parameter and when.
        every = self.ctx.config.every
        if self.history is None or self.history.shape[1] != norms.shape[0]:
            self.history = torch.zeros(
                every, norms.shape[0], dtype=norms.dtype, device=norms.device
            )
            self.total = torch.zeros((), dtype=norms.dtype, device=norms.device)
            self.row_steps = [None] * every
        assert self.total is not None
        row = self.ctx.steps % every
        self.history[row].copy_(norms)
        self.row_steps[row] = self.ctx.steps
        self.total.add_(norms.sum())

    def _skip(self, bad: torch.Tensor) -> None:
        if self.ctx.config.skip_exact:
            if bool(bad):  # the one host read per step this option pays for
                for p in self.ctx.params:
                    p.grad = None
            return
        for p in self.ctx.params:
            if p.grad is not None:
                p.grad.masked_fill_(bad, 0.0)

    def on_read(self) -> None:
        if self.total is None or self.history is None:
            return
        finite = bool(torch.isfinite(self.total))  # the host read, at the guard cadence
        rows = [(step, r) for r, step in enumerate(self.row_steps) if step is not None]
        rows.sort()
        if finite:
            self.run = 0
        else:
            bad_rows = (~torch.isfinite(self.history)).any(1).tolist()
            self._report_bad([(step, r, bad_rows[r]) for step, r in rows])
        self.total.zero_()
        self.row_steps = [None] * len(self.row_steps)
        self.inputs.clear()

    def _report_bad(self, rows: list[tuple[int, int, bool]]) -> None:
        first = next(((step, r) for step, r, bad in rows if bad), None)
        policy = self.ctx.config.nonfinite
        longest = self.run
        for _, _, bad in rows:
            self.run = self.run + 1 if bad else 0
            longest = max(longest, self.run)
        if first is None:
            return
        if self.reported:  # once per run: later NaNs are inherited from the first
            if policy == "skip_step" and longest >= self.ctx.config.max_consecutive_skips:
                self._stop_skips(longest)
            return
        self.reported = True
        first_step, row = first
        found = self._bad_input(first_step)
        if found is not None:
            code, reason = self._report_input(first_step, *found)
        else:
            code, reason = self._report_grad(first_step, row)
        if policy == "stop":
            self._stop(code, reason)
        elif policy == "skip_step" and longest >= self.ctx.config.max_consecutive_skips:
            self._stop_skips(longest)

    def _report_grad(self, step: int, row: int) -> tuple[str, str]:
        where = self._origin(row)
        skipped = " (those steps were skipped)" if self.ctx.config.nonfinite == "skip_step" else ""
        self.ctx.report(
            "nonfinite-grad",
            name="non-finite gradients",
            message=(
                f"inf/NaN gradients first at step {step}, first in backward order in "
                f"{where}{skipped}"
            ),
            where=where,
            step=step,
            why=(
                "one NaN update turns every weight NaN: the run is lost from there on, while "
                "the loop keeps going"
            ),
            fix=(
                f"look at {where} and the loss: a log/sqrt/division of 0, an LR too high "
                "(lower it or add warmup), missing clipping, or bad data; bf16/fp32 do not "
                "need a GradScaler, fp16 does"
            ),
            switch=self.switch,
        )
        return "nonfinite-grad", f"non-finite gradients at step {step} in {where}"

    def _bad_input(self, step: int) -> tuple[_InputCheck, list[int]] | None:
        """The first forward of ``step`` whose inputs held inf/NaN, and which (None: finite)."""
        checks = [c for c in self.inputs if c.step == step]
        if not checks:
            return None
        sums = [s for c in checks for s in c.sums]
        flags = torch.isfinite(torch.stack(sums)).tolist()  # the host read, only when bad
        at = 0
        for check in checks:
            bad = [i for i, ok in enumerate(flags[at : at + len(check.names)]) if not ok]
            at += len(check.names)
            if bad:
                return check, bad
        return None

    def _report_input(self, step: int, check: _InputCheck, bad: list[int]) -> tuple[str, str]:
        name, shape, dtype = check.names[bad[0]], check.shapes[bad[0]], check.dtypes[bad[0]]
        micro = 1 + max(c.index for c in self.inputs if c.step == step)
        details = [f"micro-batch {check.index + 1} of {micro}"] if micro > 1 else []
        place = self.ctx.batch_places.get(step)
        if place is not None:  # fit(): the epoch, and the window's last batch in it
            epoch, last = place
            details.append(f"epoch {epoch}, batch {last - micro + 1 + check.index}")
        batch = f"the input batch of step {step}" + (f" ({'; '.join(details)})" * bool(details))
        also = "; also in " + ", ".join(check.names[j] for j in bad[1:]) if bad[1:] else ""
        skipped = " (those steps were skipped)" if self.ctx.config.nonfinite == "skip_step" else ""
        self.ctx.report(
            "nonfinite-input",
            name="inf/NaN already in the input batch",
            message=(
                f"{batch} held inf/NaN in {name} (shape {_shape(shape)}, "
                f"{str(dtype).removeprefix('torch.')}){also}: the gradients went non-finite "
                f"from the data, not in a layer{skipped}"
            ),
            where=name,
            step=step,
            why=(
                "one NaN input makes the loss and every gradient NaN; one update with them "
                "turns every weight NaN, while the loop keeps going"
            ),
            fix=(
                "find and clean the bad samples (check torch.isfinite(x).all() over the "
                "dataset: missing values, a division by a zero std when normalising, log of 0), "
                "or filter them out in the Dataset"
            ),
            switch=self.switch,
        )
        return "nonfinite-input", f"non-finite values in {name} of the input batch of step {step}"

    def _origin(self, row: int) -> str:
        """The module whose gradient went non-finite first in backward order."""
        assert self.history is not None
        bad = (~torch.isfinite(self.history[row])).tolist()
        order = self.order or list(reversed(range(len(self.ctx.params))))
        for i in order:
            if i < len(bad) and bad[i]:
                return self.ctx.layer_of(i)
        return type(self.ctx.model).__name__

    # ------------------------------------------------------------------ fp16

    def on_skip(self) -> None:
        self.skips += 1
        if self.skips >= self.ctx.config.max_consecutive_skips:
            self._stop_skips(self.skips)

    def on_step_post(self) -> None:
        self.skips = 0

    # ------------------------------------------------------------------ stopping

    def _stop_skips(self, count: int) -> None:
        self.ctx.report(
            "nonfinite-skips",
            name="steps skipped in a row on non-finite gradients",
            message=f"{count} optimizer steps in a row were skipped (inf/NaN gradients)",
            where=type(self.ctx.optimizer).__name__,
            why=(
                "the model has stopped learning: a loss scale overflow clears in a few skips; "
                "a run this long is a real NaN (in the loss, the data or the weights)"
            ),
            fix="check the loss and inputs for NaN, lower the LR, or train in bf16",
            switch=self.switch,
        )
        if self.ctx.config.nonfinite != "warn":
            self._stop("nonfinite-skips", f"{count} steps in a row skipped on inf/NaN gradients")

    def _stop(self, code: str, reason: str) -> None:
        self.ctx.stop_reason = reason
        if not self.ctx.in_fit:  # a hand-written loop can only be stopped by an exception
            finding = next(f for f in reversed(self.ctx.reporter.findings) if f.code == code)
            raise NonFiniteError(finding)

    def _drop_order_hooks(self) -> None:
        # The order of the first backward is all we need; the hooks then cost nothing.
        if self._order_hooks:
            for handle in self._order_hooks:
                handle.remove()
            self._order_hooks = []


def _floating_inputs(args: tuple, kwargs: Mapping[str, Any]) -> Iterator[tuple[str, torch.Tensor]]:
    """(name, tensor) of the floating tensors a forward got: ``input 0``, ``input 'image'``."""
    found = 0
    single = len(args) == 1 and not kwargs
    items = [(f"input {i}", a, single and isinstance(a, Mapping)) for i, a in enumerate(args)]
    items += [(f"input {k!r}", v, False) for k, v in kwargs.items()]
    for name, value, bare in items:
        for sub, tensor in _tensors(value, name, bare):
            if found == _MAX_INPUTS:
                return
            if _floating(tensor):
                found += 1
                yield sub, tensor


def _floating(tensor: torch.Tensor) -> bool:
    return tensor.is_floating_point() and tensor.numel() > 0


def _tensors(value: Any, name: str, bare: bool, depth: int = 0) -> Iterator[tuple[str, Any]]:
    if isinstance(value, torch.Tensor):
        yield name, value
    elif depth < 2 and isinstance(value, Mapping):
        for key, item in value.items():
            sub = f"input {key!r}" if bare else f"{name}[{key!r}]"
            yield from _tensors(item, sub, False, depth + 1)
    elif depth < 2 and isinstance(value, list | tuple):
        for j, item in enumerate(value):
            yield from _tensors(item, f"{name}[{j}]", False, depth + 1)


def _shape(shape: tuple[int, ...]) -> str:
    return "(" + ", ".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"


def _full(norms: torch.Tensor, index: list[int], count: int) -> torch.Tensor:
    """Per-parameter norms over all ``count`` parameters (0 where a parameter has no grad)."""
    if len(index) == count:
        return norms
    full = torch.zeros(count, dtype=norms.dtype, device=norms.device)
    full[index] = norms
    return full
