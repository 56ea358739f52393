"""The trainwell command with damaged, foreign and unwritable checkpoints; exit codes 2, 3, 4."""

import hashlib
import json
import os
import shutil

import pytest
import torch

from trainwell.cli.app import main
from trainwell.errors import EXIT_GUARD_STOPPED, EXIT_OK, EXIT_USAGE, EXIT_WRITE_FAILED
from trainwell.state.checkpoint import list_checkpoints, verify

SMALL = ["--set", "model.hidden=8", "--set", "model.num_points=300", "--quiet"]
SMALL += [
    "--set",
    "checkpoint.min_interval_s=0",
]  # a checkpoint at every epoch: the files these tests look at


def train(run_dir, *extra, epochs=3):
    code = main(
        [
            "train",
            "--recipe",
            "spiral",
            "--run-dir",
            str(run_dir),
            "--set",
            f"train.max_epochs={epochs}",
            "--set",
            "checkpoint.keep_last=3",
            *SMALL,
            *extra,
        ]
    )
    assert code == EXIT_OK
    return run_dir / "checkpoints"


def one_line_error(err):
    assert "Traceback" not in err
    lines = [line for line in err.splitlines() if line.startswith("trainwell: error:")]
    assert len(lines) == 1, err
    return lines[0]


class Custom:
    """An arbitrary Python object: loading it needs code execution."""


# --------------------------------------------------------------------------- 9: verified reads


def test_eval_and_export_refuse_a_named_corrupt_checkpoint(flip_tensor_bytes, tmp_path, capsys):
    checkpoints = train(tmp_path / "run")
    newest = list_checkpoints(checkpoints)[0]
    flip_tensor_bytes(newest)
    capsys.readouterr()
    assert main(["export", str(newest), "--out", str(tmp_path / "m.safetensors")]) == EXIT_USAGE
    line = one_line_error(capsys.readouterr().err)
    assert newest.name in line and "checksum" in line
    assert not (tmp_path / "m.safetensors").exists()
    assert main(["eval", str(tmp_path / "run"), "--checkpoint", str(newest)]) == EXIT_USAGE
    assert "checksum" in one_line_error(capsys.readouterr().err)


def test_eval_and_export_of_last_use_the_newest_good_checkpoint_with_a_note(
    flip_tensor_bytes, tmp_path, capsys
):
    checkpoints = train(tmp_path / "run")
    newest, previous = list_checkpoints(checkpoints)[:2]
    flip_tensor_bytes(newest)  # last.pt is a hard link: damaged too
    capsys.readouterr()
    assert main(["eval", str(tmp_path / "run"), "--checkpoint", "last"]) == EXIT_OK
    out, err = capsys.readouterr()
    assert json.loads(out)["epoch"] == 2
    notes = [line for line in err.splitlines() if line.startswith("trainwell: note:")]
    assert len(notes) == 1 and newest.name in notes[0] and previous.name in notes[0], err
    assert main(["export", str(tmp_path / "run"), "--checkpoint", "last"]) == EXIT_OK
    out, err = capsys.readouterr()
    assert newest.name in err
    assert (tmp_path / "run" / "export" / f"model-{previous.stem}.safetensors").is_file()


def test_eval_and_export_of_a_corrupt_best_refuse_and_say_what_to_do(
    flip_tensor_bytes, tmp_path, capsys
):
    checkpoints = train(tmp_path / "run")
    best_step = json.loads((checkpoints / "best.json").read_text())["step"]
    flip_tensor_bytes(checkpoints / f"step-{best_step:08d}.pt")
    capsys.readouterr()
    for command in ("eval", "export"):
        assert main([command, str(tmp_path / "run")]) == EXIT_USAGE  # best is the default
        line = one_line_error(capsys.readouterr().err)
        assert "best.pt" in line and "checksum" in line and "--checkpoint last" in line
    assert not (tmp_path / "run" / "export").exists()


# --------------------------------------------------------------------------- 10: export


