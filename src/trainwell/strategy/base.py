"""The strategy seam: what differs between one process and many, in one small object.

`fit()` and `TrainStep` never ask "am I distributed?"; they call the strategy at the moments
where one process and many differ. `Strategy` is what a strategy must have: where it trains
(``device``, ``rank``, ``world_size``), how the model becomes what trains (``prepare``) and the
three collectives everything else is built from (``reduce``, ``agree``, ``gather``).
`BaseStrategy` gives every other verb a default, written with those (or, for one process, as
the plain operation), so a strategy of your own subclasses it and overrides what it does
differently:

* ``to_device(batch)``: where a batch goes (non-blocking, ``train.channels_last``);
* ``backward(loss, precision, trained, last)`` and ``no_sync``: gradients synchronised only
  after the last micro-batch of a window;
* ``sync_gradients(parameters)``: averaged over processes, for a step that trained around
  the wrapper ``prepare`` returned (a GAN calling its submodules);
* ``sync_buffers(model)``: rank 0's buffers (BatchNorm statistics) on every rank, before
  validation and at the end: one model everywhere;
* ``clip(clipping, parameters)``: the global gradient norm (over shards, when sharded);
* ``mean(values)``, ``union(names)``, ``broadcast(value)``, ``main_says(flag)``: reductions
  built from the three collectives;
* ``vote(flag)``: a stop decision taken at the same step on every rank without making each
  step wait (several processes learn it one step late);
* ``model_state``/``load_model_state``, ``optimizer_state``/``load_optimizer_state``,
  ``checkpoint_parts``: full state dicts whatever the wrapping or sharding
  (``collective_state``: every rank takes part in every save);
* ``close(clean)``: end what the strategy started (a process group).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any, Protocol, runtime_checkable

import torch
from torch import nn

from trainwell.parts.device import move_to, to_channels_last


@runtime_checkable
class Strategy(Protocol):
    """What a process layout must provide (see the module docstring); `BaseStrategy` builds
    every other verb `fit()` calls from these."""

    device: torch.device
    rank: int
    world_size: int

    def prepare(self, model: nn.Module) -> nn.Module:
        """``model`` on the device (before any optimizer is built over it); returns what trains
        (a wrapper, or the model itself)."""
        ...

    def reduce(self, total: torch.Tensor, count: Any) -> tuple[torch.Tensor, torch.Tensor]:
        """``(sum of total, sum of count)`` over every process."""
        ...

    def agree(self, flag: bool) -> bool:
        """True on every process when any says so; every process calls it at the same moment."""
        ...

    def gather(self, value: Any) -> list[Any]:
        """Every process's ``value`` (picklable), in rank order, on every process."""
        ...


