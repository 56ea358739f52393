"""Where the corpora's scripts are kept: the corpus store, outside the repository.

Kept apart from ``score.py`` so that tools that must not import the doctor (the labellers'
repeat check, ``gather/simfile.py``) can find the store too.
"""

from __future__ import annotations

import os
from pathlib import Path

STORE_VARIABLE = "TW_DOCTOR_CORPORA"


def store_root() -> Path:
    """The corpus store: ``$TW_DOCTOR_CORPORA``, else ``~/.cache/trainwell/doctor-corpora``."""
    configured = os.environ.get(STORE_VARIABLE)
    if configured:
        return Path(configured).expanduser()
    return Path.home() / ".cache" / "trainwell" / "doctor-corpora"
