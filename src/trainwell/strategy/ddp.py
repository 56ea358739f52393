"""Data parallel over the default process group: `DDP`, a strategy that wraps the model in
``DistributedDataParallel`` (gradients averaged during the last micro-batch's backward),
averages the gradients of a step that trained around the wrapper itself, agrees on stops
without making a step wait, and validates one model on every rank (buffers from rank 0).
`RanksRNG` saves every rank's random streams.

* **Gradients.** The wrapper all-reduces (averages) gradients during the last micro-batch's
  backward of an accumulation window; the others run under ``no_sync``. A step that calls
  submodules (a GAN's generator and discriminator) never goes through the wrapper:
  `TrainStep.update` then asks `sync_gradients`, one averaging all-reduce per slot. Clipping
  sees the same, complete gradients on every rank: the global norm.
* **Data.** Each rank reads a disjoint shard of each epoch's order (padded with the order's
  head so every rank takes the same number of steps: `trainwell.data.order.shard_order`); the
  schedule's length is the per-rank step count, which is the global one.
* **Metrics.** The training loss is averaged over ranks at the log cadence and at the end of
  each epoch (one all-reduce each), samples/s summed. Validation runs on every rank over the
  whole validation set with the same weights and buffers, so every rank gets the same metrics
  and takes the same best/early-stopping decisions without a collective.
* **Buffers.** Each rank's forward updates its own BatchNorm statistics from its own batches;
  `sync_buffers` gives every rank rank 0's before each validation and at the end of `fit()`,
  so every rank validates, picks its best and ends with the same model.
* **Stops.** `vote` sends each step's stop vote as a non-blocking all-reduce of one number
  on a CPU (gloo) group and reads the previous step's, which has long arrived: every rank
  stops at the same step, one step after the first asked, and no step waits for the others
  or for the GPU. `agree` (epoch ends) waits.
* **Output.** Rank 0 prints, logs and writes checkpoints (the unwrapped model's state: the
  same keys as a single-process run). Every rank takes part in each save: its RNG streams are
  gathered into the checkpoint (`RanksRNG`), so a resumed run continues every rank's stream.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import torch
import torch.distributed as dist
from torch import nn

from trainwell.strategy.base import BaseStrategy, average_gradients, unwrapped
from trainwell.strategy.process import end_process_group, init_from_env, local_device


class DDP(BaseStrategy):
    """Data parallel over the default process group (see the module docstring)."""

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
        super().__init__(local_device(device), channels_last=channels_last)
        self.rank = dist.get_rank()
        self.world_size = dist.get_world_size()
        self.find_unused_parameters = find_unused_parameters
        # stop votes in a CPU group of their own: never a GPU sync (nccl's default group would
        # need one), never interleaved with training's collectives
        self._votes = dist.new_group(backend="gloo")
        self._vote_in_flight: tuple[Any, torch.Tensor] | None = None

    def prepare(self, model: nn.Module) -> nn.Module:
        """Move ``model`` to this rank's device and wrap it; the wrapper is what trains (its
        forward registers the gradient all-reduce), the model itself keeps the state."""
        super().prepare(model)
        ids = [self.device.index] if self.device.type == "cuda" else None
        return nn.parallel.DistributedDataParallel(
            model, device_ids=ids, find_unused_parameters=self.find_unused_parameters
        )

    @contextlib.contextmanager
    def no_sync(self, trained: nn.Module, last: bool) -> Iterator[None]:
        """No gradient all-reduce on the micro-batches before the last of a window."""
        if not last and isinstance(trained, nn.parallel.DistributedDataParallel):
            with trained.no_sync():
                yield
        else:
            yield

    # ------------------------------------------------------------------ collectives

    def reduce(self, total: torch.Tensor, count: Any) -> tuple[torch.Tensor, torch.Tensor]:
        """Sums of ``total`` (any shape) and ``count`` over every rank (one all-reduce)."""
        total = total.detach().to(self.device)
        count = torch.as_tensor(count, device=total.device).double().reshape(1)
        both = torch.cat([total.double().reshape(-1), count])
        dist.all_reduce(both)
        return both[:-1].reshape(total.shape), both[-1]

    def agree(self, flag: bool) -> bool:
        """True on every rank when any rank says so (one all-reduce of one number, waited
        for; a stop vote in flight is not part of it: `vote` collects that one)."""
        box = torch.tensor([1.0 if flag else 0.0])
        dist.all_reduce(box, op=dist.ReduceOp.MAX, group=self._votes)
        return bool(box.item())

    def vote(self, flag: bool) -> bool:
        """Send this step's stop vote without waiting; True when any rank voted to stop at the
        previous step (see the module docstring): every rank learns it at the same step."""
        earlier = self._vote_outcome()
        box = torch.tensor([1.0 if flag else 0.0])
        work = dist.all_reduce(box, op=dist.ReduceOp.MAX, group=self._votes, async_op=True)
        self._vote_in_flight = (work, box)
        return earlier

    def _vote_outcome(self) -> bool:
        """The outcome of the vote in flight (it has arrived: a step ran since), or False."""
        if self._vote_in_flight is None:
            return False
        work, box = self._vote_in_flight
        self._vote_in_flight = None
        work.wait()
        return bool(box.item())

    def gather(self, value: Any) -> list[Any]:
        """Every rank's ``value``, in rank order (one all-gather of pickled objects)."""
        gathered: list[Any] = [None] * self.world_size
        dist.all_gather_object(gathered, value)
        return gathered

    def broadcast(self, value: Any) -> Any:
        """Rank 0's ``value`` on every rank."""
        box = [value]
        dist.broadcast_object_list(box, src=0)
        return box[0]

    def sync_gradients(self, parameters: list[torch.Tensor]) -> None:
        """Average the gradients over ranks: for a step that did not train through the
        wrapper (its gradients were never all-reduced)."""
        average_gradients(parameters, self)

    def sync_buffers(self, model: nn.Module) -> None:
        """Rank 0's buffers (BatchNorm's running statistics) on every rank: one broadcast per
        buffer dtype."""
        by_dtype: dict[torch.dtype, list[torch.Tensor]] = {}
        for buffer in unwrapped(model).buffers():
            by_dtype.setdefault(buffer.dtype, []).append(buffer)
        with torch.no_grad():
            for buffers in by_dtype.values():
                flat = torch.cat([b.detach().reshape(-1) for b in buffers]).to(self.device)
                dist.broadcast(flat, src=0)
                for buffer, part in zip(
                    buffers, flat.split([b.numel() for b in buffers]), strict=True
                ):
                    buffer.copy_(part.view_as(buffer))

    # ------------------------------------------------------------------ state

    def checkpoint_parts(self, parts: dict[str, Any], model: nn.Module) -> dict[str, Any]:
        """``parts`` with the RNG streams of every rank (gathered at each save: every rank
        takes part, so saves are agreed collectives, `AgreedCheckpoints`)."""
        return {name: RanksRNG(part) if name == "rng" else part for name, part in parts.items()}

    def close(self, *, clean: bool = True) -> None:
        """Destroy the process group if this strategy started it (``clean``: every rank gets
        here, so wait for them first; after an error, do not wait for ranks that may be gone)."""
        if clean:
            self._vote_outcome()  # a vote in flight is collected, never left to the teardown
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
