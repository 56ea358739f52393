"""The unit tier: fixtures for any unit test, and one intra-op thread for all of them."""

import os

import pytest
import torch
from tests.fixtures import random_data


@pytest.fixture(scope="package", autouse=True)
def _one_intra_op_thread():
    """One intra-op thread for the whole tier: every tensor here is tiny, and on a busy 2-core
    machine OpenMP's spinning threads make a run many times slower (tests/conftest.py puts the
    count back after each test; the tier gives it back when it ends)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


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
    return random_data(40, features=5)
