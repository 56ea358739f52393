"""The GPU path against a careful hand loop: tokens/s, the ratio to the hand loop, and MFU.

Model: the charlm recipe's GPT (`trainwell.recipes.charlm.CharGPT`) on random character ids
(vocab 65, shakespeare-char's), one optimizer step per batch, at three sizes:
  tiny   2 layers, 64 wide, block 64, batch 8 (512 tokens/step): runs on a CPU in seconds
  small  nanoGPT shakespeare-char: 6 layers, 6 heads, 384 wide, block 256, batch 64
         (~10.8M parameters, 16,384 tokens/step)
  gpt2   GPT-2-small shape: 12 layers, 12 heads, 768 wide, block 1024, batch 16
         (~86M parameters with a character vocabulary, 16,384 tokens/step)

Contenders (all: AdamW lr 3e-4, weight decay 0.1, global-norm clipping at 1.0, warmup+cosine
stepped per optimizer step, data on the host copied per batch):
  hand              plain torch: bf16 autocast (CUDA; fp32 on the CPU), fused AdamW (CUDA),
                    clip_grad_norm_, LambdaLR per step, zero_grad(set_to_none)
  hand-compiled     the same with model.compile()
  fit               tw.fit with its defaults (precision=auto, guards on), quiet, no run dir
  fit-compiled      the same with train.compile=true
  fit-cudagraphs    train.compile: {mode: reduce-overhead} (CUDA graphs; CUDA only)
  lightning         Lightning's Trainer (bf16-mixed on CUDA), lean; when installed. Its AdamW
                    is not fused: Lightning refuses gradient_clip_val with a fused optimizer
                    under AMP.

Per-step time is a two-length split, (T(S2) - T(S1)) / (S2 - S1), where T(S) is the wall time
of a whole fresh run of S steps (build, compile, train, synchronize): set-up and compile
cancel. Runs of every contender and both lengths are interleaved round-robin over --repeats
repeats; the median of each is used. MFU = FLOPs of one step (counted once with
`torch.utils.flop_counter`, as fit() counts them) / per-step time / the device's peak
(`trainwell.parts.flops.peak_flops`: the data-sheet table on CUDA, a torch.mm probe on the CPU).

    python benchmarks/gpu.py --size tiny            # CPU, well under a minute
    python benchmarks/gpu.py --size small --size gpt2 --repeats 5
"""

from __future__ import annotations

import argparse
import importlib.util
import math
import statistics
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch
import torch.nn.functional as F
from _harness import interleaved
from torch.utils.flop_counter import FlopCounterMode

import trainwell as tw
from trainwell.parts.flops import peak_flops
from trainwell.recipes.charlm import CharGPT, sequence_cross_entropy

VOCAB = 65
LR, WEIGHT_DECAY, CLIP, WARMUP = 3e-4, 0.1, 1.0, 0.05


@dataclass(frozen=True)
class Size:
    n_layer: int
    n_head: int
    n_embd: int
    block: int
    batch: int
    steps: tuple[int, int]  # S1, S2 of the split

    @property
    def tokens_per_step(self) -> int:
        return self.block * self.batch


SIZES = {
    "tiny": Size(2, 4, 64, 64, 8, (4, 12)),
    "small": Size(6, 6, 384, 256, 64, (30, 130)),
    "gpt2": Size(12, 12, 768, 1024, 16, (20, 70)),
}


def make_model(size: Size, device: torch.device) -> torch.nn.Module:
    torch.manual_seed(0)
    model = CharGPT(VOCAB, size.block, size.n_layer, size.n_head, size.n_embd)
    return model.to(device)


