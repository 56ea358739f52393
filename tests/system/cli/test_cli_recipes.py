"""Your own recipe (``module:function``) run by the trainwell command in subprocesses: a run
that resumes and evaluates from the directory that holds its module, or from any directory
with ``--trust-recipe`` — never by importing what a run directory names without consent."""

import json
import subprocess
import sys

RECIPE = """
from dataclasses import dataclass
from pathlib import Path

import torch

from trainwell.config import Config, TrainConfig
from trainwell.recipes import Job


@dataclass(frozen=True)
class ModelConfig:
    hidden: int = 8


def build(config):
    g = torch.Generator().manual_seed(config.run.seed)
    x = torch.randn(200, 4, generator=g)
    y = (x[:, 0] > 0).long()
    model = torch.nn.Sequential(
        torch.nn.Linear(4, config.model.hidden), torch.nn.ReLU(), torch.nn.Linear(config.model.hidden, 2)
    )
    return Job(model=model, train_data=(x[:160], y[:160]), val_data=(x[160:], y[160:]))


build.config = Config(train=TrainConfig(max_epochs=2), model=ModelConfig())
with (Path(__file__).parent / "imported.log").open("a") as log:  # each import leaves a line
    log.write("imported\\n")
"""


def trainwell(*args, cwd):
    return subprocess.run(
        [sys.executable, "-m", "trainwell", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=300,
    )


def test_a_user_recipe_run_resumes_and_evaluates_from_any_directory(tmp_path):
    project, elsewhere = tmp_path / "project", tmp_path / "elsewhere"
    project.mkdir()
    elsewhere.mkdir()
    (project / "myrecipe.py").write_text(RECIPE)
    imports = project / "imported.log"
    run = tmp_path / "runs" / "mine"
    first = trainwell(
        "train", "--recipe", "myrecipe:build", "--run-dir", str(run), "--quiet",
        "--set", "model.hidden=6", cwd=project,
    )  # fmt: skip
    assert first.returncode == 0, first.stderr
    assert json.loads((run / "summary.json").read_text())["epochs"] == 2
    assert imports.read_text().count("imported") == 1
    # the run directory names code: from elsewhere it is imported only with --trust-recipe
    for command in (
        ["resume", str(run)],
        ["eval", str(run)],
        ["export", str(run), "--format", "exported"],
    ):
        refused = trainwell(*command, cwd=elsewhere)
        assert refused.returncode == 2, refused.stderr
        assert "Traceback" not in refused.stderr and len(refused.stderr.splitlines()) == 1
        assert "--trust-recipe" in refused.stderr and str(project / "myrecipe.py") in refused.stderr
    assert imports.read_text().count("imported") == 1  # none of them ran the module
    second = trainwell(
        "resume", str(run), "--trust-recipe", "--set", "train.max_epochs=3", cwd=elsewhere
    )
    assert second.returncode == 0, second.stderr
    assert "resuming at epoch 3" in second.stderr
    assert json.loads((run / "summary.json").read_text())["epochs"] == 3
    shown = trainwell("eval", str(run), "--checkpoint", "last", "--trust-recipe", cwd=elsewhere)
    assert shown.returncode == 0, shown.stderr
    assert json.loads(shown.stdout)["epoch"] == 3
    # from the directory that holds the module it is the user's own code: no flag needed
    here = trainwell("eval", str(run), "--checkpoint", "last", cwd=project)
    assert here.returncode == 0, here.stderr
    assert json.loads(here.stdout)["epoch"] == 3


def test_a_recipe_planted_in_a_run_directory_is_not_imported(tmp_path):
    """A shared run directory whose config.yaml and recipe.json point into itself."""
    project, elsewhere = tmp_path / "project", tmp_path / "elsewhere"
    project.mkdir()
    elsewhere.mkdir()
    (project / "myrecipe.py").write_text(RECIPE)
    run = tmp_path / "shared"
    first = trainwell("train", "--recipe", "myrecipe:build", "--run-dir", str(run), "--quiet",
                      cwd=project)  # fmt: skip
    assert first.returncode == 0, first.stderr
    marker = tmp_path / "pwned"
    (run / "evil.py").write_text(f"open({str(marker)!r}, 'w').close()\ndef build(c): pass\n")
    config = (run / "config.yaml").read_text().replace("myrecipe:build", "evil:build")
    (run / "config.yaml").write_text(config)
    origin = {"recipe": "evil:build", "module": "evil", "file": str(run / "evil.py"),
              "sys_path": str(run)}  # fmt: skip
    (run / "recipe.json").write_text(json.dumps(origin))
    for command in (["resume"], ["eval"], ["export", "--format", "exported"]):
        refused = trainwell(*command, str(run), cwd=elsewhere)
        assert refused.returncode == 2, refused.stderr
        # resume takes the recipe from the checkpoint's config, eval and export from config.yaml:
        # each names what it would import, and imports nothing
        assert "names the recipe" in refused.stderr and "--trust-recipe" in refused.stderr
        if command != ["resume"]:
            assert "evil:build" in refused.stderr and str(run / "evil.py") in refused.stderr
        assert not marker.exists(), command
