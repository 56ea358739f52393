"""The doctor on the held-out corpus (tests/system/doctor/heldout/): real scripts it has never seen.

``real/score.py --corpus heldout`` runs the doctor on the 48 scripts, labelled before the
doctor first ran on them, and matches its findings to the labels. The floors below are the
figures measured on 2026-11-27 (issue #29), rounded down: precision must not fall, and recall
is raised as the doctor's mechanisms improve.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from tests.system.doctor.store import skip_unless_stored

SCORE = Path(__file__).resolve().parent / "real" / "score.py"
# Per target torch: (precision floor, recall floor). At 2.5 TW016 counts (33 of 54 labels);
# at 2.6, the doctor's default, 21 labels remain. Measured with the data-flow TW012: 2.5
# P 0.981 R 0.963, 2.6 P 0.950 R 0.905 (the one false positive is a deliberate eval-mode
# linear probe, barlowtwins evaluate.py:157; the misses: DGI's model.embed, whose file is
# not in the corpus, and SimCLR's cross-file scheduler).
FLOORS = {
    "2.5": (0.97, 0.95),
    "2.6": (0.95, 0.90),
}
SCRIPTS = 48


@pytest.mark.slow
def test_heldout_precision_and_recall_stay_above_their_floors(tmp_path: Path) -> None:
    skip_unless_stored("heldout")
    out = tmp_path / "heldout.json"
    args = ["--corpus", "heldout", "--quiet", "--json", str(out)]
    for target in FLOORS:
        args += ["--target", target]
    done = subprocess.run(
        [sys.executable, str(SCORE), *args], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    results = {r["target_torch"]: r for r in json.loads(out.read_text(encoding="utf-8"))}
    assert set(results) == set(FLOORS)
    for target, (precision_floor, recall_floor) in FLOORS.items():
        result = results[target]
        assert result["corpus"] == "heldout"
        assert result["scripts"] == SCRIPTS and not result["skipped_missing"]
        overall = result["overall"]
        assert overall["precision"] >= precision_floor, (target, overall, result["false_positives"])
        assert overall["recall"] >= recall_floor, (target, overall)


def test_score_refuses_a_corpus_folder_without_a_manifest(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(SCORE), "--corpus", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"--corpus {tmp_path}: no manifest.json in {tmp_path}"
    ]


def _corpus_with_one_script(tmp_path: Path, text: str, labelled: str) -> tuple[Path, Path]:
    """A corpus folder (manifest and labels only, as in this repository) and an empty store;
    the manifest's sha256 is that of ``labelled``."""
    corpus = tmp_path / "corpus1"
    corpus.mkdir()
    entry = {
        "id": "o__r__train",
        "repo": "o/r",
        "commit": "1" * 40,
        "path": "train.py",
        "stored": True,
        "file": "o__r__train.py",
        "sha256": hashlib.sha256(labelled.encode()).hexdigest(),
    }
    (corpus / "manifest.json").write_text(json.dumps([entry]), encoding="utf-8")
    labels = {"o__r__train": {"labels": [], "clean_notes": ""}}
    (corpus / "labels.json").write_text(json.dumps(labels), encoding="utf-8")
    store = tmp_path / "store"
    if text:
        (store / "corpus1" / "files").mkdir(parents=True)
        (store / "corpus1" / "files" / "o__r__train.py").write_text(text, encoding="utf-8")
    return corpus, store


def _score(corpus: Path, store: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "TW_DOCTOR_CORPORA": str(store)}
    return subprocess.run(
        [sys.executable, str(SCORE), "--corpus", str(corpus), *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )


def test_score_reads_a_corpus_from_the_store_named_by_the_environment(tmp_path: Path) -> None:
    corpus, store = _corpus_with_one_script(tmp_path, "x = 1\n", "x = 1\n")
    out = tmp_path / "r.json"
    done = _score(corpus, store, "--target", "2.5", "--json", str(out))
    assert done.returncode == 0, done.stderr
    [result] = json.loads(out.read_text(encoding="utf-8"))
    assert result["scripts"] == 1 and result["skipped_missing"] == []


def test_score_refuses_a_corpus_whose_scripts_are_not_in_the_store(tmp_path: Path) -> None:
    corpus, store = _corpus_with_one_script(tmp_path, "", "x = 1\n")
    done = _score(corpus, store)
    assert done.returncode == 2
    message = done.stderr.strip()
    assert "Traceback" not in message
    assert "TW_DOCTOR_CORPORA" in message and str(store / "corpus1") in message


def test_score_refuses_a_stored_script_that_is_not_the_labelled_version(tmp_path: Path) -> None:
    # labels point at lines of one version: another version would be scored against them
    corpus, store = _corpus_with_one_script(tmp_path, "x = 2\n", "x = 1\n")
    done = _score(corpus, store)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert "o__r__train.py: sha256 differs from manifest entry o__r__train" in done.stderr
