"""Which frames are the user's: warnings and findings point at the user's line, never at
trainwell's, torch's or the standard library's own files, nor at a console-script launcher."""

from __future__ import annotations

import functools
import os
import sys
import sysconfig
import warnings
from types import FrameType

import torch

import trainwell


def _real_dir(path: str) -> str:
    return os.path.join(os.path.realpath(path), "")


_TRAINWELL_DIR = _real_dir(os.path.dirname(trainwell.__file__ or "."))
#: torch's and trainwell's own code
_PACKAGE_DIRS = (_real_dir(os.path.dirname(torch.__file__ or ".")), _TRAINWELL_DIR)
#: the standard library (runpy, contextlib, threading, ...), without its site-packages
_STDLIB_DIRS = tuple({_real_dir(sysconfig.get_path(k)) for k in ("stdlib", "platstdlib")})
#: where console-script launchers live (e.g. ``.venv/bin/trainwell``): never the user's code
_LAUNCHER_DIRS = frozenset(
    {_real_dir(sysconfig.get_path("scripts")), _real_dir(os.path.dirname(sys.executable or "."))}
)
_INSTALLED = (f"{os.sep}site-packages{os.sep}", f"{os.sep}dist-packages{os.sep}")


@functools.lru_cache(maxsize=4096)
def is_library_file(filename: str) -> bool:
    """True for torch's, trainwell's and the standard library's files, frozen modules
    (``<frozen runpy>``) and console-script launchers; False for the user's code (including
    ``<string>``/``<stdin>`` code and other installed packages)."""
    if filename.startswith("<"):
        return filename.startswith("<frozen")
    path = os.path.realpath(filename)
    if path.startswith(_PACKAGE_DIRS) or os.path.join(os.path.dirname(path), "") in _LAUNCHER_DIRS:
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
