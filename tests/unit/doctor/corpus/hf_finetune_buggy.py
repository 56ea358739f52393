# ruff: noqa
"""HF-style loop with a per-step scheduler stepped per epoch, unscaled accumulation,
loss tensors kept in a list and an evaluation pass that records autograd graphs."""

import torch
from torch.utils.data import DataLoader
from transformers import AutoModelForCausalLM, get_cosine_schedule_with_warmup


def evaluate(model, loader, device):
    model.eval()
    losses = []
    for batch in loader:
        batch = {k: v.to(device) for k, v in batch.items()}
        outputs = model(**batch)  # expect: TW012
        losses.append(outputs.loss.item())
    model.train()
    return sum(losses) / len(losses)


def train(cfg, train_ds, val_ds):
    device = "cuda"
    model = AutoModelForCausalLM.from_pretrained(cfg.model_name).to(device)
    train_loader = DataLoader(train_ds, batch_size=cfg.batch_size, shuffle=True)
    val_loader = DataLoader(val_ds, batch_size=cfg.batch_size)
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.lr, weight_decay=0.01)
    total_steps = cfg.epochs * len(train_loader) // cfg.accum_steps
    scheduler = get_cosine_schedule_with_warmup(optimizer, cfg.warmup_steps, total_steps)
    history = []
    for epoch in range(cfg.epochs):
        model.train()
        for i, batch in enumerate(train_loader):
            batch = {k: v.to(device) for k, v in batch.items()}
            loss = model(**batch).loss
            loss.backward()  # expect: TW017
            history.append(loss)  # expect: TW011
            if (i + 1) % cfg.accum_steps == 0:
                optimizer.step()
                optimizer.zero_grad(set_to_none=True)
        scheduler.step()  # expect: TW004
        val_loss = evaluate(model, val_loader, device)
        print(epoch, val_loss)
    return history


if __name__ == "__main__":
    import types

    train(types.SimpleNamespace(), None, None)
