"""The `UserError` family: mistakes a user can fix, reported as a message, not a traceback.

Each error says what went wrong and how to fix it. The CLI prints it and exits with code 2.
"""

from __future__ import annotations


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
