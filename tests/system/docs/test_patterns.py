"""docs/patterns.md: every python block runs, in order, after the page's setup block (so the
examples cannot rot), and the table names only options that exist in the config tree."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from trainwell.config.sections import Config
from trainwell.config.tree import config_help

PAGE = Path(__file__).parents[3] / "docs" / "patterns.md"
BLOCKS = re.findall(r"```python\n(.*?)```", PAGE.read_text(), flags=re.S)


def headings_of_blocks() -> list[str]:
    """Each block's section heading, for the test ids."""
    text, ids = PAGE.read_text(), []
    for match in re.finditer(r"```python\n", text):
        before = text[: match.start()]
        heading = re.findall(r"^## (.+)$", before, flags=re.M)
        ids.append(heading[-1] if heading else "setup")
    return ids


@pytest.fixture(scope="module")
def setup_namespace():
    namespace: dict = {}
    exec(compile(BLOCKS[0], f"{PAGE}:setup", "exec"), namespace)
    return namespace


@pytest.mark.parametrize("index", range(1, len(BLOCKS)), ids=headings_of_blocks()[1:])
def test_each_example_runs(index, setup_namespace, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # an example that writes does it here
    namespace = dict(setup_namespace)
    exec(compile(BLOCKS[index], f"{PAGE}:block {index}", "exec"), namespace)


def test_the_page_has_examples_and_names_real_options():
    assert len(BLOCKS) >= 10
    known = set(re.findall(r"^\s*(\w+\.\w+)=", config_help(Config()), flags=re.M))
    named = set(re.findall(r"`((?:run|data|train|optim|schedule|monitor|early_stop|checkpoint"
                           r"|guards|profile|log)\.\w+)", PAGE.read_text()))  # fmt: skip
    assert named and named <= known, sorted(named - known)


def test_the_config_reference_page_matches_the_config_tree():
    from trainwell.config.reference import replace_generated

    page = PAGE.with_name("config.md").read_text()
    assert page == replace_generated(page), (
        "run: python -m trainwell.config.reference docs/config.md"
    )
    assert "`train.ema_decay`" in page and "`log.tensorboard`" in page


def test_the_own_loop_page_runs_and_its_guards_stay_silent(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    [block] = re.findall(r"```python\n(.*?)```", PAGE.with_name("own-loop.md").read_text(), re.S)
    exec(compile(block, "docs/own-loop.md", "exec"), {})
