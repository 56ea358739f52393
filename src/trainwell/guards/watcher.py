"""`watch()`: the runtime guards around a hand-written training loop, using PyTorch hooks only.

Installed on enter, removed on exit:

* a forward hook on the model (and a forward pre-hook on BatchNorm layers and the loss module);
* a hook on each graph-building forward's output tensor: it fires when backward starts, before
  any parameter gradient is added (the "before backward" moment hooks on parameters lack);
* ``post_accumulate_grad`` hooks on parameters until the first step (to learn backward order);
* optimizer step pre/post hooks (``register_step_pre_hook``/``register_step_post_hook``);
* ``step`` of the given scheduler and ``update`` of the given GradScaler, observed for those
  instances only through a wrapper on their class (`hooks.before_call`);
* clipping and functional-loss wrappers, process-wide while a watch is active (`patch`).

Every hook is a `hooks.Hook`: deep copies (EMA, ``AveragedModel``, best-model copies) and pickles
(``torch.save(model)``) of the user's objects get an inert no-op in its place, never the watch.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
from collections.abc import Callable, Mapping
from typing import Any

import torch
from torch import nn

from trainwell.guards.base import Context, ForwardRecord, Guard, first_grad_tensor, overrides
from trainwell.guards.batchnorm import BatchNormBatchGuard
from trainwell.guards.clipping import ClippingGuard
from trainwell.guards.config import GuardsConfig, validate_guards
from trainwell.guards.duplicates import DuplicateBatchGuard
from trainwell.guards.finding import Finding
from trainwell.guards.grad_norm import GradNormGuard
from trainwell.guards.graph import EvalGraphGuard, RetainedGraphGuard
from trainwell.guards.hooks import CallHandle, Hook, before_call
from trainwell.guards.loss_input import LossInputGuard
from trainwell.guards.mode import TrainModeGuard
from trainwell.guards.nonfinite import NonFiniteGuard
from trainwell.guards.params import OptimizerParamsGuard
from trainwell.guards.scheduler import SchedulerGuard
from trainwell.guards.zero_grad import ZeroGradGuard

GUARDS: tuple[type[Guard], ...] = (
    OptimizerParamsGuard,
    ZeroGradGuard,
    SchedulerGuard,
    ClippingGuard,
    LossInputGuard,
    TrainModeGuard,
    EvalGraphGuard,
    RetainedGraphGuard,
    BatchNormBatchGuard,
    GradNormGuard,
    DuplicateBatchGuard,
    NonFiniteGuard,  # last: skip_step rewrites gradients the others have already read
)


class Watch:
    """The guards attached to one model and optimizer; use it as a context manager.

    ``findings`` lists what was found. ``step()`` reads the device-side flags now (the watch
    does that itself every ``config.every`` optimizer steps and on close). ``close()`` removes
    every hook and wrapper.
    """

    def __init__(
        self,
        model: nn.Module,
        optimizer: torch.optim.Optimizer,
        *,
        loss_fn: Any = None,
        scheduler: Any = None,
        scaler: Any = None,
        accumulate_steps: int = 1,
        steps_per_epoch: int | None = None,
        config: GuardsConfig | None = None,
        in_fit: bool = False,
    ) -> None:
        self.config = validate_guards(config or GuardsConfig())
        scaler = getattr(scaler, "scaler", scaler)  # a trainwell Precision holds its GradScaler
        self.ctx = Context(
            model,
            optimizer,
            self.config,
            loss_fn=loss_fn,
            scheduler=scheduler,
            scaler=scaler,
            accumulate_steps=accumulate_steps,
            steps_per_epoch=steps_per_epoch,
            in_fit=in_fit,
        )
        self.guards: list[Guard] = []
        self.closed = True
        self._last_task = -2
        self._moments: dict[str, list[Callable[..., Any]]] = {}
        if self.config.enabled:
            self._open()

    @property
    def findings(self) -> list[Finding]:
        return self.ctx.reporter.findings

    def guard(self, kind: type[Guard]) -> Guard | None:
        """The running guard of class ``kind`` (None when switched off)."""
        return next((g for g in self.guards if isinstance(g, kind)), None)

    # ------------------------------------------------------------------ lifecycle

    def _open(self) -> None:
        self.closed = False
        ctx = self.ctx
        self.guards = [cls(ctx) for cls in GUARDS if getattr(self.config, cls.switch)]
        self._moments = {
            moment: [getattr(g, moment) for g in self.guards if overrides(g, moment)]
            for moment in ("on_forward", "on_backward", "on_step_pre", "on_step_post")
        }
        ctx.handles.append(
            ctx.model.register_forward_hook(Hook(self._on_forward), with_kwargs=True)
        )
        ctx.handles.append(ctx.optimizer.register_step_pre_hook(Hook(self._on_step_pre)))
        ctx.handles.append(ctx.optimizer.register_step_post_hook(Hook(self._on_step_post)))
        if ctx.scaler is not None and not ctx.in_fit:
            self._watch_scaler_update(ctx.scaler)
        attached: list[Guard] = []
        try:
            for guard in self.guards:
                guard.attach()
                attached.append(guard)
        except BaseException:
            self.guards = attached  # only these have anything to release
            self._remove_hooks()
            raise

    def close(self) -> None:
        """Final read, then remove every hook and wrapper (safe to call twice)."""
        if self.closed:
            return
        try:
            self.read()
        finally:
            self._remove_hooks()

    def _remove_hooks(self) -> None:
        self.closed = True
        for guard in self.guards:
            guard.close()
        for handle in self.ctx.handles:
            handle.remove()
        self.ctx.handles.clear()

    def __enter__(self) -> Watch:
        return self

    def __exit__(self, exc_type: Any, *_: Any) -> None:
        if exc_type is None:
            self.close()
            return
        with contextlib.suppress(Exception):  # already failing: do not mask the original error
            self.close()

    def step(self) -> list[Finding]:
        """Read the guards' device-side flags now (one host sync); returns all findings."""
        self.read()
        return self.findings

    def read(self) -> None:
        if not self.closed:
            for guard in self.guards:
                guard.on_read()

    # ------------------------------------------------------------------ hook bodies

    def _on_forward(
        self, module: nn.Module, args: tuple, kwargs: Mapping[str, Any], output: Any
    ) -> None:
        if self.closed:
            return
        grad_enabled = torch.is_grad_enabled()
        record = None
        if grad_enabled:
            tensor = first_grad_tensor(output)
            if tensor is not None:
                record = ForwardRecord(self.ctx.steps, module.training)
                # The hook (and so the record) lives as long as the output or its graph.
                tensor.register_hook(Hook(functools.partial(self._on_backward, record)))
        for moment in self._moments["on_forward"]:
            moment(args, kwargs, output, record, grad_enabled)

    def _on_backward(self, record: ForwardRecord, grad: torch.Tensor) -> None:
        record.backwarded = True
        if self.closed:
            return
        task = _graph_task_id()
        if task == self._last_task and task >= 0:
            return  # another output of the same backward pass
        self._last_task = task
        for moment in self._moments["on_backward"]:
            moment(record)
        self.ctx.backwards += 1

    def _on_step_pre(self, optimizer: Any, args: Any, kwargs: Any) -> None:
        if self.closed:
            return
        self.ctx.begin_step()
        for moment in self._moments["on_step_pre"]:
            moment()

    def _on_step_post(self, optimizer: Any, args: Any, kwargs: Any) -> None:
        if self.closed:
            return
        if self._scaler_skipped(optimizer):
            self.skipped()
            return
        ctx = self.ctx
        ctx.steps += 1
        ctx.backwards = 0
        ctx.last_window_skipped = False
        self._last_task = -2
        for moment in self._moments["on_step_post"]:
            moment()
        if ctx.due and not ctx.in_fit:  # fit() reads at its own moment (on_step_end)
            self.read()

    def _scaler_skipped(self, optimizer: Any) -> bool:
        """GradScaler calls a fused optimizer's step even on inf/NaN (its kernel then does
        nothing), so the post-step hook fires for skipped steps too: read the scaler's flag.
        One host read per step, with fp16 and fused kernels only."""
        scaler = self.ctx.scaler
        if scaler is None or not getattr(optimizer, "_step_supports_amp_scaling", False):
            return False
        state = scaler._per_optimizer_states.get(id(optimizer), {})
        found = state.get("found_inf_per_device") or {}
        return any(bool(v.item()) for v in found.values())

    def skipped(self) -> None:
        """GradScaler skipped the step: the accumulation window ended without an update."""
        if self.closed or self.ctx.backwards == 0:
            return  # already counted (a fused optimizer's post-step hook saw it first)
        self.ctx.backwards = 0
        self.ctx.last_window_skipped = True
        self._last_task = -2
        for guard in self.guards:
            guard.on_skip()

    def _watch_scaler_update(self, scaler: torch.amp.GradScaler) -> None:
        self._steps_at_update = self.ctx.steps
        handle: CallHandle = before_call(scaler, "update", self._before_scaler_update)
        self.ctx.handles.append(handle)

    def _before_scaler_update(self) -> None:
        if self.ctx.steps == self._steps_at_update:
            self.skipped()  # no optimizer step since the last update: the scaler skipped
        self._steps_at_update = self.ctx.steps


