"""Several processes on PyTorch's own engine: ``torch.distributed``, launched by ``torchrun``.

`DDP` is a strategy (`trainwell.strategy`): `fit()` and `TrainStep` call it at the moments
where one process and many differ, and never ask which they have.

* **Launch.** ``torchrun --nproc_per_node N -m trainwell train ...`` (or ``trainwell train
  --nproc N``, which calls torchrun's own launcher) sets ``RANK``, ``LOCAL_RANK``,
  ``WORLD_SIZE`` and the rendezvous; `init_from_env` starts the process group from them: nccl
  on CUDA (each process pinned to ``cuda:LOCAL_RANK``), gloo on CPU. The group is destroyed
  by whoever started it, also on errors (`process_group`).
* **Gradients.** ``DistributedDataParallel`` all-reduces (averages) gradients during the last
  micro-batch's backward of an accumulation window; the others run under ``no_sync``.
  Clipping then sees the same, complete gradients on every rank: the global norm.
* **Data.** Each rank reads a disjoint shard of each epoch's order (padded with the order's
  head so every rank takes the same number of steps; `trainwell.data.shard_order`). The
  schedule's length is the per-rank step count, which is the global one.
* **Metrics.** The training loss is averaged over ranks at the logging interval and at the
  end of each epoch (one all-reduce each), samples/s summed. Validation runs on every rank
  over the whole validation set: the weights are the same everywhere, so every rank gets the
  same metrics and takes the same best/early-stopping decisions without a collective. (It
  costs each rank a full pass; sharded validation with reduced metric states is the next
  step.)
* **Stops.** `agree` is an all-reduce of one flag per step: a signal, early stopping or a
  guard on any rank stops every rank at the same step, after the same save.
* **Output.** Rank 0 prints, logs and writes checkpoints (the unwrapped model's state: the
  same keys as a single-process run, so resume and export work with any world size). Every
  rank takes part in each save (`AgreedCheckpoints`): its RNG streams are gathered into the
  checkpoint (`RanksRNG`), so a resumed run with dropout continues every rank's stream.
"""

from __future__ import annotations

import contextlib
import datetime
import gc
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import torch
import torch.distributed as dist
from torch import nn

from trainwell.device import choose_device
from trainwell.errors import CheckpointError, ConfigError
from trainwell.strategy import SingleDevice


def launched() -> bool:
    """Whether this process was started by torchrun (or another launcher) as one of several."""
    return int(os.environ.get("WORLD_SIZE", "1")) > 1


def env_rank() -> int:
    """This process's rank from the launcher's environment (0 when not launched)."""
    return int(os.environ.get("RANK", "0"))


def init_from_env(device: str | torch.device | None = None, timeout_s: float = 600.0) -> bool:
    """Start the default process group from the launcher's environment, if not started yet.

    Returns True when this call started it (its caller then destroys it). nccl when this
    process trains on CUDA (pinned to ``cuda:LOCAL_RANK``), gloo otherwise.
    """
    if dist.is_initialized():
        return False
    if not launched():
        raise ConfigError(
            "run.strategy=ddp needs several processes: start with torchrun --nproc_per_node N "
            "-m trainwell train ..., or trainwell train --nproc N"
        )
    target = _local_device(device)
    backend = "nccl" if target.type == "cuda" else "gloo"
    if target.type == "cuda":
        torch.cuda.set_device(target)
    timeout = datetime.timedelta(seconds=timeout_s)
    world_size = int(os.environ["WORLD_SIZE"])
    store = _attempt_store(timeout)
    dist.init_process_group(
        backend, store=store, rank=env_rank(), world_size=world_size, timeout=timeout
    )
    return True


def _attempt_store(timeout: datetime.timedelta) -> dist.Store:
    """torchrun's store (``env://``) under a prefix of its own for each restart: a group
    torchrun restarted (``--max-restarts``) would otherwise read the addresses the failed
    attempt's ranks published there, and fail to connect (seen with gloo: "connectFullMesh
    failed ... Connection refused")."""
    store, _, _ = next(dist.rendezvous("env://", timeout=timeout))
    return dist.PrefixStore(f"trainwell/attempt-{restart_count()}", store)


@contextlib.contextmanager
def process_group(device: str | torch.device | None = None) -> Iterator[None]:
    """The process group for the block when launched by torchrun; destroyed afterwards (also
    on errors) if this block started it. A no-op in a single process."""
    started = launched() and init_from_env(device)
    clean = False
    try:
        yield
        clean = True
    finally:
        if started:
            end_process_group(clean=clean)


def end_process_group(*, clean: bool) -> None:
    """Destroy the default group; after a barrier when every rank got here normally (a rank
    that leaves first would tear down connections the others still use: gloo aborts)."""
    if not dist.is_initialized():
        return
    if clean:
        dist.barrier()
    dist.destroy_process_group()
    # Garbage that still holds collective buffers (FSDP's per-step state, finished work) is
    # freed now, while the interpreter is whole: freed during its finalization instead, a
    # tensor with Python references can abort the process after a successful run (gloo).
    gc.collect()


