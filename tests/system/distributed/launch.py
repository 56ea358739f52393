"""Launching the distributed test job: under torchrun with N processes, or alone."""

import os
import subprocess
import sys
from pathlib import Path

import torch

JOB = Path(__file__).with_name("ddp_job.py")


def env():
    """The test's environment without a launcher's variables; one thread per process."""
    clean = dict(os.environ, OMP_NUM_THREADS="1")
    for name in ("WORLD_SIZE", "RANK", "LOCAL_RANK", "TORCHELASTIC_RESTART_COUNT"):
        clean.pop(name, None)
    return clean


def torchrun_cmd(nproc, *launcher_args, script=JOB):
    return [
        sys.executable,
        "-m",
        "torch.distributed.run",
        "--standalone",
        f"--nproc_per_node={nproc}",
        *launcher_args,
        str(script),
    ]


def torchrun(*job_args, nproc=2, timeout=180):
    cmd = [*torchrun_cmd(nproc), *job_args]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env())
    assert done.returncode == 0, done.stderr[-3000:]
    return done


def alone(*job_args, timeout=120):
    done = subprocess.run(
        [sys.executable, str(JOB), *job_args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env(),
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done


def load(path):
    return torch.load(path, weights_only=True)
