"""Memory: activation checkpointing of chosen blocks, and a peak-memory report per phase.

`checkpoint_blocks` trades compute for memory: a checkpointed block keeps only its inputs
during the forward pass and runs its forward a second time during backward to rebuild the
activations its gradients need. Gradients are bitwise those of the plain model (the RNG state
is saved and restored around the recompute, so dropout draws the same mask). Nothing in the
module tree changes: the block's ``forward`` is shadowed by an instance attribute, so
``state_dict`` keys, ``named_modules`` and ``repr`` stay as they were, and `uncheckpoint_blocks`
undoes it.

`track_memory` records the peak memory of named phases (``forward``, ``backward``, ``step``)::

    with track_memory() as mem:
        with mem.phase("forward"):
            loss = loss_fn(model(x), y)
        with mem.phase("backward"):
            loss.backward()
    print(mem.report)

On CUDA the numbers are the caching allocator's (exact: ``max_memory_allocated``). On other
devices (CPU) no resettable allocator statistic exists, so the tracker counts the bytes of the
tensor storages that ATen ops create while it is active (see `track_memory` for what this
sees and misses).
"""

from __future__ import annotations

import functools
import threading
import types
import weakref
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

import torch
import torch.utils.checkpoint
from torch import nn
from torch.utils import _pytree as pytree
from torch.utils._python_dispatch import TorchDispatchMode

from trainwell.errors import ConfigError

__all__ = [
    "AUTO_BLOCK_PATHS",
    "MemoryReport",
    "MemoryTracker",
    "checkpoint_blocks",
    "checkpointed_blocks",
    "memory_report",
    "track_memory",
    "uncheckpoint_blocks",
]

# ---------------------------------------------------------------------------------------------
# Activation checkpointing
# ---------------------------------------------------------------------------------------------

#: the containers ``blocks="auto"`` looks for, in this order (GPT-style, Llama/HF, BERT, GPT-2)
AUTO_BLOCK_PATHS = ("blocks", "layers", "h", "layer", "encoder.layer", "transformer.h")

_CONTAINERS = (nn.ModuleList, nn.Sequential)


class _CheckpointedForward:
    """A block's ``forward`` that runs under `torch.utils.checkpoint` while training.

    Installed as the block's instance attribute ``forward``; ``nn.Module.__call__`` (hooks
    included) calls it in place of the class's forward. It is a plain picklable object holding
    the block (not a closure, not a weakref), so `copy.deepcopy` and ``torch.save(model)``
    copy it along with the block and the copy's wrapper points at the copied block.
    """

    def __init__(self, module: nn.Module, original: Callable[..., Any] | None) -> None:
        self.module = module
        # an instance-level forward that was there before us (None: the class's forward)
        self.original = original

    def _run(self, *args: Any, **kwargs: Any) -> Any:
        if self.original is not None:
            return self.original(*args, **kwargs)
        return type(self.module).forward(self.module, *args, **kwargs)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        # (inference_mode turns grad mode off too; torch.compile traces is_grad_enabled)
        if self.module.training and torch.is_grad_enabled():
            # keyword arguments are bound first: `checkpoint` itself takes some keywords
            # (debug, determinism_check, ...) that must not be mistaken for the block's
            fn = functools.partial(self._run, **kwargs) if kwargs else self._run
            return torch.utils.checkpoint.checkpoint(
                fn, *args, use_reentrant=False, preserve_rng_state=True
            )
        return self._run(*args, **kwargs)  # eval / no_grad / inference_mode: no recompute

    @property
    def __wrapped__(self) -> Callable[..., Any]:
        """The block's own forward, so `inspect.signature(block.forward)` still describes it."""
        if self.original is not None:
            return self.original
        return types.MethodType(type(self.module).forward, self.module)

    def __repr__(self) -> str:
        return f"<checkpointed forward of {type(self.module).__name__}>"


def _has_forward(module: nn.Module) -> bool:
    return type(module).forward is not nn.Module.forward  # ModuleList/ModuleDict have none


def _container_paths(model: nn.Module) -> list[str]:
    """'path (N x Type)' for each ModuleList/Sequential below the root, for error messages."""
    found = []
    for path, module in model.named_modules():
        if path and isinstance(module, _CONTAINERS) and len(module) > 0:
            kinds = sorted({type(child).__name__ for child in module})
            found.append(f"{path} ({len(module)} x {'/'.join(kinds)})")
    return found


