"""What only a GPU shows (issue #27). Each test is skipped without CUDA (conftest.py); the
checks shared with the CPU unit tier live in tests/device_checks.py."""

import warnings

import pytest
import torch
from tests import device_checks as checks
from torch import nn

import trainwell as tw


def test_fp16_gradscaler_skips_an_inf_step_and_lowers_the_scale():
    checks.scaler_skips_an_inf_step("cuda")


@pytest.mark.parametrize("precision", ["bf16", "fp16"])
def test_fused_adamw_with_clipping_matches_eager(precision):
    checks.fused_clip_matches_eager("cuda", precision)


def test_channels_last_during_training():
    checks.channels_last_in_training("cuda")


def test_tf32_and_cudnn_switches_are_restored_after_fit():
    x, y = torch.randn(64, 3, 8, 8), torch.randint(0, 3, (64,))
    model = nn.Sequential(nn.Conv2d(3, 4, 3), nn.Flatten(), nn.Linear(144, 3))
    switches = (
        torch.backends.cuda.matmul.allow_tf32,
        torch.backends.cudnn.allow_tf32,
        torch.backends.cudnn.benchmark,
        torch.get_float32_matmul_precision(),
    )
    seen = {}

    class During(tw.Observer):
        def on_step_end(self, report):
            seen["matmul"] = torch.get_float32_matmul_precision()
            seen["benchmark"] = torch.backends.cudnn.benchmark

    try:
        # the opposite of what fit() picks on Ampere+ (TF32 matmuls, autotuning on)
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.set_float32_matmul_precision("highest")
        torch.backends.cudnn.allow_tf32 = False
        torch.backends.cudnn.benchmark = False
        config = {"run": {"quiet": True, "device": "cuda"}, "train": {"max_epochs": 1}}
        tw.fit(model, (x, y), config=config, observers=[During()])
        if torch.cuda.get_device_capability()[0] >= 8:
            assert seen == {"matmul": "high", "benchmark": True}  # fit() did switch them on
        assert torch.backends.cuda.matmul.allow_tf32 is False
        assert torch.get_float32_matmul_precision() == "highest"
        assert torch.backends.cudnn.allow_tf32 is False
        assert torch.backends.cudnn.benchmark is False
    finally:
        torch.backends.cuda.matmul.allow_tf32 = switches[0]
        torch.backends.cudnn.allow_tf32 = switches[1]
        torch.backends.cudnn.benchmark = switches[2]
        torch.set_float32_matmul_precision(switches[3])


class StrictBetween(tw.Observer):
    """Sync debugging set to "error" from step ``first`` (the first steps' one-off checks
    and cuDNN autotuning may sync) to step ``last`` (before the epoch-end record is read)."""

    def __init__(self, first: int, last: int) -> None:
        self.first, self.last = first, last

    def on_step_end(self, report):
        if report.step == self.first:
            torch.cuda.set_sync_debug_mode("error")
        elif report.step == self.last:
            torch.cuda.set_sync_debug_mode("default")


class SyncsByStep(tw.Observer):
    """Attributes the sync warnings caught so far to the step whose end comes next."""

    def __init__(self, caught: list) -> None:
        self.caught, self.seen, self.by_step = caught, 0, {}

    def on_step_end(self, report):
        if len(self.caught) > self.seen:
            self.by_step[report.step] = len(self.caught) - self.seen
        self.seen = len(self.caught)


def _data(n=2048):
    return torch.randn(n, 16), torch.randint(0, 4, (n,))


def _model():
    return nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, 4))


def test_pinned_non_blocking_copies_do_not_sync():
    """Host batches are page-locked and copied with non_blocking=True: a training epoch,
    between its logging reads, never waits for the device."""
    config = {
        "run": {"quiet": True, "device": "cuda", "log_every": 10_000},
        "data": {"batch_size": 32, "pin_memory": True},
        "train": {"max_epochs": 1},
        "guards": {"every": 10_000},
    }
    try:
        # 2048 samples / 32: 64 steps; the epoch's end reads its record (one sync)
        tw.fit(_model(), _data(), config=config, observers=[StrictBetween(3, 60)])
    finally:
        torch.cuda.set_sync_debug_mode("default")


