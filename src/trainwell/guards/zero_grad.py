"""Gradients not zeroed after a step, or zeroed before the step could use them.

PyTorch adds each backward's gradients into ``.grad``. Three placements of ``zero_grad()`` go
wrong without an error:

* missing (or only every few steps): a backward adds onto the gradients the last step already
  used, and the next step updates with that sum;
* between ``backward()`` and ``step()``: the step sees no gradients and does nothing (or only
  weight decay);
* inside an accumulation window: the micro-batches before it are thrown away.

Not every backward that reaches the model's output writes its ``.grad``: ``torch.autograd.grad``
(an adversarial attack on the input, a gradient penalty, a MAML inner step) writes none, and a
backward can write the ``.grad`` of this optimizer's parameters on behalf of *another* optimizer
(a GAN generator's loss flows through the discriminator; an actor's through the critic): those
gradients are cleared at this optimizer's next ``zero_grad()``, before its step. So a backward
is judged only by what it writes (a post-accumulate-grad hook on a few sampled parameters fires
exactly when a backward writes them), and "not zeroed" only by what this optimizer's step then
uses: gradients written onto the last step's, and not cleared since, when the step comes.

Everything is checked on the host from ``.grad is None``, identities and tensor version counters
(bumped by every in-place write, ``zero_()`` included), on a few sampled parameters, on the armed
steps (two in a row every ``every``): no device sync. A zero-norm check on the sampled steps (for
``zero_grad(set_to_none=False)``) is a device flag, read with the guards' cadence read; which of
two findings a stale gradient gives takes one host read, once, when the bug is certain.
"""

from __future__ import annotations

import functools
import weakref
from collections.abc import Callable
from typing import Any

import torch

from trainwell.guards.base import Context, ForwardRecord, Guard, local_shard
from trainwell.guards.hooks import Hook

_PENDING = 8  # judgements waiting for the read, at most

_NOT_ZEROED_WHY = (
    "backward() adds into .grad, so each update uses the sum of this batch's gradient and "
    "all earlier ones: the effective step grows and points at old batches; the loss still "
    "falls, just worse"
)


#: The id of the running backward pass (-1 outside one, or when torch does not expose it).
graph_task: Callable[[], int] = getattr(torch._C, "_current_graph_task_id", lambda: -1)

_engine = torch.autograd.Variable._execution_engine
_shared: weakref.WeakKeyDictionary[Context, GradWrites] = weakref.WeakKeyDictionary()


class GradWrites:
    """Which backward passes write the ``.grad`` of the sampled parameters, and what they left.

    A post-accumulate-grad hook on each sampled parameter fires only when a backward adds into
    its ``.grad`` (never for ``torch.autograd.grad``, nor for a backward that reaches only other
    parameters). Each listener is called once per backward pass, at its first write, with the
    pass's id, and returns whether it needs to know what the pass leaves in ``.grad`` (noted
    when the pass ends, for `cleared`). One instance per watch, shared by the guards that need
    it (`GradWrites.of`): one set of hooks.
    """

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.listeners: list[Callable[[int], bool]] = []
        self.marks: dict[int, tuple[int, int]] = {}  # sample index -> (id, version) at a pass end
        self.task = -2  # the backward pass that wrote last
        self._hook = Hook(self._written)
        self._handles: list[Any] = []  # installed only while a user is armed
        self._users: set[int] = set()
        ctx.handles.append(self)  # removed with the watch's hooks

    def arm(self, user: object) -> None:
        """``user``'s armed steps begin: the hooks are needed (added by the first user)."""
        if not self._users:
            params = self.ctx.params
            self._handles = [
                params[i].register_post_accumulate_grad_hook(self._hook) for i in self.ctx.sample
            ]
        self._users.add(id(user))

    def disarm(self, user: object) -> None:
        """``user``'s armed steps ended: the hooks go when no user is armed."""
        self._users.discard(id(user))
        if not self._users:
            self.remove()

    def remove(self) -> None:
        self._users.clear()
        for handle in self._handles:
            handle.remove()
        self._handles = []

    @classmethod
    def of(cls, ctx: Context) -> GradWrites:
        writes = _shared.get(ctx)
        if writes is None:
            writes = _shared[ctx] = cls(ctx)
        return writes

    def _written(self, param: torch.Tensor) -> None:
        task = graph_task()
        if task == self.task and task >= 0:
            return  # not the pass's first write: the cost of a hook is this line
        self.task = task
        wanted = False
        for listener in self.listeners:
            wanted |= listener(task)
        if wanted:
            try:
                _engine.queue_callback(self._pass_ended)
            except RuntimeError:  # not inside the engine after all: note what is there now
                self._pass_ended()

    def _pass_ended(self) -> None:
        params = self.ctx.params
        self.marks = {
            i: (id(g), g._version) for i in self.ctx.sample if (g := params[i].grad) is not None
        }

    def cleared(self) -> bool:
        """Every sampled ``.grad`` the last writing pass left was cleared or rewritten since
        (``zero_grad()``, with or without ``set_to_none``)."""
        params = self.ctx.params
        for i, (ident, version) in self.marks.items():
            grad = params[i].grad
            if grad is not None and id(grad) == ident and grad._version == version:
                return False  # still exactly what that backward left
        return bool(self.marks)


