"""A sharded checkpoint is data: its metadata and values are read without running code, and
only from the shard directory its manifest verified (CPU, a one-rank gloo group)."""

import shutil

import pytest
import torch
from tests.unit.state.crafted import (
    one_rank_group,
    plant_metadata,
    plant_value,
    point_data_outside,
    repoint,
)
from torch import nn
from torch.distributed.checkpoint.api import CheckpointException

import trainwell as tw
from trainwell.errors import CheckpointError
from trainwell.state.trust import trusting_checkpoints
from trainwell.state.weights import read_weights

STEP = "step-00000008"


def model() -> nn.Module:
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))


def train(run_dir, *, epochs=2, resume=None, strategy="fsdp"):
    torch.manual_seed(0)
    x = torch.randn(64, 4)
    y = (x[:, 0] > 0).long()
    config = {
        "run": {"quiet": True, "dir": str(run_dir), "strategy": strategy, "device": "cpu"},
        "train": {"max_epochs": epochs},
        "data": {"batch_size": 16},
        "checkpoint": {"sharded": True, "min_interval_s": 0, "resume": resume},
    }
    return tw.fit(model(), (x, y), (x, y), config=config)


@pytest.fixture(scope="module")
def sharded_run(tmp_path_factory):
    run = tmp_path_factory.mktemp("sharded") / "run"
    with one_rank_group():
        train(run)
    return run


@pytest.fixture
def run(sharded_run, tmp_path):
    """A copy of the sharded run for one test to tamper with."""
    copy = tmp_path / "run"
    shutil.copytree(sharded_run, copy)
    return copy


def step_file(run):
    return run / "checkpoints" / f"{STEP}.pt"


def shards(run):
    return run / "checkpoints" / f"{STEP}.dcp"


def test_a_metadata_pickle_that_runs_code_is_refused_by_load_weights_and_runs_nothing(
    run, tmp_path
):
    genuine = read_weights(step_file(run))
    assert tw.load_weights(model(), step_file(run)).missing == []  # the genuine one loads
    marker = tmp_path / "ran"
    plant_metadata(shards(run), marker)
    with pytest.raises(
        CheckpointError, match=r"beyond checkpoint metadata \(builtins\.exec\).*--trust-checkpoint"
    ):
        tw.load_weights(model(), step_file(run))
    assert not marker.exists()
    with trusting_checkpoints(), pytest.raises(CheckpointException):  # opted in: it runs
        read_weights(step_file(run))
    assert marker.read_text() == "ran"
    assert set(genuine) == {"0.weight", "0.bias", "2.weight", "2.bias"}


def test_a_metadata_pickle_that_runs_code_is_refused_on_resume_and_runs_nothing(run, tmp_path):
    marker = tmp_path / "ran"
    plant_metadata(shards(run), marker)
    with pytest.raises(
        CheckpointError, match=r"\.metadata holds pickled Python objects.*builtins\.exec"
    ):
        train(tmp_path / "next", epochs=3, resume=str(step_file(run)), strategy="single")
    assert not marker.exists()


def test_a_pickled_object_among_the_shards_values_is_refused_on_every_load(run, tmp_path):
    marker = tmp_path / "ran"
    plant_value(shards(run), marker)
    with pytest.raises(CheckpointError, match=r"holds a pickled Python object"):
        read_weights(step_file(run))
    with pytest.raises(CheckpointError, match=r"holds a pickled Python object"):
        train(tmp_path / "next", epochs=3, resume=str(step_file(run)), strategy="single")
    assert not marker.exists()


def test_a_genuine_sharded_checkpoint_resumes_in_one_plain_process(run, tmp_path):
    result = train(run, epochs=3, resume="auto", strategy="single")
    assert result.epochs == 3
    plant_metadata(shards(run), tmp_path / "ran")  # and the same path refuses a crafted one
    with pytest.raises(CheckpointError, match="beyond checkpoint metadata"):
        train(run, epochs=4, resume=str(step_file(run)), strategy="single")


def test_metadata_that_reads_data_from_outside_its_directory_is_refused(run):
    point_data_outside(shards(run))
    with pytest.raises(
        CheckpointError, match=r"reads its data from '\.\./\.\./outside\.distcp', outside"
    ):
        read_weights(step_file(run))


@pytest.mark.parametrize(
    "target", ["../elsewhere.dcp", "ABSOLUTE", "step-00000004.dcp"], ids=["up", "abs", "other"]
)
def test_a_shard_pointer_to_anything_but_the_verified_directory_is_refused(run, target):
    elsewhere = run / "elsewhere.dcp"  # a genuine copy, outside the checkpoints directory
    shutil.copytree(shards(run), elsewhere)
    target = str(elsewhere.resolve()) if target == "ABSOLUTE" else target
    repoint(step_file(run), target)
    with pytest.raises(CheckpointError, match="refusing to (follow|load)"):
        read_weights(step_file(run))
    with pytest.raises(CheckpointError, match="refusing to (follow|load)"):
        train(run / "next", epochs=3, resume=str(step_file(run)), strategy="single")


def test_a_shard_directory_that_links_outside_fails_verification(run):
    elsewhere = run / "elsewhere.dcp"
    shards(run).rename(elsewhere)
    shards(run).symlink_to(elsewhere.resolve(), target_is_directory=True)
    with pytest.raises(CheckpointError, match="leads outside"):
        read_weights(step_file(run))
