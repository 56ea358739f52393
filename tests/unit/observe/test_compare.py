"""`trainwell.observe.compare`: config diff, metrics side by side, findings that differ."""

import json

from trainwell.observe.compare import compare, format_text
from trainwell.observe.explain import read_run


def run_dir(tmp_path, name, lr, losses):
    path = tmp_path / name
    path.mkdir()
    records = [{"kind": "step", "step": 10 * (i + 1), "loss": v} for i, v in enumerate(losses)]
    (path / "metrics.jsonl").write_text("\n".join(json.dumps(r) for r in records))
    summary = {
        "monitor": "val_loss",
        "best": losses[-1],
        "best_epoch": 2,
        "final": {"epoch": 2, "train_loss": losses[-1], "best": True},
    }
    (path / "summary.json").write_text(json.dumps(summary))
    config = {"optim": {"lr": lr, "name": "adamw"}, "run": {"dir": str(path)}}
    return read_run(path, config)


def test_compare_diffs_config_metrics_and_findings(tmp_path):
    good = run_dir(tmp_path, "good", 0.003, [2.3, 1.0, 0.5, 0.2])
    slow = run_dir(tmp_path, "slow", 1e-6, [2.3, 2.29, 2.29, 2.28])
    table = compare([good, slow])
    assert table["config_diff"] == {"optim.lr": [0.003, 1e-6]}  # run.dir is not a difference
    assert [m["final"]["train_loss"] for m in table["metrics"]] == [0.2, 2.28]
    assert "best" not in table["metrics"][0]["final"]  # a flag, not a metric
    assert table["findings_differ"] == [[], ["lr-too-low (problem)"]]
    text = format_text(table)
    assert "optim.lr: 0.003  |  1e-06" in text
    assert "slow: lr-too-low (problem)" in text and "good: -" in text
