"""seed_everything, RNGState and Counters."""

import os
import random

import numpy as np
import torch

import trainwell as tw


def _draw():
    return (
        [random.random() for _ in range(3)] + [random.gauss(0, 1)],
        np.random.rand(3).tolist() + [float(np.random.standard_normal())],
        torch.rand(3).tolist() + torch.randn(1).tolist(),
    )


def test_seed_everything_reproduces_all_three_streams():
    tw.seed_everything(123)
    first = _draw()
    tw.seed_everything(123)
    second = _draw()
    tw.seed_everything(124)
    other = _draw()
    assert first == second
    for a, b in zip(first, other):  # each stream depends on the seed
        assert a != b


def test_seed_everything_handles_seeds_beyond_numpy_range():
    tw.seed_everything(2**40 + 5)
    first = _draw()
    tw.seed_everything(2**40 + 5)
    assert _draw() == first


def test_seed_everything_default_leaves_determinism_flags_alone(restore_determinism):
    torch.use_deterministic_algorithms(False)
    torch.backends.cudnn.deterministic = False
    tw.seed_everything(0)
    assert not torch.are_deterministic_algorithms_enabled()
    assert torch.backends.cudnn.deterministic is False


def test_seed_everything_deterministic_sets_global_flags(restore_determinism, monkeypatch):
    monkeypatch.delenv("CUBLAS_WORKSPACE_CONFIG", raising=False)
    torch.use_deterministic_algorithms(False)
    torch.backends.cudnn.deterministic = False
    torch.backends.cudnn.benchmark = True
    tw.seed_everything(0, deterministic=True)
    assert torch.backends.cudnn.deterministic is True
    assert torch.backends.cudnn.benchmark is False
    assert torch.are_deterministic_algorithms_enabled()
    assert not torch.is_deterministic_algorithms_warn_only_enabled()
    assert os.environ["CUBLAS_WORKSPACE_CONFIG"] == ":4096:8"


def test_rng_state_round_trip_restores_all_streams():
    tw.seed_everything(7)
    random.gauss(0, 1)  # leaves a cached gaussian in python's stream
    np.random.standard_normal()  # and in numpy's (has_gauss)
    state = tw.RNGState().state_dict()
    expected = _draw()
    _draw()  # move on
    tw.RNGState().load_state_dict(state)
    assert _draw() == expected


def test_rng_state_survives_weights_only_save(tmp_path):
    tw.seed_everything(11)
    np.random.standard_normal()
    torch.save(tw.RNGState().state_dict(), tmp_path / "rng.pt")
    expected = _draw()
    tw.seed_everything(999)
    loaded = torch.load(tmp_path / "rng.pt", weights_only=True)
    tw.RNGState().load_state_dict(loaded)
    assert _draw() == expected


def test_counters_round_trip():
    c = tw.Counters(step=5, micro_step=20, epoch=2, batch_in_epoch=3, samples=80)
    state = c.state_dict()
    assert state == {"step": 5, "micro_step": 20, "epoch": 2, "batch_in_epoch": 3, "samples": 80}
    d = tw.Counters()
    d.load_state_dict({k: torch.tensor(v) for k, v in state.items()})
    assert d == c
    assert all(type(v) is int for v in d.state_dict().values())
