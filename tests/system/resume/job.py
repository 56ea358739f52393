"""A small deterministic training job for the resume torture tests (run as a subprocess).

It trains a BatchNorm + Dropout MLP on a Dataset with random augmentations (torch, numpy and
python RNGs), so exact resume needs the model, optimizer, scaler, data position and every
RNG stream restored. ``--kill-at-step K`` SIGKILLs the process after optimizer step K;
``--kill-in-save N`` SIGKILLs it halfway through writing the N-th checkpoint.
"""

from __future__ import annotations

import argparse
import os
import random
import signal

import numpy as np
import torch
from torch import nn
from torch.utils.data import Dataset

import trainwell as tw
import trainwell.state.atomic as atomic_module


class NoisyBlobs(Dataset):
    def __init__(self, n: int = 192) -> None:
        g = torch.Generator().manual_seed(0)
        self.y = torch.arange(n) % 3
        self.x = torch.randn(n, 8, generator=g) + nn.functional.one_hot(self.y, 8).float() * 2

    def __len__(self) -> int:
        return len(self.y)

    def __getitem__(self, i: int):
        # Augmentations drawing from all three RNGs that workers must seed.
        noise = torch.randn(8) * 0.1 + float(np.random.uniform(-0.05, 0.05)) + random.gauss(0, 0.01)
        return self.x[i] + noise, self.y[i]


class Killer(tw.Observer):
    def __init__(self, step: int) -> None:
        self.step = step

    def on_step_end(self, report) -> None:
        if report.step == self.step:
            os.kill(os.getpid(), signal.SIGKILL)


def kill_in_save(nth: int) -> None:
    """SIGKILL halfway through the bytes of the nth checkpoint write."""
    original = atomic_module._HashingWriter.write
    calls = {"saves": 0}
    original_init = atomic_module._HashingWriter.__init__

    def init(self, file):  # one writer per checkpoint file
        original_init(self, file)
        calls["saves"] += 1

    def write(self, data):
        written = original(self, data)
        if calls["saves"] == nth and self.size > 2000:
            self.file.flush()
            os.kill(os.getpid(), signal.SIGKILL)
        return written

    atomic_module._HashingWriter.__init__ = init
    atomic_module._HashingWriter.write = write


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--run-dir", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--workers", type=int, default=0)
    parser.add_argument("--accumulate", type=int, default=1)
    parser.add_argument("--precision", default="fp32")
    parser.add_argument("--device", default="auto", help="run.device (tests/gpu: cuda)")
    parser.add_argument("--every-steps", type=int, default=3)
    parser.add_argument("--async-save", action="store_true")
    parser.add_argument("--resume", action="store_true")
    parser.add_argument("--kill-at-step", type=int, default=0)
    parser.add_argument("--kill-in-save", type=int, default=0)
    parser.add_argument("--recipe", default=None, help="gan: two optimizers in one step")
    args = parser.parse_args()
    torch.set_num_threads(1)
    if args.kill_in_save:
        kill_in_save(args.kill_in_save)
    config = tw.build_config(
        {
            "run": {
                "dir": args.run_dir,
                "device": args.device,
                "quiet": True,
                "deterministic": True,
                "seed": 3,
                "log_every": 2,
            },
            "data": {"batch_size": 16, "num_workers": args.workers},
            "train": {
                "max_epochs": args.epochs,
                "accumulate_steps": args.accumulate,
                "precision": args.precision,
            },
            "optim": {"lr": 0.01},
            "schedule": {"name": "warmup_cosine", "warmup_steps": 3},
            "checkpoint": {
                "every_steps": args.every_steps,
                # every due save is made: with the default (20x the last save's blocking time)
                # an async save's tiny blocking time can still skip step 6 on a loaded machine,
                # and a kill then finds only the step-3 file its writer had not finished
                "min_interval_s": 0,
                "keep_last": 2,
                "async_save": args.async_save,
                "resume": "auto" if args.resume else None,
            },
        }
    )
    torch.manual_seed(0)
    observers = [Killer(args.kill_at_step)] if args.kill_at_step else []
    if args.recipe == "gan":  # a TrainStep with two optimizers, the noise drawn each step
        from trainwell.recipes import gan

        values = {**config.to_dict(), "model": {"num_points": 256}}
        config = tw.build_config(values, base=gan.CONFIG, model_type=gan.ModelConfig)
        job = gan.build(config)
        model = job.model
        result = tw.fit(
            model, job.train_data, config=config, train_step=job.train_step, observers=observers
        )
    else:
        model = nn.Sequential(
            nn.Linear(8, 32), nn.BatchNorm1d(32), nn.ReLU(), nn.Dropout(0.2), nn.Linear(32, 3)
        )
        result = tw.fit(model, NoisyBlobs(), NoisyBlobs(48), config=config, observers=observers)
    timings = ("time_s", "data_wait")
    history = [{k: v for k, v in r.items() if k not in timings} for r in result.history]
    saved = torch.load(result.last_checkpoint, weights_only=True)["state"]
    optimizer_state = {k: v for k, v in saved.items() if k.startswith("optimizer")}
    torch.save(
        {"model": model.state_dict(), "optimizer": optimizer_state, "history": history}, args.out
    )


if __name__ == "__main__":
    main()
