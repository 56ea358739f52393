"""watch() itself: hooks in and out, dedup, policies, config."""

import dataclasses

import pytest
import torch
import torch.nn.functional as F
from tests.fixtures import Net, batches
from torch import nn

from trainwell.config.guards import GuardsConfig
from trainwell.errors import ConfigError
from trainwell.guards import GuardError, GuardWarning, validate_guards, watch

from .helpers import codes, warns


def _stale_loop(model, opt, steps=5):
    crit = nn.CrossEntropyLoss()
    for x, y in batches(steps):
        crit(model(x), y).backward()  # no zero_grad: the planted bug
        opt.step()


def test_hooks_and_wrappers_are_removed_on_exit():
    model = Net(batchnorm=True)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = torch.optim.lr_scheduler.StepLR(opt, 3)
    clip, ce = torch.nn.utils.clip_grad_norm_, F.cross_entropy
    with watch(model, opt, loss_fn=nn.CrossEntropyLoss(), scheduler=sched):
        assert opt._optimizer_step_pre_hooks
        assert torch.nn.utils.clip_grad_norm_ is not clip and F.cross_entropy is not ce
        assert "step" not in vars(sched)  # observed from its class: nothing on the instance
        # the model's forward: observed from its class too (no forward hook, no slow path)
        assert not model._forward_hooks and "forward" in vars(Net) and "forward" not in vars(model)
    assert not model._forward_hooks and not model.net[1]._forward_pre_hooks
    assert vars(Net)["forward"].__name__ == "forward" and not hasattr(
        vars(Net)["forward"], "__trainwell_guard__"
    )  # the class's own forward is back
    assert not opt._optimizer_step_pre_hooks and not opt._optimizer_step_post_hooks
    assert (
        torch.nn.utils.clip_grad_norm_ is clip and torch.nn.utils.clip_grad.clip_grad_norm_ is clip
    )
    assert F.cross_entropy is ce
    assert "step" not in vars(sched) and "step" not in vars(type(sched))  # class restored
    assert all(not p._post_accumulate_grad_hooks for p in model.parameters())


def test_nested_watches_restore_wrappers_only_when_the_last_closes():
    clip = torch.nn.utils.clip_grad_norm_
    a, b = Net(), Net()
    with watch(a, torch.optim.SGD(a.parameters(), lr=0.1)):
        inner = watch(b, torch.optim.SGD(b.parameters(), lr=0.1))
        inner.close()
        assert torch.nn.utils.clip_grad_norm_ is not clip
    assert torch.nn.utils.clip_grad_norm_ is clip


def test_a_finding_warns_once_per_kind_and_place_with_the_user_line():
    model = Net()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    with warns("grad-not-zeroed") as record, watch(model, opt) as guards:
        _stale_loop(model, opt, steps=6)
    assert codes(guards) == ["grad-not-zeroed"]
    assert len([w for w in record if isinstance(w.message, GuardWarning)]) == 1
    finding = guards.findings[0]
    assert finding.step == 1 and finding.where == "Net"
    assert finding.source is not None and finding.source.split(":")[0].endswith("test_watch.py")
    assert record[0].filename.endswith("test_watch.py")
    assert "zero_grad" in finding.fix and "guards.zero_grad=false" in str(finding)


@pytest.mark.parametrize("policy", ["raise", "error"])
def test_policy_raise_raises_at_the_end_of_the_step_never_inside_backward(policy):
    """The stale gradient is seen inside backward (an autograd hook): the error comes out of
    that step's optimizer.step(), after the backward finished normally."""
    model = Net()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    calls = []
    with pytest.raises(GuardError) as info, watch(model, opt, on_finding=policy):
        for x, y in batches(4):  # zero_grad is never called
            loss = F.cross_entropy(model(x), y)
            calls.append("backward")
            loss.backward()
            calls.append("step")
            opt.step()
            calls.append("done")
    assert info.value.finding.code == "grad-not-zeroed"
    # step 1 completes; step 2's backward completes; its optimizer.step() raises at its end
    assert calls == ["backward", "step", "done", "backward", "step"]
    assert info.value.finding.step == 1


def test_a_switched_off_guard_stays_silent():
    model = Net()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    with watch(model, opt, zero_grad=False) as guards:
        _stale_loop(model, opt)
    assert guards.findings == []


def test_disabled_installs_nothing():
    model = Net()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    with watch(model, opt, enabled=False) as guards:
        assert not model._forward_hooks and not opt._optimizer_step_pre_hooks
        _stale_loop(model, opt)
    assert guards.findings == []


def test_config_fields_all_have_defaults_and_help():
    for f in dataclasses.fields(GuardsConfig):
        assert f.default is not dataclasses.MISSING
        assert f.metadata.get("help"), f"guards.{f.name} has no help text"
    assert GuardsConfig().nonfinite == "stop"
    with pytest.raises(dataclasses.FrozenInstanceError):
        GuardsConfig().every = 3  # type: ignore[misc]


@pytest.mark.parametrize(
    "field,value", [("every", 0), ("vanish_ratio", 2.0), ("explode_ratio", 1.0)]
)
def test_config_values_that_cannot_work_are_rejected(field, value):
    with pytest.raises(ConfigError, match=f"guards.{field}"):
        validate_guards(GuardsConfig(**{field: value}))


def test_the_model_forward_is_observed_by_a_hook_when_its_class_is_used_inside():
    inner = nn.Sequential(nn.Linear(4, 8), nn.ReLU())
    model = nn.Sequential(inner, nn.Sequential(nn.Linear(8, 3)))  # Sequentials inside
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    with watch(model, opt) as guards:
        assert model._forward_hooks  # a hook: wrapping Sequential.forward would tax `inner`
        assert not hasattr(nn.Sequential.forward, "__trainwell_guard__")
        for x, y in batches(3):
            opt.zero_grad()
            F.cross_entropy(model(x), y).backward()
            opt.step()
    assert guards.findings == [] and not model._forward_hooks
