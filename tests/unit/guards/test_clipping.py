"""Clipping that cannot act: before backward, after step, on fp16-scaled gradients."""

import pytest
import torch
from tests.fixtures import Net, batches
from torch import nn

from trainwell.guards import watch

from .helpers import codes, warns

pytestmark = (
    pytest.mark.cpu_only
)  # asserts CPU semantics (exact parity with CPU tensors, fp32, CPU probes): CUDA hidden


def _loop(order, scaler=None, steps=3):
    model = Net()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    crit = nn.CrossEntropyLoss()
    with watch(model, opt, scaler=scaler) as guards:
        for x, y in batches(steps):
            for action in order:
                if action == "zero":
                    opt.zero_grad()
                elif action == "backward":
                    loss = crit(model(x), y)
                    (scaler.scale(loss) if scaler else loss).backward()
                elif action == "clip":
                    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                elif action == "unscale":
                    scaler.unscale_(opt)
                elif action == "step":
                    if scaler:
                        scaler.step(opt)
                        scaler.update()
                    else:
                        opt.step()
    return guards


def test_clip_before_backward_is_found():
    with warns("clip-before-backward"):
        guards = _loop(["zero", "clip", "backward", "step"])
    assert codes(guards) == ["clip-before-backward"]


def test_clip_after_step_is_found():
    with warns("clip-after-step"):
        guards = _loop(["backward", "step", "clip", "zero"])
    assert codes(guards) == ["clip-after-step"]


def test_fp16_clip_without_unscale_is_found():
    with warns("clip-scaled-grads"):
        guards = _loop(["zero", "backward", "clip", "step"], scaler=torch.amp.GradScaler("cpu"))
    assert codes(guards) == ["clip-scaled-grads"]


def test_correct_clipping_is_silent():
    assert _loop(["zero", "backward", "clip", "step"]).findings == []
    scaler = torch.amp.GradScaler("cpu")
    assert _loop(["zero", "backward", "unscale", "clip", "step"], scaler=scaler).findings == []


def test_clip_value_and_other_models_clipping():
    other = nn.Linear(2, 2)
    other(torch.randn(1, 2)).sum().backward()
    model = Net()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    with watch(model, opt) as guards:
        torch.nn.utils.clip_grad_norm_(other.parameters(), 1.0)  # not the watched model
        assert guards.findings == []
        x, y = batches(1)[0]
        nn.functional.cross_entropy(model(x), y).backward()
        opt.step()
        with warns("clip-after-step"):
            torch.nn.utils.clip_grad_value_(model.parameters(), 1.0)  # planted: after the step
    assert codes(guards) == ["clip-after-step"]
    assert guards.findings[0].where == "clip_grad_value_"


# ------------------------------------------------------------------ trainwell's own parts


def _parts_loop(order, *, fp16=False, max_value=None, steps=3):
    """The same placements, with trainwell's Clipping and Precision instead of torch's calls."""
    from trainwell import Clipping, Precision

    model = Net()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    crit = nn.CrossEntropyLoss()
    precision = Precision("fp16" if fp16 else "fp32", "cpu")
    clipping = Clipping(max_norm=1.0, max_value=max_value)
    with watch(model, opt, scaler=precision) as guards:
        for x, y in batches(steps):
            for action in order:
                if action == "zero":
                    opt.zero_grad()
                elif action == "backward":
                    with precision.autocast():
                        loss = crit(model(x), y)
                    precision.backward(loss)
                elif action == "clip":
                    clipping(model.parameters())
                elif action == "unscale":
                    precision.unscale_(opt)
                elif action == "step":
                    precision.step(opt)
    return guards


def test_trainwell_clipping_before_backward_is_found():
    with warns("clip-before-backward"):
        guards = _parts_loop(["zero", "clip", "backward", "step"])
    assert codes(guards) == ["clip-before-backward"]
    assert guards.findings[0].where == "Clipping"
    assert guards.findings[0].source.split(":")[0].endswith("test_clipping.py")


def test_trainwell_clipping_after_step_is_found():
    with warns("clip-after-step"):
        guards = _parts_loop(["backward", "step", "clip", "zero"])
    assert codes(guards) == ["clip-after-step"]


def test_precision_step_without_unscale_before_clipping_is_found():
    with warns("clip-scaled-grads"):
        guards = _parts_loop(["zero", "backward", "clip", "step"], fp16=True)
    assert codes(guards) == ["clip-scaled-grads"]