def make_data(size: Size, steps: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Random ids on the host, exactly ``steps`` batches: every contender copies per batch."""
    generator = torch.Generator().manual_seed(0)
    ids = torch.randint(0, VOCAB, (steps * size.batch, size.block + 1), generator=generator)
    return ids[:, :-1].contiguous(), ids[:, 1:].contiguous()


def lr_factor(step: int, total: int) -> float:
    """Linear warmup then cosine to 0, per optimizer step (the hand loop's schedule)."""
    warmup = max(1, int(WARMUP * total))
    if step < warmup:
        return (step + 1) / warmup
    progress = (step - warmup) / max(1, total - warmup)
    return 0.5 * (1.0 + math.cos(math.pi * progress))


def synchronize(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


# --------------------------------------------------------------------------- contenders


def run_hand(size: Size, steps: int, device: torch.device, *, compiled: bool) -> None:
    """The careful hand loop: one fresh run of ``steps`` optimizer steps."""
    model = make_model(size, device)
    if compiled:
        model.compile()
    cuda = device.type == "cuda"
    optimizer = torch.optim.AdamW(
        model.parameters(), lr=LR, weight_decay=WEIGHT_DECAY, fused=cuda or None
    )
    schedule = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: lr_factor(s, steps))
    x, y = make_data(size, steps)
    if cuda:
        x, y = x.pin_memory(), y.pin_memory()
    model.train()
    for i in range(steps):
        rows = slice(i * size.batch, (i + 1) * size.batch)
        xb = x[rows].to(device, non_blocking=True)
        yb = y[rows].to(device, non_blocking=True)
        with torch.autocast(device.type, dtype=torch.bfloat16, enabled=cuda):
            loss = sequence_cross_entropy(model(xb), yb)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), CLIP)
        optimizer.step()
        schedule.step()
        optimizer.zero_grad(set_to_none=True)
    synchronize(device)


def run_fit(size: Size, steps: int, device: torch.device, *, compile: Any) -> None:
    """``tw.fit`` with its defaults, quiet, no run directory."""
    model = make_model(size, device)
    train: dict[str, Any] = {"max_epochs": 1, "max_steps": steps, "clip_norm": CLIP}
    if compile:
        train["compile"] = compile
    config = {
        "run": {"quiet": True, "progress": False, "device": device.type},
        "data": {"batch_size": size.batch},
        "train": train,
        "optim": {"lr": LR, "weight_decay": WEIGHT_DECAY},
        "schedule": {"name": "warmup_cosine", "warmup_ratio": WARMUP, "min_lr_ratio": 0.0},
        "monitor": {"metric": "train_loss", "mode": "min", "restore_best": False},
    }
    result = tw.fit(model, make_data(size, steps), loss=sequence_cross_entropy, config=config)
    assert result.steps == steps, (result.steps, steps)
    synchronize(device)


def run_lightning(size: Size, steps: int, device: torch.device) -> None:
    """Lightning's Trainer, lean (no logger, checkpoints, progress bar, summary, sanity run)."""
    import lightning as L

    class Module(L.LightningModule):
        def __init__(self) -> None:
            super().__init__()
            self.net = make_model(size, torch.device("cpu"))

        def training_step(self, batch, batch_idx):
            x, y = batch
            return sequence_cross_entropy(self.net(x), y)

        def configure_optimizers(self):
            optimizer = torch.optim.AdamW(self.parameters(), lr=LR, weight_decay=WEIGHT_DECAY)
            scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: lr_factor(s, steps))
            return {
                "optimizer": optimizer,
                "lr_scheduler": {"scheduler": scheduler, "interval": "step"},
            }

    cuda = device.type == "cuda"
    loader = torch.utils.data.DataLoader(
        torch.utils.data.TensorDataset(*make_data(size, steps)),
        batch_size=size.batch,
        pin_memory=cuda,
    )
    trainer = L.Trainer(
        max_steps=steps,
        gradient_clip_val=CLIP,
        accelerator="gpu" if cuda else "cpu",
        devices=1,
        precision="bf16-mixed" if cuda else "32-true",
        logger=False,
        enable_checkpointing=False,
        enable_progress_bar=False,
        enable_model_summary=False,
        num_sanity_val_steps=0,
    )
    trainer.fit(Module(), loader)
    synchronize(device)


