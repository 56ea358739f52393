"""Two ``trainwell train`` processes into one run directory: the second is refused (exit 2,
one line naming the first's pid) while the first trains on to exit 0 with its files intact.
Real subprocesses, on CPU; the first run waits at its start for the test to let it go (its
observer reads a line of stdin), so nothing here depends on timing."""

import json
import subprocess
import sys

RECIPE = """\
import sys

import torch

from trainwell.observe.base import Observer
from trainwell.recipes import Job


class WaitAtStart(Observer):
    def on_fit_start(self, info):
        print("STARTED", flush=True)
        sys.stdin.readline()  # held here, holding the run directory, until the test says go


def build(config):
    g = torch.Generator().manual_seed(0)
    x = torch.randn(64, 4, generator=g)
    y = torch.arange(64) % 3
    return Job(model=torch.nn.Linear(4, 3), train_data=(x, y), val_data=(x, y),
               observers=[WaitAtStart()])
"""


def _command(run_dir):
    return [sys.executable, "-m", "trainwell", "train", "--recipe", "waiting_recipe:build",
            "--run-dir", str(run_dir), "--set", "run.device=cpu", "--set", "train.max_epochs=2",
            "--quiet"]  # fmt: skip


def test_a_second_train_into_a_directory_in_use_exits_2_naming_the_first(tmp_path):
    (tmp_path / "waiting_recipe.py").write_text(RECIPE)
    run_dir = tmp_path / "run"
    first = subprocess.Popen(_command(run_dir), cwd=tmp_path, text=True, stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)  # fmt: skip
    try:
        assert first.stdout.readline().strip() == "STARTED"
        second = subprocess.run(_command(run_dir), cwd=tmp_path, text=True, input="\n",
                                capture_output=True, timeout=300)  # fmt: skip
        assert second.returncode == 2, second.stderr
        lines = second.stderr.strip().splitlines()
        assert len(lines) == 1, second.stderr
        assert f"in use by another run (pid {first.pid} on" in lines[0]
        assert "another --run-dir" in lines[0]
        _, err = first.communicate("\n", timeout=300)
    finally:
        if first.poll() is None:
            first.kill()
    assert first.returncode == 0, err
    records = [json.loads(line) for line in (run_dir / "metrics.jsonl").read_text().splitlines()]
    assert [r["epoch"] for r in records if r["kind"] == "epoch"] == [1, 2]  # one run's, once
    assert json.loads((run_dir / "summary.json").read_text())["epochs"] == 2
    assert not (run_dir / ".lock").exists()  # released at the end
