"""Your own loop on several processes: trainwell's parts with its DDP or FSDP2 strategy.

torchrun --standalone --nproc_per_node 2 docs/examples/ddp_loop.py        # two processes, DDP
torchrun --standalone --nproc_per_node 2 docs/examples/ddp_loop.py fsdp   # sharded (FSDP2)
python docs/examples/ddp_loop.py                                           # or one
"""

import sys

import torch
from torch import nn

import trainwell as tw
from trainwell.config.sections import OptimConfig
from trainwell.strategy.process import process_group
from trainwell.strategy.registry import choose_strategy

with process_group():  # started from torchrun's environment; barrier + destroy at the end
    name = sys.argv[1] if len(sys.argv) > 1 else "auto"  # auto: one process, or ddp
    strategy = choose_strategy(name, "cpu")
    torch.manual_seed(0)  # the same initial weights everywhere (DDP also broadcasts rank 0's)
    g = torch.Generator().manual_seed(1)
    x, y = torch.randn(512, 8, generator=g), torch.randint(0, 3, (512,), generator=g)
    model = nn.Sequential(nn.Linear(8, 64), nn.ReLU(), nn.Linear(64, 3))
    trainee = strategy.prepare(model)  # moved; wrapped in DDP, or sharded in place (FSDP)
    optimizer = tw.build_optimizer(model, OptimConfig(lr=3e-3))
    precision, clipping = tw.Precision("auto", strategy.device), tw.Clipping(max_norm=1.0)
    accumulation = tw.Accumulation(steps=2)
    loader = tw.make_loader(  # this rank's shard of every epoch's order
        (x, y), batch_size=32, rank=strategy.rank, world_size=strategy.world_size
    )
    loss_fn = nn.CrossEntropyLoss()
    for epoch in range(3):
        trainee.train()
        for window in accumulation.windows(loader):
            optimizer.zero_grad(set_to_none=True)
            for micro in window:
                inputs, targets = strategy.to_device(micro.batch)
                with precision.autocast():
                    loss = loss_fn(trainee(inputs), targets)
                # gradients are all-reduced (reduce-scattered) in the last micro-batch only
                strategy.backward(micro.weigh(loss), precision, trainee, last=micro.is_last)
            precision.unscale_(optimizer)
            strategy.clip(clipping, list(model.parameters()))  # the global norm, shards too
            precision.step(optimizer)
        total, count = strategy.reduce(loss.detach() * len(targets), torch.tensor(len(targets)))
        if strategy.is_main:
            print(f"epoch {epoch + 1}: last-batch loss over all ranks {(total / count).item():.4f}")
