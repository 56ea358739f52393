"""TW012 of a training function of another file that evaluates too (``train_model(model,
...)`` of a ``utilities.py``: each epoch trains, then ``model.eval()`` and a test loop
without no_grad). Its own evaluation stands whoever calls it; with that file among the
checked paths it is said at its forward, and with the file outside the run at the call of
the checked script, the one place the user sees it."""

from __future__ import annotations

from pathlib import Path

from trainwell.doctor import check_paths

UTILITIES = """
import torch


def train_model(model, epochs, trainloader, testloader, optimizer, loss_function):
    for i in range(epochs):
        model.train()
        for inputs, targets in trainloader:
            optimizer.zero_grad()
            loss = loss_function(model(inputs), targets)
            loss.backward()
            optimizer.step()
        model.eval()
        test_loss = 0.0
        for inputs, targets in testloader:
            outputs = model(inputs)
            test_loss += loss_function(outputs, targets).item()
        print(i, test_loss)
"""

GUARDED = UTILITIES.replace(
    "        for inputs, targets in testloader:\n            outputs",
    "        for inputs, targets in testloader:\n            with torch.no_grad():\n"
    "                outputs",
)

SCRIPT = """
import torch
from utilities import train_model

model = torch.nn.Linear(4, 2)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
train_model(model, 3, [], [], optimizer, torch.nn.CrossEntropyLoss())
"""


def write(directory: Path, name: str, text: str) -> Path:
    path = directory / name
    path.write_text(text.lstrip("\n"))
    return path


def found(paths: list[Path]) -> set[tuple[str, int, str]]:
    return {(Path(f.path).name, f.line, f.code) for f in check_paths(paths, select="TW012")}


def test_said_at_the_call_when_the_training_functions_file_is_not_checked(
    tmp_path: Path,
) -> None:
    write(tmp_path, "utilities.py", UTILITIES)
    script = write(tmp_path, "train.py", SCRIPT)
    findings = check_paths([script], select="TW012")
    assert {(Path(f.path).name, f.line) for f in findings} == {("train.py", 6)}
    assert "train_model() (in " in findings[0].message
    assert "utilities.py:15" in findings[0].message


def test_said_at_its_forward_when_the_file_is_checked_too(tmp_path: Path) -> None:
    utilities = write(tmp_path, "utilities.py", UTILITIES)
    script = write(tmp_path, "train.py", SCRIPT)
    assert found([script, utilities]) == {("utilities.py", 15, "TW012")}


def test_nothing_at_the_call_when_its_evaluation_runs_under_no_grad(tmp_path: Path) -> None:
    write(tmp_path, "utilities.py", GUARDED)
    script = write(tmp_path, "train.py", SCRIPT)
    assert found([script]) == set()


PROTOTYPES = """
import torch


def fine_tune(encoder, head, support, labels, steps):
    encoder.eval()
    features = encoder(support)
    head.init_from_prototypes(features)
    encoder.train()
    optimizer = torch.optim.SGD(head.parameters(), lr=0.1)
    for _ in range(steps):
        optimizer.zero_grad()
        torch.nn.functional.cross_entropy(head(encoder(support)), labels).backward()
        optimizer.step()
"""


def test_an_eval_forward_before_its_first_training_step_prepares_the_training(
    tmp_path: Path,
) -> None:
    # (prototypes for the head's first weights: said in its own file when that is checked)
    write(tmp_path, "finetune.py", PROTOTYPES)
    script = write(
        tmp_path, "main.py", "from finetune import fine_tune\n\nfine_tune(net, head, xs, ys, 5)\n"
    )
    assert found([script]) == set()


def test_the_callers_own_forward_after_the_training_call_is_another_evaluation(
    tmp_path: Path,
) -> None:
    write(tmp_path, "utilities.py", UTILITIES)
    script = write(tmp_path, "train.py", SCRIPT + "print(model(torch.randn(1, 4)).argmax(1))\n")
    assert found([script]) == {("train.py", 6, "TW012"), ("train.py", 7, "TW012")}
