"""float64 data (NumPy, scikit-learn) is cast to the model's dtype, noted once; integer features
into a float layer are one clear DataError; token ids into an embedding are left alone."""

import warnings

import numpy as np
import pytest
import torch
from tests.fixtures import mlp, quiet_config, separated_blobs
from torch import nn

import trainwell as tw
from trainwell.parts import device as device_module
from trainwell.parts.device import InputDtypeWarning, match_dtype


@pytest.fixture(autouse=True)
def _fresh_notes(monkeypatch):
    monkeypatch.setattr(device_module, "_NOTED", set())


def _float64_data():
    x, y = separated_blobs(120)
    return x.double().numpy(), y.numpy()


def test_fit_evaluate_and_predict_take_float64_numpy_with_one_note():
    x, y = _float64_data()
    model = mlp()
    with pytest.warns(InputDtypeWarning, match="float64 and the model float32") as caught:
        result = tw.fit(model, (x, y), (x, y), metrics=["accuracy"],
                        config=quiet_config(max_epochs=5, data={"batch_size": 16},
                                            run={"device": "cpu"}))  # fmt: skip
        values = tw.evaluate(model, (x, y), metrics=["accuracy"], device="cpu")
        predictions = tw.predict(model, x, device="cpu")
    assert len([w for w in caught if w.category is InputDtypeWarning]) == 1
    assert result.final["val_accuracy"] > 0.8
    assert values["accuracy"] == pytest.approx(result.final["val_accuracy"])
    with torch.no_grad():
        expected = model(torch.from_numpy(x).float())
    torch.testing.assert_close(predictions, expected)


def test_float64_regression_targets_are_cast_too():
    g = torch.Generator().manual_seed(0)
    x = torch.randn(64, 4, generator=g, dtype=torch.float64)
    y = x.sum(1, keepdim=True)
    torch.manual_seed(0)
    model = nn.Linear(4, 1)
    with pytest.warns(InputDtypeWarning):
        result = tw.fit(model, (x, y), loss=nn.MSELoss(),
                        config=quiet_config(max_epochs=10, lr=0.1, data={"batch_size": 8},
                                            run={"device": "cpu"}))  # fmt: skip
    assert result.final["train_loss"] < 0.05


def test_integer_features_into_a_float_model_are_one_clear_data_error():
    x = torch.randint(0, 5, (32, 4))
    y = torch.randint(0, 3, (32,))
    with pytest.raises(tw.DataError, match=r"float32 but the inputs are int64.*X\.float\(\)"):
        tw.fit(mlp(), (x, y), config=quiet_config(max_epochs=1, run={"device": "cpu"}))
    with pytest.raises(tw.DataError, match="int64"):
        tw.predict(mlp(), x, device="cpu")


def test_token_ids_into_an_embedding_are_left_alone():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Embedding(10, 8), nn.Flatten(), nn.Linear(24, 3))
    ids = torch.randint(0, 10, (32, 3))
    y = torch.randint(0, 3, (32,))
    with warnings.catch_warnings():
        warnings.simplefilter("error", InputDtypeWarning)
        tw.fit(model, (ids, y), config=quiet_config(max_epochs=1, run={"device": "cpu"}))
        assert tw.predict(model, ids, device="cpu").shape == (32, 3)


def test_match_dtype_casts_floating_leaves_only():
    batch = {"x": torch.zeros(2, dtype=torch.float64), "ids": torch.zeros(2, dtype=torch.long)}
    with pytest.warns(InputDtypeWarning):
        cast = match_dtype([batch, (torch.zeros(1, dtype=torch.float16),)], torch.float32)
    assert cast[0]["x"].dtype == torch.float32 and cast[0]["ids"].dtype == torch.long
    assert cast[1][0].dtype == torch.float32
    assert match_dtype(batch, None) is batch


@pytest.mark.parametrize(
    ("data", "said"),
    [
        (["a cat", "a dog"], "list of 2 strings"),
        (np.array([["a", 1.0], ["b", 2.0]], dtype=object), "dtype object"),
        ((np.array(["x", "y"]), np.array([0, 1])), "element 0 of the data tuple"),
    ],
    ids=["list of strings", "object array", "(strings, y)"],
)
def test_text_or_object_data_is_one_clear_data_error(data, said):
    with pytest.raises(tw.DataError, match=f"{said}.*needs numbers"):
        tw.make_loader(data)
    with pytest.raises(tw.DataError, match=said):
        tw.predict(mlp(), data, device="cpu")
