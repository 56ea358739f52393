"""Thresholded metrics read probabilities (BCELoss) at 0.5 and logits at 0, following the loss
unless told, in fit() and tw.evaluate alike; a logit threshold on [0, 1] outputs is warned."""

import warnings

import pytest
import torch
from sklearn.metrics import f1_score
from tests.fixtures import quiet_config
from torch import nn

import trainwell as tw
from trainwell.parts.metric import F1, Accuracy, ConfusionMatrix, ProbabilityOutputsWarning


def _binary(n=400, seed=0):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, 4, generator=g)
    y = (x[:, 0] + 0.5 * x[:, 1] > 0).float().unsqueeze(1)
    return x, y


def _sigmoid_model(seed=0):
    torch.manual_seed(seed)
    return nn.Sequential(nn.Linear(4, 1), nn.Sigmoid())


def test_fit_with_bce_on_probabilities_measures_the_true_accuracy_and_f1():
    x, y = _binary()
    xv, yv = _binary(200, seed=1)
    model = _sigmoid_model()
    cfg = quiet_config(max_epochs=15, lr=0.5, run={"device": "cpu"})
    result = tw.fit(model, (x, y), (xv, yv), loss=nn.BCELoss(), metrics=["accuracy", "f1"],
                    config=cfg)  # fmt: skip
    with torch.no_grad():
        predicted = (model(xv) > 0.5).float()
    true_accuracy = (predicted == yv).double().mean().item()
    assert true_accuracy > 0.9
    assert result.final["val_accuracy"] == pytest.approx(true_accuracy)
    assert result.final["val_f1"] == pytest.approx(f1_score(yv.ravel(), predicted.ravel()))
    direct = tw.evaluate(model, (xv, yv), loss=nn.BCELoss(), metrics=["accuracy", "f1"],
                         device="cpu")  # fmt: skip
    assert direct["accuracy"] == pytest.approx(result.final["val_accuracy"])
    assert direct["f1"] == pytest.approx(result.final["val_f1"])


@pytest.mark.parametrize(
    "loss", [nn.BCEWithLogitsLoss(), nn.functional.binary_cross_entropy_with_logits]
)
def test_logit_losses_keep_the_threshold_at_zero(loss):
    logits = torch.tensor([[-2.0], [-0.3], [0.2], [3.0]])
    targets = torch.tensor([[0.0], [0.0], [1.0], [1.0]])
    index = torch.arange(4)
    model = _Fixed(logits)
    values = tw.evaluate(model, (index, targets), loss=loss, metrics=["accuracy"], device="cpu")
    assert values["accuracy"] == 1.0


class _Fixed(nn.Module):
    def __init__(self, outputs):
        super().__init__()
        self.outputs = nn.Parameter(outputs, requires_grad=False)

    def forward(self, index):
        return self.outputs[index]


PROBABILITIES = torch.tensor([0.1, 0.4, 0.6, 0.9, 0.3])
TARGETS = torch.tensor([0, 0, 1, 1, 1])


@pytest.mark.parametrize(
    ("metric", "expected"),
    [
        (Accuracy(outputs="probabilities"), 0.8),
        (Accuracy(threshold=0.5), 0.8),
        (Accuracy(threshold=0.25, outputs="logits"), 0.8),  # the explicit threshold wins
        (F1(outputs="probabilities"), 0.8),
    ],
)
def test_an_explicit_argument_sets_the_threshold(metric, expected):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert float(metric(PROBABILITIES, TARGETS)) == pytest.approx(expected)


def test_an_explicit_argument_wins_over_the_loss():
    metric = Accuracy(outputs="logits")
    metric.follow_loss(nn.BCELoss())
    assert metric.binary_threshold == 0.0
    follows = ConfusionMatrix()
    follows.follow_loss(nn.BCELoss())
    assert follows.binary_threshold == 0.5
    follows.follow_loss(nn.CrossEntropyLoss())
    assert follows.binary_threshold == 0.0


def test_a_logit_threshold_on_probabilities_warns_once_naming_the_fix():
    metric = F1()
    with pytest.warns(ProbabilityOutputsWarning, match="outputs='probabilities'") as caught:
        metric(PROBABILITIES, TARGETS)
    assert len(caught) == 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        metric(PROBABILITIES, TARGETS)  # once


def test_logits_outside_the_unit_interval_do_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert float(Accuracy()(torch.tensor([-1.0, 2.0]), torch.tensor([0, 1]))) == 1.0


def test_unknown_outputs_kind_is_one_clear_error():
    with pytest.raises(tw.ConfigError, match="'logits'.*'probabilities'"):
        Accuracy(outputs="probs")
