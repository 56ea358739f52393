"""Which strategy a run gets, without launching anything."""

import pytest

import trainwell as tw
from trainwell.distributed import choose_strategy
from trainwell.errors import ConfigError
from trainwell.strategy import SingleDevice


def test_auto_is_single_device_without_a_launcher(monkeypatch):
    monkeypatch.delenv("WORLD_SIZE", raising=False)
    assert isinstance(choose_strategy("auto", "cpu", channels_last=False), SingleDevice)


def test_ddp_without_torchrun_says_how_to_launch(monkeypatch):
    monkeypatch.delenv("WORLD_SIZE", raising=False)
    with pytest.raises(ConfigError, match="torchrun --nproc_per_node N"):
        choose_strategy("ddp", "cpu", channels_last=False)


def test_fsdp_is_refused_with_the_alternative():
    with pytest.raises(ConfigError, match="run.strategy=ddp"):
        choose_strategy("fsdp", "cpu", channels_last=False)


def test_strategy_is_a_config_key_with_its_choices():
    assert tw.build_config().run.strategy == "auto"
    with pytest.raises(ConfigError, match="did you mean 'ddp'"):
        tw.build_config(overrides=["run.strategy=dpp"])
