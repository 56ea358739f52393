"""Everything that must survive a restart speaks PyTorch's ``state_dict`` protocol.

This module holds the small stateful pieces of the loop itself (counters, RNG streams) and
`seed_everything`. All state is tensors and plain Python values, so a checkpoint of it loads
with ``torch.load(..., weights_only=True)``.
"""

from __future__ import annotations

import os
import random
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np
import torch

if TYPE_CHECKING:
    pass


@runtime_checkable
class Stateful(Protocol):
    """What a checkpoint saves: anything with ``state_dict()`` and ``load_state_dict()``."""

    def state_dict(self) -> dict[str, Any]: ...

    def load_state_dict(self, state: dict[str, Any]) -> None: ...


def seed_everything(seed: int, deterministic: bool = False) -> None:
    """Seed python, numpy and torch (CPU and every GPU); optionally force deterministic kernels.

    Deterministic mode sets cuDNN to deterministic algorithms without autotuning and asks
    PyTorch to raise on ops that have no deterministic implementation.
    """
    random.seed(seed)
    np.random.seed(seed % 2**32)
    torch.manual_seed(seed)  # also seeds every CUDA device
    if deterministic:
        # cuBLAS needs a fixed workspace to be deterministic; must be set before the first CUDA call.
        os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
        torch.backends.cudnn.deterministic = True
        torch.backends.cudnn.benchmark = False
        torch.use_deterministic_algorithms(True, warn_only=False)


class RNGState:
    """The python, numpy and torch (CPU and CUDA) random streams, captured at save time."""

    def state_dict(self) -> dict[str, Any]:
        version, internal, gauss = random.getstate()
        np_state = np.random.get_state(legacy=True)
        state = {
            "python": {"version": version, "state": list(internal), "gauss": gauss},
            "numpy": {
                "keys": torch.from_numpy(np_state[1].astype(np.int64)),
                "pos": int(np_state[2]),
                "has_gauss": int(np_state[3]),
                "cached_gaussian": float(np_state[4]),
            },
            "torch": torch.get_rng_state(),
        }
        if torch.cuda.is_available() and torch.cuda.is_initialized():
            state["cuda"] = torch.cuda.get_rng_state_all()
        return state

    def load_state_dict(self, state: dict[str, Any]) -> None:
        # RNG states are CPU byte tensors, whatever map_location moved the checkpoint to.
        state = {k: _to_cpu(v) for k, v in state.items()}
        py = state["python"]
        random.setstate((py["version"], tuple(py["state"]), py["gauss"]))
        npst = state["numpy"]
        np.random.set_state(
            (
                "MT19937",
                npst["keys"].numpy().astype(np.uint32),
                npst["pos"],
                npst["has_gauss"],
                npst["cached_gaussian"],
            )
        )
        torch.set_rng_state(state["torch"])
        if "cuda" in state and torch.cuda.is_available():
            torch.cuda.set_rng_state_all(state["cuda"])


def _to_cpu(value: Any) -> Any:
    if isinstance(value, torch.Tensor):
        return value.cpu()
    if isinstance(value, dict):
        return {k: _to_cpu(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(_to_cpu(v) for v in value)
    return value
