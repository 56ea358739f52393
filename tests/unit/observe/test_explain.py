"""`trainwell.observe.explain`: each rule on synthetic metrics.jsonl content built to show it,
and its silence on healthy curves."""

import json
import math
from pathlib import Path

from trainwell.observe.explain import explain, format_text, read_run

CONFIG = {
    "optim": {"lr": 0.003},
    "train": {"clip_norm": 1.0},
    "data": {"num_workers": 0},
    "monitor": {"metric": "val_loss", "restore_best": True},
    "early_stop": {"patience": None},
    "checkpoint": {"every_epochs": 1},
}


def write_run(tmp_path: Path, records: list[dict], summary: dict | None = None) -> Path:
    (tmp_path / "metrics.jsonl").write_text("\n".join(json.dumps(r) for r in records) + "\n")
    (tmp_path / "summary.json").write_text(json.dumps(summary or {}))
    return tmp_path


def step(n: int, loss: float, **more) -> dict:
    return {
        "kind": "step",
        "step": n,
        "loss": loss,
        "grad_norm": 0.5,
        "lr": 0.003,
        "data_wait": 0.01,
        **more,
    }


def epoch(n: int, train: float, val: float, best: bool, **more) -> dict:
    return {
        "kind": "epoch",
        "epoch": n,
        "step": 10 * n,
        "train_loss": train,
        "val_loss": val,
        "best": best,
        "data_wait": 0.01,
        **more,
    }


def findings(tmp_path, records, summary=None, config=CONFIG):
    return explain(read_run(write_run(tmp_path, records, summary), config))


def codes(found) -> dict[str, str]:
    return {f.code: f.severity for f in found}


def healthy() -> list[dict]:
    steps = [step(10 * i, 2.0 * 0.8**i) for i in range(1, 11)]
    epochs = [epoch(i, 2.0 * 0.7**i, 2.1 * 0.72**i, True) for i in range(1, 6)]
    return steps + epochs


def test_healthy_curves_get_no_finding(tmp_path):
    found = findings(tmp_path, healthy(), {"wall_time_s": 10, "checkpoint_blocked_s_total": 0.2})
    assert found == []
    assert "no findings" in format_text(read_run(tmp_path, CONFIG), found)


def test_diverged_names_the_step_and_lr_and_stuck_at_chance(tmp_path):
    losses = [2.3, 2.0, 1.8, 1.7, 40.0, 2.302, 2.303, 2.302, 2.303, 2.302]
    found = findings(tmp_path, [step(10 * (i + 1), v) for i, v in enumerate(losses)])
    (div,) = [f for f in found if f.code == "diverged"]
    assert div.severity == "problem" and div.step == 50
    assert "step 50" in div.evidence and "LR 0.003" in div.evidence
    assert "metrics.jsonl line 5" in div.evidence and "stuck at chance" in div.evidence
    assert div.suggestion == "--set optim.lr=0.0003"


def test_nonfinite_loss_is_diverged(tmp_path):
    found = findings(tmp_path, [step(10, 2.0), step(20, 1.5), step(30, math.nan)])
    assert codes(found)["diverged"] == "problem"
    assert "non-finite" in found[0].evidence


def test_isolated_spikes_with_clipped_share(tmp_path):
    losses = [1.0, 0.9, 0.85, 0.8, 0.78, 5.0, 0.76, 0.75, 0.74, 0.73]
    records = [step(10 * (i + 1), v) for i, v in enumerate(losses)]
    records[5]["grad_norm"] = 3.0
    found = findings(tmp_path, records)
    (spike,) = [f for f in found if f.code == "loss-spikes"]
    assert "1 isolated loss spike" in spike.evidence and "step 60" in spike.evidence
    assert "10% of the logged steps had a grad norm over train.clip_norm=1" in spike.evidence
    assert "diverged" not in codes(found)


def test_loss_that_barely_moved_is_lr_too_low(tmp_path):
    config = {**CONFIG, "optim": {"lr": 1e-6}}
    found = findings(
        tmp_path, [step(10 * i, 2.30 - 0.001 * i) for i in range(1, 11)], config=config
    )
    (low,) = [f for f in found if f.code == "lr-too-low"]
    assert low.severity == "problem" and "optim.lr=1e-06" in low.evidence
    assert low.suggestion == "--set optim.lr=1e-05"


