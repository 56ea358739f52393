"""``trainwell compare RUN_A RUN_B``: the config keys that differ, best and final metrics side
by side, the findings some runs have and others lack, the curves on one figure."""

import json
import re

import pytest

from trainwell.cli.app import main
from trainwell.errors import EXIT_OK, EXIT_USAGE
from trainwell.observe.compare import compare_runs

SMALL = ["--recipe", "spiral", "--set", "model.hidden=8", "--set", "model.num_points=300"]


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory):
    """The spiral recipe twice, with a learning rate ten times apart (CPU: compared exactly)."""
    root = tmp_path_factory.mktemp("sweep")
    for name, lr in (("lr-small", "0.003"), ("lr-large", "0.03")):
        args = ["train", *SMALL, "--run-dir", str(root / name), "--quiet"]
        args += ["--set", "train.max_epochs=2", "--set", f"optim.lr={lr}"]
        assert main([*args, "--set", "run.device=cpu"]) == EXIT_OK
    return root / "lr-small", root / "lr-large"


def test_the_config_diff_names_only_the_keys_that_differ(two_runs):
    comparison = compare_runs(list(two_runs))
    assert comparison.config_diff == [("optim.lr", [0.003, 0.03])]  # run.dir is bookkeeping


def test_results_stand_side_by_side_as_each_summary_has_them(two_runs):
    summaries = [json.loads((run / "summary.json").read_text()) for run in two_runs]
    rows = dict(compare_runs(list(two_runs)).metrics)
    monitor = summaries[0]["monitor"]
    assert rows[f"best {monitor}"] == [
        f"{s['best']:.4g} (epoch {s['best_epoch']})" for s in summaries
    ]
    assert rows["final val_loss"] == [s["final"]["val_loss"] for s in summaries]
    assert rows["final val_loss"][0] != rows["final val_loss"][1]
    assert rows["steps"] == [s["steps"] for s in summaries]


def test_findings_that_one_run_has_and_another_lacks_are_listed(two_runs, tmp_path):
    import shutil

    noisy = tmp_path / "noisy"
    shutil.copytree(two_runs[0], noisy)
    summary = json.loads((noisy / "summary.json").read_text())
    summary["guard_findings"] = [{"code": "TWG007", "severity": "warning"}]
    (noisy / "summary.json").write_text(json.dumps(summary))
    comparison = compare_runs([two_runs[0], noisy])
    assert comparison.findings_diff == [("TWG007", [False, True])]
    assert compare_runs(list(two_runs)).findings_diff == []


def test_the_cli_prints_text_json_and_a_figure(two_runs, tmp_path, capsys):
    figure = tmp_path / "curves.svg"
    assert main(["compare", *map(str, two_runs), "--plot", str(figure)]) == EXIT_OK
    text = capsys.readouterr().out
    assert re.search(r"^  optim\.lr +0\.003 +0\.03$", text, flags=re.M)
    assert text.splitlines()[0] == f"run lr-small: {two_runs[0]}"
    svg = figure.read_text()
    assert svg.lstrip().startswith("<?xml") and "lr-small" in svg and "lr-large" in svg
    assert main(["compare", *map(str, two_runs), "--format", "json"]) == EXIT_OK
    data = json.loads(capsys.readouterr().out)
    assert data["config_diff"] == {"optim.lr": {str(two_runs[0]): 0.003, str(two_runs[1]): 0.03}}


@pytest.mark.parametrize("case", ["one run", "not a run", "bad plot suffix"])
def test_mistakes_exit_2_with_one_line(case, two_runs, tmp_path, capsys):
    args = {
        "one run": [str(two_runs[0])],
        "not a run": [str(two_runs[0]), str(tmp_path)],
        "bad plot suffix": [*map(str, two_runs), "--plot", str(tmp_path / "x.jpg")],
    }[case]
    assert main(["compare", *args]) == EXIT_USAGE
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert {"one run": "two or more", "not a run": "summary.json", "bad plot suffix": ".svg"}[
        case
    ] in err
