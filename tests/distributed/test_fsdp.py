"""FSDP2 (``fully_shard``) through torchrun with gloo, two processes on the CPU (slow).

Each rank keeps half of every parameter, gradient and AdamW moment; the gradients are
reduce-scattered and clipping takes the norm over both shards. Two ranks with batch B must
then train exactly as one process with batch 2B, and a checkpoint (full state, gathered on
rank 0) must resume on two ranks and on one.
"""

import json
import os
import signal
import subprocess
import time

import pytest
import torch
from tests.distributed.launch import alone, env, load, torchrun, torchrun_cmd

pytestmark = pytest.mark.slow


def _logged(run, key):
    records = [json.loads(line) for line in (run / "metrics.jsonl").open()]
    return [r[key] for r in records if key in r and r.get("kind") == "step"]


@pytest.mark.parametrize("accumulate", [1, 2])
def test_two_sharded_ranks_with_batch_b_equal_one_process_with_batch_2b(tmp_path, accumulate):
    out = str(tmp_path / "w")
    common = ["--accumulate", str(accumulate), "--clip", "0.05"]  # clipping active every step
    torchrun("--out", f"{out}-fsdp", "--batch", "16", "--strategy", "fsdp",
             "--run-dir", str(tmp_path / "fsdp"), *common)  # fmt: skip
    alone("--out", f"{out}-one", "--batch", "32", "--run-dir", str(tmp_path / "one"), *common)
    fsdp0, fsdp1 = load(f"{out}-fsdp.rank0"), load(f"{out}-fsdp.rank1")
    one = load(f"{out}-one.rank0")
    assert fsdp0["steps"] == one["steps"] == 3 * 192 // (32 * accumulate)
    for name, weight in one["state"].items():
        torch.testing.assert_close(fsdp0["state"][name], weight, rtol=1e-4, atol=1e-5)
        torch.testing.assert_close(fsdp1["state"][name], fsdp0["state"][name], rtol=0, atol=0)
    for a, b in zip(fsdp0["history"], one["history"], strict=True):
        assert a["train_loss"] == pytest.approx(b["train_loss"], rel=1e-4)
        assert a["val_loss"] == pytest.approx(b["val_loss"], rel=1e-4)
    # the clipped norm is the global one: over both shards, equal to one process's norm
    sharded, whole = _logged(tmp_path / "fsdp", "grad_norm"), _logged(tmp_path / "one", "grad_norm")
    assert len(sharded) == len(whole) >= 3
    assert sharded == pytest.approx(whole, rel=1e-5)
    assert min(whole) > 0.05  # so clipping changed every update


def test_a_sharded_checkpoint_resumes_on_two_ranks_exactly_and_on_one(tmp_path):
    out, run = str(tmp_path / "w"), tmp_path / "run"
    torchrun("--out", f"{out}-full", "--strategy", "fsdp", "--run-dir", str(run))
    saved = sorted((run / "checkpoints").glob("step-*.pt"))
    assert [p.name for p in saved] == ["step-00000012.pt", "step-00000018.pt"]
    # rank 0 wrote the single-process format: same model keys, an indexed optimizer state
    state = load(saved[0])["state"]
    full = load(f"{out}-full.rank0")["state"]
    assert set(state["model"]) == set(full)
    assert sorted(state["optimizer"]["state"]) == list(range(len(full)))
    middle = saved[0]
    for copy, launch in (("two", torchrun), ("one", alone)):
        run_copy = tmp_path / copy
        subprocess.run(["cp", "-r", str(run), str(run_copy)], check=True)
        resume = str(run_copy / "checkpoints" / middle.name)
        strategy = "fsdp" if copy == "two" else "single"
        batch = "16" if copy == "two" else "32"
        launch("--out", f"{out}-{copy}", "--strategy", strategy, "--batch", batch,
               "--run-dir", str(run_copy), "--resume", resume)  # fmt: skip
    two, one = load(f"{out}-two.rank0")["state"], load(f"{out}-one.rank0")["state"]
    for name, weight in full.items():
        assert torch.equal(two[name], weight), name  # same world size: bit-identical
        torch.testing.assert_close(one[name], weight, rtol=1e-5, atol=1e-6)


def test_sigterm_to_one_sharded_rank_stops_both_after_the_same_collective_save(tmp_path):
    out, run, pids = str(tmp_path / "w"), tmp_path / "run", tmp_path / "pids"
    pids.mkdir()
    cmd = [*torchrun_cmd(2), "--out", out, "--epochs", "50", "--strategy", "fsdp",
           "--run-dir", str(run), "--pid-dir", str(pids)]  # fmt: skip
    launcher = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env()
    )
    deadline = time.monotonic() + 120
    while not (pids / "rank1.pid").exists():
        assert launcher.poll() is None and time.monotonic() < deadline, launcher.communicate()
        time.sleep(0.05)
    os.kill(int((pids / "rank1.pid").read_text()), signal.SIGTERM)
    _, stderr = launcher.communicate(timeout=120)
    assert launcher.returncode == 0, stderr[-3000:]
    r0, r1 = load(f"{out}.rank0"), load(f"{out}.rank1")
    assert r0["steps"] == r1["steps"] < 50 * 192 // 16
    saved = sorted((run / "checkpoints").glob("step-*.pt"))
    assert saved[-1].name == f"step-{r0['steps']:08d}.pt"
    weights = load(saved[-1])["state"]["model"]
    for name, weight in r0["state"].items():
        assert torch.equal(weights[name], weight), name  # the gathered state is the final one


def test_a_rank_killed_under_max_restarts_resumes_and_ends_with_the_same_weights(tmp_path):
    """torchrun restarts both workers with the same command; trainwell sees the restart and
    resumes from the newest good checkpoint (the command never asked to resume)."""
    out, pids = str(tmp_path / "w"), tmp_path / "pids"
    pids.mkdir()
    args = ["--epochs", "8", "--strategy", "fsdp"]
    torchrun("--out", f"{out}-full", "--run-dir", str(tmp_path / "full"), *args)
    run = tmp_path / "restarted"
    launcher = subprocess.Popen(
        [
            *torchrun_cmd(2, "--max-restarts", "1"),
            "--out",
            f"{out}-restarted",
            "--run-dir",
            str(run),
            "--pid-dir",
            str(pids),
            *args,
        ],  # fmt: skip
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env(),
    )
    deadline = time.monotonic() + 120
    while not list((run / "checkpoints").glob("step-*.pt")):
        assert launcher.poll() is None and time.monotonic() < deadline, launcher.communicate()
        time.sleep(0.05)
    os.kill(int((pids / "rank1.pid").read_text()), signal.SIGKILL)
    _, stderr = launcher.communicate(timeout=180)
    assert launcher.returncode == 0, stderr[-3000:]
    full, restarted = load(f"{out}-full.rank0"), load(f"{out}-restarted.rank0")
    assert restarted["steps"] == full["steps"] == 8 * 192 // 32
    assert restarted["restarts"] == 1
    for name, weight in full["state"].items():
        assert torch.equal(restarted["state"][name], weight), name