def test_trainwell_parts_in_the_right_order_are_silent_and_reported_once_as_clipping():
    assert _parts_loop(["zero", "backward", "unscale", "clip", "step"], fp16=True).findings == []
    assert _parts_loop(["zero", "backward", "clip", "step"], max_value=0.5).findings == []
    with warns("clip-before-backward"):  # value clipping inside Clipping is not a second call
        guards = _parts_loop(["zero", "clip", "backward", "step"], max_value=0.5)
    assert [f.where for f in guards.findings] == ["Clipping"]


def test_fit_wraps_no_torch_function_and_still_sees_its_clipping():
    import torch.nn.functional as F

    import trainwell as tw
    from trainwell.observe import signals

    seen = []
    originals = (torch.nn.utils.clip_grad_norm_, F.cross_entropy)

    class Spy(tw.observe.Observer):
        def on_step_end(self, report):
            seen.append(
                (torch.nn.utils.clip_grad_norm_, F.cross_entropy, len(signals.clip_listeners))
            )

    x, y = torch.randn(64, 4), torch.randint(0, 3, (64,))
    config = {"run": {"quiet": True}, "train": {"max_epochs": 1, "clip_norm": 1.0}}
    tw.fit(Net(), (x, y), loss=nn.CrossEntropyLoss(), config=config, observers=[Spy()])
    assert seen and all(s[:2] == originals for s in seen)  # nothing process-wide patched
    assert all(s[2] == 1 for s in seen)  # the clipping guard listens to fit's Clipping


@pytest.mark.parametrize("norm_type", [2.0, 1.0, float("inf")])
def test_watched_clip_grad_norm_gives_torchs_result_bit_for_bit(norm_type):
    """Under a watch, clip_grad_norm_ also hands its per-parameter norms to the guards (no
    second pass over the gradients); the total and the clipped gradients stay exactly torch's."""
    from trainwell.observe import signals

    model = Net()
    x, y = batches(1)[0]
    unwatched = torch.nn.utils.clip_grad_norm_
    with watch(model, torch.optim.SGD(model.parameters(), lr=0.1)) as guards:
        assert torch.nn.utils.clip_grad_norm_ is not unwatched  # the watch's wrapper runs
        nn.CrossEntropyLoss()(model(x), y).mul(50).backward()
        reference = [nn.Parameter(torch.zeros_like(p)) for p in model.parameters()]
        for r, p in zip(reference, model.parameters()):
            r.grad = p.grad.clone()
        expected = unwatched(reference, 0.5, norm_type)
        before = [torch.linalg.vector_norm(p.grad, norm_type) for p in model.parameters()]
        total = torch.nn.utils.clip_grad_norm_(model.parameters(), 0.5, norm_type)
        params, norms = signals.take_clip_norms()
    assert torch.equal(total, expected)
    for p, r in zip(model.parameters(), reference):
        assert torch.equal(p.grad, r.grad)
    assert params == list(model.parameters())
    assert torch.allclose(norms, torch.stack(before))
    assert guards.findings == []


# -- clip-after-step by its effect: the clipping function imported by name before the watch --
from torch.nn.utils import clip_grad_norm_ as clip_imported_before_watch  # noqa: E402


def _by_name_loop(after_step, *, set_to_none=True, accumulate=1, clip_before=False):
    """A loop whose clip the watch's wrapper cannot see (the original function, imported by
    name at the top of the file), every=4 so several armed steps come."""
    model = Net()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    crit = nn.CrossEntropyLoss()
    data = batches(24)
    with watch(model, opt, every=4) as guards:
        for index in range(0, len(data), accumulate):
            opt.zero_grad(set_to_none=set_to_none)
            for x, y in data[index : index + accumulate]:
                (crit(model(x), y) / accumulate).backward()
            if clip_before:
                clip_imported_before_watch(model.parameters(), 1.0)
            opt.step()
            if after_step:
                clip_imported_before_watch(model.parameters(), 1.0)
    return guards


@pytest.mark.parametrize("set_to_none", [True, False])
def test_a_clip_after_step_is_seen_by_its_effect_on_the_gradients(set_to_none):
    with warns("clip-after-step"):
        guards = _by_name_loop(after_step=True, set_to_none=set_to_none)
    assert codes(guards) == ["clip-after-step"]
    assert "after optimizer.step() had used them" in guards.findings[0].message


@pytest.mark.parametrize(
    "kind",
    ["clip before step", "zero_grad(set_to_none=False)", "accumulation", "no clip"],
)
def test_healthy_loops_leave_the_gradients_alone_after_the_step(kind):
    guards = {
        "clip before step": lambda: _by_name_loop(False, clip_before=True),
        "zero_grad(set_to_none=False)": lambda: _by_name_loop(False, set_to_none=False),
        "accumulation": lambda: _by_name_loop(False, set_to_none=False, accumulate=3),
        "no clip": lambda: _by_name_loop(False),
    }[kind]()
    assert codes(guards) == []
