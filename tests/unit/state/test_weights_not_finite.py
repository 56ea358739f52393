"""Weights holding NaN or Inf load, but never without a word (safetensors and .pt alike)."""

import warnings

import pytest
import torch

import trainwell as tw
from trainwell.state.checkpoint import CheckpointWarning


def _weights():
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Linear(4, 2))
    return model, {k: v.clone() for k, v in model.state_dict().items()}


@pytest.mark.parametrize("suffix", [".safetensors", ".pt"])
def test_weights_with_nan_or_inf_warn_naming_the_tensors(tmp_path, suffix):
    model, state = _weights()
    state["0.weight"][0, 0] = float("nan")
    state["1.bias"][1] = float("inf")
    path = tmp_path / f"w{suffix}"
    if suffix == ".safetensors":
        from safetensors.torch import save_file

        save_file(state, str(path))
    else:
        torch.save(state, path)
    with pytest.warns(CheckpointWarning, match=r"NaN or Inf in 2 tensor\(s\): 0.weight, 1.bias"):
        tw.load_weights(model, path)
    assert torch.isnan(model[0].weight[0, 0])  # loaded all the same: it may be inspected


def test_finite_weights_load_silently(tmp_path):
    from safetensors.torch import save_file

    model, state = _weights()
    save_file(state, str(tmp_path / "w.safetensors"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tw.load_weights(model, tmp_path / "w.safetensors")
