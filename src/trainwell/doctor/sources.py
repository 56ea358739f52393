"""Reading what is checked: Python files in their declared encoding (PEP 263) and notebooks.

A notebook's code cells are joined into one module, in order, so that names defined in an
earlier cell are known in later ones. IPython syntax (``%magic``, ``%%cell_magic``, ``!shell``,
``x = !cmd``, ``obj?``) is replaced line for line by plain Python, so every module line maps
back to exactly one (cell, line) pair.
"""

from __future__ import annotations

import ast
import io
import json
import re
import tokenize
from dataclasses import dataclass
from pathlib import Path

NOTEBOOK_SUFFIX = ".ipynb"
CHECKED_SUFFIXES = (".py", ".pyi", NOTEBOOK_SUFFIX)

# Cell magics whose body is still Python (IPython runs it); any other %% cell is not Python.
_PYTHON_CELL_MAGICS = {"time", "timeit", "capture", "prun", "debug", "profile"}
_LINE_MAGIC = re.compile(r"^(?P<indent>\s*)(?:%|!(?!=)|\?)")  # not ``!=`` (a comparison)
_ASSIGNED_MAGIC = re.compile(r"^(?P<lhs>\s*[A-Za-z_][\w.,\s\[\]()]*?=)\s*[%!]")
_HELP = re.compile(r"^(?P<indent>\s*)[\w.]+\s*\?{1,2}\s*$")
# Magics and shell aliases IPython runs without their ``%`` (automagic): ``cd YoloV3/``,
# ``pip install timm``, ``rm -rf data/``, each alone in its cell.
_AUTOMAGICS = frozenset({
    "cd", "pwd", "ls", "ll", "rm", "rmdir", "mkdir", "cp", "mv", "cat", "less", "man",
    "clear", "pip", "conda", "mamba", "env", "set_env", "load_ext", "reload_ext", "matplotlib",
    "pylab", "run", "time", "timeit", "autoreload", "aimport", "config", "who", "whos",
    "reset", "store", "history", "pushd", "popd", "dhist", "bookmark", "alias", "unalias",
    "sx", "system", "xmode", "pdb", "tb", "load", "writefile", "precision", "pinfo", "psearch",
})  # fmt: skip
_AUTOMAGIC = re.compile(r"^(?P<indent>\s*)(?P<name>[A-Za-z_]\w*)(?:\s+\S.*)?$")
_NEWLINE = re.compile(r"\r\n|\r|\n")


class SourceError(Exception):
    """A file that cannot be read, decoded or (for a notebook) loaded as JSON."""


@dataclass(frozen=True)
class PythonSource:
    """A decoded Python file; ``encoding`` is the codec its bytes were decoded with."""

    text: str
    encoding: str


@dataclass(frozen=True)
class NotebookSource:
    """The code cells of a notebook as one module, and where each module line came from."""

    text: str
    cells: tuple[tuple[int, int], ...]  # module line (index + 1) -> (code cell number, line)

    def locate(self, line: int) -> tuple[int, int]:
        """Module line (1-based) -> (cell number from 1, line within the cell from 1)."""
        if not self.cells:
            return 1, line
        index = min(max(line, 1), len(self.cells)) - 1
        return self.cells[index]


def decode_python(data: bytes) -> PythonSource:
    """Decode ``data`` with its PEP 263 declaration (or BOM; UTF-8 by default).

    Newlines are kept as they are, so encoding ``text`` again gives back ``data``.
    """
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as exc:  # unknown codec in the coding cookie, BOM/cookie mismatch
        reason = getattr(exc, "msg", None) or str(exc)
        if reason.startswith("unknown encoding"):
            # a codec a package registers where the script runs (``future_fstrings``, a
            # source transformer over UTF-8): checked as UTF-8 text when it is that
            try:
                return PythonSource(data.decode("utf-8"), "utf-8")
            except UnicodeDecodeError:
                pass
        raise SourceError(
            f"cannot decode file: {reason} (not UTF-8: declare the encoding with "
            "'# -*- coding: NAME -*-', PEP 263)"
        ) from None
    try:
        text = data.decode(encoding)
    except (UnicodeDecodeError, LookupError) as exc:
        raise SourceError(f"cannot decode file as {encoding}: {exc}") from None
    return PythonSource(text, encoding)


def read_python(path: Path) -> PythonSource:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise SourceError(f"cannot read file: {exc.strerror or exc}") from None
    return decode_python(data)


def split_lines(text: str) -> list[str]:
    """Lines as the tokenizer counts them (``\\r\\n``, ``\\r``, ``\\n``), without the ends."""
    return _NEWLINE.split(text)


def _python_line(line: str) -> str:
    """One cell line with IPython-only syntax replaced by Python of the same meaning."""
    assigned = _ASSIGNED_MAGIC.match(line)
    if assigned and not line.lstrip().startswith(("%", "!")):
        return f"{assigned.group('lhs')} None"
    help_match = _HELP.match(line)
    if help_match:
        return f"{help_match.group('indent')}pass"
    magic = _LINE_MAGIC.match(line)
    if magic:
        return f"{magic.group('indent')}pass"
    return line


