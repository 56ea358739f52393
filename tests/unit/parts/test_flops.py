"""FLOP counting, peak FLOP/s lookup and probe, throughput/MFU arithmetic, token counting."""

from functools import partial

import pytest
import torch
import torch.nn.functional as F
from tests.fixtures import mlp, random_data
from torch import nn

from trainwell.parts import flops
from trainwell.parts.flops import (
    count_forward_flops,
    count_step_flops,
    measure_matmul_flops,
    peak_flops,
    throughput,
    tokens_in,
)

pytestmark = (
    pytest.mark.cpu_only
)  # asserts CPU semantics (exact parity with CPU tensors, fp32, CPU probes): CUDA hidden

B, IN, HIDDEN, OUT = 4, 8, 16, 3


_mlp = partial(mlp, features=IN, hidden=HIDDEN, classes=OUT)


# --- counting -----------------------------------------------------------------------------


def test_linear_step_is_forward_plus_weight_gradient():
    torch.manual_seed(0)
    layer = nn.Linear(IN, HIDDEN)  # with bias
    x = torch.randn(B, IN)
    forward = 2 * B * IN * HIDDEN  # addmm: bias add not counted, only the matmul's 2*m*n*k
    assert count_forward_flops(layer, x) == forward == 1024
    # Backward: the weight gradient is grad_out^T @ x, another 2*B*IN*HIDDEN. The input does
    # not require grad, so no grad_out @ W is computed; the bias gradient is a sum (0 FLOPs).
    # So 2x the forward here, not 3x: 3x only holds for layers whose input needs a gradient.
    assert count_step_flops(layer, x) == 2 * forward == 2048


def test_mlp_step_counts_the_input_gradient_of_later_layers():
    model = _mlp()
    x = torch.randn(B, IN)
    first, second = 2 * B * IN * HIDDEN, 2 * B * HIDDEN * OUT
    # First layer: forward + weight grad (its input x needs none) = 2x.
    # Second layer: forward + weight grad + input grad (feeds the first layer's grad) = 3x.
    expected = 2 * first + 3 * second
    assert expected == 3200
    assert count_step_flops(model, x) == expected
    # An explicit loss adds no matmul FLOPs.
    y = torch.randint(0, OUT, (B,))
    assert count_step_flops(model, x, nn.CrossEntropyLoss(), y) == expected


def test_forward_flops_of_mlp_is_the_sum_of_its_matmuls():
    model = _mlp()
    x = torch.randn(B, IN)
    assert count_forward_flops(model, x) == 2 * B * IN * HIDDEN + 2 * B * HIDDEN * OUT == 1408


def test_batch_size_scales_the_count_linearly():
    model = _mlp()
    small = count_step_flops(model, torch.randn(2, IN))
    assert count_step_flops(model, torch.randn(6, IN)) == 3 * small


