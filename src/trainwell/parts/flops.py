"""Throughput and MFU: FLOPs of one training step, peak FLOP/s of the device, and the ratio.

Three independent pieces, none of which syncs the device while training:

- `count_step_flops` / `count_forward_flops` count FLOPs once, on one batch, with
  `torch.utils.flop_counter.FlopCounterMode` (shapes only: the count does not depend on the
  dtype or on autocast). They leave the model as they found it: parameters, ``.grad``, buffers,
  train/eval flags and the RNG state.
- `peak_flops` looks the device up in `PEAK_FLOPS` (vendor data sheets, dense) or, on the CPU,
  measures what ``torch.mm`` achieves. An unknown accelerator gives ``None``: no MFU is better
  than a made-up one.
- `throughput` turns Python numbers the loop already has (steps, seconds, samples, tokens)
  into samples/s, tokens/s, achieved TFLOP/s and MFU.

What `FlopCounterMode` counts: matrix multiplies (mm/addmm/bmm/baddbmm/matmul), convolutions
and their backward, and fused attention (SDPA). Everything else (elementwise ops, norms,
softmax, the loss, optimizer updates) counts as 0, which is the usual MFU convention: the
matmuls are what the peak numbers measure.
"""

from __future__ import annotations

import contextlib
import re
import time
from collections.abc import Callable, Iterator
from typing import Any

import torch
from torch import nn
from torch.utils.flop_counter import FlopCounterMode

from trainwell.data.batch import INPUT_KEYS
from trainwell.parts.losses import compute_loss
from trainwell.parts.outputs import call_model, logits_of, model_loss_of

__all__ = [
    "PEAK_FLOPS",
    "count_forward_flops",
    "count_step_flops",
    "measure_matmul_flops",
    "peak_flops",
    "table_entry",
    "throughput",
    "tokens_in",
]


# --------------------------------------------------------------------------------------------
# Counting FLOPs
# --------------------------------------------------------------------------------------------


def count_step_flops(
    model: nn.Module,
    inputs: Any,
    loss_fn: Callable[..., torch.Tensor] | None = None,
    targets: Any = None,
) -> int:
    """FLOPs of one training step on this batch: forward, loss and backward (no optimizer).

    ``inputs`` is what the model takes: a tensor, a tuple (positional arguments) or a dict
    (keyword arguments), already on the model's device. The loss is ``loss_fn(prediction,
    targets)`` (``loss_fn(output)`` without targets); without ``loss_fn`` it is the output's
    own ``loss`` (HF-style models given labels) or else the sum of the prediction, which only
    seeds the backward: a loss costs no matmul FLOPs either way.

    The step runs in train mode (models may branch on ``self.training``) and the gradients are
    taken with `torch.autograd.grad`, so ``.grad`` is never written and gradient hooks on
    accumulation do not fire. Buffers (BatchNorm running stats), every module's train/eval flag
    and the RNG state (dropout draws) are restored afterwards, so counting does not change the
    run that follows.

    Backward FLOPs are counted for the gradients autograd actually computes: for a linear layer
    whose input does not require grad (the first layer), only the weight gradient (1x the
    forward matmul), for the layers after it the weight and input gradients (2x). Only the
    parameters are differentiated, so an input that itself requires grad adds nothing.
    """
    params = [p for p in model.parameters() if p.requires_grad]
    with _untouched(model), _counter() as counter:
        model.train()
        output = call_model(model, inputs)
        loss = _loss_of(output, loss_fn, targets)
        if params and loss.requires_grad:
            # autograd.grad instead of backward(): the gradients are returned, not accumulated.
            torch.autograd.grad(loss, params, allow_unused=True)
    return int(counter.get_total_flops())


def count_forward_flops(model: nn.Module, inputs: Any) -> int:
    """FLOPs of one forward pass on this batch, under `torch.no_grad`, in the model's own mode.

    Buffers and the RNG state are restored afterwards, as in `count_step_flops`.
    """
    with _untouched(model), _counter() as counter, torch.no_grad():
        call_model(model, inputs)
    return int(counter.get_total_flops())


def _loss_of(
    output: Any, loss_fn: Callable[..., torch.Tensor] | None, targets: Any
) -> torch.Tensor:
    if loss_fn is not None:
        if targets is None:
            return loss_fn(output)
        return compute_loss(loss_fn, logits_of(output), targets)
    own = model_loss_of(output)
    return own if own is not None else logits_of(output).sum()


