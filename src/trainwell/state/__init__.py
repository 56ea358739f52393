"""What a run keeps and how it survives a crash: atomic files, checkpoints (verified,
retained, sharded), weights, RNG streams, preemption, export.
"""

from __future__ import annotations

from trainwell._lazy import lazy_exports

#: public name -> the module that defines it
_EXPORTS = {
    "WriteFailure": "atomic",
    "save_atomic": "atomic",
    "save_atomic_raw": "atomic",
    "write_atomic": "atomic",
    "write_json_atomic": "atomic",
    "write_text_atomic": "atomic",
    "new_file_mode": "atomic",
    "describe_write_failure": "atomic",
    "state_bytes": "atomic",
    "json_safe": "atomic",
    "fsync_dir": "atomic",
    "link_atomic": "atomic",
    "fsync_file": "atomic",
    "strip_ansi": "atomic",
    "one_line": "atomic",
    "Stateful": "rng",
    "seed_everything": "rng",
    "RNGState": "rng",
    "CheckpointWarning": "checkpoint",
    "trusting_checkpoints": "checkpoint",
    "load_checkpoint": "checkpoint",
    "safe_torch_load": "checkpoint",
    "verify": "checkpoint",
    "verify_if_manifest": "checkpoint",
    "sidecars_of": "checkpoint",
    "list_checkpoints": "checkpoint",
    "newest_good_checkpoint": "checkpoint",
    "best_good_checkpoint": "checkpoint",
    "find_checkpoint": "checkpoint",
    "NoCheckpoints": "checkpointer",
    "state_of": "checkpointer",
    "restore": "checkpointer",
    "SaveRecord": "checkpointer",
    "Checkpointer": "checkpointer",
    "unwrap_model": "weights",
    "LoadReport": "weights",
    "read_weights": "weights",
    "load_weights": "weights",
    "export_weights": "weights",
    "refuse_overwriting_checkpoint": "weights",
    "is_checkpoint_file": "weights",
    "shards_of": "sharded",
    "is_marker": "sharded",
    "Marker": "sharded",
    "sharded_state": "sharded",
    "weights_finite": "sharded",
    "save_shards": "sharded",
    "start_shards": "sharded",
    "verify_shards": "sharded",
    "remove_shards": "sharded",
    "load_shards": "sharded",
    "consolidated_model": "sharded",
    "Preemption": "preemption",
    "example_batch": "export",
    "export_program": "export",
    "export_onnx": "export",
    "AgreedCheckpoints": "agreed",
}

__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
