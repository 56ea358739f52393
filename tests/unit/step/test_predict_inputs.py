"""tw.predict gives one prediction per input for every documented input form."""

import pytest
import torch
from tests.fixtures import mlp
from torch import nn
from torch.utils.data import DataLoader, Dataset, TensorDataset

import trainwell as tw

X = torch.randn(10, 4, generator=torch.Generator().manual_seed(0))
Y = torch.arange(10) % 3


def _expected(model):
    with torch.no_grad():
        return model(X)


class _Inputs(Dataset):
    def __len__(self):
        return len(X)

    def __getitem__(self, i):
        return X[i]


class _Keywords(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = mlp()

    def forward(self, features, scale):
        return self.net(features) * scale


FORMS = {
    "tensor": lambda: X,
    "numpy": lambda: X.numpy(),
    "list of tensors": lambda: list(X),
    "list of arrays": lambda: list(X.numpy()),
    "TensorDataset(X)": lambda: TensorDataset(X),
    "DataLoader(TensorDataset(X))": lambda: DataLoader(TensorDataset(X), batch_size=3),
    "DataLoader(X)": lambda: DataLoader(X, batch_size=3),
    "Dataset of inputs": lambda: _Inputs(),
    "(X, y)": lambda: (X, Y),
    "DataLoader((X, y))": lambda: DataLoader(TensorDataset(X, Y), batch_size=4),
    "dict batches with x": lambda: iter([{"x": X[:6]}, {"x": X[6:]}]),
    "dict batches with labels": lambda: iter(
        [
            {"x": X[:6], "labels": Y[:6]},
            {"x": X[6:], "labels": Y[6:]},
        ]
    ),
}


@pytest.mark.parametrize("form", list(FORMS))
def test_one_prediction_per_input_equal_to_the_model(form):
    model = mlp()
    predictions = tw.predict(model, FORMS[form](), device="cpu", batch_size=4)
    assert predictions.shape == (10, 3)
    torch.testing.assert_close(predictions, _expected(model))


@pytest.mark.parametrize(
    "data",
    [
        {"features": X, "scale": torch.full((10, 1), 2.0)},
        iter(
            [
                {
                    "features": X[:5],
                    "scale": torch.full((5, 1), 2.0),
                    "num_tokens": torch.tensor(5),
                },
                {
                    "features": X[5:],
                    "scale": torch.full((5, 1), 2.0),
                    "num_tokens": torch.tensor(5),
                },
            ]
        ),
    ],
    ids=["dict of tensors", "dict batches of keyword inputs"],
)
def test_keyword_inputs_without_labels(data):
    model = _Keywords()
    predictions = tw.predict(model, data, device="cpu", batch_size=4)
    with torch.no_grad():
        expected = model(X, torch.full((10, 1), 2.0))
    torch.testing.assert_close(predictions, expected)


def test_a_dict_of_unequal_lengths_is_one_clear_error():
    with pytest.raises(tw.DataError, match="different lengths"):
        tw.predict(_Keywords(), {"features": X, "scale": torch.ones(3, 1)}, device="cpu")