@contextlib.contextmanager
def _untouched(model: nn.Module) -> Iterator[None]:
    """Put back what running the model may change: train/eval flags, buffers, RNG state."""
    modes = [(module, module.training) for module in model.modules()]
    buffers = [(b, b.detach().clone()) for b in model.buffers()]
    cuda = sorted(
        {t.device.index or 0 for t in (*model.parameters(), *model.buffers()) if t.is_cuda}
    )
    try:
        # fork_rng restores the CPU generator and those of the listed CUDA devices on exit.
        with torch.random.fork_rng(devices=cuda):
            yield
    finally:
        for module, training in modes:
            module.training = training
        with torch.no_grad():
            for buffer, saved in buffers:
                buffer.copy_(saved)


def _counter() -> FlopCounterMode:
    return FlopCounterMode(display=False, custom_mapping=_cpu_attention_formulas())


def _cpu_attention_formulas() -> dict[Any, Callable[..., int]]:
    """Formulas for the CPU flash-attention kernel, which `FlopCounterMode` leaves at 0.

    PyTorch counts its CUDA SDPA kernels (flash, efficient, cuDNN) but not
    ``_scaled_dot_product_flash_attention_for_cpu``; without these a transformer's attention
    would vanish from the count on the CPU only. The conventions are PyTorch's: 2 matmuls
    forward, 5 backward (the scores are recomputed), full S x S even when causal.
    """
    aten = torch.ops.aten
    formulas: dict[Any, Callable[..., int]] = {}
    if hasattr(aten, "_scaled_dot_product_flash_attention_for_cpu"):
        formulas[aten._scaled_dot_product_flash_attention_for_cpu] = _sdpa_forward_flops
    if hasattr(aten, "_scaled_dot_product_flash_attention_for_cpu_backward"):
        formulas[aten._scaled_dot_product_flash_attention_for_cpu_backward] = _sdpa_backward_flops
    return formulas


def _sdpa_forward_flops(
    query: tuple[int, ...], key: tuple[int, ...], value: tuple[int, ...], *args: Any, **kwargs: Any
) -> int:
    # Shapes (B, H, S, D); grouped-query attention broadcasts K/V heads to the query's H.
    b, h, s_q, d_q = query
    s_k, d_v = key[2], value[3]
    return 2 * b * h * s_q * s_k * (d_q + d_v)  # Q @ K^T and P @ V


def _sdpa_backward_flops(
    grad_out: tuple[int, ...],
    query: tuple[int, ...],
    key: tuple[int, ...],
    value: tuple[int, ...],
    *args: Any,
    **kwargs: Any,
) -> int:
    b, h, s_q, d_q = query
    s_k, d_v = key[2], value[3]
    # Recomputed scores (Q K^T), dP = dO V^T, dV = P^T dO, dQ = dS K, dK = dS^T Q.
    return 2 * b * h * s_q * s_k * (3 * d_q + 2 * d_v)


# --------------------------------------------------------------------------------------------
# Peak FLOP/s
# --------------------------------------------------------------------------------------------

