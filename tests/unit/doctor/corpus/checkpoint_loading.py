# ruff: noqa
"""torch.load safety for a project that still supports torch 2.1 (target-torch: 2.1)."""

import torch
from torch import load as torch_load


def resume(path, model, optimizer):
    ckpt = torch.load(path, map_location="cpu")  # expect: TW016
    model.load_state_dict(ckpt["model"])
    optimizer.load_state_dict(ckpt["optimizer"])
    return ckpt["epoch"]


def load_weights(path, model):
    model.load_state_dict(torch.load(path, map_location="cpu", weights_only=True))


def load_full_pickle(path):
    return torch_load(path, weights_only=False)  # expect: TW015


def load_with_options(path, **kwargs):
    return torch.load(path, **kwargs)


def load_numpy(path):
    import numpy as np

    return np.load(path)
