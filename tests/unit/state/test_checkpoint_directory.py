"""A checkpoint directory with something else in its place: one CheckpointError naming it."""

from __future__ import annotations

import pytest

from trainwell.errors import CheckpointError
from trainwell.state.checkpoint import check_checkpoint_directory, list_checkpoints
from trainwell.state.checkpointer import Checkpointer


def test_a_missing_directory_has_no_checkpoints_and_is_made(tmp_path):
    assert list_checkpoints(tmp_path / "checkpoints") == []
    check_checkpoint_directory(tmp_path / "checkpoints")
    Checkpointer(tmp_path / "checkpoints")
    assert (tmp_path / "checkpoints").is_dir()


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda p: p.symlink_to(p.name), r"is a symbolic link loop \(checkpoints -> checkpoints\)"),
        (lambda p: p.write_text("x"), r"is a file, not a directory"),
        (
            lambda p: p.symlink_to(p.parent / "gone"),
            r"is a symbolic link to .*gone, which does not",
        ),
    ],
    ids=["loop", "file", "dangling"],
)
def test_something_else_in_its_place_is_one_checkpoint_error(tmp_path, make, message):
    directory = tmp_path / "checkpoints"
    make(directory)
    for call in (list_checkpoints, check_checkpoint_directory, Checkpointer):
        with pytest.raises(CheckpointError, match=message) as caught:
            call(directory)
        assert str(directory) in str(caught.value) and "--run-dir" in str(caught.value)
        assert caught.value.exit_code == 2
