"""Config fields that carry their own ``--help`` text (shared by every config section)."""

from __future__ import annotations

from dataclasses import field
from typing import Any


def option(default: Any, help: str, **kwargs: Any) -> Any:
    """A config field: its default and its one-line ``--help`` text, kept in the field's metadata.

    ``lr: float = option(1e-3, "peak learning rate")``. A list, dict or set default is copied
    for each instance (``default_factory``); other ``dataclasses.field`` options pass through.
    """
    metadata = {**kwargs.pop("metadata", {}), "help": help}
    if isinstance(default, list | dict | set):
        return field(default_factory=lambda: default.copy(), metadata=metadata, **kwargs)
    return field(default=default, metadata=metadata, **kwargs)
