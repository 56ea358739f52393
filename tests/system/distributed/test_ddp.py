"""DDP through torchrun with the gloo backend, two processes on the CPU (marked slow: CI runs
them; ``pytest -m slow tests/system/distributed`` alone).

Two ranks with batch B take the same steps as one process with batch 2B: rank r reads every
other sample of each epoch's order, DDP averages the gradients, so the weights agree to float
tolerance, with and without gradient accumulation.
"""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch
from tests.system.distributed.launch import JOB, alone, env, load, torchrun, torchrun_cmd

pytestmark = [
    pytest.mark.slow,
    pytest.mark.cpu_only,
]  # asserts CPU semantics (exact parity with CPU tensors, fp32, CPU probes): CUDA hidden


@pytest.mark.parametrize(
    ("accumulate", "data"),
    [(1, "tensors"), (2, "tensors"), (1, "dataloader"), (2, "tokens")],
)
def test_two_ranks_with_batch_b_equal_one_process_with_batch_2b(tmp_path, accumulate, data):
    """``dataloader``: the user's own, sharded by rank; ``tokens``: a share of the labels
    ignored that differs between the ranks, losses weighted by the real tokens over both."""
    out = str(tmp_path / "w")
    extra = {"tensors": [], "dataloader": ["--dataloader"], "tokens": ["--tokens"]}[data]
    torchrun("--out", f"{out}-ddp", "--batch", "16", "--accumulate", str(accumulate), *extra)
    alone("--out", f"{out}-one", "--batch", "32", "--accumulate", str(accumulate), *extra)
    ddp0, ddp1 = load(f"{out}-ddp.rank0"), load(f"{out}-ddp.rank1")
    one = load(f"{out}-one.rank0")
    assert ddp0["steps"] == one["steps"] == 3 * 192 // (32 * accumulate)
    for name, weight in one["state"].items():
        torch.testing.assert_close(ddp0["state"][name], weight, rtol=1e-4, atol=1e-5)
        torch.testing.assert_close(ddp1["state"][name], ddp0["state"][name], rtol=0, atol=0)
    # losses logged per epoch are means over both ranks: close to the one-process ones
    for a, b in zip(ddp0["history"], one["history"], strict=True):
        assert a["train_loss"] == pytest.approx(b["train_loss"], rel=1e-4)
        assert a["val_loss"] == pytest.approx(b["val_loss"], rel=1e-4)
    # every rank took the same decisions on the same numbers (wall times aside)
    untimed = [
        [{k: v for k, v in r.items() if k not in ("time_s", "data_wait")} for r in d["history"]]
        for d in (ddp0, ddp1)
    ]
    assert untimed[0] == untimed[1]


