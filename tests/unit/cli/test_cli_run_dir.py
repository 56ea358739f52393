"""``trainwell train``/``resume`` in-process: a run directory is never destroyed by another
run (refused with one line, or replaced on purpose with --overwrite), a failing train leaves a
finished run as it was, a resume takes its config from the checkpoint, and default run
directories never collide. On CPU."""

import json
import time

from trainwell.cli.app import main

SMALL = ["--recipe", "spiral", "--quiet", "--set", "run.device=cpu"]
SMALL += ["--set", "model.num_points=300", "--set", "train.max_epochs=1"]


def _train(run_dir, *extra):
    return main(["train", *SMALL, "--run-dir", str(run_dir), *extra])


def _snapshot(run_dir):
    return {
        str(p.relative_to(run_dir)): p.read_bytes()
        for p in sorted(run_dir.rglob("*"))
        if p.is_file()
    }


def _epochs(run_dir):
    lines = (run_dir / "metrics.jsonl").read_text().splitlines()
    return [json.loads(line)["epoch"] for line in lines if json.loads(line)["kind"] == "epoch"]


def _error_lines(err):
    return [line for line in err.splitlines() if line.strip()]


def test_a_second_train_into_a_finished_run_exits_2_in_one_line_and_keeps_it(tmp_path, capsys):
    run = tmp_path / "run"
    run.mkdir()
    (run / "notes.txt").write_text("mine")  # a directory with files of no run's is trained into
    assert _train(run) == 0
    before = _snapshot(run)
    assert before["notes.txt"] == b"mine"
    capsys.readouterr()
    assert _train(run) == 2
    lines = _error_lines(capsys.readouterr().err)
    assert len(lines) == 1 and lines[0].startswith("trainwell: error:")
    for way_out in ("--resume auto", "--run-dir", "--overwrite"):
        assert way_out in lines[0]
    assert _snapshot(run) == before  # best.pt, metrics.jsonl, config.yaml: untouched


def test_overwrite_replaces_the_run_and_keeps_nothing_of_it(tmp_path):
    run = tmp_path / "run"
    assert _train(run) == 0
    assert _train(run, "--overwrite", "--set", "train.max_epochs=2") == 0
    assert _epochs(run) == [1, 2]  # the old run's epoch 1 is not there any more
    assert json.loads((run / "summary.json").read_text())["epochs"] == 2
    steps = sorted(p.name for p in (run / "checkpoints").glob("step-*.pt"))
    assert all(json.loads((run / "checkpoints" / s.replace(".pt", ".json")).read_text())["config"]
               ["train"]["max_epochs"] == 2 for s in steps)  # fmt: skip


def test_overwrite_with_resume_is_refused(tmp_path, capsys):
    run = tmp_path / "run"
    assert _train(run) == 0
    before = _snapshot(run)
    assert _train(run, "--overwrite", "--resume", "auto") == 2
    assert "drop one of them" in capsys.readouterr().err
    assert _snapshot(run) == before


def test_a_train_that_fails_with_a_shape_error_never_touches_a_finished_run(
    tmp_path, capsys, monkeypatch
):
    run = tmp_path / "run"
    assert _train(run) == 0
    before = _snapshot(run)
    (tmp_path / "shapes_recipe.py").write_text(
        "import torch\n"
        "from trainwell.recipes import Job\n"
        "def build(config):\n"
        "    x = torch.randn(32, 2)\n"
        "    y = torch.randn(32, 5)\n"
        "    return Job(model=torch.nn.Linear(2, 3), train_data=(x, y))\n"
    )
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    for extra in ([], ["--overwrite"]):
        code = main(["train", "--recipe", "shapes_recipe:build", "--run-dir", str(run),
                     "--set", "run.device=cpu", "--quiet", *extra])  # fmt: skip
        assert code == 2
        assert "Traceback" not in capsys.readouterr().err
        assert _snapshot(run) == before, extra
        assert not [p for p in run.iterdir() if p.name.startswith(".")]


def test_resume_takes_the_config_saved_in_the_checkpoint(tmp_path, capsys):
    run = tmp_path / "run"
    assert _train(run, "--set", "train.max_epochs=2") == 0  # the recipe's default is 30
    (run / "config.yaml").write_text("")
    capsys.readouterr()
    assert main(["resume", str(run), "--quiet"]) == 0
    warnings = [line for line in capsys.readouterr().err.splitlines() if "warning" in line]
    assert len(warnings) == 1
    assert "resuming with the config saved in" in warnings[0] and "is empty" in warnings[0]
    assert _epochs(run) == [1, 2]  # not retrained to 30 epochs
    assert json.loads((run / "summary.json").read_text())["epochs"] == 2

    (run / "config.yaml").write_text("train:\n  max_epochs: 9\n")
    assert main(["resume", str(run), "--quiet", "--set", "train.max_epochs=3"]) == 0
    err = capsys.readouterr().err
    assert "trainwell: warning: resuming" in err and "different config" in err  # --set's change
    assert "disagrees with it (" in err and "train.max_epochs" in err
    assert _epochs(run) == [1, 2, 3]  # the checkpoint's 2 epochs, then --set's third
    assert "max_epochs: 3" in (run / "config.yaml").read_text()


def test_default_run_directories_of_the_same_second_differ(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(time, "strftime", lambda *args: "20250101-120000")
    assert main(["train", *SMALL]) == 0
    assert main(["train", *SMALL, "--set", "train.max_epochs=2"]) == 0
    first, second = (
        tmp_path / "runs" / "spiral-20250101-120000",
        tmp_path / "runs" / "spiral-20250101-120000-2",
    )
    assert _epochs(first) == [1] and _epochs(second) == [1, 2]
