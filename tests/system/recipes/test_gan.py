"""A GAN's two optimizers through fit(): the gan recipe trains, with both losses logged and
silent guards."""

import json
import warnings

import torch

import trainwell as tw
from trainwell.guards import GuardWarning
from trainwell.recipes import gan


def test_a_gan_trains_through_fit_with_both_losses_logged_and_silent_guards(tmp_path):
    config = tw.build_config(
        {"run": {"quiet": True, "dir": str(tmp_path), "log_every": 10}, "train": {"max_epochs": 6}},
        base=gan.CONFIG,
        model_type=gan.ModelConfig,
    )
    torch.manual_seed(config.run.seed)
    job = gan.build(config)
    with torch.no_grad():
        before = job.model(torch.randn(2000, 2)).norm(dim=1).mean().item()
    with warnings.catch_warnings():
        warnings.simplefilter("error", GuardWarning)  # not one false alarm on a healthy GAN
        result = tw.fit(job.model, job.train_data, config=config, train_step=job.train_step)
    assert result.findings == []
    records = result.history
    assert all({"train_d_loss", "train_g_loss"} <= set(r) for r in records)
    logged = [json.loads(line) for line in (tmp_path / "metrics.jsonl").read_text().splitlines()]
    steps = [r for r in logged if r["kind"] == "step"]
    assert steps and all({"d_loss", "g_loss"} <= set(r) for r in steps)
    # the generator learned the ring: its points moved from near 0 out to radius ~2
    with torch.no_grad():
        after = job.model(torch.randn(2000, 2)).norm(dim=1).mean().item()
    assert before < 1.0 and 1.5 < after < 2.5
    saved = torch.load(result.last_checkpoint, weights_only=True)["state"]
    assert {"optimizer.discriminator", "optimizer.generator"} <= set(saved)