def _automagic(lines: list[str]) -> bool:
    """``cd YoloV3/`` alone in its cell: a magic or shell alias without its ``%``. IPython
    (7 and later) tries automagic only on a cell of one line, and never on an assignment
    (``ls = []``); a line that is Python (``time.sleep(1)``) stays Python."""
    written = [line for line in lines if line.strip()]
    if len(written) != 1:
        return False
    match = _AUTOMAGIC.match(written[0])
    if match is None or match.group("name") not in _AUTOMAGICS:
        return False
    if written[0][match.end("name") :].lstrip()[:1] in {"=", ","}:
        return False
    try:
        ast.parse(written[0].strip())
    except SyntaxError:
        return True
    return False


def _cell_lines(source: list[str]) -> list[str]:
    lines = split_lines("".join(source))
    if lines and lines[-1] == "" and len(lines) > 1:
        lines.pop()  # a trailing newline does not start another line
    # IPython drops a cell's leading blank lines before it looks for a %% cell magic
    first = next((line.strip() for line in lines if line.strip()), "")
    if first.startswith("%%"):
        name = first[2:].split(maxsplit=1)[0] if first[2:].strip() else ""
        if name not in _PYTHON_CELL_MAGICS:
            return ["" for _ in lines]  # %%bash, %%writefile, ...: not Python
        start = next(i for i, line in enumerate(lines) if line.strip())
        return ["" for _ in lines[: start + 1]] + [
            _python_line(line) for line in lines[start + 1 :]
        ]
    if _automagic(lines):
        return ["" for _ in lines]
    out: list[str] = []
    continued = False
    for line in lines:
        if continued:  # continuation of a magic/shell line that ended in a backslash
            out.append("")
        else:
            out.append(_python_line(line))
        stripped = line.lstrip()
        continued = (continued or stripped.startswith(("%", "!"))) and line.endswith("\\")
    return out


def load_notebook(data: bytes) -> NotebookSource:
    """Parse notebook JSON (nbformat 4, or 3 with worksheets) into one module."""
    try:
        document = json.loads(data.decode("utf-8-sig"))
    except UnicodeDecodeError as exc:
        raise SourceError(f"cannot read notebook: not UTF-8 ({exc.reason})") from None
    except ValueError as exc:
        raise SourceError(f"cannot read notebook: invalid JSON ({exc})") from None
    if not isinstance(document, dict):
        raise SourceError("cannot read notebook: the JSON document is not an object")
    cells = document.get("cells")
    if cells is None and isinstance(document.get("worksheets"), list):  # nbformat 3
        cells = [c for ws in document["worksheets"] for c in ws.get("cells", [])]
    if not isinstance(cells, list):
        raise SourceError("cannot read notebook: no 'cells' list")
    language = (
        document.get("metadata", {}).get("kernelspec", {}).get("language")
        or document.get("metadata", {}).get("language_info", {}).get("name")
        or "python"
    )
    if str(language).lower() != "python":
        return NotebookSource("", ())  # an R or Julia notebook: nothing to check
    lines: list[str] = []
    origin: list[tuple[int, int]] = []
    number = 0
    for cell in cells:
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        number += 1
        source = cell.get("source", cell.get("input", []))
        if isinstance(source, str):
            source = [source]
        if not isinstance(source, list) or not all(isinstance(s, str) for s in source):
            raise SourceError(f"cannot read notebook: code cell {number} has no text source")
        for index, line in enumerate(_cell_lines(source), start=1):
            lines.append(line)
            origin.append((number, index))
    return NotebookSource("\n".join(lines) + "\n" if lines else "", tuple(origin))


def read_notebook(path: Path) -> NotebookSource:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise SourceError(f"cannot read file: {exc.strerror or exc}") from None
    return load_notebook(data)


# a noqa comment at the end of a line, bare (every code) or with codes ("noqa: TW012, TW003")
_NOQA = re.compile(r"#\s*noqa(?::\s*(?P<codes>[A-Za-z]+\d+(?:\s*,\s*[A-Za-z]+\d+)*))?", re.I)


def silenced_elsewhere(at: tuple[str, int] | None, code: str) -> bool:
    """A finding said at a call for a forward in another file (``at``: its path and line):
    the forward's noqa counts."""
    if at is None:
        return False
    path, line = at
    try:
        text = read_python(Path(path)).text.splitlines()
    except (SourceError, OSError):
        return False
    return 0 < line <= len(text) and suppressed(text[line - 1], code)


def suppressed(line_text: str, code: str) -> bool:
    """The line's noqa comment covers ``code``."""
    match = _NOQA.search(line_text)
    if match is None:
        return False
    codes = match.group("codes")
    if not codes:
        return True  # without codes, the comment suppresses every code
    return code in {c.strip().upper() for c in codes.split(",")}