#: Peak dense FLOP/s per accelerator and dtype (``bf16``, ``fp16``, ``tf32``, ``fp32``).
#: Sources: NVIDIA data sheets and architecture whitepapers, Tensor Core numbers WITHOUT
#: structured sparsity (the data sheets' starred numbers are sparse: halved here), at boost
#: clock. ``fp32`` is the non-Tensor-Core rate (what fp32 matmuls get with TF32 off, PyTorch's
#: default); ``tf32`` applies when ``torch.set_float32_matmul_precision("high")`` is on. A dtype
#: a device lacks (bf16 and tf32 on V100) is absent, so its lookup gives no MFU.
PEAK_FLOPS: dict[str, dict[str, float]] = {
    # A100 data sheet (SXM4 and PCIe, 40 and 80 GB alike): BF16/FP16 312, TF32 156, FP32 19.5.
    "NVIDIA A100": {"bf16": 312e12, "fp16": 312e12, "tf32": 156e12, "fp32": 19.5e12},
    # H100 data sheet, SXM5: BF16/FP16 1,979* and TF32 989* sparse; FP32 67. The Hopper
    # whitepaper gives the dense numbers: 989.4 (BF16/FP16) and 494.7 (TF32).
    "NVIDIA H100 SXM": {"bf16": 989e12, "fp16": 989e12, "tf32": 494.7e12, "fp32": 67e12},
    # H100 data sheet, PCIe: BF16/FP16 1,513* and TF32 756* sparse; FP32 51.
    "NVIDIA H100 PCIe": {"bf16": 756e12, "fp16": 756e12, "tf32": 378e12, "fp32": 51e12},
    # H100 data sheet, NVL: BF16/FP16 1,671* and TF32 835* sparse; FP32 60.
    "NVIDIA H100 NVL": {"bf16": 835e12, "fp16": 835e12, "tf32": 417.5e12, "fp32": 60e12},
    # H200 data sheet, SXM: the H100 SXM compute numbers (more and faster memory only).
    "NVIDIA H200 SXM": {"bf16": 989e12, "fp16": 989e12, "tf32": 494.7e12, "fp32": 67e12},
    # H200 data sheet, NVL: BF16/FP16 1,671* and TF32 835* sparse; FP32 60.
    "NVIDIA H200 NVL": {"bf16": 835e12, "fp16": 835e12, "tf32": 417.5e12, "fp32": 60e12},
    # L4 data sheet: BF16/FP16 242* and TF32 120* sparse; FP32 30.3.
    "NVIDIA L4": {"bf16": 121e12, "fp16": 121e12, "tf32": 60e12, "fp32": 30.3e12},
    # A10 data sheet: BF16/FP16 125 (250*), TF32 62.5 (125*), FP32 31.2. Not the A10G: that
    # is an AWS-only variant with no NVIDIA data sheet, so it is deliberately not listed.
    "NVIDIA A10": {"bf16": 125e12, "fp16": 125e12, "tf32": 62.5e12, "fp32": 31.2e12},
    # V100 data sheet: Tensor (FP16) 125 / 112 / 130, FP32 15.7 / 14 / 16.4 for SXM2 / PCIe /
    # V100S PCIe. Volta has no BF16 or TF32 Tensor Cores.
    "NVIDIA V100 SXM2": {"fp16": 125e12, "fp32": 15.7e12},
    "NVIDIA V100 PCIe": {"fp16": 112e12, "fp32": 14e12},
    "NVIDIA V100S PCIe": {"fp16": 130e12, "fp32": 16.4e12},
    # Ada Lovelace whitepaper, GeForce RTX 4090: FP16/BF16 Tensor with FP32 accumulate 165.2
    # (330.4*), which is what PyTorch's half GEMMs use; TF32 82.6; FP32 82.6.
    "NVIDIA GeForce RTX 4090": {
        "bf16": 165.2e12,
        "fp16": 165.2e12,
        "tf32": 82.6e12,
        "fp32": 82.6e12,
    },
}

# `torch.cuda.get_device_name` -> table key, first match wins. Names seen in practice:
# "NVIDIA A100-SXM4-80GB", "NVIDIA A100 80GB PCIe", "NVIDIA H100 80GB HBM3" (SXM5),
# "NVIDIA H100 PCIe", "NVIDIA H100 NVL", "NVIDIA H200", "NVIDIA H200 NVL", "NVIDIA L4",
# "NVIDIA A10", "Tesla V100-SXM2-16GB", "Tesla V100-PCIE-32GB", "Tesla V100S-PCIE-32GB",
# "NVIDIA GeForce RTX 4090". \b keeps "A10" from matching "A100"/"A10G" and "H100" from
# matching "GH200"; a name that matches no pattern (e.g. a bare "H100", "RTX 4090 D", a
# laptop 4090, "V100-SXM3") gives no peak rather than a neighbour's.
_NAME_PATTERNS: tuple[tuple[str, str], ...] = (
    (r"\bA100\b", "NVIDIA A100"),
    (r"\bH100\b.*\bPCIE\b", "NVIDIA H100 PCIe"),
    (r"\bH100\b.*\bNVL\b", "NVIDIA H100 NVL"),
    (r"\bH100\b.*\b(SXM\d*|HBM3E?)\b", "NVIDIA H100 SXM"),
    (r"\bH200\b.*\bNVL\b", "NVIDIA H200 NVL"),
    (r"\bH200\b(?!.*\b(NVL|PCIE)\b)", "NVIDIA H200 SXM"),
    (r"\bL4\b", "NVIDIA L4"),
    (r"\bA10\b", "NVIDIA A10"),
    (r"\bV100-SXM2\b", "NVIDIA V100 SXM2"),
    (r"\bV100-PCIE\b", "NVIDIA V100 PCIe"),
    (r"\bV100S-PCIE\b", "NVIDIA V100S PCIe"),
    (r"\bRTX 4090$", "NVIDIA GeForce RTX 4090"),
)

