"""How trainwell tells a user about a mistake: the `UserError` family, reported as a message,
not a traceback, and warnings attributed to the user's own line (`warn_at_user`).

Each error says what went wrong and how to fix it. The CLI prints it and exits with its
``exit_code`` (2 for usage errors). The CLI's exit codes, documented in docs/cli.md:
"""

from __future__ import annotations

import functools
import importlib.util
import os
import sys
import sysconfig
import warnings
from types import FrameType

EXIT_OK = 0  # finished (or preempted by SIGTERM after saving)
EXIT_USAGE = 2  # a user mistake: config, data, shapes, checkpoints
EXIT_GUARD_STOPPED = 3  # a runtime guard stopped the run (e.g. guards.nonfinite=stop)
EXIT_WRITE_FAILED = 4  # a file (checkpoint, export, plot, lr-find) could not be written
EXIT_INTERRUPTED = 130  # stopped by Ctrl-C (SIGINT) after saving


class UserError(Exception):
    """A mistake in the user's input (config, data, shapes, checkpoint) with a fix in its message."""

    exit_code = 2


class ConfigError(UserError):
    """An unknown config key, a value of the wrong type, or an unsupported choice."""


class DataError(UserError):
    """Training data the loop cannot use: bad labels, unpackable batches, empty datasets."""


class ShapeError(UserError):
    """Model outputs and targets whose shapes do not fit the loss."""


class CheckpointError(UserError):
    """A checkpoint that is missing, unreadable or unsafe to load."""


class MemoryLimitError(UserError):
    """A batch, its activations or the training state did not fit in memory (CPU RAM or a
    GPU's): what was needed and free, and what to lower."""


class WriteFailedError(UserError):
    """A file could not be written (disk full, permissions); what was saved before is intact."""

    exit_code = EXIT_WRITE_FAILED


# --------------------------------------------------------------------------- user frames
# Warnings and findings point at the user's line, never at trainwell's, torch's or the
# standard library's own files, nor at a console-script launcher.


def _real_dir(path: str) -> str:
    return os.path.join(os.path.realpath(path), "")


_TRAINWELL_DIR = _real_dir(os.path.dirname(__file__))
#: the standard library (runpy, contextlib, threading, ...), without its site-packages
_STDLIB_DIRS = tuple({_real_dir(sysconfig.get_path(k)) for k in ("stdlib", "platstdlib")})
#: where console-script launchers live (e.g. ``.venv/bin/trainwell``): never the user's code
_LAUNCHER_DIRS = frozenset(
    {_real_dir(sysconfig.get_path("scripts")), _real_dir(os.path.dirname(sys.executable or "."))}
)
_INSTALLED = (f"{os.sep}site-packages{os.sep}", f"{os.sep}dist-packages{os.sep}")


@functools.lru_cache(maxsize=1)
def _package_dirs() -> tuple[str, ...]:
    """trainwell's and torch's own code (torch's found without importing it: the doctor never
    imports torch)."""
    spec = importlib.util.find_spec("torch")
    if spec is None or not spec.origin:
        return (_TRAINWELL_DIR,)
    return (_TRAINWELL_DIR, _real_dir(os.path.dirname(spec.origin)))


@functools.lru_cache(maxsize=4096)
def is_library_file(filename: str) -> bool:
    """True for torch's, trainwell's and the standard library's files, frozen modules
    (``<frozen runpy>``) and console-script launchers; False for the user's code (including
    ``<string>``/``<stdin>`` code and other installed packages)."""
    if filename.startswith("<"):
        return filename.startswith("<frozen")
    path = os.path.realpath(filename)
    if (
        path.startswith(_package_dirs())
        or os.path.join(os.path.dirname(path), "") in _LAUNCHER_DIRS
    ):
        return True
    return path.startswith(_STDLIB_DIRS) and not any(part in path for part in _INSTALLED)


def user_frame(start: FrameType | None = None) -> FrameType | None:
    """The innermost frame that is not library code (None when there is none, e.g. in a
    ``trainwell`` command run)."""
    frame = start or sys._getframe(1)
    while frame is not None:
        if not is_library_file(frame.f_code.co_filename):
            return frame
        frame = frame.f_back
    return None


def warning_frame(start: FrameType) -> FrameType | None:
    """The frame a warning is attributed to: the user's, else the outermost trainwell frame
    (outside ``trainwell/__main__.py``), i.e. the ``trainwell`` command's own call, never its
    launcher, runpy or torch."""
    frame = user_frame(start)
    if frame is not None:
        return frame
    outermost = None
    frame = start
    while frame is not None:
        if _in_trainwell(frame.f_code.co_filename):
            outermost = frame
        frame = frame.f_back
    return outermost


@functools.lru_cache(maxsize=256)
def _in_trainwell(filename: str) -> bool:
    path = os.path.realpath(filename)
    return path.startswith(_TRAINWELL_DIR) and path != _TRAINWELL_DIR + "__main__.py"


def warn_at_user(message: str | Warning, category: type[Warning] = UserWarning) -> None:
    """``warnings.warn`` attributed to the user's own line (see `warning_frame`)."""
    frame = warning_frame(sys._getframe(1))
    if frame is None:  # not reached from trainwell code: cannot happen, but never lose a warning
        warnings.warn(message, category, stacklevel=2)
        return
    if isinstance(message, Warning):
        category = type(message)
    warnings.warn_explicit(
        message,
        category,
        frame.f_code.co_filename,
        frame.f_lineno,
        module=frame.f_globals.get("__name__", "__main__"),
        # a script read from stdin or -c has no source for linecache to load
        module_globals=None if frame.f_code.co_filename.startswith("<") else frame.f_globals,
    )
