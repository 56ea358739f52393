"""fit() against the same loop written by hand, on the default recipe's model and data.

Both train the digits CNN (or, ``--model mlp``, a 64-128-128-10 MLP: the smallest step, where
a loop's own Python costs the most) with the same batches (whole-batch indexing of the same per-epoch
permutation), the same AdamW groups and kernel, clipping, warmup+cosine and a validation pass
per epoch; the ratio is fit()'s steps/s over the hand loop's (>= 0.97 is the target). A third
contender is the loop most people write: a default DataLoader over a TensorDataset and a
default ``torch.optim.AdamW``.

fit() runs lean (guards off, nothing logged), with its defaults, and with its defaults and a
run directory (checkpoints: the default cadence, whose ``checkpoint.min_interval_s`` keeps
saving under ~5% of the run, and ``min_interval_s=0``, a checkpoint at every epoch).

    python benchmarks/overhead.py [--model cnn|mlp] [--epochs 5] [--repeats 7]
"""

from __future__ import annotations

import argparse
import math
import shutil
import statistics
import tempfile

import torch
from _harness import interleaved, report
from guards import digits_mlp
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

import trainwell as tw
from trainwell.data import epoch_order
from trainwell.parts.schedule import warmup_cosine
from trainwell.recipes.digits import DigitsCNN, load_digits_tensors

BATCH, LR, WD = 64, 3e-3, 0.01


MODELS = {"cnn": DigitsCNN, "mlp": digits_mlp}
make_model = DigitsCNN


def config(
    epochs: int,
    guards: bool = True,
    *,
    log_every: int = 50,
    run_dir: str | None = None,
    min_interval_s: float | None = None,
) -> tw.Config:
    return tw.build_config(
        {
            "guards": {"enabled": guards},
            "run": {"quiet": True, "log_every": log_every, "dir": run_dir},
            "checkpoint": {"min_interval_s": min_interval_s},
            "data": {"batch_size": BATCH},
            "train": {"max_epochs": epochs, "clip_norm": 1.0},
            "optim": {"lr": LR, "weight_decay": WD},
            "schedule": {"name": "warmup_cosine", "warmup_ratio": 0.05, "min_lr_ratio": 0.01},
            "monitor": {"metric": "val_accuracy", "mode": "max"},
        }
    )


def run_fit(train, val, epochs: int, guards: bool = True, **options) -> None:
    torch.manual_seed(0)
    tw.fit(make_model(), train, val, config=config(epochs, guards, **options), metrics=["accuracy"])


def run_fit_saving(train, val, epochs: int, min_interval_s: float | None = None) -> None:
    """fit() with its defaults and a run directory (checkpoints, config, metrics files)."""
    run_dir = tempfile.mkdtemp(prefix="tw-overhead-")
    try:
        run_fit(train, val, epochs, run_dir=run_dir, min_interval_s=min_interval_s)
    finally:
        shutil.rmtree(run_dir, ignore_errors=True)


def run_hand_loop(train, val, epochs: int) -> None:
    """The same training, written out by hand with the same fast choices."""
    torch.manual_seed(0)
    model = make_model()
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
    model = make_model()
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
    parser.add_argument("--model", choices=sorted(MODELS), default="cnn")
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--threads", type=int, default=None, help="torch intra-op threads")
    args = parser.parse_args()
    global make_model
    make_model = MODELS[args.model]
    if args.threads:
        torch.set_num_threads(args.threads)
    train, val = load_digits_tensors(0.2, seed=0)
    steps = args.epochs * math.ceil(len(train[0]) / BATCH)
    e = args.epochs
    print(
        f"digits {args.model.upper()}, {len(train[0])} train / {len(val[0])} val, batch {BATCH}, "
        f"{args.epochs} epochs = {steps} steps per run, {args.repeats} interleaved repeats, "
        f"torch {torch.__version__}, {torch.get_num_threads()} threads"
    )
    times = interleaved(
        {
            "hand loop (same choices)": lambda: run_hand_loop(train, val, e),
            "fit, lean (guards off, no logs)": lambda: run_fit(
                train, val, e, guards=False, log_every=10**9
            ),
            "fit, defaults": lambda: run_fit(train, val, e),
            "fit, defaults + run dir": lambda: run_fit_saving(train, val, e),
            "fit, + run dir, ckpt every epoch": lambda: run_fit_saving(
                train, val, e, min_interval_s=0
            ),
            "typical hand loop": lambda: run_typical_loop(train, val, e),
        },
        repeats=args.repeats,
    )
    base = "hand loop (same choices)"
    report(times, base, unit_count=steps, unit="steps")
    reference = statistics.median(times[base])
    for name, values in times.items():
        if name != base:
            extra = (statistics.median(values) - reference) / steps * 1e6
            print(f"{name}: {extra:+.0f} us/step over the hand loop")


if __name__ == "__main__":
    main()