def _local_device(device: str | torch.device | None) -> torch.device:
    local_rank = int(os.environ.get("LOCAL_RANK", "0"))
    if device is not None and str(device) != "auto":
        chosen = torch.device(device)
        if chosen.type == "cuda" and chosen.index is None:
            return torch.device("cuda", local_rank)
        return chosen
    if torch.cuda.is_available():
        return torch.device("cuda", local_rank % torch.cuda.device_count())
    return torch.device("cpu")


def launch_local(nproc: int, program: list[str], *, max_restarts: int = 0) -> int:
    """Run ``program`` (``["-m", "module", ...]`` or a script and its arguments) as ``nproc``
    processes on this machine through torchrun's own launcher (``torch.distributed.run
    --standalone``), restarting them all up to ``max_restarts`` times when one fails; returns
    the first failing process's exit code, or 0."""
    from torch.distributed.elastic.multiprocessing.errors import ChildFailedError
    from torch.distributed.run import main as torchrun

    restarts = ["--max-restarts", str(max_restarts)] if max_restarts else []
    try:
        torchrun(["--standalone", "--nproc_per_node", str(nproc), *restarts, *program])
    except ChildFailedError as exc:
        codes = [failure.exitcode for failure in exc.failures.values()]
        return next((c for c in codes if c and c > 0), 1)
    return 0


def restart_count() -> int:
    """How many times torchrun has restarted this group of workers (``--max-restarts``)."""
    return int(os.environ.get("TORCHELASTIC_RESTART_COUNT", "0") or 0)


def elastic_resume(resume: str | None, run_dir: str | None) -> str | None:
    """What to resume from: ``checkpoint.resume`` as set, or, in a worker torchrun restarted
    after a failure, ``"auto"`` (the newest good checkpoint) when the run directory has one:
    the restarted command is the original one, which did not ask to resume. (A failure in
    the middle of the first save leaves no good checkpoint: the restart starts afresh.)"""
    if resume or run_dir is None or restart_count() == 0:
        return resume
    from trainwell.checkpoint import newest_good_checkpoint

    try:
        newest_good_checkpoint(Path(run_dir) / "checkpoints")
    except CheckpointError:
        return None
    return "auto"


def broadcast_object(value: Any) -> Any:
    """Rank 0's ``value`` on every rank (a run directory name, a decision); as is when alone."""
    if not (dist.is_available() and dist.is_initialized()) or dist.get_world_size() == 1:
        return value
    box = [value]
    dist.broadcast_object_list(box, src=0)
    return box[0]


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


