"""The step seam: TrainStep alone in a hand loop, and a GAN's two optimizers through fit()."""

import json
import warnings

import torch
from torch import nn

import trainwell as tw
from trainwell.guards import GuardWarning
from trainwell.parts.accumulation import Accumulation
from trainwell.recipes import gan
from trainwell.step.optimizers import Optimizers
from trainwell.step.train_step import TrainStep


def test_train_step_alone_equals_the_hand_written_step():
    """zero_grad → weighted backward → clip → step → schedule, as a hand loop writes them."""
    torch.manual_seed(0)
    x, y = torch.randn(48, 4), torch.randint(0, 3, (48,))
    batches = [(x[i : i + 8], y[i : i + 8]) for i in range(0, 48, 8)]

    def fresh():
        torch.manual_seed(1)
        model = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 3))
        return model, torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)

    model, opt = fresh()
    sched = torch.optim.lr_scheduler.StepLR(opt, 2, gamma=0.5)
    crit = nn.CrossEntropyLoss()
    for i in range(0, len(batches), 2):  # accumulation 2 by hand
        opt.zero_grad()
        for bx, by in batches[i : i + 2]:
            (crit(model(bx), by) / 2).backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 0.5)
        opt.step()
        sched.step()

    model2, opt2 = fresh()
    step = TrainStep(
        model2,
        Optimizers.single(
            opt2,
            tw.TorchSchedule(torch.optim.lr_scheduler.StepLR(opt2, 2, gamma=0.5), "step"),
            tw.Clipping(0.5),
            parameters=list(model2.parameters()),
        ),
        loss_step=lambda m, b: crit(m(b[0]), b[1]),
        precision=tw.Precision("fp32", "cpu"),
    )
    done = 0
    for window in Accumulation(2).windows(batches):
        done += step(window, done).stepped
    assert done == 3
    for a, b in zip(model.parameters(), model2.parameters(), strict=True):
        assert torch.equal(a, b)
    assert opt.param_groups[0]["lr"] == opt2.param_groups[0]["lr"] == 0.05


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
