"""The tabular recipe: breast-cancer data, class weights from the training split, label
smoothing, F1 of the malignant class; and ``--print-config`` of any recipe."""

from __future__ import annotations

import json
import os

import pytest
import torch
import yaml

from trainwell.cli.app import main
from trainwell.config.tree import build_config
from trainwell.recipes import load_recipe
from trainwell.recipes.tabular import CONFIG, build, inverse_frequency

pytestmark = (
    pytest.mark.cpu_only
)  # asserts CPU semantics (exact parity with CPU tensors, fp32, CPU probes): CUDA hidden

pytest.importorskip("sklearn")


def test_each_class_weighs_the_same_in_total_over_the_training_split():
    job = build(CONFIG)
    labels = job.train_data[1]
    weight = job.loss.weight
    assert torch.equal(weight, inverse_frequency(labels))
    totals = [float(weight[c] * (labels == c).sum()) for c in (0, 1)]
    assert totals == pytest.approx([len(labels) / 2] * 2)
    assert weight[1] > weight[0]  # malignant (1) is the rarer class
    assert job.loss.label_smoothing == CONFIG.model.label_smoothing
    # standardised with the training split's statistics only
    torch.testing.assert_close(job.train_data[0].mean(0), torch.zeros(30), atol=1e-5, rtol=0)
    assert not torch.allclose(job.val_data[0].mean(0), torch.zeros(30), atol=1e-3)


def test_class_weights_can_be_switched_off():
    cfg = build_config({"model": {"class_weights": False}}, base=CONFIG)
    assert build(cfg).loss.weight is None


def test_it_trains_to_a_good_f1_from_the_command_line(tmp_path, capsys):
    run = tmp_path / "run"
    code = main(["train", "--recipe", "tabular", "--run-dir", str(run), "--quiet",
                 "--set", "train.max_epochs=12"])  # fmt: skip
    assert code == 0
    summary = json.loads((run / "summary.json").read_text())
    assert summary["monitor"] == "val_f1" and summary["best"] > 0.9
    assert summary["final"]["val_auroc"] > 0.97


@pytest.mark.parametrize("recipe", ["digits", "spiral", "tabular", "charlm"])
def test_print_config_shows_the_resolved_config_and_trains_nothing(
    recipe, tmp_path, capsys, monkeypatch
):
    monkeypatch.chdir(tmp_path)
    code = main(["train", "--recipe", recipe, "--print-config", "--set", "optim.lr=0.0123"])
    assert code == 0
    shown = yaml.safe_load(capsys.readouterr().out)
    expected = load_recipe(recipe).CONFIG.to_dict()
    assert shown["optim"]["lr"] == 0.0123
    assert shown["run"]["recipe"] == recipe
    assert shown["model"] == expected["model"]  # the recipe's own section, resolved
    assert shown["train"]["max_epochs"] == expected["train"]["max_epochs"]
    assert os.listdir(tmp_path) == []  # no run directory, no checkpoint


def test_eval_splits_and_checkpoints_and_the_exported_program_runs_like_the_model(tmp_path):
    run = tmp_path / "run"
    argv = ["train", "--recipe", "tabular", "--run-dir", str(run), "--quiet"]
    keep = ["--set", "checkpoint.keep_last=5", "--set", "checkpoint.min_interval_s=0"]
    assert main([*argv, "--set", "train.max_epochs=3", *keep]) == 0
    assert main(["eval", str(run), "--split", "test", "--checkpoint", "step-11"]) == 0
    assert main(["export", str(run), "--format", "exported"]) == 0
    [program_file] = (run / "export").glob("*.pt2")
    job = build(CONFIG)
    state = torch.load(run / "checkpoints" / "best.pt", weights_only=True)["state"]["model"]
    job.model.load_state_dict(state)
    job.model.eval()
    program = torch.export.load(str(program_file)).module()
    x = job.test_data[0][:20]  # other samples and another batch size than it was checked on
    with torch.inference_mode():  # any batch size: the batch dimension was left free
        torch.testing.assert_close(program(x), job.model(x))
        torch.testing.assert_close(program(x[:1]), job.model(x[:1]))
    assert not list((run / "export").glob(".tmp-*"))
    pytest.importorskip("onnxruntime")
    import onnxruntime

    assert main(["export", str(run), "--format", "onnx"]) == 0
    [onnx_file] = (run / "export").glob("*.onnx")
    session = onnxruntime.InferenceSession(str(onnx_file), providers=["CPUExecutionProvider"])
    [outputs] = session.run(None, {session.get_inputs()[0].name: x.numpy()})
    with torch.inference_mode():
        torch.testing.assert_close(torch.from_numpy(outputs), job.model(x), rtol=1e-4, atol=1e-5)


def test_eval_says_when_a_recipe_has_no_test_split(tmp_path, capsys):
    from trainwell.recipes.spiral import CONFIG as SPIRAL

    run = tmp_path / "run"
    assert main(["train", "--recipe", "spiral", "--run-dir", str(run), "--quiet",
                 "--set", "train.max_epochs=1"]) == 0  # fmt: skip
    assert SPIRAL.train.max_epochs > 1
    capsys.readouterr()
    assert main(["eval", str(run), "--split", "test"]) == 2
    assert "has no test data to evaluate on; try --split val" in capsys.readouterr().err


def test_print_config_with_nproc_starts_no_process(tmp_path, capsys, monkeypatch):
    import trainwell.strategy.process as distributed

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(distributed, "launch_local", lambda *a, **k: pytest.fail("launched"))
    assert main(["train", "--nproc", "2", "--print-config"]) == 0
    assert yaml.safe_load(capsys.readouterr().out)["run"]["recipe"] == "digits"
