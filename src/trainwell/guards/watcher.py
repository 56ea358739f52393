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

import collections
import contextlib
import dataclasses
import functools
import weakref
from collections.abc import Callable, Mapping
from typing import Any

import torch
from torch import nn

from trainwell.config.guards import GuardsConfig, validate_guards
from trainwell.guards.base import (
    Context,
    ForwardRecord,
    Guard,
    class_overrides,
    first_grad_tensor,
    overrides,
)
from trainwell.guards.finding import Finding
from trainwell.guards.hooks import CallHandle, Hook, around_call, before_call
from trainwell.guards.registry import guards_on
from trainwell.observe import signals


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
        self._everything = _Table()  # every guard's moments: eval/no-grad forwards, held steps
        # by phase (steps % every): the windows of a structural cycle (every guard armed), and
        # of the others (value checks only; None: nothing armed, the unarmed table serves)
        self._tables: list[_Table] = []
        self._lean: list[_Table | None] = []
        # on_step_post moments from one table to the next: the guards armed in either
        self._posts: dict[tuple[_Table, _Table], list[Callable[[], None]]] = {}
        self._table = self._unarmed = _Table()  # the current window's; between armed ones
        self._pre_hook: Any = None  # the optimizer step pre-hook, while a guard needs it
        self._unarmed_until = 0  # in the unarmed table until this step count (0: not in it)
        self._forward_hook: Any = None  # the model's forward hook (fit(): in windows only)
        # The first training record of the last armed windows: a graph that outlives its
        # step keeps the watch armed (``_held``) while it lives.
        self._tracked: collections.deque[tuple[int, weakref.ref]] = collections.deque(maxlen=4)
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
        self.guards = [cls(ctx) for cls in guards_on(self.config)]  # registered ones too
        self._hook_forwards(True)
        ctx.handles.append(ctx.optimizer.register_step_post_hook(Hook(self._on_step_post)))
        if ctx.scaler is not None and not ctx.in_fit:
            self._watch_scaler_update(ctx.scaler)
        attached: list[Guard] = []
        try:
            for guard in self.guards:
                guard.attach()
                attached.append(guard)
            self._build_tables()
            self._switch(self._next_table(ctx.steps), first=True)
        except BaseException:
            self.guards = attached  # only these have anything to release
            self._remove_hooks()
            raise

    # ------------------------------------------------------------------ sampled dispatch

    def _build_tables(self) -> None:
        """Which guard gets which per-step moment in each phase of the ``every``-step cycle
        (the guards' windows and attach() have set what they need)."""
        guards = self.guards
        # Which guard gets which moment depends only on the guards' classes and settings: it is
        # worked out once per process for each kind of watch (`_layouts`), not for every watch.
        kinds = tuple(_Kind(type(g), g.window, g.dynamic, frozenset(g.every_step)) for g in guards)
        everything, unarmed, tables, lean = _layouts(kinds, self.config.every)
        self._span = len(tables)
        self._everything = everything.build(guards)
        self._unarmed = unarmed.build(guards)
        self._unarmed_posts = self._unarmed.on_step_post
        self._tables = [layout.build(guards) for layout in tables]
        self._lean = [layout.build(guards) if layout is not None else None for layout in lean]
        self._posts = {}

    def _posts_between(self, old: _Table, new: _Table) -> list[Callable[[], None]]:
        """on_step_post: to the guards armed in the window that ended or the one beginning
        (and those needing it every step); cached per pair of tables."""
        posts = self._posts.get((old, new))
        if posts is None:
            posts = self._posts[(old, new)] = [
                g.on_step_post
                for g in self.guards
                if overrides(g, "on_step_post")
                and ("on_step_post" in g.every_step or g in old.armed or g in new.armed)
            ]
        return posts

    def _held(self, steps: int) -> bool:
        """A training graph of an armed window two or more steps ago is still alive:
        something keeps graphs across steps (the retained-graph guard follows them), so the
        watch stays armed until it dies."""
        tracked = self._tracked
        while tracked and tracked[0][1]() is None:
            tracked.popleft()
        return any(step <= steps - 2 and ref() is not None for step, ref in tracked)

    def _switch(self, new: _Table, *, first: bool = False) -> None:
        """Make ``new`` the current window's table: arm and disarm the guards whose armed
        stretch starts or ends, add the step pre-hook while some guard needs it (and remove it
        when none does), and begin the step."""
        old, self._table = self._table, new
        ctx = self.ctx
        ctx.armed = new.records
        ctx.begin_step()
        # the steps until the next window need nothing of the table (see `_on_step_post`)
        every = self.config.every
        self._unarmed_until = (ctx.steps // every + 1) * every if new is self._unarmed else 0
        if new is old and not first:
            return
        for guard in old.armed:
            if guard not in new.armed and class_overrides(type(guard), "on_disarm"):
                guard.on_disarm()
        for guard in new.armed:
            if (first or guard not in old.armed) and class_overrides(type(guard), "on_arm"):
                guard.on_arm()
        if new.on_step_pre and self._pre_hook is None:
            self._pre_hook = ctx.optimizer.register_step_pre_hook(Hook(self._on_step_pre))
        elif not new.on_step_pre and self._pre_hook is not None:
            self._pre_hook.remove()
            self._pre_hook = None
        if ctx.in_fit:
            self._hook_forwards(new is not self._unarmed)

    def _hook_forwards(self, on: bool) -> None:
        """Add or remove the watch on the model's forward calls. A forward hook sends every
        forward through the slow path of ``Module.__call__``, so `watch()` (which may wrap, and
        restores on exit) observes the model's class ``forward`` for this instance instead
        (`hooks.around_call`), unless the class is also used inside the model (each of those
        calls would pay a lookup). fit() wraps nothing process-wide: it keeps a forward hook,
        removed between the armed windows, where the loop itself hands over what the
        every-step checks need (each step's batches and loss) and its validation is right by
        construction (eval mode, inference_mode)."""
        if on and self._forward_hook is None:
            model = self.ctx.model
            if self.ctx.in_fit or _class_used_inside(model, self.ctx.modules):
                hook = Hook(self._on_forward)
                self._forward_hook = model.register_forward_hook(hook, with_kwargs=True)
            else:
                self._forward_hook = around_call(model, "forward", Hook(self._on_forward, model))
                self.ctx.forward_wrapped = True  # guards may watch its calls too, as cheaply
        elif not on and self._forward_hook is not None:
            self._forward_hook.remove()
            self._forward_hook = None

    def _arm_window(self) -> None:
        """Arm every guard for the rest of this window (a forward in eval mode with gradients
        on: training in eval mode, or validation that builds a graph; both rare in a healthy
        loop, so always checked)."""
        due = self.ctx.due
        self._switch(self._everything)
        self.ctx.due = due

    def moved_to(self, steps: int) -> None:
        """The step count was set from outside (fit() resuming from a checkpoint)."""
        self.ctx.steps = steps
        if not self.closed:
            self._switch(self._next_table(steps))

    def _next_table(self, steps: int) -> _Table:
        if self._tracked and self._held(steps):
            return self._everything
        every = self.config.every
        phase = steps % every
        if phase >= self._span:
            return self._unarmed
        if self.ctx.checks_structure(steps):
            return self._tables[phase]
        return self._lean[phase] or self._unarmed

    def close(self) -> None:
        """Final read, then remove every hook and wrapper (safe to call twice)."""
        if self.closed:
            return
        try:
            self.read()
        finally:
            self._remove_hooks()
        self.ctx.reporter.raise_pending()

    def _remove_hooks(self) -> None:
        self.closed = True
        if self._pre_hook is not None:
            self._pre_hook.remove()
            self._pre_hook = None
        self._hook_forwards(False)
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
        """The host read: each guard queues what it needs (`Context.read_later`), then one
        transfer for all of them."""
        if not self.closed:
            try:
                for guard in self.guards:
                    if class_overrides(type(guard), "on_read"):  # (the others have nothing)
                        guard.on_read()
            finally:
                self.ctx.flush_reads()
        self.ctx.reporter.raise_pending()

    # ------------------------------------------------------------------ hook bodies

    def _on_forward(
        self, module: nn.Module, args: tuple, kwargs: Mapping[str, Any], output: Any
    ) -> None:
        if self.closed:
            return
        grad_enabled = torch.is_grad_enabled()
        # A training forward: only the current window's guards. Eval-mode or no-grad forwards
        # (validation, inference: rare) always come to every guard.
        if grad_enabled and module.training:
            table = self._table
            self.ctx.forwards += 1
            if table is self._unarmed:  # the usual step: unarmed
                for moment in table.on_forward:
                    moment(args, kwargs, output, None, True)
                return
        else:
            table = self._everything
            if grad_enabled and self._table is not table:
                self._arm_window()  # eval mode with gradients: the rest of the window is armed
        record = None
        if grad_enabled:
            tensor = first_grad_tensor(output)
            if tensor is not None:
                record = ForwardRecord(self.ctx.steps, module.training)
                # The hook (and so the record) lives as long as the output or its graph.
                tensor.register_hook(Hook(self._on_backward, record))
                if record.training and table is not self._everything:
                    tracked = self._tracked
                    if not tracked or tracked[-1][0] != record.step:
                        tracked.append((record.step, weakref.ref(record)))
        for moment in table.on_forward:
            moment(args, kwargs, output, record, grad_enabled)

    def _on_backward(self, record: ForwardRecord, grad: torch.Tensor) -> None:
        record.backwarded = True
        if self.closed:
            return
        task = _graph_task_id()
        if task == self._last_task and task >= 0:
            return  # another output of the same backward pass
        self._last_task = task
        table = self._table if record.training else self._everything
        for moment in table.on_backward:
            moment(record)
        self.ctx.backwards += 1

    def _on_step_pre(self, optimizer: Any, args: Any, kwargs: Any) -> None:
        if self.closed:
            return
        for moment in self._table.on_step_pre:
            moment()

    def _on_step_post(self, optimizer: Any, args: Any, kwargs: Any) -> None:
        if self.closed:
            return
        ctx = self.ctx
        if ctx.scaler is not None and self._scaler_skipped(optimizer):
            self.skipped()
            return
        steps = ctx.steps = ctx.steps + 1
        ctx.backwards = ctx.forwards = 0
        ctx.last_window_skipped = False
        self._last_task = -2
        if steps < self._unarmed_until and not self._tracked:  # the usual step, between windows
            for moment in self._unarmed_posts:
                moment()
            ctx._norms = None
            state = signals.thread_state  # (`_end_step`, inline: this runs every step)
            if state.clip_norms is not None:
                state.clip_norms = None
            if ctx.reporter.pending is not None:
                ctx.reporter.raise_pending()
            return
        was_due = ctx.due
        old, new = self._table, self._next_table(steps)
        if old is new is self._unarmed:  # the usual step, between armed ones
            for moment in self._unarmed_posts:
                moment()
            ctx.due, ctx._norms = False, None
        else:
            for moment in self._posts_between(old, new):
                moment()
            self._switch(new)
        if was_due and not ctx.in_fit:  # fit() reads at its own moment (on_step_end)
            self.read()
        self._end_step()

    def _end_step(self) -> None:
        state = signals.thread_state
        if state.clip_norms is not None:
            state.clip_norms = None  # this step's: never read as the next one's
        if self.ctx.reporter.pending is not None:  # the end of the step: never inside autograd
            self.ctx.reporter.raise_pending()

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
        ctx = self.ctx
        if self.closed or (ctx.backwards == 0 and ctx.forwards == 0):
            return  # already counted (a fused optimizer's post-step hook saw it first)
        ctx.backwards = ctx.forwards = 0
        self.ctx.last_window_skipped = True
        self._last_task = -2
        for guard in self.guards:
            guard.on_skip()
        self.ctx.reporter.raise_pending()

    def _watch_scaler_update(self, scaler: torch.amp.GradScaler) -> None:
        self._steps_at_update = self.ctx.steps
        handle: CallHandle = before_call(scaler, "update", self._before_scaler_update)
        self.ctx.handles.append(handle)

    def _before_scaler_update(self) -> None:
        if self.ctx.steps == self._steps_at_update:
            self.skipped()  # no optimizer step since the last update: the scaler skipped
        self._steps_at_update = self.ctx.steps


_MOMENTS = ("on_forward", "on_backward", "on_step_pre", "on_step_post")


def _armed_in(phase: int, guard: _Kind, moment: str) -> bool:
    """``guard`` gets ``moment`` in the window at ``phase`` (``steps % every``)."""
    return phase < guard.window or moment in guard.every_step


def _armed_lean(phase: int, guard: _Kind, moment: str) -> bool:
    """...of a cycle without the structural checks: value checks only."""
    return (guard.dynamic and phase < guard.window) or moment in guard.every_step


class _Table:
    """The per-step moments of one kind of window, and whether it is armed: its training
    forwards get a ForwardRecord and its backward passes are counted (some guard there has a
    sampled moment)."""

    __slots__ = ("armed", "on_backward", "on_forward", "on_step_post", "on_step_pre", "records")

    def __init__(self) -> None:
        self.armed: tuple[Guard, ...] = ()
        self.records = False
        self.on_forward: list[Callable[..., None]] = []
        self.on_backward: list[Callable[..., None]] = []
        self.on_step_pre: list[Callable[[], None]] = []
        self.on_step_post: list[Callable[[], None]] = []


@dataclasses.dataclass(frozen=True)
class _Kind:
    """What decides a guard's moments in each window: its class (which moments it overrides)
    and its sampling settings."""

    cls: type
    window: int
    dynamic: bool
    every_step: frozenset[str]


@dataclasses.dataclass(frozen=True)
class _Layout:
    """One kind of window's `_Table`, as positions in the watch's guard list."""

    moments: tuple[tuple[int, ...], ...]  # per `_MOMENTS`: the guards that get it
    armed: tuple[int, ...]
    records: bool

    @classmethod
    def of(cls, kinds: tuple[_Kind, ...], gets: Callable[[_Kind, str], bool]) -> _Layout:
        moments = tuple(
            tuple(
                i
                for i, kind in enumerate(kinds)
                if class_overrides(kind.cls, moment) and gets(kind, moment)
            )
            for moment in _MOMENTS
        )
        return cls(
            moments=moments,
            armed=tuple(i for i, kind in enumerate(kinds) if gets(kind, "")),
            records=any(
                gets(kind, m) and m not in kind.every_step and class_overrides(kind.cls, m)
                for kind in kinds
                for m in _MOMENTS
            ),
        )

    def build(self, guards: list[Guard]) -> _Table:
        table = _Table()
        for moment, members in zip(_MOMENTS, self.moments, strict=True):
            setattr(table, moment, [getattr(guards[i], moment) for i in members])
        table.armed = tuple(guards[i] for i in self.armed)
        table.records = self.records
        return table


@functools.lru_cache(maxsize=64)
def _layouts(
    kinds: tuple[_Kind, ...], every: int
) -> tuple[_Layout, _Layout, tuple[_Layout, ...], tuple[_Layout | None, ...]]:
    """The layouts of a watch's windows: every guard's moments (eval/no-grad forwards, held
    steps), between armed windows, and by phase (``steps % every``) those of a structural
    cycle and those of the others (value checks only; None: nothing armed there)."""
    span = min(every, max((kind.window for kind in kinds), default=1))
    tables = tuple(_Layout.of(kinds, functools.partial(_armed_in, p)) for p in range(span))
    lean: list[_Layout | None] = [
        _Layout.of(kinds, functools.partial(_armed_lean, p)) for p in range(span)
    ]
    for phase in range(1, span):
        if not lean[phase].armed:  # type: ignore[union-attr]
            lean[phase] = None
    everything = _Layout.of(kinds, lambda kind, moment: True)
    unarmed = _Layout.of(kinds, lambda kind, moment: moment in kind.every_step)
    return everything, unarmed, tables, tuple(lean)


def _class_used_inside(model: nn.Module, modules: list[nn.Module]) -> bool:
    """A module inside ``model`` (``modules``: all of them) has ``model``'s own class (nested
    ``nn.Sequential``s)."""
    cls = type(model)
    return any(type(m) is cls for m in modules if m is not model)


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
