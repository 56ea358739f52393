"""The doctor on the ninth held-out corpus (tests/system/doctor/heldout8/): code nobody here tuned on.

``real/score.py --corpus heldout8`` runs the doctor on the 43 scripts (29 repositories), labelled
and committed before the doctor first ran on them. The floors below are the figures after the
mechanisms its first run pointed at (2026-11-27, issue #29), rounded down: they must not fall.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from tests.system.doctor.store import skip_unless_stored

SCORE = Path(__file__).resolve().parent / "real" / "score.py"
# Per target torch: (precision floor, recall floor). At 2.5 TW016 counts (23 of 31 labels);
# at 2.6, the doctor's default, the 8 others remain (TW012 6, TW000 1, TW015 1). First run
# (doctor of main at a631373, the held-out figure): 2.5 P 0.900 R 0.871, 2.6 P 0.571 R 0.500.
# After the mechanisms its cases pointed at (README "After"): 2.5 P 1.000 R 0.903, 2.6
# P 1.000 R 0.625; the floors are those, rounded down.
FLOORS = {
    "2.5": (0.99, 0.90),
    "2.6": (0.99, 0.62),
}
SCRIPTS = 43


@pytest.mark.slow
def test_heldout8_precision_and_recall_stay_above_their_floors(tmp_path: Path) -> None:
    skip_unless_stored("heldout8")
    out = tmp_path / "heldout8.json"
    args = ["--corpus", "heldout8", "--quiet", "--json", str(out)]
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
        assert result["corpus"] == "heldout8"
        assert result["scripts"] == SCRIPTS and not result["skipped_missing"]
        overall = result["overall"]
        assert overall["precision"] >= precision_floor, (target, overall, result["false_positives"])
        assert overall["recall"] >= recall_floor, (target, overall)
