"""The config tree: frozen dataclass sections, loading from YAML/TOML with ``--set``
overrides, checks that name the key and the fix, and the generated reference.
"""

from __future__ import annotations

from trainwell._lazy import lazy_exports

#: public name -> the module that defines it
_EXPORTS = {
    "Config": "sections",
    "RunConfig": "sections",
    "DataConfig": "sections",
    "TrainConfig": "sections",
    "OptimConfig": "sections",
    "ScheduleConfig": "sections",
    "MonitorConfig": "sections",
    "EarlyStopConfig": "sections",
    "CheckpointConfig": "sections",
    "ProfileConfig": "sections",
    "LogConfig": "sections",
    "GuardsConfig": "guards",
    "CompileSettings": "compile",
    "build_config": "tree",
    "load_config": "tree",
    "read_config_file": "tree",
    "config_yaml": "tree",
    "config_help": "tree",
    "field_help": "tree",
    "validate_config": "checks",
    "option": "fields",
}

__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
