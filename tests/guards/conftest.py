import pytest
import torch
from torch import nn

from trainwell.guards import GuardWarning


class Net(nn.Module):
    """A small MLP; ``dropout``/``batchnorm`` add the layers whose mode matters."""

    def __init__(self, dropout: bool = False, batchnorm: bool = False) -> None:
        super().__init__()
        layers: list[nn.Module] = [nn.Linear(4, 16)]
        if batchnorm:
            layers.append(nn.BatchNorm1d(16))
        layers.append(nn.ReLU())
        if dropout:
            layers.append(nn.Dropout(0.1))
        layers.append(nn.Linear(16, 3))
        self.net = nn.Sequential(*layers)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x)


def batches(n: int = 20, size: int = 16, seed: int = 0):
    g = torch.Generator().manual_seed(seed)
    return [
        (torch.randn(size, 4, generator=g), torch.randint(0, 3, (size,), generator=g))
        for _ in range(n)
    ]


def codes(guards) -> list[str]:
    return [f.code for f in guards.findings]


def warns(*codes: str):
    """Expect GuardWarnings for exactly these finding codes (others are re-raised by pytest)."""
    return pytest.warns(GuardWarning, match="|".join(rf"\[{code}\]" for code in codes))


@pytest.fixture(autouse=True)
def _seed():
    # No warnings filter here: a planted bug's warning must be expected with `warns(...)`, so
    # `-W error::trainwell.guards.GuardWarning` fails any test that warns unexpectedly.
    torch.manual_seed(0)
