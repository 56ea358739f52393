"""``trainwell train --nproc N`` leaves nothing in the temp directory: torchrun's per-launch
log folder (``torchelastic_*``) is trainwell's own and removed when the launch ends."""

import subprocess
import sys

import pytest
from tests.system.distributed.launch import env

pytestmark = pytest.mark.slow


def test_a_two_process_launch_leaves_no_torchelastic_folder(tmp_path):
    temp = tmp_path / "tmp"
    temp.mkdir()
    done = subprocess.run(
        [sys.executable, "-m", "trainwell", "train", "--nproc", "2", "--quiet",
         "--run-dir", str(tmp_path / "run"), "--set", "train.max_epochs=1"],
        capture_output=True, text=True, timeout=300, env={**env(), "TMPDIR": str(temp)},
        cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert (tmp_path / "run" / "summary.json").is_file()
    left = sorted(p.name for p in temp.iterdir() if not p.name.startswith("torchinductor"))
    assert left == [], left
