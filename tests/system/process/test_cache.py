"""cache() written by a process killed with SIGKILL mid-write: the dead writer's temp dir is
ignored, then cleaned."""

import signal
import subprocess
import sys
import textwrap

import pytest
from tests.unit.data.helpers import Expensive

import trainwell as tw
from trainwell.data import CachedDataset, cache

CRASHING_WRITER = textwrap.dedent(
    """
    import os, signal, sys
    import torch
    from trainwell.data import cache

    class Dies(torch.utils.data.Dataset):
        fingerprint = "v1"
        def __len__(self):
            return 50
        def __getitem__(self, i):
            if i == 30:  # halfway through writing: killed, no cleanup runs
                os.kill(os.getpid(), signal.SIGKILL)
            return torch.full((4,), float(i))

    cache(Dies(), sys.argv[1])
    """
)


def test_sigkill_mid_write_leaves_a_temp_dir_that_is_ignored_and_cleaned(tmp_path):
    target = tmp_path / "c"
    proc = subprocess.run(
        [sys.executable, "-c", CRASHING_WRITER, str(target)], capture_output=True, timeout=120
    )
    assert proc.returncode == -signal.SIGKILL, proc.stderr.decode()
    leftovers = [p for p in tmp_path.iterdir() if p.name != "c"]
    assert not target.exists() and len(leftovers) == 1  # the temp dir of the dead writer
    with pytest.raises(tw.DataError, match="no complete"):
        CachedDataset(leftovers[0])  # it has no header: never usable as a cache
    rebuilt = Expensive(n=5)
    cached = cache(rebuilt, target)
    assert rebuilt.calls == 5 and len(cached) == 5
    assert [p.name for p in tmp_path.iterdir()] == ["c"]  # the dead writer's dir is gone
