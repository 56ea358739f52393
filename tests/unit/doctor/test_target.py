"""The torch target read from a project's pins, and [tool.trainwell.doctor] settings."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from trainwell.doctor import check_paths
from trainwell.doctor.cli import main
from trainwell.doctor.config import MODERN_TORCH, config_for
from trainwell.doctor.target import find_target, parse_conda, parse_requirement

LOAD = "import torch\nstate = torch.load('x.pt')\n"


def project(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "proj"
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    script = root / "scripts" / "train.py"
    script.parent.mkdir(parents=True, exist_ok=True)
    script.write_text(LOAD)
    return script


@pytest.mark.parametrize(
    "requirement, lower, upper",
    [
        ("torch==1.13.1", (1, 13), (1, 13)),
        ("torch>=1.8", (1, 8), None),
        ("torch>=1.8,<2.0", (1, 8), (1, 13)),
        ("torch<2.0", None, (1, 13)),
        ("torch<2.5", None, (2, 4)),
        ("torch<=2.3", None, (2, 3)),
        ("torch~=2.1.0", (2, 1), None),
        ("torch==2.0.1+cu118 ; platform_system == 'Linux'", (2, 0), (2, 0)),
        ("torch==1.12.* --hash=sha256:abc", (1, 12), None),
        ("torch", None, None),
        ("torch @ https://download.pytorch.org/whl/torch-2.0.0.whl", None, None),
    ],
)
def test_requirement_bounds(requirement: str, lower, upper) -> None:
    pin = parse_requirement(requirement, "requirements.txt")
    assert pin is not None and (pin.lower, pin.upper) == (lower, upper)


@pytest.mark.parametrize("requirement", ["torchvision>=0.15", "torch-geometric==2.3", "numpy"])
def test_other_packages_are_not_torch(requirement: str) -> None:
    assert parse_requirement(requirement, "r.txt") is None


@pytest.mark.parametrize(
    "spec, lower",
    [
        ("pytorch=1.13", (1, 13)),
        ("pytorch==1.12.1", (1, 12)),
        ("pytorch>=1.8", (1, 8)),
        ("pytorch 1.11.*", (1, 11)),
        ("pytorch::pytorch=1.10=py3.9_cuda11.3_cudnn8_0", (1, 10)),
        ("pytorch", None),
    ],
)
def test_conda_specs(spec: str, lower) -> None:
    pin = parse_conda(spec, "environment.yml")
    assert pin is not None and pin.lower == lower


def test_conda_other_packages() -> None:
    assert parse_conda("pytorch-cuda=11.7", "environment.yml") is None
    assert parse_conda("torchvision=0.14", "environment.yml") is None


@pytest.mark.parametrize(
    "files, version, reason",
    [
        ({"requirements.txt": "numpy\ntorch==1.13.1\n"}, (1, 13),
         "from requirements.txt: torch==1.13.1"),
        ({"requirements/base.txt": "torch>=1.9 # cpu\n"}, (1, 9),
         "from requirements/base.txt: torch>=1.9"),
        ({"requirements-dev.txt": "-r requirements.txt\n", "requirements.txt": "torch>=2.2"},
         (2, 2), "from requirements.txt: torch>=2.2"),
        ({"setup.py": "from setuptools import setup\nREQS = ['numpy', 'torch>=1.10']\n"
                      "setup(name='x', install_requires=REQS)\n"}, (1, 10),
         "from setup.py: torch>=1.10"),
        ({"setup.py": "import sys\nsys.exit(1)\nsetup(extras_require={'gpu': ['torch==1.12.0']})"},
         (1, 12), "from setup.py: torch==1.12.0"),
        ({"setup.cfg": "[options]\ninstall_requires =\n    numpy\n    torch>=1.11\n"}, (1, 11),
         "from setup.cfg: torch>=1.11"),
        ({"environment.yml": "name: x\ndependencies:\n  - python=3.9\n  - pytorch=1.13\n"},
         (1, 13), "from environment.yml: pytorch=1.13"),
        ({"environment.yaml": "dependencies:\n  - pip:\n    - torch==1.8.1\n"}, (1, 8),
         "from environment.yaml: torch==1.8.1"),
        ({"pyproject.toml": "[project]\nname='x'\n[project.optional-dependencies]\n"
                            "gpu = ['torch>=2.3']\n"}, (2, 3), "from pyproject.toml: torch>=2.3"),
        ({"pyproject.toml": "[project]\ndependencies=['torch>=2.4']\n",
          "requirements.txt": "torch==2.1.0\n"}, (2, 1), "from requirements.txt: torch==2.1.0"),
        ({"requirements.txt": "torch<2.0\n"}, (1, 13),
         "from requirements.txt: torch<2.0, newest allowed"),
        ({"requirements.txt": "torch<3\n"}, MODERN_TORCH,
         "default: requirements.txt pins no lower bound (torch<3); pass --target-torch"),
        ({"requirements.txt": "torch\n"}, MODERN_TORCH,
         "default: requirements.txt pins no lower bound (torch); pass --target-torch"),
        ({"requirements.txt": "numpy\n"}, MODERN_TORCH,
         "default: no torch pin found; pass --target-torch"),
    ],
)  # fmt: skip
def test_target_from_project_files(tmp_path: Path, files, version, reason) -> None:
    target = find_target(project(tmp_path, files))
    assert (target.version, target.reason) == (version, reason)


def test_nearest_project_root_wins(tmp_path: Path) -> None:
    script = project(tmp_path, {"requirements.txt": "torch==1.13.1\n"})
    (script.parent / "requirements.txt").write_text("torch>=2.0\n")
    assert find_target(script).version == (2, 0)


def test_git_directory_stops_the_walk(tmp_path: Path) -> None:
    (tmp_path / "requirements.txt").write_text("torch==1.8\n")
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "t.py").write_text(LOAD)
    assert find_target(repo / "t.py").version == MODERN_TORCH


def test_cli_says_which_target_and_why(tmp_path: Path, capsys) -> None:
    script = project(tmp_path, {"requirements.txt": "torch==1.13.1\n"})
    assert main([str(script)]) == 1
    captured = capsys.readouterr()
    assert "TW016 torch.load() without weights_only: torch 1.13" in captured.out
    assert captured.err == (
        "trainwell doctor: target torch 1.13 (from requirements.txt: torch==1.13.1)\n"
    )
    assert main(["--target-torch", "2.6", str(script)]) == 0
    assert capsys.readouterr().err == "trainwell doctor: target torch 2.6 (from --target-torch)\n"


def test_cli_default_target_line(tmp_path: Path, capsys) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "t.py").write_text(LOAD)
    assert main([str(tmp_path / "t.py")]) == 0
    assert capsys.readouterr().err == (
        "trainwell doctor: target torch 2.6 (default: no torch pin found; pass --target-torch)\n"
    )


def test_json_carries_target(tmp_path: Path, capsys) -> None:
    script = project(tmp_path, {"environment.yml": "dependencies:\n  - pytorch=1.13\n"})
    assert main(["--format", "json", str(script)]) == 1
    [item] = json.loads(capsys.readouterr().out)
    assert (item["target_torch"], item["target_reason"]) == (
        "1.13",
        "from environment.yml: pytorch=1.13",
    )


# --- [tool.trainwell.doctor] ----------------------------------------------------------------

BUGGY = LOAD + (
    "for x, y in loader:\n"
    "    loss = criterion(model(x), y)\n"
    "    loss.backward()\n"
    "    optimizer.step()\n"
)


def configured(tmp_path: Path, table: str) -> Path:
    (tmp_path / "pyproject.toml").write_text(f"[project]\nname = 'x'\n{table}")
    for name in ("train.py", "tests/test_train.py", "legacy/old.py"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(BUGGY)
    return tmp_path


def found(paths) -> set[tuple[str, str]]:
    return {(Path(f.path).name, f.code) for f in check_paths(paths)}


def test_config_select_ignore_target(tmp_path: Path) -> None:
    root = configured(
        tmp_path, '[tool.trainwell.doctor]\nignore = ["TW001"]\ntarget-torch = "2.0"\n'
    )
    assert found([root / "train.py"]) == {("train.py", "TW016")}
    root = configured(tmp_path, '[tool.trainwell.doctor]\nselect = ["TW00"]\n')
    assert found([root / "train.py"]) == {("train.py", "TW001")}


def test_config_per_file_ignores(tmp_path: Path) -> None:
    root = configured(
        tmp_path,
        "[tool.trainwell.doctor]\ntarget-torch = '2.0'\n"
        "[tool.trainwell.doctor.per-file-ignores]\n"
        '"test_*.py" = ["TW016"]\n"legacy/**" = ["TW0"]\n',
    )
    assert found([root]) == {
        ("train.py", "TW001"),
        ("train.py", "TW016"),
        ("test_train.py", "TW001"),
    }


def test_cli_flags_override_config(tmp_path: Path, capsys) -> None:
    root = configured(
        tmp_path, '[tool.trainwell.doctor]\nignore = ["TW001"]\ntarget-torch = "2.0"\n'
    )
    assert main(["--ignore", "TW016", str(root / "train.py")]) == 1
    out = capsys.readouterr().out
    assert " TW001 " in out and " TW016 " not in out
    assert main(["--target-torch", "2.6", str(root / "train.py")]) == 0
    assert main([str(root / "train.py")]) == 1
    assert "target torch 2.0 (from pyproject.toml [tool.trainwell.doctor])" in (
        capsys.readouterr().err
    )


def test_config_is_nearest_pyproject_with_table(tmp_path: Path) -> None:
    root = configured(tmp_path, '[tool.trainwell.doctor]\nignore = ["TW001"]\n')
    sub = root / "pkg"
    sub.mkdir()
    (sub / "pyproject.toml").write_text("[project]\nname = 'inner'\n")  # no table: skipped
    (sub / "m.py").write_text(BUGGY)
    assert config_for(sub / "m.py").ignore == ("TW001",)


@pytest.mark.parametrize(
    "table, fragment",
    [
        ('selct = ["TW001"]', "unknown key 'selct'"),
        ('select = ["TW999"]', "unknown rule code 'TW999'"),
        ('target-torch = "new"', "target-torch must be"),
        ("per-file-ignores = 3", "per-file-ignores must be a table"),
    ],
)
def test_bad_config_is_usage_error(tmp_path: Path, capsys, table: str, fragment: str) -> None:
    root = configured(tmp_path, f"[tool.trainwell.doctor]\n{table}\n")
    assert main([str(root / "train.py")]) == 2
    err = capsys.readouterr().err
    assert fragment in err and "pyproject.toml" in err and "Traceback" not in err
