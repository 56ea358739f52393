"""Score ``trainwell doctor`` against the hand labels of the real-world corpus.

For every script of manifest.json that is available the doctor is run twice, through the same code path as the CLI
(``trainwell.doctor.check_paths``): once with ``--target-torch 2.5`` (TW016 applies) and once
with the doctor's built-in default target (torch 2.6, where TW016 is off). Findings are matched
to labels of the same code whose line is within +-2 (each label and each finding is used at
most once, closest pairs first). Prints precision/recall per rule and overall, then every false
positive and false negative.

    python tests/system/doctor/real/score.py
    python tests/system/doctor/real/score.py --json results.json
    python tests/system/doctor/real/score.py --target 2.5 --quiet
    python tests/system/doctor/real/score.py --corpus heldout   # ../heldout, same layout
    python tests/system/doctor/real/score.py --corpus heldout9 --projects

With ``--projects`` each script is checked inside its repository, the way its users run the
doctor: the repository's scripts of the corpus and the ``context`` files its manifest entries
list (modules the scripts import, stored under ``context/<owner>__<name>/``, never scored) are
laid out at their paths in the repository, so an ``evaluate()`` imported from ``utils.py`` is
read where it is defined. Each script is still checked on its own, so a finding of another file
is reported at this script's call into it (the labels' convention for cross-file facts).
Without ``--projects`` each script is checked alone, as a single file.

The scripts themselves are third-party code and are not part of this repository: a corpus
folder here holds only its labels, manifest and README. They are read from the corpus store,
``$TW_DOCTOR_CORPORA`` (default ``~/.cache/trainwell/doctor-corpora``), one folder per corpus
with the layout ``<corpus>/files/<file>``, ``<corpus>/context/<owner>__<repo>/<path>`` and
``<corpus>/cache/<id>.py``; a corpus folder given as a path that holds ``files/`` itself is
read from there. Each script's bytes must match the manifest's ``sha256``: a store that holds
another version is refused, since its labels would point at the wrong lines.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import sys
import tempfile
from collections import defaultdict
from dataclasses import asdict, dataclass
from pathlib import Path

from corpus_store import STORE_VARIABLE, store_root

from trainwell.doctor import check_paths

HERE = Path(__file__).resolve().parent
TOLERANCE = 2
# TW016 (torch.load without weights_only) only exists for a target torch older than 2.6, where
# the default is the full unpickler: at 2.6+ its labels are not expected findings.
VERSION_BOUND = {"TW016": (2, 6)}
# The doctor's built-in default (a modern torch): what `trainwell doctor` uses for a script
# outside any project. Run from this repository without --target-torch the CLI would instead
# take the torch floor of trainwell's own pyproject.toml (torch>=2.4), i.e. the 2.5 table.
DEFAULT_TARGET = "2.6"
SCRIPT_FOLDERS = ("files", "context", "cache")


class CorpusMismatch(ValueError):
    """A stored script is not the version its manifest entry was labelled on."""


@dataclass
class Item:
    id: str
    line: int
    code: str
    text: str  # the finding's message (false positives) or the label's note (false negatives)


def corpus_dir(name: str) -> Path:
    """A corpus folder: a path, or the name of a sibling of this folder (``real``, ``heldout``)."""
    path = Path(name)
    return path if path.is_dir() else HERE.parent / name


def scripts_dir(corpus: Path) -> Path:
    """Where a corpus's scripts lie: the corpus folder itself when it holds them (a corpus
    laid out by hand, as in the tests), else its folder in the store."""
    if any((corpus / folder).is_dir() for folder in SCRIPT_FOLDERS):
        return corpus
    return store_root() / corpus.name


def script_path(entry: dict, corpus: Path = HERE) -> Path:
    base = scripts_dir(corpus)
    if entry["stored"]:
        return base / "files" / entry["file"]
    return base / "cache" / f"{entry['id']}.py"


def missing_scripts(manifest: list[dict], corpus: Path) -> list[str]:
    """The ids of the stored entries whose script is not available."""
    return [e["id"] for e in manifest if e["stored"] and not script_path(e, corpus).is_file()]


def store_lacks(manifest: list[dict], corpus: Path) -> bool:
    """True when none of a corpus's stored scripts is available (nothing to score)."""
    return len(missing_scripts(manifest, corpus)) == sum(bool(e["stored"]) for e in manifest)