def contenders(device: torch.device, only: list[str] | None) -> dict[str, Callable[..., None]]:
    """name -> run(size, steps, device); a contender that cannot run here says why, once."""
    table: dict[str, Callable[..., None]] = {
        "hand": lambda s, n, d: run_hand(s, n, d, compiled=False),
        "hand-compiled": lambda s, n, d: run_hand(s, n, d, compiled=True),
        "fit": lambda s, n, d: run_fit(s, n, d, compile=False),
        "fit-compiled": lambda s, n, d: run_fit(s, n, d, compile=True),
    }
    if device.type == "cuda":
        table["fit-cudagraphs"] = lambda s, n, d: run_fit(
            s, n, d, compile={"mode": "reduce-overhead"}
        )
    else:
        print("fit-cudagraphs: skipped (CUDA graphs need a CUDA device)")
    if importlib.util.find_spec("lightning") is not None:
        table["lightning"] = run_lightning
    else:
        print("lightning: skipped (not installed: pip install lightning)")
    if only:
        table = {name: run for name, run in table.items() if name in only or name == "hand"}
    return table


# --------------------------------------------------------------------------- measuring


def step_flops(size: Size, device: torch.device) -> int:
    """FLOPs of one training step (forward, loss, backward), counted as fit() counts them."""
    model = make_model(size, device)
    x, y = (t[: size.batch].to(device) for t in make_data(size, 1))
    with FlopCounterMode(display=False) as counter:
        with torch.autocast(device.type, dtype=torch.bfloat16, enabled=device.type == "cuda"):
            loss = F.cross_entropy(model(x).flatten(0, 1), y.flatten())
        loss.backward()
    return int(counter.get_total_flops())


def measure(size: Size, device: torch.device, runs: dict[str, Callable[..., None]], repeats: int):
    """Per-step seconds of each contender by the two-length split (medians over repeats)."""
    s1, s2 = size.steps
    jobs = {
        f"{name}@{steps}": (lambda run=run, steps=steps: run(size, steps, device))
        for name, run in runs.items()
        for steps in (s1, s2)
    }
    times = interleaved(jobs, repeats=repeats, warmup=1)
    return {
        name: (statistics.median(times[f"{name}@{s2}"]) - statistics.median(times[f"{name}@{s1}"]))
        / (s2 - s1)
        for name in runs
    }


def table(size_name: str, size: Size, device: torch.device, per_step: dict[str, float]) -> None:
    """The markdown table of one size."""
    dtype = torch.bfloat16 if device.type == "cuda" else torch.float32
    flops = step_flops(size, device)
    peak = peak_flops(device, dtype)
    params = sum(p.numel() for p in make_model(size, torch.device("cpu")).parameters())
    card = torch.cuda.get_device_name(device) if device.type == "cuda" else "CPU"
    print(
        f"\n{size_name}: {params / 1e6:.2f}M parameters, {size.tokens_per_step:,} tokens/step, "
        f"{card}, torch {torch.__version__}, peak {peak[1] if peak else 'unknown'}"
    )
    print("| contender | ms/step | tokens/s | vs hand | MFU | card | torch |")
    print("|---|---:|---:|---:|---:|---|---|")
    base = per_step["hand"]
    for name, seconds in per_step.items():
        if seconds <= 0:  # noise larger than the difference: say so rather than divide
            print(f"| {name} | n/a | n/a | n/a | n/a | {card} | {torch.__version__} |")
            continue
        mfu = f"{flops / seconds / peak[0]:.1%}" if peak else "n/a"
        print(
            f"| {name} | {seconds * 1e3:.2f} | {size.tokens_per_step / seconds:,.0f} | "
            f"{base / seconds:.2f}x | {mfu} | {card} | {torch.__version__} |"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", action="append", choices=sorted(SIZES))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--device", default="auto", help="auto, cpu or cuda")
    parser.add_argument("--contenders", help="comma-separated names (hand is always run)")
    args = parser.parse_args()
    if args.device == "auto":
        args.device = "cuda" if torch.cuda.is_available() else "cpu"
    device = torch.device(args.device)
    if device.type == "cpu":
        torch.set_num_threads(1)  # a small shared machine: more threads measure the neighbours
    only = args.contenders.split(",") if args.contenders else None
    runs = contenders(device, only)
    for size_name in args.size or ["tiny"]:
        size = SIZES[size_name]
        table(size_name, size, device, measure(size, device, runs, args.repeats))


if __name__ == "__main__":
    main()
