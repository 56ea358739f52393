"""Shared fixtures for the parts tests: small models and data, and global-state guards."""

import os

import pytest
import torch


@pytest.fixture
def restore_determinism():
    """Put back the global determinism flags that seed_everything(deterministic=True) changes."""
    saved = (
        torch.backends.cudnn.deterministic,
        torch.backends.cudnn.benchmark,
        torch.are_deterministic_algorithms_enabled(),
        torch.is_deterministic_algorithms_warn_only_enabled(),
        os.environ.get("CUBLAS_WORKSPACE_CONFIG"),
    )
    yield
    deterministic, benchmark, algos, warn_only, cublas = saved
    torch.backends.cudnn.deterministic = deterministic
    torch.backends.cudnn.benchmark = benchmark
    torch.use_deterministic_algorithms(algos, warn_only=warn_only)
    if cublas is None:
        os.environ.pop("CUBLAS_WORKSPACE_CONFIG", None)
    else:
        os.environ["CUBLAS_WORKSPACE_CONFIG"] = cublas


@pytest.fixture
def classification_data():
    """40 samples, 5 features, 3 classes."""
    g = torch.Generator().manual_seed(0)
    x = torch.randn(40, 5, generator=g)
    y = torch.randint(0, 3, (40,), generator=g)
    return x, y
