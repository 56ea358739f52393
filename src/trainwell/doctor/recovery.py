"""Parsing a file in spite of a few lines Python cannot read.

A notebook-style ``%matplotlib inline``, a ``!pip install`` or a Python 2 ``print "x"``
must not blind the doctor to the rest of the file. Each line ``ast.parse`` stops at is
replaced by a statement of the same indentation (``pass``, or ``if True:`` when the next
line is indented more, so a block keeps its body) and the text is parsed again, a bounded
number of times. Line numbers never move: one line in, one line out.
"""

from __future__ import annotations

import ast
import io
import tokenize
from dataclasses import dataclass, replace

#: At most this many lines are blanked; a file worse than that is reported as one error.
MAX_BLANKED_LINES = 10
#: Python 2 ``print "x"`` / ``exec code`` statements and a notebook's ``!pip install`` /
#: ``%matplotlib`` lines: a Python 2 script or an exported notebook has dozens, each a line
#: of its own, so they have a bound of their own.
MAX_PYTHON2_STATEMENTS = 200


@dataclass(frozen=True)
class SyntaxProblem:
    """One line that does not parse (1-based ``line`` and ``col``)."""

    line: int
    col: int
    message: str
    own_line: bool = False  # a Python 2 statement or a notebook escape: a line of its own


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
            problem = _problem(exc, lines)
            span = _continued_span(lines, problem.line - 1)
            if span is not None and not any(p.line - 1 in range(*span) for p in problems):
                # print "a", \          print f(
                #       b      (Python 2)    a, b)   the whole statement goes, as one
                start, end = span
                problems.append(replace(problem, line=start + 1, col=1))
                lines[start] = _stand_in(lines, start, end)
                for index in range(start + 1, end):
                    lines[index] = ""
            elif _can_blank(problem, lines, problems):
                problems.append(problem)
                tabs = isinstance(exc, TabError)  # Python 2 read a tab as 8 columns
                lines[problem.line - 1] = (
                    ""  # its indentation is the problem: a stand-in there fails alike
                    if "unindent does not match" in problem.message
                    else _stand_in(lines, problem.line - 1, tabs=tabs)
                )
            else:
                # time.time() -\n\n)/60: a broken expression over several lines goes as
                # one statement, its whole logical line
                logical = _logical_span(current, problem.line - 1)
                if logical is None or not _can_blank_span(logical, lines, problems, problem):
                    return None, (problems[:1] or [problem])
                start, end = logical
                problems.append(problem)
                lines[start] = _stand_in(lines, start, end)
                for index in range(start + 1, end):
                    lines[index] = ""
            current = "\n".join(lines) + "\n"


def _problem(exc: Exception, lines: list[str]) -> SyntaxProblem:
    line = getattr(exc, "lineno", None) or 1
    col = getattr(exc, "offset", None) or 1
    msg = getattr(exc, "msg", None) or str(exc)
    text = lines[line - 1].lstrip() if 0 < line <= len(lines) else ""
    if text[:1] in {"!", "%"}:
        what = "shell command" if text[0] == "!" else "magic"
        return SyntaxProblem(
            line,
            col,
            f"syntax error: a notebook {what} ({text.split()[0]}) is not Python; "
            "remove it from the script or run it in the notebook",
            own_line=True,
        )
    python2 = "Missing parentheses in call to" in msg
    return SyntaxProblem(line, col, f"syntax error: {msg}", own_line=python2)


def _can_blank(problem: SyntaxProblem, lines: list[str], done: list[SyntaxProblem]) -> bool:
    # A line already blanked that still fails (or a problem past the end: an unclosed
    # bracket) cannot be helped by blanking; neither can a file with too many bad lines.
    if _too_many(problem, done) or not 0 < problem.line <= len(lines):
        return False
    if any(p.line == problem.line for p in done):
        return False
    return not _inside_brackets(lines, problem.line - 1)


def _too_many(problem: SyntaxProblem, done: list[SyntaxProblem]) -> bool:
    own_lines = [p for p in done if p.own_line]
    if problem.own_line:
        return len(own_lines) >= MAX_PYTHON2_STATEMENTS
    return len(done) - len(own_lines) >= MAX_BLANKED_LINES


def _python2_statement(problem: SyntaxProblem) -> bool:
    return "Missing parentheses in call to" in problem.message


def _can_blank_span(
    span: tuple[int, int], lines: list[str], done: list[SyntaxProblem], problem: SyntaxProblem
) -> bool:
    start, end = span
    if len(done) - sum(p.own_line for p in done) >= MAX_BLANKED_LINES:
        return False
    # one line the tokenizer reads as a whole statement: Python 2's ``print x,`` (the comma
    # keeps the line open only to the eye)
    whole_line = end - start == 1 and _python2_statement(problem)
    return (end - start >= 2 or whole_line) and not any(start < p.line <= end for p in done)


def _logical_span(text: str, index: int) -> tuple[int, int] | None:
    """The lines ``[start, end)`` of the logical line (a statement with its bracketed
    continuation lines) that holds line ``index``, from the tokenizer, which needs no
    valid expression, only balanced brackets; None when it cannot tell."""
    start = None
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            kind, row = token.type, token.start[0] - 1
            if kind in (tokenize.NL, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT):
                continue
            if kind == tokenize.NEWLINE:
                if start is not None and start <= index <= row:
                    return start, row + 1
                start = None
            elif start is None:
                start = row
            if row > index and start is not None and start > index:
                return None
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return None
    return None


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
    if depth < 0 and not _continues_previous(lines, index) and _balanced_before(lines, index):
        return False  # a stray closer, nothing open before it: path = r'...\train.npy')
    return depth != 0 or _continues_previous(lines, index)


def _balanced_before(lines: list[str], index: int) -> bool:
    """The lines before ``index`` close every bracket they open (the tokenizer reaches
    their end without an open multi-line statement)."""
    try:
        for _ in tokenize.generate_tokens(io.StringIO("\n".join(lines[:index]) + "\n").readline):
            pass
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return False
    return True


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


def _stand_in(
    lines: list[str], index: int, next_index: int | None = None, *, tabs: bool = False
) -> str:
    line = lines[index]
    indent = line[: len(line) - len(line.lstrip())]
    if tabs:
        indent = indent.expandtabs(8)
    after = index + 1 if next_index is None else next_index
    following = next((ln for ln in lines[after:] if ln.strip()), "")
    deeper = len(following) - len(following.lstrip()) > len(indent)
    return f"{indent}if True:" if deeper else f"{indent}pass"
