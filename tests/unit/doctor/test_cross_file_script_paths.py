"""What a script puts on ``sys.path`` before importing the project's own modules
(``sys.path.append(os.path.join(BASE_DIR, "utils"))``, ``sys.path.append("../lib")``) is
where its imports are looked up, as Python itself does; and a model class of another file
whose ``forward`` runs wholly inside ``with torch.no_grad():`` records no graph when called."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from trainwell.doctor import check_paths
from trainwell.doctor.script_paths import script_path_folders

EVALUATOR = """
import torch


def evaluate(model, loader):
    model.eval()
    correct = 0
    for x, y in loader:
        correct += (model(x).argmax(1) == y).sum().item()
    return correct
"""

SCRIPT = """
import os
import sys

import torch

BASE_DIR = os.path.dirname(os.path.abspath(__file__))
sys.path.append(os.path.join(BASE_DIR, "utils"))
from evaluator import evaluate

model = torch.nn.Linear(4, 2)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for x, y in []:
    optimizer.zero_grad()
    torch.nn.functional.cross_entropy(model(x), y).backward()
    optimizer.step()
print(evaluate(model, []))
"""


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text.lstrip("\n"))
    return path


def found(paths: list[Path]) -> set[tuple[str, int, str]]:
    return {(Path(f.path).name, f.line, f.code) for f in check_paths(paths, select="TW012")}


def test_an_evaluation_helper_found_through_the_folder_the_script_adds(tmp_path: Path) -> None:
    write(tmp_path / "utils" / "evaluator.py", EVALUATOR)
    script = write(tmp_path / "train.py", SCRIPT)
    assert found([script]) == {("train.py", 16, "TW012")}


def test_without_the_sys_path_line_the_module_is_not_found(tmp_path: Path) -> None:
    write(tmp_path / "utils" / "evaluator.py", EVALUATOR)
    script = write(
        tmp_path / "train.py",
        SCRIPT.replace('sys.path.append(os.path.join(BASE_DIR, "utils"))', "pass"),
    )
    assert found([script]) == set()


def test_a_guarded_helper_found_there_is_not_reported(tmp_path: Path) -> None:
    write(
        tmp_path / "utils" / "evaluator.py",
        EVALUATOR.replace(
            "    for x, y in loader:", "    for x, y in loader:\n        with torch.no_grad():"
        ).replace("        correct +=", "            correct +="),
    )
    script = write(tmp_path / "train.py", SCRIPT)
    assert found([script]) == set()


@pytest.mark.parametrize(
    ("line", "folder"),
    [
        ('sys.path.append("../semi-supervised")', "semi-supervised"),
        ("sys.path.append(f'{current_path}/../pkg/src')", "pkg/src"),
        ("sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'lib'))", "lib"),
        (
            'sys.path.append(os.path.abspath(os.path.join(BASE_DIR, "model", "pointnet2")))',
            "scripts/model/pointnet2",
        ),
        ('sys.path.append("src/")', "scripts/src"),
    ],
)
def test_the_folders_read_from_the_literal_parts(tmp_path: Path, line: str, folder: str) -> None:
    for name in ("semi-supervised", "pkg/src", "lib", "scripts/model/pointnet2", "scripts/src"):
        (tmp_path / name).mkdir(parents=True)
    importer = tmp_path / "scripts" / "run.py"
    folders = script_path_folders(importer, ast.parse(line))
    assert folders and folders[0] == tmp_path / folder


@pytest.mark.parametrize(
    "line",
    [
        "sys.path.append(os.getcwd())",
        'sys.path.append("..")',
        "sys.path.append(ROOT)",
        'sys.path.append("/root/project/utils")',
        'sys.path.append("missing")',
    ],
)
def test_nothing_read_where_no_folder_below_is_named(tmp_path: Path, line: str) -> None:
    (tmp_path / "scripts" / "utils").mkdir(parents=True)
    assert script_path_folders(tmp_path / "scripts" / "run.py", ast.parse(line)) == []


def test_a_name_bound_to_the_folder_three_levels_up(tmp_path: Path) -> None:
    """TGB's examples/linkproppred/tkgl-icews/regcn.py: ``modules_path = abspath(join(
    dirname(__file__), '..', '..', '..'))`` then ``sys.path.append(modules_path)``: the
    repository's root, above the two folders the import lookup climbs by itself."""
    (tmp_path / "modules").mkdir()
    importer = tmp_path / "examples" / "link" / "icews" / "regcn.py"
    importer.parent.mkdir(parents=True)
    source = (
        "modules_path = osp.abspath(os.path.join(os.path.dirname(__file__), '..', '..', '..'))\n"
        "sys.path.append(modules_path)\n"
    )
    assert script_path_folders(importer, ast.parse(source)) == [tmp_path]
    twice = source + "modules_path = 'elsewhere'\n"  # bound twice: no folder to go by
    assert script_path_folders(importer, ast.parse(twice)) == []


def test_a_model_method_found_at_the_root_the_script_adds(tmp_path: Path) -> None:
    write(
        tmp_path / "modules" / "rrgcn.py",
        MODEL.replace("class Scorer", "class Other(torch.nn.Module):\n    pass\n\n\nclass Scorer"),
    )
    script = write(
        tmp_path / "examples" / "link" / "icews" / "regcn.py",
        "import os\nimport sys\n"
        "root = os.path.join(os.path.dirname(__file__), '..', '..', '..')\n"
        "sys.path.append(root)\n" + USER.replace("from scorer import", "from modules.rrgcn import"),
    )
    assert found([script]) == set()
    script.write_text(script.read_text().replace("sys.path.append(root)", "pass"))
    assert {(name, code) for name, _, code in found([script])} == {("regcn.py", "TW012")}


MODEL = """
import torch


class Scorer(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 2)

    def forward(self, x):
        \"\"\"Scores, never trained.\"\"\"
        with torch.no_grad():
            return self.fc(x)
"""

USER = """
import torch
from scorer import Scorer

model = Scorer()
model.eval()
for x in []:
    out = model.forward(x)
    print(out.argmax(1).tolist())
    print(model(x).argmax(1).tolist())
"""


def test_a_model_whose_forward_is_one_no_grad_block_records_no_graph(tmp_path: Path) -> None:
    write(tmp_path / "scorer.py", MODEL)
    script = write(tmp_path / "use.py", USER)
    assert found([script]) == set()


def test_with_a_forward_that_only_begins_without_grad_it_does(tmp_path: Path) -> None:
    write(
        tmp_path / "scorer.py",
        MODEL.replace(
            "            return self.fc(x)", "            x = x * 1\n        return self.fc(x)"
        ),
    )
    script = write(tmp_path / "use.py", USER)
    assert ("use.py", 7, "TW012") in found([script])
