"""Sharded data parallel: FSDP2 (``torch.distributed.fsdp.fully_shard``) as a strategy.

Each rank keeps 1/N of every parameter, gradient and optimizer state; a block's parameters
are all-gathered just before its forward (and its backward) and freed after, and gradients
are reduce-scattered. What one process and DDP do the same way (batches, the loss average,
stop votes, buffers) `FSDP` inherits from `trainwell.strategy.ddp.DDP`.

* **Blocks.** ``run.fsdp_blocks`` (``auto``: the model's block list, ``blocks``/``layers``/
  ``h``/... as `trainwell.parts.memory.checkpoint_blocks` finds it, or else its top-level children
  that hold parameters; or dotted paths) are each one ``fully_shard`` unit, then the root.
  Activation checkpointing (``train.checkpoint_blocks``) works on the same blocks.
* **Precision.** ``train.precision`` bf16/fp16 becomes a ``MixedPrecisionPolicy``: blocks
  compute in that dtype, gradients are reduced in fp32; autocast still runs around the
  forward (fp32 where autocast keeps fp32). fp16's GradScaler works on the sharded gradients
  as is (its inf check is reduced over the ranks by DTensor).
* **Accumulation.** Gradients are reduce-scattered only after the last micro-batch of a
  window (``set_requires_gradient_sync``).
* **Clipping.** `trainwell.Clipping` computes each gradient's norm over its shards (local
  norms, one all-reduce): the same global norm as one process, on every rank.
* **Checkpoints.** Sharded by default (``checkpoint.sharded``): every rank writes its own
  shards with ``torch.distributed.checkpoint`` (`trainwell.state.sharded`), resharded on load to
  any number of ranks or one plain process. With ``checkpoint.sharded=false``, full state
  dicts (``get_model_state_dict``/``get_optimizer_state_dict`` with ``full_state_dict=True``):
  every rank takes part in gathering, rank 0 writes the same file a single process writes
  (same keys; the optimizer state in torch's own indexed form); loading gives every rank the
  whole file and each keeps its shard. The cost: rank 0 holds the full state in CPU memory.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

import torch
from torch import nn

from trainwell.errors import ConfigError
from trainwell.parts.memory import chosen_blocks
from trainwell.parts.precision import resolve_precision
from trainwell.strategy.base import BaseStrategy
from trainwell.strategy.ddp import DDP

if TYPE_CHECKING:
    from torch.distributed.device_mesh import DeviceMesh

_MIXED_DTYPES = {"bf16": torch.bfloat16, "fp16": torch.float16}


class FSDP(DDP):
    """FSDP2 over the default process group (see the module docstring)."""

    def __init__(
        self,
        device: str | torch.device | None = None,
        *,
        blocks: str = "auto",
        reshard_after_forward: bool = True,
        precision: str = "fp32",
        sharded_checkpoints: bool = True,
        channels_last: bool = False,
    ) -> None:
        super().__init__(device, channels_last=channels_last)
        self.sharded_checkpoints = sharded_checkpoints  # checkpoint.sharded
        self.blocks = blocks
        self.reshard_after_forward = reshard_after_forward
        self.precision = precision
        self.sharded: list[str] = []  # the paths of the fully_shard units, root last

    def prepare(self, model: nn.Module) -> nn.Module:
        """Move ``model`` to this rank's device and shard it in place, block by block, then
        the root; returns the model itself (FSDP2 keeps the class and the parameter names)."""
        from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard

        model = BaseStrategy.prepare(self, model)  # on the device, not wrapped
        mode = resolve_precision(self.precision, self.device)
        policy = MixedPrecisionPolicy(
            param_dtype=_MIXED_DTYPES.get(mode), reduce_dtype=torch.float32
        )
        options = {
            "mesh": self.mesh(),
            "reshard_after_forward": self.reshard_after_forward,
            "mp_policy": policy,
        }
        for path, block in shard_units(model, self.blocks):
            fully_shard(block, **options)
            self.sharded.append(path)
        fully_shard(model, **options)
        self.sharded.append("")
        return model

    def mesh(self) -> DeviceMesh:
        """All ranks, on this run's device type. fully_shard's own default mesh is CUDA's
        whenever CUDA is available, which would move a ``run.device=cpu`` model's shards to
        the GPU while its batches stay on the CPU."""
        from torch.distributed.device_mesh import init_device_mesh

        return init_device_mesh(self.device.type, (self.world_size,))

    def sync_gradients(self, parameters: list[torch.Tensor]) -> None:
        """Nothing: every sharded module reduce-scatters its gradients in its own backward,
        whatever called it."""

    @contextlib.contextmanager
    def no_sync(self, model: nn.Module, last: bool) -> Iterator[None]:
        """No reduce-scatter on the micro-batches before the last of a window."""
        if last or not hasattr(model, "set_requires_gradient_sync"):
            yield
            return
        model.set_requires_gradient_sync(False)
        try:
            yield
        finally:
            model.set_requires_gradient_sync(True)

    def model_state(self, model: nn.Module) -> dict[str, Any]:
        """The full model state on rank 0 (on CPU), ``{}`` on the others; a collective."""
        from torch.distributed.checkpoint.state_dict import get_model_state_dict

        return get_model_state_dict(model, options=_full(cpu_offload=True))

    def load_model_state(self, model: nn.Module, state: dict[str, Any]) -> None:
        """Load a full state every rank holds; each rank keeps its shard."""
        from torch.distributed.checkpoint.state_dict import set_model_state_dict

        set_model_state_dict(model, state, options=_full())

    def optimizer_state(self, model: nn.Module, optimizer: torch.optim.Optimizer) -> dict[str, Any]:
        """The full optimizer state on rank 0 in torch's indexed form (what
        ``optimizer.state_dict()`` gives in one process), ``{}`` on the others; a collective."""
        from torch.distributed.checkpoint.state_dict import get_optimizer_state_dict

        state = get_optimizer_state_dict(model, optimizer, options=_full(cpu_offload=True))
        return indexed_optimizer_state(state) if state else {}

    def load_optimizer_state(
        self, model: nn.Module, optimizer: torch.optim.Optimizer, state: dict[str, Any]
    ) -> None:
        from torch.distributed.checkpoint.state_dict import set_optimizer_state_dict

        named = named_optimizer_state(state, model, optimizer)
        set_optimizer_state_dict(model, optimizer, named, options=_full())

    def checkpoint_parts(self, parts: Mapping[str, Any], model: nn.Module) -> dict[str, Any]:
        """``parts`` with every rank's RNG streams; with full-state checkpoints
        (``checkpoint.sharded=false``) the model and its optimizers replaced by stand-ins whose
        ``state_dict``/``load_state_dict`` gather and shard full states (collectives). Sharded
        checkpoints save those parts as shards (`trainwell.state.sharded`, `AgreedCheckpoints`)."""
        parts = super().checkpoint_parts(dict(parts), model)  # every rank's RNG streams
        if self.sharded_checkpoints:
            return parts
        return {
            name: _FullState(self, model, part) if is_model_or_optimizer(part, model) else part
            for name, part in parts.items()
        }


def is_model_or_optimizer(part: Any, model: nn.Module) -> bool:
    return part is model or isinstance(part, torch.optim.Optimizer)


class _FullState:
    """A sharded model or optimizer as the checkpoint sees it: full state dicts."""

    def __init__(self, strategy: FSDP, model: nn.Module, part: Any) -> None:
        self.strategy, self.model, self.part = strategy, model, part

    def state_dict(self) -> dict[str, Any]:
        if self.part is self.model:
            return self.strategy.model_state(self.model)
        return self.strategy.optimizer_state(self.model, self.part)

    def load_state_dict(self, state: dict[str, Any]) -> None:
        if self.part is self.model:
            self.strategy.load_model_state(self.model, state)
        else:
            self.strategy.load_optimizer_state(self.model, self.part, state)


def _full(*, cpu_offload: bool = False) -> Any:
    from torch.distributed.checkpoint.state_dict import StateDictOptions

    return StateDictOptions(full_state_dict=True, cpu_offload=cpu_offload)


def shard_units(model: nn.Module, blocks: str) -> list[tuple[str, nn.Module]]:
    """The modules each made one ``fully_shard`` unit below the root (``run.fsdp_blocks``):
    ``auto`` is the model's block list, or else its top-level children holding parameters."""
    if blocks != "auto":
        return chosen_blocks(model, blocks, key="run.fsdp_blocks")
    try:
        return chosen_blocks(model, "auto", key="run.fsdp_blocks")
    except ConfigError:  # no block list: the top-level children that hold parameters
        return [
            (name, child)
            for name, child in model.named_children()
            if any(True for _ in child.parameters())
        ]