def test_export_never_writes_over_a_checkpoint_and_uses_the_usual_permissions(tmp_path, capsys):
    checkpoints = train(tmp_path / "run")
    step = list_checkpoints(checkpoints)[0]
    before = step.read_bytes()
    old = os.umask(0o022)
    try:
        assert main(["export", str(step), "--format", "pt"]) == EXIT_OK
    finally:
        os.umask(old)
    assert step.read_bytes() == before
    verify(step)
    out = tmp_path / "run" / "export" / f"model-{step.stem}.pt"
    assert out.is_file() and str(out) in capsys.readouterr().out
    assert out.stat().st_mode & 0o777 == 0o644
    assert torch.load(out, weights_only=True).keys() == torch.load(step)["state"]["model"].keys()
    os.symlink(step, tmp_path / "link.pt")
    for target in (step, tmp_path / "link.pt", checkpoints / "last.pt"):
        assert main(["export", str(step), "--format", "pt", "--out", str(target)]) == EXIT_USAGE
        assert "overwrite" in one_line_error(capsys.readouterr().err)
    assert step.read_bytes() == before


# --------------------------------------------------------------------------- 11: failed writes


@pytest.mark.parametrize("async_save", ["false", "true"])
def test_a_full_disk_exits_4_with_a_message_and_keeps_the_previous_checkpoint(
    tmp_path, monkeypatch, capsys, async_save
):
    import trainwell.state.atomic as atomic

    real = atomic._HashingWriter.write
    saves = {"started": 0}
    real_init = atomic._HashingWriter.__init__

    def init(self, file):
        saves["started"] += 1
        real_init(self, file)

    def write(self, data):
        if saves["started"] >= 2 and self.size > 1000:  # the second save hits a full disk
            raise OSError(28, "No space left on device")
        return real(self, data)

    monkeypatch.setattr(atomic._HashingWriter, "__init__", init)
    monkeypatch.setattr(atomic._HashingWriter, "write", write)
    run = tmp_path / "run"
    code = main(
        ["train", "--recipe", "spiral", "--run-dir", str(run), "--set", "train.max_epochs=3"]
        + ["--set", f"checkpoint.async_save={async_save}", *SMALL]
    )
    err = capsys.readouterr().err
    assert code == EXIT_WRITE_FAILED, err
    line = one_line_error(err)
    assert "step-00000008.pt" in line and "No space left on device" in line
    assert "needs about" in line and "free" in line
    assert "step-00000004.pt is intact" in line
    names = sorted(p.name for p in (run / "checkpoints").iterdir())
    assert not [n for n in names if ".tmp-" in n]
    assert [p.name for p in list_checkpoints(run / "checkpoints")] == ["step-00000004.pt"]
    assert verify(run / "checkpoints" / "step-00000004.pt")["step"] == 4


# --------------------------------------------------------------------------- 13: trust


def test_a_checkpoint_with_pickled_objects_is_refused_cleanly_unless_trusted(tmp_path, capsys):
    checkpoints = train(tmp_path / "run", epochs=1)
    source = list_checkpoints(checkpoints)[0]
    payload = torch.load(source, weights_only=True)
    payload["state"]["extra"] = Custom()
    old = tmp_path / "old.pt"
    torch.save(payload, old)
    capsys.readouterr()
    assert main(["export", str(old), "--out", str(tmp_path / "m.pt"), "--format", "pt"]) == 2
    line = one_line_error(capsys.readouterr().err)
    assert "\x1b" not in line and f"{__name__}.Custom" in line and "--trust-checkpoint" in line
    args = ["export", str(old), "--out", str(tmp_path / "m.pt"), "--format", "pt"]
    assert main([*args, "--trust-checkpoint"]) == EXIT_OK
    assert (tmp_path / "m.pt").is_file()
    # A run whose checkpoint holds a pickled object evaluates and resumes only when trusted.
    for stale in ("last.pt", "best.pt", "best.json"):
        (checkpoints / stale).unlink()
    shutil.copy(old, source)
    manifest = json.loads(source.with_suffix(".json").read_text())
    manifest["bytes"] = source.stat().st_size
    manifest["sha256"] = hashlib.sha256(source.read_bytes()).hexdigest()
    source.with_suffix(".json").write_text(json.dumps(manifest))
    verify(source)
    evaluate = ["eval", str(tmp_path / "run"), "--checkpoint", str(source)]
    assert main(evaluate) == EXIT_USAGE
    assert "--trust-checkpoint" in one_line_error(capsys.readouterr().err)
    assert main([*evaluate, "--trust-checkpoint"]) == EXIT_OK
    resume = ["resume", str(tmp_path / "run"), "--quiet", "--set", "train.max_epochs=2"]
    assert main(resume) == EXIT_USAGE
    assert "--trust-checkpoint" in one_line_error(capsys.readouterr().err)
    # longer than the run it resumes; no best.pt left: warnings, one trainwell line each
    assert main([*resume, "--trust-checkpoint"]) == EXIT_OK
    said = [line for line in capsys.readouterr().err.splitlines() if "warning" in line]
    assert all(line.startswith("trainwell: warning: ") for line in said), said
    assert "different config" in " ".join(said) and "no best checkpoint" in " ".join(said)
    assert json.loads((tmp_path / "run" / "summary.json").read_text())["epochs"] == 2


