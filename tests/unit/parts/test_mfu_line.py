"""The summary's throughput line when MFU is tiny: on a GPU it says why and what helps."""

from trainwell.parts.flops import describe_throughput, launch_bound_hint

GPU = "table: NVIDIA H200 SXM bf16"
CPU = "probe: torch.mm 512x512 float32, 2 threads"


def _rates(mfu: float, source: str) -> dict:
    return {"samples_per_s": 5000.0, "tflops": 0.3, "mfu": mfu, "peak_source": source}


def test_tiny_mfu_on_a_gpu_says_the_model_is_too_small_and_what_helps() -> None:
    text = describe_throughput(_rates(0.0003, GPU))
    first, hint = text.splitlines()
    assert "MFU 0.03% of table: NVIDIA H200 SXM bf16" in first  # not "MFU 0.0%"
    assert "too small to load the GPU" in hint
    assert "batch" in hint and "reduce-overhead" in hint and "run.device=cpu" in hint


def test_a_loaded_gpu_gets_no_hint() -> None:
    text = describe_throughput(_rates(0.41, GPU))
    assert text.count("\n") == 0 and "MFU 41.0%" in text
    assert launch_bound_hint(_rates(0.01, GPU)) is None  # the threshold is 1%, exclusive


def test_the_cpu_keeps_its_line_without_a_gpu_hint() -> None:
    text = describe_throughput(_rates(0.004, CPU))
    assert "\n" not in text and "MFU 0.4% of probe" in text
    assert launch_bound_hint(_rates(0.0001, CPU)) is None
