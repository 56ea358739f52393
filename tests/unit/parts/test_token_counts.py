"""A batch that carries ``num_tokens`` is weighted by it with or without ``train.weight_by``:
validation, tw.evaluate and the accumulation windows of training all give the exact token mean."""

import pytest
import torch
from tests.fixtures import quiet_config
from torch import nn
from torch.nn import functional as F

import trainwell as tw
from trainwell.parts.accumulation import Accumulation
from trainwell.parts.losses import loss_count

LENGTHS = [[1, 9, 2], [12, 3], [4, 6, 5, 5], [11], [2, 2, 7, 1, 3]]  # unequal tokens per batch


def token_ce(output, target):
    """A token mean that declares no ignore_index: only the batch's count can weight it."""
    return F.cross_entropy(output.flatten(0, 1), target.flatten())


class Batches:
    """Re-iterable padded dict batches (``x``, ``labels`` padded with -100, ``num_tokens``)."""

    def __init__(self, seed=0):
        g = torch.Generator().manual_seed(seed)
        self.batches = []
        for lengths in LENGTHS:
            labels = torch.full((len(lengths), 12), -100)
            for row, n in enumerate(lengths):
                labels[row, :n] = torch.randint(0, 3, (n,), generator=g)
            x = torch.randn(len(lengths), 12, 4, generator=g)
            num_tokens = (labels != -100).sum()
            self.batches.append({"x": x, "labels": labels, "num_tokens": num_tokens})

    def __iter__(self):
        return iter(self.batches)

    def __len__(self):
        return len(self.batches)

    def one_shot_loss(self, model):
        with torch.no_grad():
            outputs = torch.cat([model(b["x"]).flatten(0, 1) for b in self.batches])
        labels = torch.cat([b["labels"].flatten() for b in self.batches])
        return F.cross_entropy(outputs, labels).item()


def _model():
    torch.manual_seed(0)
    return nn.Linear(4, 3)


def test_evaluate_weights_by_num_tokens_without_weight_by():
    model, data = _model(), Batches()
    values = tw.evaluate(model, data, loss=token_ce, device="cpu")
    assert values["loss"] == pytest.approx(data.one_shot_loss(model), abs=1e-6)


def test_fit_validation_loss_is_the_token_mean_without_weight_by():
    model, data = _model(), Batches()
    cfg = quiet_config(max_epochs=1, run={"device": "cpu"})
    result = tw.fit(model, Batches(seed=1), data, loss=token_ce, config=cfg)
    assert result.final["val_loss"] == pytest.approx(data.one_shot_loss(model), abs=1e-6)


def test_loss_count_reads_num_tokens_without_a_key():
    batch = Batches().batches[0]
    assert int(loss_count(token_ce, batch["labels"], batch)) == 12
    assert loss_count(token_ce, batch["labels"], {"x": batch["x"]}) == 3  # samples


def test_accumulation_weights_by_num_tokens_without_a_count():
    window = next(Accumulation(steps=3).windows(Batches().batches))
    weights = [float(m.weight) for m in window]
    assert weights == pytest.approx([12 / 47, 15 / 47, 20 / 47])  # real tokens per batch
