"""What every ``trainwell`` verb shares: one-line notes and errors on stderr, checkpoint
warnings shown as notes, ``--trust-checkpoint``, and reading the recipe a run recorded."""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any


@contextlib.contextmanager
def _trusting(args: argparse.Namespace) -> Iterator[None]:
    from trainwell.state.trust import trusting_checkpoints

    with trusting_checkpoints(bool(getattr(args, "trust_checkpoint", False))):
        yield


@contextlib.contextmanager
def _checkpoint_warnings_as_notes() -> Iterator[None]:
    """Warnings about checkpoints (a damaged one skipped) as one ``trainwell: warning:`` line."""
    import warnings

    from trainwell.state.checkpoint import CheckpointWarning

    shown = warnings.showwarning

    def show(message: Any, category: Any, filename: str, lineno: int, *rest: Any) -> None:
        if issubclass(category, CheckpointWarning):
            print(f"trainwell: warning: {_one_line(str(message))}", file=sys.stderr)
        else:
            shown(message, category, filename, lineno, *rest)

    with warnings.catch_warnings():
        warnings.showwarning = show
        yield


def _note(message: str) -> None:
    print(f"trainwell: note: {_one_line(message)}", file=sys.stderr)


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _recipe_in_files(paths: list[str], read: Any) -> str | None:
    for path in reversed(paths):
        recipe = (read(path).get("run") or {}).get("recipe")
        if recipe:
            return recipe
    return None


def _read_yaml(path: Path) -> dict[str, Any]:
    """A run's ``config.yaml``, or one `ConfigError` line naming the file and what is wrong."""
    from trainwell.config.tree import read_config_file

    return read_config_file(path)
