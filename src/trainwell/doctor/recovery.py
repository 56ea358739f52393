"""Parsing a file in spite of a few lines Python cannot read.

A notebook-style ``%matplotlib inline``, a ``!pip install`` or a Python 2 ``print "x"``
must not blind the doctor to the rest of the file. Each line ``ast.parse`` stops at is
replaced by a statement of the same indentation (``pass``, or ``if True:`` when the next
line is indented more, so a block keeps its body) and the text is parsed again, a bounded
number of times. Line numbers never move: one line in, one line out.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

#: At most this many lines are blanked; a file worse than that is reported as one error.
MAX_BLANKED_LINES = 10


@dataclass(frozen=True)
class SyntaxProblem:
    """One line that does not parse (1-based ``line`` and ``col``)."""

    line: int
    col: int
    message: str


def parse_recovering(text: str, path: str) -> tuple[ast.Module | None, list[SyntaxProblem]]:
    """The module of ``text`` and the lines that had to be blanked to parse it.

    The tree is None (with the first problem only) when blanking single lines does not
    make the file parse: a broken multi-line statement, an unclosed bracket.
    """
    lines = text.splitlines()
    problems: list[SyntaxProblem] = []
    current = text
    while True:
        try:
            return ast.parse(current, filename=path), problems
        except (SyntaxError, ValueError) as exc:
            problem = _problem(exc)
            span = _continued_span(lines, problem.line - 1)
            if span is not None and not any(p.line - 1 in range(*span) for p in problems):
                # print "a", \          print f(
                #       b      (Python 2)    a, b)   the whole statement goes, as one
                start, end = span
                problems.append(SyntaxProblem(start + 1, 1, problem.message))
                lines[start] = _stand_in(lines, start, end)
                for index in range(start + 1, end):
                    lines[index] = ""
            elif not _can_blank(problem, lines, problems):
                return None, (problems[:1] or [problem])
            else:
                problems.append(problem)
                lines[problem.line - 1] = _stand_in(lines, problem.line - 1)
            current = "\n".join(lines) + "\n"


def _problem(exc: Exception) -> SyntaxProblem:
    line = getattr(exc, "lineno", None) or 1
    col = getattr(exc, "offset", None) or 1
    msg = getattr(exc, "msg", None) or str(exc)
    return SyntaxProblem(line, col, f"syntax error: {msg}")


def _can_blank(problem: SyntaxProblem, lines: list[str], done: list[SyntaxProblem]) -> bool:
    # A line already blanked that still fails (or a problem past the end: an unclosed
    # bracket) cannot be helped by blanking; neither can a file with too many bad lines.
    if len(done) >= MAX_BLANKED_LINES or not 0 < problem.line <= len(lines):
        return False
    if any(p.line == problem.line for p in done):
        return False
    return not _inside_brackets(lines, problem.line - 1)


def _inside_brackets(lines: list[str], index: int) -> bool:
    """Whether the line continues an open bracket or starts one it does not close:
    blanking part of a multi-line expression only moves the error."""
    line = lines[index]
    if line.rstrip().endswith(("\\", "(", "[", "{", ",")):
        return True
    depth = 0
    for ch in line.split("#", 1)[0]:
        depth += ch in "([{"
        depth -= ch in ")]}"
    return depth != 0 or _continues_previous(lines, index)


def _continues_previous(lines: list[str], index: int) -> bool:
    previous = next((lines[i] for i in range(index - 1, -1, -1) if lines[i].strip()), "")
    return previous.rstrip().endswith(("\\", "(", "[", "{", ","))


def _continued_span(lines: list[str], index: int) -> tuple[int, int] | None:
    """The lines ``[start, end)`` of a statement continued with backslashes around ``index``,
    or over the brackets its first line opens, through the line that closes them (None when
    there is none, or a bracket stays open)."""
    if not 0 <= index < len(lines):
        return None
    start = index
    while start > 0 and lines[start - 1].rstrip().endswith("\\"):
        start -= 1
    depth, end, opened = 0, start, False
    while end < len(lines):
        line = lines[end]
        for ch in line.split("#", 1)[0]:
            depth += ch in "([{"
            depth -= ch in ")]}"
        opened = opened or (end == start and depth > 0)
        end += 1
        if depth <= 0 and not line.rstrip().endswith("\\"):
            break
    if depth != 0 or end - start < 2 or _continues_previous(lines, start):
        return None
    # continued with backslashes, or a bracket its first line opens (``print f(\n a, b)``)
    if not (lines[start].rstrip().endswith("\\") or opened):
        return None
    return start, end


def _stand_in(lines: list[str], index: int, next_index: int | None = None) -> str:
    line = lines[index]
    indent = line[: len(line) - len(line.lstrip())]
    after = index + 1 if next_index is None else next_index
    following = next((ln for ln in lines[after:] if ln.strip()), "")
    deeper = len(following) - len(following.lstrip()) > len(indent)
    return f"{indent}if True:" if deeper else f"{indent}pass"