class _Net(nn.Module):
    """BatchNorm (buffers change in train mode) and dropout (draws from the RNG)."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(IN, HIDDEN)
        self.bn = nn.BatchNorm1d(HIDDEN)
        self.drop = nn.Dropout(0.5)
        self.head = nn.Linear(HIDDEN, OUT)

    def forward(self, x):
        return self.head(self.drop(self.bn(self.fc(x))))


@pytest.mark.parametrize("training", [True, False])
def test_counting_leaves_model_grads_buffers_modes_and_rng_unchanged(training):
    torch.manual_seed(0)
    model = _Net()
    model.train(training)
    model.drop.train(not training)  # a mixed state must come back as it was
    model.fc.weight.grad = torch.full_like(model.fc.weight, 7.0)  # a pending gradient
    params = {n: p.detach().clone() for n, p in model.named_parameters()}
    buffers = {n: b.detach().clone() for n, b in model.named_buffers()}
    modes = {n: m.training for n, m in model.named_modules()}
    x = torch.randn(B, IN)
    rng = torch.get_rng_state()

    assert count_step_flops(model, x) > 0
    assert count_forward_flops(model, x) > 0

    for name, p in model.named_parameters():
        assert torch.equal(p, params[name]), name
    for name, b in model.named_buffers():
        assert torch.equal(b, buffers[name]), name
    assert {n: m.training for n, m in model.named_modules()} == modes
    assert torch.equal(model.fc.weight.grad, torch.full_like(model.fc.weight, 7.0))
    assert all(p.grad is None for n, p in model.named_parameters() if n != "fc.weight")
    assert torch.equal(torch.get_rng_state(), rng)


class _Attention(nn.Module):
    def __init__(self, heads, dim):
        super().__init__()
        self.heads = heads
        self.scale = nn.Parameter(torch.ones(dim))

    def forward(self, x):  # x: (B, H, S, D)
        q = x * self.scale
        return F.scaled_dot_product_attention(q, x, x)


def test_sdpa_attention_is_counted_on_cpu():
    b, h, s, d = 2, 4, 16, 8
    x = torch.randn(b, h, s, d)
    model = _Attention(h, d)
    forward = 2 * (2 * b * h * s * s * d)  # Q @ K^T and P @ V
    assert count_forward_flops(model, x) == forward
    # PyTorch's convention for the attention backward: 5 matmuls (scores recomputed) = 2.5x.
    assert count_step_flops(model, x) == forward + 5 * forward // 2


# --- peak FLOP/s -----------------------------------------------------------------------------


@pytest.fixture
def gpu_named(monkeypatch):
    def set_name(name):
        monkeypatch.setattr(torch.cuda, "get_device_name", lambda device=None: name)
        return torch.device("cuda", 0)

    return set_name


@pytest.mark.parametrize(
    ("name", "dtype", "expected", "entry"),
    [
        ("NVIDIA H100 80GB HBM3", torch.bfloat16, 989e12, "NVIDIA H100 SXM"),
        ("NVIDIA H100 80GB HBM3", torch.float32, 67e12, "NVIDIA H100 SXM"),
        ("NVIDIA H100 PCIe", torch.bfloat16, 756e12, "NVIDIA H100 PCIe"),
        ("NVIDIA H100 NVL", torch.float16, 835e12, "NVIDIA H100 NVL"),
        ("NVIDIA H200", torch.bfloat16, 989e12, "NVIDIA H200 SXM"),
        ("NVIDIA A100-SXM4-80GB", torch.bfloat16, 312e12, "NVIDIA A100"),
        ("NVIDIA A100 80GB PCIe", torch.float16, 312e12, "NVIDIA A100"),
        ("NVIDIA A100-SXM4-40GB", torch.float32, 19.5e12, "NVIDIA A100"),
        ("NVIDIA L4", torch.bfloat16, 121e12, "NVIDIA L4"),
        ("NVIDIA A10", torch.bfloat16, 125e12, "NVIDIA A10"),
        ("Tesla V100-SXM2-16GB", torch.float16, 125e12, "NVIDIA V100 SXM2"),
        ("Tesla V100-PCIE-32GB", torch.float32, 14e12, "NVIDIA V100 PCIe"),
        ("NVIDIA GeForce RTX 4090", torch.bfloat16, 165.2e12, "NVIDIA GeForce RTX 4090"),
    ],
)
def test_peak_flops_from_the_table(gpu_named, name, dtype, expected, entry):
    kind = {torch.bfloat16: "bf16", torch.float16: "fp16", torch.float32: "fp32"}[dtype]
    assert peak_flops(gpu_named(name), dtype) == (expected, f"table: {entry} {kind}")


@pytest.mark.parametrize(
    ("name", "dtype"),
    [
        ("NVIDIA GeForce GTX 1080 Ti", torch.bfloat16),  # not in the table
        ("Some Future Accelerator 9000", torch.float16),
        ("NVIDIA A10G", torch.bfloat16),  # no vendor data sheet: not guessed from the A10
        ("NVIDIA GH200 480GB", torch.bfloat16),  # not the H100/H200 entries
        ("NVIDIA A100-SXM4-40GB MIG 1g.5gb", torch.bfloat16),  # a slice of the SMs
        ("NVIDIA GeForce RTX 4090 D", torch.bfloat16),  # a cut-down 4090
        ("Tesla V100-SXM2-16GB", torch.bfloat16),  # Volta has no bf16 Tensor Cores
        ("NVIDIA H100 80GB HBM3", torch.float64),  # dtype not tabulated
    ],
)
def test_unknown_gpu_or_dtype_has_no_peak(gpu_named, name, dtype):
    assert peak_flops(gpu_named(name), dtype) is None


def test_fp32_uses_the_tf32_rate_when_tf32_matmuls_are_allowed(gpu_named, monkeypatch):
    device = gpu_named("NVIDIA A100-SXM4-80GB")
    monkeypatch.setattr(flops, "_tf32_matmuls", lambda: True)
    assert peak_flops(device, torch.float32) == (156e12, "table: NVIDIA A100 tf32")
    # Volta has no TF32: its fp32 rate stays.
    device = gpu_named("Tesla V100-SXM2-16GB")
    assert peak_flops(device, torch.float32) == (15.7e12, "table: NVIDIA V100 SXM2 fp32")


def test_tf32_flag_is_read_from_torch():
    matmul = torch.backends.cuda.matmul
    saved = matmul.allow_tf32  # a computed attribute: monkeypatch cannot restore it
    try:
        matmul.allow_tf32 = True
        assert flops._tf32_matmuls() is True
        matmul.allow_tf32 = False
        assert flops._tf32_matmuls() is False
    finally:
        matmul.allow_tf32 = saved


def test_other_device_types_have_no_peak():
    assert peak_flops(torch.device("mps"), torch.float32) is None
    assert peak_flops("meta", torch.float32) is None


def test_cpu_probe_measures_a_plausible_rate():
    rate = measure_matmul_flops(torch.float32, size=128, seconds=0.05)
    assert 1e8 <= rate <= 1e13


def test_cpu_peak_is_probed_once_per_dtype_and_cached(monkeypatch):
    monkeypatch.setattr(flops, "_PROBE_CACHE", {})
    calls = []
    real = flops.measure_matmul_flops

    def counting(dtype, size, seconds):
        calls.append(dtype)
        return real(dtype, size=size, seconds=0.02)

    monkeypatch.setattr(flops, "measure_matmul_flops", counting)
    rng = torch.get_rng_state()
    first = peak_flops(torch.device("cpu"), torch.float32, probe_size=128)
    second = peak_flops("cpu", torch.float32, probe_size=128)
    assert first is not None and first == second
    assert calls == [torch.float32]
    rate, source = first
    assert 1e8 <= rate <= 1e13
    assert source.startswith("probe: torch.mm 128x128 float32")
    assert torch.equal(torch.get_rng_state(), rng)  # probing does not consume the run's RNG
    peak_flops("cpu", torch.float64, probe_size=128)
    assert calls == [torch.float32, torch.float64]


# --- throughput and tokens -------------------------------------------------------------------


def test_throughput_values_are_exact():
    rates = throughput(
        steps=8,
        elapsed_s=2.0,
        samples=64,
        tokens=64 * 128,
        flops_per_step=500_000_000_000,
        peak_flops_per_s=8e12,
    )
    # 8 steps x 5e11 FLOPs / 2 s = 2e12 FLOP/s = 2 TFLOP/s; against an 8e12 peak: 25% MFU.
    assert rates == {
        "samples_per_s": 32.0,
        "steps_per_s": 4.0,
        "tokens_per_s": 4096.0,
        "tflops": 2.0,
        "mfu": 0.25,
    }


def test_throughput_leaves_out_what_it_cannot_know():
    rates = throughput(steps=3, elapsed_s=1.5, samples=30)
    assert rates == {"samples_per_s": 20.0, "steps_per_s": 2.0}
    rates = throughput(steps=3, elapsed_s=1.5, samples=30, flops_per_step=10**12)
    assert rates == {"samples_per_s": 20.0, "steps_per_s": 2.0, "tflops": 2.0}
    with pytest.raises(ValueError, match="elapsed_s"):
        throughput(steps=1, elapsed_s=0.0, samples=1)


def test_tokens_in_counts_token_id_batches_only():
    ids = torch.randint(0, 100, (4, 16))
    assert tokens_in(ids) == 64
    assert tokens_in((ids, ids)) == 64
    assert tokens_in({"input_ids": ids.int()[:2, :5], "labels": ids}) == 10
    assert tokens_in({"x": ids, "y": torch.zeros(4)}) == 64
    assert tokens_in(torch.randn(4, 3, 8, 8)) is None  # images
    assert tokens_in((torch.randn(4, 16), torch.zeros(4))) is None  # float features
    assert tokens_in(torch.randint(0, 255, (4, 16), dtype=torch.uint8)) is None  # pixels
    assert tokens_in(torch.randint(0, 3, (4,))) is None  # class ids
    assert tokens_in({"labels": ids}) is None


# --- MFU in fit() -------------------------------------------------------------------------


def _fit_blobs(model, *, accumulate=1, compile_value=False, log_every=1, run_dir=None):
    import trainwell as tw

    x, y = random_data(200, features=IN, classes=OUT)
    config = {
        "run": {"quiet": True, "log_every": log_every, "dir": run_dir},
        "data": {"batch_size": 50},  # 4 full batches an epoch: every step counts the same
        "train": {"max_epochs": 2, "accumulate_steps": accumulate, "compile": compile_value},
    }
    return tw.fit(model, (x, y), (x[:50], y[:50]), config=config)


@pytest.mark.parametrize("accumulate", [1, 2])
def test_fit_counts_the_flops_of_one_real_step_and_reports_mfu(accumulate, tmp_path):
    import json

    targets = torch.randint(0, OUT, (50,))
    expected = count_step_flops(_mlp(), torch.randn(50, IN), nn.CrossEntropyLoss(), targets)
    result = _fit_blobs(_mlp(), accumulate=accumulate, run_dir=str(tmp_path / "run"))
    rates = result.throughput
    assert rates["flops_per_step"] == expected * accumulate  # every micro-batch of a window
    assert rates["samples_per_s"] > 0 and 0 < rates["mfu"] < 1
    assert rates["peak_source"].startswith("probe: torch.mm")
    # tflops is the counted FLOPs over the measured time: consistent with samples/s
    steps_per_s = rates["samples_per_s"] / (50 * accumulate)
    assert rates["tflops"] * 1e12 == pytest.approx(expected * accumulate * steps_per_s, rel=1e-6)
    logged = [json.loads(line) for line in (tmp_path / "run" / "metrics.jsonl").open()]
    steps = [r for r in logged if r.get("kind") == "step"]
    assert steps and all("mfu" in r and "tflops" in r for r in steps[1:])
    assert "MFU" in result.describe() and result.summary()["throughput"]["mfu"] == rates["mfu"]


def test_a_compiled_run_is_counted_on_its_eager_forward():
    eager = _fit_blobs(_mlp())
    compiled = _fit_blobs(_mlp(), compile_value={"backend": "aot_eager"})
    assert compiled.throughput["flops_per_step"] == eager.throughput["flops_per_step"]
    assert compiled.compile.recompiles == []


def test_step_flops_counts_once_on_the_second_step():
    counter = flops.StepFlops(torch.device("cpu"), None)
    model = _mlp()
    counts = []
    for _ in range(4):
        with counter.counting():
            model(torch.randn(B, IN)).sum().backward()
        counts.append(counter.per_step)
    assert counts[0] is None and counts[1] == counts[2] == counts[3] > 0
    assert counter.rates(steps=10, elapsed_s=2.0)["tflops"] == pytest.approx(counts[1] * 5 / 1e12)


def test_training_throughput_leaves_out_the_time_between_epochs(monkeypatch):
    """The meter's clock stands still from the end of an epoch's batches (validation,
    checkpoints) to the next epoch's first batch."""
    from trainwell.loop import meter as meter_module

    clock = [100.0]
    monkeypatch.setattr(meter_module.time, "perf_counter", lambda: clock[0])
    m = meter_module.Meter(torch.device("cpu"))
    for _ in m.timed([1, 2]):
        clock[0] += 1.0  # two steps of 1 s
    clock[0] += 50.0  # validation and a checkpoint: not training
    for _ in m.timed([3]):
        clock[0] += 1.0
    m.interval_windows = m.interval_samples = 3
    logged = m.read_interval(torch.tensor(0.0), lr=0.1)
    assert logged["samples_per_s"] == pytest.approx(1.0)  # 3 samples in 3 s of training


