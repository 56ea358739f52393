"""TW012 of another file's inference helper that this file calls inside a helper of its own
(``get_validation_loss()`` -> ``score_model(...)``): said once, at that inner call, the
one place every evaluation of the file goes through."""

from __future__ import annotations

from pathlib import Path

from trainwell.doctor import check_paths

VALIDATION = """
def score_model(model, loss_function, datagen):
    batch_gen, steps = datagen
    partial = []
    for batch_id, (x, y) in enumerate(batch_gen):
        partial.append(loss_function(model(x), y))
        if batch_id == steps:
            break
    return sum(partial) / steps
"""

CALLBACKS = """
import torch
from validation import score_model


class Callback:
    def get_validation_loss(self):
        if self.epoch not in self.validation_loss:
            self.validation_loss[self.epoch] = score_model(self.model, self.loss, self.batches)
        return self.validation_loss[self.epoch]


class Monitor(Callback):
    def on_epoch_end(self):
        self.model.eval()
        print(self.get_validation_loss().data.cpu().numpy())
        self.model.train()

    def report(self):
        self.model.eval()
        loss = self.get_validation_loss()
        self.model.train()
        return loss.data.cpu().numpy()

    def log(self):
        print(self.report())
"""


def write(directory: Path, name: str, text: str) -> Path:
    path = directory / name
    path.write_text(text.lstrip("\n"))
    return path


def found(paths: list[Path]) -> set[tuple[str, int, str]]:
    return {(Path(f.path).name, f.line, f.code) for f in check_paths(paths, select="TW012")}


def test_said_at_the_call_inside_this_files_helper(tmp_path: Path) -> None:
    paths = [
        write(tmp_path, "validation.py", VALIDATION),
        write(tmp_path, "callbacks.py", CALLBACKS),
    ]
    assert found(paths) == {("callbacks.py", 8, "TW012")}


def test_the_helper_under_no_grad_inside(tmp_path: Path) -> None:
    guarded = CALLBACKS.replace(
        "            self.validation_loss[self.epoch] = score_model(",
        "            with torch.no_grad():\n"
        "                self.validation_loss[self.epoch] = score_model(",
    )
    paths = [write(tmp_path, "validation.py", VALIDATION), write(tmp_path, "callbacks.py", guarded)]
    assert found(paths) == set()
