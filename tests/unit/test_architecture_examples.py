"""docs/architecture.md: every python block is a complete extension example (a step, a
strategy, a logger, a guard, a doctor rule); each runs as it stands, in a fresh namespace, and
proves itself with its own assertions."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

PAGE = Path(__file__).parents[2] / "docs" / "architecture.md"
TEXT = PAGE.read_text()
BLOCKS = re.findall(r"```python\n(.*?)```", TEXT, flags=re.S)


def headings() -> list[str]:
    """Each block's section heading, for the test ids."""
    ids = []
    for match in re.finditer(r"```python\n", TEXT):
        found = re.findall(r"^### (.+)$", TEXT[: match.start()], flags=re.M)
        ids.append(found[-1] if found else "page")
    return ids


def test_the_page_shows_each_extension():
    shown = " ".join(headings()).lower()
    for extension in ("a step", "a strategy", "a logger", "a guard", "a doctor rule"):
        assert extension in shown


@pytest.mark.parametrize("block", BLOCKS, ids=headings())
def test_each_example_runs_and_proves_itself(block, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # an example that writes does it here
    exec(compile(block, f"{PAGE}:{headings()[BLOCKS.index(block)]}", "exec"), {})
