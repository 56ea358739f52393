"""Share of a candidate script's 8-line shingles found in any one earlier corpus file.

    python tests/system/doctor/gather/simfile.py CANDIDATE.py [...] [--also DIR ...]

Earlier files: every ``files/`` and ``context/`` script of the corpus store (the corpora's
scripts, kept outside the repository: ``real/score.py`` says where) and of each ``--also``
folder (a round's new corpora, not yet in the store). A candidate
sharing over 30% of its shingles with one earlier file is a repeat (exit status 1).
Lines are compared without whitespace, blank and comment lines skipped. The shingles of each
earlier file are kept in ``.simfile-shingles.pkl`` at the store's root, by size and mtime, so
that a run reads again only what changed (eight labellers run it at once).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import pickle
import sys
import tempfile
from pathlib import Path

SHINGLE = 8
REPEAT = 0.30
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "real"))
from corpus_store import store_root  # noqa: E402  (not score.py: it imports the doctor)

CACHE = ".simfile-shingles.pkl"


def shingles(path: Path) -> frozenset[int]:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return frozenset()
    lines = ["".join(line.split()) for line in text.splitlines()]
    lines = [line for line in lines if line and not line.startswith("#")]
    return frozenset(
        int(hashlib.md5("\n".join(lines[i : i + SHINGLE]).encode()).hexdigest()[:16], 16)
        for i in range(max(0, len(lines) - SHINGLE + 1))
    )


def cached_shingles(paths: list[Path], cache_file: Path) -> dict[Path, frozenset[int]]:
    """Each path's shingles, from the cache where its size and mtime are unchanged."""
    try:
        with cache_file.open("rb") as handle:
            cache = pickle.load(handle)
    except (OSError, pickle.UnpicklingError, EOFError, ValueError):
        cache = {}
    found: dict[Path, frozenset[int]] = {}
    changed = False
    for path in paths:
        key, stat = str(path.resolve()), path.stat()
        signature = (stat.st_size, stat.st_mtime_ns)
        hit = cache.get(key)
        if hit is None or hit[0] != signature:
            hit = cache[key] = (signature, shingles(path))
            changed = True
        found[path.resolve()] = hit[1]
    if changed:
        _write_atomically(cache_file, cache)
    return found


def _write_atomically(target: Path, cache: dict) -> None:
    try:
        handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=target.name)
        with os.fdopen(handle, "wb") as out:
            pickle.dump(cache, out, protocol=pickle.HIGHEST_PROTOCOL)
        os.chmod(temporary, 0o644)
        os.replace(temporary, target)
    except OSError:
        pass  # a store this user cannot write: the next run reads the files again


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
    earlier = cached_shingles(earlier_files(args.also), store_root() / CACHE)
    worst = 0.0
    for candidate in args.candidates:
        own = shingles(candidate)
        counts = {
            path: len(own & theirs)
            for path, theirs in earlier.items()
            if path != candidate.resolve() and not own.isdisjoint(theirs)
        }
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
