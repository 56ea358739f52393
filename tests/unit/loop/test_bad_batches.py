"""Batches that cannot train give one line saying what to change, not a traceback: a batch of
1 sample into BatchNorm, and an allocation that does not fit in memory (CPU run)."""

import pytest
import torch
from torch import nn

import trainwell as tw
from trainwell.parts.memory_limit import out_of_memory


def bn_model():
    return nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Linear(8, 2))


def config(**data):
    return {"run": {"quiet": True, "device": "cpu"}, "train": {"max_epochs": 1},
            "data": {"batch_size": 4, "shuffle": False, **data}}  # fmt: skip


def test_a_last_batch_of_one_into_batchnorm_names_drop_last():
    x, y = torch.randn(9, 4), torch.randint(0, 2, (9,))  # 4 + 4 + 1
    with pytest.raises(tw.ShapeError, match=r"batch of 1 sample .*data\.drop_last=true"):
        tw.fit(bn_model(), (x, y), config=config())
    result = tw.fit(bn_model(), (x, y), config=config(drop_last=True))  # the fix it names
    assert result.steps == 2


class Greedy(nn.Module):
    """Asks the allocator for more than any machine has, as a too-large batch would."""

    def __init__(self):
        super().__init__()
        self.layer = nn.Linear(4, 2)

    def forward(self, x):
        torch.empty(1 << 62, dtype=torch.uint8)  # 4 EiB
        return self.layer(x)


@pytest.mark.skipif(torch.cuda.is_available(), reason="means the CPU allocator")
def test_an_allocation_failure_is_one_line_naming_what_to_lower():
    x, y = torch.randn(8, 4), torch.randint(0, 2, (8,))
    with pytest.raises(tw.MemoryLimitError) as caught:
        tw.fit(Greedy(), (x, y), config=config())
    message = str(caught.value)
    assert message.startswith("out of RAM: an allocation of 4294967296.0 GiB failed with ")
    assert "GiB free" in message and "data.batch_size (now 4)" in message
    assert "\n" not in message


def test_a_cuda_out_of_memory_text_gives_its_sizes():
    class OutOfMemoryError(RuntimeError):  # torch.OutOfMemoryError's name and text
        pass

    exc = OutOfMemoryError(
        "CUDA out of memory. Tried to allocate 8.00 GiB. GPU 0 has a total capacity of 79.1 "
        "GiB of which 1.20 GiB is free. Of the allocated memory 70 GiB is allocated by PyTorch"
    )
    error = out_of_memory(exc, torch.device("cuda", 0), 512)
    assert str(error).startswith(
        "out of CUDA memory: an allocation of 8.00 GiB failed with 1.20 GiB free; lower "
        "data.batch_size (now 512)"
    )
    assert out_of_memory(RuntimeError("mat1 and mat2 shapes"), torch.device("cpu"), 4) is None