def _list_hint(model: nn.Module) -> str:
    paths = _container_paths(model)
    if not paths:
        return f"{type(model).__name__} has no nn.ModuleList or nn.Sequential"
    shown = ", ".join(paths[:20]) + (f", ... ({len(paths) - 20} more)" if len(paths) > 20 else "")
    return f"the block lists of {type(model).__name__}: {shown}"


def _resolve(model: nn.Module, path: str, key: str = "checkpoint_blocks") -> nn.Module:
    """The submodule at a dotted path, or `ConfigError` saying which part is wrong."""
    module = model
    walked: list[str] = []
    for part in path.split("."):
        child = module._modules.get(part)
        if child is None:
            where = ".".join(walked) or type(model).__name__
            if part in module._parameters or part in module._buffers or hasattr(module, part):
                value = getattr(module, part)
                what = f"is a {type(value).__name__}, not a module"
            else:
                what = f"does not exist ({where} has no submodule {part!r})"
            raise ConfigError(
                f"{key}: {path!r} {what}; name modules by dotted path, a "
                f"ModuleList/Sequential meaning each of its children. {_list_hint(model)}"
            )
        module = child
        walked.append(part)
    return module


def _auto_container(model: nn.Module, key: str = "checkpoint_blocks") -> str:
    """The path ``blocks="auto"`` picks (see `checkpoint_blocks`)."""
    for path in AUTO_BLOCK_PATHS:
        try:
            module = model.get_submodule(path)
        except AttributeError:
            continue
        if isinstance(module, _CONTAINERS) and len(module) > 0:
            return path
    best, size = None, 0
    for path, module in model.named_modules():
        if (
            isinstance(module, nn.ModuleList)
            and len(module) > size
            and all(_has_forward(child) for child in module)
        ):
            best, size = path, len(module)
    if best is None:
        raise ConfigError(
            f"{key}: blocks='auto' found no block list in {type(model).__name__} "
            f"(looked for {', '.join(AUTO_BLOCK_PATHS)}, then any nn.ModuleList); name the "
            f"blocks by dotted path. {_list_hint(model)}"
        )
    return best


def _split(blocks: str | Sequence[str]) -> list[str]:
    items = [blocks] if isinstance(blocks, str) else list(blocks)
    return [p.strip() for item in items for p in str(item).split(",") if p.strip()]


def chosen_blocks(
    model: nn.Module, blocks: str | Sequence[str], *, key: str = "checkpoint_blocks"
) -> list[tuple[str, nn.Module]]:
    """``(path, module)`` for each block ``blocks`` names (see `checkpoint_blocks`); errors
    name the option ``key``."""
    paths = _split(blocks)
    if not paths:
        raise ConfigError(
            f"{key}: no blocks named (got {blocks!r}); use 'auto' or dotted "
            f"paths. {_list_hint(model)}"
        )
    chosen: list[tuple[str, nn.Module]] = []
    seen: set[int] = set()
    for path in paths:
        if path == "auto":
            path = _auto_container(model, key)
        module = _resolve(model, path, key)
        if isinstance(module, _CONTAINERS):
            members = [(f"{path}.{name}", child) for name, child in module.named_children()]
        else:
            members = [(path, module)]
        for member_path, member in members:
            if not _has_forward(member):
                raise ConfigError(
                    f"{key}: {member_path!r} is a {type(member).__name__}, which "
                    f"has no forward of its own; name the blocks inside it. {_list_hint(model)}"
                )
            if id(member) not in seen:  # a block shared by two paths is wrapped once
                seen.add(id(member))
                chosen.append((member_path, member))
    return chosen


