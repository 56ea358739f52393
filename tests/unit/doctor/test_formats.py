"""--format github / sarif, --statistics, and the pre-commit hook definition."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest
import yaml

from trainwell.doctor import RULES
from trainwell.doctor.cli import main
from trainwell.doctor.config import load_toml

ROOT = Path(__file__).parents[3]
BUGGY = """\
import torch

for x, y in loader:
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
state = torch.load("ckpt.pt", weights_only=False)
other = torch.load("b.pt", weights_only=False)
"""


@pytest.fixture
def buggy(tmp_path: Path) -> Path:
    file = tmp_path / "train, v1.py"  # a comma must be escaped in workflow commands
    file.write_text(BUGGY)
    return file


def test_github_format(buggy: Path, capsys) -> None:
    assert main(["--format", "github", str(buggy)]) == 1
    out = capsys.readouterr().out.splitlines()
    path = str(buggy).replace(",", "%2C")
    assert out == [
        f"::error file={path},line=6,col=5,title=TW001 missing-zero-grad::optimizer.step() is "
        "called in a loop that runs backward() but never zero_grad(): gradients accumulate "
        "across iterations",
        f"::warning file={path},line=7,col=9,title=TW015 unsafe-torch-load::torch.load"
        "(weights_only=False) can execute arbitrary code from the checkpoint file",
        f"::warning file={path},line=8,col=9,title=TW015 unsafe-torch-load::torch.load"
        "(weights_only=False) can execute arbitrary code from the checkpoint file",
    ]


def test_github_format_notebook_names_cell(tmp_path: Path, capsys) -> None:
    nb = tmp_path / "n.ipynb"
    cells = [{"cell_type": "code", "source": ["import torch\n"]},
             {"cell_type": "code", "source": ["s = torch.load('x', weights_only=False)"]}]  # fmt: skip
    nb.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4}))
    assert main(["--format", "github", str(nb)]) == 1
    assert capsys.readouterr().out.startswith(
        f"::warning file={nb},line=1,col=5,title=TW015 unsafe-torch-load::cell 2: torch.load"
    )


def validate_sarif(log: dict) -> None:
    """The parts of the SARIF 2.1.0 schema that consumers (GitHub code scanning) rely on."""
    assert log["version"] == "2.1.0"
    assert log["$schema"].endswith("sarif-2.1.0.json")
    assert isinstance(log["runs"], list) and len(log["runs"]) == 1
    run = log["runs"][0]
    driver = run["tool"]["driver"]
    assert isinstance(driver["name"], str) and driver["name"]
    rule_ids = []
    for rule in driver["rules"]:
        assert set(rule) >= {"id", "name", "shortDescription", "defaultConfiguration"}
        assert isinstance(rule["shortDescription"]["text"], str)
        assert rule["defaultConfiguration"]["level"] in {"none", "note", "warning", "error"}
        rule_ids.append(rule["id"])
    assert len(rule_ids) == len(set(rule_ids))
    for result in run["results"]:
        assert result["ruleId"] in rule_ids
        assert driver["rules"][result["ruleIndex"]]["id"] == result["ruleId"]
        assert result["level"] in {"none", "note", "warning", "error"}
        assert isinstance(result["message"]["text"], str) and result["message"]["text"]
        [location] = result["locations"]
        physical = location["physicalLocation"]
        assert isinstance(physical["artifactLocation"]["uri"], str)
        assert physical["region"]["startLine"] >= 1 and physical["region"]["startColumn"] >= 1


def test_sarif_format(buggy: Path, capsys) -> None:
    assert main(["--format", "sarif", str(buggy)]) == 1
    log = json.loads(capsys.readouterr().out)
    validate_sarif(log)
    run = log["runs"][0]
    assert [r["id"] for r in run["tool"]["driver"]["rules"]] == list(RULES)
    assert [
        (r["ruleId"], r["level"], r["locations"][0]["physicalLocation"]["region"]["startLine"])
        for r in run["results"]
    ] == [("TW001", "error", 6), ("TW015", "warning", 7), ("TW015", "warning", 8)]
    uri = run["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    assert uri == buggy.as_posix()
    assert run["properties"]["targetTorch"][0].startswith("target torch ")


def test_sarif_clean_run_is_valid(tmp_path: Path, capsys) -> None:
    (tmp_path / "ok.py").write_text("x = 1\n")
    assert main(["--format", "sarif", str(tmp_path)]) == 0
    log = json.loads(capsys.readouterr().out)
    validate_sarif(log)
    assert log["runs"][0]["results"] == []


def test_statistics_text(buggy: Path, capsys) -> None:
    assert main(["--statistics", str(buggy)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[-4:] == [
        "Found 3 problems in 1 file.",
        "",
        "2\tTW015\tunsafe-torch-load",
        "1\tTW001\tmissing-zero-grad",
    ]


def test_statistics_json(buggy: Path, capsys) -> None:
    assert main(["--statistics", "--format", "json", str(buggy)]) == 1
    assert json.loads(capsys.readouterr().out) == [
        {"code": "TW015", "name": "unsafe-torch-load", "count": 2},
        {"code": "TW001", "name": "missing-zero-grad", "count": 1},
    ]


def test_statistics_with_machine_format_is_usage_error(buggy: Path, capsys) -> None:
    assert main(["--statistics", "--format", "sarif", str(buggy)]) == 2
    assert "--statistics works with" in capsys.readouterr().err


# --- pre-commit --------------------------------------------------------------------------


def test_pre_commit_hook_definition() -> None:
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    [hook] = hooks
    assert hook["id"] == "trainwell-doctor"
    assert hook["entry"] == "trainwell doctor"
    assert hook["language"] == "python"
    assert sorted(hook["types_or"]) == ["jupyter", "python"]
    # The entry's executable is the package's console script.
    scripts = load_toml(ROOT / "pyproject.toml")["project"]["scripts"]
    executable, *args = shlex.split(hook["entry"])
    assert scripts[executable] == "trainwell.cli:main"