def test_still_falling_with_a_small_lr_is_lr_too_low(tmp_path):
    config = {**CONFIG, "optim": {"lr": 1e-5}}
    records = [epoch(i, 2.0 * 0.8**i, 2.0 * 0.8**i + 0.5, True) for i in range(1, 6)]
    assert codes(findings(tmp_path, records, config=config))["lr-too-low"] == "warning"


def test_overfitting_names_the_onset_the_gap_and_restore_best(tmp_path):
    vals = [1.0, 0.6, 0.5, 0.7, 0.9]
    records = [epoch(i + 1, 1.0 * 0.5**i, v, v == 0.5) for i, v in enumerate(vals)]
    summary = {"weights": "best (val_loss 0.5 at epoch 3, read back from best.pt)"}
    (over,) = [f for f in findings(tmp_path, records, summary) if f.code == "overfitting"]
    assert over.severity == "problem" and over.epoch == 3
    assert "bottomed at 0.5 at epoch 3" in over.evidence and "gap 0.8375" in over.evidence
    assert "early_stop was off" in over.evidence and "read back from best.pt" in over.evidence
    assert "early_stop.patience=2" in over.suggestion


def test_a_val_loss_wiggling_at_its_floor_after_a_long_fall_is_no_overfitting(tmp_path):
    # the default job's curve: 0.43 down to 0.0088, then 0.0099 (12% above the minimum,
    # 0.3% of the fall) while accuracy holds: noise at the floor
    vals = [0.43, 0.13, 0.05, 0.0088, 0.011, 0.0099]
    records = [epoch(i + 1, 1.0 * 0.3**i, v, v == 0.0088) for i, v in enumerate(vals)]
    assert "overfitting" not in codes(findings(tmp_path, records))
    # the same rise after a short fall is one
    vals = [0.0120, 0.0100, 0.0088, 0.011, 0.0099]
    records = [epoch(i + 1, 1.0 * 0.3**i, v, v == 0.0088) for i, v in enumerate(vals)]
    assert codes(findings(tmp_path, records))["overfitting"] == "problem"


def test_high_close_and_falling_is_underfitting(tmp_path):
    records = [epoch(i, 2.0 - 0.1 * i, 2.05 - 0.1 * i, True) for i in range(1, 6)]
    assert codes(findings(tmp_path, records))["underfitting"] == "warning"


def test_no_new_best_in_the_last_evaluations_is_a_plateau(tmp_path):
    records = [epoch(i, 1.0 / i, 0.5, i == 2) for i in range(1, 7)]
    (flat,) = [f for f in findings(tmp_path, records) if f.code == "plateau"]
    assert "last 3 evaluations" in flat.evidence and "best at epoch 2" in flat.evidence


def test_data_wait_share_is_input_bound(tmp_path):
    records = [step(10 * i, 2.0 * 0.8**i, data_wait=0.7) for i in range(1, 6)]
    (slow,) = [f for f in findings(tmp_path, records) if f.code == "input-bound"]
    assert slow.severity == "problem" and "70%" in slow.evidence
    assert slow.suggestion == "--set data.num_workers=4"


def test_saving_share_is_checkpoint_bound(tmp_path):
    summary = {"wall_time_s": 10.0, "checkpoint_blocked_s_total": 2.0, "checkpoint_saves": 5}
    (save,) = [f for f in findings(tmp_path, healthy(), summary) if f.code == "checkpoint-bound"]
    assert save.severity == "warning" and "(20%" in save.evidence


def test_wild_grad_norms_and_guard_findings_are_unstable_gradients(tmp_path):
    records = healthy()
    records[4]["grad_norm"] = 80.0
    (grad,) = [f for f in findings(tmp_path, records) if f.code == "unstable-gradients"]
    assert (
        "largest 80" in grad.evidence and "1 of 10" in grad.evidence and "step 50" in grad.evidence
    )
    guard = {
        "guard_findings": [
            {"code": "exploding-grad", "step": 7, "message": "norm 1e4", "fix": "clip"}
        ]
    }
    other = tmp_path / "b"
    other.mkdir()
    (grad,) = [f for f in findings(other, healthy(), guard) if f.code == "unstable-gradients"]
    assert "[exploding-grad] at step 7" in grad.evidence


def test_findings_come_most_important_first(tmp_path):
    records = [step(10 * i, 2.30, data_wait=0.3) for i in range(1, 6)]
    found = findings(tmp_path, records, config={**CONFIG, "optim": {"lr": 1e-6}})
    assert [f.severity for f in found] == sorted(
        (f.severity for f in found), key=("problem", "warning", "info").index
    )
    assert found[0].code == "lr-too-low"
