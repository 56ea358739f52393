"""Kill -9 at random points (including mid-write), resume, and get the same run bit for bit."""

import random
import subprocess
import sys
from pathlib import Path

import pytest
import torch

pytestmark = (
    pytest.mark.cpu_only
)  # asserts CPU semantics (exact parity with CPU tensors, fp32, CPU probes): CUDA hidden

JOB = Path(__file__).with_name("job.py")


def run_job(run_dir, out, *extra, check=True):
    proc = subprocess.run(
        [sys.executable, str(JOB), "--run-dir", str(run_dir), "--out", str(out), *extra],
        capture_output=True,
        text=True,
        timeout=300,
    )
    if check:
        assert proc.returncode == 0, proc.stderr
    return proc


def assert_same_run(a_path, b_path):
    a, b = torch.load(a_path, weights_only=True), torch.load(b_path, weights_only=True)
    for key, tensor in a["model"].items():
        assert torch.equal(tensor, b["model"][key]), f"model.{key} differs"
    assert_same_tree(a["optimizer"], b["optimizer"], "optimizer")
    assert a["history"] == b["history"]


def assert_same_tree(a, b, where):
    if isinstance(a, torch.Tensor):
        assert torch.equal(a, b), f"{where} differs"
    elif isinstance(a, dict):
        assert a.keys() == b.keys(), where
        for key in a:
            assert_same_tree(a[key], b[key], f"{where}.{key}")
    elif isinstance(a, list | tuple):
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b)):
            assert_same_tree(x, y, f"{where}[{i}]")
    else:
        assert a == b, f"{where}: {a!r} != {b!r}"


CASES = {
    "fp32": [],
    "workers2-accumulate2": ["--workers", "2", "--accumulate", "2"],
    "fp16-scaler-accumulate2": ["--precision", "fp16", "--accumulate", "2"],
    "gan-two-optimizers": ["--recipe", "gan"],
}


@pytest.fixture(scope="module")
def references(tmp_path_factory):
    """One uninterrupted run per case."""
    refs = {}
    for name, extra in CASES.items():
        base = tmp_path_factory.mktemp(f"ref-{name}")
        run_job(base / "run", base / "final.pt", *extra)
        refs[name] = base / "final.pt"
    return refs


@pytest.mark.slow
@pytest.mark.parametrize("case", list(CASES))
def test_sigkill_at_random_steps_and_mid_write_then_resume_is_bit_identical(
    case, references, tmp_path
):
    rng = random.Random(f"trial-{case}")
    extra = CASES[case]
    run_dir, out = tmp_path / "run", tmp_path / "final.pt"
    steps_total = 4 * (12 // (2 if "--accumulate" in extra else 1))
    # First death: after a random optimizer step (not necessarily at a checkpoint).
    kill_step = rng.randrange(4, steps_total - 2)
    died = run_job(run_dir, out, *extra, "--kill-at-step", str(kill_step), check=False)
    assert died.returncode == -9
    # Second death: halfway through writing a checkpoint, after resuming.
    died = run_job(
        run_dir, out, *extra, "--resume", "--kill-in-save", str(rng.randrange(1, 3)), check=False
    )
    assert died.returncode == -9
    assert not out.exists()
    # Leftover temporary files are never mistaken for checkpoints; resume finishes the run.
    finished = run_job(run_dir, out, *extra, "--resume")
    assert finished.returncode == 0
    assert_same_run(references[case], out)


@pytest.mark.slow
def test_async_save_run_resumed_after_kill_matches(references, tmp_path):
    run_dir, out = tmp_path / "run", tmp_path / "final.pt"
    died = run_job(run_dir, out, "--async-save", "--kill-at-step", "8", check=False)
    assert died.returncode == -9
    run_job(run_dir, out, "--async-save", "--resume")
    assert_same_run(references["fp32"], out)


def test_detects_a_different_run(references, tmp_path):
    """The comparison is not vacuous: a run with another seed-dependent setting differs."""
    out = tmp_path / "final.pt"
    run_job(tmp_path / "run", out, "--every-steps", "5", "--epochs", "3")
    with pytest.raises(AssertionError):
        assert_same_run(references["fp32"], out)
