"""Cross-file facts through package folders and through other files' training helpers."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.unit.doctor.test_cross_file import found, write

TRAINER = """
import torch


class Trainer:
    def __init__(self, model):
        self.model = model
        self.opt = torch.optim.SGD(model.parameters(), lr=0.1)

    def train(self, loader):
        self.model.train()
        for x, y in loader:
            self.opt.zero_grad()
            torch.nn.functional.cross_entropy(self.model(x), y).backward()
            self.opt.step()

    def eval(self, loader):
        self.model.eval()
        correct = 0
        for x, y in loader:
            correct += (self.model(x).argmax(1) == y).sum().item()
        return correct
"""

SCRIPT = """
import torch

from core.utils import Trainer

trainer = Trainer(torch.nn.Linear(4, 2))
for epoch in range(3):
    trainer.train(train_loader)
    acc = trainer.eval(test_loader)
"""


def test_a_package_folder_without_its_init_stands_for_its_one_module(tmp_path: Path) -> None:
    """``from core.utils import Trainer`` where ``core/utils/__init__.py`` is not there (a
    partial checkout): the one module of the folder that defines Trainer is meant."""
    write(tmp_path, "core/utils/train.py", TRAINER)
    write(tmp_path, "core/utils/context.py", "def ctx():\n    return None\n")
    script = write(tmp_path, "train.py", SCRIPT)
    assert found([script]) == {("train.py", 8, "TW012")}


def test_two_modules_that_define_the_name_leave_it_unknown(tmp_path: Path) -> None:
    write(tmp_path, "core/utils/train.py", TRAINER)
    write(tmp_path, "core/utils/other.py", TRAINER)
    script = write(tmp_path, "train.py", SCRIPT)
    assert found([script]) == set()


def test_a_package_init_that_exports_nothing_is_not_bypassed(tmp_path: Path) -> None:
    write(tmp_path, "core/__init__.py", "")
    write(tmp_path, "core/utils/__init__.py", "")
    write(tmp_path, "core/utils/train.py", TRAINER)
    script = write(tmp_path, "train.py", SCRIPT)
    assert found([script]) == set()


PROBE = """
import torch


def encode(loader, net):
    net.eval()
    with torch.no_grad():
        return torch.cat([net(x) for x, _ in loader])


def train_head(features, labels, dim, classes):
    head = torch.nn.Linear(dim, classes)
    opt = torch.optim.LBFGS(head.parameters())
    for _ in range(100):
        def closure():
            opt.zero_grad()
            loss = torch.nn.functional.cross_entropy(head(features), labels)
            loss.backward()
            return loss
        opt.step(closure)
    return head
"""

PRETRAIN = """
import torch

from probe import encode, train_head

net = torch.nn.Linear(4, 8)
opt = torch.optim.SGD(net.parameters(), lr=0.1)


def train(epoch):
    net.train()
    for x in loader:
        opt.zero_grad()
        net(x).pow(2).mean().backward()
        opt.step()


for epoch in range(10):
    train(epoch)
    features = encode(probe_loader, net)
    head = train_head(features, labels, {dim}, 3)
"""


def test_another_files_helper_that_trains_its_own_head_runs_no_caller_model(
    tmp_path: Path,
) -> None:
    """The linear probe of another file trains a head it builds itself: the encoder the
    caller left in eval() is not trained there (train(epoch) restores it next epoch)."""
    write(tmp_path, "probe.py", PROBE)
    script = write(tmp_path, "pretrain.py", PRETRAIN.format(dim=8))
    assert found([script]) == set()
    # handed the encoder itself, the helper may train it in eval mode
    write(tmp_path, "probe.py", PROBE.replace("head = torch.nn.Linear(dim, classes)", "head = dim"))
    script = write(tmp_path, "pretrain.py", PRETRAIN.format(dim="net"))
    assert found([script]) == {("pretrain.py", 19, "TW010")}  # at the eval() helper's call


BASE = """
import torch


class BaseTrainer:
    def evaluate(self, loader):
        self.model.eval()
        return sum((self.model(x).argmax(1) == y).sum().item() for x, y in loader)
"""

SUBCLASS = """
import torch

from base import BaseTrainer


class Trainer(BaseTrainer):
    def __init__(self, model):
        self.model = model
        self.opt = torch.optim.SGD(model.parameters(), lr=0.1)

    def fit(self, loader, val_loader):
        for epoch in range(3):
            self.model.train()
            for x, y in loader:
                self.opt.zero_grad()
                torch.nn.functional.cross_entropy(self.model(x), y).backward()
                self.opt.step()
            print(self.evaluate(val_loader))
