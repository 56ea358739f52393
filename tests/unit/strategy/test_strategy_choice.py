"""Which strategy a run gets, without launching anything."""

import pytest
import torch
from torch import nn

import trainwell as tw
from trainwell.errors import ConfigError
from trainwell.loop.resume import elastic_resume
from trainwell.loop.run_state import Counters
from trainwell.strategy import process as distributed
from trainwell.strategy.registry import choose_strategy
from trainwell.strategy.single import SingleDevice


def test_auto_is_single_device_without_a_launcher(monkeypatch):
    monkeypatch.delenv("WORLD_SIZE", raising=False)
    assert isinstance(choose_strategy("auto", "cpu"), SingleDevice)


def test_ddp_without_torchrun_says_how_to_launch(monkeypatch):
    monkeypatch.delenv("WORLD_SIZE", raising=False)
    with pytest.raises(ConfigError, match="torchrun --nproc_per_node N"):
        choose_strategy("ddp", "cpu")


def test_fsdp_without_torchrun_says_how_to_launch(monkeypatch):
    monkeypatch.delenv("WORLD_SIZE", raising=False)
    with pytest.raises(ConfigError, match="torchrun --nproc_per_node N"):
        choose_strategy("fsdp", "cpu")


def test_auto_under_a_launcher_shards_only_what_does_not_fit_one_device(monkeypatch):
    """16 bytes per parameter (weights, gradients, two AdamW moments) within half the
    device's memory: ddp; more: fsdp."""
    model = nn.Linear(100, 10)  # 1,010 parameters: 16,160 bytes of training state
    cpu = torch.device("cpu")
    monkeypatch.setattr(distributed, "device_memory", lambda device: 2 * 16_160)
    assert distributed.fits_one_device(model, cpu)
    monkeypatch.setattr(distributed, "device_memory", lambda device: 2 * 16_160 - 1)
    assert not distributed.fits_one_device(model, cpu)


def test_cpu_memory_is_shared_by_the_local_ranks(monkeypatch):
    monkeypatch.setenv("LOCAL_WORLD_SIZE", "1")
    alone = distributed.device_memory(torch.device("cpu"))
    monkeypatch.setenv("LOCAL_WORLD_SIZE", "4")
    assert distributed.device_memory(torch.device("cpu")) == pytest.approx(alone / 4)


def test_a_restarted_worker_resumes_from_the_newest_checkpoint(tmp_path, monkeypatch):
    run = tmp_path / "run"
    (run / "checkpoints").mkdir(parents=True)
    monkeypatch.delenv("TORCHELASTIC_RESTART_COUNT", raising=False)
    assert elastic_resume(None, str(run)) is None  # first start: as asked
    monkeypatch.setenv("TORCHELASTIC_RESTART_COUNT", "1")
    assert elastic_resume(None, str(run)) is None  # restarted, nothing saved yet
    (run / "checkpoints" / "step-00000006.pt").write_bytes(b"x")  # a save cut short
    assert elastic_resume(None, str(run)) is None  # no good one: start afresh
    counters = Counters()
    tw.Checkpointer(run / "checkpoints").save({"counters": counters}, counters)
    assert elastic_resume(None, str(run)) == "auto"
    assert elastic_resume("some.pt", str(run)) == "some.pt"  # an explicit choice
    assert elastic_resume(None, None) is None  # no run directory: nothing to find


def test_strategy_is_a_config_key_with_its_choices():
    assert tw.build_config().run.strategy == "auto"
    with pytest.raises(ConfigError, match="did you mean 'ddp'"):
        tw.build_config(overrides=["run.strategy=dpp"])


def test_fsdp_shards_stay_on_the_run_device_where_cuda_is_available(monkeypatch):
    """run.device=cpu with strategy=fsdp on a CUDA machine: fully_shard's default mesh is
    CUDA's whenever CUDA is available, which put the shards on the GPU and the batches on the
    CPU. The strategy passes a mesh of the run's device type (CUDA faked here on a CPU
    machine, where that default mesh cannot even be built)."""
    import torch.distributed as dist

    from trainwell.strategy.fsdp import FSDP

    dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
    try:
        # what fully_shard's default mesh asks for the device type (CUDA on a GPU machine)
        monkeypatch.setattr(torch._C, "_get_accelerator", lambda: torch.device("cuda"))
        model = FSDP("cpu").prepare(nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2)))
        monkeypatch.undo()
        shards = [p.to_local() for p in model.parameters()]
        assert {s.device.type for s in shards} == {"cpu"}
        assert {p.device_mesh.device_type for p in model.parameters()} == {"cpu"}
        out = model(torch.randn(3, 4))
        assert out.shape == (3, 2) and out.device.type == "cpu"
    finally:
        dist.destroy_process_group()
