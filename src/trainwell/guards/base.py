"""What every guard shares: the run's context (counters, parameters, cadence) and the `Guard` base.

The watch turns PyTorch hooks into a handful of moments (forward, backward start, step pre/post,
skipped step, host read, close) and calls only the moments a guard overrides. The per-step
moments of a training window come only on *armed* steps (see `Guard.window`), unless the guard
lists them in `Guard.every_step`; the host read folds every guard's device values into one
transfer (`Context.read_later`).
"""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable, Mapping
from types import FrameType
from typing import Any

import torch
from torch import nn

from trainwell.config.guards import GuardsConfig
from trainwell.guards.finding import Finding, FrameInfo, GuardError, Reporter, frame_info
from trainwell.observe import signals
from trainwell.parts.outputs import tensors_in

# Layers whose behaviour depends on train/eval mode.
MODE_SENSITIVE = (nn.modules.dropout._DropoutNd, nn.modules.batchnorm._BatchNorm)


class ForwardRecord:
    """One forward of the watched model that built a graph; lives as long as that graph does."""

    __slots__ = ("step", "training", "backwarded", "__weakref__")

    def __init__(self, step: int, training: bool) -> None:
        self.step = step  # optimizer steps done when the forward ran
        self.training = training  # model.training during the forward
        self.backwarded = False  # a backward pass reached the output


