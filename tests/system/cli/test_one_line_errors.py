"""User mistakes and full disks on the CLI: one line on stderr, a documented exit code, no
traceback, no temporary file left and nothing already saved lost."""

import json
import shutil
import subprocess
import sys

import pytest

BAD_CONFIGS = {
    "list": b"[1, 2]\n",
    "string": b"hello\n",
    "section_list": b"run: [1, 2]\n",
    "not_utf8": b"run:\n  recipe: \xff\xfe\n",
    "alias_loop": b"a: &a [*a]\n",
    "section_loop": b"run: &r\n  recipe: *r\n",
}


def trainwell(*args, cwd=None):
    return subprocess.run(
        [sys.executable, "-m", "trainwell", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=300,
    )


def assert_one_line(proc, code, *words):
    assert proc.returncode == code, proc.stderr
    assert "Traceback" not in proc.stderr, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("trainwell: error: "), proc.stderr
    for word in words:
        assert word in lines[0], proc.stderr


@pytest.fixture(scope="module")
def spiral_run(tmp_path_factory):
    """A finished 2-epoch spiral run on the CPU, copied by each test that changes it."""
    run_dir = tmp_path_factory.mktemp("spiral") / "run"
    proc = trainwell(
        "train", "--recipe", "spiral", "--run-dir", str(run_dir), "--quiet",
        "--set", "train.max_epochs=2", "--set", "run.device=cpu", "--set", "log.csv=false",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return run_dir


@pytest.fixture
def run_copy(spiral_run, tmp_path):
    copy = tmp_path / "run"
    shutil.copytree(spiral_run, copy, symlinks=True)
    return copy


@pytest.mark.parametrize("case", sorted(BAD_CONFIGS))
@pytest.mark.parametrize("command", ["eval", "export", "resume"])
def test_a_broken_config_yaml_in_a_run_directory_is_one_line(run_copy, case, command):
    (run_copy / "config.yaml").write_bytes(BAD_CONFIGS[case])
    before = sorted(p.name for p in (run_copy / "checkpoints").iterdir())
    proc = trainwell(command, str(run_copy))
    assert_one_line(proc, 2, "config.yaml")
    assert sorted(p.name for p in (run_copy / "checkpoints").iterdir()) == before
    assert not (run_copy / "export").exists()


@pytest.mark.parametrize("case", sorted(BAD_CONFIGS))
def test_a_broken_config_file_on_train_is_one_line(tmp_path, case):
    bad = tmp_path / "bad.yaml"
    bad.write_bytes(BAD_CONFIGS[case])
    run_dir = tmp_path / "run"
    proc = trainwell("train", "--config", str(bad), "--run-dir", str(run_dir), "--quiet")
    assert_one_line(proc, 2, "bad.yaml")
    assert not (run_dir / "checkpoints").exists()


def trainwell_on_a_full_disk(*args, cwd=None):
    """The command with every fsync failing as on a full disk (ENOSPC)."""
    code = (
        "import errno, os, sys\n"
        "def full(fd):\n"
        "    raise OSError(errno.ENOSPC, 'No space left on device')\n"
        "os.fsync = full\n"
        "from trainwell.cli.app import main\n"
        "sys.exit(main(sys.argv[1:]))\n"
    )
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=300,
    )


def test_plot_of_a_binary_metrics_file_is_one_line(run_copy):
    (run_copy / "metrics.jsonl").write_bytes(b"\x00\xff\xfe\x89PNG\r\n\x1a\x00\x00garbage\n")
    proc = trainwell("plot", str(run_copy))
    assert_one_line(proc, 2, "metrics.jsonl", "no readable record")
    assert not (run_copy / "plots").exists()


def test_plot_skips_unreadable_lines_with_one_warning(run_copy):
    with (run_copy / "metrics.jsonl").open("ab") as f:
        f.write(b'\x00\xff binary\n{"kind": "step", "step": 99, "lo')
    proc = trainwell("plot", str(run_copy))
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.strip().splitlines() == [
        f"trainwell: warning: skipped 2 unreadable lines of {run_copy / 'metrics.jsonl'} "
        "(binary, or cut short by a crash); plotted the rest"
    ]
    assert (run_copy / "plots" / "loss.png").is_file()


def test_plot_on_a_full_disk_exits_4_with_no_temp_file(run_copy):
    proc = trainwell_on_a_full_disk("plot", str(run_copy))
    assert_one_line(proc, 4, "No space left on device", "loss.png")
    assert list((run_copy / "plots").iterdir()) == []


def test_plot_into_a_directory_it_cannot_make_exits_4(run_copy, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    proc = trainwell("plot", str(run_copy), "--out", str(blocker / "plots"))
    assert_one_line(proc, 4, str(blocker))


def test_lr_find_on_a_full_disk_or_an_unwritable_out_exits_4(tmp_path):
    out = tmp_path / "sweep"
    args = ["lr-find", "--recipe", "spiral", "--steps", "12", "--set", "run.device=cpu"]
    proc = trainwell_on_a_full_disk(*args, "--out", str(out))
    assert proc.returncode == 4, proc.stderr
    assert "Traceback" not in proc.stderr
    assert proc.stderr.strip().splitlines()[-1].startswith("trainwell: error: could not write")
    assert "lr_find.json: No space left on device" in proc.stderr
    assert "suggested lr" in proc.stdout  # the sweep's answer is not lost
    assert list(out.iterdir()) == []
    blocker = tmp_path / "file"
    blocker.write_text("")
    proc = trainwell(*args, "--out", str(blocker / "sweep"))
    assert_one_line(proc, 4, f"cannot write into {blocker / 'sweep'}")


def test_a_resume_starts_its_first_record_on_a_new_line(run_copy):
    metrics = run_copy / "metrics.jsonl"
    whole = metrics.read_bytes()
    with metrics.open("ab") as f:
        f.write(b'{"kind": "step", "step": 99, "loss": 0.')  # killed mid-write
    proc = trainwell("resume", str(run_copy), "--set", "train.max_epochs=3", "--quiet")
    assert proc.returncode == 0, proc.stderr
    text = metrics.read_bytes()
    assert text.startswith(whole)
    records = [json.loads(line) for line in text.decode().splitlines()]  # every line parses
    assert records[-1]["kind"] == "epoch" and records[-1]["epoch"] == 3


def test_plot_draws_what_the_gan_recipe_logs(tmp_path):
    pytest.importorskip("matplotlib")
    from trainwell.observe.plots import figures, read_run

    run_dir = tmp_path / "gan"
    proc = trainwell(
        "train", "--recipe", "gan", "--run-dir", str(run_dir), "--quiet",
        "--set", "train.max_epochs=2", "--set", "run.device=cpu",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    drawn = {
        name: [line.get_label() for ax in fig.axes for line in ax.get_lines()]
        for name, fig in figures([read_run(run_dir)])
    }
    for name in ("d_loss", "g_loss", "train_d_loss", "train_g_loss", "train_loss"):
        assert name in drawn["loss.png"], drawn
    logged = {
        k for line in (run_dir / "metrics.jsonl").read_text().splitlines()
        for k, v in json.loads(line).items()
        if k not in ("kind", "step", "epoch") and isinstance(v, float | int)
        and not isinstance(v, bool)
    }  # fmt: skip
    assert logged <= {label.split(" (")[0] for labels in drawn.values() for label in labels}


TENSORBOARD_AND_CHECKPOINTS_FULL = """
import errno, sys
from tensorboard.summary.writer import record_writer
import trainwell.state.atomic as atomic

def full(self, data):
    raise OSError(errno.ENOSPC, "No space left on device")

real, calls = record_writer.RecordWriter.write, []
def tensorboard_write(self, data):  # the file version record goes through, then the disk is full
    calls.append(1)
    return real(self, data) if len(calls) <= 1 else full(self, data)

record_writer.RecordWriter.write = tensorboard_write
atomic._HashingWriter.write = full  # every checkpoint write
from trainwell.cli.app import main
sys.exit(main(sys.argv[1:]))
"""


def test_a_full_disk_under_tensorboard_exits_4_like_one_without_it(tmp_path):
    pytest.importorskip("tensorboard")
    codes = {}
    for tensorboard in ("true", "false"):
        run_dir = tmp_path / f"tb-{tensorboard}"
        proc = subprocess.run(
            [
                sys.executable, "-c", TENSORBOARD_AND_CHECKPOINTS_FULL, "train",
                "--recipe", "spiral", "--run-dir", str(run_dir), "--quiet",
                "--set", "train.max_epochs=2", "--set", "run.device=cpu",
                "--set", f"log.tensorboard={tensorboard}",
            ],
            capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        assert "Traceback" not in proc.stderr and "Exception in thread" not in proc.stderr
        errors = [line for line in proc.stderr.splitlines() if "trainwell: error:" in line]
        assert len(errors) == 1, proc.stderr
        assert "could not write" in errors[0] and "step-00000025.pt" in errors[0]
        assert not [p for p in (run_dir / "checkpoints").iterdir() if ".tmp" in p.name]
        codes[tensorboard] = proc.returncode
    assert codes == {"true": 4, "false": 4}


@pytest.mark.parametrize("fmt, suffix", [("exported", "pt2"), ("onnx", "onnx")])
def test_an_export_onto_a_full_disk_exits_4_and_leaves_no_temp_file(run_copy, fmt, suffix):
    if fmt == "onnx":
        pytest.importorskip("onnxruntime")
    export = run_copy / "export"
    export.mkdir()
    (export / f"model-best.{suffix}").write_bytes(b"an earlier export")
    # the temporary file is written through /dev/full: every write is a real ENOSPC
    (export / f".tmp-model-best.{suffix}").symlink_to("/dev/full")
    proc = trainwell("export", str(run_copy), "--format", fmt)
    assert proc.returncode == 4, proc.stderr
    assert "Traceback" not in proc.stderr
    errors = [line for line in proc.stderr.splitlines() if line.startswith("trainwell: error:")]
    assert len(errors) == 1, proc.stderr
    assert errors[0].startswith(
        f"trainwell: error: could not write {export / f'model-best.{suffix}'}: No space left"
    )
    assert errors[0].endswith(f"; model-best.{suffix} is unchanged")
    assert sorted(p.name for p in export.iterdir()) == [f"model-best.{suffix}"]
    assert (export / f"model-best.{suffix}").read_bytes() == b"an earlier export"


CTRL_C_TWICE_DURING_A_SAVE = """
import os, signal, sys
import trainwell.state.atomic as atomic

real, saves, calls = atomic._HashingWriter.write, [], []
def write(self, data):  # the second checkpoint: Ctrl-C (save and stop), then Ctrl-C again
    if self.size == 0:
        saves.append(1)
    if len(saves) == 2:
        calls.append(1)
        if len(calls) == 3:
            os.kill(os.getpid(), signal.SIGINT)
            os.kill(os.getpid(), signal.SIGINT)
    return real(self, data)

atomic._HashingWriter.write = write
from trainwell.cli.app import main
sys.exit(main(sys.argv[1:]))
"""


def test_ctrl_c_twice_during_the_save_exits_130_with_the_previous_checkpoint_intact(tmp_path):
    from trainwell.state.checkpoint import load_checkpoint, verify

    run_dir = tmp_path / "run"
    proc = subprocess.run(
        [
            sys.executable, "-c", CTRL_C_TWICE_DURING_A_SAVE, "train", "--recipe", "spiral",
            "--run-dir", str(run_dir), "--quiet", "--set", "train.max_epochs=3",
            "--set", "run.device=cpu",
        ],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 130, proc.stderr  # not "could not write" (exit 4)
    assert proc.stderr.strip().splitlines() == ["trainwell: interrupted"]
    files = sorted(p.name for p in (run_dir / "checkpoints").iterdir())
    assert files == ["best.json", "best.pt", "last.pt", "step-00000025.json", "step-00000025.pt"]
    assert verify(run_dir / "checkpoints" / "step-00000025.pt")["step"] == 25
    assert load_checkpoint(run_dir / "checkpoints" / "last.pt")["manifest"]["step"] == 25


@pytest.mark.parametrize("what", ["symlink-loop", "file"])
@pytest.mark.parametrize("command", ["eval", "export", "resume", "train"])
def test_a_checkpoints_path_that_is_no_directory_is_one_line(run_copy, what, command):
    checkpoints = run_copy / "checkpoints"
    shutil.rmtree(checkpoints)
    if what == "file":
        checkpoints.write_text("not a directory")
    else:
        checkpoints.symlink_to("checkpoints")  # checkpoints -> checkpoints
    metrics = (run_copy / "metrics.jsonl").read_bytes()
    args = [command, str(run_copy)]
    if command == "train":
        args = ["train", "--recipe", "spiral", "--run-dir", str(run_copy), "--resume", "auto",
                "--set", "run.device=cpu", "--quiet"]  # fmt: skip
    proc = trainwell(*args)
    words = ["symbolic link loop"] if what == "symlink-loop" else ["is a file, not a directory"]
    assert_one_line(proc, 2, str(checkpoints), *words)
    assert (run_copy / "metrics.jsonl").read_bytes() == metrics
