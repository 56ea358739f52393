"""benchmarks/gpu.py --size tiny runs on the CPU and prints its markdown table."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]


@pytest.mark.slow
def test_gpu_benchmark_tiny_prints_a_table_on_the_cpu() -> None:
    done = subprocess.run(
        [
            sys.executable,
            "benchmarks/gpu.py",
            "--size",
            "tiny",
            "--device",
            "cpu",
            "--repeats",
            "1",
            "--contenders",
            "fit",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    out = done.stdout
    assert "fit-cudagraphs: skipped (CUDA graphs need a CUDA device)" in out
    assert "| contender | ms/step | tokens/s | vs hand | MFU | card | torch |" in out
    rows = {line.split("|")[1].strip(): line for line in out.splitlines() if line.startswith("| ")}
    assert set(rows) >= {"hand", "fit"}
    assert "| 1.00x |" in rows["hand"]
    # a tokens/s figure and an MFU against the CPU probe, in every measured row
    for name in ("hand", "fit"):
        assert (
            re.search(r"\| [\d,]+ \| [\d.]+x \| [\d.]+% \| CPU \|", rows[name])
            or "n/a" in rows[name]
        )
