"""A loss diverging without NaN (`loss-diverging`), and accumulation whose loss is not divided
by k (`accumulation-not-scaled`): planted bugs are reported, healthy runs stay silent (a real GAN:
tests/system/healthy/test_loss_trend.py), and the hot path never reads the device."""

import math

import pytest
import torch
from tests.fixtures import Net, batches
from torch import nn

import trainwell as tw
from trainwell.config.guards import GuardsConfig
from trainwell.errors import ConfigError
from trainwell.guards import validate_guards, watch
from trainwell.guards.loss_trend import AccumulationScaleGuard, LossTrendGuard

from .helpers import codes, warns


class Scripted(nn.Module):
    """A loss module returning scripted values that backward still reaches the model through."""

    def __init__(self, values):
        super().__init__()
        self.values = iter(values)

    def forward(self, out, target=None):
        return (out - out.detach()).sum() + next(self.values)  # exactly the value; grad 1


def _scripted_run(values, calls_per_step=1, **config):
    """One optimizer step per ``calls_per_step`` scripted losses; the weights never move."""
    model = nn.Linear(4, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.0)
    crit = Scripted(values)
    x = torch.randn(8, 4)
    with watch(model, opt, loss_fn=crit, **config) as guards:
        for _ in range(len(values) // calls_per_step):
            opt.zero_grad(set_to_none=True)
            for _ in range(calls_per_step):
                crit(model(x)).backward()
            opt.step()
    return guards


def _numbers(guards):
    return guards.guard(LossTrendGuard).numbers


# ---------------------------------------------------------------------------- loss-diverging


def test_loss_that_converges_then_diverges_is_reported_with_its_numbers_and_step():
    # every=5: reads after steps 1, 6, 11, ...; 5 losses at least per point, so the read at
    # step 1 carries over and the first point is the mean of steps 1-6.
    values = [4.0] * 6 + [1.0] * 5 + [0.5] * 5 + [0.5] * 5 + [6.0] * 5 + [7.0] * 5 + [8.0] * 4
    with warns("loss-diverging"):
        guards = _scripted_run(values, every=5, loss_trend_losses=5)
    assert codes(guards) == ["loss-diverging"]
    finding = guards.findings[0]
    # 6.0 at step 26 is 12x the minimum 0.5 and above the first 4.0; confirmed at step 31
    assert finding.step == 31 and finding.where == "Scripted"
    assert "7 at step 31" in finding.message
    assert "14x its minimum 0.5 (step 16)" in finding.message
    assert "first value 4" in finding.message and "2 reads in a row" in finding.message


def test_a_single_read_above_ten_times_the_minimum_is_not_enough():
    values = [4.0] * 6 + [0.5] * 10 + [6.0] * 5 + [0.5] * 10
    guards = _scripted_run(values, every=5, loss_trend_losses=5)
    assert guards.findings == []
    assert _numbers(guards)["minimum"] == 0.5  # it did judge the run


def test_lr_far_too_high_loss_climbs_without_nan_and_is_reported():
    """Linear regression with SGD just past the stability limit (2 / largest curvature): the
    loss grows ~1.2x a step and stays finite for hundreds of steps."""
    g = torch.Generator().manual_seed(0)
    x = torch.randn(64, 4, generator=g) * torch.tensor([1.0, 1.0, 1.0, 3.0])
    y = x @ torch.tensor([[1.0], [-2.0], [0.5], [1.0]])
    xa = torch.cat([x, torch.ones(64, 1)], 1)
    curvature = torch.linalg.eigvalsh(2 / 64 * xa.T @ xa).max().item()
    model = nn.Linear(4, 1)
    opt = torch.optim.SGD(model.parameters(), lr=2.1 / curvature)
    crit = nn.MSELoss()
    losses = []
    with (
        warns("loss-diverging"),
        watch(model, opt, loss_fn=crit, every=5, loss_trend_losses=5, grad_norms=False) as guards,
    ):
        for _ in range(40):
            opt.zero_grad(set_to_none=True)
            loss = crit(model(x), y)
            loss.backward()
            losses.append(loss.item())
            opt.step()
    assert all(math.isfinite(v) for v in losses) and losses[-1] > 1000 * losses[0]
    assert codes(guards) == ["loss-diverging"]
    # The same rule on the host, from the recorded losses: reads after steps 1, 6, 11, ...
    first = sum(losses[:5]) / 5
    points, start = [], 0
    for read in range(1, 41, 5):
        if read - start >= 5:
            points.append((sum(losses[start:read]) / (read - start), read))
            start = read
    expected, lowest, run = None, None, 0
    anchor = min(first, losses[0])  # the first losses' mean, or the first loss when lower
    for now, step in points:
        lowest = min(lowest or (now, step), (now, step))
        run = run + 1 if now >= 10 * lowest[0] and now >= anchor else 0
        if run == 2 or now >= 10 * losses[0]:  # two reads 10x the minimum, or 10x the start
            expected = (now, step)
            break
    assert expected is not None
    numbers = guards.guard(LossTrendGuard).reported
    assert guards.findings[0].step == expected[1] == numbers["step"]
    assert numbers["now"] == pytest.approx(expected[0], rel=1e-5)
    assert numbers["first"] == pytest.approx(first, rel=1e-5)
    assert (numbers["minimum"], numbers["minimum_step"]) == (pytest.approx(lowest[0]), lowest[1])


def test_loss_staying_well_above_its_first_value_is_reported():
    # first value 1.0; then 1.6 (>= 1.5x) for 10 reads: reported at the tenth
    values = [1.0] * 10 + [1.6] * 60
    with warns("loss-diverging"):
        guards = _scripted_run(values, every=5, loss_trend_losses=5)
    finding = guards.findings[0]
    assert "stayed at or above 1.5x its first value 1 for 10 reads" in finding.message
    # points at steps 6 (mean of 1.0 x6), 11 (1.0/1.6 mix), then 1.6 from step 16: 10th at 61
    assert finding.step == 61


def test_loss_slightly_above_its_first_value_is_silent():
    guards = _scripted_run([1.0] * 10 + [1.4] * 90, every=5, loss_trend_losses=5)
    assert guards.findings == []


def test_a_plateau_is_silent():
    g = torch.Generator().manual_seed(1)
    values = (2.3 + 0.2 * torch.randn(600, generator=g)).tolist()  # never learns anything
    guards = _scripted_run(values, every=5, loss_trend_losses=5)
    assert guards.findings == [] and _numbers(guards) is not None


def test_noisy_near_zero_loss_swinging_tenfold_is_silent():
    """A memorised training set: per-window means swing 10x near zero, far below the start."""
    g = torch.Generator().manual_seed(2)
    late = (torch.rand(400, generator=g) ** 6 * 0.05).tolist()  # 0 ... 0.05, heavy-tailed
    values = [2.0] * 20 + [0.5] * 20 + late
    guards = _scripted_run(values, every=2, loss_trend_losses=2)
    assert guards.findings == []
    numbers = _numbers(guards)
    assert numbers["now"] > 10 * numbers["minimum"] or max(late) > 10 * numbers["minimum"]


def test_a_normal_converging_run_is_silent():
    model = Net(dropout=True)
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    crit = nn.CrossEntropyLoss()
    with watch(model, opt, loss_fn=crit, every=5) as guards:
        for _ in range(10):
            model.train()
            for x, y in batches(20):
                opt.zero_grad(set_to_none=True)
                crit(model(x), y).backward()
                opt.step()
            model.eval()
            with torch.no_grad():  # validation losses are not training losses
                crit(model(x), y)
    assert guards.findings == []
    assert _numbers(guards)["now"] < _numbers(guards)["first"]


def test_validation_losses_in_eval_mode_are_not_training_losses():
    """An overfitting model: training loss 0.05, validation 3.0 (above the start, 60x the
    minimum); validation runs in eval mode, here even with grad enabled."""
    model = nn.Linear(4, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.0)
    values = []
    for epoch in range(30):
        values += [1.0 if epoch < 2 else 0.05] * 5 + [3.0] * 5  # 5 train, then 5 validation
    crit = Scripted(values)
    x = torch.randn(8, 4)
    with watch(model, opt, loss_fn=crit, every=5, loss_trend_losses=5, eval_graph=False) as g:
        for _ in range(30):
            model.train()
            for _ in range(5):
                opt.zero_grad(set_to_none=True)
                crit(model(x)).backward()
                opt.step()
            model.eval()
            for _ in range(5):
                crit(model(x))  # a graph is built, never backwarded
    assert g.findings == []
    assert _numbers(g)["now"] == pytest.approx(0.05)


def _wave(steps, level, swing, period, noise, seed):
    g = torch.Generator().manual_seed(seed)
    t = torch.arange(steps, dtype=torch.float32)
    wave = level + swing * torch.sin(2 * math.pi * t / period)
    return (wave * (1 + noise * torch.randn(steps, generator=g))).clamp(min=0.01).tolist()


def test_gan_like_oscillating_losses_are_silent():
    """DCGAN-tutorial shapes over 800 steps, read every 50 steps (stricter than the default): the
    discriminator's loss collapses to ~0.02 early and recovers to oscillate (30x its minimum,
    below its start); the generator's spikes early, then oscillates; and the mixture a loss
    module shared by both sees (D on real, D on fake, G, each step)."""
    steps = 800
    d = [1.4 - 1.38 * min(t, 40) / 40 for t in range(100)]  # collapse: D wins early
    d += _wave(steps - 100, 0.7, 0.25, 120, 0.2, seed=3)
    gen = [5.0 + 20 * min(t, 50) / 50 for t in range(60)] + [25.0 - 2 * t for t in range(10)]
    gen += _wave(steps - 70, 3.0, 1.5, 90, 0.3, seed=4)
    real, fake = _wave(steps, 0.4, 0.2, 70, 0.3, seed=5), _wave(steps, 0.4, 0.2, 70, 0.3, seed=6)
    mixed = [v for triple in zip(real, fake, gen) for v in triple]
    for values, calls in ((d, 1), (gen, 1), (mixed, 3)):
        guards = _scripted_run(values, calls_per_step=calls, every=50)
        assert guards.findings == [], values[:3]
        assert _numbers(guards)["step"] == steps  # judged to the end


def test_negative_losses_are_not_judged():
    values = [-1.0] * 10 + [-0.01] * 10 + [5.0] * 100  # e.g. an ELBO or a reward
    guards = _scripted_run(values, every=5, loss_trend_losses=5)
    assert guards.findings == [] and not guards.guard(LossTrendGuard).judging


@pytest.mark.parametrize("log_every", [1, 1000])  # the logged means / the device losses
def test_diverging_under_fit_is_reported(log_every):
    g = torch.Generator().manual_seed(0)
    x = torch.randn(64, 4, generator=g) * torch.tensor([1.0, 1.0, 1.0, 3.0])
    y = x @ torch.tensor([[1.0], [-2.0], [0.5], [1.0]])
    model = nn.Linear(4, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.15)  # past 2 / largest curvature (~14.8)
    config = {
        "run": {"quiet": True, "log_every": log_every},
        "train": {"max_epochs": 40, "clip_norm": None},
        "schedule": {"name": "constant"},
        "data": {"batch_size": 64, "shuffle": False},
        "guards": {"every": 5, "loss_trend_losses": 5, "grad_norms": False},
    }
    with warns("loss-diverging"):
        result = tw.fit(model, (x, y), loss=nn.MSELoss(), config=config, optimizer=opt)
    assert codes(result) == ["loss-diverging"]
    assert result.findings[0].where == "MSELoss"


def test_switch_off_and_thresholds_are_validated():
    values = [4.0] * 6 + [0.5] * 10 + [6.0] * 20
    assert _scripted_run(values, every=5, loss_trend_losses=5, loss_trend=False).findings == []
    for field, value in (("loss_diverge_ratio", 1.0), ("loss_rise_ratio", 0.5)):
        with pytest.raises(ConfigError, match=f"guards.{field}"):
            validate_guards(GuardsConfig(**{field: value}))
    for field in ("loss_trend_losses", "loss_rise_reads"):
        with pytest.raises(ConfigError, match=f"guards.{field}"):
            validate_guards(GuardsConfig(**{field: 0}))


def test_trainwell_train_help_lists_the_new_keys():
    from trainwell.config.tree import config_help

    text = config_help()
    for key in (
        "loss_trend",
        "loss_trend_losses",
        "loss_diverge_ratio",
        "loss_rise_ratio",
        "loss_rise_reads",
        "accumulation_scale",
    ):
        line = next(line for line in text.splitlines() if line.strip().startswith(f"guards.{key}="))
        assert len(line.split("  ")) >= 3, line  # key=default, then its comment


# ---------------------------------------------------------------------- accumulation-not-scaled


def _accumulating_run(weigh, k=4, windows=6, scaler=None, loss_fn=None, **config):
    """``k`` micro-batches per step; ``weigh(loss, micro)`` is what the user backwards."""
    model = Net()
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    crit = loss_fn or nn.CrossEntropyLoss()  # False: the watch is given no loss module
    data = batches(windows * k)
    with watch(
        model,
        opt,
        loss_fn=None if loss_fn is False else crit,
        accumulate_steps=k,
        scaler=scaler,
        every=2,
        **config,
    ) as guards:
        for w in range(windows):
            opt.zero_grad(set_to_none=True)
            for i in range(k):
                x, y = data[w * k + i]
                loss = weigh(crit(model(x), y), i)
                (scaler.scale(loss) if scaler is not None else loss).backward()
            if scaler is not None:
                scaler.step(opt)
                scaler.update()
            else:
                opt.step()
    return guards


def test_undivided_accumulated_loss_is_reported():
    with warns("accumulation-not-scaled"):
        guards = _accumulating_run(lambda loss, i: loss)
    assert codes(guards) == ["accumulation-not-scaled"]
    finding = guards.findings[0]
    assert finding.where == "CrossEntropyLoss" and finding.step == 1  # read after step 1
    assert "accumulate_steps=4" in finding.message and "factor of 1 " in finding.message
    assert "/ 4" in finding.fix


def test_undivided_loss_under_gradscaler_is_reported():
    scaler = torch.amp.GradScaler("cpu")
    with warns("accumulation-not-scaled"):
        guards = _accumulating_run(lambda loss, i: loss, scaler=scaler)
    assert codes(guards) == ["accumulation-not-scaled"]


@pytest.mark.parametrize(
    "weigh",
    [
        pytest.param(lambda loss, i: loss / 4, id="divided"),
        pytest.param(lambda loss, i: loss * (16 + i) / (4 * 16 + 6), id="token-weighted"),
        pytest.param(lambda loss, i: 0.5 * loss, id="coefficient-0.5"),
    ],
)
def test_scaled_accumulated_losses_are_silent(weigh):
    guards = _accumulating_run(weigh)
    assert guards.findings == []
    assert guards.guard(AccumulationScaleGuard).ring is not None  # the factors were seen


def test_divided_loss_under_gradscaler_is_silent():
    scaler = torch.amp.GradScaler("cpu")
    guards = _accumulating_run(lambda loss, i: loss / 4, scaler=scaler)
    assert guards.findings == [] and scaler.get_scale() > 1


def test_accumulation_check_cannot_see_without_a_loss_module_or_with_a_summed_loss():
    assert _accumulating_run(lambda loss, i: loss, loss_fn=False).findings == []
    summed = nn.CrossEntropyLoss(reduction="sum")  # a sum is meant to grow with the window
    assert _accumulating_run(lambda loss, i: loss, loss_fn=summed).findings == []


def test_declared_accumulation_that_steps_every_backward_is_not_reported():
    model = Net()
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    crit = nn.CrossEntropyLoss()
    with watch(model, opt, loss_fn=crit, accumulate_steps=4, every=2) as guards:
        for x, y in batches(12):
            opt.zero_grad(set_to_none=True)
            crit(model(x), y).backward()
            opt.step()
    assert "accumulation-not-scaled" not in codes(guards)


def test_accumulation_switch_off():
    guards = _accumulating_run(lambda loss, i: loss, accumulation_scale=False)
    assert guards.findings == []


# ---------------------------------------------------------------------------- no host sync


_READS = ("item", "tolist", "__bool__", "__float__", "__int__", "cpu", "numpy")


def test_no_host_read_between_reads(monkeypatch):
    """Only these two guards on: the steps between reads call nothing that reads the device;
    the reads (at close) do."""
    only = {
        name: False
        for name, value in vars(GuardsConfig()).items()
        if value is True and name not in ("enabled", "loss_trend", "accumulation_scale")
    }
    model = Net()
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    crit = nn.CrossEntropyLoss()
    calls = []

    def counting(name):
        original = getattr(torch.Tensor, name)

        def read(self, *args, **kwargs):
            calls.append(name)
            return original(self, *args, **kwargs)

        return read

    data = batches(4 * 20)
    watcher = watch(model, opt, loss_fn=crit, accumulate_steps=4, every=1000, **only)
    with warns("accumulation-not-scaled"):
        for step in range(20):
            if step == 1:  # the first step is a sampled one (a read): count from the second
                for name in _READS:
                    monkeypatch.setattr(torch.Tensor, name, counting(name))
            opt.zero_grad(set_to_none=True)
            for i in range(4):
                x, y = data[4 * step + i]
                crit(model(x), y).backward()  # undivided: reported at the read after step 1
            opt.step()
        assert calls == []
        trend = watcher.guard(LossTrendGuard)
        assert trend.count == 80 and trend.points == 0  # all seen, summed on the device
        watcher.close()
    assert calls  # the close read the device
    assert trend.points == 1
    assert codes(watcher) == ["accumulation-not-scaled"]