def checkpoint_blocks(model: nn.Module, blocks: str | Sequence[str] = "auto") -> list[str]:
    """Activation-checkpoint the chosen blocks of ``model``, in place; returns their paths.

    ``blocks`` names modules by dotted path, as a list or a comma-separated string. A path
    naming an ``nn.ModuleList`` or ``nn.Sequential`` means each of its children: ``"blocks"``
    checkpoints every block of a GPT's ``model.blocks``, ``"layer1,layer2"`` every residual
    block of a ResNet's first two stages. (So to checkpoint a Sequential as one unit, name its
    parent module or wrap it in a module of its own.)

    ``"auto"`` picks the first of `AUTO_BLOCK_PATHS` (``blocks``, ``layers``, ``h``, ``layer``,
    ``encoder.layer``, ``transformer.h``) that is a non-empty ModuleList or Sequential; if none
    is, the ``nn.ModuleList`` with the most children whose children all have a forward (the
    first such in ``named_modules`` order on a tie). No candidate raises `ConfigError`.

    While the model is training with grad enabled, each chosen block runs as
    ``torch.utils.checkpoint.checkpoint(forward, *args, use_reentrant=False,
    preserve_rng_state=True)``: its activations are dropped after the forward pass and
    recomputed in backward, so its forward runs twice per step and the gradients are exactly
    those of the plain model. In eval mode, under ``torch.no_grad()`` or ``inference_mode`` the
    original forward runs directly, with no overhead.

    The module tree is not changed (no wrapper modules, no ``_checkpoint_wrapped_module.``
    prefixes): ``state_dict`` keys and checkpoints stay compatible both ways. The wrapper is an
    instance attribute ``forward`` on each block; `copy.deepcopy`, pickling and
    ``torch.save(model)`` carry it along, and `uncheckpoint_blocks` removes it. Calling this
    twice on a block checkpoints it once.

    A path that does not exist, or names a parameter, buffer or container without a forward,
    raises `ConfigError` naming it and listing the model's ModuleList/Sequential paths.
    """
    chosen = chosen_blocks(model, blocks)  # validate every path before changing anything
    for _, block in chosen:
        current = block.__dict__.get("forward")
        if isinstance(current, _CheckpointedForward):
            continue
        block.forward = _CheckpointedForward(block, current)  # type: ignore[method-assign]
    return [path for path, _ in chosen]


def checkpointed_blocks(model: nn.Module) -> list[str]:
    """The paths of ``model``'s blocks that `checkpoint_blocks` has wrapped."""
    return [
        path
        for path, module in model.named_modules()
        if isinstance(module.__dict__.get("forward"), _CheckpointedForward)
    ]


@contextmanager
def activation_checkpointing(model: nn.Module, blocks: str | None) -> Iterator[list[str]]:
    """`checkpoint_blocks` for the duration of a ``with`` block (None: nothing), undone after:
    fit() does not leave the user's model changed."""
    if not blocks:
        yield []
        return
    wrapped = checkpoint_blocks(model, blocks)
    try:
        yield wrapped
    finally:
        uncheckpoint_blocks(model)


def uncheckpoint_blocks(model: nn.Module) -> list[str]:
    """Undo `checkpoint_blocks` everywhere in ``model``: each block gets its own forward back.

    Returns the paths that were checkpointed (an empty list if none were).
    """
    restored = []
    for path, module in model.named_modules():
        wrapper = module.__dict__.get("forward")
        if not isinstance(wrapper, _CheckpointedForward):
            continue
        if wrapper.original is None:
            del module.__dict__["forward"]
        else:
            module.__dict__["forward"] = wrapper.original
        restored.append(path)
    return restored


# ---------------------------------------------------------------------------------------------
# Peak memory per phase
# ---------------------------------------------------------------------------------------------

_MIB = 2**20
TOTAL = "total"


