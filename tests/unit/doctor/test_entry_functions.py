"""TW012 in a function that builds, loads and evaluates its own network and that no code
of the run calls (``test_dehaze()`` of an evaluation script run from a launcher out of
sight): an entry point, said where its forward runs; a helper that some file of the run
calls is judged at its calls instead."""

from __future__ import annotations

from pathlib import Path

from trainwell.doctor import check_paths, check_source

TEST_SCRIPT = """
import torch
from models.slrnet import SLRNet


def test_dehaze(pairs, model_path="best.pth"):
    net = SLRNet().to("cpu")
    net.load_state_dict(torch.load(model_path, weights_only=True))
    net.eval()
    for hazy, clear in pairs:
        out = net(hazy)
        print(psnr(out.detach().numpy(), clear))
"""

GIVEN_A_MODEL = """
import torch


def test_dehaze(pairs, net):
    net.eval()
    for hazy, clear in pairs:
        out = net(hazy)
        print(psnr(out.detach().numpy(), clear))
"""


def codes(text: str) -> list[tuple[int, str]]:
    return [(f.line, f.code) for f in check_source(text.lstrip("\n"), "test.py")]


def test_an_uncalled_function_evaluating_the_network_it_builds() -> None:
    assert codes(TEST_SCRIPT) == [(10, "TW012")]


def test_an_uncalled_function_evaluating_a_network_it_is_given() -> None:
    # a caller out of sight may well run it under no_grad
    assert codes(GIVEN_A_MODEL) == []


def test_the_function_called_under_no_grad_in_its_file() -> None:
    script = TEST_SCRIPT + "\nwith torch.no_grad():\n    test_dehaze(load_pairs())\n"
    assert codes(script) == []


def write(directory: Path, name: str, text: str) -> Path:
    path = directory / name
    path.write_text(text.lstrip("\n"))
    return path


def found(paths: list[Path]) -> set[tuple[str, int, str]]:
    return {(Path(f.path).name, f.line, f.code) for f in check_paths(paths)}


def test_the_function_called_by_another_file_of_the_run(tmp_path: Path) -> None:
    # main.py calls it with autograd on: the finding stands at that call, once
    test = write(tmp_path, "test.py", TEST_SCRIPT)
    main = write(tmp_path, "main.py", "from test import test_dehaze\n\ntest_dehaze(pairs)\n")
    assert found([test, main]) == {("main.py", 3, "TW012")}


def test_the_function_called_by_another_file_under_no_grad(tmp_path: Path) -> None:
    test = write(tmp_path, "test.py", TEST_SCRIPT)
    main = write(
        tmp_path,
        "main.py",
        "import torch\nfrom test import test_dehaze\n\nwith torch.no_grad():\n"
        "    test_dehaze(pairs)\n",
    )
    assert found([test, main]) == set()


def test_the_function_alone_in_the_run(tmp_path: Path) -> None:
    test = write(tmp_path, "test.py", TEST_SCRIPT)
    other = write(tmp_path, "train.py", "import torch\n\nprint(torch.__version__)\n")
    assert found([test, other]) == {("test.py", 10, "TW012")}
