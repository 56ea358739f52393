"""trainwell doctor: find silent bugs in PyTorch training scripts before they run.

Static analysis of a script's syntax tree (nothing is imported or executed, and torch is
not needed). Precision first: when the code is not understood, nothing is reported.

>>> from trainwell.doctor import check_source
>>> [f.code for f in check_source("import torch\\nsd = torch.load('x.pt', weights_only=False)")]
['TW015']
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from trainwell._lazy import lazy_exports

# Names are imported on first use (as in ``trainwell/__init__.py``), so importing one
# submodule, e.g. ``trainwell.doctor.analysis``, does not pull in the engine and the rules.
_EXPORTS = {
    "CheckResult": "engine",
    "Finding": "engine",
    "RULES": "rules",
    "Rule": "rules",
    "UsageError": "config",
    "check_files": "engine",
    "check_paths": "engine",
    "check_source": "engine",
}

__all__ = [
    "CheckResult",
    "Finding",
    "RULES",
    "Rule",
    "UsageError",
    "check_files",
    "check_paths",
    "check_source",
]


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())


if TYPE_CHECKING:  # static analysers and IDEs see the real names
    from .config import UsageError
    from .engine import CheckResult, Finding, check_files, check_paths, check_source
    from .rules import RULES, Rule
