"""The strategy seam: what differs between one process and many (single device, DDP,
FSDP2), the process group and the launcher, and the registry that names them.
"""

from __future__ import annotations

from trainwell._lazy import lazy_exports

#: public name -> the module that defines it
_EXPORTS = {
    "Strategy": "base",
    "SingleDevice": "single",
    "RanksRNG": "ddp",
    "unwrap": "ddp",
    "is_model_or_optimizer": "fsdp",
    "shard_units": "fsdp",
    "indexed_optimizer_state": "fsdp",
    "named_optimizer_state": "fsdp",
    "launched": "process",
    "env_rank": "process",
    "init_from_env": "process",
    "process_group": "process",
    "end_process_group": "process",
    "launch_local": "process",
    "restart_count": "process",
    "broadcast_object": "process",
    "fits_one_device": "process",
    "device_memory": "process",
    "choose_strategy": "registry",
}

__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