class Context:
    """The facts all guards read: model, optimizer, counters, the sampled parameters, cadence."""

    def __init__(
        self,
        model: nn.Module,
        optimizer: torch.optim.Optimizer,
        config: GuardsConfig,
        *,
        loss_fn: Any = None,
        scheduler: Any = None,
        scaler: torch.amp.GradScaler | None = None,
        accumulate_steps: int = 1,
        steps_per_epoch: int | None = None,
        in_fit: bool = False,
    ) -> None:
        self.model = model
        self.optimizer = optimizer
        self.config = config
        self.loss_fn = loss_fn
        self.scheduler = scheduler
        self.scaler = scaler if scaler is not None and scaler.is_enabled() else None
        self.accumulate_steps = accumulate_steps
        self.steps_per_epoch = steps_per_epoch
        self.in_fit = in_fit
        self.reporter = Reporter(config.on_finding)
        # One walk of the model at the start, shared by the guards' set-up (each walk of a
        # module tree is tens of microseconds in Python: a watch's fixed cost).
        self.module_names = {m: name or type(model).__name__ for name, m in model.named_modules()}
        self.modules = list(self.module_names)  # model.modules(), in its order
        every = list(model.named_parameters())
        self.param_ids = {id(p) for _, p in every}  # all the model's parameters, frozen too
        named = [(n, p) for n, p in every if p.requires_grad]
        self.param_names = [n for n, _ in named]
        self.params = [p for _, p in named]
        # A few parameters the optimizer updates, checked on the host each step (cheap).
        owned = optimizer_param_ids(optimizer)
        updated = [i for i, p in enumerate(self.params) if id(p) in owned]
        self.sample = [updated[j] for j in _spread(len(updated), 8)]
        self.sensitive = [m for m in self.modules if isinstance(m, MODE_SENSITIVE)]
        self.steps = 0  # optimizer steps seen
        self.classes: int | None = None  # C of a cross-entropy loss's (N, C) input, once seen
        self.backwards = 0  # backward passes since the last step (or skipped step), when armed
        self.forwards = 0  # training forwards since the last step (or skipped step)
        self.last_window_skipped = False  # the scaler skipped the last step
        self.due = True  # this step runs the sampled checks (every `config.every` steps)
        self.structure_due = True  # ...and the structural ones (see `structure_cycle`)
        # The window (the forwards, backwards and step with ``steps`` done) is armed: training
        # forwards get a ForwardRecord, backwards are counted; see `Guard.window`.
        self.armed = True
        self.stop_reason: str | None = None  # set by a guard that asks fit() to stop
        # fit(): optimizer step -> (1-based epoch, batches done in it after that step's window)
        self.batch_places: dict[int, tuple[int, int]] = {}
        self._norms: tuple[list[int], torch.Tensor | None] | None = None
        self._position = {id(p): i for i, p in enumerate(self.params)}
        # The last clipped parameter list's (length, first, last, its indices here or None)
        self._mapped: tuple[int, Any, Any, list[int] | None] | None = None
        self._reads: list[tuple[torch.Tensor, Callable[[list[float]], None]]] = []
        self.handles: list[Any] = []  # hook handles removed on close
        # watch(): the model's forward is observed by a wrapper on its class (`hooks`), so a
        # guard's `hooks.before_call_with` on it costs a callback, not another lookup per call
        self.forward_wrapped = False

    # ------------------------------------------------------------------ cadence and stats

    def begin_step(self) -> None:
        """A window begins (after the last step): sets the cadence, clears per-step caches."""
        self.due = self.steps % self.config.every == 0
        self.structure_due = self.due and self.checks_structure(self.steps)
        self._norms = None

    def checks_structure(self, steps: int) -> bool:
        """The cycle of ``every`` steps holding step ``steps`` runs the structural checks."""
        config = self.config
        return structure_cycle(steps // config.every, config.structure_every)

    def measured(self) -> bool:
        """This step's per-parameter norms exist already (computed, or published by a clip)."""
        return self._norms is not None or signals.thread_state.clip_norms is not None

    def free_grad_norms(self) -> tuple[list[int], torch.Tensor] | None:
        """This step's per-parameter norms when they cost nothing more: already computed this
        step, or measured by a clip (torch's or trainwell's); else None."""
        if self._norms is not None or signals.thread_state.clip_norms:
            index, norms = self.grad_norms()
            return (index, norms) if norms is not None else None
        return None

    def grad_norms(self) -> tuple[list[int], torch.Tensor | None]:
        """Indices of parameters holding a gradient and their norms (one device tensor, cached):
        those a clip measured this step (torch's or trainwell's), else one foreach kernel."""
        norms = self._norms
        if norms is not None:
            return norms
        state = signals.thread_state
        known = getattr(state, "clip_norms", None)
        if known is not None:
            state.clip_norms = None  # taken: never read as the next step's
            params = known[0]
            mapped = self._mapped
            if (  # the same parameter list as last time (a new list object each clip)
                mapped is None
                or len(params) != mapped[0]
                or not params
                or params[0] is not mapped[1]
                or params[-1] is not mapped[2]
            ):
                mapped = self._map(params)
            if mapped[3] is not None:
                norms = self._norms = (mapped[3], known[1])
                return norms
        index, grads = [], []
        for i, p in enumerate(self.params):
            grad = p.grad  # a property: read once
            if grad is not None:
                index.append(i)
                grads.append(grad)
        norms = self._norms = (index, tensor_norms(grads) if grads else None)
        return norms

    def _map(self, params: list[torch.Tensor]) -> tuple[int, Any, Any, list[int] | None]:
        """Our indices of a clipped parameter list (None: not all of them are this model's),
        cached with the list's length and ends: one mapping per model, not one per step."""
        position = self._position
        index = [position.get(id(p), -1) for p in params]
        ends = (params[0], params[-1]) if params else (None, None)
        self._mapped = (len(params), *ends, None if -1 in index or not index else index)
        return self._mapped

    # ------------------------------------------------------------------ the host read

    def read_later(self, tensor: torch.Tensor, callback: Callable[[list[float]], None]) -> None:
        """During ``on_read``: have ``tensor``'s values (flattened, as Python floats) passed to
        ``callback`` once the watch has made the read's one host transfer for all guards."""
        self._reads.append((tensor, callback))

    def flush_reads(self) -> None:
        """The host read: every queued tensor in one transfer per device (CPU tensors need
        none), then each callback with its values, in the order queued. A callback's
        exception is raised after all callbacks have run."""
        reads, self._reads = self._reads, []
        if not reads:
            return
        by_device: dict[torch.device, list[int]] = {}
        for i, (tensor, _) in enumerate(reads):
            by_device.setdefault(tensor.device, []).append(i)
        values: list[list[float]] = [[] for _ in reads]
        with torch.no_grad():
            for members in by_device.values():
                # scalars stacked, then one tensor (stack and cat promote bool/int/half to the
                # widest dtype): a few ops, and one host read
                scalars = [i for i in members if reads[i][0].dim() == 0]
                others = [i for i in members if reads[i][0].dim() != 0]
                parts = [t if (t := reads[i][0]).dim() == 1 else t.reshape(-1) for i in others]
                if scalars:
                    parts.append(torch.stack([reads[i][0] for i in scalars]))
                flat = (parts[0] if len(parts) == 1 else torch.cat(parts)).tolist()
                at = 0
                for i in others:
                    size = reads[i][0].numel()
                    values[i] = flat[at : at + size]
                    at += size
                for i in scalars:
                    values[i] = flat[at : at + 1]
                    at += 1
        error: BaseException | None = None
        for (_, callback), got in zip(reads, values, strict=True):
            try:
                callback(got)
            except BaseException as exc:  # noqa: BLE001 - re-raised below, after the others
                error = error or exc
        if error is not None:
            raise error

    # ------------------------------------------------------------------ reporting

    def report(
        self,
        code: str,
        *,
        name: str,
        message: str,
        where: str,
        why: str,
        fix: str,
        switch: str | None,
        step: int | None = None,
        raise_as: type[GuardError] | None = None,
        at: FrameInfo | None = None,
    ) -> None:
        """Report a finding once per (code, where). Its source line is ``at`` (the line that
        caused it, when the guard saw it earlier: see `frame_info`), else the user's line that
        led here. ``switch``: the guard's (None: only ``guards.enabled`` turns it off)."""
        if self.reporter.seen(code, where):
            return
        at = at or frame_info(_past_guards(sys._getframe(1)))
        finding = Finding(
            code=code,
            name=name,
            message=message,
            where=where,
            step=self.steps if step is None else step,
            source=at.source if at else None,
            why=why,
            fix=fix,
            switch=switch or "enabled",
            rank=_process_rank(),
        )
        self.reporter.report(finding, raise_as=raise_as, at=at)

    def name_of(self, module: nn.Module) -> str:
        return self.module_names.get(module, type(module).__name__)

    def layer_of(self, index: int) -> str:
        """The module name owning trainable parameter ``index`` (its name without the leaf)."""
        name = self.param_names[index]
        return name.rpartition(".")[0] or name


class Guard:
    """One bug family's detector. Override the moments you need; ``switch`` names its on/off
    (a `GuardsConfig` field; None: on whenever the guards are, for `register_guard`).

    Sampling: most bug families are present on every step, so the per-step moments of a
    training window (``on_forward`` of a training forward, ``on_backward``, ``on_step_pre``,
    ``on_step_post``) come only on *armed* steps: the first ``window`` steps of every
    ``every`` (``steps % every < window``, the very first steps included), plus the
    ``on_step_post`` leading into them (the baseline some guards compare with). Moments named
    in ``every_step`` come on every step. Structural guards (``dynamic`` false: the bug is in
    the loop's code, present from the first step its line runs) are armed only in the cycles
    `structure_cycle` picks (0, 1, 2, 4, 8, then every ``structure_every``-th). Forwards in eval mode or without gradients
    (validation, inference) always come to every guard; so do ``on_skip``, ``on_read`` and
    ``close``. ``on_arm``/``on_disarm`` come when the guard's armed stretch starts and ends
    (to add hooks needed only then, and remove them after).
    """

    switch: str | None = ""
    window = 1  # consecutive armed steps per ``every`` the sampled moments need
    # A value check (the bug can begin at any step: NaN, divergence, vanishing norms) is armed
    # every cycle; a structural one only in the cycles `structure_cycle` picks.
    dynamic = False
    every_step: frozenset[str] = frozenset()  # moments needed on every step

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx

    def attach(self) -> None:
        """At watch start: static checks, and hooks of the guard's own (into ``ctx.handles``)."""

    def on_forward(
        self,
        args: tuple,
        kwargs: Mapping[str, Any],
        output: Any,
        record: ForwardRecord | None,
        grad_enabled: bool,
    ) -> None:
        """After a forward of the watched model (``record`` when it built a graph)."""

    def on_backward(self, record: ForwardRecord) -> None:
        """A backward pass reached the model's output: parameter gradients are not yet added."""

    def on_step_pre(self) -> None:
        """Right before ``optimizer.step()`` updates the weights."""

    def on_step_post(self) -> None:
        """Right after an optimizer step (``ctx.steps`` already counts it)."""

    def on_skip(self) -> None:
        """GradScaler skipped a step (inf/NaN gradients): the window ended without an update."""

    def on_read(self) -> None:
        """The host read at the guard cadence: queue device values with `Context.read_later`
        (one transfer for all guards), and turn them into findings in the callback."""

    def on_arm(self) -> None:
        """The guard's armed steps begin (at watch start, and after the step leading into
        them)."""

    def on_disarm(self) -> None:
        """The guard's armed steps ended (after the last one's step)."""

    def close(self) -> None:
        """At watch end: release anything the guard holds."""


def structure_cycle(cycle: int, structure_every: int) -> bool:
    """Cycle ``cycle`` (of ``every`` steps) runs the structural checks: cycles 0, 1, 2, 4, 8,
    then every ``structure_every``-th. A code-shaped bug (a missing zero_grad, softmax into the
    loss) is there from the first step its line runs, so the first cycles find it; later ones
    only confirm, at a fraction of the cost."""
    if structure_every <= 1 or cycle % structure_every == 0:
        return True
    return cycle < structure_every and cycle & (cycle - 1) == 0


def optimizer_param_ids(optimizer: torch.optim.Optimizer) -> set[int]:
    return {id(p) for group in optimizer.param_groups for p in group["params"]}


def overrides(guard: Guard, moment: str) -> bool:
    """``guard``'s class implements ``moment`` (a per-step hook body worth dispatching to)."""
    return class_overrides(type(guard), moment)


@functools.lru_cache(maxsize=256)
def class_overrides(cls: type, moment: str) -> bool:
    """Guard class ``cls`` implements ``moment`` (cached: a property of the class)."""
    return getattr(cls, moment) is not getattr(Guard, moment)


def first_grad_tensor(value: Any) -> torch.Tensor | None:
    """The first tensor that requires grad in a model output, read as every part reads one
    (`trainwell.parts.outputs.tensors_in`: tensors, tuples, dicts, dataclasses, HF outputs)."""
    return next((t for t in tensors_in(value) if t.requires_grad), None)


def first_tensor(value: Any) -> torch.Tensor | None:
    """The first tensor in forward arguments (tensor, tuple, list, dict)."""
    return next(tensors_in(value), None)


def local_shard(tensor: torch.Tensor) -> torch.Tensor:
    """This rank's shard of a sharded (FSDP2 DTensor) tensor, the tensor itself otherwise:
    guards check what their rank holds, with no collective (ranks read at different moments
    only if a guard's branch differs, and a collective there would hang)."""
    return tensor.to_local() if hasattr(tensor, "device_mesh") else tensor


def tensor_norms(grads: list[torch.Tensor]) -> torch.Tensor:
    """Each tensor's 2-norm (of this rank's shard where sharded), stacked (one foreach kernel
    where the tensors allow)."""
    # the usual: plain tensors (a type check costs far less than hasattr's failed lookup)
    if not all(type(g) is torch.Tensor for g in grads):
        grads = [local_shard(g) for g in grads]
    try:
        norms = torch._foreach_norm(grads)
        return torch.stack(norms) if len({n.dtype for n in norms}) == 1 else _as_float(norms)
    except (RuntimeError, NotImplementedError):  # sparse or mixed-device gradients
        dense = [g.coalesce()._values() if g.is_sparse else g for g in grads]
        device = dense[0].device
        return torch.stack([torch.linalg.vector_norm(g.float()).to(device) for g in dense])


def _as_float(norms: list[torch.Tensor] | tuple[torch.Tensor, ...]) -> torch.Tensor:
    return torch.stack([n.float() for n in norms])


def _spread(count: int, most: int) -> list[int]:
    """Up to ``most`` indices spread evenly over ``range(count)`` (first and last included)."""
    if count <= most:
        return list(range(count))
    return sorted({round(i * (count - 1) / (most - 1)) for i in range(most)})


Hook = Callable[..., Any]


def _past_guards(frame: FrameType) -> FrameType:
    """The first frame from ``frame`` outwards that is not a guard's method: a registered
    guard's code is not library code, and its finding must name the user's line."""
    while isinstance(frame.f_locals.get("self"), Guard) and frame.f_back is not None:
        frame = frame.f_back
    return frame


def _process_rank() -> int | None:
    """This process's rank when torchrun started several (its environment), else None."""
    if int(os.environ.get("WORLD_SIZE", "1")) > 1:
        return int(os.environ.get("RANK", "0"))
    return None
