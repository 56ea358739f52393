"""Variable-length samples: ``fit(collate_fn=...)`` batches them; without one, the stack that
fails is one DataError naming the shapes and the fix, not torch.stack's traceback."""

import pytest
import torch
from torch import nn
from torch.utils.data import Dataset

import trainwell as tw


class Sequences(Dataset):
    """Sample i: a sequence of length 3 + i % 4 and its label."""

    def __len__(self):
        return 32

    def __getitem__(self, i):
        g = torch.Generator().manual_seed(i)
        x = torch.randn(3 + i % 4, generator=g) + (i % 2)
        return x, torch.tensor(i % 2)


def pad(samples):
    xs, ys = zip(*samples)
    return nn.utils.rnn.pad_sequence(list(xs), batch_first=True), torch.stack(ys)


class MeanPool(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = nn.Linear(1, 2)

    def forward(self, x):
        return self.head(x.mean(dim=1, keepdim=True))


def config():
    return {"run": {"quiet": True, "device": "cpu"}, "train": {"max_epochs": 2},
            "data": {"batch_size": 8}}  # fmt: skip


def test_fit_batches_variable_length_samples_with_the_collate_given():
    seen = []

    def counting_pad(samples):
        seen.append(len(samples))
        return pad(samples)

    result = tw.fit(MeanPool(), Sequences(), Sequences(), collate_fn=counting_pad,
                    config=config())  # fmt: skip
    assert result.steps == 2 * 32 // 8
    assert sum(seen) >= 2 * 32 + 32  # training epochs and validation all went through it


def test_without_a_collate_the_stack_failure_names_the_shapes_and_the_fix():
    with pytest.raises(
        tw.DataError, match=r"differ in shape \(\(\[3\], \[\]\) vs \(\[4\], \[\]\) vs .*collate_fn="
    ):
        tw.fit(MeanPool(), Sequences(), config={**config(), "data": {"shuffle": False}})