def test_rates_with_several_ranks_are_totals_and_mfu_stays_per_device(monkeypatch):
    """Every rank counts its own samples, tokens and FLOPs: the run's samples/s, tokens/s and
    TFLOP/s are the totals over ranks (in the logs and in the summary alike), while MFU is
    achieved over peak of one device, whatever the number of devices."""
    from trainwell.loop import meter as meter_module

    class TwoRanks:
        world_size = 2

        def mean(self, values):  # both ranks saw the same numbers
            return values

        def union(self, names):  # and logged the same values
            return names

    clock = [100.0]
    monkeypatch.setattr(meter_module.time, "perf_counter", lambda: clock[0])
    flops = meter_module.StepFlops(torch.device("cpu"), torch.float32)
    flops.per_step, flops.peak = 4e12, (2e12, "a test peak")
    m = meter_module.Meter(torch.device("cpu"), flops, world=TwoRanks())
    for _ in m.timed([1, 2]):
        clock[0] += 1.0
    m.interval_windows, m.interval_samples = 2, 64
    logged = m.read_interval(torch.tensor(0.0), lr=0.1)
    assert logged["samples_per_s"] == pytest.approx(2 * 64 / 2)
    assert logged["tflops"] == pytest.approx(2 * 4 * 2 / 2)  # 4 TFLOP a step, 2 steps, 2 ranks
    assert logged["mfu"] == pytest.approx((4e12 * 2 / 2) / 2e12)
    run = m.run_rates()
    assert run["samples_per_s"] == pytest.approx(logged["samples_per_s"])
    assert run["tflops"] == pytest.approx(logged["tflops"])
    assert run["mfu"] == pytest.approx(logged["mfu"])


