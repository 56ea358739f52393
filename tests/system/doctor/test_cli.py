"""The doctor's command line in real subprocesses: ``python -m trainwell.doctor`` and a reader
that leaves early."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path


def test_python_dash_m(tree: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[3] / "src")}
    proc = subprocess.run(
        [sys.executable, "-m", "trainwell.doctor", "--format", "json", str(tree / "b_buggy.py")],
        capture_output=True, text=True, env=env, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 1, proc.stderr
    assert [d["code"] for d in json.loads(proc.stdout)] == ["TW001", "TW015"]


def test_a_reader_that_leaves_early_gets_no_traceback() -> None:
    """``trainwell doctor --explain TW017 | head -1``: the reader is gone before the output
    ends (here before it starts: the pipe's read end is closed first)."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        writer = subprocess.run(
            [sys.executable, "-m", "trainwell.doctor", "--explain", "TW017"],
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
        )
    finally:
        os.close(write_end)
    assert "Traceback" not in writer.stderr, writer.stderr
    assert writer.returncode == 141
