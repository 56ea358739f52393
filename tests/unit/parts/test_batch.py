"""Batch handling: split_batch, compute_loss errors, label range checks, device helpers."""

from collections import namedtuple

import pytest
import torch
from torch import nn

import trainwell as tw
from trainwell.data.batch import batch_size_of, split_batch
from trainwell.parts.losses import check_class_targets, compute_loss
from trainwell.parts.outputs import call_model, logits_of

pytestmark = (
    pytest.mark.cpu_only
)  # asserts CPU semantics (exact parity with CPU tensors, fp32, CPU probes): CUDA hidden


def test_split_tuple_and_list():
    x, y = torch.zeros(2, 3), torch.ones(2)
    assert split_batch((x, y)) == (x, y)
    assert split_batch([x, y]) == (x, y)
    inputs, targets = split_batch((x, x + 1, y))
    assert isinstance(inputs, tuple) and len(inputs) == 2
    assert inputs[1] is not x and torch.equal(inputs[1], x + 1)
    assert targets is y


@pytest.mark.parametrize("key", ["labels", "targets", "target", "label", "y"])
def test_split_dict_target_keys(key):
    x, y = torch.zeros(2, 3), torch.ones(2)
    assert split_batch({"x": x, key: y}) == (x, y)


def test_split_dict_with_input_key_and_hf_style_kwargs():
    x, y = torch.zeros(2, 3), torch.ones(2)
    inputs, targets = split_batch({"inputs": x, "labels": y, "extra": 1})
    assert inputs is x and targets is y
    ids, mask = torch.ones(2, 4, dtype=torch.long), torch.ones(2, 4)
    inputs, targets = split_batch({"input_ids": ids, "attention_mask": mask, "labels": y})
    assert set(inputs) == {"input_ids", "attention_mask"}
    assert inputs["input_ids"] is ids and targets is y


@pytest.mark.parametrize(
    ("batch", "fragment"),
    [
        ({"input_ids": torch.zeros(1)}, "dict with keys ['input_ids']"),
        ((torch.zeros(1),), "tuple of 1 elements"),
        (torch.zeros(3), "Tensor"),
        ([], "list of 0 elements"),
    ],
)
def test_bad_batches_are_data_errors_naming_the_problem(batch, fragment):
    with pytest.raises(tw.DataError) as info:
        split_batch(batch)
    assert fragment in str(info.value)
    assert "labels" in str(info.value)


def test_call_model_spreads_tuples_and_dicts():
    class Two(nn.Module):
        def forward(self, a, b=0):
            return a + b

    m = Two()
    assert call_model(m, torch.tensor(1)) == 1
    assert call_model(m, (torch.tensor(1), torch.tensor(2))) == 3
    assert call_model(m, {"a": torch.tensor(1), "b": torch.tensor(5)}) == 6


def test_logits_of_and_batch_size_of():
    t = torch.zeros(3, 2)
    HF = namedtuple("HF", ["loss", "logits"])
    assert logits_of(t) is t
    assert logits_of({"logits": t}) is t
    assert logits_of(HF(loss=None, logits=t)) is t
    assert logits_of((t, 1)) is t
    with pytest.raises(tw.DataError, match="str"):
        logits_of("nope")
    assert batch_size_of((torch.zeros(7, 2), torch.zeros(7))) == 7
    assert batch_size_of({"input_ids": torch.zeros(5, 3)}) == 5
    assert batch_size_of(torch.tensor(1.0)) == 1


@pytest.mark.filterwarnings("ignore:Using a target size")
def test_compute_loss_shape_mismatch_names_both_shapes():
    with pytest.raises(tw.ShapeError) as info:
        compute_loss(nn.CrossEntropyLoss(), torch.zeros(4, 3), torch.zeros(5, dtype=torch.long))
    assert "(4, 3)" in str(info.value) and "(5,)" in str(info.value)
    with pytest.raises(tw.ShapeError) as info:
        compute_loss(nn.MSELoss(), torch.zeros(4, 3), torch.zeros(5, 3))
    assert "(4, 3)" in str(info.value) and "(5, 3)" in str(info.value)
    assert "MSELoss" in str(info.value)