def absent_reason(corpus: Path) -> str:
    """Why a corpus cannot be scored here, and how to make it so (for skips and errors)."""
    return (
        f"the scripts of corpus {corpus.name} are not in {scripts_dir(corpus)}: they are "
        f"third-party code kept outside the repository; set {STORE_VARIABLE} to a store "
        f"that holds {corpus.name}/files/ (real/README.md, 'Where the scripts are')"
    )


def verify(entry: dict, path: Path) -> None:
    """Refuse a script whose bytes are not those its labels were made on."""
    expected = entry.get("sha256")
    if expected and hashlib.sha256(path.read_bytes()).hexdigest() != expected:
        raise CorpusMismatch(
            f"{path}: sha256 differs from manifest entry {entry['id']} "
            f"({entry['repo']}@{entry['commit'][:12]}:{entry['path']}); put that version there"
        )


def match(labels: list[dict], findings: list) -> tuple[list, list, list]:
    """Pair labels and findings of the same code within TOLERANCE lines, closest first."""
    pairs = []
    for li, label in enumerate(labels):
        for fi, finding in enumerate(findings):
            distance = abs(label["line"] - finding.line)
            if label["code"] == finding.code and distance <= TOLERANCE:
                pairs.append((distance, li, fi))
    used_labels: set[int] = set()
    used_findings: set[int] = set()
    matched = []
    for _, li, fi in sorted(pairs):
        if li not in used_labels and fi not in used_findings:
            used_labels.add(li)
            used_findings.add(fi)
            matched.append((labels[li], findings[fi]))
    missed = [label for i, label in enumerate(labels) if i not in used_labels]
    extra = [finding for i, finding in enumerate(findings) if i not in used_findings]
    return matched, missed, extra


def repository_folder(entry: dict) -> str:
    """The folder of an entry's repository at its commit (a corpus may hold two versions)."""
    return f"{entry['repo'].replace('/', '__')}@{entry['commit'][:12]}"


def lay_out_projects(manifest: list[dict], corpus: Path, root: Path) -> dict[str, Path]:
    """Copy each available script, and its entry's context files, to its path in its
    repository under ``root``; return where each script went (by id)."""
    placed: dict[str, Path] = {}
    for entry in manifest:
        source = script_path(entry, corpus)
        if source.exists():
            dest = root / repository_folder(entry) / entry["path"]
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, dest)
            placed[entry["id"]] = dest
    for entry in manifest:
        stored = scripts_dir(corpus) / "context" / entry["repo"].replace("/", "__")
        for relative in entry.get("context", []):
            dest = root / repository_folder(entry) / relative
            if not dest.exists() and (stored / relative).is_file():  # a scored script wins
                dest.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(stored / relative, dest)
    return placed


def findings_by_script(
    manifest: list[dict], corpus: Path, target: str, projects: bool
) -> dict[str, list]:
    """The doctor's findings for each available script, checked alone; with ``projects`` its
    repository's other files lie beside it, where its imports find them (they are read for
    what the script uses, not checked themselves)."""
    for entry in manifest:
        if entry["stored"] and script_path(entry, corpus).is_file():
            verify(entry, script_path(entry, corpus))
    with tempfile.TemporaryDirectory(prefix="doctor-projects-") as tmp:
        if projects:
            placed = lay_out_projects(manifest, corpus, Path(tmp))
        else:
            placed = {e["id"]: script_path(e, corpus) for e in manifest}
        return {
            entry["id"]: check_paths([placed[entry["id"]]], target_torch=target)
            for entry in manifest
            if entry["id"] in placed and placed[entry["id"]].exists()
        }


