"""The command-line synopses of README.md and docs/cli.md name every flag of the parser, and
no flag it does not take, so they cannot drift from it again."""

import argparse
import re
from pathlib import Path

import pytest

from trainwell.cli.app import _parser

ROOT = Path(__file__).resolve().parents[3]


def _synopsis(path: Path) -> dict[str, str]:
    """``{verb: its synopsis text}`` from the first code block of lines starting ``trainwell``
    (a verb's continuation lines are indented)."""
    text = path.read_text()
    start = text.index("\ntrainwell train ") + 1
    block = text[start : text.index("```", start)]
    verbs: dict[str, str] = {}
    verb = None
    for line in block.splitlines():
        if line.startswith("trainwell "):
            verb = line.split()[1]
            verbs[verb] = line
        elif line.startswith(" ") and verb:
            verbs[verb] += " " + line.strip()
    return verbs


def _flags(parser: argparse.ArgumentParser) -> set[str]:
    return {
        option
        for action in parser._actions
        for option in action.option_strings
        if option.startswith("--") and option != "--help"
    }


@pytest.mark.parametrize("page", ["README.md", "docs/cli.md"])
def test_the_synopsis_names_every_verb_and_flag_of_the_parser(page):
    parser = _parser()
    verbs = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    synopsis = _synopsis(ROOT / page)
    for flag in _flags(parser):  # --version
        assert flag in synopsis, f"{page}: trainwell {flag} is missing"
    for verb, sub in verbs.choices.items():
        assert verb in synopsis, f"{page}: trainwell {verb} is missing"
        if verb == "doctor":  # its own parser: docs/doctor.md
            continue
        missing = sorted(f for f in _flags(sub) if not re.search(rf"{f}\b", synopsis[verb]))
        assert not missing, f"{page}: trainwell {verb} lacks {missing}"
        shown = set(re.findall(r"--[a-z][a-z-]*", synopsis[verb]))
        unknown = sorted(shown - _flags(sub))
        assert not unknown, f"{page}: trainwell {verb} shows {unknown}, which it does not take"
    assert set(re.findall(r"--[a-z][a-z-]*", synopsis.get("--version", ""))) <= _flags(parser)
