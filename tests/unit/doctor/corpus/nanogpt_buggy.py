# ruff: noqa
"""nanoGPT-style loop that forgets to divide the micro-step loss and clips before unscaling."""

import torch

from model import GPT, GPTConfig

accum_steps = 8
max_iters = 5000
model = GPT(GPTConfig()).cuda()
optimizer = torch.optim.AdamW(model.parameters(), lr=6e-4, betas=(0.9, 0.95))
scaler = torch.amp.GradScaler("cuda")


def get_batch(split):
    x = torch.randint(50257, (12, 1024), device="cuda")
    return x, torch.roll(x, -1, dims=1)


for iter_num in range(max_iters):
    for micro_step in range(accum_steps):
        X, Y = get_batch("train")
        with torch.autocast("cuda", dtype=torch.bfloat16):
            logits, loss = model(X, Y)
        scaler.scale(loss).backward()  # expect: TW017
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)  # expect: TW006
    scaler.unscale_(optimizer)
    scaler.step(optimizer)
    scaler.update()
    optimizer.zero_grad(set_to_none=True)