def test_sync_debug_over_whole_epochs_syncs_only_at_log_validation_and_checkpoints(tmp_path):
    """Three whole epochs with logging, validation and checkpoints, sync debugging on
    throughout: the syncs that happen fall on those boundaries (a log read, an epoch's
    validation and record, a checkpoint save), never on a plain training step."""
    log_every, every_steps, per_epoch = 16, 40, 64  # 2048 samples, batches of 32
    config = {
        "run": {"quiet": True, "device": "cuda", "log_every": log_every,
                "dir": str(tmp_path / "run")},
        "data": {"batch_size": 32},
        "train": {"max_epochs": 3},
        "checkpoint": {"every_steps": every_steps},
    }  # fmt: skip
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        observer = SyncsByStep(caught)
        torch.cuda.set_sync_debug_mode("warn")
        try:
            tw.fit(_model(), _data(), _data(256), config=config, observers=[observer])
        finally:
            torch.cuda.set_sync_debug_mode("default")
    boundaries = {
        s + d
        for s in range(1, 3 * per_epoch + 1)
        if s <= 3 or s % log_every == 0 or s % every_steps == 0 or s % per_epoch == 0
        for d in (0, 1)  # work done after a step's observers shows at the next step's end
    }
    off_boundary = {s: n for s, n in observer.by_step.items() if s not in boundaries}
    assert not off_boundary, f"syncs on plain training steps (step: count): {off_boundary}"


def test_cuda_memory_tracking_reports_allocator_peaks():
    with tw.track_memory("cuda") as mem:
        with mem.phase("alloc"):
            big = torch.empty(64 * 2**20, dtype=torch.uint8, device="cuda")  # 64 MiB
            del big
        with mem.phase("small"):
            small = torch.empty(2**20, dtype=torch.uint8, device="cuda")
            del small
    assert mem.report.method and "cuda" in str(mem.report.device)
    assert mem.report["alloc"] >= 64 * 2**20
    assert mem.report["small"] < 8 * 2**20  # the peak was reset at the phase boundary
    assert mem.report["total"] >= mem.report["alloc"]


@pytest.mark.parametrize("mode", ["default", "reduce-overhead", "max-autotune-no-cudagraphs"])
def test_compile_modes_train_and_agree_with_eager(mode):
    def run(compile_value):
        torch.manual_seed(0)
        model = _model()
        config = {
            "run": {"quiet": True, "device": "cuda", "deterministic": False, "seed": 0},
            "data": {"batch_size": 64, "shuffle": False},
            "train": {"max_epochs": 2, "precision": "fp32", "compile": compile_value,
                      "matmul_precision": "highest"},
            "monitor": {"restore_best": False},
        }  # fmt: skip
        result = tw.fit(model, _data(1024), _data(256), config=config)
        return result, {k: v.detach().cpu() for k, v in model.state_dict().items()}

    eager, eager_weights = run(False)
    compiled, weights = run({"mode": mode})
    assert compiled.history[-1]["train_loss"] < compiled.history[0]["train_loss"] * 1.05
    for key, value in eager_weights.items():
        # fused Inductor kernels reorder float32 sums: last bits differ, over 32 steps
        torch.testing.assert_close(weights[key], value, atol=1e-3, rtol=1e-3, msg=key)


def test_kill_9_resume_is_bit_identical_on_cuda_with_deterministic(tmp_path):
    """tests/system/resume's job (run.deterministic=true) on CUDA in bf16: killed by
    SIGKILL after a step and again halfway through a checkpoint write, resumed, and the
    same weights, optimizer state and history as an uninterrupted run, bit for bit."""
    from tests.system.resume.test_kill_and_resume import assert_same_run, run_job

    extra = ("--device", "cuda", "--precision", "bf16")
    reference = tmp_path / "reference.pt"
    run_job(tmp_path / "ref-run", reference, *extra)
    run_dir, out = tmp_path / "run", tmp_path / "final.pt"
    assert run_job(run_dir, out, *extra, "--kill-at-step", "7", check=False).returncode == -9
    died = run_job(run_dir, out, *extra, "--resume", "--kill-in-save", "1", check=False)
    assert died.returncode == -9
    run_job(run_dir, out, *extra, "--resume")
    assert_same_run(reference, out)
