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
import sys
import time

import pytest
import torch
from tests.system.distributed.launch import alone, env, load, torchrun, torchrun_cmd

import trainwell as tw
from trainwell.state.weights import read_weights

pytestmark = [
    pytest.mark.slow,
    pytest.mark.cpu_only,
]  # asserts CPU semantics (exact parity with CPU tensors, fp32, CPU probes): CUDA hidden


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


@pytest.mark.parametrize(
    ("sharded", "save"), [("true", "sync"), ("true", "async"), ("false", "sync")]
)
def test_an_fsdp_checkpoint_resumes_on_two_ranks_exactly_and_on_one(tmp_path, sharded, save):
    """Sharded (every rank writes its shards, also in the background: async) or full (rank 0
    writes the gathered state): either resumes bit-identically on two ranks and, resharded,
    on one plain process."""
    out, run = str(tmp_path / "w"), tmp_path / "run"
    fsdp = [
        "--strategy",
        "fsdp",
        "--sharded",
        sharded,
        *(["--async-save"] if save == "async" else []),
    ]
    torchrun("--out", f"{out}-full", "--run-dir", str(run), *fsdp)
    checkpoints = run / "checkpoints"
    saved = sorted(checkpoints.glob("step-*.pt"))
    assert [p.name for p in saved] == ["step-00000012.pt", "step-00000018.pt"]
    state = load(saved[0])["state"]
    full = load(f"{out}-full.rank0")["state"]
    if sharded == "true":  # markers in the step file, each rank's shards beside it
        assert state["model"] == state["optimizer"] == {"sharded": "step-00000012.dcp"}
        shards = sorted(p.name for p in (checkpoints / "step-00000012.dcp").iterdir())
        assert shards == [".metadata", "__0_0.distcp", "__1_0.distcp"]
        assert sorted(p.name for p in checkpoints.glob("*.dcp")) == [  # retention took step 6
            "step-00000012.dcp",
            "step-00000018.dcp",
        ]
    else:  # the single-process format: same model keys, an indexed optimizer state
        assert set(state["model"]) == set(full)
        assert sorted(state["optimizer"]["state"]) == list(range(len(full)))
    middle = saved[0]
    for copy, launch in (("two", torchrun), ("one", alone)):
        run_copy = tmp_path / copy
        subprocess.run(["cp", "-r", str(run), str(run_copy)], check=True)
        resume = str(run_copy / "checkpoints" / middle.name)
        strategy = ["--strategy", "fsdp"] if copy == "two" else ["--strategy", "single"]
        batch = "16" if copy == "two" else "32"
        launch("--out", f"{out}-{copy}", *strategy, "--sharded", sharded, "--batch", batch,
               "--run-dir", str(run_copy), "--resume", resume)  # fmt: skip
    two, one = load(f"{out}-two.rank0")["state"], load(f"{out}-one.rank0")["state"]
    for name, weight in full.items():
        assert torch.equal(two[name], weight), name  # same world size: bit-identical
        torch.testing.assert_close(one[name], weight, rtol=1e-5, atol=1e-6)
    # export/eval read the sharded checkpoint's whole weights
    for name, weight in read_weights(checkpoints / "last.pt").items():
        assert torch.equal(weight, full[name]), name


def test_a_damaged_shard_makes_resume_fall_back_to_the_previous_good_checkpoint(tmp_path):
    out, run = str(tmp_path / "w"), tmp_path / "run"
    torchrun("--out", f"{out}-a", "--run-dir", str(run), "--strategy", "fsdp")
    newest = run / "checkpoints" / "step-00000018.dcp" / "__1_0.distcp"
    data = bytearray(newest.read_bytes())
    data[len(data) // 2] ^= 0xFF
    newest.write_bytes(bytes(data))
    with pytest.raises(tw.CheckpointError, match="__1_0.distcp does not match"):
        read_weights(run / "checkpoints" / "step-00000018.pt")
    done = torchrun("--out", f"{out}-b", "--run-dir", str(run), "--strategy", "fsdp",
                    "--resume", "auto")  # fmt: skip
    assert (
        "skipping a checkpoint" in done.stderr and "resuming from step-00000012.pt" in done.stderr
    )


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
    weights = read_weights(saved[-1])  # the shards, consolidated
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


def test_the_cli_trains_with_fsdp_and_evaluates_and_exports_the_sharded_checkpoint(tmp_path):
    run = tmp_path / "run"

    def cli(*args, timeout=300):
        done = subprocess.run(
            [sys.executable, "-m", "trainwell", *args],
            capture_output=True,
            text=True,
            timeout=timeout,
            env=env(),
            cwd=tmp_path,
        )
        assert done.returncode == 0, done.stderr[-3000:]
        return done

    cli("train", "--nproc", "2", "--run-dir", str(run), "--set", "run.strategy=fsdp",
        "--set", "train.max_epochs=2", "--set", "run.progress=false")  # fmt: skip
    assert sorted(p.name for p in (run / "checkpoints").glob("*.dcp"))  # written as shards
    summary = json.loads((run / "summary.json").read_text())
    assert summary["guard_findings"] == []  # sharded parameters: no false alarm
    evaluated = json.loads(cli("eval", str(run)).stdout)  # the best weights, consolidated
    assert evaluated[summary["monitor"]] == pytest.approx(summary["best"], rel=1e-6)
    out = tmp_path / "model.safetensors"
    cli("export", str(run), "--out", str(out))
    from safetensors.torch import load_file

    exported = load_file(str(out))
    whole = read_weights(run / "checkpoints" / "best.pt")
    assert set(exported) == set(whole)
    for name, tensor in whole.items():
        assert torch.equal(exported[name], tensor), name
