"""Layer-wise LR decay counts only modules that own parameters as layers: a ReLU or pooling
between two layers takes no number, so neighbouring layers are one decay apart."""

import pytest
import torch
from torch import nn

import trainwell as tw
from trainwell.parts.optim import layer_index_fn


def _lrs(model: nn.Module, decay: float = 0.5) -> dict[str, float]:
    groups = tw.param_groups(model, weight_decay=0.0, lr=1.0, layer_decay=decay)
    names = {id(p): n for n, p in model.named_parameters()}
    return {names[id(p)]: g["lr"] for g in groups for p in g["params"]}


def test_a_sequential_of_plain_layers_numbers_only_the_layers_with_parameters():
    model = nn.Sequential(
        nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 8), nn.ReLU(), nn.Dropout(0.1), nn.Linear(8, 2)
    )
    depth = layer_index_fn(model)
    assert [depth(f"{i}.weight") for i in (0, 2, 5)] == [1, 2, 3]
    lrs = _lrs(model)
    assert lrs["5.weight"] == pytest.approx(1.0)  # the head: peak LR
    assert lrs["2.weight"] == pytest.approx(0.5)  # one layer below it, not two
    assert lrs["0.weight"] == pytest.approx(0.25)


class Stages(nn.Module):
    """Blocks with pooling between them: the pools are no stage."""

    def __init__(self) -> None:
        super().__init__()
        block = lambda: nn.Sequential(nn.Conv2d(3, 3, 1), nn.BatchNorm2d(3))  # noqa: E731
        self.stages = nn.Sequential(block(), nn.MaxPool2d(2), block(), nn.MaxPool2d(2), block())
        self.head = nn.Linear(3, 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.stages(x).mean((2, 3)))


def test_pooling_between_blocks_takes_no_layer_and_the_head_is_one_above_the_last_block():
    depth = layer_index_fn(Stages(), "stages")
    assert [depth(f"stages.{i}.0.weight") for i in (0, 2, 4)] == [1, 2, 3]
    assert depth("head.weight") == 4


def test_a_model_without_stacks_numbers_its_children_that_have_parameters():
    class Flat(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.first = nn.Linear(4, 4)
            self.act = nn.ReLU()
            self.second = nn.Linear(4, 4)

    depth = layer_index_fn(Flat())
    assert depth("first.weight") == 0 and depth("second.weight") == 1
