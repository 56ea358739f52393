"""The strategy seam: what differs between one process and many (single device, DDP,
FSDP2), the process group and the launcher, and the registry that names them.
"""

from __future__ import annotations

from trainwell._lazy import lazy_exports

#: public name -> the module that defines it
_EXPORTS = {
    "Strategy": "base",
    "BaseStrategy": "base",
    "SingleDevice": "single",
    "DDP": "ddp",
    "FSDP": "fsdp",
    "register_strategy": "registry",
    "choose_strategy": "registry",
    "StrategyOptions": "registry",
    "process_group": "process",
    "launch_local": "process",
}

__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
