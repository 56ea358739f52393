# ruff: noqa
"""Diffusers-style training loop: the noise scheduler's step() is not an LR scheduler."""

import torch
import torch.nn.functional as F
from diffusers import DDPMScheduler, UNet2DModel
from diffusers.optimization import get_scheduler


def train(config, train_dataloader):
    model = UNet2DModel(sample_size=config.image_size, in_channels=3, out_channels=3)
    noise_scheduler = DDPMScheduler(num_train_timesteps=1000)
    optimizer = torch.optim.AdamW(model.parameters(), lr=config.learning_rate)
    lr_scheduler = get_scheduler(
        "cosine",
        optimizer=optimizer,
        num_warmup_steps=config.lr_warmup_steps,
        num_training_steps=len(train_dataloader) * config.num_epochs,
    )
    global_step = 0
    for epoch in range(config.num_epochs):
        model.train()
        for step, batch in enumerate(train_dataloader):
            clean_images = batch["images"]
            noise = torch.randn(clean_images.shape, device=clean_images.device)
            bs = clean_images.shape[0]
            timesteps = torch.randint(0, 1000, (bs,), device=clean_images.device).long()
            noisy_images = noise_scheduler.add_noise(clean_images, noise, timesteps)
            noise_pred = model(noisy_images, timesteps, return_dict=False)[0]
            loss = F.mse_loss(noise_pred, noise)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            lr_scheduler.step()
            optimizer.zero_grad()
            global_step += 1


@torch.no_grad()
def sample(model, noise_scheduler, shape):
    image = torch.randn(shape)
    for t in noise_scheduler.timesteps:
        model_output = model(image, t).sample
        image = noise_scheduler.step(model_output, t, image).prev_sample
    return image
