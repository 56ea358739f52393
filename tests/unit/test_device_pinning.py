"""The suite passes wherever it runs: a test module that trains (``fit(``, a ``Trainer``, a
``trainwell train`` subprocess) and asserts CPU semantics (``torch.equal`` with CPU tensors,
the precision ``auto`` picks, the FLOP probe, MFU) must pin the device or be marked
``cpu_only`` (tests/conftest.py hides CUDA from such tests). On a CUDA machine ``run.device=
auto`` moves the model to ``cuda:0`` and picks bf16, and those assertions fail; this scan
keeps that true on the CPU machines CI runs on."""

import re
from pathlib import Path

import pytest
import torch

TESTS = Path(__file__).resolve().parents[1]
TRAINS = re.compile(r"\bfit\(|\bTrainer\(|[\"']train[\"'],|run_fit\(|run_job\(")
CPU_SEMANTICS = re.compile(r"torch\.equal\(|\.precision\b|[\"']precision[\"']|flops|\bmfu\b")
PINNED = re.compile(
    r"cpu_only|[\"']device[\"']: [\"']cpu[\"']|device=[\"']cpu[\"']|run\.device=cpu"
)


def unpinned_modules(root: Path) -> list[str]:
    """Test modules under ``root`` that train and assert CPU semantics without pinning the
    device, relative to ``root``."""
    found = []
    for path in sorted(root.rglob("test_*.py")):
        text = path.read_text(encoding="utf-8")
        if TRAINS.search(text) and CPU_SEMANTICS.search(text) and not PINNED.search(text):
            found.append(str(path.relative_to(root)))
    return found


def test_the_scan_finds_an_unpinned_module(tmp_path):
    (tmp_path / "test_bad.py").write_text(
        "def test_x():\n    tw.fit(m, d)\n    assert torch.equal(w, m.weight)\n"
    )
    (tmp_path / "test_good.py").write_text(
        "def test_x():\n    tw.fit(m, d, config={'run': {'device': 'cpu'}})\n"
        "    assert torch.equal(w, m.weight)\n"
    )
    assert unpinned_modules(tmp_path) == ["test_bad.py"]


@pytest.mark.parametrize("tier", ["unit", "system"])
def test_every_module_asserting_cpu_semantics_pins_the_device(tier):
    unpinned = unpinned_modules(TESTS / tier)
    assert not unpinned, (
        "these modules train and assert CPU semantics without pinning the device (add "
        "`pytestmark = pytest.mark.cpu_only` or run.device=cpu): " + ", ".join(unpinned)
    )


@pytest.mark.cpu_only
def test_cpu_only_hides_cuda_here_and_from_subprocesses():
    import os

    assert os.environ.get("CUDA_VISIBLE_DEVICES") == ""
    assert not torch.cuda.is_available()
    from trainwell.parts.device import choose_device

    assert choose_device("auto").type == "cpu"
