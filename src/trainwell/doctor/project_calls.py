"""Which functions of a project file the other checked files call.

A plain function of a helpers module that nothing in its own file runs
(``apply_to_file``, called as ``apply.apply_to_file(model, wav)`` from ``main.py``) is
judged at those calls: what it runs is said in the caller's file, not inside it.  The
callers are looked for among the checked files and, as the imports find them, the scripts
of the function's folder and of the two folders above it (``main.py`` beside or above
``apply.py``, checked or not).  Asked only for such a function, and answered from the
files' text (an import naming the module, a call of the name): nothing is parsed twice.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from .sources import SourceError, read_python

_FOLDER_LIMIT = 200  # scripts read per folder at most (a flat folder of generated files)


class CallsAcrossFiles:
    """``called(file, name)``: does another file of the project import ``file``'s module
    and call ``name``?"""

    def __init__(self, files: Iterable[Path]) -> None:
        self.files = list(files)
        self._texts: dict[Path, str] = {}
        self._folders: dict[Path, list[Path]] = {}

    def called(self, file: Path, name: str) -> bool:
        module = re.escape(file.stem)
        imports = re.compile(
            rf"^\s*(from\s+[\w.]*\b{module}\b|(from\s+\S+\s+)?import\s[^\n]*\b{module}\b)", re.M
        )
        call = re.compile(rf"\b{re.escape(name)}\s*\(")
        return any(
            other != file and imports.search(text) is not None and call.search(text) is not None
            for other in dict.fromkeys(self.files + self._around(file))
            if (text := self._text(other))
        )

    def _around(self, file: Path) -> list[Path]:
        return [f for folder in list(file.parents)[:3] for f in self._scripts_in(folder)]

    def _scripts_in(self, folder: Path) -> list[Path]:
        if folder not in self._folders:
            try:
                found = sorted(p.resolve() for p in folder.glob("*.py") if p.is_file())
            except OSError:
                found = []
            self._folders[folder] = found[:_FOLDER_LIMIT]
        return self._folders[folder]

    def _text(self, file: Path) -> str:
        if file not in self._texts:
            try:
                self._texts[file] = read_python(file).text
            except (SourceError, ValueError):
                self._texts[file] = ""
        return self._texts[file]
