"""What a run keeps and how it survives a crash: atomic files, checkpoints (verified,
retained, sharded), weights, RNG streams, preemption, export.
"""

from __future__ import annotations

from trainwell._lazy import lazy_exports

#: public name -> the module that defines it
_EXPORTS = {
    "Checkpointer": "checkpointer",
    "NoCheckpoints": "checkpointer",
    "AgreedCheckpoints": "agreed",
    "load_checkpoint": "checkpoint",
    "verify": "checkpoint",
    "find_checkpoint": "checkpoint",
    "newest_good_checkpoint": "checkpoint",
    "best_good_checkpoint": "checkpoint",
    "trusting_checkpoints": "trust",
    "state_of": "checkpointer",
    "restore": "checkpointer",
    "load_weights": "weights",
    "export_weights": "weights",
    "read_weights": "weights",
    "unwrap_model": "weights",
    "save_atomic": "atomic",
    "write_text_atomic": "atomic",
    "Stateful": "rng",
    "RNGState": "rng",
    "seed_everything": "rng",
    "Preemption": "preemption",
}

__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