def test_the_run_clock_stops_when_the_loop_leaves_an_epoch_early(monkeypatch):
    """The last step ends the loop before the loader is exhausted: what follows (the last
    validation, the final save) is not training time either."""
    from trainwell.loop import meter as meter_module

    clock = [100.0]
    monkeypatch.setattr(meter_module.time, "perf_counter", lambda: clock[0])
    m = meter_module.Meter(torch.device("cpu"))
    for batch in m.timed([1, 2, 3]):
        clock[0] += 1.0
        if batch == 2:
            break  # max_steps reached mid-epoch
    clock[0] += 50.0  # validation and the final checkpoint
    m.interval_windows = m.interval_samples = 2
    assert m.run_rates()["samples_per_s"] == pytest.approx(1.0)  # 2 samples in 2 s


# --------------------------------------------------------------------------------------------
# The summary's throughput line: a launch-bound model on a GPU is named, not "MFU 0.0%"
# --------------------------------------------------------------------------------------------


def _gpu_rates(mfu: float) -> dict:
    return {
        "samples_per_s": 5000.0,
        "tflops": 0.01,
        "mfu": mfu,
        "peak_source": "table: H200 bf16",
    }


def test_a_tiny_model_on_a_gpu_is_called_launch_bound_with_what_helps() -> None:
    from trainwell.parts.flops import describe_throughput

    text = describe_throughput(_gpu_rates(0.00034))
    assert "MFU 0.034% of table: H200 bf16" in text  # two significant digits, not "0.0%"
    hint = text.splitlines()[1]
    assert "too small to load the GPU" in hint
    for fix in ("data.batch_size", "train.compile.mode=reduce-overhead", "run.device=cpu"):
        assert fix in hint


def test_a_loaded_gpu_and_a_cpu_probe_get_no_launch_bound_hint() -> None:
    from trainwell.parts.flops import describe_throughput

    assert describe_throughput(_gpu_rates(0.41)).splitlines() == [
        "throughput: 5,000 samples/s, 0.01 TFLOP/s, MFU 41.0% of table: H200 bf16"
    ]
    cpu = {**_gpu_rates(0.002), "peak_source": "probe: torch.mm 512x512 float32, 2 threads"}
    assert len(describe_throughput(cpu).splitlines()) == 1  # relative to this CPU's BLAS
