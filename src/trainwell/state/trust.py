"""Whether checkpoints are trusted: ``--trust-checkpoint`` and ``trusted=True`` let a load
unpickle Python objects (``torch.load(weights_only=False)``, a shard directory's metadata with
plain ``pickle``). Without it a run directory is data: nothing in it runs code."""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator

#: Set by `trusting_checkpoints` (the CLI's ``--trust-checkpoint``): loads may unpickle objects.
_TRUSTED: contextvars.ContextVar[bool] = contextvars.ContextVar("trainwell_trusted", default=False)


@contextlib.contextmanager
def trusting_checkpoints(trusted: bool = True) -> Iterator[None]:
    """Within this block, a checkpoint that needs pickled Python objects is loaded anyway
    (``torch.load(weights_only=False)``), as ``trusted=True`` does for one call.

    Only for files from a source you trust: unpickling can run any code. What
    ``trainwell resume/eval/export --trust-checkpoint`` uses.
    """
    token = _TRUSTED.set(trusted)
    try:
        yield
    finally:
        _TRUSTED.reset(token)


def checkpoints_trusted() -> bool:
    """Whether loads in this context may unpickle Python objects (`trusting_checkpoints`)."""
    return _TRUSTED.get()