def indexed_optimizer_state(state: Mapping[str, Any]) -> dict[str, Any]:
    """A full optimizer state keyed by parameter names (``get_optimizer_state_dict``) in
    torch's indexed form: parameters numbered in the order of the param groups."""
    index: dict[str, int] = {}
    groups = []
    for group in state["param_groups"]:
        numbers = [index.setdefault(name, len(index)) for name in group["params"]]
        groups.append({**group, "params": numbers})
    per_param = {index[name]: value for name, value in state["state"].items()}
    return {"state": per_param, "param_groups": groups}


def named_optimizer_state(
    state: Mapping[str, Any], model: nn.Module, optimizer: torch.optim.Optimizer
) -> dict[str, Any]:
    """The inverse of `indexed_optimizer_state` for ``optimizer``'s parameters in ``model``."""
    names = {id(p): name for name, p in model.named_parameters(remove_duplicate=False)}
    order = [names[id(p)] for group in optimizer.param_groups for p in group["params"]]
    groups = state["param_groups"]
    if len(groups) != len(optimizer.param_groups) or sum(len(g["params"]) for g in groups) != len(
        order
    ):
        raise ConfigError(
            "the checkpoint's optimizer state has a different set of parameters or param "
            f"groups ({len(groups)} groups) than this optimizer "
            f"({len(optimizer.param_groups)} groups); it was saved by a different setup"
        )
    named_groups = [{**g, "params": [order[i] for i in g["params"]]} for g in groups]
    return {"state": {order[i]: v for i, v in state["state"].items()}, "param_groups": named_groups}
