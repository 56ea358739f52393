"""Target torch version detection and the docs being in sync with the rule catalogue."""

from __future__ import annotations

from pathlib import Path

import pytest

from trainwell.doctor.config import (
    MODERN_TORCH,
    UsageError,
    parse_version,
    target_torch_for,
    torch_floor,
)
from trainwell.doctor.report import generated_section, render_rules

DOCS = Path(__file__).parents[3] / "docs" / "doctor.md"


@pytest.mark.parametrize(
    "requirement, floor",
    [
        ("torch>=2.4", (2, 4)),
        ("torch >= 2.1.2, <3", (2, 1)),
        ("torch==1.13.1", (1, 13)),
        ("torch~=2.3", (2, 3)),
        ("Torch[opt-einsum]>=2.2; python_version >= '3.9'", (2, 2)),
        ("torch", None),
        ("torch<3", None),
        ("torchvision>=0.15", None),
        ("numpy>=1.0", None),
    ],
)
def test_torch_floor(requirement: str, floor: tuple[int, int] | None) -> None:
    assert torch_floor(requirement) == floor


def test_parse_version() -> None:
    assert parse_version("2.4") == (2, 4)
    assert parse_version("2.4.1") == (2, 4)
    with pytest.raises(UsageError):
        parse_version("two")


def test_nearest_pyproject_wins(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\ndependencies = ["torch>=2.0"]\n')
    inner = tmp_path / "inner"
    inner.mkdir()
    (inner / "pyproject.toml").write_text('[project]\ndependencies = ["torch>=2.5"]\n')
    (inner / "a.py").write_text("")
    (tmp_path / "b.py").write_text("")
    assert target_torch_for(inner / "a.py") == (2, 5)
    assert target_torch_for(tmp_path / "b.py") == (2, 0)


def test_no_declaration_means_modern(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\ndependencies = ["numpy"]\n')
    (tmp_path / "a.py").write_text("")
    assert target_torch_for(tmp_path / "a.py") == MODERN_TORCH


def test_docs_rule_section_is_generated_from_rules() -> None:
    # Regenerate with: python -m trainwell.doctor.report docs/doctor.md
    assert generated_section(DOCS.read_text()) == render_rules()
