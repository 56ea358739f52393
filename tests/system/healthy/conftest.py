"""As in tests/unit/guards: each test starts from ``torch.manual_seed(0)``."""

from tests.unit.guards.conftest import _seed  # noqa: F401  (an autouse fixture)