_DTYPE_KEYS = {torch.bfloat16: "bf16", torch.float16: "fp16", torch.float32: "fp32"}

# (dtype, threads, size) -> measured FLOP/s; the probe costs ~0.2 s, so it runs once per key.
_PROBE_CACHE: dict[tuple[torch.dtype, int, int], float] = {}


def table_entry(device_name: str) -> str | None:
    """The `PEAK_FLOPS` key for a CUDA device name, or None when it is not in the table.

    A MIG slice (``"... MIG 1g.10gb"``) has a fraction of the SMs, so it matches nothing.
    """
    name = device_name.strip().upper()
    if "MIG" in name.split():
        return None
    for pattern, key in _NAME_PATTERNS:
        if re.search(pattern, name, flags=re.IGNORECASE):
            return key
    return None


def peak_flops(
    device: torch.device | str,
    dtype: torch.dtype,
    *,
    probe_size: int = 512,
    probe_seconds: float = 0.2,
) -> tuple[float, str] | None:
    """Peak dense FLOP/s of ``device`` for matmuls in ``dtype``, and where the number comes from.

    - CUDA: `PEAK_FLOPS` by `torch.cuda.get_device_name`, source ``"table: <entry> <dtype>"``.
      For float32 the TF32 rate applies when TF32 matmuls are allowed
      (``torch.backends.cuda.matmul.allow_tf32`` or ``set_float32_matmul_precision("high")``)
      and the device has TF32.
    - CPU: no vendor number fits every CPU, so a ~0.2 s ``torch.mm`` probe
      (`measure_matmul_flops`), cached per (dtype, threads); source ``"probe: ..."``. An MFU
      against it is relative to what this CPU's BLAS achieves, not to a theoretical peak.
    - Anything else (an unknown GPU, MPS, XPU, ...): None, and no MFU is reported.
    """
    device = torch.device(device)
    if device.type == "cpu":
        threads = torch.get_num_threads()
        key = (dtype, threads, probe_size)
        if key not in _PROBE_CACHE:
            _PROBE_CACHE[key] = measure_matmul_flops(dtype, size=probe_size, seconds=probe_seconds)
        source = (
            f"probe: torch.mm {probe_size}x{probe_size} {_dtype_name(dtype)}, {threads} threads"
        )
        return _PROBE_CACHE[key], source
    if device.type != "cuda" or dtype not in _DTYPE_KEYS:
        return None
    entry = table_entry(torch.cuda.get_device_name(device))
    if entry is None:
        return None
    rates = PEAK_FLOPS[entry]
    kind = _DTYPE_KEYS[dtype]
    if kind == "fp32" and "tf32" in rates and _tf32_matmuls():
        kind = "tf32"
    if kind not in rates:
        return None
    return rates[kind], f"table: {entry} {kind}"


def _tf32_matmuls() -> bool:
    """Whether CUDA float32 matmuls may run on TF32 Tensor Cores (not PyTorch's default)."""
    matmul = torch.backends.cuda.matmul
    try:
        # Set by allow_tf32 = True and by torch.set_float32_matmul_precision("high"/"medium").
        return bool(matmul.allow_tf32)
    except RuntimeError:
        # Newer PyTorch refuses the legacy flag once the new per-backend API has been used.
        return getattr(matmul, "fp32_precision", "ieee") == "tf32"


