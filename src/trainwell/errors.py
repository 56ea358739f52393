"""The `UserError` family: mistakes a user can fix, reported as a message, not a traceback.

Each error says what went wrong and how to fix it. The CLI prints it and exits with its
``exit_code`` (2 for usage errors). The CLI's exit codes, documented in docs/cli.md:
"""

from __future__ import annotations

EXIT_OK = 0  # finished (or preempted by SIGTERM after saving)
EXIT_USAGE = 2  # a user mistake: config, data, shapes, checkpoints
EXIT_GUARD_STOPPED = 3  # a runtime guard stopped the run (e.g. guards.nonfinite=stop)
EXIT_WRITE_FAILED = 4  # a checkpoint or export could not be written (disk full, permissions)
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


class WriteFailedError(UserError):
    """A file could not be written (disk full, permissions); what was saved before is intact."""

    exit_code = EXIT_WRITE_FAILED
