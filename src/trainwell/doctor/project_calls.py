"""Which functions of a project file the other checked files call.

A plain function of a helpers module that nothing in its own file runs
(``apply_to_file``, called as ``apply.apply_to_file(model, wav)`` from ``main.py``) is
judged at those calls: what it runs is said in the caller's file, not inside it.  Asked
only for such a function, and answered from the files' text (an import naming the module,
a call of the name), so that a run over many files parses nothing twice.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from .sources import SourceError, read_python


class CallsAcrossFiles:
    """``called(file, name)``: does another of the checked files import ``file``'s module
    and call ``name``?"""

    def __init__(self, files: Iterable[Path]) -> None:
        self.files = list(files)
        self._texts: dict[Path, str] = {}

    def called(self, file: Path, name: str) -> bool:
        module = re.escape(file.stem)
        imports = re.compile(
            rf"^\s*(from\s+[\w.]*\b{module}\b|(from\s+\S+\s+)?import\s[^\n]*\b{module}\b)", re.M
        )
        call = re.compile(rf"\b{re.escape(name)}\s*\(")
        return any(
            other != file and imports.search(text) is not None and call.search(text) is not None
            for other in self.files
            if (text := self._text(other))
        )

    def _text(self, file: Path) -> str:
        if file not in self._texts:
            try:
                self._texts[file] = read_python(file).text
            except (SourceError, ValueError):
                self._texts[file] = ""
        return self._texts[file]
