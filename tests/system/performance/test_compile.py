"""train.compile through fit(): compiled in place (no ``_orig_mod.`` anywhere), the same
training as eager, the short last batch without a recompile, and graph breaks and recompiles
reported with their reasons. These use the ``aot_eager`` backend (dynamo + AOT autograd, no code
generation); one slow test runs inductor, the default backend. (What needs no compiling:
tests/unit/parts/test_compile.py.)"""

from functools import partial

import pytest
import torch
from tests.fixtures import mlp as shared_mlp
from tests.fixtures import separated_blobs as blobs
from torch import nn

import trainwell as tw
from trainwell.parts.compile import compiled_forward
from trainwell.state.checkpoint import load_checkpoint

mlp = partial(shared_mlp, hidden=32, dropout=0.1)


FAST = {"backend": "aot_eager"}


class Printing(nn.Module):
    """A forward dynamo cannot trace whole: a print() between two layers (a graph break)."""

    def __init__(self):
        super().__init__()
        self.a, self.b = nn.Linear(4, 16), nn.Linear(16, 3)

    def forward(self, x):
        h = self.a(x).relu()
        print("between layers", end="\r")
        return self.b(h)


def train(model, compile_value, *, epochs=3, run_dir=None, batch=50, **extra):
    x, y = blobs(230)  # 184 train samples: batches of 50 leave a short last batch of 34
    config = {
        "run": {"quiet": True, "log_every": 1, "dir": run_dir, "seed": 0},
        "data": {"batch_size": batch},
        "train": {"max_epochs": epochs, "compile": compile_value},
        "checkpoint": {"min_interval_s": 0},
        **extra,
    }
    return tw.fit(model, (x[:184], y[:184]), (x[184:], y[184:]), config=config)


def test_compiled_training_equals_eager_and_keeps_plain_state_dict_keys(tmp_path):
    eager, compiled = mlp(), mlp()
    expected = train(eager, False)
    result = train(compiled, FAST, run_dir=str(tmp_path / "run"))
    for (name, a), (name_c, b) in zip(
        eager.state_dict().items(), compiled.state_dict().items(), strict=True
    ):
        assert name == name_c and "_orig_mod" not in name_c
        torch.testing.assert_close(a, b, rtol=1e-5, atol=1e-6)
    assert [r["train_loss"] for r in result.history] == pytest.approx(
        [r["train_loss"] for r in expected.history], rel=1e-5
    )
    saved = load_checkpoint(result.last_checkpoint)
    assert set(saved["state"]["model"]) == set(compiled.state_dict())
    assert "forward" not in compiled.__dict__  # the model's own forward is back after fit()


def test_short_last_batches_run_eagerly_without_recompiling():
    result = train(mlp(), FAST, epochs=3)
    report = result.compile
    assert report.recompiles == [] and report.graph_breaks == {}
    assert report.graphs == 2  # the training forward and the validation forward, once each
    # one short training batch per epoch; validation's 46 samples fit one (first) batch
    assert report.eager_batches == 3
    assert report.compile_s > 0 and report.steady_step_s is not None
    summary = result.summary()["compile"]
    assert summary["recompiles"] == 0 and summary["eager_short_batches"] == 3
    assert "compile:" in result.describe() and "0 recompiles" in result.describe()


def test_dynamic_shapes_compile_every_batch():
    result = train(mlp(), {**FAST, "dynamic": True}, epochs=2)
    assert result.compile.eager_batches == 0
    assert result.compile.recompiles == []


def test_graph_break_is_counted_with_its_reason():
    result = train(Printing(), FAST, epochs=1)
    breaks = result.compile.graph_breaks
    assert sum(breaks.values()) >= 1
    assert any("print" in reason for reason in breaks)
    text = result.describe()
    assert "graph break" in text and "print" in text


def test_fullgraph_turns_a_graph_break_into_an_error():
    with pytest.raises(Exception, match="print"):
        train(Printing(), {**FAST, "fullgraph": True}, epochs=1)


def test_a_new_shape_is_a_recompile_reported_with_dynamos_reason():
    model = nn.Linear(8, 2)
    with compiled_forward(model, FAST) as compiled:
        for length in (8, 8):
            model(torch.randn(4, length)).sum().backward()
        with pytest.raises(RuntimeError):  # a wrong feature count still fails as in eager
            model(torch.randn(4, 7))
        model(torch.randn(6, 8)).sum().backward()  # larger batch: compiled (a new shape)
        model(torch.randn(5, 8)).sum().backward()  # smaller than the largest: eager
    report = compiled.report
    assert report.eager_batches == 1
    assert any("size mismatch" in r or "mismatch" in r for r in report.recompiles), report
    assert "dynamic: true" in report.describe()


@pytest.mark.slow
def test_inductor_compiles_the_digits_cnn_without_breaks_or_recompiles():
    from trainwell.recipes.digits import DigitsCNN, load_digits_tensors

    torch.manual_seed(0)
    train_data, val_data = load_digits_tensors(0.2, 0)
    result = tw.fit(
        DigitsCNN(),
        train_data,
        val_data,
        metrics=["accuracy"],
        config={"run": {"quiet": True}, "train": {"max_epochs": 2, "compile": True}},
    )
    assert result.compile.graph_breaks == {} and result.compile.recompiles == []
    assert result.compile.graphs == 2
    assert result.history[-1]["val_accuracy"] > 0.85
