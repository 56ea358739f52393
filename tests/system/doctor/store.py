"""The corpus store seen from the tests: a corpus whose scripts are not on this machine is
skipped, with the reason and the fix (its scripts are third-party code, kept outside the
repository; ``real/score.py`` says where it looks)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

SCORE = Path(__file__).resolve().parent / "real" / "score.py"
sys.path.insert(0, str(SCORE.parent))
import score  # noqa: E402  (the scorer is a script beside the corpora, not a package)


def skip_unless_stored(name: str) -> None:
    """Skip the calling test when the store holds none of corpus ``name``'s scripts. A store
    that holds only some of them is not skipped: the test then fails on the missing ones."""
    corpus = score.corpus_dir(name)
    manifest = json.loads((corpus / "manifest.json").read_text(encoding="utf-8"))
    if score.store_lacks(manifest, corpus):
        pytest.skip(score.absent_reason(corpus))