def test_a_ddp_run_with_dropout_killed_with_sigkill_and_resumed_ends_bit_identical(tmp_path):
    """Every rank's RNG streams are in the checkpoint: each rank's dropout masks continue."""
    out, pids = str(tmp_path / "w"), tmp_path / "pids"
    pids.mkdir()
    args = ["--epochs", "8", "--pid-dir", str(pids), "--dropout", "0.2"]
    torchrun("--out", f"{out}-full", "--run-dir", str(tmp_path / "full"), *args)
    run = tmp_path / "broken"
    launcher = subprocess.Popen(
        [*torchrun_cmd(2), "--out", f"{out}-killed", "--run-dir", str(run), *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env(),
    )
    deadline = time.monotonic() + 120
    while not list((run / "checkpoints").glob("step-*.json")):  # a whole checkpoint
        assert launcher.poll() is None and time.monotonic() < deadline
        time.sleep(0.05)
    # torchrun starts each worker in a session of its own: kill the workers themselves
    workers = [int((pids / f"rank{r}.pid").read_text()) for r in (0, 1)]
    for pid in [*workers, launcher.pid]:
        os.kill(pid, signal.SIGKILL)
    launcher.wait(timeout=30)
    for pid in workers:
        while Path(f"/proc/{pid}").exists() and "zombie" not in _state(pid):
            time.sleep(0.01)
    assert not Path(f"{out}-killed.rank0").exists()  # it really died mid-run
    assert max(p.name for p in (run / "checkpoints").glob("step-*.pt")) < "step-00000048.pt"
    torchrun("--out", f"{out}-resumed", "--run-dir", str(run), "--resume", "auto", *args)
    full, resumed = load(f"{out}-full.rank0"), load(f"{out}-resumed.rank0")
    assert resumed["steps"] == full["steps"] == 8 * 192 // 32
    for name, weight in full["state"].items():
        assert torch.equal(resumed["state"][name], weight), name


def _state(pid):
    try:
        return Path(f"/proc/{pid}/status").read_text().split("State:")[1].split("\n")[0]
    except (FileNotFoundError, IndexError):
        return "zombie (gone)"


def test_sigterm_to_one_rank_stops_every_rank_at_the_same_step_after_a_save(tmp_path):
    out, run, pids = str(tmp_path / "w"), tmp_path / "run", tmp_path / "pids"
    pids.mkdir()
    cmd = [
        *torchrun_cmd(2),
        "--out",
        out,
        "--epochs",
        "50",
        "--run-dir",
        str(run),
        "--pid-dir",
        str(pids),
    ]
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
    assert r0["steps"] == r1["steps"] < 50 * 192 // 16  # stopped early, together
    assert r1["preempted"] == "SIGTERM" and r0["preempted"] is None
    saved = sorted((run / "checkpoints").glob("step-*.pt"))
    assert saved and saved[-1].name == f"step-{r0['steps']:08d}.pt"  # the stop step was saved


def test_max_time_stops_every_rank_at_the_same_step_with_two_sets_every_n_steps(tmp_path):
    out, run = str(tmp_path / "w"), tmp_path / "run"
    done = subprocess.run(
        [*torchrun_cmd(2), "--out", out, "--epochs", "200", "--run-dir", str(run),
         "--val-sets", "--max-time", "2s", "--eval-every-steps", "3", "--step-sleep", "0.01"],
        capture_output=True, text=True, env=env(), timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    r0, r1 = load(f"{out}.rank0"), load(f"{out}.rank1")
    assert r0["steps"] == r1["steps"] < 200 * 192 // 32  # cut by the time, together
    assert r0["stop_reason"] == r1["stop_reason"] == "time limit reached: train.max_time=2s (2s)"
    saved = sorted((run / "checkpoints").glob("step-*.pt"))
    assert saved[-1].name == f"step-{r0['steps']:08d}.pt"  # the stop step was saved
    evaluations = [r for r in r0["history"] if r.get("kind") == "eval"]
    assert evaluations and all(r["step"] % 3 == 0 for r in evaluations)
    assert {"val_clean_loss", "val_noisy_accuracy"} <= set(evaluations[0])

    # each set is whole on every rank: the ranks measured the same numbers
    def measured(result):
        return [
            {k: v for k, v in r.items() if k not in ("time_s", "data_wait")}
            for r in result["history"]
        ]

    assert measured(r0) == measured(r1)


def test_the_cli_trains_with_nproc_and_rank_0_writes_once(tmp_path):
    run = tmp_path / "run"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "trainwell",
            "train",
            "--nproc",
            "2",
            "--run-dir",
            str(run),
            "--set",
            "train.max_epochs=2",
            "--set",
            "run.progress=false",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        env=env(),
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert (done.stdout + done.stderr).count("done: 2 epochs") == 1  # one summary: rank 0
    import json

    epochs = [json.loads(line) for line in (run / "metrics.jsonl").open()]
    assert [r["epoch"] for r in epochs if r.get("kind") == "epoch"] == [1, 2]
    assert (run / "checkpoints" / "best.pt").is_file()
    summary = json.loads((run / "summary.json").read_text())
    assert summary["guard_findings"] == []  # healthy DDP: no false alarm from any guard
    assert summary["steps"] == 2 * 12  # 1,437 digits / 2 ranks / batch 64 -> 12 steps an epoch


def test_the_documented_hand_written_loop_runs_alone_and_under_torchrun_with_ddp_and_fsdp():
    example = Path(__file__).parents[3] / "docs" / "examples" / "ddp_loop.py"
    runs = {}
    for name in ("ddp", "fsdp"):
        cmd = [*torchrun_cmd(2, script=example), name]
        runs[name] = subprocess.run(cmd, capture_output=True, text=True, timeout=180, env=env())
    one = subprocess.run(
        [sys.executable, str(example)], capture_output=True, text=True, timeout=120, env=env()
    )
    assert all(r.returncode == 0 for r in [*runs.values(), one]), [
        r.stderr[-2000:] for r in [*runs.values(), one]
    ]
    losses = {
        name: [float(line.rsplit(" ", 1)[1]) for line in r.stdout.splitlines()]
        for name, r in runs.items()
    }
    assert len(losses["ddp"]) == 3 and all(0 < v < 1.2 for v in losses["ddp"])  # once: rank 0
    assert losses["fsdp"] == pytest.approx(losses["ddp"], rel=1e-4)  # sharded: the same run
    assert len(one.stdout.splitlines()) == 3


def test_resuming_with_another_world_size_says_what_carries_over(tmp_path):
    run = str(tmp_path / "run")
    alone("--out", str(tmp_path / "one"), "--epochs", "2", "--run-dir", run)
    done = torchrun(
        "--out", str(tmp_path / "two"), "--epochs", "3", "--run-dir", run, "--resume", "auto"
    )
    assert "saved by 1 process(es), with 2" in done.stderr
    assert "steps of the new layout" in done.stderr


def test_two_nodes_on_localhost_through_the_c10d_rendezvous_train_as_one_world(tmp_path):
    """``torchrun --nnodes 2 --rdzv-backend c10d``: two launchers (two "machines") of one
    process each meet at one endpoint and train as a world of 2."""
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    out = str(tmp_path / "w")
    nodes = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "torch.distributed.run",
                "--nnodes=2",
                "--nproc_per_node=1",
                "--rdzv-backend=c10d",
                f"--rdzv-endpoint=127.0.0.1:{port}",
                "--rdzv-id=twonodes",
                str(JOB),
                "--out",
                f"{out}-nodes",
                "--batch",
                "16",
            ],  # fmt: skip
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env(),
        )
        for _ in range(2)
    ]
    errors = [node.communicate(timeout=180)[1] for node in nodes]
    assert [node.returncode for node in nodes] == [0, 0], [e[-2000:] for e in errors]
    alone("--out", f"{out}-one", "--batch", "32")
    ranks = [load(f"{out}-nodes.rank{r}") for r in (0, 1)]
    one = load(f"{out}-one.rank0")
    assert ranks[0]["steps"] == ranks[1]["steps"] == one["steps"]
    for name, weight in one["state"].items():
        torch.testing.assert_close(ranks[0]["state"][name], weight, rtol=1e-4, atol=1e-5)
        assert torch.equal(ranks[1]["state"][name], ranks[0]["state"][name])


def test_a_bug_on_one_rank_is_reported_once_by_every_rank_naming_that_rank(tmp_path):
    out = str(tmp_path / "w")
    done = torchrun("--out", out, "--softmax-on-rank", "1", "--epochs", "1")
    r0, r1 = load(f"{out}.rank0"), load(f"{out}.rank1")
    assert r0["findings"] == r1["findings"]  # the same merged list everywhere
    assert [(f["rank"], f["also_on"]) for f in r0["findings"]] == [(1, ())]
    assert "rank 1: [" in done.stderr  # rank 1 said so as it happened


def test_values_logged_with_tw_log_are_reduced_as_sums_and_counts_over_ranks(tmp_path):
    """Rank r logs r every step, rank 1 alone logs 7.0 on every other step: the logs and the
    epoch records hold the mean over every rank's logged values (0.5 and 7.0), on both."""
    out = str(tmp_path / "w")
    torchrun("--out", out, "--batch", "16", "--log-values")
    for rank in (0, 1):
        history = load(f"{out}.rank{rank}")["history"]
        assert [h["train_rank"] for h in history] == [0.5, 0.5, 0.5]
        assert [h["train_only_rank1"] for h in history] == [7.0, 7.0, 7.0]