class AgreedCheckpoints:
    """The checkpointer of a strategy whose saves are collectives (FSDP gathers every rank's
    shard): every rank calls it at the same moments, and every rank gathers the state of
    each save; rank 0 decides the cadence (its clock) and writes, through its `Checkpointer`.

    Where the save points are the same on every rank by construction (the step cadence's
    modulus, the end of the run) no message is sent; rank 0's timed decision
    (``checkpoint.min_interval_s``) reaches the others in one all-reduce.
    """

    def __init__(
        self,
        strategy: Any,
        writer: Any,
        every_steps: int | None,
        keep_best: int,
        *,
        async_save: bool = False,
    ) -> None:
        self.strategy, self.writer, self.every_steps = strategy, writer, every_steps
        self.keep_best = keep_best  # the same on every rank: new-best saves agree
        self.async_save = async_save  # checkpoint.async_save: shards written in the background
        self._save_group: Any = None  # the background saves' own process group
        self._committing: threading.Thread | None = None  # this rank's save in flight (rank > 0)
        self._error: BaseException | None = None

    def __getattr__(self, name: str) -> Any:  # paths, saves, wait, directory: the writer's
        return getattr(self.writer, name)

    def due_after_step(self, step: int) -> bool:
        if not (self.every_steps and step > 0 and step % self.every_steps == 0):
            return False
        return self.strategy.main_says(self.writer.due_after_step(step))

    def due_after_epoch(self, epoch: int, last: bool, *, best: bool = False) -> bool:
        if last:
            return True
        return self.strategy.main_says(self.writer.due_after_epoch(epoch, last, best=best))

    def save(self, parts: Any, counters: Any, **kwargs: Any) -> Any:
        if getattr(self.strategy, "sharded_checkpoints", False):
            parts, kwargs = self._save_shards(parts, counters, kwargs)
            if parts is None:
                return None
        if self.strategy.is_main:
            return self.writer.save(parts, counters, **kwargs)
        from trainwell.checkpoint import state_of

        state_of(parts)  # this rank's share of the gathering
        commit = kwargs.get("before_write")
        if commit is not None:  # this rank's shards are written in the background
            self._committing = threading.Thread(target=self._commit, args=(commit,))
            self._committing.start()
        return None

    def hold(self, parts: Any, counters: Any, **kwargs: Any) -> None:
        if getattr(self.strategy, "sharded_checkpoints", False):
            self.save(parts, counters, **kwargs)  # shards cannot wait in memory: saved now
        elif self.strategy.is_main:
            self.writer.hold(parts, counters, **kwargs)
        else:
            from trainwell.checkpoint import state_of

            state_of(parts)

    def _save_shards(
        self, parts: dict[str, Any], counters: Any, kwargs: dict[str, Any]
    ) -> tuple[dict[str, Any] | None, dict[str, Any]]:
        """Every rank writes its shards of the model and optimizers; returns the other parts
        with markers in their place and the manifest entry (None: not saved, NaN weights)."""
        from trainwell.fsdp import is_model_or_optimizer
        from trainwell.sharded import Marker, shards_of, start_shards, weights_finite
        from trainwell.userframe import warn_at_user

        model = parts["model"]
        if not weights_finite(model, self.strategy):
            if self.strategy.is_main:
                warn_at_user(
                    f"not saving step {counters.step}: the model's weights hold NaN/Inf; "
                    "keeping the last good checkpoint"
                )
            return None, kwargs
        self.wait()  # an earlier save in flight finishes first, on every rank
        path = self.writer.path_for(counters.step) if self.strategy.is_main else Path("x.pt")
        path = Path(broadcast_object(str(path)))
        shard_parts = {n: p for n, p in parts.items() if is_model_or_optimizer(p, model)}
        optimizers = {n: p for n, p in shard_parts.items() if p is not model}
        group = self._background_group() if self.async_save else None
        commit = start_shards(path, model, optimizers, self.strategy, group=group)
        marker = Marker(shards_of(path).name)
        rest = {n: marker if n in shard_parts else p for n, p in parts.items()}
        if group is None:
            return rest, {**kwargs, "shards": commit()}
        # The step file is written after the shards' commit: on rank 0 by the writer's thread.
        return rest, {**kwargs, "before_write": lambda: {"shards": commit()}}

    def _background_group(self) -> Any:
        """A gloo group for the background saves (created once, by every rank together): their
        collectives run in another thread, and must never interleave with training's."""
        if self._save_group is None:
            self._save_group = dist.new_group(backend="gloo")
        return self._save_group

    def _commit(self, commit: Any) -> None:
        try:
            commit()
        except BaseException as exc:  # re-raised in the training thread by wait()
            self._error = exc

    def wait(self) -> None:
        """Block until this rank's save in flight (if any) is on disk; re-raise its error."""
        if self._committing is not None:
            self._committing.join()
            self._committing = None
        self.writer.wait()
        if self._error is not None:
            error, self._error = self._error, None
            raise error

    def __enter__(self) -> AgreedCheckpoints:
        self.writer.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._committing is not None:
            self._committing.join()
            self._committing = None
        self.writer.__exit__(*exc)


def unwrap(model: nn.Module) -> nn.Module:
    """The model inside a ``DistributedDataParallel`` wrapper (the model itself otherwise)."""
    return model.module if isinstance(model, nn.parallel.DistributedDataParallel) else model


def choose_strategy(
    name: str,
    device: torch.device | str | None,
    *,
    channels_last: bool,
    model: nn.Module | None = None,
    precision: str = "fp32",
    fsdp_blocks: str = "auto",
    reshard_after_forward: bool = True,
    sharded_checkpoints: bool | str = "auto",
) -> Any:
    """``run.strategy``: single (one process), ddp, fsdp, or auto: single in one process;
    launched as several, ddp when the model's training state fits one device
    (`fits_one_device`), fsdp otherwise."""
    if name == "auto" and launched():
        fits = model is None or fits_one_device(model, _local_device(device))
        name = "ddp" if fits else "fsdp"
    if name == "fsdp":
        from trainwell.fsdp import FSDP

        return FSDP(
            device,
            blocks=fsdp_blocks,
            reshard_after_forward=reshard_after_forward,
            precision=precision,
            sharded_checkpoints=sharded_checkpoints in (True, "auto"),
            channels_last=channels_last,
        )
    if name == "ddp":
        return DDP(device, channels_last=channels_last)
    return SingleDevice(choose_device(device), channels_last=channels_last)


#: fp32 weights + gradients + AdamW's two moments: bytes per parameter while training.
TRAINING_BYTES_PER_PARAMETER = 16


def fits_one_device(model: nn.Module, device: torch.device) -> bool:
    """Whether ``model``'s training state (`TRAINING_BYTES_PER_PARAMETER` per parameter) takes
    at most half of ``device``'s memory, leaving the rest to activations (all of a CUDA
    device's memory; the machine's RAM shared by the local ranks on CPU)."""
    needed = TRAINING_BYTES_PER_PARAMETER * sum(p.numel() for p in model.parameters())
    return needed <= device_memory(device) / 2


def device_memory(device: torch.device) -> float:
    """Bytes of memory one rank has on ``device`` (CPU: RAM over the local ranks)."""
    if device.type == "cuda":
        return float(torch.cuda.get_device_properties(device).total_memory)
    try:
        ram = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return float("inf")
    return ram / max(int(os.environ.get("LOCAL_WORLD_SIZE", "1")), 1)
