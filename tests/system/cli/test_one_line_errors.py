"""User mistakes and full disks on the CLI: one line on stderr, a documented exit code, no
traceback, no temporary file left and nothing already saved lost."""

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
