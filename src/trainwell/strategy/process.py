"""Several processes on PyTorch's own engine: ``torch.distributed``, launched by ``torchrun``.

* **Launch.** ``torchrun --nproc_per_node N -m trainwell train ...`` (or ``trainwell train
  --nproc N``, which calls torchrun's own launcher, `launch_local`) sets ``RANK``,
  ``LOCAL_RANK``, ``WORLD_SIZE`` and the rendezvous; `init_from_env` starts the process group
  from them: nccl on CUDA (each process pinned to ``cuda:LOCAL_RANK``), gloo on CPU. The group
  is destroyed by whoever started it, also on errors (`process_group`).
* **Restarts.** A group torchrun restarted (``--max-restarts``) gets a store prefix of its own
  (`restart_count`); `trainwell.loop.resume.elastic_resume` then resumes the run.
* **Placement.** `local_device` is this process's device; `fits_one_device` decides between
  DDP and FSDP for ``run.strategy=auto`` (`trainwell.strategy.registry`).

What the strategies do with the group (gradients, data shards, metrics, stops, output) is in
`trainwell.strategy.ddp` and `trainwell.strategy.fsdp`.
"""

from __future__ import annotations

import contextlib
import datetime
import gc
import os
import shutil
import tempfile
from collections.abc import Iterator
from typing import Any

import torch
import torch.distributed as dist
from torch import nn

from trainwell.errors import ConfigError


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
    target = local_device(device)
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


def local_device(device: str | torch.device | None) -> torch.device:
    """This process's device: ``device`` as given (``cuda`` becomes ``cuda:LOCAL_RANK``), or for
    ``auto`` the GPU of this local rank, else the CPU."""
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
    # torchrun's per-launch log directory (a torchelastic_* folder in the temp directory,
    # never removed by torchrun): ours, removed when the launch ends
    logs = tempfile.mkdtemp(prefix="trainwell-launch-")
    try:
        torchrun(["--standalone", "--nproc_per_node", str(nproc), "--log-dir", logs, *restarts,
                  *program])  # fmt: skip
    except ChildFailedError as exc:
        codes = [failure.exitcode for failure in exc.failures.values()]
        return next((c for c in codes if c and c > 0), 1)
    finally:
        shutil.rmtree(logs, ignore_errors=True)
    return 0


def restart_count() -> int:
    """How many times torchrun has restarted this group of workers (``--max-restarts``)."""
    return int(os.environ.get("TORCHELASTIC_RESTART_COUNT", "0") or 0)


def broadcast_object(value: Any) -> Any:
    """Rank 0's ``value`` on every rank (a run directory name, a decision); as is when alone."""
    if not (dist.is_available() and dist.is_initialized()) or dist.get_world_size() == 1:
        return value
    box = [value]
    dist.broadcast_object_list(box, src=0)
    return box[0]


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
