"""``--fix``: rewrite the one provably safe pattern, TW016 (``torch.load`` without weights_only).

``weights_only=True`` is inserted as the last argument of the call. Only the inserted text
changes: the file is decoded and encoded again with its own encoding, newlines and BOM are
kept, and the edit is applied only when the resulting syntax tree equals the original one
plus the new keyword (so a parenthesised argument or an odd layout can never change meaning).
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from .engine import Finding
from .sources import SourceError, decode_python, split_lines

FIXABLE = {"TW016"}
MIN_WEIGHTS_ONLY = (1, 13)  # torch.load gained weights_only in 1.13


@dataclass(frozen=True)
class FixOutcome:
    finding: Finding
    fixed: bool
    note: str  # what was done, or why not

    def format(self) -> str:
        where = f"{self.finding.format().split(': ', 1)[0]}: {self.finding.code}"
        return f"{'fixed' if self.fixed else 'not fixed'}: {where} {self.note}"


def _char_offsets(text: str) -> list[int]:
    """Start offset of each line, counting lines as the tokenizer does."""
    return [0, *(m.end() for m in re.finditer(r"\r\n|\r|\n", text))]


def _offset(text: str, lines: list[str], starts: list[int], lineno: int, byte_col: int) -> int:
    line = lines[lineno - 1]
    return starts[lineno - 1] + len(line.encode("utf-8")[:byte_col].decode("utf-8", "ignore"))


def _insertion(text: str, start: int, end: int) -> tuple[int, str] | None:
    """Where and what to insert inside the call ``text[start:end]`` (ends with ``)``)."""
    significant = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text[start:end]).readline):
            if tok.type not in {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE,
                                tokenize.ENDMARKER, tokenize.INDENT, tokenize.DEDENT}:  # fmt: skip
                significant.append(tok)
    except (tokenize.TokenError, SyntaxError):
        return None
    if len(significant) < 2 or significant[-1].string != ")":
        return None
    segment_starts = [0]
    for line in text[start:end].split("\n")[:-1]:
        segment_starts.append(segment_starts[-1] + len(line) + 1)
    prev, close = significant[-2], significant[-1]
    if prev.string == "(":
        row, col = close.start
        return start + segment_starts[row - 1] + col, "weights_only=True"
    row, col = prev.end
    position = start + segment_starts[row - 1] + col
    return position, (" weights_only=True," if prev.string == "," else ", weights_only=True")


def _fixable_call(node: ast.AST | None) -> str | None:
    """None when ``node`` may be fixed, else why not."""
    if not isinstance(node, ast.Call):
        return "the call was not found"
    if any(kw.arg is None for kw in node.keywords):
        return "the call passes **kwargs"
    if any(kw.arg in {"pickle_module", "weights_only"} for kw in node.keywords):
        return "the call passes pickle_module"
    if any(isinstance(a, ast.Starred) for a in node.args) or len(node.args) >= 3:
        return "the call passes pickle_module (or *args) positionally"
    return None


def fix_file(path: Path, findings: Sequence[Finding], version: tuple[int, int]) -> list[FixOutcome]:
    """Apply the TW016 fix to ``findings`` (all in ``path``); rewrite the file if any apply."""
    if version < MIN_WEIGHTS_ONLY:
        note = "(weights_only needs torch >= 1.13; the target is older)"
        return [FixOutcome(f, False, note) for f in findings]
    try:
        data = path.read_bytes()
        source = decode_python(data)
    except (OSError, SourceError) as exc:
        return [FixOutcome(f, False, f"(cannot read: {exc})") for f in findings]
    text = source.text
    if text.encode(source.encoding) != data or "\r" in text.replace("\r\n", ""):
        return [FixOutcome(f, False, "(file does not round-trip its encoding)") for f in findings]
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return [FixOutcome(f, False, "(file does not parse)") for f in findings]
    calls = {(n.lineno, n.col_offset + 1): n for n in ast.walk(tree) if isinstance(n, ast.Call)}
    lines = split_lines(text)
    starts = _char_offsets(text)
    outcomes: list[FixOutcome] = []
    edits: list[tuple[int, str, ast.Call, Finding]] = []
    for finding in findings:
        node = calls.get((finding.line, finding.col))
        reason = _fixable_call(node)
        if reason is None:
            assert isinstance(node, ast.Call) and node.end_lineno is not None
            begin = _offset(text, lines, starts, node.lineno, node.col_offset)
            end = _offset(text, lines, starts, node.end_lineno, node.end_col_offset or 0)
            insertion = _insertion(text, begin, end)
            if insertion is None:
                reason = "the call's layout is not understood"
            else:
                edits.append((insertion[0], insertion[1], node, finding))
                continue
        outcomes.append(FixOutcome(finding, False, f"({reason})"))
    if not edits:
        return outcomes
    new_text = text
    for position, insert, _, _ in sorted(edits, key=lambda e: e[0], reverse=True):
        new_text = new_text[:position] + insert + new_text[position:]
    for _, _, node, _ in edits:  # the expected tree: the old one plus the keywords
        node.keywords.append(ast.keyword(arg="weights_only", value=ast.Constant(value=True)))
    try:
        same = ast.dump(ast.parse(new_text)) == ast.dump(tree)
    except (SyntaxError, ValueError):
        same = False
    if not same:
        note = "(the edit would change more than the call; nothing written)"
        return outcomes + [FixOutcome(f, False, note) for *_, f in edits]
    try:
        path.write_bytes(new_text.encode(source.encoding))
    except OSError as exc:
        return outcomes + [FixOutcome(f, False, f"(cannot write: {exc})") for *_, f in edits]
    return outcomes + [FixOutcome(f, True, "added weights_only=True") for *_, f in edits]


def apply_fixes(
    findings: Sequence[Finding], version_of: Callable[[str], tuple[int, int]]
) -> list[FixOutcome]:
    """Fix every fixable finding; notebooks and other rules are left alone (not reported)."""
    by_path: dict[str, list[Finding]] = defaultdict(list)
    outcomes: list[FixOutcome] = []
    for finding in findings:
        if finding.code not in FIXABLE:
            continue
        if finding.cell is not None:
            outcomes.append(FixOutcome(finding, False, "(notebooks are not rewritten)"))
        else:
            by_path[finding.path].append(finding)
    for path, items in by_path.items():
        outcomes += fix_file(Path(path), items, version_of(path))
    return outcomes
