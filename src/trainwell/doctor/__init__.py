"""trainwell doctor: find silent bugs in PyTorch training scripts before they run.

Static analysis of a script's syntax tree (nothing is imported or executed, and torch is
not needed). Precision first: when the code is not understood, nothing is reported.

>>> from trainwell.doctor import check_source
>>> [f.code for f in check_source("import torch\\nsd = torch.load('x.pt', weights_only=False)")]
['TW015']
"""

from .config import UsageError
from .engine import Finding, check_paths, check_source
from .rules import RULES, Rule

__all__ = ["Finding", "RULES", "Rule", "UsageError", "check_paths", "check_source"]
