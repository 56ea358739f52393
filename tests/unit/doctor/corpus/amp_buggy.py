# ruff: noqa
"""AMP loop that clips the scaled gradients, plus a checkpoint loaded unsafely."""

import torch
import torch.nn.functional as F

model = torch.nn.Linear(128, 10).cuda()
optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
scaler = torch.cuda.amp.GradScaler()
loader = torch.utils.data.DataLoader(
    torch.utils.data.TensorDataset(torch.randn(64, 128), torch.randint(0, 10, (64,)))
)

state = torch.load("checkpoint.pt", weights_only=False)  # expect: TW015
model.load_state_dict(state["model"])
optimizer.load_state_dict(state["optimizer"])

for epoch in range(5):
    for x, y in loader:
        x, y = x.cuda(), y.cuda()
        optimizer.zero_grad()
        with torch.autocast("cuda", dtype=torch.float16):
            loss = F.cross_entropy(model(x), y)
        scaler.scale(loss).backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)  # expect: TW006
        scaler.step(optimizer)
        scaler.update()

trusted = torch.load("my_own_run.pt", weights_only=False)  # noqa: TW015
