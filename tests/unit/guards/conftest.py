import pytest
import torch


@pytest.fixture(autouse=True)
def _seed():
    # No warnings filter here: a planted bug's warning must be expected with `warns(...)`, so
    # `-W error::trainwell.guards.GuardWarning` fails any test that warns unexpectedly.
    torch.manual_seed(0)