def score(
    manifest: list[dict], labels: dict, target: str, corpus: Path = HERE, projects: bool = False
) -> dict:
    per_rule: dict[str, dict[str, int]] = defaultdict(lambda: {"tp": 0, "fp": 0, "fn": 0})
    false_positives: list[Item] = []
    false_negatives: list[Item] = []
    scored, skipped = [], []
    found = findings_by_script(manifest, corpus, target, projects)
    for entry in manifest:
        if entry["id"] not in found:
            skipped.append(entry["id"])
            continue
        scored.append(entry)
        expected = [
            label for label in labels[entry["id"]]["labels"] if applies(label["code"], target)
        ]
        matched, missed, extra = match(expected, found[entry["id"]])
        for label, _ in matched:
            per_rule[label["code"]]["tp"] += 1
        for label in missed:
            per_rule[label["code"]]["fn"] += 1
            false_negatives.append(Item(entry["id"], label["line"], label["code"], label["note"]))
        for finding in extra:
            per_rule[finding.code]["fp"] += 1
            false_positives.append(Item(entry["id"], finding.line, finding.code, finding.message))
    totals = {k: sum(r[k] for r in per_rule.values()) for k in ("tp", "fp", "fn")}
    return {
        "corpus": corpus.name,
        "target_torch": target,
        "mode": "projects" if projects else "files",
        "scripts": len(scored),
        "repositories": len({e["repo"] for e in scored}),
        "skipped_missing": skipped,
        "per_rule": {
            code: dict(per_rule[code], **ratios(per_rule[code])) for code in sorted(per_rule)
        },
        "overall": dict(totals, **ratios(totals)),
        "false_positives": [asdict(i) for i in false_positives],
        "false_negatives": [asdict(i) for i in false_negatives],
    }


def applies(code: str, target: str) -> bool:
    bound = VERSION_BOUND.get(code)
    return bound is None or tuple(int(p) for p in target.split(".")[:2]) < bound


def ratios(counts: dict[str, int]) -> dict[str, float | None]:
    tp, fp, fn = counts["tp"], counts["fp"], counts["fn"]
    return {
        "precision": tp / (tp + fp) if tp + fp else None,
        "recall": tp / (tp + fn) if tp + fn else None,
    }


def pct(value: float | None) -> str:
    return "   n/a" if value is None else f"{100 * value:5.1f}%"


def report(result: dict, quiet: bool) -> None:
    print(
        f"\n== {result['corpus']}, target torch {result['target_torch']}: {result['scripts']} scripts from "
        f"{result['repositories']} repositories, checked as {result['mode']} =="
    )
    if result["skipped_missing"]:
        print(
            f"   ({len(result['skipped_missing'])} not available: see real/README.md, "
            f"'Where the scripts are')"
        )
    print(
        f"{'rule':<8}{'labels':>7}{'found':>7}{'TP':>5}{'FP':>5}{'FN':>5}{'precision':>11}{'recall':>9}"
    )
    rows = list(result["per_rule"].items()) + [("overall", result["overall"])]
    for code, r in rows:
        print(
            f"{code:<8}{r['tp'] + r['fn']:>7}{r['tp'] + r['fp']:>7}{r['tp']:>5}{r['fp']:>5}"
            f"{r['fn']:>5}{pct(r['precision']):>11}{pct(r['recall']):>9}"
        )
    if quiet:
        return
    for title, key in (
        ("false positives", "false_positives"),
        ("false negatives", "false_negatives"),
    ):
        print(f"\n-- {title} ({len(result[key])}) --")
        for item in result[key]:
            print(f"{item['code']}  {item['id']}.py:{item['line']}  {item['text']}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", metavar="PATH", help="also write the results as JSON here")
    parser.add_argument(
        "--target",
        action="append",
        help="torch version(s) to score (default: 2.5 and the doctor's default, 2.6)",
    )
    parser.add_argument(
        "--corpus",
        default=HERE.name,
        help="corpus folder: a path or a sibling of this folder's name (default: real)",
    )
    parser.add_argument("--quiet", action="store_true", help="tables only, no FP/FN lists")
    parser.add_argument(
        "--projects",
        action="store_true",
        help="check each repository's scripts together, with their context files",
    )
    args = parser.parse_args(argv)

    corpus = corpus_dir(args.corpus)
    if not (corpus / "manifest.json").is_file():
        print(f"--corpus {args.corpus}: no manifest.json in {corpus}", file=sys.stderr)
        return 2
    manifest = json.loads((corpus / "manifest.json").read_text(encoding="utf-8"))
    labels = json.loads((corpus / "labels.json").read_text(encoding="utf-8"))
    missing = [e["id"] for e in manifest if e["id"] not in labels]
    if missing:
        print(f"entries without labels: {missing}", file=sys.stderr)
        return 2
    if store_lacks(manifest, corpus):
        print(f"--corpus {args.corpus}: {absent_reason(corpus)}", file=sys.stderr)
        return 2
    targets = args.target or ["2.5", DEFAULT_TARGET]
    try:
        results = [score(manifest, labels, t, corpus, args.projects) for t in targets]
    except CorpusMismatch as exc:
        print(f"--corpus {args.corpus}: {exc}", file=sys.stderr)
        return 2
    for result in results:
        report(result, args.quiet)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
