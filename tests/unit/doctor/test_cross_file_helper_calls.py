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


RENDERER = """
import numpy as np
import torch


def plot_sdf(sdf_func, grid, is_net=False):
    if not is_net:
        sdf_map = [[sdf_func(np.float64([x, y])) for x in grid] for y in grid]
    else:
        sdf_func.eval()
        with torch.no_grad():
            sdf_map = [[sdf_func(torch.tensor([[x, y]])).cpu() for x in grid] for y in grid]
    save_image(np.array(sdf_map))
"""

TRAINER = """
import torch
from renderer import plot_sdf

model = SDFNet()
optimizer = torch.optim.Adam(model.parameters())
for x, y in loader:
    optimizer.zero_grad()
    torch.nn.functional.mse_loss(model(x), y).backward()
    optimizer.step()
model.eval()
plot_sdf(model, grid, is_net={is_net})
"""


def test_an_arm_the_calls_literal_rules_out_runs_no_forward(tmp_path: Path) -> None:
    # plot_sdf(model, is_net=True) runs the network under its own no_grad: the other arm's
    # sdf_func(point) is for plain functions and never runs for this call
    renderer = write(tmp_path, "renderer.py", RENDERER)
    trainer = write(tmp_path, "trainer.py", TRAINER.format(is_net="True"))
    assert found([renderer, trainer]) == set()


def test_the_arm_the_calls_literal_takes_runs_its_forward(tmp_path: Path) -> None:
    renderer = write(tmp_path, "renderer.py", RENDERER)
    trainer = write(tmp_path, "trainer.py", TRAINER.format(is_net="False"))
    assert found([renderer, trainer]) == {("trainer.py", 11, "TW012")}


UTILS = """
import torch


def test_topk(model, loader):
    model.eval()
    hits = 0
    for x, y in loader:
        hits += (model(x).argmax(1) == y).sum().item()
    return hits


def train_one_epoch(model, loader, criterion, optimizer):
    model.train()
    for x, y in loader:
        optimizer.zero_grad()
        criterion(model(x), y).backward()
        optimizer.step()
"""

PRUNE = """
import torch
from utils import test_topk, train_one_epoch

print(test_topk(model, test_loader))
print(test_topk(model, val_loader))
for epoch in range(3):
    train_one_epoch(model, train_loader, criterion, optimizer)
model.load_state_dict(torch.load("best.pth", weights_only=True))
print(test_topk(model, test_loader))
"""


def test_an_evaluation_before_fine_tuning_and_one_after_are_two(tmp_path: Path) -> None:
    # the two calls in a row before training are one evaluation; the one after is another
    paths = [write(tmp_path, "utils.py", UTILS), write(tmp_path, "prune.py", PRUNE)]
    assert found(paths) == {("prune.py", 4, "TW012"), ("prune.py", 9, "TW012")}


TRAINER_EVAL = """
import torch


class Trainer:
    def eval(self, loader, adversarial=False):
        self.model.eval()
        acc = 0.0
        for x, y in loader:
            if adversarial:
                out = self.model(self.attack(x, y))
            else:
                out = self.model(x)
            acc += (out.argmax(1) == y).float().mean().item()
        return acc / len(loader)
"""


def test_the_forward_of_the_arm_a_default_takes(tmp_path: Path) -> None:
    # trainer.eval(loader) leaves adversarial=False: the other arm's forward runs, its twin
    script = (
        "from trainer import Trainer\n\ntrainer = Trainer()\nprint(trainer.eval(test_loader))\n"
    )
    paths = [write(tmp_path, "trainer.py", TRAINER_EVAL), write(tmp_path, "run.py", script)]
    assert found(paths) == {("run.py", 4, "TW012")}
