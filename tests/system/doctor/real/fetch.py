"""Download the corpus scripts that are not stored in files/ (unclear or copyleft licences).

Each one is fetched from raw.githubusercontent.com at the exact commit named in manifest.json
and written to cache/<owner>__<repo>__<path>.py, the name score.py looks for. Nothing else is
checked or changed. Needs network access to GitHub.

    python tests/system/doctor/real/fetch.py            # only the missing ones
    python tests/system/doctor/real/fetch.py --force    # download again
"""

from __future__ import annotations

import argparse
import json
import sys
import urllib.parse
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
RAW = "https://raw.githubusercontent.com/{repo}/{commit}/{path}"


def cache_path(entry: dict) -> Path:
    return HERE / "cache" / f"{entry['id']}.py"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--force", action="store_true", help="download files already in cache/")
    args = parser.parse_args(argv)

    manifest = json.loads((HERE / "manifest.json").read_text(encoding="utf-8"))
    missing = [e for e in manifest if not e["stored"]]
    (HERE / "cache").mkdir(exist_ok=True)
    failures = 0
    for entry in missing:
        target = cache_path(entry)
        if target.exists() and not args.force:
            print(f"have  {target.relative_to(HERE)}")
            continue
        url = RAW.format(
            repo=entry["repo"], commit=entry["commit"], path=urllib.parse.quote(entry["path"])
        )
        try:
            with urllib.request.urlopen(url, timeout=60) as response:
                target.write_bytes(response.read())
        except OSError as exc:
            failures += 1
            print(f"FAIL  {url}: {exc}", file=sys.stderr)
            continue
        print(f"got   {target.relative_to(HERE)}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