# --------------------------------------------------------------------------- 15: --resume auto


def test_train_resume_auto_starts_fresh_then_resumes(tmp_path, capsys):
    run = tmp_path / "run"
    command = ["train", "--recipe", "spiral", "--run-dir", str(run), "--resume", "auto"]
    command += ["--set", "train.max_epochs=2", "--set", "model.hidden=8"]
    assert main(command) == EXIT_OK  # nothing to resume: a fresh start
    assert "starting fresh" in capsys.readouterr().err
    summary = json.loads((run / "summary.json").read_text())
    assert summary["epochs"] == 2
    assert main([*command, "--set", "train.max_epochs=3"]) == EXIT_OK  # restarted, longer
    err = capsys.readouterr().err
    assert "trainwell: warning: resuming" in err and "different config" in err
    assert "resuming" in err and "starting fresh" not in err
    history = [json.loads(line) for line in (run / "metrics.jsonl").read_text().splitlines()]
    assert [r["epoch"] for r in history if r["kind"] == "epoch"] == [1, 2, 3]
    assert json.loads((run / "summary.json").read_text())["epochs"] == 3


def test_resume_auto_needs_a_run_dir(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)  # where a default run directory would go
    assert main(["train", "--recipe", "spiral", "--resume", "auto", *SMALL]) == EXIT_USAGE
    assert "--run-dir" in one_line_error(capsys.readouterr().err)


def test_resume_auto_refuses_when_no_checkpoint_is_loadable(flip_tensor_bytes, tmp_path, capsys):
    checkpoints = train(tmp_path / "run", epochs=1)
    for path in list_checkpoints(checkpoints):
        flip_tensor_bytes(path)
    capsys.readouterr()
    command = ["train", "--recipe", "spiral", "--run-dir", str(tmp_path / "run")]
    assert main([*command, "--resume", "auto", *SMALL]) == EXIT_USAGE  # never a silent restart
    assert "no loadable checkpoint" in one_line_error(capsys.readouterr().err)


# --------------------------------------------------------------------------- 7: guard stops


def test_a_run_stopped_by_a_guard_exits_3_and_says_why(tmp_path, monkeypatch, capsys):
    (tmp_path / "nanrecipe.py").write_text(
        "import torch\n"
        "from trainwell.recipes import Job\n"
        "def build(config):\n"
        "    x = torch.randn(64, 4)\n"
        "    x[5, 0] = float('nan')\n"
        "    y = torch.randint(0, 3, (64,))\n"
        "    return Job(model=torch.nn.Linear(4, 3), train_data=(x, y))\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    code = main(
        ["train", "--recipe", "nanrecipe:build", "--run-dir", str(tmp_path / "run"), "--quiet"]
        + ["--set", "train.max_epochs=2", "--set", "guards.nonfinite=stop"]
    )
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert code == EXIT_GUARD_STOPPED
    err = capsys.readouterr().err
    assert "trainwell: warning: " in err and "nonfinite-input" in err  # the guard's finding
    line = one_line_error(err)
    assert "runtime guard stopped the run" in line
    assert " ".join(summary["stopped_by_guard"].split()) in line