"""


def test_a_method_inherited_from_a_class_of_another_file(tmp_path: Path) -> None:
    """``self.evaluate(...)`` that the class inherits from another file's base class runs
    that base's method: its evaluation without no_grad is said at the call."""
    write(tmp_path, "base.py", BASE)
    script = write(tmp_path, "train.py", SUBCLASS)
    assert found([script]) == {("train.py", 18, "TW012")}
    # overridden here: the subclass's own method is the one that runs
    own = (
        SUBCLASS
        + """
    def evaluate(self, loader):
        self.model.eval()
        with torch.no_grad():
            return [self.model(x) for x, _ in loader]
"""
    )
    script = write(tmp_path, "train.py", own)
    assert found([script]) == set()


INFERER = """
import torch


class Inferer:
    def __init__(self, model):
        self.model = model

    def __call__(self, loader):
        with torch.no_grad():
            self.model.eval()
        return [self.model(x).argmax(1).tolist() for x in loader]
"""


def test_calling_an_object_of_another_files_class_runs_its_dunder_call(tmp_path: Path) -> None:
    """``inferer(df)`` runs ``Inferer.__call__`` of another file: its forward runs after
    the ``with torch.no_grad()`` that only held the eval() has closed."""
    write(tmp_path, "infer.py", INFERER)
    script = write(
        tmp_path,
        "run.py",
        "import torch\n\nfrom infer import Inferer\n\n"
        "inferer = Inferer(torch.nn.Linear(4, 2))\npredictions = inferer(loader)\n",
    )
    assert found([script]) == {("run.py", 6, "TW012")}
    wrapped = script.read_text().replace(
        "predictions = inferer(loader)", "with torch.no_grad():\n    predictions = inferer(loader)"
    )
    script.write_text(wrapped)
    assert found([script]) == set()


SPEECH2TEXT = """
import torch

from models.base import ModelBase


class Speech2Text(ModelBase):
    def __init__(self):
        super().__init__()
        self.enc = torch.nn.Linear(8, 8)

    def forward(self, batch, is_eval=False):
        if is_eval:
            self.eval()
            with torch.no_grad():
                return self.enc(batch).sum()
        self.train()
        return self.enc(batch).sum()
"""

ASR_TRAIN = """
import torch

from models.speech2text import Speech2Text


def main(args):
    model = Speech2Text()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    if args.use_apex:
        from apex import amp

        model, optimizer = amp.initialize(model, optimizer)
    if args.distributed:
        model = torch.nn.parallel.DistributedDataParallel(model)
    train_one_epoch(model, optimizer)


def train_one_epoch(model, optimizer):
    for batch in loader:
        loss = model(batch)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    for batch in dev_loader:
        loss = model(batch, EVAL)
        print(loss.item())
"""


@pytest.mark.parametrize(("call", "expected"), [("is_eval=True", set()), ("", {25})])
def test_a_class_with_a_forward_over_a_base_not_in_the_checkout_is_a_model(
    tmp_path: Path, call: str, expected: set[int]
) -> None:
    """``class Speech2Text(ModelBase)`` with ``forward(self, batch, is_eval=False)``, its base
    in a file the checkout lacks: a model, whose forward turns autograd off when asked."""
    write(tmp_path, "models/speech2text.py", SPEECH2TEXT)
    script = write(
        tmp_path, "bin/train.py", ASR_TRAIN.replace(", EVAL", f", {call}" if call else "")
    )
    assert found([script]) == {("train.py", line, "TW012") for line in expected}


PPO_AGENT = """
import torch


class PPO(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.actor = torch.nn.Linear(3, 2)

    def get_action(self, x):
        return self.actor(x)
"""

SAC_AGENT = PPO_AGENT.replace("PPO", "SAC").replace(
    "return self.actor(x)", "return self.actor(x).tanh()"
)

MUJOCO_MAIN = """
import torch

from agents.ppo import PPO
from agents.sac import SAC

if args.algo == "ppo":
    agent = PPO()
elif args.algo == "sac":
    agent = SAC()
for step in range(1000):
    mu = agent.get_action(torch.as_tensor(state))
    state = env.step(mu.cpu().numpy())
"""


def test_an_agent_of_one_of_two_classes_of_other_files_acts_under_grad_mode(
    tmp_path: Path,
) -> None:
    """``agent`` is a PPO or a SAC (two files of ``agents/``, a folder without an
    ``__init__.py``): its ``get_action`` is either class's, a forward kept as numbers."""
    write(tmp_path, "agents/ppo.py", PPO_AGENT)
    write(tmp_path, "agents/sac.py", SAC_AGENT)
    script = write(tmp_path, "main.py", MUJOCO_MAIN)
    assert found([script]) == {("main.py", 11, "TW012")}
    guarded = MUJOCO_MAIN.replace(
        "    mu = agent.get_action(torch.as_tensor(state))",
        "    with torch.no_grad():\n        mu = agent.get_action(torch.as_tensor(state))",
    )
    script.write_text(guarded.lstrip("\n"))
    assert found([script]) == set()


