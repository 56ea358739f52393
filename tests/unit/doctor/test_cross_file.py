"""Facts across the files of one run (imports of sibling modules), and trainwell's fit()."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from trainwell.doctor import check_paths, check_source

ROOT = Path(__file__).resolve().parents[3]

MODEL = """
import torch.nn.functional as F
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(10, 3)

    def forward(self, x):
        return F.softmax(self.fc(x), dim=1)


class SeqNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(10, 3), nn.Softmax(dim=1))

    def forward(self, x):
        return self.body(x)


class Plain(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(10, 3)

    def forward(self, x):
        return self.fc(x)
"""

TRAIN = """
import torch
from torch import nn

from {module} import {cls}

model = {cls}()
criterion = nn.{loss}()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for x, y in loader:
    optimizer.zero_grad()
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
"""
LOSS_LINE = 11

UTILS = """
import torch


def evaluate(model, loader):
    total = 0.0
    for x, y in loader:
        out = model(x)
        total += (out.argmax(1) == y).sum().item()
    return total


def validate(model, loader):
    model.eval()
    correct = 0
    for x, y in loader:
        out = model(x)
        correct += (out.argmax(1) == y).sum().item()
    model.train()
    return correct


@torch.no_grad()
def safe_validate(model, loader):
    model.eval()
    for x, y in loader:
        model(x)
    model.train()
"""
EVALUATE_FORWARD = 7  # out = model(x) in evaluate()
VALIDATE_FORWARD = 16  # out = model(x) in validate()

EVAL_SCRIPT = """
import torch
from torch import nn

from utils import evaluate, safe_validate, validate

model = nn.Linear(10, 3)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
criterion = nn.CrossEntropyLoss()
for epoch in range(3):
    model.train()
    for x, y in train_loader:
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
{evaluation}
"""


def write(directory: Path, name: str, text: str) -> Path:
    path = directory / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text.lstrip("\n"))
    return path


def found(paths: list[Path]) -> set[tuple[str, int, str]]:
    return {(Path(f.path).name, f.line, f.code) for f in check_paths(paths)}


# -- 1(a): a softmax model class defined in another file ----------------------------------
@pytest.mark.parametrize(
    ("cls", "loss", "code"),
    [
        ("Net", "CrossEntropyLoss", "TW007"),
        ("Net", "NLLLoss", "TW009"),
        ("SeqNet", "CrossEntropyLoss", "TW007"),  # nn.Softmax last in a Sequential
        ("SeqNet", "NLLLoss", "TW009"),
    ],
)
def test_softmax_model_from_another_file(tmp_path: Path, cls: str, loss: str, code: str) -> None:
    write(tmp_path, "model.py", MODEL)
    train = write(tmp_path, "train.py", TRAIN.format(module="model", cls=cls, loss=loss))
    assert found([tmp_path]) == {("train.py", LOSS_LINE, code)}
    # the sibling file is used even when only the script is named
    assert found([train]) == {("train.py", LOSS_LINE, code)}
    # one file on its own, without the project: nothing is known about Net
    assert check_source(train.read_text(), str(train)) == []


def test_model_without_softmax_from_another_file(tmp_path: Path) -> None:
    write(tmp_path, "model.py", MODEL)
    write(tmp_path, "train.py", TRAIN.format(module="model", cls="Plain", loss="CrossEntropyLoss"))
    assert found([tmp_path]) == set()


def test_import_module_and_attribute(tmp_path: Path) -> None:
    write(tmp_path, "model.py", MODEL)
    script = """
import torch
import torch.nn.functional as F

import model as M

net = M.Net()
plain = M.Plain()
optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
for x, y in loader:
    optimizer.zero_grad()
    loss = F.nll_loss(net(x), y) + F.cross_entropy(plain(x), y)
    loss.backward()
    optimizer.step()
"""
    write(tmp_path, "train.py", script)
    assert found([tmp_path]) == {("train.py", 11, "TW009")}


def test_relative_import_in_a_package(tmp_path: Path) -> None:
    pkg = tmp_path / "proj"
    write(pkg, "__init__.py", "")
    write(pkg, "models.py", MODEL)
    train = write(pkg, "train.py", TRAIN.format(module=".models", cls="Net", loss="NLLLoss"))
    assert found([train]) == {("train.py", LOSS_LINE, "TW009")}
    # an absolute import through the package, resolved among the checked files
    other = write(
        tmp_path / "scripts",
        "run.py",
        TRAIN.format(module="proj.models", cls="SeqNet", loss="CrossEntropyLoss"),
    )
    assert found([pkg, other]) == {
        ("train.py", LOSS_LINE, "TW009"),
        ("run.py", LOSS_LINE, "TW007"),
    }
    # proj/ neither checked nor a sibling, but in the folder above the script's: the
    # project's root, where ``python -m scripts.run`` (or an installed proj) finds it
    assert found([other]) == {("run.py", LOSS_LINE, "TW007")}
    elsewhere = write(tmp_path / "a" / "b" / "c", "run.py", other.read_text())
    assert found([elsewhere]) == set()  # three folders up: too far to be the project's


def test_subclass_of_an_imported_module_class(tmp_path: Path) -> None:
    write(tmp_path, "base.py", MODEL)
    write(
        tmp_path,
        "model.py",
        "import torch.nn.functional as F\nfrom base import Plain\n\n\n"
        "class Head(Plain):\n    def forward(self, x):\n        return F.softmax(x, 1)\n",
    )
    write(tmp_path, "train.py", TRAIN.format(module="model", cls="Head", loss="CrossEntropyLoss"))
    assert found([tmp_path]) == {("train.py", LOSS_LINE, "TW007")}


def test_local_definition_shadows_the_import(tmp_path: Path) -> None:
    write(tmp_path, "model.py", MODEL)
    script = TRAIN.format(module="model", cls="Net", loss="CrossEntropyLoss").replace(
        "model = Net()", "Net = make_net\nmodel = Net()"
    )
    write(tmp_path, "train.py", script)
    assert found([tmp_path]) == set()


def test_import_cycle_is_safe(tmp_path: Path) -> None:
    write(
        tmp_path, "a.py", "from b import helper\n\n\ndef other(model):\n    return helper(model)\n"
    )
    write(
        tmp_path, "b.py", "from a import other\n\n\ndef helper(model):\n    return other(model)\n"
    )
    write(tmp_path, "self_import.py", "import self_import\nfrom self_import import x\nx = 1\n")
    assert found([tmp_path]) == set()


# -- 1(b): an evaluation helper of another file --------------------------------------------
def test_helper_forward_after_callers_eval_is_reported_at_the_call(tmp_path: Path) -> None:
    # the caller decides whether the helper runs under no_grad: said where it calls it
    write(tmp_path, "utils.py", UTILS)
    evaluation = "    model.eval()\n    acc = evaluate(model, val_loader)\n"
    write(tmp_path, "train.py", EVAL_SCRIPT.format(evaluation=evaluation))
    assert found([tmp_path]) == {("train.py", 17, "TW012")}
    [finding] = check_paths([tmp_path])
    assert f"utils.py:{EVALUATE_FORWARD}" in finding.message


def test_helper_that_calls_eval_itself(tmp_path: Path) -> None:
    write(tmp_path, "utils.py", UTILS)
    evaluation = "    validate(model, val_loader)\n    safe_validate(model, val_loader)\n"
    write(tmp_path, "train.py", EVAL_SCRIPT.format(evaluation=evaluation))
    assert found([tmp_path]) == {("train.py", 16, "TW012")}
    # the helper alone: never called in its own file, so nothing (as within one file)
    assert found([tmp_path / "utils.py"]) == set()


def test_helper_outside_the_checked_paths_is_reported_at_the_call(tmp_path: Path) -> None:
    write(tmp_path, "utils.py", UTILS)
    evaluation = "    model.eval()\n    acc = evaluate(model, val_loader)\n    validate(model, x)\n"
    train = write(tmp_path, "train.py", EVAL_SCRIPT.format(evaluation=evaluation))
    findings = check_paths([train])
    assert {(f.line, f.code) for f in findings} == {(17, "TW012"), (18, "TW012")}
    assert all("utils.py" in f.message for f in findings)


def test_helper_of_an_unchecked_file_is_reported_once_per_evaluation(tmp_path: Path) -> None:
    # two calls in a row (train and test accuracy) are one evaluation: one finding, at the
    # first; a call in the epoch loop and one after it are two
    write(tmp_path, "utils.py", UTILS)
    evaluation = "validate(model, train_loader)\nvalidate(model, test_loader)\n"
    script = EVAL_SCRIPT.format(evaluation="    validate(model, val_loader)\n" + evaluation)
    train = write(tmp_path, "train.py", script)
    assert {(f.line, f.code) for f in check_paths([train])} == {(16, "TW012"), (17, "TW012")}


def test_one_helper_run_on_two_models_in_one_evaluation_is_two_findings(tmp_path: Path) -> None:
    # SWA: the model, then its running average, through one evaluation helper: two models,
    # two findings; the same helper and model twice is one (the test above)
    write(tmp_path, "utils.py", UTILS)
    evaluation = (
        "    swa_model = nn.Linear(10, 3)\n"
        "    validate(model, val_loader)\n"
        "    validate(swa_model, val_loader)\n"
        "    validate(swa_model, test_loader)\n"
    )
    train = write(tmp_path, "train.py", EVAL_SCRIPT.format(evaluation=evaluation))
    assert {(f.line, f.code) for f in check_paths([train])} == {(17, "TW012"), (18, "TW012")}


WRAPPER = """
import torch
from torch import nn


class Wrapper:
    def __init__(self):
        self.net = nn.Linear(4, 2)

    def switch_to_eval(self):
        self.net.eval()

    def evaluate(self, x, y):
        out = self.net.forward(x)
        return (out.argmax(1) == y).sum().item()
"""


def test_one_helper_of_another_file_run_on_two_test_sets_is_one_finding(tmp_path: Path) -> None:
    # MegaDepth's test(): the same method over the landscape and the portrait sets after one
    # switch to eval: one evaluation, one finding at its first call
    write(tmp_path, "wrapper.py", WRAPPER)
    script = (
        "from wrapper import Wrapper\n\n\n"
        "def test(model, set_a, set_b):\n"
        "    model.switch_to_eval()\n"
        "    for x, y in set_a:\n"
        "        print(model.evaluate(x, y))\n"
        "    for x, y in set_b:\n"
        "        print(model.evaluate(x, y))\n\n\n"
        "test(Wrapper(), landscape, portrait)\n"
    )
    write(tmp_path, "test_rmse.py", script)
    assert found([tmp_path / "test_rmse.py"]) == {("test_rmse.py", 7, "TW012")}


ARM_HELPERS = """
import torch.nn.functional as F


def train_full(model, opt, x, y):
    model.train()
    opt.zero_grad()
    F.cross_entropy(model(x), y).backward()
    opt.step()


def train_batches(model, opt, loader):
    for x, y in loader:
        train_full(model, opt, x, y)


def evaluate(model, x, y):
    model.eval()
    return (model(x).argmax(1) == y).sum().item()


def batch_evaluate(model, loader):
    model.eval()
    return sum((model(x).argmax(1) == y).sum().item() for x, y in loader)
"""


def test_two_helpers_in_the_arms_of_one_if_are_one_evaluation(tmp_path: Path) -> None:
    # SGL: full-batch or mini-batch training and evaluation, chosen by a flag: the arms are
    # one evaluation of one model, said once (at the first arm), like two branches of one
    # function; outside the if, each helper's evaluation is its own
    write(tmp_path, "helpers.py", ARM_HELPERS)
    script = (
        "import torch\n"
        "from helpers import batch_evaluate, evaluate, train_batches, train_full\n\n"
        "model = torch.nn.Linear(4, 2)\n"
        "opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "for epoch in range(3):\n"
        "    if full_batch:\n"
        "        train_full(model, opt, x, y)\n"
        "        acc = evaluate(model, x, y)\n"
        "    else:\n"
        "        train_batches(model, opt, loader)\n"
        "        acc = batch_evaluate(model, loader)\n"
        "    print(acc)\n"
    )
    write(tmp_path, "run.py", script)
    assert found([tmp_path / "run.py"]) == {("run.py", 9, "TW012")}


def test_helper_called_under_no_grad_is_fine(tmp_path: Path) -> None:
    write(tmp_path, "utils.py", UTILS)
    evaluation = (
        "    model.eval()\n    with torch.no_grad():\n"
        "        acc = evaluate(model, val_loader)\n        validate(model, val_loader)\n"
    )
    write(tmp_path, "train.py", EVAL_SCRIPT.format(evaluation=evaluation))
    assert found([tmp_path]) == set()


def test_helper_in_train_mode_is_inference_by_its_data_flow(tmp_path: Path) -> None:
    # evaluate() never calls eval(), but its forward only feeds .item(): inference under
    # autograd all the same, reported at the call that runs it with autograd on
    write(tmp_path, "utils.py", UTILS)
    write(tmp_path, "train.py", EVAL_SCRIPT.format(evaluation="    evaluate(model, val_loader)\n"))
    assert found([tmp_path]) == {("train.py", 16, "TW012")}


def test_helper_of_a_file_with_a_python2_line_is_still_followed(tmp_path: Path) -> None:
    # utils.py has a line Python 3 cannot read (TW000 there): the rest of it still counts
    utils = UTILS.replace(
        "        out = model(x)\n        total",
        "        x = x.cuda(async=True)\n        out = model(x)\n        total",
        1,
    )
    write(tmp_path, "utils.py", utils)
    write(tmp_path, "train.py", EVAL_SCRIPT.format(evaluation="    evaluate(model, val_loader)\n"))
    assert found([tmp_path]) == {("train.py", 16, "TW012"), ("utils.py", 7, "TW000")}


def test_helper_in_train_mode_called_under_no_grad_is_fine(tmp_path: Path) -> None:
    write(tmp_path, "utils.py", UTILS)
    evaluation = "    with torch.no_grad():\n        evaluate(model, val_loader)\n"
    write(tmp_path, "train.py", EVAL_SCRIPT.format(evaluation=evaluation))
    assert found([tmp_path]) == set()


def test_routed_finding_honours_noqa_and_ignore_of_the_helper(tmp_path: Path) -> None:
    utils = UTILS.replace(
        "        out = model(x)\n        total",
        "        out = model(x)  # noqa: TW012\n        total",
        1,
    )
    write(tmp_path, "utils.py", utils)
    evaluation = "    model.eval()\n    acc = evaluate(model, val_loader)\n    validate(model, x)\n"
    write(tmp_path, "train.py", EVAL_SCRIPT.format(evaluation=evaluation))
    # evaluate()'s forward is marked noqa: its call at :17 is silenced; validate()'s stands
    assert found([tmp_path]) == {("train.py", 18, "TW012")}
    assert check_paths([tmp_path], ignore="TW012") == []


def test_cross_file_mode_leak(tmp_path: Path) -> None:
    # a helper of another file that leaves the model in eval() before the next epoch trains
    write(tmp_path, "utils.py", "def freeze(model):\n    model.eval()\n")
    script = EVAL_SCRIPT.format(evaluation="    freeze(model)\n").replace("    model.train()\n", "")
    script = script.replace("evaluate, safe_validate, validate", "freeze")
    write(tmp_path, "train.py", script)
    assert found([tmp_path]) == {("train.py", 15, "TW010")}
    write(tmp_path, "utils.py", "def freeze(model):\n    model.eval()\n    model.train()\n")
    assert found([tmp_path]) == set()


# -- 2: trainwell's fit(step_fn=...) --------------------------------------------------------
STEP_BAD = """
import torch.nn.functional as F

import trainwell as tw

history = []


def step(model, batch):
    x, y = batch
    model.eval()
    loss = F.cross_entropy(model(x), y)
    history.append(loss)
    return loss


my_step = step
result = tw.fit(model, data, step_fn=my_step)
"""

STEP_OK = """
import torch
import torch.nn.functional as F

from trainwell import fit

history = []


def step(model, batch):
    x, y = batch
    model.eval()
    with torch.no_grad():
        teacher_out = model(x)
    model.train()
    loss = F.cross_entropy(model(x), y)
    history.append(loss.item())
    parts = []
    parts.append(loss)
    with torch.no_grad():
        history.append(loss)
    return loss


def not_a_step(model, batch):
    history.append(F.cross_entropy(model(batch[0]), batch[1]))


result = fit(model, data, step_fn=step)
fit(model, data, step_fn=lambda model, batch: F.cross_entropy(model(batch[0]), batch[1]))
"""


def test_step_fn_eval_and_kept_loss(tmp_path: Path) -> None:
    path = write(tmp_path, "fit_bad.py", STEP_BAD)
    findings = check_paths([path])
    assert {(f.line, f.code) for f in findings} == {(10, "TW010"), (12, "TW011")}
    assert all("step_fn" in f.message for f in findings)


def test_step_fn_in_a_function_with_a_nested_step(tmp_path: Path) -> None:
    script = (
        "import trainwell\n\n\ndef main(model, data):\n    losses = []\n\n"
        "    def step_fn(model, batch):\n        loss = model(batch).loss\n"
        "        losses.append(loss)\n        return loss\n\n"
        "    trainwell.fit(model, data, step_fn=step_fn)\n"
    )
    assert {(f.line, f.code) for f in check_source(script)} == {(9, "TW011")}


def test_step_fn_negatives(tmp_path: Path) -> None:
    assert check_paths([write(tmp_path, "fit_ok.py", STEP_OK)]) == []
    # the same function, not given to fit(): no loop, so nothing is kept across iterations
    not_passed = STEP_BAD.replace("result = tw.fit(model, data, step_fn=my_step)\n", "")
    assert check_source(not_passed) == []


STRATEGY = """
import torch
import trainwell as tw

precision = tw.Precision("fp16", "cuda")
for epoch in range(3):
    for step, (x, y) in enumerate(loader):
        loss = criterion(model(x), y){divide}
        strategy.backward(loss, precision, model, last=True)
        if (step + 1) % 4 == 0:
            precision.unscale_(optimizer){clip}
            precision.step(optimizer)
            optimizer.zero_grad()
"""


def test_strategy_backward_is_a_backward_of_the_loss() -> None:
    clip = "\n            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)"
    bad = STRATEGY.format(divide="", clip=clip).replace("precision.unscale_(optimizer)", "pass")
    assert {(f.line, f.code) for f in check_source(bad)} == {(9, "TW017"), (12, "TW006")}
    good = STRATEGY.format(divide=" / 4", clip=clip)
    assert check_source(good) == []


def test_docs_examples_and_readme_are_clean() -> None:
    examples = sorted((ROOT / "docs" / "examples").glob("*.py"))
    assert examples
    for path in examples:
        assert check_source(path.read_text(), str(path)) == [], path
    readme = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", readme, re.S)
    assert blocks
    for block in blocks:
        assert check_source(block) == [], block


# -- a metric helper of another file reads its inputs as numbers ------------------------
METRICS = """
import torch


def count_accuracy(logits, label):
    pred = torch.argmax(logits, dim=1).view(-1)
    return 100 * pred.eq(label.view(-1)).float().mean()


def keep(logits, label):
    return bank.store(logits, label)
"""

VALIDATE_WITH = """
import torch
import torch.nn.functional as F

from metrics import {helper}

model = torch.nn.Linear(4, 2)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(3):
    for x, y in train_loader:
        optimizer.zero_grad()
        F.cross_entropy(model(x), y).backward()
        optimizer.step()
    for x, y in val_loader:
        logits = model(x)
        print(F.cross_entropy(logits, y).item(), {helper}(logits, y))
"""


def test_graph_read_as_numbers_by_a_helper_of_another_file(tmp_path: Path) -> None:
    # count_accuracy() only takes an argmax: the validation forward's graph is for nothing
    write(tmp_path, "metrics.py", METRICS)
    train = write(tmp_path, "train.py", VALIDATE_WITH.format(helper="count_accuracy"))
    assert {(f.line, f.code) for f in check_paths([train])} == {(14, "TW012")}


def test_graph_kept_by_a_helper_of_another_file_is_used(tmp_path: Path) -> None:
    # keep() hands the graph-carrying logits to code out of sight, which may train on them
    write(tmp_path, "metrics.py", METRICS)
    train = write(tmp_path, "train.py", VALIDATE_WITH.format(helper="keep"))
    assert check_paths([train]) == []


# -- a model of another file that takes input gradients (a Hamiltonian net) -------------
HNN = """
import torch


class HNN(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Linear(2, 2)

    def forward(self, x):
        return self.net(x)

    def time_derivative(self, x):
        F = self.forward(x)
        return torch.autograd.grad(F.sum(), x, create_graph=True)[0]


class PixelHNN(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.hnn = HNN()

    def forward(self, x):
        return self.hnn.time_derivative(x)
"""

HNN_SCRIPT = """
import os
import sys

import torch

sys.path.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from hnn import {cls}

model = {cls}()
optimizer = torch.optim.Adam(model.parameters())


def hnn_loss(x, model):
    return (model(x) - x).pow(2).mean()


for step in range(100):
    loss = hnn_loss(x, model)
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
    if step % 10 == 0:
        print(hnn_loss(test_x, model).item())
"""


def test_validation_of_a_model_that_takes_input_gradients_needs_autograd(tmp_path: Path) -> None:
    # PixelHNN builds an HNN, whose time_derivative() calls torch.autograd.grad; the script
    # sits in a subfolder and imports it from the folder above through sys.path
    write(tmp_path, "hnn.py", HNN)
    script = write(tmp_path / "experiment", "train.py", HNN_SCRIPT.format(cls="PixelHNN"))
    assert check_paths([script]) == []


def test_validation_of_a_plain_model_of_the_folder_above_is_inference(tmp_path: Path) -> None:
    plain = HNN.replace("torch.autograd.grad(F.sum(), x, create_graph=True)[0]", "F")
    write(tmp_path, "hnn.py", plain)
    script = write(tmp_path / "experiment", "train.py", HNN_SCRIPT.format(cls="PixelHNN"))
    assert {(f.line, f.code) for f in check_paths([script])} == {(23, "TW012")}


# -- a loss helper of another file that detaches a forward for its target ---------------
LOSSES = """
import torch


def compute_g_loss(nets, x, s):
    fake = nets.generator(x, s)
    fake2 = nets.generator(x, s.flip(0)).detach()
    loss = (fake - x).abs().mean() - (fake - fake2).abs().mean()
    return loss, loss.item()
"""

GAN_SCRIPT = """
import torch

from losses import compute_g_loss

for x, s in loader:
    loss, value = compute_g_loss(nets, x, s)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
"""


def test_a_detached_forward_returned_in_a_loss_is_left_to_the_callers(tmp_path: Path) -> None:
    # the detached generator output is the diversity term's target: the caller trains on it
    write(tmp_path, "losses.py", LOSSES)
    script = write(tmp_path, "train.py", GAN_SCRIPT)
    assert check_paths([script]) == []


# -- a plain class of another file: what its methods do ---------------------------------
ENGINE = """
import torch


class Trainer:
    def __init__(self, model, lr):
        self.model = model
        self.optimizer = torch.optim.Adam(model.parameters(), lr=lr)

    def train(self, x, y):
        self.model.train()
        self.optimizer.zero_grad()
        loss = (self.model(x) - y).abs().mean()
        loss.backward()
        self.optimizer.step()
        return loss.item()

    def eval(self, x, y):
        self.model.eval()
        out = self.model(x)
        return (out - y).abs().mean().item()
"""

ENGINE_SCRIPT = """
import torch

from engine import Trainer

engine = Trainer(torch.nn.Linear(4, 1), 0.001)
for epoch in range(10):
    for x, y in train_loader:
        engine.train(x, y)
    for x, y in val_loader:
{validation}
"""


def test_evaluating_method_of_a_class_of_another_file(tmp_path: Path) -> None:
    write(tmp_path, "engine.py", ENGINE)
    train = write(
        tmp_path, "train.py", ENGINE_SCRIPT.format(validation="        engine.eval(x, y)")
    )
    findings = check_paths([train])
    assert {(f.line, f.code) for f in findings} == {(10, "TW012")}
    assert "engine.py" in findings[0].message


def test_evaluating_method_of_a_class_of_another_file_under_no_grad(tmp_path: Path) -> None:
    write(tmp_path, "engine.py", ENGINE)
    validation = "        with torch.no_grad():\n            engine.eval(x, y)"
    train = write(tmp_path, "train.py", ENGINE_SCRIPT.format(validation=validation))
    assert check_paths([train]) == []


def test_a_loss_module_of_another_file_is_a_criterion(tmp_path: Path) -> None:
    # CrossEntropyLoss2d(nn.Module): its call is the loss, not a model's inference
    losses = (
        "import torch.nn.functional as F\nfrom torch import nn\n\n\n"
        "class CrossEntropyLoss2d(nn.Module):\n    def forward(self, out, y):\n"
        "        return F.cross_entropy(out, y)\n"
    )
    write(tmp_path, "losses.py", losses)
    script = """
import torch

from losses import CrossEntropyLoss2d

model = torch.nn.Conv2d(3, 4, 1)
criterion = CrossEntropyLoss2d()
optimizer = torch.optim.Adam(model.parameters())
for x, y in loader:
    optimizer.zero_grad()
    criterion(model(x), y).backward()
    optimizer.step()
with torch.no_grad():
    val_out = model(val_x)
print(criterion(val_out, val_y).item())
"""
    train = write(tmp_path, "train.py", script)
    assert check_paths([train]) == []


# -- a module of the project's code folder, put on sys.path by tools/_init_paths.py -------
EVAL_UTILS = """
def eval_split(loader, model, split):
    model.eval()
    scores = []
    for feats, labels in loader:
        scores.append(model(feats).data.cpu().numpy())
    return scores
"""

TOOLS_TRAIN = """
import _init_paths
import models.eval_utils as eval_utils
import torch

for epoch in range(10):
    model.train()
    for feats, labels in loader:
        loss = criterion(model(feats), labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    eval_utils.eval_split(val_loader, model, "val")
"""


def test_a_module_of_the_lib_folder_imported_after_init_paths(tmp_path: Path) -> None:
    # MAttNet: tools/_init_paths.py puts ../lib on sys.path; lib/models/eval_utils.py's
    # evaluation runs without no_grad, said at its call in tools/train.py
    write(tmp_path / "lib" / "models", "eval_utils.py", EVAL_UTILS)
    write(tmp_path / "tools", "_init_paths.py", "import sys\nsys.path.insert(0, '../lib')\n")
    script = write(tmp_path / "tools", "train.py", TOOLS_TRAIN)
    assert found([script]) == {("train.py", 12, "TW012")}


# -- a helper of another file runs a method the model's class runs under no_grad ---------
NET_WITH_PREDICT = """
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        return self.fc(x)

    {decorator}
    def predict(self, x):
        return self.fc(x).argmax(1), None
"""

PREDICT_HELPER = """
def test(model, X, accuracy):
    model.eval()
    out, _ = model.predict(X)
    accuracy.append(out.cpu().numpy().mean())
    return accuracy
"""

PREDICT_MAIN = """
import torch
from models.net import Net
from models.helpers import test

model = Net()
opt = torch.optim.Adam(model.parameters())
acc = []
for epoch in range(10):
    model.train()
    opt.zero_grad()
    model(X).sum().backward()
    opt.step()
    acc = test(model, X, acc)
"""


@pytest.mark.parametrize(("decorator", "expected"), [("@torch.no_grad()", set()), ("", {13})])
def test_a_helper_calling_a_no_grad_method_of_the_model_passed(
    tmp_path: Path, decorator: str, expected: set[int]
) -> None:
    # fastgcn-pytorch: test(model, ...) in models/helper_functions.py calls model.predict,
    # which FastGCNv2 decorates with @torch.no_grad(): no graph is recorded
    write(tmp_path / "models", "net.py", NET_WITH_PREDICT.format(decorator=decorator))
    write(tmp_path / "models", "helpers.py", PREDICT_HELPER)
    script = write(tmp_path, "main.py", PREDICT_MAIN)
    assert {f.line for f in check_paths([script]) if f.code == "TW012"} == expected