def measure_matmul_flops(dtype: torch.dtype, size: int = 512, seconds: float = 0.2) -> float:
    """FLOP/s that ``torch.mm`` of two ``size x size`` CPU matrices achieves in ``dtype``.

    A warm-up of a quarter of ``seconds`` first (thread pool start-up, BLAS packing buffers,
    CPU clocks ramping up), then repeated multiplies until ``seconds`` have passed; each costs
    ``2 * size**3``. Both phases run at least one multiply, so where one is slow (bf16 on a CPU
    without native bf16: ~0.3 s at 512) the probe takes longer than ``seconds``.
    """
    # A private generator: probing must not advance the global RNG the run is seeded with.
    generator = torch.Generator().manual_seed(0)
    a = torch.randn(size, size, generator=generator).to(dtype)
    b = torch.randn(size, size, generator=generator).to(dtype)
    out = torch.empty(size, size, dtype=dtype)
    _repeat_mm(a, b, out, seconds / 4)
    iterations, elapsed = _repeat_mm(a, b, out, seconds)
    return 2 * size**3 * iterations / elapsed


def _repeat_mm(
    a: torch.Tensor, b: torch.Tensor, out: torch.Tensor, seconds: float
) -> tuple[int, float]:
    """Multiply until ``seconds`` have passed (at least once): (multiplies, seconds taken)."""
    iterations = 0
    started = time.perf_counter()
    while True:
        torch.mm(a, b, out=out)
        iterations += 1
        elapsed = time.perf_counter() - started
        if elapsed >= seconds:
            return iterations, elapsed


def _dtype_name(dtype: torch.dtype) -> str:
    return str(dtype).removeprefix("torch.")


# --------------------------------------------------------------------------------------------
# Throughput
# --------------------------------------------------------------------------------------------


def throughput(
    *,
    steps: int,
    elapsed_s: float,
    samples: int,
    tokens: int | None = None,
    flops_per_step: int | None = None,
    peak_flops_per_s: float | None = None,
) -> dict[str, float]:
    """Rates over an interval from host-side numbers: nothing here touches the device.

    ``steps`` counts the units ``flops_per_step`` was measured on: forward+backward passes
    of one batch as given to `count_step_flops` (micro-batches, under gradient accumulation).
    Give per-device numbers (this rank's samples, this device's peak) for a per-device MFU.

    Returns ``samples_per_s`` and ``steps_per_s``; ``tokens_per_s`` when ``tokens`` is known;
    ``tflops`` (achieved, 1e12 FLOP/s) when ``flops_per_step`` is; ``mfu`` (achieved / peak,
    a fraction) when the peak is known too.
    """
    if elapsed_s <= 0:
        raise ValueError(f"elapsed_s must be positive, got {elapsed_s}")
    rates = {"samples_per_s": samples / elapsed_s, "steps_per_s": steps / elapsed_s}
    if tokens is not None:
        rates["tokens_per_s"] = tokens / elapsed_s
    if flops_per_step is not None:
        achieved = flops_per_step * steps / elapsed_s
        rates["tflops"] = achieved / 1e12
        if peak_flops_per_s:
            rates["mfu"] = achieved / peak_flops_per_s
    return rates


def tokens_in(batch: Any) -> int | None:
    """Tokens in a batch of a sequence model: B * T of its token-id tensor, else None.

    The rule: take the inputs (a bare tensor; the first element of an ``(inputs, targets)``
    tuple; a dict's ``input_ids``, else its ``inputs``/``input``/``x``). If that is an int64 or
    int32 tensor of shape (B, T), it holds token ids and the batch has B * T tokens, padding
    included (the shape is read, never the values, so there is no device sync). Anything else
    (float images or features, uint8 pixels, 1-d class ids) is not a token batch: None, and
    only samples/s is reported.
    """
    inputs = batch
    if isinstance(batch, list | tuple):
        inputs = batch[0] if batch else None
    elif isinstance(batch, dict):
        key = next((k for k in ("input_ids", *INPUT_KEYS) if k in batch), None)
        inputs = batch[key] if key is not None else None
    if (
        isinstance(inputs, torch.Tensor)
        and inputs.dtype in (torch.int64, torch.int32)
        and inputs.dim() == 2
    ):
        return inputs.shape[0] * inputs.shape[1]
    return None


# --------------------------------------------------------------------------------------------
# MFU in the loop
# --------------------------------------------------------------------------------------------

_NOT_COUNTING = contextlib.nullcontext()


