"""Non-finite (inf/NaN) gradients, and the policy for them: warn, skip_step or stop.

fp32/bf16: after every optimizer step the per-parameter gradient norms are kept by reference
(clipping's, when the step clipped; on the sampled steps one foreach kernel). Between the sampled
steps of a loop that does not clip (warn/stop) one gradient stands for all, the one nearest the
input (a NaN born in any later layer reaches it): the tensor itself when it is small and new each
step (no device op; measured at the read, only when the weights went non-finite), else its norm
(one small op). Nothing
is read on the host until the guards' cadence read (``every`` steps, or when fit() logs), which
stacks them and reads one flag per step with the other guards' values; so a NaN run goes on for
at most that many steps before it is stopped; the rows then tell which step went bad first and
which parameters. The
report names the first module, in backward order, whose gradient went non-finite: the NaN was
born there (the layers before it only inherit it).

``skip_step`` must decide before the step, without a host read: the gradients of a bad step are
zeroed on the device (``masked_fill_`` with the device flag). The trade-off: plain SGD then does
not move, but optimizers with state (momentum, Adam's moments, weight decay) still apply an
update from that state. ``skip_exact=True`` reads the flag on the host every step instead and
drops the gradients (``grad=None``), which optimizers skip entirely: exact, one sync per step.

When the NaN is already in the data, no module is to blame: each graph-building forward also
keeps, per floating input tensor, the tensor itself when small (by reference, until the next
read: no device op) or else its float32 sum on the device (NaN and inf propagate into a sum; one
small kernel), looked at only when the gradients of that interval went bad. If an
input of the first bad step held inf/NaN, the finding (``nonfinite-input``) names that step's
input batch, which input (``input 0``, ``input 'image'``) and its shape, and (under fit()) the
epoch and batch.

fp16 with GradScaler: the scaler already skips inf/NaN steps and lowers its scale; a long run of
consecutive skips means the NaN is not an overflow but a real one, and the run is stopped.
"""

from __future__ import annotations

import functools
import math
from collections import deque
from collections.abc import Mapping, Sequence
from typing import Any

import torch

from trainwell.guards.base import (
    ForwardRecord,
    Guard,
    local_shard,
    optimizer_param_ids,
    tensor_norms,
)
from trainwell.guards.batch_inputs import (
    KEEP,
    InputCheck,
    checks_of,
    floating_batch,
    floating_inputs,
    input_check,
    kept_sum,
    shape_text,
    step_of,
)
from trainwell.guards.finding import NonFiniteError
from trainwell.guards.hooks import Hook


