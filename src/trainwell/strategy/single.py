"""The strategy seam: what differs between one process and many, in one small object.

`fit()` and `TrainStep` never ask "am I distributed?"; they call the strategy at the moments
where one process and many differ:

* ``to_device(batch)`` and ``prepare(model)``: where tensors and the model live;
* ``backward(loss, precision, model, last)``: with several processes, gradients are
  synchronised only after the last micro-batch of a window (``no_sync`` on the others);
* ``clip(clipping, params)``: the global gradient norm (over shards, for sharded gradients);
* ``reduce(total, count)``: sums and counts over processes (means of means are wrong);
  ``mean(values)``: per-rank means of equally many steps, averaged (the logged losses);
* ``agree(flag)``: a stop decision (preemption, early stopping, a guard) every rank takes
  together, so no rank waits forever in a collective the others left;
* ``is_main``: the one process that prints and writes files;
* ``model_state``/``load_model_state`` and ``optimizer_state``/``load_optimizer_state``: full
  state dicts, whatever the wrapping or sharding; ``checkpoint_parts``: the parts a checkpoint
  saves, with stand-ins that gather full states where the state is sharded
  (``collective_state``: then every rank takes part in every save);
* ``gather_findings``: the guards' findings of every process, each once, at the end;
* ``rank``/``world_size``: what the data loader shards by.

`SingleDevice` is here; `trainwell.distributed.DDP` and `trainwell.fsdp.FSDP` are the
several-process ones.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import torch
from torch import nn

from trainwell.parts.device import move_to, to_channels_last


class SingleDevice:
    """One process on one device: every moment is the plain single-process operation."""

    rank = 0
    world_size = 1
    #: Whether saving state is a collective every rank takes part in (FSDP); not here.
    collective_state = False

    def __init__(self, device: torch.device | str = "cpu", *, channels_last: bool = False) -> None:
        self.device = torch.device(device)
        self.channels_last = channels_last  # train.channels_last: NHWC weights and images

    @property
    def is_main(self) -> bool:
        return True

    def prepare(self, model: nn.Module) -> nn.Module:
        """Move ``model`` to the device (before any optimizer is built over its parameters)."""
        if self.channels_last:
            return model.to(self.device, memory_format=torch.channels_last)
        return model.to(self.device)

    def to_device(self, batch: Any) -> Any:
        """``batch`` on the device: non-blocking copies (from pinned memory, truly async)."""
        batch = move_to(batch, self.device, non_blocking=True)
        return to_channels_last(batch) if self.channels_last else batch

    @contextlib.contextmanager
    def no_sync(self, model: nn.Module, last: bool) -> Iterator[None]:
        """Around a backward: several processes skip the gradient all-reduce unless ``last``."""
        yield

    def backward(self, loss: torch.Tensor, precision: Any, model: nn.Module, last: bool) -> None:
        """Backward of ``loss`` (scaled for fp16 by ``precision``)."""
        with self.no_sync(model, last):
            precision.backward(loss)

    def clip(self, clipping: Any, parameters: list[torch.Tensor]) -> torch.Tensor:
        """Clip by the global norm of ``parameters``' gradients; returns the pre-clip norm."""
        return clipping(parameters)

    def reduce(self, total: torch.Tensor, count: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """``(sum, count)`` over all processes: here, as given."""
        return total, count

    def mean(self, values: torch.Tensor) -> torch.Tensor:
        """``values`` averaged over processes: here, as given."""
        return values

    def union(self, names: list[str]) -> list[str]:
        """The names any process has, in one order on every process: here, these."""
        return names

    def agree(self, flag: bool) -> bool:
        """True when any process says so: here, this one's word."""
        return flag

    def model_state(self, model: nn.Module) -> dict[str, Any]:
        return model.state_dict()

    def load_model_state(self, model: nn.Module, state: dict[str, Any]) -> None:
        model.load_state_dict(state)

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

    def gather_findings(self, findings: list[Any]) -> list[Any]:
        """Every process's guard findings, each reported once: here, this one's."""
        return list(findings)
