"""The pre-commit hook's entry run as pre-commit runs it: a subprocess, with the staged files
appended."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import yaml
from tests.unit.doctor.test_formats import BUGGY

ROOT = Path(__file__).parents[3]


def test_pre_commit_entry_runs(tmp_path: Path) -> None:
    hook = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())[0]
    _, *args = shlex.split(hook["entry"])
    (tmp_path / "t.py").write_text(BUGGY)
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    run = [sys.executable, "-c", "import sys; from trainwell.cli import main; sys.exit(main())"]
    helped = subprocess.run([*run, *args, "--help"], capture_output=True, text=True, env=env,
                            timeout=120)  # fmt: skip
    assert helped.returncode == 0, helped.stderr
    assert "usage: trainwell doctor" in helped.stdout
    # pre-commit appends the staged file names to the entry
    checked = subprocess.run([*run, *args, str(tmp_path / "t.py")], capture_output=True,
                             text=True, env=env, timeout=120)  # fmt: skip
    assert checked.returncode == 1 and " TW001 " in checked.stdout
