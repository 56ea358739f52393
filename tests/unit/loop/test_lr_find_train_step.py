"""``tw.lr_find(train_step=...)``: a step of your own with several optimizers is swept (all
of them at the swept LR, on the step's loss) and everything is put back afterwards."""

import torch

import trainwell as tw
from trainwell.recipes import gan


def test_lr_find_sweeps_every_optimizer_of_a_train_step_and_puts_them_back():
    config = tw.build_config(
        {"run": {"device": "cpu"}, "model": {"num_points": 512}, "data": {"batch_size": 128}},
        base=gan.CONFIG,
    )
    job = gan.build(config)
    step = job.train_step
    weights = {k: v.clone() for k, v in job.model.state_dict().items()}
    schedules = {name: slot.schedule for name, slot in step.optimizers.slots.items()}
    lrs = {name: slot.optimizer.param_groups[0]["lr"] for name, slot in step.optimizers.items()}
    seen: dict[str, list[float]] = {name: [] for name in step.optimizers}
    for name, slot in step.optimizers.items():  # record the LR each optimizer steps with
        slot.optimizer.register_step_pre_hook(
            lambda opt, args, kwargs, name=name: seen[name].append(opt.param_groups[0]["lr"])
        )
    result = tw.lr_find(
        job.model, job.train_data, config=config, train_step=step, min_lr=1e-5, max_lr=1.0,
        num_steps=12,
    )  # fmt: skip
    assert len(result.lrs) >= 10 and result.lrs[0] == 1e-5
    assert seen["discriminator"][: len(result.lrs)] == result.lrs
    assert seen["generator"][: len(result.lrs)] == result.lrs  # swept together
    for name, tensor in job.model.state_dict().items():
        assert torch.equal(tensor, weights[name]), name
    for name, slot in step.optimizers.items():
        assert slot.schedule is schedules[name]
        assert slot.optimizer.param_groups[0]["lr"] == lrs[name]
        assert not slot.optimizer.state  # no Adam moments left from the sweep
