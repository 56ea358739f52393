"""What every ``trainwell`` verb shares: one-line notes, warnings and errors on stderr,
``--trust-checkpoint``, and reading the recipe a run recorded."""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from trainwell.errors import UserError


@contextlib.contextmanager
def _trusting(args: argparse.Namespace) -> Iterator[None]:
    from trainwell.state.trust import trusting_checkpoints

    with trusting_checkpoints(bool(getattr(args, "trust_checkpoint", False))):
        yield


@contextlib.contextmanager
def _warnings_as_one_line() -> Iterator[None]:
    """Every warning the command raises as one ``trainwell: warning: ...`` line on stderr.

    Python's own format is two lines that point at the library's source (``cli.py:42:
    UserWarning: ...`` and the line of code), which tells a command-line user nothing. Only
    the CLI process shows warnings this way; `fit()` called from Python keeps the normal ones.
    """
    import warnings

    def show(message: Any, category: Any, filename: str, lineno: int, *rest: Any) -> None:
        print(f"trainwell: warning: {_one_line(str(message))}", file=sys.stderr)

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


def _run_recipe(run_dir: Path, saved: dict[str, Any]) -> str:
    """The recipe a run directory's ``config.yaml`` recorded; a run `fit()` was called on from
    Python has none, and no recipe (the default one least of all) rebuilds its model."""
    recipe = (saved.get("run") or {}).get("recipe")
    if not recipe:
        config = run_dir / "config.yaml"
        raise UserError(
            f"{run_dir} was trained by fit() from Python (no run.recipe in {config}): the CLI "
            "cannot rebuild its model; in Python, resume with tw.fit(model, train_data, "
            f'val_data, config=tw.load_config(["{config}"], ["checkpoint.resume=auto"])) or '
            f'evaluate with tw.load_weights(model, "{run_dir / "checkpoints" / "best.pt"}")'
        )
    return recipe
