"""evaluate() and predict(): eval mode + inference_mode, sample-weighted metrics, mode restored."""

import pytest
import torch
from torch import nn

import trainwell as tw


def _model():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(5, 8), nn.Dropout(0.5), nn.ReLU(), nn.Linear(8, 3))


class Recorder:
    """A forward hook noting the module's mode and whether its output carries autograd."""

    def __init__(self, module):
        self.calls = []
        module.register_forward_hook(self)

    def __call__(self, module, inputs, output):
        self.calls.append(
            {
                "training": module.training,
                "inference": output.is_inference(),
                "grad_fn": output.grad_fn,
                "grad_enabled": torch.is_grad_enabled(),
            }
        )


def test_evaluate_runs_in_eval_and_inference_mode(classification_data):
    model = _model()
    rec = Recorder(model[1])
    model.train()
    tw.evaluate(model, classification_data, batch_size=16)
    assert len(rec.calls) == 3
    for call in rec.calls:
        assert call["training"] is False
        assert call["inference"] is True
        assert call["grad_fn"] is None
        assert call["grad_enabled"] is False


@pytest.mark.parametrize("start_training", [True, False])
def test_evaluate_restores_previous_mode(classification_data, start_training):
    model = _model()
    model.train(start_training)
    tw.evaluate(model, classification_data)
    assert all(m.training is start_training for m in model.modules())


def test_evaluate_restores_mode_after_an_error():
    model = _model().train()
    with pytest.raises(tw.ShapeError):
        tw.evaluate(model, (torch.randn(4, 5), torch.zeros(4, 7)))  # wrong target shape
    assert model.training


def test_evaluate_loss_and_accuracy_are_sample_weighted(classification_data):
    x, y = classification_data  # 40 samples; batch_size 16 -> 16, 16, 8
    model = _model()
    model.eval()
    with torch.no_grad():
        logits = model(x)
    expected_loss = nn.functional.cross_entropy(logits, y).item()
    expected_acc = (logits.argmax(1) == y).float().mean().item()
    model.train()
    result = tw.evaluate(model, (x, y), metrics=["accuracy"], batch_size=16)
    assert set(result) == {"loss", "accuracy"}
    assert result["loss"] == pytest.approx(expected_loss, rel=1e-5)
    assert result["accuracy"] == pytest.approx(expected_acc)
    # the naive mean of batch means differs, so the weighting is really tested
    batch_means = [
        nn.functional.cross_entropy(logits[i : i + 16], y[i : i + 16]).item()
        for i in range(0, 40, 16)
    ]
    assert sum(batch_means) / 3 != pytest.approx(expected_loss, rel=1e-5)


def test_evaluate_custom_metric_and_loss(classification_data):
    x, y = classification_data
    model = _model().eval()
    with torch.no_grad():
        logits = model(x)

    def top2(pred, target):
        return (pred.topk(2, dim=1).indices == target[:, None]).any(1).float().mean()

    result = tw.evaluate(
        model,
        (x, y),
        loss=nn.CrossEntropyLoss(reduction="mean", label_smoothing=0.1),
        metrics={"top2": top2},
        batch_size=7,
    )
    assert result["loss"] == pytest.approx(
        nn.functional.cross_entropy(logits, y, label_smoothing=0.1).item(), rel=1e-5
    )
    assert result["top2"] == pytest.approx(top2(logits, y).item())


def test_unknown_builtin_metric_is_config_error(classification_data):
    with pytest.raises(tw.ConfigError, match="top5"):
        tw.evaluate(_model(), classification_data, metrics=["top5"])


def test_accuracy():
    pred = torch.tensor([[0.1, 0.9], [0.8, 0.2], [0.3, 0.7], [0.6, 0.4]])
    assert tw.accuracy(pred, torch.tensor([1, 0, 0, 0])).item() == pytest.approx(0.75)


@pytest.mark.parametrize("start_training", [True, False])
def test_predict_returns_inference_outputs_in_order(classification_data, start_training):
    x, y = classification_data
    model = _model()
    model.eval()
    with torch.no_grad():
        expected = model(x)
    model.train(start_training)
    rec = Recorder(model[1])
    out = tw.predict(model, x, batch_size=16)
    assert out.shape == (40, 3)
    torch.testing.assert_close(out, expected)
    assert out.grad_fn is None and not out.requires_grad
    assert len(rec.calls) == 3
    assert all(c["training"] is False and c["inference"] is True for c in rec.calls)
    assert model.training is start_training
    # (inputs, targets) data gives the same outputs
    torch.testing.assert_close(tw.predict(model, (x, y), batch_size=9), expected)
