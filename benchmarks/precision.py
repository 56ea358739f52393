"""bf16 autocast against fp32 on this machine's CPU (or GPU): what ``precision=auto`` should pick.

Each workload trains with the same parts (AdamW, clipping, `Precision`) in fp32 and in bf16,
interleaved, one intra-op thread on the CPU; the ratio is fp32 step time over bf16 step time
(> 1: bf16 is faster).

    python benchmarks/precision.py [--steps 30] [--repeats 5] [--device cpu]
"""

from __future__ import annotations

import argparse
import statistics
import time

import torch
from torch import nn

from trainwell import Clipping, Precision, build_optimizer
from trainwell.config.sections import OptimConfig
from trainwell.recipes.charlm import CharGPT


def workloads(device: torch.device) -> dict[str, tuple[nn.Module, torch.Tensor, torch.Tensor]]:
    g = torch.Generator().manual_seed(0)
    tokens = torch.randint(0, 96, (32, 65), generator=g)
    mlp = nn.Sequential(
        nn.Linear(64, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 10)
    )
    cnn = nn.Sequential(
        nn.Conv2d(3, 32, 3, padding=1),
        nn.ReLU(),
        nn.Conv2d(32, 64, 3, padding=1),
        nn.ReLU(),
        nn.AdaptiveAvgPool2d(1),
        nn.Flatten(),
        nn.Linear(64, 10),
    )
    return {
        "charlm (2x128, T=64, B=32)": (CharGPT(96, block_size=64), tokens[:, :-1], tokens[:, 1:]),
        "mlp 64-256-256-10 (B=64)": (
            mlp,
            torch.randn(64, 64, generator=g),
            torch.randint(0, 10, (64,), generator=g),
        ),
        "cnn 2 conv (3x32x32, B=32)": (
            cnn,
            torch.randn(32, 3, 32, 32, generator=g),
            torch.randint(0, 10, (32,), generator=g),
        ),
    }


def step_time(model, x, y, mode: str, device: torch.device, steps: int) -> float:
    precision = Precision(mode, device)
    optimizer = build_optimizer(model, OptimConfig(lr=1e-3))
    clipping = Clipping(max_norm=1.0)
    loss_fn = nn.CrossEntropyLoss()
    x, y = x.to(device), y.to(device)

    def step():
        optimizer.zero_grad(set_to_none=True)
        with precision.autocast():
            out = model(x)
            loss = loss_fn(out.reshape(-1, out.shape[-1]).float(), y.reshape(-1))
        precision.backward(loss)
        precision.unscale_(optimizer)
        clipping(model.parameters())
        precision.step(optimizer)

    for _ in range(3):
        step()
    if device.type == "cuda":
        torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(steps):
        step()
    if device.type == "cuda":
        torch.cuda.synchronize()
    return (time.perf_counter() - start) / steps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    args = parser.parse_args()
    device = torch.device(args.device)
    if device.type == "cpu":
        torch.set_num_threads(1)
    print(f"device {device}, cpu capability {torch.backends.cpu.get_cpu_capability()}")
    for name, (model, x, y) in workloads(device).items():
        model.to(device)
        times = {"fp32": [], "bf16": []}
        for _ in range(args.repeats):
            for mode in times:  # interleaved
                times[mode].append(step_time(model, x, y, mode, device, args.steps))
        fp32, bf16 = (statistics.median(times[m]) for m in ("fp32", "bf16"))
        print(
            f"{name:<30} fp32 {fp32 * 1e3:7.2f} ms  bf16 {bf16 * 1e3:7.2f} ms  bf16 speed-up {fp32 / bf16:.2f}x"
        )


if __name__ == "__main__":
    main()
