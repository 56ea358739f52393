import pytest
import torch


@pytest.fixture(autouse=True)
def _restore_torch_globals():
    """Tests that flip global torch switches must not leak them into other tests."""
    deterministic = torch.are_deterministic_algorithms_enabled()
    threads = torch.get_num_threads()
    yield
    torch.use_deterministic_algorithms(deterministic)
    torch.set_num_threads(threads)
