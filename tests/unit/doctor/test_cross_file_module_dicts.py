"""A plain dict or list of sub-modules is TW013 when the modules' class comes from another
file of the project (CADA-VAE's ``self.encoder[kind] = models.encoder_template(...)`` after
``import models``), as it is for a class of the same file; said where the container is made.
A loss or metric class (``SSIM``, ``PSNR``) is taken to hold no weights."""

from __future__ import annotations

from pathlib import Path

import pytest

from trainwell.doctor import check_paths

MODELS = """
import torch.nn as nn


class encoder_template(nn.Module):
    def __init__(self, dim, latent):
        super().__init__()
        self.fc = nn.Linear(dim, latent)


class SSIM(nn.Module):
    def forward(self, a, b):
        return (a - b).abs().mean()


class Tokenizer:
    def __init__(self, vocab):
        self.vocab = vocab
"""

VAE = """
import torch.nn as nn
{imports}


class Model(nn.Module):
    def __init__(self, kinds, dims):
        super().__init__()
        self.encoder = {{}}
        for kind, dim in zip(kinds, dims):
            self.encoder[kind] = {make}(dim, 64)
"""


def found(tmp_path: Path, imports: str, make: str) -> set[tuple[int, str]]:
    (tmp_path / "models.py").write_text(MODELS.lstrip("\n"))
    script = tmp_path / "vaemodel.py"
    script.write_text(VAE.format(imports=imports, make=make).lstrip("\n"))
    return {(f.line, f.code) for f in check_paths([script], select="TW013")}


@pytest.mark.parametrize(
    ("imports", "make"),
    [("import models", "models.encoder_template"), ("from models import *", "encoder_template")],
)
def test_modules_of_a_class_of_another_file_in_a_plain_dict(
    tmp_path: Path, imports: str, make: str
) -> None:
    assert found(tmp_path, imports, make) == {(8, "TW013")}


def test_objects_of_a_plain_class_of_another_file_are_not_modules(tmp_path: Path) -> None:
    assert found(tmp_path, "import models", "models.Tokenizer") == set()


def test_a_metric_module_of_another_file_is_no_weight_holder(tmp_path: Path) -> None:
    """MCX-Denoising's ``{"MSE": nn.MSELoss(), "SSIM": SSIM(), "PSNR": PSNR()}``."""
    assert found(tmp_path, "import models", "models.SSIM") == set()
