"""Kill -9 soak test: kill a training job at random moments, resume, compare bit for bit.

Each trial starts the job of tests/system/resume/job.py, SIGKILLs it after a random delay (so the
kill lands anywhere: in a step, in data loading, in the middle of a checkpoint write), resumes
it, kills again, ... until it finishes, then compares weights, optimizer state and loss
history with an uninterrupted run. CI runs a few deterministic kills (tests/system/resume); this
runs as many random ones as you like.

    python benchmarks/resume_soak.py --trials 20 [--workers 2] [--accumulate 2] [--precision fp16]
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import torch

JOB = Path(__file__).resolve().parents[1] / "tests" / "system" / "resume" / "job.py"


def job_command(run_dir: Path, out: Path, extra: list[str], resume: bool) -> list[str]:
    cmd = [
        sys.executable,
        str(JOB),
        "--run-dir",
        str(run_dir),
        "--out",
        str(out),
        "--epochs",
        "6",
        *extra,
    ]
    return [*cmd, "--resume"] if resume else cmd


def same(a: object, b: object) -> bool:
    if isinstance(a, torch.Tensor):
        return isinstance(b, torch.Tensor) and torch.equal(a, b)
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list | tuple):
        return (
            isinstance(b, list | tuple)
            and len(a) == len(b)
            and all(same(x, y) for x, y in zip(a, b))
        )
    return a == b


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", default="0")
    parser.add_argument("--accumulate", default="1")
    parser.add_argument("--precision", default="fp32")
    parser.add_argument("--async-save", action="store_true")
    args = parser.parse_args()
    extra = [
        "--workers",
        args.workers,
        "--accumulate",
        args.accumulate,
        "--precision",
        args.precision,
    ]
    extra += ["--every-steps", "2"] + (["--async-save"] if args.async_save else [])
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory(prefix="tw-soak-") as tmp:
        base = Path(tmp)
        start = time.perf_counter()
        subprocess.run(job_command(base / "ref", base / "ref.pt", extra, False), check=True)
        duration = time.perf_counter() - start
        reference = torch.load(base / "ref.pt", weights_only=True)
        print(
            f"uninterrupted run: {duration:.1f}s; killing at random moments in [0.3, {duration:.1f}]s"
        )
        failures = kills_total = 0
        for trial in range(args.trials):
            run_dir, out = base / f"trial{trial}", base / f"trial{trial}.pt"
            kills, resume = 0, False
            while True:
                proc = subprocess.Popen(job_command(run_dir, out, extra, resume))
                try:
                    proc.wait(timeout=rng.uniform(0.3, duration))
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
                    kills += 1
                    resume = (run_dir / "checkpoints").is_dir() and any(
                        (run_dir / "checkpoints").glob("step-*.json")
                    )
                    continue
                if proc.returncode != 0:
                    print(f"trial {trial}: job failed with exit code {proc.returncode}")
                    failures += 1
                break
            kills_total += kills
            ok = out.exists() and same(torch.load(out, weights_only=True), reference)
            failures += not ok
            print(f"trial {trial}: {kills} kills, {'identical' if ok else 'DIFFERENT'}")
        print(
            f"{args.trials - failures}/{args.trials} trials bit-identical after {kills_total} kills"
        )
        sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
