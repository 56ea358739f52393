"""Download a corpus's scripts into the corpus store, outside the repository.

The corpora's scripts are third-party code, so the repository keeps only their labels and a
manifest naming each one (repository, commit, path, sha256). This fills the store that
``score.py`` reads (``$TW_DOCTOR_CORPORA``, default ``~/.cache/trainwell/doctor-corpora``):
each script from raw.githubusercontent.com at the exact commit of its manifest entry, into
``<corpus>/files/<file>`` (``<corpus>/cache/<id>.py`` for an entry without a file name), and
the ``context`` modules the entry lists into ``<corpus>/context/<owner>__<repo>/<path>``.
A script whose bytes differ from the manifest's sha256 is not kept. Needs access to GitHub.

    python tests/system/doctor/real/fetch.py                      # the real corpus
    python tests/system/doctor/real/fetch.py --corpus heldout40   # any corpus
    python tests/system/doctor/real/fetch.py --corpus heldout40 --force
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import urllib.parse
import urllib.request
from pathlib import Path

import score

RAW = "https://raw.githubusercontent.com/{repo}/{commit}/{path}"


def download(entry: dict, path: str) -> bytes:
    url = RAW.format(repo=entry["repo"], commit=entry["commit"], path=urllib.parse.quote(path))
    with urllib.request.urlopen(url, timeout=60) as response:
        return response.read()


def wanted(entry: dict, base: Path) -> list[tuple[str, Path, str | None]]:
    """(path in the repository, place in the store, expected sha256) for an entry."""
    if entry.get("file"):
        script = base / "files" / entry["file"]
    else:
        script = base / "cache" / f"{entry['id']}.py"
    context = base / "context" / entry["repo"].replace("/", "__")
    return [(entry["path"], script, entry.get("sha256"))] + [
        (relative, context / relative, None) for relative in entry.get("context", [])
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default="real", help="corpus name (default: real)")
    parser.add_argument("--force", action="store_true", help="download files already stored")
    args = parser.parse_args(argv)

    corpus = score.corpus_dir(args.corpus)
    if not (corpus / "manifest.json").is_file():
        print(f"--corpus {args.corpus}: no manifest.json in {corpus}", file=sys.stderr)
        return 2
    base = score.store_root() / corpus.name
    manifest = json.loads((corpus / "manifest.json").read_text(encoding="utf-8"))
    failures = 0
    for entry in manifest:
        for path, target, sha256 in wanted(entry, base):
            if target.exists() and not args.force:
                continue
            try:
                data = download(entry, path)
            except OSError as exc:
                failures += 1
                print(
                    f"FAIL  {entry['repo']}@{entry['commit'][:12]}:{path}: {exc}", file=sys.stderr
                )
                continue
            if sha256 and hashlib.sha256(data).hexdigest() != sha256:
                failures += 1
                print(f"FAIL  {target}: sha256 differs from the manifest", file=sys.stderr)
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
            print(f"got   {target}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
