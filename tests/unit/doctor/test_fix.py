"""--fix: TW016 gets weights_only=True; nothing else in the file changes."""

from __future__ import annotations

import ast
import json
from pathlib import Path

from trainwell.doctor import check_paths
from trainwell.doctor.cli import main

SOURCE = (
    "# -*- coding: gbk -*-\r\n"
    "# 检查点\r\n"
    "import torch\r\n"
    "from torch import load\r\n"
    "a = torch.load('a.pt')  # 加载\r\n"
    "b = torch.load(\r\n"
    "    'b.pt',\r\n"
    "    map_location='cpu',  # keep\r\n"
    ")\r\n"
    "c = torch.load(**options)\r\n"
    "d = torch.load('d.pt', pickle_module=pickle)\r\n"
    "e = load((path))\r\n"
    "f = [torch.load(p) for p in ps]; g = torch.load(q, 'cpu')\r\n"
    "for x, y in loader:\r\n"
    "    loss = criterion(model(x), y)\r\n"
    "    loss.backward()\r\n"
    "    optimizer.step()\r\n"
)
FIXED = (
    SOURCE.replace("torch.load('a.pt')", "torch.load('a.pt', weights_only=True)")
    .replace("map_location='cpu',  # keep", "map_location='cpu', weights_only=True,  # keep")
    .replace("load((path))", "load((path), weights_only=True)")
    .replace("torch.load(p)", "torch.load(p, weights_only=True)")
    .replace("torch.load(q, 'cpu')", "torch.load(q, 'cpu', weights_only=True)")
)


def tw016(path: Path) -> list[int]:
    return [f.line for f in check_paths([path], target_torch="2.4") if f.code == "TW016"]


def test_fix_inserts_weights_only_and_keeps_other_bytes(tmp_path: Path, capsys) -> None:
    file = tmp_path / "train.py"
    file.write_bytes(SOURCE.encode("gbk"))
    assert tw016(file) == [5, 6, 11, 12, 13, 13]
    assert main(["--fix", "--target-torch", "2.4", str(file)]) == 1  # TW001 and TW016 remain
    out = capsys.readouterr().out
    assert f"fixed: {file}:5:5: TW016 added weights_only=True" in out
    assert f"not fixed: {file}:11:5: TW016 (the call passes pickle_module)" in out
    assert "Fixed 5 of 6 fixable problems." in out
    data = file.read_bytes()
    assert data == FIXED.encode("gbk")  # encoding, CRLF, comments, other calls: unchanged
    ast.parse(data.decode("gbk"))
    assert tw016(file) == [11]  # only the pickle_module call, which is not fixable
    remaining = [line for line in out.splitlines() if " TW0" in line and ":" in line]
    assert any(" TW001 " in line for line in remaining)


def test_fix_only_touches_tw016(tmp_path: Path) -> None:
    text = (
        "import torch\nfor x, y in loader:\n    loss = f(x)\n    loss.backward()\n    opt.step()\n"
    )
    file = tmp_path / "t.py"
    file.write_text(text)
    assert main(["--fix", "--target-torch", "2.4", str(file)]) == 1
    assert file.read_text() == text


def test_fix_respects_select_and_noqa(tmp_path: Path) -> None:
    file = tmp_path / "t.py"
    text = "import torch\na = torch.load('a')  # noqa: TW016\nb = torch.load('b')\n"
    file.write_text(text)
    assert main(["--fix", "--target-torch", "2.4", "--ignore", "TW016", str(file)]) == 0
    assert file.read_text() == text
    assert main(["--fix", "--target-torch", "2.4", str(file)]) == 0
    assert file.read_text() == text.replace("load('b')", "load('b', weights_only=True)")


def test_fix_skips_targets_without_weights_only(tmp_path: Path, capsys) -> None:
    file = tmp_path / "t.py"
    file.write_text("import torch\na = torch.load('a')\n")
    assert main(["--fix", "--target-torch", "1.12", str(file)]) == 1
    assert "weights_only needs torch >= 1.13" in capsys.readouterr().out
    assert file.read_text() == "import torch\na = torch.load('a')\n"


def test_fix_leaves_notebooks(tmp_path: Path, capsys) -> None:
    nb = tmp_path / "n.ipynb"
    body = json.dumps({"cells": [{"cell_type": "code", "source": ["import torch\n",
                       "s = torch.load('x')"]}], "metadata": {}, "nbformat": 4})  # fmt: skip
    nb.write_text(body)
    assert main(["--fix", "--target-torch", "2.4", str(nb)]) == 1
    out = capsys.readouterr().out
    assert f"not fixed: {nb}:cell 1:2:5: TW016 (notebooks are not rewritten)" in out
    assert nb.read_text() == body


def test_fix_with_json_keeps_stdout_json(tmp_path: Path, capsys) -> None:
    file = tmp_path / "t.py"
    file.write_text("import torch\na = torch.load('a')\n")
    assert main(["--fix", "--format", "json", "--target-torch", "2.4", str(file)]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out) == []
    assert "fixed: " in captured.err