class StepFlops:
    """FLOPs of one real optimizer step of the loop, counted once, and the device's peak.

    `fit()` wraps each step in `counting()`, which is a shared no-op context except on the
    second step of the run (the first may compile or warm up caches): there a
    `FlopCounterMode` records that step as it is (your ``step_fn``, every micro-batch of an
    accumulation window, several optimizers). Nothing extra runs on the device. The peak
    (`peak_flops`: a table on CUDA, a short ``torch.mm`` probe on the CPU) is looked up then,
    and the seconds that took are handed to the meter to leave out of the throughput.
    `trainwell.parts.compile` runs the forward eagerly while a dispatch mode is active, so a
    compiled run is counted too.
    """

    def __init__(self, device: torch.device, dtype: torch.dtype | None, count_at: int = 2) -> None:
        self.device, self.dtype = device, dtype or torch.float32
        self.count_at = count_at
        self.calls = 0
        self.per_step: int | None = None
        self.peak: tuple[float, str] | None = None
        self.overhead_s = 0.0  # host time spent on the peak probe, not training

    def counting(self) -> contextlib.AbstractContextManager[Any]:
        self.calls += 1
        if self.calls != self.count_at:
            return _NOT_COUNTING
        return self._count()

    @contextlib.contextmanager
    def _count(self) -> Iterator[None]:
        with _counter() as counter:
            yield
        self.per_step = int(counter.get_total_flops()) or None
        if self.per_step:
            started = time.perf_counter()
            # a short probe on the CPU (~65 ms): the run is waiting for it
            self.peak = peak_flops(self.device, self.dtype, probe_seconds=0.05)
            self.overhead_s += time.perf_counter() - started

    def take_overhead(self) -> float:
        overhead, self.overhead_s = self.overhead_s, 0.0
        return overhead

    def rates(self, steps: int, elapsed_s: float, ranks: int = 1) -> dict[str, float]:
        """``tflops`` (all ``ranks`` together, each counted like this one) and ``mfu`` (per
        device) over ``steps`` optimizer steps (empty before counting)."""
        if not self.per_step or elapsed_s <= 0:
            return {}
        achieved = self.per_step * steps / elapsed_s
        rates = {"tflops": achieved * ranks / 1e12}
        if self.peak:
            rates["mfu"] = achieved / self.peak[0]
        return rates


def describe_throughput(rates: dict[str, Any]) -> str:
    """One line: samples/s (tokens/s), achieved TFLOP/s and MFU, and what the peak is."""
    parts = [f"{rates['samples_per_s']:,.0f} samples/s"]
    if "tokens_per_s" in rates:
        parts.append(f"{rates['tokens_per_s']:,.0f} tokens/s")
    if "tflops" in rates:
        parts.append(f"{rates['tflops']:.3g} TFLOP/s")
    if "mfu" in rates:
        parts.append(f"MFU {_percent(rates['mfu'])} of {rates['peak_source']}")
    line = "throughput: " + ", ".join(parts)
    if "first_step_s" in rates:  # the warm-up epoch 1's time also holds
        line += (
            f"\nfirst step: {rates['first_step_s']:.2f}s from the start of training "
            "(device init, cuDNN autotune, compile: part of epoch 1's time)"
        )
    hint = launch_bound_hint(rates)
    return f"{line}\n{hint}" if hint else line


#: Below this MFU on an accelerator the step is launch-bound: kernels too small to fill the GPU.
LOW_MFU = 0.01


def _percent(share: float) -> str:
    """A share as a percentage that stays informative when tiny (0.03%, not 0.0%)."""
    return f"{share:.1%}" if share >= 0.001 or share == 0 else f"{share * 100:.2g}%"


def launch_bound_hint(rates: dict[str, Any]) -> str | None:
    """What to do when an accelerator runs at under `LOW_MFU`, or None.

    Only a table peak (a known GPU) counts: on the CPU the peak is a probe of this CPU's BLAS,
    and a low share there says nothing about launch overhead.
    """
    mfu, source = rates.get("mfu"), str(rates.get("peak_source", ""))
    if mfu is None or mfu >= LOW_MFU or not source.startswith("table:"):
        return None
    return (
        f"MFU {_percent(mfu)}: the model is too small to load the GPU (the step waits on kernel "
        "launches, not math); a larger batch (data.batch_size), CUDA graphs "
        "(train.compile: {mode: reduce-overhead}) or run.device=cpu would help"
    )