class NonFiniteGuard(Guard):
    switch = "nonfinite_check"
    dynamic = True
    # A NaN can be born on any step: its norms (by reference: no device op) and inputs are
    # kept every step, after the step (skip_step: before it); fp16 skips are counted.
    every_step = frozenset({"on_forward", "on_step_post"})

    def attach(self) -> None:
        # skip_step under watch(): the guard drops the update itself, before the step; in fit()
        # the step does (`TrainStep.drop_if_nonfinite`: a visible call) and the guard reports
        self.before = self.ctx.config.nonfinite == "skip_step" and not self.ctx.in_fit
        if self.before:
            self.every_step = self.every_step | {"on_step_pre"}
        self.fp16 = self.ctx.scaler is not None
        self.after = not self.before and not self.fp16  # norms after the step
        # warn/stop: an update with inf/NaN gradients makes the weights inf/NaN, so the read
        # checks the weights (one foreach kernel) and stacks the rows only when they are not
        # finite. skip_step keeps the weights finite: its read looks at every row.
        owned = optimizer_param_ids(self.ctx.optimizer)
        self.weights = [p for p in self.ctx.params if id(p) in owned]
        self.weights_tell = self.ctx.config.nonfinite != "skip_step" and bool(self.weights)
        self.most = 2 * self.ctx.config.every  # rows kept between reads
        # Each step's per-parameter gradient norms since the last read, by reference: no device
        # op a step (the norms are clipping's, or one foreach kernel); the read stacks them.
        # (step, indices of the parameters with a norm, norms)
        self.rows: deque[tuple[int, list[int], torch.Tensor]] = deque()
        # Norms of rows dropped when reads are rarer than 2 x `every` steps (sum: NaN sticks).
        self.dropped: torch.Tensor | None = None
        self.history: torch.Tensor | None = None  # the rows of the last read, stacked
        self.run = 0  # bad steps in a row at the end of the last read interval
        self.reported = False  # non-finite gradients reported (once per run)
        self.skips = 0  # fp16: consecutive steps skipped by GradScaler
        self.order: list[int] = []  # parameter indices in the order backward produced them
        self.sentinel: int | None = None  # the gradient checked between the sampled steps
        self._sentinel_index: list[int] | None = None  # marks rows of its norm
        # marks rows holding the sentinel's gradient itself (small and new each step: kept by
        # reference, its norm taken at the read only when the weights went non-finite)
        self._kept_index: list[int] | None = None
        self._last_grad: torch.Tensor | None = None  # the sentinel's gradient at the last step
        self.sentinel_rows: set[int] = set()  # rows of the last stacked history: sentinel only
        self._order_hooks = [
            p.register_post_accumulate_grad_hook(Hook(self._backward_order, i))
            for i, p in enumerate(self.ctx.params)
        ]
        self.ctx.handles.extend(self._order_hooks)
        # The inputs of each graph-building forward since the last read (bounded: a loop that
        # never steps must not grow it).
        every = self.ctx.config.every
        # (a forward's one small tensor input: (step, tensor, its version then); else a check)
        self.inputs: deque[InputCheck | tuple[int, torch.Tensor, int]] = deque(
            maxlen=4 * every * self.ctx.accumulate_steps
        )

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
        if not grad_enabled or self.fp16 or self.ctx.in_fit:
            # no gradients from it; fp16: GradScaler skips those steps itself; fit(): the
            # loop hands over each step's batches (`keep_batches`)
            return
        if len(args) == 1 and not kwargs:  # the usual: one small tensor, kept as it is
            tensor = args[0]
            if type(tensor) is torch.Tensor and not tensor.requires_grad and tensor.numel() <= KEEP:
                self.inputs.append((self.ctx.steps, tensor, tensor._version))
                return
        found = list(floating_inputs(args, kwargs))
        if found:
            self.inputs.append(input_check(self.ctx.steps, found))

    def keep_batches(self, step: int, window: Sequence[Any]) -> None:
        """fit(): the floating tensors of the micro-batches of the window that made optimizer
        step ``step`` (steps done before it), as the loop took them from the loader (by
        reference, or a sum when large): ``input 0`` is the model's input of an
        (inputs, targets) pair, ``batch[j]`` another element, ``input 'key'`` a dict's."""
        if self.fp16:
            return
        inputs = self.inputs
        for micro in window:
            batch = getattr(micro, "batch", micro)
            if type(batch) in (tuple, list) and len(batch) == 2:  # the usual (x, y)
                x, y = batch
                if (
                    type(x) is torch.Tensor
                    and x.numel() <= KEEP
                    and not (isinstance(y, torch.Tensor) and y.is_floating_point())
                ):
                    inputs.append((step, x, x._version))
                    continue
            # (a batch without floating tensors still keeps its micro-batch's place)
            inputs.append(input_check(step, list(floating_batch(batch))))

    # ------------------------------------------------------------------ fp32 / bf16

    def on_step_pre(self) -> None:
        if self.before:  # skip_step: decided on the device before the update
            norms = self._record(self.ctx.steps)
            if norms is not None:
                self._skip(~torch.isfinite(norms.sum()))

    def on_step_post(self) -> None:
        self.skips = 0
        if self.after:  # the gradients the step used (clipping's norms, when it clipped)
            ctx = self.ctx
            if ctx.measured():
                index, norms = ctx.free_grad_norms() or self._step_norms()
            else:  # the usual step of a loop that does not clip: one call less
                index, norms = self._step_norms()
            if norms is not None:
                rows = self.rows
                if len(rows) >= self.most:  # no read for long: fold the oldest
                    self._fold()
                rows.append((ctx.steps - 1, index, norms))
        if self._order_hooks:
            self._drop_order_hooks()

    def _step_norms(self) -> tuple[list[int], torch.Tensor | None]:
        """Every parameter's norm on the sampled steps; between them, when the weights tell
        (warn/stop), the one gradient nearest the input (first in the forward, last in the
        backward): a NaN born in any layer after it reaches it in the same backward, so the
        first bad step is still found. That gradient is kept as it is when it is a new tensor
        this step (nothing writes into it once the step has used it) of at most `KEEP`
        elements: no device op; else its norm, one small op."""
        ctx = self.ctx
        sentinel = self.sentinel
        if ctx.due or sentinel is None:
            self._remember_sentinel()
            return ctx.grad_norms()
        grad = ctx.params[sentinel].grad
        if grad is None:
            return ctx.grad_norms()
        small = grad.numel() <= KEEP
        last, self._last_grad = self._last_grad, grad if small else None  # (a large one: freed)
        if grad is last:
            self._reused(grad)
        elif (
            small
            and type(grad) is torch.Tensor
            and not grad.requires_grad  # (create_graph: would keep its graph alive)
            and not grad._is_view()  # (DDP's bucket views: the next backward writes there)
        ):
            # the usual (zero_grad(set_to_none=True)): a new small tensor each step, which
            # nothing writes after the step used it: kept as it is, no device op
            if self._kept_index is None or self._kept_index != [sentinel]:
                self._kept_index = [sentinel]  # one list object: it marks these rows
            return self._kept_index, grad
        # reused in place (set_to_none=False), large, or sharded: its norm, one small op
        if self._sentinel_index is None or self._sentinel_index != [sentinel]:
            self._sentinel_index = [sentinel]  # one list object: it marks these rows
        if type(grad) is not torch.Tensor:  # a DTensor: this rank's shard
            grad = local_shard(grad)
        return self._sentinel_index, torch.linalg.vector_norm(grad).reshape(1)

    def _reused(self, grad: torch.Tensor) -> None:
        """The sentinel's gradient is the tensor of the last step, rewritten in place (the loop
        went over to zero_grad(set_to_none=False)): a row that kept it holds this step's values
        now, not its own step's; dropped (a NaN then is seen from this step, NaN weights give
        NaN gradients)."""
        rows = self.rows
        if rows and rows[-1][1] is self._kept_index and rows[-1][2] is grad:
            rows.pop()

    def _remember_sentinel(self) -> None:
        """Note the sentinel's gradient tensor now, so the next step can tell a new one from
        the same one zeroed in place (only a new one may be kept by reference)."""
        if self.sentinel is not None:
            grad = self.ctx.params[self.sentinel].grad
            self._last_grad = grad if grad is not None and grad.numel() <= KEEP else None

    def _record(self, step: int) -> torch.Tensor | None:
        if self.fp16:
            return None  # GradScaler only steps on finite gradients
        index, norms = self.ctx.grad_norms()
        if norms is None:
            return None
        if len(self.rows) >= self.most:  # no read for long: fold the oldest
            self._fold()
        self.rows.append((step, index, norms))
        return norms

    def _fold(self) -> None:
        _, index, norms = self.rows.popleft()
        if index is self._kept_index:  # a kept gradient: its norm (a sum could overflow)
            norms = torch.linalg.vector_norm(norms.detach())
        old = norms.sum()
        self.dropped = old if self.dropped is None else self.dropped + old

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
        if not self.rows:
            return
        if self.reported and self.ctx.config.nonfinite != "skip_step":
            self.rows.clear()  # reported once; nothing further to say or do
            self.inputs.clear()
            self.dropped = None
            return
        rows, self.rows = self.rows, deque()
        dropped, self.dropped = self.dropped, None
        inputs, self.inputs = self.inputs, deque(maxlen=self.inputs.maxlen)
        if self.weights_tell:
            finite = tensor_norms(self.weights).sum(dtype=torch.float64)
            look = functools.partial(self._look_if_not_finite, rows, dropped, inputs)
            self.ctx.read_later(finite, look)
            return
        steps, totals = self._totals(rows, dropped)
        self.ctx.read_later(totals, functools.partial(self._judge, steps, inputs))

    def _totals(
        self, rows: deque[tuple[int, list[int], torch.Tensor]], dropped: torch.Tensor | None
    ) -> tuple[list[int], torch.Tensor]:
        """The steps of ``rows`` and, for each, the sum of its parameters' norms (device)."""
        count = len(self.ctx.params)
        steps = [step for step, _, _ in rows]
        kept = self._kept_index
        single = (self._sentinel_index, kept)
        self.sentinel_rows = {
            r for r, (_, index, _) in enumerate(rows) if any(index is i for i in single)
        }
        rows = _measured(rows, kept)
        # one row per step over all parameters (0 where a parameter had no gradient)
        norms = [n if len(index) == count else _full(n, index, count) for _, index, n in rows]
        self.history = torch.stack(norms)
        # a step's norms are >= 0: their sum (in float64: no overflow) is finite iff all are
        totals = self.history.sum(1, dtype=torch.float64)
        if dropped is not None:
            totals[0] += dropped
        return steps, totals

    def _look_if_not_finite(
        self,
        rows: deque[tuple[int, list[int], torch.Tensor]],
        dropped: torch.Tensor | None,
        inputs: deque[InputCheck],
        weights: list[float],
    ) -> None:
        """The weights' norm was read: finite, then so were the gradients every update used;
        else find the step and layer in the rows (a second read, on this rare path only)."""
        if math.isfinite(weights[0]):
            self.run = 0
            return
        steps, totals = self._totals(rows, dropped)
        self._judge(steps, inputs, totals.tolist())

    def _judge(self, steps: list[int], inputs: deque[InputCheck], totals: list[float]) -> None:
        finite = [math.isfinite(v) for v in totals]
        if all(finite):
            self.run = 0
            return
        rows = [(step, r, not finite[r]) for r, step in enumerate(steps)]
        self._report_bad(rows, inputs)

    def _report_bad(self, rows: list[tuple[int, int, bool]], inputs: deque[InputCheck]) -> None:
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
        found = self._bad_input(first_step, inputs)
        if found is not None:
            code, reason = self._report_input(first_step, inputs, *found)
        else:
            code, reason = self._report_grad(first_step, row)
        if policy == "stop":
            self._stop(code, reason)
        elif policy == "skip_step" and longest >= self.ctx.config.max_consecutive_skips:
            self._stop_skips(longest)

    def _report_grad(self, step: int, row: int) -> tuple[str, str]:
        where = self._origin(row)
        skipped = " (those steps were skipped)" if self.ctx.config.nonfinite == "skip_step" else ""
        if row in self.sentinel_rows:  # between sampled steps only one gradient was measured
            found = (
                f"inf/NaN gradients first at step {step}, seen in {where} (the gradient "
                "nearest the input, checked every step: a NaN born in any later layer reaches "
                "it; the layer it was born in is named when it happens on a sampled step, "
                "guards.every, or when the loop clips)"
            )
        else:
            found = f"inf/NaN gradients first at step {step}, first in backward order in {where}"
        self.ctx.report(
            "nonfinite-grad",
            name="non-finite gradients",
            message=f"{found}{skipped}",
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

    def _bad_input(
        self, step: int, inputs: deque[InputCheck]
    ) -> tuple[InputCheck, list[int]] | None:
        """The first forward of ``step`` whose inputs held inf/NaN, and which (None: finite)."""
        checks = [c for c in checks_of(step, inputs) if c.values]  # (a batch may have none)
        if not checks:
            return None
        device = checks[0].values[0].device
        sums = [
            kept_sum(value, version).to(device)
            for c in checks
            for value, version in zip(c.values, c.versions, strict=True)
        ]
        flags = torch.isfinite(torch.stack(sums)).tolist()  # a second read, only when bad
        at = 0
        for check in checks:
            bad = [i for i, ok in enumerate(flags[at : at + len(check.names)]) if not ok]
            at += len(check.names)
            if bad:
                return check, bad
        return None

    def _report_input(
        self, step: int, inputs: deque[InputCheck], check: InputCheck, bad: list[int]
    ) -> tuple[str, str]:
        name, shape, dtype = check.names[bad[0]], check.shapes[bad[0]], check.dtypes[bad[0]]
        micro = sum(1 for c in inputs if step_of(c) == step)  # forwards of that step
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
                f"{batch} held inf/NaN in {name} (shape {shape_text(shape)}, "
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
        if self.weights_tell and self.order:
            self.sentinel = self.order[-1]
            self._remember_sentinel()
        if self._order_hooks:
            for handle in self._order_hooks:
                handle.remove()
            self._order_hooks = []


def _measured(
    rows: deque[tuple[int, list[int], torch.Tensor]], kept: list[int] | None
) -> list[tuple[int, list[int], torch.Tensor]]:
    """``rows`` with each kept gradient replaced by its norm (one foreach kernel for all)."""
    at = [r for r, (_, index, _) in enumerate(rows) if index is kept]
    if not at:
        return list(rows)
    measured = list(rows)
    norms = tensor_norms([rows[r][2].detach() for r in at]).to(rows[at[0]][2].device)
    for j, r in enumerate(at):
        step, index, _ = rows[r]
        measured[r] = (step, index, norms[j].reshape(1))
    return measured


def _full(norms: torch.Tensor, index: list[int], count: int) -> torch.Tensor:
    """Per-parameter norms over all ``count`` parameters (0 where a parameter has no grad)."""
    if len(index) == count:
        return norms
    full = torch.zeros(count, dtype=norms.dtype, device=norms.device)
    full[index] = norms
    return full
