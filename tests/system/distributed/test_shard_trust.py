"""A shared FSDP run directory is data: a tampered shard ``.metadata`` pickle (with its
manifest re-signed to match) runs no code on any loading path, and a step file's shard marker
is followed only into the directory its manifest verified (slow: one two-process FSDP run)."""

import hashlib
import json
import os
import pickle
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from tests.system.distributed.launch import env

import trainwell as tw
from trainwell.state.weights import read_weights

pytestmark = pytest.mark.slow


def trainwell(*args, cwd):
    return subprocess.run(
        [sys.executable, "-m", "trainwell", *args],
        capture_output=True, text=True, timeout=300, env=env(), cwd=cwd,
    )  # fmt: skip


@pytest.fixture(scope="module")
def fsdp_run(tmp_path_factory):
    """One run of the digits recipe under FSDP with 2 processes: sharded checkpoints."""
    root = tmp_path_factory.mktemp("fsdp")
    done = trainwell("train", "--nproc", "2", "--run-dir", str(root / "run"), "--quiet",
                     "--set", "run.strategy=fsdp", "--set", "train.max_epochs=2",
                     "--set", "run.progress=false", cwd=root)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    return root / "run"


@pytest.fixture
def shared(fsdp_run, tmp_path):
    """A copy of the run, as someone might share it."""
    return Path(shutil.copytree(fsdp_run, tmp_path / "shared"))


class _Payload:
    """Unpickling this runs code: it creates the file ``marker``."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


def _sha256(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _resign(checkpoints):
    """Re-sign every manifest to match the files now on disk, as an attacker would."""
    for sidecar in checkpoints.glob("*.json"):
        manifest = json.loads(sidecar.read_text())
        step = sidecar.with_suffix(".pt")
        if not step.exists():
            step = checkpoints / "best.pt"
        manifest.update(bytes=step.stat().st_size, sha256=_sha256(step))
        shards = manifest.get("shards")
        if shards:
            for name in shards["files"]:
                file = checkpoints / shards["dir"] / name
                shards["files"][name] = {"bytes": file.stat().st_size, "sha256": _sha256(file)}
        sidecar.write_text(json.dumps(manifest))


def _plant_metadata(run, marker):
    checkpoints = run / "checkpoints"
    for metadata in checkpoints.glob("*.dcp/.metadata"):
        metadata.write_bytes(pickle.dumps(_Payload(marker)))
    _resign(checkpoints)


def test_a_planted_metadata_pickle_runs_no_code_on_any_loading_path(shared, tmp_path):
    marker = tmp_path / "pwned"
    _plant_metadata(shared, marker)
    checkpoints = shared / "checkpoints"
    with pytest.raises(tw.CheckpointError, match="--trust-checkpoint"):
        read_weights(checkpoints / "best.pt")
    model = torch.nn.Linear(2, 2)
    with pytest.raises(tw.CheckpointError, match="beyond checkpoint metadata"):
        tw.load_weights(model, checkpoints / "last.pt")
    for command in (
        ["eval", str(shared)],
        ["export", str(shared), "--out", str(tmp_path / "w.safetensors")],
        ["resume", str(shared), "--set", "run.strategy=single"],
        ["train", "--resume", str(checkpoints / "last.pt"), "--run-dir", str(tmp_path / "new"),
         "--set", "train.max_epochs=3"],
    ):  # fmt: skip
        done = trainwell(*command, cwd=tmp_path)
        assert done.returncode == 2, (command, done.stderr[-2000:])
        assert "Traceback" not in done.stderr, command
        assert "pickled Python objects beyond checkpoint metadata" in done.stderr, command
        assert not marker.exists(), command
    # the user's explicit trust is the one way past: then the pickle is read as pickle
    trusted = trainwell("eval", str(shared), "--trust-checkpoint", cwd=tmp_path)
    assert marker.exists(), trusted.stderr[-2000:]


def test_a_genuine_sharded_checkpoint_still_loads(fsdp_run):
    weights = read_weights(fsdp_run / "checkpoints" / "best.pt")
    assert weights and all(isinstance(t, torch.Tensor) for t in weights.values())


def _point_marker(run, name):
    """Rewrite best.pt's model marker to ``name`` and re-sign its manifest."""
    checkpoints = run / "checkpoints"
    best = checkpoints / "best.pt"
    payload = torch.load(best, weights_only=True)
    payload["state"]["model"] = {"sharded": name}
    best.unlink()  # a hard link of its step file: write a file of its own
    torch.save(payload, best)
    _resign(checkpoints)
    return best


@pytest.mark.parametrize("name", ["../../outside.dcp", "/tmp/elsewhere.dcp", "step-00000012.dcp"])
def test_a_marker_is_followed_only_into_the_verified_directory(shared, tmp_path, name):
    checkpoints = shared / "checkpoints"
    shutil.copytree(checkpoints / "step-00000012.dcp", tmp_path / "outside.dcp")
    best = _point_marker(shared, name)
    expected = "not a directory beside it" if "/" in name else "its manifest does not verify"
    with pytest.raises(tw.CheckpointError, match=expected):
        read_weights(best)
    done = trainwell("eval", str(shared), cwd=tmp_path)
    assert done.returncode == 2 and expected in done.stderr, done.stderr[-2000:]
