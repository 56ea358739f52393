"""Share of a candidate script's 8-line shingles found in any one earlier corpus file.

    python tests/system/doctor/gather/simfile.py CANDIDATE.py [...] [--also DIR ...]

Earlier files: every ``files/`` and ``context/`` script of the corpus store (the corpora's
scripts, kept outside the repository: ``real/score.py`` says where) and of each ``--also``
folder (a round's new corpora, not yet in the store). A candidate
sharing over 30% of its shingles with one earlier file is a repeat (exit status 1).
Lines are compared without whitespace, blank and comment lines skipped.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path

SHINGLE = 8
REPEAT = 0.30
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "real"))
from corpus_store import store_root  # noqa: E402  (not score.py: it imports the doctor)


def shingles(path: Path) -> set[str]:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return set()
    lines = ["".join(line.split()) for line in text.splitlines()]
    lines = [line for line in lines if line and not line.startswith("#")]
    return {
        hashlib.md5("\n".join(lines[i : i + SHINGLE]).encode()).hexdigest()[:16]
        for i in range(max(0, len(lines) - SHINGLE + 1))
    }


def earlier_files(extra: list[Path]) -> list[Path]:
    roots = [store_root(), *extra]
    return [
        path
        for root in roots
        for pattern in ("*/files/*.py", "*/context/**/*.py")
        for path in root.glob(pattern)
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("candidates", nargs="+", type=Path)
    parser.add_argument("--also", action="append", type=Path, default=[])
    args = parser.parse_args(argv)
    by_shingle: dict[str, set[Path]] = {}
    for path in earlier_files(args.also):
        for shingle in shingles(path):
            by_shingle.setdefault(shingle, set()).add(path.resolve())
    worst = 0.0
    for candidate in args.candidates:
        own = shingles(candidate)
        counts: dict[Path, int] = {}
        for shingle in own:
            for path in by_shingle.get(shingle, ()):
                if path != candidate.resolve():
                    counts[path] = counts.get(path, 0) + 1
        top = sorted(counts.items(), key=lambda item: -item[1])[:3]
        share = top[0][1] / len(own) if top and own else 0.0
        worst = max(worst, share)
        verdict = "REPEAT" if share > REPEAT else "ok"
        print(f"{verdict:6} {100 * share:5.1f}%  {candidate}  ({len(own)} shingles)")
        for path, count in top:
            print(f"         {100 * count / len(own):5.1f}%  {path}")
    return 1 if worst > REPEAT else 0


if __name__ == "__main__":
    sys.exit(main())
