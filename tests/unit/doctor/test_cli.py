"""CLI behaviour through ``main([...])`` (the real subprocesses: tests/system/doctor/test_cli.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from trainwell.doctor.cli import main

BUGGY = """\
import torch

for x, y in loader:
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
state = torch.load("ckpt.pt", weights_only=False)
"""
CLEAN = """\
import torch

for x, y in loader:
    optimizer.zero_grad()
    criterion(model(x), y).backward()
    optimizer.step()
"""


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "b_buggy.py").write_text(BUGGY)
    (tmp_path / "a_clean.py").write_text(CLEAN)
    sub = tmp_path / "pkg" / "deep"
    sub.mkdir(parents=True)
    (sub / "inner.py").write_text(BUGGY)
    (tmp_path / "notes.txt").write_text(BUGGY)
    for skipped in (".hidden", ".venv", "__pycache__"):
        (tmp_path / skipped).mkdir()
        (tmp_path / skipped / "skip.py").write_text(BUGGY)
    return tmp_path


def test_clean_file_exits_zero(tree: Path, capsys) -> None:
    assert main([str(tree / "a_clean.py")]) == 0
    assert capsys.readouterr().out == ""


def test_findings_exit_one_with_sorted_text(tree: Path, capsys) -> None:
    assert main([str(tree)]) == 1
    lines = capsys.readouterr().out.splitlines()
    buggy, inner = str(tree / "b_buggy.py"), str(tree / "pkg" / "deep" / "inner.py")
    assert lines == [
        f"{buggy}:6:5: TW001 optimizer.step() is called in a loop that runs backward() but "
        "never zero_grad(): gradients accumulate across iterations",
        f"{buggy}:7:9: TW015 torch.load(weights_only=False) can execute arbitrary code from "
        "the checkpoint file",
        f"{inner}:6:5: TW001 optimizer.step() is called in a loop that runs backward() but "
        "never zero_grad(): gradients accumulate across iterations",
        f"{inner}:7:9: TW015 torch.load(weights_only=False) can execute arbitrary code from "
        "the checkpoint file",
        "Found 4 problems in 2 files.",
    ]


def test_json_format(tree: Path, capsys) -> None:
    assert main(["--format", "json", str(tree / "b_buggy.py")]) == 1
    data = json.loads(capsys.readouterr().out)
    assert [(d["line"], d["col"], d["code"], d["severity"], d["name"]) for d in data] == [
        (6, 5, "TW001", "error", "missing-zero-grad"),
        (7, 9, "TW015", "warning", "unsafe-torch-load"),
    ]
    assert data[0]["path"] == str(tree / "b_buggy.py")


def test_json_clean_is_empty_list(tree: Path, capsys) -> None:
    assert main(["--format", "json", str(tree / "a_clean.py")]) == 0
    assert json.loads(capsys.readouterr().out) == []


def test_select_and_ignore(tree: Path, capsys) -> None:
    target = str(tree / "b_buggy.py")
    assert main(["--select", "TW015", target]) == 1
    assert " TW001 " not in capsys.readouterr().out
    assert main(["--ignore", "TW001,TW015", target]) == 0
    assert main(["--select", "tw00", target]) == 1  # prefix, case-insensitive
    out = capsys.readouterr().out
    assert " TW001 " in out and " TW015 " not in out


def test_noqa_suppresses(tmp_path: Path, capsys) -> None:
    file = tmp_path / "t.py"
    file.write_text(
        BUGGY.replace("optimizer.step()", "optimizer.step()  # noqa: TW001").replace(
            "weights_only=False)", "weights_only=False)  # noqa"
        )
    )
    assert main([str(file)]) == 0


def test_syntax_error_reported_and_others_checked(tree: Path, capsys) -> None:
    (tree / "c_broken.py").write_text("def f(:\n    pass\n")
    assert main([str(tree / "c_broken.py"), str(tree / "b_buggy.py")]) == 1
    out = capsys.readouterr().out
    assert f"{tree / 'c_broken.py'}:1:7: TW000 syntax error:" in out
    assert " TW001 " in out


def test_nonexistent_path_is_usage_error(tmp_path: Path, capsys) -> None:
    assert main([str(tmp_path / "missing.py")]) == 2
    err = capsys.readouterr().err
    assert "path does not exist" in err and "missing.py" in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(
    "argv, fragment",
    [
        (["--select", "TW999", "."], "unknown rule code 'TW999'"),
        (["--ignore", "XX1", "."], "unknown rule code 'XX1'"),
        (["--explain", "TW999"], "unknown rule code 'TW999'"),
        (["--target-torch", "latest", "."], "invalid torch version 'latest'"),
        (["--format", "xml", "."], "invalid choice"),
        ([], "no PATH given"),
    ],
)
def test_usage_errors(argv: list[str], fragment: str, capsys) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert fragment in err and err.startswith("trainwell doctor: error:")
    assert len(err.strip().splitlines()) == 1


def test_explain(capsys) -> None:
    assert main(["--explain", "tw003"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("TW003 epoch-scheduler-per-batch (error)")
    assert "Bad:" in out and "Good:" in out and "scheduler.step()" in out


def test_list_rules(capsys) -> None:
    from trainwell.doctor import RULES

    assert main(["--list-rules"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == list(RULES)


def test_target_torch_from_pyproject(tmp_path: Path, capsys) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "x"\ndependencies = ["numpy", "torch>=2.1,<3"]\n'
    )
    script = tmp_path / "src" / "train.py"
    script.parent.mkdir()
    script.write_text("import torch\nstate = torch.load('x.pt')\n")
    assert main([str(script)]) == 1
    assert "TW016 torch.load() without weights_only: torch 2.1" in capsys.readouterr().out
    assert main(["--target-torch", "2.6", str(script)]) == 0
