"""Data of unknown length (IterableDataset, generators) sized by train.max_steps, and lists
of ready batches."""

import warnings

import pytest
import torch
from torch import nn

import trainwell as tw
from trainwell.errors import DataError


def _config(**train):
    return {"run": {"device": "cpu", "quiet": True}, "data": {"batch_size": 8}, "train": train}


def _xy(n=64, seed=0):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, 4, generator=g)
    return x, (x[:, 0] > 0).long()


class Samples(torch.utils.data.IterableDataset):
    """A stream of (x, y) samples; counts its passes."""

    def __init__(self, n=64):
        self.x, self.y = _xy(n)
        self.passes = 0

    def __iter__(self):
        self.passes += 1
        return iter(zip(self.x, self.y))


def _model():
    torch.manual_seed(0)
    return nn.Linear(4, 2)


def test_an_iterable_dataset_trains_for_max_steps_each_pass_an_epoch():
    data = Samples(64)  # 8 batches of 8 per pass
    result = tw.fit(_model(), data, config=_config(max_steps=20))
    assert result.steps == 20
    assert result.stop_reason == "reached train.max_steps=20"
    assert data.passes == 3  # 8 + 8 + 4 steps
    assert [r["step"] for r in result.history] == [8, 16, 20]


def test_an_iterable_dataset_schedule_is_sized_by_max_steps():
    """warmup_cosine over train.max_steps: the LR has decayed to (almost) 0 at the last step."""
    result = tw.fit(_model(), Samples(64), config=_config(max_steps=20))
    lrs = [r["lr"] for r in result.history]
    assert lrs == sorted(lrs, reverse=True)
    assert lrs[-1] < 0.01 * 1e-3  # optim.lr's default peak is 1e-3
    assert lrs[0] > 0.5 * 1e-3  # after 8 of 20 steps: still above half


def test_a_generator_of_batches_is_one_stream_cut_at_max_steps():
    x, y = _xy(64)
    batches = ((x[i : i + 8], y[i : i + 8]) for i in range(0, 64, 8))
    result = tw.fit(_model(), batches, config=_config(max_steps=5))
    assert result.steps == 5 and result.stop_reason == "reached train.max_steps=5"


def test_a_generator_that_ends_early_ends_the_run_and_says_so():
    x, y = _xy(64)
    batches = ((x[i : i + 8], y[i : i + 8]) for i in range(0, 64, 8))
    with pytest.warns(UserWarning, match="stream ended after 8 steps"):
        result = tw.fit(_model(), batches, (x, y), config=_config(max_steps=100))
    assert result.steps == 8
    assert "stream ended" in result.stop_reason
    assert len(result.history) == 1 and "val_loss" in result.history[0]


def test_a_stream_without_max_steps_is_refused_with_the_key_to_set():
    with pytest.raises(DataError, match="set train.max_steps to stream it"):
        tw.fit(_model(), Samples(), config=_config())


def test_a_list_of_batches_trains_as_batches():
    x, y = _xy(60)
    batches = [(x[i : i + 16], y[i : i + 16]) for i in range(0, 60, 16)]  # 16, 16, 16, 12
    seen = []

    def step(model, batch):
        seen.append(len(batch[0]))
        return nn.functional.cross_entropy(model(batch[0]), batch[1])

    result = tw.fit(_model(), batches, config=_config(max_epochs=2), step_fn=step)
    assert result.steps == 8 and seen == [16, 16, 16, 12] * 2
    # a list of samples (0-d labels) is still a dataset of samples, batched by data.batch_size
    samples = [(x[i], y[i]) for i in range(32)]
    assert tw.fit(_model(), samples, config=_config(max_epochs=1)).steps == 4


def test_the_list_rule():
    from trainwell.data.streams import is_list_of_batches

    x, y = _xy(32)
    assert is_list_of_batches([(x[:8], y[:8]), (x[8:16], y[8:16]), (x[16:20], y[16:20])])
    assert is_list_of_batches([{"x": x[:8], "y": y[:8]}, {"x": x[8:16], "y": y[8:16]}])
    assert not is_list_of_batches([(x[i], y[i]) for i in range(8)])  # samples: 0-d labels
    assert not is_list_of_batches([(x[:4], y[:4]), (x[:8], y[:8])])  # a larger one after
    assert not is_list_of_batches([(x[:8], y[:7])])  # sizes disagree inside an element
    assert not is_list_of_batches([x[i] for i in range(8)])  # bare tensors are samples


def test_a_resumed_stream_skips_what_the_interrupted_run_trained_on(tmp_path):
    x, y = _xy(64)

    def stream(fail_at=None):
        for i in range(8):
            if i == fail_at:
                raise RuntimeError("the machine went away")
            yield x[i * 8 : i * 8 + 8], y[i * 8 : i * 8 + 8]

    def config(name, **checkpoint):
        return {**_config(max_steps=6), "checkpoint": {"every_steps": 3, **checkpoint},
                "run": {"device": "cpu", "quiet": True, "dir": str(tmp_path / name)}}  # fmt: skip

    whole_model = _model()
    whole = tw.fit(whole_model, stream(), config=config("whole"))
    with pytest.raises(RuntimeError, match="went away"):
        tw.fit(_model(), stream(fail_at=3), config=config("cut"))  # saved at step 3, then died
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = _model()
        resumed = tw.fit(model, stream(), config=config("cut", resume="auto"))
    assert any("read again and dropped" in str(w.message) for w in caught)
    assert resumed.steps == 6
    assert resumed.history[-1]["train_loss"] == pytest.approx(whole.history[-1]["train_loss"])
    assert torch.equal(model.weight, whole_model.weight)
