"""What the guards tests ask of a watch: its finding codes, and the warnings it must give."""

import pytest

from trainwell.guards import GuardWarning


def codes(guards) -> list[str]:
    return [f.code for f in guards.findings]


def warns(*codes: str):
    """Expect GuardWarnings for exactly these finding codes (others are re-raised by pytest)."""
    return pytest.warns(GuardWarning, match="|".join(rf"\[{code}\]" for code in codes))
