"""Where features meet under DDP (two gloo processes on the CPU): a custom step, BatchNorm and
the stop vote give what each gives alone (see seams_job.py)."""

import subprocess
import sys
from pathlib import Path

import pytest
import torch
from tests.system.distributed.launch import env, load, torchrun_cmd

pytestmark = pytest.mark.slow

SEAMS = Path(__file__).with_name("seams_job.py")


def run(*args, nproc=2):
    if nproc == 1:
        cmd = [sys.executable, str(SEAMS), *args]
    else:
        cmd = [*torchrun_cmd(nproc, script=SEAMS), *args]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=env())
    assert done.returncode == 0, done.stderr[-3000:]


def test_a_step_that_calls_a_submodule_trains_as_one_process_with_the_doubled_batch(tmp_path):
    """The step never calls the DDP wrapper: `TrainStep.update` averages its gradients."""
    out = str(tmp_path / "w")
    run("--case", "submodule", "--out", f"{out}-ddp", "--batch", "16")
    run("--case", "submodule", "--out", f"{out}-one", "--batch", "32", nproc=1)
    rank0, rank1, one = (load(f"{out}-{s}") for s in ("ddp.rank0", "ddp.rank1", "one.rank0"))
    assert rank0["steps"] == one["steps"] == 3 * 192 // 32
    for name, weight in one["state"].items():
        torch.testing.assert_close(rank0["state"][name], weight, rtol=1e-4, atol=1e-5)
        torch.testing.assert_close(rank1["state"][name], rank0["state"][name], rtol=0, atol=0)


def test_the_gan_recipe_ends_with_the_same_weights_on_every_rank(tmp_path):
    out = str(tmp_path / "w")
    run("--case", "gan", "--out", out)
    rank0, rank1 = load(f"{out}.rank0"), load(f"{out}.rank1")
    assert rank0["steps"] == rank1["steps"] > 0
    moved = [n for n, w in rank0["state"].items() if "weight" in n]
    assert moved  # the generator's and the discriminator's layers
    for name, weight in rank0["state"].items():
        torch.testing.assert_close(rank1["state"][name], weight, rtol=0, atol=0)


def test_batchnorm_ranks_validate_one_model_and_end_identical(tmp_path):
    out = str(tmp_path / "w")
    run("--case", "batchnorm", "--out", out)
    rank0, rank1 = load(f"{out}.rank0"), load(f"{out}.rank1")
    buffers = [n for n in rank0["state"] if "running_" in n]
    assert buffers
    for name, value in rank0["state"].items():  # weights and BatchNorm statistics
        torch.testing.assert_close(rank1["state"][name], value, rtol=0, atol=0)
    assert rank0["best_epoch"] == rank1["best_epoch"] is not None
    val0 = [r["val_loss"] for r in rank0["history"]]
    assert val0 == [r["val_loss"] for r in rank1["history"]]


def test_no_training_step_waits_on_a_collective_of_its_own(tmp_path):
    """The per-step stop vote is sent without waiting: between two log reads a step issues no
    blocking all-reduce (the gradient all-reduce is DDP's own, inside backward)."""
    out = str(tmp_path / "w")
    run("--case", "batchnorm", "--out", out)
    for rank in (0, 1):
        per_step = load(f"{out}.rank{rank}")["blocking_per_step"]
        assert per_step and set(per_step) == {0}, per_step


@pytest.mark.parametrize("strategy", ["fsdp", "ddp"])
def test_a_checkpoint_between_validations_holds_the_model_every_rank_validates(tmp_path, strategy):
    """Saves every 5 steps, mid-epoch: the ranks' BatchNorm statistics differ there (each saw
    its own batches), and the checkpoint must hold rank 0's — the statistics every rank
    validates with — whichever rank a sharded save writes replicated buffers from."""
    out, run_dir = str(tmp_path / "w"), tmp_path / "run"
    run("--case", "batchnorm", "--out", out, "--strategy", strategy, "--run-dir", str(run_dir))
    rank0, rank1 = load(f"{out}.rank0"), load(f"{out}.rank1")
    from trainwell.state.weights import read_weights

    differed = 0
    for step in (5, 10, 15):
        saved = read_weights(run_dir / "checkpoints" / f"step-{step:08d}.pt")
        for name, value in rank0["buffers_at"][step].items():
            torch.testing.assert_close(saved[name], value, rtol=0, atol=0)
            differed += not torch.equal(rank1["buffers_at"][step][name], value)
    assert differed  # the ranks' statistics did differ: the test can tell them apart
