"""The unit tests' file tree, for the doctor's commands run in subprocesses."""

from tests.unit.doctor.test_cli import tree  # noqa: F401  (a fixture: pytest finds it here)
