"""What only a GPU shows: every test here needs CUDA and is skipped cleanly without it.

Run them on a CUDA machine with ``.venv/bin/python -m pytest tests/gpu``."""

import pytest
import torch


def pytest_collection_modifyitems(config, items):
    if torch.cuda.is_available():
        return
    skip = pytest.mark.skip(reason="needs a CUDA device")
    for item in items:
        if "tests/gpu/" in str(item.fspath).replace("\\", "/"):
            item.add_marker(skip)
