"""fit() against the same loop written by hand, on the default recipe's model and data.

Both train the digits CNN with the same batches (whole-batch indexing of the same per-epoch
permutation), the same AdamW groups and kernel, clipping, warmup+cosine and a validation pass
per epoch; the ratio is fit()'s steps/s over the hand loop's (>= 0.97 is the target). A third
contender is the loop most people write: a default DataLoader over a TensorDataset and a
default ``torch.optim.AdamW``.

    python benchmarks/overhead.py [--epochs 5] [--repeats 7]
"""

from __future__ import annotations

import argparse
import math

import torch
from _harness import interleaved, report
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

import trainwell as tw
from trainwell.data import epoch_order
from trainwell.recipes.digits import DigitsCNN, load_digits_tensors
from trainwell.schedule import warmup_cosine

BATCH, LR, WD = 64, 3e-3, 0.01


def config(epochs: int, guards: bool = True) -> tw.Config:
    return tw.build_config(
        {
            "guards": {"enabled": guards},
            "run": {"quiet": True, "log_every": 50},
            "data": {"batch_size": BATCH},
            "train": {"max_epochs": epochs, "clip_norm": 1.0},
            "optim": {"lr": LR, "weight_decay": WD},
            "schedule": {"name": "warmup_cosine", "warmup_ratio": 0.05, "min_lr_ratio": 0.01},
            "monitor": {"metric": "val_accuracy", "mode": "max"},
        }
    )


def run_fit(train, val, epochs: int, guards: bool = True) -> None:
    torch.manual_seed(0)
    tw.fit(DigitsCNN(), train, val, config=config(epochs, guards), metrics=["accuracy"])


def run_hand_loop(train, val, epochs: int) -> None:
    """The same training, written out by hand with the same fast choices."""
    torch.manual_seed(0)
    model = DigitsCNN()
    optimizer = tw.build_optimizer(model, lr=LR, weight_decay=WD)
    criterion = nn.CrossEntropyLoss()
    (x, y), (xv, yv) = train, val
    steps_per_epoch = math.ceil(len(x) / BATCH)
    total = epochs * steps_per_epoch
    warm = int(0.05 * total)
    step = 0
    for epoch in range(epochs):
        model.train()
        order = epoch_order(len(x), 0, epoch)
        for i in range(0, len(x), BATCH):
            index = order[i : i + BATCH]
            optimizer.zero_grad(set_to_none=True)
            loss = criterion(model(x[index]), y[index])
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            step += 1
            factor = warmup_cosine(step, total_steps=total, warmup_steps=warm, min_lr_ratio=0.01)
            for group in optimizer.param_groups:
                group["lr"] = group["base_lr"] * factor
        model.eval()
        with torch.inference_mode():
            logits = torch.cat([model(xv[j : j + 4 * BATCH]) for j in range(0, len(xv), 4 * BATCH)])
            (criterion(logits, yv).item(), (logits.argmax(1) == yv).float().mean().item())


def run_typical_loop(train, val, epochs: int) -> None:
    """What most hand-written loops look like: default DataLoader, default AdamW."""
    torch.manual_seed(0)
    model = DigitsCNN()
    optimizer = torch.optim.AdamW(model.parameters(), lr=LR, weight_decay=WD)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=epochs)
    criterion = nn.CrossEntropyLoss()
    loader = DataLoader(TensorDataset(*train), batch_size=BATCH, shuffle=True)
    for _ in range(epochs):
        model.train()
        for xb, yb in loader:
            optimizer.zero_grad()
            loss = criterion(model(xb), yb)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
        scheduler.step()
        model.eval()
        with torch.no_grad():
            logits = model(val[0])
            criterion(logits, val[1]).item()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    train, val = load_digits_tensors(0.2, seed=0)
    steps = args.epochs * math.ceil(len(train[0]) / BATCH)
    print(
        f"digits CNN, {len(train[0])} train / {len(val[0])} val, batch {BATCH}, "
        f"{args.epochs} epochs = {steps} steps per run, {args.repeats} interleaved repeats, "
        f"torch {torch.__version__}, {torch.get_num_threads()} threads"
    )
    times = interleaved(
        {
            "hand loop (same choices)": lambda: run_hand_loop(train, val, args.epochs),
            "trainwell.fit (guards on)": lambda: run_fit(train, val, args.epochs),
            "trainwell.fit (guards off)": lambda: run_fit(train, val, args.epochs, guards=False),
            "typical hand loop": lambda: run_typical_loop(train, val, args.epochs),
        },
        repeats=args.repeats,
    )
    report(times, "hand loop (same choices)", unit_count=steps, unit="steps")


if __name__ == "__main__":
    main()
