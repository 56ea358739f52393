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

fp16 with GradScaler: the scaler already skips inf/NaN steps and lowers its scale; a long run of
consecutive skips means the NaN is not an overflow but a real one, and the run is stopped.
"""

from __future__ import annotations

import torch

from trainwell.guards.base import Guard
from trainwell.guards.finding import NonFiniteError


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
            p.register_post_accumulate_grad_hook(lambda _p, i=i: self.order.append(i))
            for i, p in enumerate(self.ctx.params)
        ]
        self.ctx.handles.extend(self._order_hooks)

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
        where = self._origin(row)
        self.ctx.report(
            "nonfinite-grad",
            name="non-finite gradients",
            message=(
                f"inf/NaN gradients first at step {first_step}, first in backward order in "
                f"{where}" + (" (those steps were skipped)" if policy == "skip_step" else "")
            ),
            where=where,
            step=first_step,
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
        if policy == "stop":
            self._stop("nonfinite-grad", f"non-finite gradients at step {first_step} in {where}")
        elif policy == "skip_step" and longest >= self.ctx.config.max_consecutive_skips:
            self._stop_skips(longest)

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


def _full(norms: torch.Tensor, index: list[int], count: int) -> torch.Tensor:
    """Per-parameter norms over all ``count`` parameters (0 where a parameter has no grad)."""
    if len(index) == count:
        return norms
    full = torch.zeros(count, dtype=norms.dtype, device=norms.device)
    full[index] = norms
    return full
