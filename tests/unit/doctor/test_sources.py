"""Source decoding (PEP 263), notebooks, and files or paths that cannot be checked."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from trainwell.doctor import check_paths
from trainwell.doctor.cli import main
from trainwell.doctor.sources import SourceError, decode_python, load_notebook

LOAD = "import torch\nstate = torch.load('x.pt')\n"
MISSING_ZERO_GRAD = (
    "for x, y in loader:\n"
    "    loss = criterion(model(x), y)\n"
    "    loss.backward()\n"
    "    optimizer.step()\n"
)


def notebook(*cells: tuple[str, str], language: str = "python") -> str:
    return json.dumps(
        {
            "cells": [
                {"cell_type": kind, "metadata": {}, "source": src.splitlines(keepends=True)}
                for kind, src in cells
            ],
            "metadata": {"kernelspec": {"language": language, "name": "python3"}},
            "nbformat": 4,
            "nbformat_minor": 5,
        }
    )


def codes(findings) -> list[tuple]:
    return [(f.cell, f.line, f.col, f.code) for f in findings]


# --- encodings ---------------------------------------------------------------------------


def test_gbk_declared_file_is_checked(tmp_path: Path) -> None:
    source = "# -*- coding: gbk -*-\n# 加载检查点\nimport torch\nstate = torch.load('模型.pt')\n"
    file = tmp_path / "gbk.py"
    file.write_bytes(source.encode("gbk"))
    with pytest.raises(UnicodeDecodeError):
        file.read_bytes().decode("utf-8")  # the test really is about a non-UTF-8 file
    findings = check_paths([file], target_torch="2.4")
    assert codes(findings) == [(None, 4, 9, "TW016")]


def test_latin1_and_bom(tmp_path: Path) -> None:
    latin = tmp_path / "latin.py"
    latin.write_bytes("# coding: latin-1\n# café\n".encode("latin-1") + LOAD.encode())
    bom = tmp_path / "bom.py"
    bom.write_bytes(b"\xef\xbb\xbf" + LOAD.encode())
    findings = check_paths([latin, bom], target_torch="2.4")
    assert [(Path(f.path).name, f.line, f.code) for f in findings] == [
        ("bom.py", 2, "TW016"),
        ("latin.py", 4, "TW016"),
    ]


def test_decode_keeps_text_round_trip() -> None:
    data = "# -*- coding: gbk -*-\r\n# 中文\r\nx = 1\r\n".encode("gbk")
    source = decode_python(data)
    assert source.encoding == "gbk"
    assert source.text.encode(source.encoding) == data


def test_undecodable_file_reported_rest_checked(tmp_path: Path, capsys) -> None:
    (tmp_path / "a_bad.py").write_bytes(b"x = '\xff\xfe\xfd'\n")
    (tmp_path / "b_wrong.py").write_bytes(b"# coding: ascii\nx = '\xe4'\n")
    (tmp_path / "c_unknown.py").write_bytes(b"# coding: no-such-codec\nx = '\xe4'\n")
    (tmp_path / "d_ok.py").write_text(LOAD)
    assert main(["--target-torch", "2.4", str(tmp_path)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(f"{tmp_path / 'a_bad.py'}:1:1: TW000 cannot decode file")
    assert out[1].startswith(f"{tmp_path / 'b_wrong.py'}:1:1: TW000 cannot decode file as ascii")
    assert out[2].startswith(f"{tmp_path / 'c_unknown.py'}:1:1: TW000 cannot decode file")
    assert out[3].startswith(f"{tmp_path / 'd_ok.py'}:2:9: TW016 ")
    assert out[4] == "Found 4 problems in 4 files."


def test_a_codec_registered_by_a_package_is_read_as_utf8(tmp_path: Path) -> None:
    # ``# -*- coding: future_fstrings -*-``: a source transformer the environment installs;
    # the text is UTF-8 and its bugs are found all the same
    path = tmp_path / "trainer.py"
    path.write_bytes(b"# -*- coding: future_fstrings -*-\n" + LOAD.encode())
    findings = check_paths([path], target_torch="2.4")
    assert [(f.line, f.code) for f in findings] == [(3, "TW016")]


def test_bad_encoding_raises_source_error() -> None:
    with pytest.raises(SourceError, match="cannot decode file as utf-8"):
        decode_python(b"# coding: utf-8\nx = '\xff'\n")


# --- notebooks ---------------------------------------------------------------------------


def test_notebook_cells_concatenated_with_magics(tmp_path: Path) -> None:
    nb = tmp_path / "train.ipynb"
    nb.write_text(
        notebook(
            ("markdown", "# Training\nsome text"),
            ("code", "%matplotlib inline\n!pip install torch\nimport torch\nfiles = !ls\n"),
            ("code", "%%bash\necho hi\nfor x in y\n"),  # not Python: must be ignored
            ("code", "torch.load?\n" + MISSING_ZERO_GRAD),
            ("code", "%%time\nstate = torch.load('x.pt')  # torch known from cell 1\n"),
        )
    )
    findings = check_paths([nb], target_torch="2.4")
    assert codes(findings) == [(3, 5, 5, "TW001"), (4, 2, 9, "TW016")]
    assert findings[0].format().startswith(f"{nb}:cell 3:5:5: TW001 ")


def test_notebook_automagic_and_late_cell_magic(tmp_path: Path) -> None:
    # IPython runs ``cd dir/`` and ``rm -rf x/`` without their %, and a %% magic after
    # blank lines; Python lines that start with such a word (``ls = []``) stay Python
    nb = tmp_path / "train.ipynb"
    nb.write_text(
        notebook(
            ("code", "import torch\n"),
            ("code", "cd YoloV3/\n"),
            ("code", "\nrm -rf data/custom/\n"),
            ("code", "\n%%writefile config.yml\nname: run\nmodel: {type: Net}\n"),
            (
                "code",
                "config = dict(\n    lr=0.1,\n)\nhistory.append(1)\nstate = torch.load('x.pt')\n",
            ),
            ("code", "assert (\n    a\n    != b\n).sum() < 1e-5\n"),  # != is no shell escape
        )
    )
    findings = check_paths([nb], target_torch="2.4")
    assert codes(findings) == [(5, 5, 9, "TW016")]
    text = load_notebook(nb.read_bytes()).text.splitlines()
    assert text[1:4] == ["", "", ""]
    assert text[8:12] == ["config = dict(", "    lr=0.1,", ")", "history.append(1)"]


def test_notebook_line_map_and_noqa() -> None:
    data = notebook(
        ("code", "import torch"),
        (
            "code",
            "a = 1\n  %time f()\nstate = torch.load('x.pt')  # noqa: TW016\nb = torch.load('y')",
        ),
    ).encode()
    nb = load_notebook(data)
    lines = nb.text.splitlines()
    assert lines[2] == "  pass" or lines[2].strip() == "pass"
    assert nb.locate(1) == (1, 1) and nb.locate(5) == (2, 4)
    assert len(lines) == len(nb.cells) == 5


def test_notebook_json_output_has_cell_and_line(tmp_path: Path, capsys) -> None:
    nb = tmp_path / "nb.ipynb"
    nb.write_text(notebook(("code", "import torch"), ("code", "x = 1\ns = torch.load('p')")))
    assert main(["--format", "json", "--target-torch", "2.0", str(nb)]) == 1
    [item] = json.loads(capsys.readouterr().out)
    assert (item["cell"], item["line"], item["col"], item["code"]) == (2, 2, 5, "TW016")


def test_broken_notebook_reported_rest_checked(tmp_path: Path, capsys) -> None:
    (tmp_path / "a.ipynb").write_text("{ not json")
    (tmp_path / "b.ipynb").write_text(notebook(("code", "import torch\ns = torch.load('p')")))
    assert main(["--target-torch", "2.0", str(tmp_path)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(
        f"{tmp_path / 'a.ipynb'}:1:1: TW000 cannot read notebook: invalid JSON"
    )
    assert out[1].startswith(f"{tmp_path / 'b.ipynb'}:cell 1:2:5: TW016 ")


def test_notebook_syntax_error_located_in_cell(tmp_path: Path) -> None:
    nb = tmp_path / "nb.ipynb"
    nb.write_text(notebook(("code", "x = 1\ny = 2"), ("code", "z = 3\ndef f(:\n    pass")))
    [finding] = check_paths([nb])
    assert (finding.cell, finding.line, finding.code) == (2, 2, "TW000")


def test_non_python_notebook_is_skipped(tmp_path: Path) -> None:
    nb = tmp_path / "r.ipynb"
    nb.write_text(notebook(("code", "library(ggplot2)\nx <- 1"), language="R"))
    assert check_paths([nb]) == []


def test_directory_walk_finds_notebooks_not_checkpoints(tmp_path: Path) -> None:
    body = notebook(("code", "import torch\ns = torch.load('p')"))
    (tmp_path / "nb.ipynb").write_text(body)
    (tmp_path / ".ipynb_checkpoints").mkdir()
    (tmp_path / ".ipynb_checkpoints" / "nb-checkpoint.ipynb").write_text(body)
    findings = check_paths([tmp_path], target_torch="2.0")
    assert [Path(f.path).name for f in findings] == ["nb.ipynb"]


# --- nothing to check / parse errors ------------------------------------------------------


def test_directory_without_checkable_files_is_usage_error(tmp_path: Path, capsys) -> None:
    (tmp_path / "notes.txt").write_text("hello")
    (tmp_path / ".venv").mkdir()
    (tmp_path / ".venv" / "x.py").write_text(LOAD)
    assert main([str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("trainwell doctor: error: nothing to check in ")
    assert str(tmp_path) in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


def test_empty_directory_among_others_is_still_usage_error(tmp_path: Path, capsys) -> None:
    (tmp_path / "a.py").write_text(LOAD)
    (tmp_path / "empty").mkdir()
    assert main([str(tmp_path / "a.py"), str(tmp_path / "empty")]) == 2
    assert capsys.readouterr().out == ""  # nothing half-reported


def test_parse_error_reported_and_others_checked(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = (\n")
    (tmp_path / "b.py").write_text(LOAD)
    findings = check_paths([tmp_path], target_torch="2.4")
    assert [(Path(f.path).name, f.code) for f in findings] == [("a.py", "TW000"), ("b.py", "TW016")]
