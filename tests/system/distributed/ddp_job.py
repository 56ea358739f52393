"""A job for the distributed tests: run alone (python ddp_job.py ...) or under torchrun.

It trains a small MLP (no BatchNorm, and no dropout unless asked: the per-rank batches then
add up exactly to one big batch) on fixed data through `trainwell.fit`, and rank 0 writes the final weights.
"""

import argparse
import faulthandler
import os
import signal
import time
from pathlib import Path

import torch
from torch import nn

import trainwell as tw
from trainwell.strategy.process import process_group


class SlowOnSignal(tw.Observer):
    """Writes this rank's pid once training runs (a test then signals it); slows each step a
    little so a signal lands mid-run."""

    def __init__(self, pid_dir):
        self.pid_dir = Path(pid_dir)

    def on_step_end(self, report):
        if report.step == 2:
            rank = os.environ.get("RANK", "0")
            (self.pid_dir / f"rank{rank}.pid").write_text(str(os.getpid()))
        time.sleep(0.02)  # a workload, not a wait for anything: long enough to be signalled


class StepWork(tw.Observer):
    """Each step takes ``seconds`` longer (a workload for train.max_time to cut)."""

    def __init__(self, seconds):
        self.seconds = seconds

    def on_step_end(self, report):
        time.sleep(self.seconds)  # a workload, not a wait for anything


def full_weights(model):
    """The whole weights on CPU (gathered from the shards under FSDP)."""
    if any(hasattr(p, "full_tensor") for p in model.parameters()):
        from torch.distributed.checkpoint.state_dict import StateDictOptions, get_model_state_dict

        options = StateDictOptions(full_state_dict=True, broadcast_from_rank0=False)
        state = get_model_state_dict(model, options=options)
        return {k: v.detach().cpu() for k, v in state.items()}
    return {k: v.detach().cpu() for k, v in model.state_dict().items()}


def collate_counting_tokens(samples):
    batch = torch.utils.data.default_collate(samples)
    batch["num_tokens"] = (batch["labels"] != -100).sum()
    return batch


def logging_rank_values(model, batch):
    """The default loss step, logging this rank's number (every rank) and a value that only
    rank 1 logs, and only on its even steps."""
    x, y = batch
    outputs = model(x)
    if model.training:
        rank = int(os.environ.get("RANK", "0"))
        tw.log("rank", float(rank))
        logging_rank_values.calls += 1
        if rank == 1 and logging_rank_values.calls % 2 == 0:
            tw.log("only_rank1", 7.0)
    return nn.functional.cross_entropy(outputs, y), outputs


logging_rank_values.calls = 0


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", required=True)
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--accumulate", type=int, default=1)
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--run-dir", default=None)
    parser.add_argument("--resume", default=None)
    parser.add_argument("--pid-dir", default=None)
    parser.add_argument("--strategy", default="auto")
    parser.add_argument("--clip", type=float, default=1.0)
    parser.add_argument("--dropout", type=float, default=0.0)
    parser.add_argument("--softmax-on-rank", type=int, default=None)  # a bug on one rank
    parser.add_argument("--sharded", choices=["auto", "true", "false"], default="auto")
    parser.add_argument("--async-save", action="store_true")  # checkpoint.async_save
    parser.add_argument("--dataloader", action="store_true")  # the user's own DataLoader
    parser.add_argument("--log-values", action="store_true")  # tw.log, names differing by rank
    parser.add_argument("--tokens", action="store_true")  # ignored labels, weight_by=num_tokens
    parser.add_argument("--val-sets", action="store_true")  # two named validation sets
    parser.add_argument("--max-time", default=None)  # train.max_time
    parser.add_argument("--eval-every-steps", type=int, default=None)  # train.eval_every_steps
    parser.add_argument("--step-sleep", type=float, default=0.0)  # seconds of work per step
    args = parser.parse_args()

    torch.manual_seed(0)
    g = torch.Generator().manual_seed(1)
    x = torch.randn(256, 8, generator=g)
    y = (x[:, 0] + x[:, 1] > 0).long() + (x[:, 2] > 1).long()
    model = nn.Sequential(nn.Linear(8, 32), nn.Tanh(), nn.Dropout(args.dropout), nn.Linear(32, 3))
    if args.softmax_on_rank == int(os.environ.get("RANK", "0")):
        model.append(nn.Softmax(dim=-1))  # probabilities into CrossEntropyLoss, on this rank
    observers = [SlowOnSignal(args.pid_dir)] if args.pid_dir else []
    if args.step_sleep:
        observers.append(StepWork(args.step_sleep))
    val = (x[192:], y[192:])
    if args.val_sets:  # the second set: the same samples, noisier
        val = {"clean": val, "noisy": (x[192:] + torch.randn(64, 8, generator=g), y[192:])}
    train = (x[:192], y[:192])
    if args.dataloader:  # in order: one process's batch 2B holds the two ranks' batches B
        dataset = torch.utils.data.TensorDataset(*train)
        train = torch.utils.data.DataLoader(dataset, batch_size=args.batch, shuffle=False)
    if args.tokens:  # a varying share of labels ignored: ranks count different real "tokens"
        labels = torch.where(x[:192, 3] > 0.3 * torch.arange(192) / 64, -100, y[:192])
        samples = [{"inputs": x[i], "labels": labels[i]} for i in range(192)]
        train = torch.utils.data.DataLoader(
            samples, batch_size=args.batch, shuffle=False, collate_fn=collate_counting_tokens
        )
    with process_group():  # the job's own: the sharded model is still usable after fit()
        result = tw.fit(
            model,
            train,
            val,
            step_fn=logging_rank_values if args.log_values else None,
            metrics=["accuracy"],
            observers=observers,
            config={
                "run": {
                    "quiet": True,
                    "dir": args.run_dir,
                    "log_every": 2,
                    "strategy": args.strategy,
                },
                "data": {"batch_size": args.batch},
                "train": {
                    "max_epochs": args.epochs,
                    "accumulate_steps": args.accumulate,
                    "clip_norm": args.clip,
                    "weight_by": "num_tokens" if args.tokens else None,
                    "max_time": args.max_time,
                    "eval_every_steps": args.eval_every_steps,
                },
                "checkpoint": {
                    "resume": args.resume,
                    "min_interval_s": 0,
                    "sharded": {"true": True, "false": False}.get(args.sharded, "auto"),
                    "async_save": args.async_save,
                },
                "monitor": {"restore_best": False},
            },
        )
        state = full_weights(model)
    rank = int(os.environ.get("RANK", "0"))
    torch.save(
        {
            "state": state,
            "steps": result.steps,
            "history": result.history,
            "preempted": result.preempted,
            "stop_reason": result.stop_reason,
            "findings": [f.as_dict() for f in result.findings],
            "restarts": int(os.environ.get("TORCHELASTIC_RESTART_COUNT", "0")),
        },
        f"{args.out}.rank{rank}",
    )


if __name__ == "__main__":
    faulthandler.register(signal.SIGUSR2)  # kill -USR2 <pid> prints where a stuck rank is
    signal.signal(signal.SIGUSR1, signal.SIG_IGN)
    main()
