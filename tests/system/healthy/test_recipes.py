"""Healthy recipes (digits, spiral) stay silent under the guards: in a hand loop under
``watch()``, and in fit() with its built-in guards, unhooked after."""

import dataclasses

import pytest
import torch

import trainwell as tw
from trainwell.config.guards import GuardsConfig
from trainwell.guards import watch
from trainwell.parts.schedule import warmup_cosine
from trainwell.recipes import load_recipe


def _recipe(name, epochs):
    mod = load_recipe(name)
    cfg = dataclasses.replace(
        mod.CONFIG,
        run=dataclasses.replace(mod.CONFIG.run, quiet=True, log_every=10),
        train=dataclasses.replace(mod.CONFIG.train, max_epochs=epochs),
    )
    return mod.build(cfg), cfg


@pytest.mark.parametrize("name", ["digits", "spiral"])
def test_healthy_recipe_in_a_hand_loop_under_watch_is_silent(name):
    job, cfg = _recipe(name, epochs=3)
    model, (x, y), (xv, yv) = job.model, job.train_data, job.val_data
    opt = tw.build_optimizer(model, cfg.optim)
    batch, steps_per_epoch = cfg.data.batch_size, -(-len(x) // cfg.data.batch_size)
    total = 3 * steps_per_epoch
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: warmup_cosine(s, total_steps=total, warmup_steps=5)
    )
    crit = job.loss
    with watch(
        model, opt, loss_fn=crit, scheduler=sched, steps_per_epoch=steps_per_epoch, every=5
    ) as guards:
        for epoch in range(3):
            model.train()
            order = torch.randperm(len(x), generator=torch.Generator().manual_seed(epoch))
            for i in range(0, len(x), batch):
                index = order[i : i + batch]
                opt.zero_grad(set_to_none=True)
                loss = crit(model(x[index]), y[index])
                loss.backward()
                torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                opt.step()
                sched.step()
            model.eval()
            with torch.inference_mode():
                crit(model(xv), yv).item()
    assert guards.findings == []


@pytest.mark.parametrize("name", ["digits", "spiral"])
def test_healthy_recipe_under_fit_is_silent_and_unhooked_after(name):
    job, cfg = _recipe(name, epochs=2)
    cfg = dataclasses.replace(cfg, guards=GuardsConfig(every=5))  # fit's built-in guards
    opt = tw.build_optimizer(job.model, cfg.optim)
    result = tw.fit(
        job.model,
        job.train_data,
        job.val_data,
        loss=job.loss,
        config=cfg,
        metrics=job.metrics,
        optimizer=opt,
    )
    assert result.epochs == 2 and result.findings == []
    assert not job.model._forward_hooks and not opt._optimizer_step_pre_hooks
