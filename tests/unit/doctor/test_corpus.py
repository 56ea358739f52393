"""Every corpus script must produce exactly the findings marked ``# expect: CODE``.

A missing finding (false negative) and an extra one (false positive) both fail.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from trainwell.doctor import check_source

CORPUS = Path(__file__).parent / "corpus"
EXPECT = re.compile(r"#\s*expect:\s*(?P<codes>TW\d{3}(?:\s*,\s*TW\d{3})*)")
FILES = sorted(CORPUS.glob("*.py"))


def expected_findings(text: str) -> set[tuple[int, str]]:
    """(line, code) pairs from the ``# expect: TW001, TW002`` markers."""
    found: set[tuple[int, str]] = set()
    for number, line in enumerate(text.splitlines(), start=1):
        match = EXPECT.search(line)
        if match:
            found |= {(number, code.strip()) for code in match.group("codes").split(",")}
    return found


def test_corpus_is_substantial() -> None:
    assert len(FILES) >= 20
    all_codes = set()
    for file in FILES:
        all_codes |= {code for _, code in expected_findings(file.read_text())}
    # every shipped rule except the syntax-error pseudo rule has positives in the corpus
    assert {f"TW{n:03d}" for n in (*range(1, 14), 15, 16, 17, 18, 19)} <= all_codes


@pytest.mark.parametrize("path", FILES, ids=[f.name for f in FILES])
def test_corpus_file(path: Path) -> None:
    text = path.read_text()
    target = "2.1" if "target-torch: 2.1" in text else None
    actual = {(f.line, f.code) for f in check_source(text, str(path), target_torch=target)}
    expected = expected_findings(text)
    assert sorted(actual - expected) == [], "false positives (line, code)"
    assert sorted(expected - actual) == [], "false negatives (line, code)"
