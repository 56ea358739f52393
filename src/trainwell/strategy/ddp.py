"""Data parallel over the default process group: `DDP`, a strategy that wraps the model in
``DistributedDataParallel`` (gradients averaged during the last micro-batch's backward), reduces
the gradients of a step that trained around the wrapper itself, agrees on stops without waiting,
and validates one model on every rank (buffers from rank 0). `RanksRNG` saves every rank's
random streams.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import torch
import torch.distributed as dist
from torch import nn

from trainwell.strategy.process import _local_device, end_process_group, init_from_env
from trainwell.strategy.single import SingleDevice


class DDP(SingleDevice):
    """Data parallel over the default process group (see the module docstring). What one
    process does the same way (moving batches, backward, clipping, optimizer state) it
    inherits from `SingleDevice`."""

    #: A save gathers every rank's RNG streams: every rank takes part in every save.
    collective_state = True

    def __init__(
        self,
        device: str | torch.device | None = None,
        *,
        find_unused_parameters: bool = False,
        channels_last: bool = False,
    ) -> None:
        self._started_group = init_from_env(device)
        super().__init__(_local_device(device), channels_last=channels_last)
        self.rank = dist.get_rank()
        self.world_size = dist.get_world_size()
        self.find_unused_parameters = find_unused_parameters

    @property
    def is_main(self) -> bool:
        return self.rank == 0

    def prepare(self, model: nn.Module) -> nn.Module:
        """Move ``model`` to this rank's device and wrap it; the wrapper is what trains (its
        forward registers the gradient all-reduce), the model itself keeps the state. The
        gradients every rank clips are then the same, all-reduced ones: the global norm."""
        super().prepare(model)
        ids = [self.device.index] if self.device.type == "cuda" else None
        return nn.parallel.DistributedDataParallel(
            model, device_ids=ids, find_unused_parameters=self.find_unused_parameters
        )

    @contextlib.contextmanager
    def no_sync(self, model: nn.Module, last: bool) -> Iterator[None]:
        """No gradient all-reduce on the micro-batches before the last of a window."""
        if not last and isinstance(model, nn.parallel.DistributedDataParallel):
            with model.no_sync():
                yield
        else:
            yield

    def reduce(self, total: torch.Tensor, count: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Sums of ``total`` and ``count`` over every rank (one all-reduce)."""
        both = torch.stack([total.double(), torch.as_tensor(count, device=total.device).double()])
        dist.all_reduce(both)
        return both[0], both[1]

    def mean(self, values: torch.Tensor | float) -> torch.Tensor:
        """``values`` averaged over ranks (one all-reduce; every rank has equally many steps)."""
        if isinstance(values, torch.Tensor):  # on the device the backend needs (nccl: cuda)
            values = values.detach().to(self.device, copy=True)
        else:  # a count from the host (token counts as ints)
            values = torch.tensor(float(values), device=self.device)
        dist.all_reduce(values)
        return values / self.world_size

    def union(self, names: list[str]) -> list[str]:
        """The names any rank has, sorted: the same list on every rank (one small gather)."""
        gathered: list[Any] = [None] * self.world_size
        dist.all_gather_object(gathered, list(names))
        return sorted(set().union(*gathered))

    def agree(self, flag: bool) -> bool:
        """True on every rank when any rank says so (one all-reduce of one number)."""
        device = self.device if dist.get_backend() == "nccl" else torch.device("cpu")
        vote = torch.tensor([1.0 if flag else 0.0], device=device)
        dist.all_reduce(vote, op=dist.ReduceOp.MAX)
        return bool(vote.item())

    def checkpoint_parts(self, parts: dict[str, Any], model: nn.Module) -> dict[str, Any]:
        """``parts`` with the RNG streams of every rank (gathered at each save: every rank
        takes part, so saves are agreed collectives, `AgreedCheckpoints`)."""
        return {name: RanksRNG(part) if name == "rng" else part for name, part in parts.items()}

    def gather_findings(self, findings: list[Any]) -> list[Any]:
        """Every rank's guard findings, each once (the same bug seen by several ranks is one
        finding naming them all); the same list on every rank. One collective, at the end."""
        from trainwell.guards.finding import merge_findings

        every: list[Any] = [None] * self.world_size
        dist.all_gather_object(every, list(findings))
        return merge_findings(every)

    def main_says(self, flag: bool) -> bool:
        """Rank 0's ``flag`` on every rank (one all-reduce): a decision only rank 0 can take,
        such as a save on a timed cadence."""
        return self.agree(flag and self.is_main)

    def model_state(self, model: nn.Module) -> dict[str, Any]:
        return unwrap(model).state_dict()

    def load_model_state(self, model: nn.Module, state: dict[str, Any]) -> None:
        unwrap(model).load_state_dict(state)

    def close(self, *, clean: bool = True) -> None:
        """Destroy the process group if this strategy started it (``clean``: every rank gets
        here, so wait for them first; after an error, do not wait for ranks that may be gone)."""
        if self._started_group:
            end_process_group(clean=clean)
            self._started_group = False


class RanksRNG:
    """The RNG streams of every rank as one checkpoint entry: rank 0's own (what a single
    process resumes with) plus ``per_rank``, each rank's, gathered at save time. On load each
    rank takes its own stream when the world size is the one saved, else rank 0's."""

    def __init__(self, streams: Any) -> None:
        self.streams = streams  # this process's `RNGState`

    def state_dict(self) -> dict[str, Any]:
        own = self.streams.state_dict()
        gathered: list[Any] = [None] * dist.get_world_size()
        dist.all_gather_object(gathered, own)
        return {**gathered[0], "per_rank": gathered}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        per_rank = state.get("per_rank") or []
        if len(per_rank) == dist.get_world_size():
            self.streams.load_state_dict(per_rank[dist.get_rank()])
        else:  # another world size (resume warns): rank 0's streams
            self.streams.load_state_dict({k: v for k, v in state.items() if k != "per_rank"})


def unwrap(model: nn.Module) -> nn.Module:
    """The model inside a ``DistributedDataParallel`` wrapper (the model itself otherwise)."""
    return model.module if isinstance(model, nn.parallel.DistributedDataParallel) else model
