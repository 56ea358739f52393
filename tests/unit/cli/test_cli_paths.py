"""The paths the command tells a user to take: ``--version``, warnings as one line (in the
CLI only), ``--quiet`` silencing MLflow's own lines."""

import warnings
from importlib.metadata import version

import pytest

from trainwell.cli.app import main


def test_version_prints_the_installed_version_and_exits_0(capsys):
    with pytest.raises(SystemExit) as info:  # argparse's version action exits by itself
        raise SystemExit(main(["--version"]))
    assert info.value.code == 0
    assert capsys.readouterr().out.strip() == f"trainwell {version('trainwell')}"


def _warning_recipe(tmp_path, monkeypatch) -> str:
    (tmp_path / "warnrecipe.py").write_text(
        "import warnings\nimport torch\nfrom trainwell.recipes import Job\n"
        "def build(config):\n"
        "    warnings.warn('the data is odd; look at it')\n"
        "    x, y = torch.randn(16, 4), torch.zeros(16).long()\n"
        "    return Job(model=torch.nn.Linear(4, 2), train_data=(x, y))\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(tmp_path)
    return "warnrecipe:build"


def test_cli_warnings_are_one_trainwell_line_and_library_warnings_stay_normal(
    tmp_path, monkeypatch, capsys
):
    recipe = _warning_recipe(tmp_path, monkeypatch)
    shown = warnings.showwarning
    code = main(
        ["train", "--recipe", recipe, "--run-dir", str(tmp_path / "r"), "--quiet"]
        + ["--set", "train.max_epochs=1", "--set", "run.device=cpu"]
    )
    err = capsys.readouterr().err
    assert code == 0, err
    lines = [line for line in err.splitlines() if "the data is odd" in line]
    assert lines == ["trainwell: warning: the data is odd; look at it"], err
    assert "UserWarning" not in err and ".py:" not in err
    assert warnings.showwarning is shown  # outside the command, Python's own format again
    with pytest.warns(UserWarning, match="still a normal warning"):
        warnings.warn("still a normal warning", stacklevel=1)


def test_quiet_silences_mlflows_own_info_lines(tmp_path, capfd):
    pytest.importorskip("mlflow")
    code = main(
        ["train", "--recipe", "spiral", "--run-dir", str(tmp_path / "r"), "--quiet"]
        + ["--set", "train.max_epochs=1", "--set", "model.num_points=200"]
        + ["--set", "log.mlflow=true", "--set", "run.device=cpu"]
    )
    out, err = capfd.readouterr()
    assert code == 0, err
    assert (tmp_path / "r" / "mlflow.db").is_file()  # MLflow did create its store
    assert "INFO" not in out + err and "database tables" not in out + err, out + err


def test_lr_find_sweeps_a_recipe_with_its_own_step_of_two_optimizers(tmp_path, capsys):
    import json

    out = tmp_path / "lrf"
    code = main(
        ["lr-find", "--recipe", "gan", "--steps", "20", "--out", str(out)]
        + ["--set", "run.device=cpu", "--set", "model.num_points=512"]
    )
    captured = capsys.readouterr()
    assert code == 0, captured.err
    sweep = json.loads((out / "lr_find.json").read_text())
    assert len(sweep["lrs"]) >= 10 and sweep["lrs"] == sorted(sweep["lrs"])
    assert all(isinstance(v, float) for v in sweep["losses"])
    # the GAN recipe's LR is model.lr (its step builds its optimizers), not optim.lr
    assert "use it: trainwell train --recipe gan --set model.lr=" in captured.out


def test_resume_and_eval_of_a_python_run_say_plainly_to_use_python(tmp_path, capsys):
    from tests.fixtures import mlp, separated_blobs

    import trainwell as tw

    data = separated_blobs(64)
    run = tmp_path / "run"
    config = {"run": {"dir": str(run), "quiet": True, "device": "cpu"}, "train": {"max_epochs": 1}}
    tw.fit(mlp(), data, data, config=config)
    for command in (["resume", str(run)], ["eval", str(run)]):
        assert main(command) == 2
        err = capsys.readouterr().err
        assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
        assert "trained by fit() from Python" in err and "tw.load_config" in err
