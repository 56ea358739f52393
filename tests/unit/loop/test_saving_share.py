"""The summary gives the time spent saving in total, not only the longest save: what
``trainwell explain``'s checkpoint-bound finding and a user deciding on async saves need."""

import json

import pytest
from tests.fixtures import blobs, mlp, quiet_config

import trainwell as tw


def test_the_summary_totals_every_save_and_its_share_of_the_run(tmp_path):
    x, y = blobs()
    config = quiet_config(
        max_epochs=3,
        run={"dir": str(tmp_path / "run"), "device": "cpu"},
        checkpoint={"every_epochs": 1, "min_interval_s": 0, "keep_last": 10},
    )
    result = tw.fit(mlp(), (x[:180], y[:180]), (x[180:], y[180:]), config=config)
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["checkpoint_saves"] == len(result.saves) >= 3
    blocked = sum(s.blocked_s for s in result.saves)
    written = sum(s.write_s for s in result.saves)
    assert summary["checkpoint_blocked_s_total"] == pytest.approx(blocked, abs=1e-3)
    assert summary["checkpoint_write_s_total"] == pytest.approx(written, abs=1e-3)
    assert summary["checkpoint_blocked_s_total"] >= summary["checkpoint_blocked_s_max"]
    sidecars = sorted((tmp_path / "run" / "checkpoints").glob("step-*.json"))
    on_disk = sum(json.loads(p.read_text())["write_s"] for p in sidecars)
    assert summary["checkpoint_write_s_total"] == pytest.approx(on_disk, abs=1e-3 * len(sidecars))
    described = result.describe()
    share = 100 * blocked / result.wall_time_s
    assert f"{len(result.saves)} save(s) blocked the loop {blocked:.2f}s in total" in described
    assert f"({share:.1f}% of the run)" in described
