"""The ``trainwell`` command: one module per group of verbs (train and resume; eval, export,
plot and lr-find), the parser in `trainwell.cli.app`."""

from trainwell.cli.app import main

__all__ = ["main"]
