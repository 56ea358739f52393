"""Sharded checkpoints made in this process (a one-rank gloo group), and the crafted files of
someone who can write a shared run directory and re-sign its manifests."""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import pickle
from collections.abc import Iterator
from pathlib import Path

import torch
import torch.distributed as dist


@contextlib.contextmanager
def one_rank_group() -> Iterator[None]:
    """A gloo process group of this process alone: FSDP2 and DCP run as they do on N ranks."""
    dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
    try:
        yield
    finally:
        dist.destroy_process_group()


class WritesMarker:
    """Unpickling this runs code: it writes ``marker``."""

    def __init__(self, marker: Path) -> None:
        self.marker = str(marker)

    def __reduce__(self):
        return (exec, (f"open({self.marker!r}, 'w').write('ran')",))


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def resign(checkpoints: Path) -> None:
    """Every manifest in ``checkpoints`` rewritten to match the files as they are now."""
    for sidecar in checkpoints.glob("*.json"):
        manifest = json.loads(sidecar.read_text())
        step_file = sidecar.with_suffix(".pt")
        if step_file.is_file() and "sha256" in manifest:
            manifest.update(bytes=step_file.stat().st_size, sha256=_sha256(step_file))
        shards = manifest.get("shards")
        if shards:
            directory = checkpoints / shards["dir"]
            shards["files"] = {
                f.name: {"bytes": f.stat().st_size, "sha256": _sha256(f)}
                for f in sorted(directory.iterdir())
            }
        sidecar.write_text(json.dumps(manifest))


def plant_metadata(shards: Path, marker: Path) -> None:
    """Replace the shard directory's ``.metadata`` with a pickle that writes ``marker``."""
    (shards / ".metadata").write_bytes(pickle.dumps(WritesMarker(marker)))
    resign(shards.parent)


def genuine_metadata(shards: Path):
    with (shards / ".metadata").open("rb") as handle:
        return pickle.load(handle)  # the test's own file: trusted


def plant_value(shards: Path, marker: Path) -> None:
    """Make one non-tensor value of the shards (a ``param_groups`` entry, stored as bytes) a
    pickle that writes ``marker``; the metadata itself stays genuine."""
    from torch.distributed.checkpoint.metadata import BytesStorageMetadata

    metadata = genuine_metadata(shards)
    name = next(
        k for k, v in metadata.state_dict_metadata.items() if isinstance(v, BytesStorageMetadata)
    )
    index = next(i for i in metadata.storage_data if i.fqn == name)
    info = metadata.storage_data[index]
    buffer = io.BytesIO()
    torch.save(WritesMarker(marker), buffer)
    data = shards / info.relative_path
    info.offset, info.length = data.stat().st_size, len(buffer.getvalue())
    with data.open("ab") as handle:
        handle.write(buffer.getvalue())
    (shards / ".metadata").write_bytes(pickle.dumps(metadata))
    resign(shards.parent)


def point_data_outside(shards: Path) -> None:
    """Make the metadata read its tensors from a file outside the shard directory."""
    metadata = genuine_metadata(shards)
    outside = shards.parent.parent / "outside.distcp"  # the run directory's, not the shards'
    (shards / "__0_0.distcp").replace(outside)  # one rank: its only data file
    for info in metadata.storage_data.values():
        info.relative_path = "../../outside.distcp"
    (shards / ".metadata").write_bytes(pickle.dumps(metadata))
    resign(shards.parent)


def repoint(step_file: Path, target: str) -> None:
    """Make every shard marker in ``step_file`` name ``target``; re-sign its manifest."""
    payload = torch.load(step_file, weights_only=True)
    for name, value in payload["state"].items():
        if isinstance(value, dict) and set(value) == {"sharded"}:
            payload["state"][name] = {"sharded": target}
    torch.save(payload, step_file)
    resign(step_file.parent)