class MemoryReport(Mapping[str, int]):
    """Peak bytes per named phase (a read-only mapping ``phase -> peak bytes``).

    Every number is relative to the memory allocated when tracking began: ``report["backward"]``
    is the most memory the tracked code held at any moment of the backward phase, on top of
    what was already allocated (model, optimizer state) before the tracker was entered. A
    phase entered several times reports its highest peak. ``"total"`` covers the whole tracked
    block. `retained_bytes` holds the same baseline-relative figure at each phase's end (for
    ``forward``: the activations kept for backward).
    """

    def __init__(self, device: torch.device, method: str) -> None:
        self.device = device
        self.method = method
        self._peak: dict[str, int] = {}
        self.retained_bytes: dict[str, int] = {}

    def __getitem__(self, phase: str) -> int:
        return self._peak[phase]

    def __iter__(self) -> Iterator[str]:
        return iter(self._peak)

    def __len__(self) -> int:
        return len(self._peak)

    @property
    def peak_bytes(self) -> dict[str, int]:
        """``{phase: peak bytes}``, a copy."""
        return dict(self._peak)

    def _record(self, phase: str, peak: int, retained: int) -> None:
        self._peak[phase] = max(self._peak.get(phase, 0), peak)
        self.retained_bytes[phase] = retained

    def __str__(self) -> str:
        width = max([len("phase"), *(len(p) for p in self._peak)])
        lines = [
            f"memory on {self.device} ({self.method}), MiB above the start",
            f"{'phase':<{width}}  {'peak':>10}  {'retained':>10}",
        ]
        for phase, peak in self._peak.items():
            retained = self.retained_bytes.get(phase, 0)
            lines.append(f"{phase:<{width}}  {peak / _MIB:>10.2f}  {retained / _MIB:>10.2f}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"MemoryReport(device={str(self.device)!r}, peak_bytes={self._peak!r})"


class _CudaCounter:
    """The CUDA caching allocator's own counts (exact; block-rounded sizes)."""

    method = "cuda allocator"

    def __init__(self, device: torch.device) -> None:
        self.device = device
        self.base = 0

    def start(self) -> None:
        self.base = torch.cuda.memory_allocated(self.device)
        torch.cuda.reset_peak_memory_stats(self.device)

    def stop(self) -> None:
        pass

    def current(self) -> int:
        return torch.cuda.memory_allocated(self.device) - self.base

    def take_high(self) -> int:
        """The highest level since the last call, then start a new interval."""
        high = torch.cuda.max_memory_allocated(self.device) - self.base
        torch.cuda.reset_peak_memory_stats(self.device)
        return high


class _StorageCounter(TorchDispatchMode):
    """Live bytes of the tensor storages created by ATen ops while this mode is active.

    Each op's outputs are inspected; a storage that is not one of the op's inputs' storages
    and not already counted is new: its ``nbytes`` are added, and a weakref callback on the
    storage (PyTorch keeps one Python object per storage, alive as long as the storage is)
    subtracts them when it is freed, wherever that happens (the counting goes on after an op
    returns). Views and in-place results share an input's storage and add nothing.
    """

    method = "live tensor storages"

    def __init__(self, device: torch.device) -> None:
        super().__init__()
        self.device_type = device.type
        self._live: dict[int, tuple[weakref.ref, int]] = {}
        self._lock = threading.RLock()
        self.level = 0
        self.high = 0

    def start(self) -> None:
        self.__enter__()

    def stop(self) -> None:
        self.__exit__(None, None, None)
        with self._lock:
            self._live.clear()  # dropping the weakrefs drops their callbacks

    def current(self) -> int:
        return self.level

    def take_high(self) -> int:
        with self._lock:
            high, self.high = self.high, self.level
        return high

    def _freed(self, key: int, ref: weakref.ref) -> None:
        with self._lock:
            entry = self._live.get(key)
            if entry is not None and entry[0] is ref:
                del self._live[key]
                self.level -= entry[1]

    def _count(self, storage: torch.UntypedStorage) -> None:
        nbytes = storage.nbytes()
        key = id(storage)
        with self._lock:
            entry = self._live.get(key)
            if entry is not None:  # already counted; a resize_ may have grown it
                ref, old = entry
                if nbytes == old:
                    return
                self._live[key] = (ref, nbytes)
            else:
                if nbytes == 0:
                    return
                ref = weakref.ref(storage, functools.partial(_storage_freed, self, key))
                self._live[key] = (ref, nbytes)
                old = 0
            self.level += nbytes - old
            if self.level > self.high:
                self.high = self.level

    def _storages(self, tree: Any) -> Iterator[torch.UntypedStorage]:
        for leaf in pytree.tree_leaves(tree):
            if isinstance(leaf, torch.Tensor) and leaf.device.type == self.device_type:
                try:
                    yield leaf.untyped_storage()
                except (RuntimeError, NotImplementedError):  # sparse, nested, subclasses
                    continue

    def __torch_dispatch__(self, func, types_, args=(), kwargs=None):
        kwargs = kwargs or {}
        inputs = {id(s) for s in self._storages((args, kwargs))}
        out = func(*args, **kwargs)
        for storage in self._storages(out):
            if id(storage) not in inputs or id(storage) in self._live:
                self._count(storage)
        return out


def _storage_freed(counter: _StorageCounter, key: int, ref: weakref.ref) -> None:
    counter._freed(key, ref)


def _default_device(device: str | torch.device | None) -> torch.device:
    if device is None:
        if torch.cuda.is_available():
            return torch.device("cuda", torch.cuda.current_device())
        return torch.device("cpu")
    device = torch.device(device)
    if device.type == "cuda" and device.index is None:
        device = torch.device("cuda", torch.cuda.current_device())
    return device


class MemoryTracker:
    """Tracks peak memory on one device; use `phase` to name the parts. See `track_memory`."""

    def __init__(self, device: str | torch.device | None = None) -> None:
        self.device = _default_device(device)
        self._counter: _CudaCounter | _StorageCounter | None = None
        self._open: list[list[Any]] = []  # [name, peak so far] of each phase now open
        self.report = MemoryReport(
            self.device,
            _CudaCounter.method if self.device.type == "cuda" else _StorageCounter.method,
        )

    def _fold(self) -> int:
        """Fold the high-water mark since the last boundary into every open phase."""
        assert self._counter is not None
        high = self._counter.take_high()
        for entry in self._open:
            entry[1] = max(entry[1], high)
        return high

    def __enter__(self) -> MemoryTracker:
        if self._counter is not None:
            raise RuntimeError("a MemoryTracker can be entered once at a time")
        if self.device.type == "cuda":
            self._counter = _CudaCounter(self.device)
        else:
            self._counter = _StorageCounter(self.device)
        self._counter.start()
        self._open = [[TOTAL, 0]]
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._counter is not None
        self._fold()
        name, peak = self._open.pop(0)
        self.report._record(name, peak, self._counter.current())
        self._counter.stop()
        self._counter = None
        self._open = []

    @contextmanager
    def phase(self, name: str) -> Iterator[None]:
        """Record the peak while the ``with`` body runs, under ``name`` (not ``"total"``)."""
        if self._counter is None:
            raise RuntimeError("MemoryTracker.phase() needs the tracker entered: `with tracker:`")
        if name == TOTAL:
            raise ValueError(f"phase name {TOTAL!r} is reserved for the whole tracked block")
        self._fold()
        entry = [name, self._counter.current()]
        self._open.append(entry)
        try:
            yield
        finally:
            self._fold()
            self._open.remove(entry)
            self.report._record(name, entry[1], self._counter.current())


def track_memory(device: str | torch.device | None = None) -> MemoryTracker:
    """A context manager recording peak memory per named phase on ``device``.

    ``device=None`` means the current CUDA device if CUDA is available, else the CPU. Use it
    as ``with track_memory() as mem:`` and mark phases with ``with mem.phase("forward"):``;
    phases may nest. ``mem.report`` (a `MemoryReport`) holds ``peak bytes`` per phase plus
    ``"total"`` for the whole block; ``print(mem.report)`` shows a table in MiB.

    How it measures:

    * CUDA: the caching allocator's ``memory_allocated`` / ``max_memory_allocated``, with
      ``reset_peak_memory_stats`` at each phase boundary. Exact as the allocator counts (sizes
      rounded to its 512-byte blocks; cached-but-free memory not included). It resets the
      device's peak statistic, which other code reading it will notice.
    * Other devices (CPU): a `TorchDispatchMode` counts the bytes of every tensor storage an
      ATen op creates while the tracker is active, forward and backward (autograd carries the
      mode into backward) and activation recomputation included, and uncounts them when the
      storage is freed. It sees what tensors hold, not what the allocator does: scratch
      buffers an op allocates and frees inside its kernel, allocator overhead and memory freed
      that was allocated before the tracker began are not seen, so it can read slightly
      lower than the true peak of the allocator. Ops run under ``torch.compile`` or in other
      threads are not seen. It adds a little Python work to every op: fine for measuring a
      step or two, not for leaving on during training.
    """
    return MemoryTracker(device)


def memory_report(
    fn: Callable[..., Any], *args: Any, device: str | torch.device | None = None, **kwargs: Any
) -> MemoryReport:
    """Run ``fn(*args, **kwargs)`` once under `track_memory` and return its report.

    The report's one entry, ``"total"``, is the peak memory ``fn`` held above what was
    allocated before the call. ``fn``'s return value is discarded; it is dropped before the
    report is made, so `retained_bytes` shows what ``fn`` left allocated elsewhere.
    """
    with track_memory(device) as tracker:
        fn(*args, **kwargs)
    return tracker.report