def _graph_task_id() -> int:
    """The id of the running backward pass (-1 when torch does not expose it)."""
    get = getattr(torch._C, "_current_graph_task_id", None)
    return get() if get is not None else -1


def watch(
    model: nn.Module,
    optimizer: torch.optim.Optimizer,
    *,
    loss_fn: Any = None,
    scheduler: Any = None,
    scaler: Any = None,
    accumulate_steps: int = 1,
    steps_per_epoch: int | None = None,
    config: GuardsConfig | None = None,
    **overrides: Any,
) -> Watch:
    """Guard a hand-written training loop against silent bugs; use as a context manager.

    ``loss_fn``: the loss module (its inputs are checked); ``scheduler``: a torch LR scheduler
    (its interval is checked); ``scaler``: the GradScaler (or trainwell Precision) for fp16;
    ``accumulate_steps``: backward passes per optimizer step you intend; ``steps_per_epoch``:
    optimizer steps per epoch when known (sharpens the scheduler check). ``config`` or keyword
    ``overrides`` (any `GuardsConfig` field, e.g. ``every=10``, ``nonfinite="skip_step"``) tune
    it. Findings are warned once per bug and place as `GuardWarning` and kept in ``.findings``::

        with trainwell.guards.watch(model, optimizer, loss_fn=criterion) as guards:
            for x, y in loader:
                ...
        assert not guards.findings
    """
    if overrides:
        config = dataclasses.replace(config or GuardsConfig(), **overrides)
    return Watch(
        model,
        optimizer,
        loss_fn=loss_fn,
        scheduler=scheduler,
        scaler=scaler,
        accumulate_steps=accumulate_steps,
        steps_per_epoch=steps_per_epoch,
        config=config,
    )