class ZeroGradGuard(Guard):
    switch = "zero_grad"
    # Two steps in a row (after the baseline of the step before them): a zero_grad() called
    # only every k steps misses one of any two consecutive steps.
    window = 2

    def attach(self) -> None:
        # (id, version) of the sampled .grad tensors after the last step; ids, not the tensors,
        # so a cleared gradient's memory is not kept alive.
        self.versions: list[tuple[int, int] | None] = []
        # The latest backward pass's start: (task, found the last step's gradients untouched,
        # device flag "those were all zero", found every sampled gradient cleared).
        self.start: tuple[int, bool, torch.Tensor | None, bool] | None = None
        self.writes = GradWrites.of(self.ctx)
        self.writes.listeners.append(self._on_write)
        self.passes = 0  # backward passes since the last step that wrote the sampled .grad
        self.stale = False  # a backward added onto the last step's gradients; not cleared since
        self.stale_zero: torch.Tensor | None = None  # device: those gradients were all zero
        # Sampled steps to judge at the read: (step, the sum of its gradient norms on the device)
        self.pending: list[tuple[int, torch.Tensor]] = []

    def on_arm(self) -> None:
        self.writes.arm(self)

    def on_disarm(self) -> None:
        self.writes.disarm(self)

    def on_backward(self, record: ForwardRecord) -> None:
        if self.stale and self.writes.cleared():
            self.stale, self.stale_zero = False, None  # zero_grad() came before this step
        ctx = self.ctx
        # Written since the step: touched. Mid-window: was everything cleared before this pass?
        untouched = self.passes == 0 and ctx.steps > 0 and self._untouched_since_step()
        zero = self._zero_flag() if untouched and not self.stale and not self._done() else None
        cleared = 0 < self.passes < ctx.accumulate_steps and self._all_none()
        self.start = (graph_task(), untouched, zero, cleared)

    def _on_write(self, task: int) -> bool:
        """The first write of a backward pass into the sampled ``.grad``."""
        ctx, start = self.ctx, self.start
        if start is not None and start[0] == task:
            _, untouched, zero, cleared = start
            if untouched and not self.stale:
                self.stale, self.stale_zero = True, zero
            elif 0 < self.passes < ctx.accumulate_steps and cleared:
                ctx.report(
                    "zero-grad-in-window",
                    name="zero_grad() inside an accumulation window",
                    message=(
                        f"backward {self.passes + 1} of a {ctx.accumulate_steps}-step "
                        "accumulation window found the gradients cleared"
                    ),
                    where=type(ctx.model).__name__,
                    why="the micro-batches before the zero_grad() are discarded; the step uses one",
                    fix="call zero_grad() once per window, right after optimizer.step()",
                    switch=self.switch,
                )
        self.passes += 1
        return self.stale  # then `cleared` must know what this pass leaves

    def on_step_pre(self) -> None:
        ctx = self.ctx
        if self.passes == 0:
            return  # no backward wrote these gradients since the last step
        if self._all_none():
            if not self._dropped_by_the_step():
                self._report_before_step(ctx.steps)
            return
        if self._done():
            return  # each bug once
        if self.stale:  # a bug either way: which one needs one host read, once
            if self.stale_zero is not None and bool(self.stale_zero):
                self._report_before_step(ctx.steps)  # zeros left from a zero_grad() before
            else:  # the last step
                self._report_stale(ctx.steps)
        elif ctx.due and len(self.pending) < _PENDING:  # read with the guards' next read
            zero = self._zero_norms()
            if zero is not None:
                self.pending.append((ctx.steps, zero))

    def on_read(self) -> None:
        pending, self.pending = self.pending, []
        for step, zero in pending:
            self.ctx.read_later(zero, functools.partial(self._judge, step))

    def _judge(self, step: int, total: list[float]) -> None:
        if total[0] == 0:
            self._report_before_step(step)  # the sampled step found only zeros

    def on_step_post(self) -> None:
        params = self.ctx.params
        self.versions = [
            (id(g), g._version) if (g := params[i].grad) is not None else None
            for i in self.ctx.sample
        ]
        self.passes = 0
        self.stale, self.stale_zero = False, None

    def on_skip(self) -> None:
        self.passes = 0  # GradScaler skipped: the window ended without using the gradients

    def _done(self) -> bool:
        """Both findings a stale gradient can give are reported already."""
        seen, where = self.ctx.reporter.seen, type(self.ctx.model).__name__
        return seen("grad-not-zeroed", where) or seen("zero-grad-before-step", where)

    def _report_stale(self, step: int) -> None:
        ctx, where = self.ctx, type(self.ctx.model).__name__
        if self._done():
            return
        ctx.report(
            "grad-not-zeroed",
            name="gradients not zeroed between steps",
            message=(
                "this step used gradients added onto those of the last optimizer step "
                "(.grad was not zeroed in between)"
            ),
            where=where,
            step=step,
            why=_NOT_ZEROED_WHY,
            fix=(
                "call optimizer.zero_grad(set_to_none=True) at the start of each step "
                "(with accumulation: once per window, before its first backward)"
            ),
            switch=self.switch,
        )

    def _report_before_step(self, step: int) -> None:
        ctx = self.ctx
        if not self._sample_is_the_models():
            return  # new Parameter objects: the params guard reports that, not a zero_grad bug
        ctx.report(
            "zero-grad-before-step",
            name="zero_grad() between backward() and step()",
            message=(
                "backward passes ran before a step, but the step found no gradients "
                "(cleared after backward)"
            ),
            where=type(ctx.model).__name__,
            step=step,
            why="the optimizer updates with zero gradients: the model does not learn",
            fix="order each step as zero_grad() -> forward -> backward() -> step()",
            switch=self.switch,
        )

    def _untouched_since_step(self) -> bool:
        params, checked = self.ctx.params, 0
        for i, seen in zip(self.ctx.sample, self.versions, strict=False):
            if seen is None:
                continue
            grad = params[i].grad
            if grad is None or id(grad) != seen[0] or grad._version != seen[1]:
                return False  # cleared, replaced or zeroed in place since the step
            checked += 1
        return checked > 0

    def _sample_is_the_models(self) -> bool:
        current = {id(p) for p in self.ctx.model.parameters()}
        return all(id(self.ctx.params[i]) in current for i in self.ctx.sample)

    def _dropped_by_the_step(self) -> bool:
        """In fit() with ``guards.nonfinite=skip_step`` and ``skip_exact``, the step itself drops
        an inf/NaN update (`TrainStep.drop_if_nonfinite`: gradients measured by the clip, then
        set to None): not a zero_grad() before the step."""
        ctx = self.ctx
        config = ctx.config
        if not (ctx.in_fit and config.nonfinite == "skip_step" and config.skip_exact):
            return False
        return ctx.grad_norms()[1] is not None  # the clip saw gradients this step

    def _all_none(self) -> bool:
        params = self.ctx.params
        return bool(self.ctx.sample) and all(params[i].grad is None for i in self.ctx.sample)

    def _zero_flag(self) -> torch.Tensor | None:
        """Device flag: every sampled gradient is all zeros (no host read until reported)."""
        params = self.ctx.params
        grads = [local_shard(g) for i in self.ctx.sample if (g := params[i].grad) is not None]
        if not grads:
            return None
        device = grads[0].device
        return torch.stack([(g == 0).all().to(device) for g in grads]).all()

    def _zero_norms(self) -> torch.Tensor | None:
        """The sum of the step's gradient norms on the device (read at the next read: zero when
        every gradient is all zeros)."""
        _, norms = self.ctx.grad_norms()
        return None if norms is None else norms.sum()
