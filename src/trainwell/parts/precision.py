"""Mixed precision as one policy: autocast for forward + loss, GradScaler only for fp16.

``fp32`` and ``bf16`` need no loss scaling (bf16 has float32's exponent range); ``fp16`` does,
because small gradients underflow. One code path serves all three: the scaler is simply
disabled unless the dtype is float16. Gradients are unscaled before clipping, and a step the
scaler skips (inf/NaN gradients) is reported so the schedule does not advance.
"""

from __future__ import annotations

import contextlib
from typing import Any

import torch

from trainwell.errors import ConfigError

_DTYPES = {"fp32": None, "bf16": torch.bfloat16, "fp16": torch.float16}


def resolve_precision(mode: str, device: torch.device) -> str:
    """Turn ``auto`` into a concrete mode for ``device``.

    CUDA: bf16 where the GPU has it (Ampere and newer), else fp16 with GradScaler (Tensor
    Cores on Volta/Turing). CPU and MPS: fp32. Measured here (``benchmarks/precision.py``, a
    CPU without native bf16): bf16 autocast made steps 8-20x slower (a small transformer, an
    MLP, a CNN). On CPUs with native bf16 (AVX512-BF16, AMX) the gain depends on the model
    (1.3x on a small transformer in one measurement, none on another model), so bf16 there
    stays a choice (``train.precision=bf16``), not a default.
    """
    if mode != "auto":
        if mode not in _DTYPES:
            raise ConfigError(f"train.precision={mode!r} is not one of fp32, bf16, fp16, auto")
        return mode
    if device.type == "cuda":
        return "bf16" if torch.cuda.is_bf16_supported() else "fp16"
    return "fp32"


class Precision:
    """Autocast and loss scaling for one device and one mode (fp32 | bf16 | fp16 | auto).

    Use it in a hand-written loop::

        precision = Precision("fp16", device)
        with precision.autocast():
            loss = criterion(model(x), y)
        precision.backward(loss)
        precision.unscale_(optimizer)          # before clipping
        clip_grad_norm(model.parameters(), 1.0)
        if precision.step(optimizer):          # False when the scaler skipped the step
            scheduler_step()
    """

    def __init__(self, mode: str = "fp32", device: torch.device | str = "cpu") -> None:
        self.device = torch.device(device)
        self.mode = resolve_precision(mode, self.device)
        self.dtype = _DTYPES[self.mode]
        self.scaler = torch.amp.GradScaler(self.device.type, enabled=self.mode == "fp16")
        self._unscaled = False
        self.last_step_taken = True

    @property
    def uses_scaler(self) -> bool:
        return self.scaler.is_enabled()

    def autocast(self) -> contextlib.AbstractContextManager:
        """The context for the forward pass and the loss (not for backward)."""
        if self.dtype is None:
            return contextlib.nullcontext()
        return torch.autocast(self.device.type, dtype=self.dtype)

    def backward(self, loss: torch.Tensor) -> None:
        """Backward of ``loss``, scaled first when fp16 needs it."""
        self.scaler.scale(loss).backward()

    def unscale_(self, optimizer: torch.optim.Optimizer) -> None:
        """Divide gradients by the loss scale so clipping sees their true size (once per step)."""
        if self.uses_scaler and not self._unscaled:
            self.scaler.unscale_(optimizer)
            self._unscaled = True

    def step(self, optimizer: torch.optim.Optimizer, *, update_scale: bool = True) -> bool:
        """Step the optimizer (skipped by the scaler on inf/NaN gradients); True if it stepped.

        Without a scaler this never syncs with the host. With one (fp16) it reads the scaler's
        inf flag once per step, so the schedule advances only on real updates: GradScaler
        already reads it for unfused optimizers; for fused ones it is the one extra sync.
        With several optimizers in one step, pass ``update_scale=False`` to each and call
        `update_scale` once after the last (GradScaler's rule).
        """
        self._unscaled = False
        if not self.uses_scaler:
            optimizer.step()
            self.last_step_taken = True
            return True
        self.scaler.step(optimizer)
        found_inf = self.scaler._per_optimizer_states[id(optimizer)]["found_inf_per_device"]
        self.last_step_taken = not any(bool(v.item()) for v in found_inf.values())
        if update_scale:
            self.scaler.update()
        return self.last_step_taken

    def update_scale(self) -> None:
        """Adjust the loss scale after the step's optimizers stepped (fp16 only)."""
        if self.mode == "fp16":
            self.scaler.update()

    @property
    def scale(self) -> torch.Tensor | None:
        """The current loss scale (a device tensor), or None without a scaler."""
        return self.scaler._scale if self.uses_scaler else None

    def state_dict(self) -> dict[str, Any]:
        return {"mode": self.mode, "scaler": self.scaler.state_dict()}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        if state.get("mode") != self.mode:
            raise ConfigError(
                f"the checkpoint was trained with precision {state.get('mode')!r} but this run uses "
                f"{self.mode!r}; set train.precision={state.get('mode')} to resume it"
            )
        if self.uses_scaler and state.get("scaler"):
            self.scaler.load_state_dict(state["scaler"])
