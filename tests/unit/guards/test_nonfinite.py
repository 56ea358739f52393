"""Non-finite gradients: the first module named, and the warn / skip_step / stop policies."""

import pytest
import torch
from tests.fixtures import batches
from torch import nn

from trainwell.guards import GuardWarning, NonFiniteError, watch

from .helpers import codes, warns


class PoisonGrad(torch.autograd.Function):
    """Identity forward; NaN gradient backward when ``on`` is set (the planted bug)."""

    @staticmethod
    def forward(ctx, x, on):
        ctx.on = on
        return x.view_as(x)

    @staticmethod
    def backward(ctx, grad):
        return (grad * float("nan") if ctx.on else grad), None


class Poisoned(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.encoder = nn.Linear(4, 8)
        self.middle = nn.Linear(8, 8)
        self.head = nn.Linear(8, 3)
        self.poison_at: set[int] = set()
        self.calls = 0

    def forward(self, x):
        on = self.calls in self.poison_at
        self.calls += 1
        h = self.middle(self.encoder(x).relu())
        return self.head(PoisonGrad.apply(h, on).relu())  # NaN born between middle and head


def _run(
    poison_at, steps=8, optimizer=torch.optim.SGD, expect_stop=None, warned=(), clip=False, **config
):
    model = Poisoned()
    model.poison_at = set(poison_at)
    opt = optimizer(model.parameters(), lr=0.1)
    crit = nn.CrossEntropyLoss()
    done = 0
    guards = watch(model, opt, loss_fn=crit, every=4, **config)
    if expect_stop is None:
        expect_stop = config.get("nonfinite", "stop") == "stop"
    expected = warns(*warned) if warned else _null()
    with expected, pytest.raises(NonFiniteError) if expect_stop else _null(), guards:
        for x, y in batches(steps):
            opt.zero_grad()
            crit(model(x), y).backward()
            if clip:
                torch.nn.utils.clip_grad_norm_(model.parameters(), 10.0)
            opt.step()
            done += 1
    return guards, model, done


class _null:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


@pytest.mark.parametrize("poison_at", [1, 4])
def test_stop_names_the_first_module_in_backward_order_and_stops_at_the_cadence(poison_at):
    """A clipped loop (its norms are every layer's, at no cost), or a sampled step (4 with
    every=4): the layer the NaN was born in is named."""
    clip = poison_at == 1
    guards, model, done = _run({poison_at}, warned=["nonfinite-grad"], clip=clip)
    assert codes(guards) == ["nonfinite-grad"]
    finding = guards.findings[0]
    assert finding.where == "middle" and finding.step == poison_at
    assert done == 4  # read on the sampled step 4 (every=4): in its window, or after it
    assert not torch.isfinite(model.middle.weight).all()


def test_between_sampled_steps_one_gradient_finds_the_step_and_says_so():
    """No clip, step 1 (not sampled): only the gradient nearest the input is measured each
    step; a NaN born later in the network reaches it, so the step is exact."""
    guards, _, done = _run({1}, warned=["nonfinite-grad"])
    finding = guards.findings[0]
    assert finding.step == 1 and done == 4
    assert finding.where == "encoder"
    assert "seen in encoder (the gradient nearest the input" in finding.message


def test_warn_keeps_going():
    guards, model, done = _run({1}, nonfinite="warn", warned=["nonfinite-grad"])
    assert codes(guards) == ["nonfinite-grad"] and done == 8


def test_skip_step_zeroes_the_bad_steps_gradients():
    guards, model, done = _run({1, 2}, nonfinite="skip_step", warned=["nonfinite-grad"])
    assert codes(guards) == ["nonfinite-grad"] and done == 8
    assert all(torch.isfinite(p).all() for p in model.parameters())


def test_skip_exact_leaves_weights_and_optimizer_state_untouched():
    model = Poisoned()
    model.poison_at = {0}
    opt = torch.optim.AdamW(model.parameters(), lr=0.1)
    before = {k: v.clone() for k, v in model.state_dict().items()}
    x, y = batches(1)[0]
    with (
        warns("nonfinite-grad"),
        watch(model, opt, nonfinite="skip_step", skip_exact=True) as guards,
    ):
        opt.zero_grad()
        nn.functional.cross_entropy(model(x), y).backward()
        opt.step()
    assert codes(guards) == ["nonfinite-grad"]
    assert all(torch.equal(before[k], v) for k, v in model.state_dict().items())
    assert not opt.state  # AdamW skipped every parameter: no moments, no step count


def test_skip_step_stops_after_too_many_consecutive_skips():
    guards, model, done = _run(
        set(range(1, 20)),
        steps=20,
        nonfinite="skip_step",
        max_consecutive_skips=3,
        expect_stop=True,
        warned=["nonfinite-grad", "nonfinite-skips"],
    )
    assert codes(guards) == ["nonfinite-grad", "nonfinite-skips"]
    assert done == 4  # read at step 4: steps 1-3 skipped in a row
    assert all(torch.isfinite(p).all() for p in model.parameters())


def test_fp16_stops_after_a_run_of_scaler_skips():
    model = Poisoned()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler("cpu")
    done = 0
    guards = watch(model, opt, scaler=scaler, max_consecutive_skips=5)
    with warns("nonfinite-skips"), pytest.raises(NonFiniteError) as info, guards:
        for x, y in batches(10):
            opt.zero_grad()
            loss = nn.functional.cross_entropy(model(x), y) * float("nan")
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
            done += 1
    assert info.value.finding.code == "nonfinite-skips" and done == 4


def test_healthy_run_reads_nothing_bad():
    guards, model, done = _run(set(), nonfinite="warn")
    assert guards.findings == [] and done == 8


def _nan_batches(bad_batch, steps=8, key=None):
    data = batches(steps)
    x, y = data[bad_batch]
    x = x.clone()
    x[3, 1] = float("nan")  # planted: one bad value in one sample
    data[bad_batch] = (x, y)
    return [({key: x} if key else x, y) for x, y in data]


class DictNet(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.encoder = nn.Linear(4, 8)
        self.head = nn.Linear(8, 3)

    def forward(self, batch):
        return self.head(self.encoder(batch["image"]).relu())


@pytest.mark.parametrize(
    "make,key,named",
    [(Poisoned, None, "input 0"), (DictNet, "image", "input 'image'")],
    ids=["tensor", "dict"],
)
def test_nan_already_in_the_input_batch_is_named_as_the_input(make, key, named):
    model = make()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    crit = nn.CrossEntropyLoss()
    with (
        pytest.warns(GuardWarning, match="nonfinite-input"),
        pytest.raises(NonFiniteError) as info,
        watch(model, opt, every=4),
    ):
        for x, y in _nan_batches(2, key=key):
            opt.zero_grad()
            crit(model(x), y).backward()
            opt.step()
    finding = info.value.finding
    assert finding.code == "nonfinite-input" and finding.step == 2
    assert finding.where == named
    assert "input batch of step 2" in finding.message and "(16, 4)" in finding.message
    assert "encoder" not in finding.message and "head" not in finding.message


def _plain_loop(model, opt, steps, *, set_to_none=True, between=None):
    """zero_grad(set_to_none=...), forward, backward, step; ``between(i)`` before step i."""
    crit = nn.CrossEntropyLoss()
    for i, (x, y) in enumerate(batches(steps)):
        if between is not None:
            between(i)
        opt.zero_grad(set_to_none=set_to_none)
        crit(model(x), y).backward()
        opt.step()


@pytest.mark.parametrize("set_to_none", [True, False], ids=["set_to_none", "zeroed_in_place"])
@pytest.mark.parametrize("poison_at", [3, 5, 7])
def test_a_nan_between_the_sampled_steps_is_found_at_its_exact_step(poison_at, set_to_none):
    """every=8: steps 3-7 are between the armed windows (the gradient nearest the input is
    kept by reference there when it is a new tensor each step, measured when it is zeroed in
    place): the first bad step is exact either way."""
    model = Poisoned()
    model.poison_at = {poison_at}
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    with warns("nonfinite-grad"), watch(model, opt, every=8, nonfinite="warn") as guards:
        _plain_loop(model, opt, 8, set_to_none=set_to_none)
    finding = guards.findings[0]
    assert finding.code == "nonfinite-grad" and finding.step == poison_at
    assert finding.where == "encoder"


def test_the_loop_going_over_to_zeroing_in_place_still_finds_a_later_nan():
    """set_to_none=True up to step 4, then zero_grad(set_to_none=False): the kept gradient
    of step 4 is the tensor later steps write into; a NaN at step 6 is found at step 6."""
    model = Poisoned()
    model.poison_at = {6}
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    crit = nn.CrossEntropyLoss()
    with warns("nonfinite-grad"), watch(model, opt, every=16, nonfinite="warn") as guards:
        for i, (x, y) in enumerate(batches(10)):
            opt.zero_grad(set_to_none=i <= 4)
            crit(model(x), y).backward()
            opt.step()
    assert [f.step for f in guards.findings] == [6]


def test_between_the_sampled_steps_a_small_new_gradient_costs_no_device_op(monkeypatch):
    """The usual loop (zero_grad(set_to_none=True), no clip): between the armed windows the
    non-finite check keeps the gradient nearest the input by reference, no norm a step."""
    model = Poisoned()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    calls = []
    norm, foreach = torch.linalg.vector_norm, torch._foreach_norm

    def between(i):
        if i == 4:  # steps 0-2 are armed (their full checks); 4-7 are not
            monkeypatch.setattr(
                torch.linalg, "vector_norm", lambda *a, **k: calls.append(1) or norm(*a, **k)
            )
            monkeypatch.setattr(
                torch, "_foreach_norm", lambda *a, **k: calls.append(1) or foreach(*a, **k)
            )

    with watch(model, opt, every=16) as guards:
        _plain_loop(model, opt, 8, between=between)
        assert calls == []  # before the read: nothing measured on steps 4-7
    assert guards.findings == []


def test_gradients_that_are_views_of_a_reused_buffer_are_measured_not_kept():
    """DDP's gradient_as_bucket_view: each step's .grad is a new view of the same bucket, which
    the next backward overwrites; kept by reference, earlier steps would read later values.
    Here the loop puts every gradient into one flat buffer the same way: the NaN of step 5 is
    found at step 5, not at an earlier step whose view now shows it."""
    model = Poisoned()
    model.poison_at = {5}
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    crit = nn.CrossEntropyLoss()
    params = list(model.parameters())
    bucket = torch.zeros(sum(p.numel() for p in params))
    with warns("nonfinite-grad"), watch(model, opt, every=16, nonfinite="warn") as guards:
        for x, y in batches(8):
            opt.zero_grad(set_to_none=True)
            crit(model(x), y).backward()
            at = 0
            for p in params:  # as DDP does: .grad becomes a view of the bucket
                view = bucket[at : at + p.numel()]
                view.copy_(p.grad.reshape(-1))
                p.grad = view.view_as(p)
                at += p.numel()
            opt.step()
    assert [f.step for f in guards.findings] == [5]