def test_compute_loss_out_of_range_label_is_data_error():
    with pytest.raises(tw.DataError, match=r"\[0, 3\)"):
        compute_loss(nn.CrossEntropyLoss(), torch.zeros(4, 3), torch.tensor([0, 1, 2, 3]))


def test_compute_loss_value_and_logits_extraction():
    pred = torch.tensor([[2.0, 0.0], [0.0, 2.0]])
    y = torch.tensor([0, 0])
    expected = nn.functional.cross_entropy(pred, y)
    torch.testing.assert_close(
        compute_loss(nn.CrossEntropyLoss(), logits_of({"logits": pred}), y), expected
    )


def test_check_class_targets():
    loss = nn.CrossEntropyLoss()
    pred = torch.zeros(3, 10)
    with pytest.raises(tw.DataError) as info:
        check_class_targets(pred, torch.tensor([0, 10, 2]), loss)
    assert "[0, 10)" in str(info.value) and "label 10" in str(info.value)
    with pytest.raises(tw.DataError, match="label -1"):
        check_class_targets(pred, torch.tensor([-1, 1, 2]), loss)
    check_class_targets(pred, torch.tensor([0, 9, -100]), loss)  # -100 is the ignore index
    check_class_targets(pred, torch.tensor([0, 10]), nn.CrossEntropyLoss(ignore_index=10))
    check_class_targets(pred, torch.tensor([0, 99]), nn.MSELoss())  # not a class-index loss
    check_class_targets(pred, torch.full((3, 10), 0.1), loss)  # soft (float) targets
    with pytest.raises(tw.DataError, match=r"\[0, 10\)"):
        check_class_targets(pred, torch.tensor([11]), nn.functional.cross_entropy)


def test_fit_reports_out_of_range_labels_before_training():
    model = nn.Linear(4, 10)
    before = model.weight.detach().clone()
    data = (torch.randn(8, 4), torch.tensor([0, 1, 2, 3, 4, 5, 6, 10]))
    cfg = tw.build_config(
        {
            "train": {"max_epochs": 1},
            "data": {"batch_size": 8},
            "run": {"progress": False, "quiet": True},
        }
    )
    with pytest.raises(tw.DataError, match=r"\[0, 10\)"):
        tw.fit(model, data, config=cfg)
    assert torch.equal(model.weight, before)


# --------------------------------------------------------------------------- device


def test_choose_device_auto_order(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(torch.backends.mps, "is_available", lambda: False)
    assert tw.choose_device("auto") == torch.device("cpu")
    assert tw.choose_device(None) == torch.device("cpu")
    monkeypatch.setattr(torch.backends.mps, "is_available", lambda: True)
    assert tw.choose_device("auto") == torch.device("mps")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    assert tw.choose_device("auto") == torch.device("cuda")


def test_choose_device_named(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(torch.backends.mps, "is_available", lambda: False)
    assert tw.choose_device("cpu") == torch.device("cpu")
    assert tw.choose_device(torch.device("cpu")) == torch.device("cpu")
    with pytest.raises(tw.ConfigError, match="CUDA is not available"):
        tw.choose_device("cuda")
    with pytest.raises(tw.ConfigError, match="CUDA is not available"):
        tw.choose_device("cuda:1")
    with pytest.raises(tw.ConfigError, match="MPS is not available"):
        tw.choose_device("mps")
    with pytest.raises(tw.ConfigError, match="'gpu' is not a device"):
        tw.choose_device("gpu")


def test_choose_device_cuda_index_out_of_range(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 1)
    assert tw.choose_device("cuda:0") == torch.device("cuda:0")
    with pytest.raises(tw.ConfigError, match="only 1 CUDA device"):
        tw.choose_device("cuda:3")


def test_move_to_nested():
    Pair = namedtuple("Pair", ["a", "b"])
    batch = {"x": [torch.zeros(1), (torch.ones(1), "tag")], "p": Pair(torch.zeros(2), 3)}
    moved = tw.move_to(batch, torch.device("meta"))
    assert moved["x"][0].device.type == "meta"
    assert isinstance(moved["x"], list) and isinstance(moved["x"][1], tuple)
    assert moved["x"][1][1] == "tag"
    assert isinstance(moved["p"], Pair) and moved["p"].a.device.type == "meta" and moved["p"].b == 3
