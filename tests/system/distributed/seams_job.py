"""Where features meet under torchrun (run alone too): a custom `TrainStep`, BatchNorm and the
per-step stop vote, each through `trainwell.fit` with the gloo backend on the CPU.

``--case gan``: the GAN recipe's own step (it calls its submodules, never the DDP wrapper).
``--case submodule``: a deterministic step of its own that calls a submodule of the model;
with batch B on each of two ranks it must equal one process with batch 2B.
``--case batchnorm``: a CNN with BatchNorm and validation data; every rank must end with the
same weights, buffers and best epoch. ``--strategy fsdp --run-dir DIR`` runs it sharded, with
a checkpoint every 5 steps (mid-epoch, no validation before it), recording each rank's
buffers at each step.
Each rank writes its final state, history, best epoch and the collectives it issued per step.
"""

import argparse
import os
from collections.abc import Sequence

import torch
import torch.distributed as dist
from torch import nn

import trainwell as tw
from trainwell.parts.accumulation import MicroBatch
from trainwell.recipes import gan
from trainwell.step import Optimizers, TrainStep
from trainwell.strategy.process import process_group


class Twin(nn.Module):
    """A model whose step of its own calls ``body`` directly: its forward is never used."""

    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 3))

    def forward(self, x):
        return self.body(x)


class SubmoduleStep(TrainStep):
    """Cross-entropy through ``model.body``, around any wrapper a strategy made."""

    def forward_backward(self, window: Sequence[MicroBatch]):
        total = None
        for micro in window:
            x, y = self.to_device(micro.batch)
            with self.autocast():
                loss = nn.functional.cross_entropy(self.model.body(x), y)
            weighted = micro.weigh(loss)
            self.backward(weighted, last=micro.is_last)
            total = weighted.detach() if total is None else total + weighted.detach()
        return total


def bn_net():
    return nn.Sequential(
        nn.Conv2d(1, 4, 3, padding=1),
        nn.BatchNorm2d(4),
        nn.ReLU(),
        nn.Flatten(),
        nn.Linear(4 * 6 * 6, 3),
    )


class CollectivesPerStep(tw.Observer):
    """Counts the blocking collectives issued between two step ends (the per-step cost of
    agreeing on stops and reporting), outside the log cadence's reads."""

    def __init__(self):
        self.blocking, self.per_step = 0, []
        original = dist.all_reduce

        def counting(tensor, *args, async_op=False, **kwargs):
            if not async_op:
                self.blocking += 1
            return original(tensor, *args, async_op=async_op, **kwargs)

        dist.all_reduce = counting

    def on_step_end(self, report):
        # since the last step's end: neither a log read nor an epoch's end (its validation,
        # its agreed stop and its logged means are collectives once per epoch)
        if report.logged is None and report.batch_in_epoch > 1:
            self.per_step.append(self.blocking)
        self.blocking = 0


class BuffersAtSteps(tw.Observer):
    """Each rank's BatchNorm buffers at the end of every step (before that step's save)."""

    def __init__(self, model):
        self.model, self.at = model, {}

    def on_step_end(self, report):
        self.at[report.step] = {
            n: b.detach().cpu().clone() for n, b in self.model.named_buffers() if "running" in n
        }


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--case", required=True, choices=["gan", "submodule", "batchnorm"])
    parser.add_argument("--out", required=True)
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--strategy", default="auto")
    parser.add_argument("--run-dir", default=None)
    args = parser.parse_args()
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(1)
    config = {
        "run": {"quiet": True, "log_every": 4},
        "data": {"batch_size": args.batch, "shuffle": False},
        "train": {"max_epochs": 3},
        "monitor": {"restore_best": False},
    }
    if args.strategy != "auto":
        config["run"]["strategy"] = args.strategy
    if args.run_dir:
        config["run"]["dir"] = args.run_dir
        config["checkpoint"] = {"every_steps": 5, "min_interval_s": 0, "keep_last": 20}
    counting = CollectivesPerStep()
    observers, buffers = [counting], None
    with process_group():
        if args.case == "gan":
            job = gan.build(tw.build_config({"model": {"num_points": 512}}, base=gan.CONFIG))
            model, data, val = job.model, job.train_data, None
            kwargs = {"train_step": job.train_step}
        elif args.case == "submodule":
            model = Twin()
            x = torch.randn(192, 8, generator=g)
            y = (x[:, 0] + x[:, 1] > 0).long() + (x[:, 2] > 1).long()
            opt = torch.optim.SGD(model.parameters(), lr=0.1)
            step = SubmoduleStep(model, Optimizers.single(opt))
            data, val, kwargs = (x, y), None, {"train_step": step}
        else:
            model = bn_net()
            x = torch.randn(256, 1, 6, 6, generator=g)
            y = (x.mean(dim=(1, 2, 3)) > 0).long() + (x[:, 0, 0, 0] > 1).long()
            data, val, kwargs = (x[:192], y[:192]), (x[192:], y[192:]), {}
            config["optim"] = {"lr": 0.05}
            buffers = BuffersAtSteps(model)
            observers.append(buffers)
        result = tw.fit(model, data, val, config=config, observers=observers, **kwargs)
        state = {  # FSDP's parameters are DTensors: gathered whole (every rank takes part)
            k: (v.full_tensor() if hasattr(v, "full_tensor") else v).detach().cpu().clone()
            for k, v in model.state_dict().items()
        }
    rank = int(os.environ.get("RANK", "0"))
    torch.save(
        {
            "state": state,
            "steps": result.steps,
            "history": result.history,
            "best_epoch": result.best_epoch,
            "blocking_per_step": counting.per_step,
            "buffers_at": buffers.at if buffers else {},
        },
        f"{args.out}.rank{rank}",
    )


if __name__ == "__main__":
    main()
