"""One reading of model outputs: tensors, tuples, dicts, dataclasses and HF-style objects mean the
same to the loss, metrics, guards and predict; a model that takes ``labels`` gets them and its
own loss is what trains and validates."""

from collections import OrderedDict
from dataclasses import dataclass

import pytest
import torch
from tests.fixtures import blobs, quiet_config
from torch import nn
from torch.nn import functional as F

import trainwell as tw
from trainwell.guards import GuardWarning, watch
from trainwell.parts.outputs import logits_of, model_loss_of, tensors_in

LOGITS, LOSS = torch.ones(2, 3), torch.tensor(0.5)


@dataclass
class Out:
    logits: torch.Tensor
    features: torch.Tensor


@dataclass
class Features:
    embedding: torch.Tensor
    norm: torch.Tensor


class HFStyle:
    """An object with ``logits`` and ``loss`` attributes (HF's ``ModelOutput`` by attribute);
    ``loss`` is None when the model computed none."""

    def __init__(self, logits, loss=None):
        self.logits, self.loss = logits, loss


class ModelOutputLike(OrderedDict):
    """HF's ``ModelOutput``: a dict whose absent entries (None) are left out."""


@pytest.mark.parametrize(
    ("output", "loss"),
    [
        (LOGITS, None),
        ((LOGITS, torch.zeros(2)), None),
        ({"logits": LOGITS, "loss": LOSS}, LOSS),
        (Out(LOGITS, torch.zeros(2, 5)), None),
        (Features(LOGITS, torch.zeros(2)), None),  # a dataclass without logits: its first tensor
        (HFStyle(LOGITS, LOSS), LOSS),
        (HFStyle(LOGITS), None),
        (ModelOutputLike(logits=LOGITS, loss=LOSS), LOSS),
    ],
)
def test_every_output_form_has_one_prediction_and_maybe_its_own_loss(output, loss):
    assert logits_of(output) is LOGITS
    assert model_loss_of(output) is loss
    assert any(t is LOGITS for t in tensors_in(output))


def test_an_output_without_a_prediction_is_a_clear_error():
    with pytest.raises(tw.DataError, match="'logits'"):
        logits_of({"scores": LOGITS})


class DataclassNet(nn.Module):
    def __init__(self, dropout=0.0):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Dropout(dropout))
        self.head = nn.Linear(16, 3)

    def forward(self, x):
        h = self.body(x)
        return Out(self.head(h), h)


class HFStyleNet(DataclassNet):
    def forward(self, x):
        return HFStyle(self.head(self.body(x)))


@pytest.mark.parametrize("model_cls", [DataclassNet, HFStyleNet])
def test_fit_finds_nothing_wrong_with_its_own_loop_whatever_the_output(model_cls):
    torch.manual_seed(0)
    config = quiet_config(guards={"on_finding": "raise", "every": 1})
    result = tw.fit(model_cls(), blobs(), blobs(seed=1), metrics=["accuracy"], config=config)
    assert result.findings == []
    assert result.final["val_accuracy"] > 0.5


@pytest.mark.parametrize("model_cls", [DataclassNet, HFStyleNet])
def test_watch_finds_a_loop_left_in_eval_mode_whatever_the_output(model_cls):
    torch.manual_seed(0)
    model = model_cls(dropout=0.2)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    x, y = blobs()
    model.eval()  # planted: never switched back to train()
    planted = pytest.warns(GuardWarning, match=r"\[eval-mode-training\]")
    with planted, watch(model, optimizer, every=1) as guards:
        for i in range(0, 96, 16):
            optimizer.zero_grad()
            F.cross_entropy(logits_of(model(x[i : i + 16])), y[i : i + 16]).backward()
            optimizer.step()
    assert [f.code for f in guards.findings] == ["eval-mode-training"]


CLASS_WEIGHTS = torch.tensor([1.0, 4.0, 0.25])


class OwnLossNet(nn.Module):
    """Takes ``labels`` and computes its own class-weighted loss, as an HF model does."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.net = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 3))
        self.given_labels = 0

    def forward(self, x, labels=None):
        logits = self.net(x)
        if labels is None:
            return HFStyle(logits)
        self.given_labels += 1
        return HFStyle(logits, F.cross_entropy(logits, labels, weight=CLASS_WEIGHTS.to(x.device)))


def test_a_model_that_takes_labels_trains_and_validates_on_its_own_loss():
    (x, y), (xv, yv) = blobs(), blobs(n=60, seed=1)
    model = OwnLossNet()
    config = quiet_config(data={"batch_size": 32}, monitor={"restore_best": False})
    result = tw.fit(model, (x, y), (xv, yv), config=config)
    assert model.given_labels > 0
    device = next(model.parameters()).device  # fit() moved it: run.device=auto
    with torch.no_grad():
        logits = model.net(xv.to(device)).cpu()
        weighted = F.cross_entropy(logits, yv, weight=CLASS_WEIGHTS)
        plain = F.cross_entropy(logits, yv)
    # the validation set is one batch: its mean is the model's own (class-weighted) loss
    assert result.final["val_loss"] == pytest.approx(float(weighted), rel=1e-5)
    assert float(weighted) != pytest.approx(float(plain), rel=1e-3)


def test_with_a_loss_of_yours_the_model_gets_no_labels_and_your_loss_counts():
    (x, y), (xv, yv) = blobs(), blobs(n=60, seed=1)
    model = OwnLossNet()
    config = quiet_config(data={"batch_size": 32}, monitor={"restore_best": False})
    result = tw.fit(model, (x, y), (xv, yv), loss=nn.CrossEntropyLoss(), config=config)
    assert model.given_labels == 0
    plain = tw.evaluate(model, (xv, yv), loss=nn.CrossEntropyLoss())["loss"]
    assert result.final["val_loss"] == pytest.approx(plain, rel=1e-5)


def test_predict_and_evaluate_read_a_dataclass_output():
    torch.manual_seed(0)
    model = DataclassNet()
    x, y = blobs(n=40)
    with torch.no_grad():
        expected = model.eval()(x).logits
    torch.testing.assert_close(tw.predict(model, x), expected)
    assert tw.evaluate(model, (x, y))["loss"] == pytest.approx(float(F.cross_entropy(expected, y)))