EVAL_HELPER = """
def val_model(info_file, model):
    model.eval()
    correct = 0
    for x, y in load(info_file):
        correct += (model(x).argmax(1) == y).sum().item()
    model.train()
    return correct
"""

FROZEN_CALLER = """
import torch
from online_test import val_model

net = torch.nn.Linear(4, 2)
optimizer = torch.optim.SGD(net.parameters(), lr=0.1)


def val(net):
    for p in net.parameters():
        p.requires_grad = FREEZE
    accuracy = val_model("val.txt", net)
    for p in net.parameters():
        p.requires_grad = True
    return accuracy


for x, y in loader:
    optimizer.zero_grad()
    torch.nn.functional.cross_entropy(net(x), y).backward()
    optimizer.step()
    print(val(net))
"""


@pytest.mark.parametrize(("freeze", "expected"), [("False", set()), ("True", {11})])
def test_another_files_evaluation_of_a_model_frozen_just_before_records_no_graph(
    tmp_path: Path, freeze: str, expected: set[int]
) -> None:
    # every parameter of the model handed to the helper frozen just before the call, on
    # inputs the helper loads itself: no graph is recorded, nothing to wrap in no_grad
    write(tmp_path, "online_test.py", EVAL_HELPER)
    script = write(tmp_path, "train.py", FROZEN_CALLER.replace("FREEZE", freeze))
    lines = {line for name, line, code in found([script]) if code == "TW012"}
    assert lines == expected


WRAPPER_UTILS = """
import torch


def cc(net):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    return net.to(device)
"""

AE_MODEL = """
from torch import nn


class AE(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Linear(4, 4)

    def inference(self, x):
        return self.enc(x)
"""

INFERENCER = """
import torch
from model import AE
from utils import *


class Inferencer:
    def __init__(self):
        self.model = WRAP
        self.model.eval()

    def run(self, x):
        dec = self.model.inference(x)
        return dec.detach().cpu().numpy()


if __name__ == "__main__":
    print(Inferencer().run(torch.zeros(1, 4)))
"""


@pytest.mark.parametrize("wrap", ["cc(AE())", "AE()"])
def test_a_model_handed_back_by_another_files_wrapper_keeps_its_class(
    tmp_path: Path, wrap: str
) -> None:
    # cc(AE()) returns the model it is given: its inference() method is still known to run
    # the network, under grad mode here
    write(tmp_path, "utils.py", WRAPPER_UTILS)
    write(tmp_path, "model.py", AE_MODEL)
    script = write(tmp_path, "inference.py", INFERENCER.replace("WRAP", wrap))
    assert ("inference.py", 12, "TW012") in found([script])


SAMPLER = """
def generate_image(netG, batch_size, noise):
    samples = netG(noise)
    return samples.view(batch_size, 2, 2) * 0.5 + 0.5
"""

GAN_LOOP = """
import torch
import torchvision
from sampler import *

aG = torch.nn.Linear(4, 4)
opt = torch.optim.Adam(aG.parameters())
fixed_noise = torch.randn(4, 4)
for it, x in enumerate(loader):
    opt.zero_grad()
    aG(x).mean().backward()
    opt.step()
    if it % 100 == 0:
        images = generate_image(aG, 4, fixed_noise)
        USE
"""


@pytest.mark.parametrize(
    ("use", "expected"),
    [
        ('torchvision.utils.save_image(images, "s.png")', {13}),
        ("images.mean().backward()", set()),
    ],
)
def test_another_files_helper_returns_the_graph_of_the_model_it_is_given(
    tmp_path: Path, use: str, expected: set[int]
) -> None:
    # generate_image(aG, ...) runs the caller's model and returns its output: saved as an
    # image, the graph was built for nothing (said at the call); backpropagated, it is used
    write(tmp_path, "sampler.py", SAMPLER)
    script = write(tmp_path, "train.py", GAN_LOOP.replace("USE", use))
    assert {line for _, line, code in found([script]) if code == "TW012"} == expected


SWITCHED_SAMPLER = """
import torch


def generate_image(netG, batch_size, noise, training=False):
    if training:
        return netG(noise)
    with torch.no_grad():
        samples = netG(noise)
    return samples.view(batch_size, 2, 2)
"""


def test_a_helper_that_switches_autograd_itself_is_left_to_its_own_file(
    tmp_path: Path,
) -> None:
    # its graph reaches the caller only for some calls (training=True): not said at a call
    write(tmp_path, "sampler.py", SWITCHED_SAMPLER)
    use = 'torchvision.utils.save_image(images, "s.png")'
    script = write(tmp_path, "train.py", GAN_LOOP.replace("USE", use))
    assert {line for _, line, code in found([script]) if code == "TW012"} == set()
