"""The config reference page, ``docs/config.md``, generated from the config tree itself.

``python -m trainwell.config.reference docs/config.md`` rewrites the part between the markers; a
test fails when the page and the tree disagree, so a new key cannot go undocumented.
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

from trainwell.config.sections import Config
from trainwell.config.tree import _as_written, field_help

START, END = "<!-- config:start -->", "<!-- config:end -->"


def render(config: Config | None = None) -> str:
    """One table per section: key, default (as written in a file or ``--set``), meaning."""
    config = config or Config()
    parts = []
    for section in dataclasses.fields(config):
        sub = getattr(config, section.name)
        if not dataclasses.is_dataclass(sub) or not dataclasses.fields(sub):
            continue
        rows = ["| key | default | meaning |", "|---|---|---|"]
        for f in dataclasses.fields(sub):
            default = _as_written(getattr(sub, f.name)).replace("|", "\\|")
            meaning = field_help(f).replace("|", "\\|")
            rows.append(f"| `{section.name}.{f.name}` | `{default}` | {meaning} |")
        parts.append(f"### `{section.name}`\n\n" + "\n".join(rows))
    return "\n\n".join(parts)


def replace_generated(document: str) -> str:
    """``document`` with the text between the markers regenerated."""
    head, start, rest = document.partition(START)
    _, end, tail = rest.partition(END)
    if not start or not end:
        raise ValueError("the page lacks the config:start / config:end markers")
    return f"{head}{START}\n{render()}\n{END}{tail}"


if __name__ == "__main__":  # pragma: no cover - maintenance helper
    target = Path(sys.argv[1] if len(sys.argv) > 1 else "docs/config.md")
    target.write_text(replace_generated(target.read_text(encoding="utf-8")), encoding="utf-8")
    print(f"updated {target}")