class BaseStrategy:
    """One process on one device, and the default of every verb (see the module docstring)."""

    rank = 0
    world_size = 1
    #: Whether saving state is a collective every rank takes part in (DDP, FSDP).
    collective_state = False

    def __init__(self, device: torch.device | str = "cpu", *, channels_last: bool = False) -> None:
        self.device = torch.device(device)
        self.channels_last = channels_last  # train.channels_last: NHWC weights and images

    # ------------------------------------------------------------------ the required core

    def prepare(self, model: nn.Module) -> nn.Module:
        """Move ``model`` to the device (before any optimizer is built over its parameters)."""
        if self.channels_last:
            return model.to(self.device, memory_format=torch.channels_last)
        return model.to(self.device)

    def reduce(self, total: torch.Tensor, count: Any) -> tuple[torch.Tensor, torch.Tensor]:
        """``(sum, count)`` over all processes: here, as given."""
        return total, torch.as_tensor(count)

    def agree(self, flag: bool) -> bool:
        """True when any process says so: here, this one's word."""
        return flag

    def gather(self, value: Any) -> list[Any]:
        """Every process's ``value``: here, this one's."""
        return [value]

    # ------------------------------------------------------------------ defaults

    @property
    def is_main(self) -> bool:
        """The one process that prints and writes files."""
        return self.rank == 0

    def to_device(self, batch: Any) -> Any:
        """``batch`` on the device: non-blocking copies (from pinned memory, truly async)."""
        batch = move_to(batch, self.device, non_blocking=True)
        return to_channels_last(batch) if self.channels_last else batch

    @contextlib.contextmanager
    def no_sync(self, trained: nn.Module, last: bool) -> Iterator[None]:
        """Around a backward: several processes skip the gradient all-reduce unless ``last``."""
        yield

    def backward(self, loss: torch.Tensor, precision: Any, trained: nn.Module, last: bool) -> None:
        """Backward of ``loss`` (scaled for fp16 by ``precision``)."""
        with self.no_sync(trained, last):
            precision.backward(loss)

    def sync_gradients(self, parameters: list[torch.Tensor]) -> None:
        """Average ``parameters``' gradients over processes (for a step that trained around the
        wrapper `prepare` returned); a gradient no process has stays None. Here: nothing."""
        if self.world_size == 1:
            return
        average_gradients(parameters, self)

    def sync_buffers(self, model: nn.Module) -> None:
        """Rank 0's buffers (BatchNorm's running statistics) on every process. Here: nothing."""
        if self.world_size == 1:
            return
        state = self.broadcast({n: b.cpu() for n, b in unwrapped(model).named_buffers()})
        with torch.no_grad():
            for name, buffer in unwrapped(model).named_buffers():
                buffer.copy_(state[name])

    def clip(self, clipping: Any, parameters: list[torch.Tensor]) -> torch.Tensor:
        """Clip by the global norm of ``parameters``' gradients; returns the pre-clip norm."""
        return clipping(parameters)

    def mean(self, values: torch.Tensor | float) -> torch.Tensor:
        """``values`` averaged over processes (every process has equally many steps)."""
        if not isinstance(values, torch.Tensor):  # a count from the host (token counts as ints)
            values = torch.tensor(float(values), device=self.device)
        if self.world_size == 1:
            return values
        total, _ = self.reduce(values.detach().to(self.device, copy=True), 0)
        dtype = values.dtype if values.is_floating_point() else torch.get_default_dtype()
        return (total / self.world_size).to(dtype)  # reduce may sum in float64

    def union(self, names: list[str]) -> list[str]:
        """The names any process has, in one order on every process."""
        if self.world_size == 1:
            return names
        return sorted(set().union(*self.gather(list(names))))

    def broadcast(self, value: Any) -> Any:
        """Rank 0's ``value`` (a run directory name, a decision) on every process."""
        return value if self.world_size == 1 else self.gather(value)[0]

    def main_says(self, flag: bool) -> bool:
        """Rank 0's ``flag`` on every process: a decision only rank 0 can take (a save on its
        clock)."""
        return self.agree(flag and self.is_main)

    def vote(self, flag: bool) -> bool:
        """A stop every process takes at the same step. Here, and by default, at once (`agree`);
        several processes may answer one step late so that no step waits for the others."""
        return flag if self.world_size == 1 else self.agree(flag)

    def model_state(self, model: nn.Module) -> dict[str, Any]:
        """The full state dict of ``model`` (unwrapped: the keys a single process saves)."""
        return unwrapped(model).state_dict()

    def load_model_state(self, model: nn.Module, state: dict[str, Any]) -> None:
        unwrapped(model).load_state_dict(state)

    def optimizer_state(self, model: nn.Module, optimizer: torch.optim.Optimizer) -> dict[str, Any]:
        return optimizer.state_dict()

    def load_optimizer_state(
        self, model: nn.Module, optimizer: torch.optim.Optimizer, state: dict[str, Any]
    ) -> None:
        optimizer.load_state_dict(state)

    def checkpoint_parts(self, parts: dict[str, Any], model: nn.Module) -> dict[str, Any]:
        """What a checkpoint saves and restores, by name: here ``parts`` as they are (a sharded
        strategy puts stand-ins that gather full states in place of the model and optimizers)."""
        return dict(parts)

    def close(self, *, clean: bool = True) -> None:
        """End what this strategy started (a process group); ``clean``: every process got here."""


def unwrapped(model: nn.Module) -> nn.Module:
    """The model inside a ``DistributedDataParallel`` wrapper (the model itself otherwise)."""
    return model.module if isinstance(model, nn.parallel.DistributedDataParallel) else model


def average_gradients(parameters: list[torch.Tensor], strategy: Any) -> None:
    """Average ``parameters``' gradients over processes with ``strategy.reduce``: one
    reduction of which gradients exist (a gradient only some processes have counts as zero on
    the others; one none has stays None), then one per gradient dtype."""
    if not parameters:
        return
    device = parameters[0].device
    has = torch.tensor([float(p.grad is not None) for p in parameters], device=device)
    has, _ = strategy.reduce(has, 0)
    present = [p for p, n in zip(parameters, has.tolist(), strict=True) if n > 0]
    for p in present:
        if p.grad is None:
            p.grad = torch.zeros_like(p)
    by_dtype: dict[torch.dtype, list[torch.Tensor]] = {}
    for p in present:
        by_dtype.setdefault(p.grad.dtype, []).append(p.grad)
    with torch.no_grad():
        for grads in by_dtype.values():
            flat = torch.cat([g.reshape(-1) for g in grads])
            total, _ = strategy.reduce(flat, 0)
            mean = (total / strategy.world_size).to(flat.dtype)
            for grad, part in zip(grads, mean.split([g.numel() for g in grads]), strict=True):
                grad.copy_(part.view_as(grad))
