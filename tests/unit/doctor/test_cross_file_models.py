"""TW012 across files: a model's own methods, package imports, and whose call decides."""

from __future__ import annotations

import ast
from pathlib import Path

from trainwell.doctor import check_paths

MODELS = """
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        return self.fc(x)

    def predict(self, x):
        self.eval()
        return self(x).argmax(1)

    def sample(self, n):
        z = torch.randn(n, 4)
        return self.fc(z).detach().cpu().numpy()

    def loss(self, x, y):
        return nn.functional.cross_entropy(self(x), y)

    def train(self, mode=True):
        super().train(mode)
        return self
"""

SCRIPT = """
import torch
from models import Net

net = Net()
opt = torch.optim.SGD(net.parameters(), lr=0.1)
for x, y in loader:
    net.train()
    loss = net.loss(x, y)
    opt.zero_grad()
    loss.backward()
    opt.step()
{after}
"""
AFTER_LINE = 12


def write(directory: Path, name: str, text: str) -> Path:
    path = directory / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text.lstrip("\n"))
    return path


def lines(paths: list[Path]) -> set[tuple[str, int, str]]:
    return {(Path(f.path).name, f.line, f.code) for f in check_paths(paths)}


def test_inference_method_of_a_model_of_another_file(tmp_path: Path) -> None:
    # predict() sets eval() and runs self(x) without no_grad: said at the call
    write(tmp_path, "models.py", MODELS)
    train = write(tmp_path, "train.py", SCRIPT.format(after="print(net.predict(x))"))
    assert lines([train]) == {("train.py", AFTER_LINE, "TW012")}


def test_sampling_method_of_a_model_of_another_file_by_data_flow(tmp_path: Path) -> None:
    # sample() never calls eval(): its forward is read as NumPy inside, a discard
    write(tmp_path, "models.py", MODELS)
    train = write(tmp_path, "train.py", SCRIPT.format(after="images = net.sample(16)"))
    assert lines([train]) == {("train.py", AFTER_LINE, "TW012")}


def test_model_methods_of_another_file_under_no_grad_or_trained_on(tmp_path: Path) -> None:
    write(tmp_path, "models.py", MODELS)
    after = "with torch.no_grad():\n    print(net.predict(x))\n    images = net.sample(16)"
    train = write(tmp_path, "train.py", SCRIPT.format(after=after))
    # the loss() method's graph is trained on; an overridden train() is still nn.Module's
    assert lines([train]) == set()


def test_a_models_own_method_in_this_file() -> None:
    from trainwell.doctor import check_source

    source = MODELS + SCRIPT.format(after="print(net.predict(x))\nprint(net.sample(3))").replace(
        "from models import Net\n", ""
    )
    found = [(f.line, f.code) for f in check_source(source, "a.py")]
    # one finding for the model's inference block, at its first method call
    first = source.splitlines().index("print(net.predict(x))") + 1
    assert found == [(first, "TW012")]


def test_absolute_import_of_the_package_a_file_sits_in(tmp_path: Path) -> None:
    # inclearn/models/icarl.py: ``from inclearn.lib import utils`` (the root is above inclearn/)
    helper = """
def extract_features(model, loader):
    model.eval()
    feats = [model(x).detach().cpu().numpy() for x, _ in loader]
    model.train()
    return feats
"""
    script = """
import torch
from inclearn.lib import utils


def fit(model, loader, opt):
    for x, y in loader:
        loss = model(x).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
    return utils.extract_features(model, loader)


fit(net, train_loader, optimizer)
"""
    write(tmp_path / "inclearn" / "lib", "utils.py", helper)
    train = write(tmp_path / "inclearn" / "models", "icarl.py", script)
    assert lines([train]) == {("icarl.py", 11, "TW012")}


def test_another_files_helper_in_an_uncalled_function_is_left_to_its_callers(
    tmp_path: Path,
) -> None:
    helper = "def evaluate(model, x):\n    model.eval()\n    return model(x).argmax(1)\n"
    write(tmp_path, "utils.py", helper)
    script = """
import torch
from utils import evaluate


class Learner:
    def plot(self, x):
        return evaluate(self.net, x)

    def test(self, x):
        with torch.no_grad():
            return self.plot(x)


def report(net, x):
    return evaluate(net, x)


report(model, batch)
"""
    train = write(tmp_path, "learner.py", script)
    # plot() is only called under no_grad; report() is called with autograd on
    assert lines([train]) == {("learner.py", 15, "TW012")}


LOGGER = """
import torch


class Logger:
    def __init__(self):
        self.accuracies = []

    def log(self, model, x, y):
        self.accuracies.append(self.get_accuracy(model, x, y))

    def get_accuracy(self, model, x, y):
        model.eval()
        correct = (model(x).argmax(1) == y).float().mean().item()
        model.train()
        return correct
"""


def test_a_helper_that_another_files_method_calls_is_followed(tmp_path: Path) -> None:
    # logger.log() runs self.get_accuracy(), whose forward is inference: said at the call
    write(tmp_path, "logger.py", LOGGER)
    script = """
import torch
from logger import Logger

logger = Logger()
for x, y in loader:
    loss = net(x).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
    logger.log(net, x, y)
with torch.no_grad():
    logger.log(net, x, y)
"""
    train = write(tmp_path, "main.py", script)
    assert lines([train]) == {("main.py", 10, "TW012")}


def test_a_module_of_a_subfolder_imports_from_the_entry_scripts_folder(tmp_path: Path) -> None:
    # pytorch/trainer/meta.py, run through pytorch/main.py: ``from models.mtl import ...``
    models = """
import torch
from torch import nn


class MtlLearner(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x, y):
        loss = nn.functional.cross_entropy(self.fc(x), y)
        grad = torch.autograd.grad(loss, self.fc.parameters())
        return self.fc(x) - grad[1]
"""
    trainer = """
import torch
from models.mtl import MtlLearner


class MetaTrainer:
    def __init__(self):
        self.model = MtlLearner()

    def val(self, loader):
        self.model.eval()
        for x, y in loader:
            print(self.model(x, y).argmax(1))


MetaTrainer().val(val_loader)
"""
    write(tmp_path / "pytorch" / "models", "mtl.py", models)
    script = write(tmp_path / "pytorch" / "trainer", "meta.py", trainer)
    # the model's forward takes input gradients (its own inner loop): autograd is needed
    assert lines([script]) == set()
    (tmp_path / "pytorch" / "models" / "mtl.py").unlink()
    unknown = "self.model(...) runs after self.model.eval()"
    assert any(unknown in f.message for f in check_paths([script]))


def test_a_train_or_evaluate_call_before_the_training_loop_stands(tmp_path: Path) -> None:
    # train_model() trains on every call (its epoch loop), so its first validation call,
    # before any training, is inference whoever calls train_model()
    script = """
import torch


def run_loop(loop_type, loader, model, opt):
    is_train = loop_type == "train"
    model.train() if is_train else model.eval()
    for x, y in loader:
        loss = torch.nn.functional.cross_entropy(model(x), y)
        if is_train:
            opt.zero_grad()
            loss.backward()
            opt.step()
    return loss.item()


def train_model(model, opt, train_loader, val_loader, epochs):
    best = run_loop("val", val_loader, model, None)
    for epoch in range(epochs):
        run_loop("train", train_loader, model, opt)
        with torch.no_grad():
            best = max(best, run_loop("val", val_loader, model, None))
    return best
"""
    train = write(tmp_path, "train.py", script)
    assert lines([train]) == {("train.py", 17, "TW012")}


def test_a_star_import_brings_the_modules_classes_and_functions(tmp_path: Path) -> None:
    # ``from net_pbc import *``: the PINN wrapper and its predict() come with it
    net = """
import torch


class DNN(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(2, 1)

    def forward(self, x):
        return self.fc(x)


class PINN:
    def __init__(self, checkpoint=None):
        if checkpoint is None:
            self.dnn = DNN()
        else:
            self.dnn = torch.load(checkpoint, weights_only=False).dnn
        self.optimizer = torch.optim.Adam(self.dnn.parameters())

    def train(self, x, y):
        self.dnn.train()
        self.optimizer.zero_grad()
        (self.dnn(x) - y).pow(2).mean().backward()
        self.optimizer.step()

    def predict(self, x):
        self.dnn.eval()
        return self.dnn(x).detach().cpu().numpy()

    def _private(self):
        pass
"""
    write(tmp_path, "net_pbc.py", net)
    script = "from net_pbc import *\n\nmodel = PINN()\nmodel.train(x, y)\nu = model.predict(x)\n"
    train = write(tmp_path, "main_pbc.py", script)
    # self.dnn is a DNN or a loaded model: a model either way
    assert lines([train]) == {("main_pbc.py", 5, "TW012")}


def test_an_evaluation_helper_of_a_package_module_with_named_networks(tmp_path: Path) -> None:
    # train/test.py: test(feature_extractor, class_classifier, ...) calls eval() on both
    helper = """
def test(feature_extractor, class_classifier, loader):
    feature_extractor.eval()
    class_classifier.eval()
    correct = 0
    for x, y in loader:
        out = class_classifier(feature_extractor(x))
        correct += out.data.max(1)[1].eq(y).sum()
    return correct
"""
    write(tmp_path / "train", "test.py", helper)
    script = """
from train import test

for epoch in range(3):
    fit(fe, cc, optimizer)
    test.test(fe, cc, loader)
"""
    main = write(tmp_path, "main.py", script)
    assert lines([main]) == {("main.py", 5, "TW012")}


EVALUATE = """
def evaluate(model, loader):
    model.eval()
    return [model(x).argmax(1).tolist() for x, _ in loader]


def train_and_check(model, loader, optimizer, mixup):
    model.train()
    for x, y in loader:
        optimizer.zero_grad()
        if mixup:
            model(mix(x)).pow(2).mean().backward()
            optimizer.step()
        else:
            model(x).pow(2).mean().backward()
            optimizer.step()
    model.eval()
    return model(x).argmax(1).tolist()
"""


def test_one_finding_for_a_helper_called_in_both_arms_of_an_if(tmp_path: Path) -> None:
    write(tmp_path, "pipeline.py", EVALUATE)
    script = """
from pipeline import evaluate

if checkpoints:
    for ckpt in checkpoints:
        load(model, ckpt)
        evaluate(model, loader)
else:
    evaluate(model, loader)
"""
    main = write(tmp_path, "main.py", script)
    assert lines([main]) == {("main.py", 6, "TW012")}


def test_a_training_functions_own_evaluation_is_said_at_its_forward_or_at_the_call(
    tmp_path: Path,
) -> None:
    # train_and_check() trains, then evaluates with autograd on: pipeline.py says so at
    # the forward when it is checked; with main.py checked alone, its call is the one
    # place left to say it (the message names the forward, where the fix goes)
    write(tmp_path, "pipeline.py", EVALUATE)
    main = write(
        tmp_path,
        "main.py",
        "from pipeline import train_and_check\n\n"
        "for epoch in range(3):\n    train_and_check(model, loader, optimizer, True)\n",
    )
    assert lines([main]) == {("main.py", 4, "TW012")}
    [finding] = check_paths([main], select="TW012")
    assert "pipeline.py:17" in finding.message
    assert lines([tmp_path]) == {("pipeline.py", 17, "TW012")}


TRANSFORMS = """
import torch
from torch import nn


class DeNormalize(nn.Module):
    def __init__(self, mean, std):
        super().__init__()
        self.mean = mean
        self.std = std

    def forward(self, x):
        self.mean = self.mean.to(x.device)
        return torch.clamp(self.std * x + self.mean, 0, 100)


class Head(nn.Module):
    def __init__(self, backbone):
        super().__init__()
        self.backbone = backbone

    def forward(self, x):
        return self.backbone(x).mean(1)
"""


def test_a_module_of_another_file_that_keeps_only_data_has_no_weights(tmp_path: Path) -> None:
    # DeNormalize keeps two tensors and calls neither: no parameter, nothing to record;
    # Head keeps a module it calls: the backbone's weights record a graph
    write(tmp_path, "transforms.py", TRANSFORMS)
    script = """
import torch
from transforms import DeNormalize, Head

denorm = DeNormalize(mean, std)
print(denorm(torch.randn(4, 1)).tolist())
head = Head(backbone)
print(head(torch.randn(4, 8)).tolist())
"""
    main = write(tmp_path, "main.py", script)
    assert lines([main]) == {("main.py", 7, "TW012")}


MINE = """
import torch
from torch import nn


class MINE(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 1)

    def forward(self, z, s):
        return self.fc(z * s)

    def train_inside_epoch(self, z, s, optimizer):
        optimizer.zero_grad()
        loss = -self(z, s).mean()
        loss.backward()
        optimizer.step()
        return loss.item()
"""
ESTIMATE = """
import torch


def estimate_mi(model, mine, loader, optimizer):
    total = 0
    for x, u in loader:
        z = model.encoder(x)
        total += mine.{method}(z, u, optimizer)
    print(total)
"""
ESTIMATING = """
from mine import MINE
from estimate import estimate_mi

mine = MINE()
estimate_mi(model, mine, loader, optimizer)
"""


def test_an_output_handed_to_a_training_method_of_an_object_passed_in(tmp_path: Path) -> None:
    # the encoder's output is trained on by the estimator handed in (its loss backpropagates
    # through it); handed to a method not named for training, it is only measured
    write(tmp_path, "mine.py", MINE)
    write(tmp_path, "estimate.py", ESTIMATE.format(method="train_inside_epoch"))
    main = write(tmp_path, "main.py", ESTIMATING)
    assert lines([main]) == set()
    write(tmp_path, "estimate.py", ESTIMATE.format(method="estimate"))
    assert lines([main]) == {("main.py", 5, "TW012")}


def test_one_forward_of_another_file_reached_down_a_chain_is_said_once() -> None:
    # preprocess() (line 7) reaches fast_test() of evalTest.py through is_significant(),
    # which calls it at line 11: the finding at the helper's own call stands; a call of
    # fast_test() in another region (line 8) is a finding of its own
    from trainwell.doctor.events import RawFinding
    from trainwell.doctor.foreign import reached_twice

    tree = ast.parse(
        "import evalTest\n\n\ndef main(sni_model):\n    sni_model.eval()\n    for x in data:\n"
        "        preprocess(x, sni_model)\n    evalTest.fast_test(x, sni_model)\n\n\n"
        "def is_significant(inp, m):\n    return evalTest.fast_test(inp, m).data[0] == 1\n"
    )
    site = ("evalTest.py", 5)
    chain = RawFinding("TW012", 7, 9, "TW012 fast_test() (in evalTest.py:5): ...", None)
    direct = RawFinding("TW012", 12, 12, "evalTest.fast_test() (in evalTest.py:5): ...", None)
    other = RawFinding("TW012", 8, 5, "evalTest.fast_test() (in evalTest.py:5): ...", None)
    for finding in (chain, direct, other):
        finding.silenced_at = site
    assert reached_twice([chain, direct, other], tree) == [direct, other]
    assert reached_twice([chain], tree) == [chain]


BAYES_NET = """
import torch.nn.functional as F
from torch import nn


class Net:
    def __init__(self):
        self.model = nn.Linear(4, 2)

    def set_mode_train(self, train=True):
        self.model.train(train)

    def fit(self, x, y, optimizer):
        optimizer.zero_grad()
        loss = F.cross_entropy(self.model(x), y)
        loss.backward()
        optimizer.step()

    def eval(self, x, y):
        out = self.model(x)
        return F.cross_entropy(out, y).data, out.data.argmax(1).ne(y).sum()
"""
DEV_LOOP = """
from net import *

net = Net()
for i in range(epochs):
    net.set_mode_train(True)
    for x, y in loader:
        net.fit(x, y, optimizer)
    net.set_mode_train(False)
    for x, y in val_loader:
        cost, err = net.eval(x, y)
        err_dev[i] += err
    {use}
"""


def test_numbers_returned_by_another_files_evaluation_formatted_or_plotted(
    tmp_path: Path,
) -> None:
    # the detached numbers net.eval() returns are formatted into a string for a logging
    # helper, or drawn on a matplotlib Axes: neither needs a graph, so its forward was
    # inference; handed as they are to unknown code, they may be a target
    write(tmp_path, "net.py", BAYES_NET)
    for use in (
        'cprint("g", "Jdev = %f, err = %f" % (cost, err_dev[i]))',
        'log("dev {} {}".format(cost, err_dev[i]))',
        'axis.semilogy(range(epochs), 100 * err_dev, "b-")',
    ):
        main = write(tmp_path, "main.py", DEV_LOOP.format(use=use))
        assert lines([main]) == {("main.py", 10, "TW012")}, use
    main = write(tmp_path, "main.py", DEV_LOOP.format(use="keep(err_dev)"))
    assert lines([main]) == set()


GENERATOR = (
    MODELS
    + """
    def generate(self, n):
        return self.fc(torch.randn(n, 4))
"""
)


SAMPLING = """
import torch
from models import Net

net = Net()
opt = torch.optim.SGD(net.parameters(), lr=0.1)
for i, (x, y) in enumerate(loader):
    loss = net.loss(x, y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if i % 100 == 0:
        images = net.generate(16){save}
"""


def test_samples_of_another_files_model_bound_and_never_read(tmp_path: Path) -> None:
    # the samples are saved: inference, at the call; bound in the training loop to a name
    # nothing reads (rna-seq-vae's ``x = vae.inference()``, overwritten by the next batch):
    # a leftover, no use; outside training (a calibration pass) the call is its own use
    write(tmp_path, "models.py", GENERATOR)
    saved = "\n        save(images.detach().numpy())"
    train = write(tmp_path, "train.py", SAMPLING.format(save=saved))
    assert lines([train]) == {("train.py", 12, "TW012")}
    train.write_text(SAMPLING.format(save="").lstrip("\n"))
    assert lines([train]) == set()
    train.write_text(SCRIPT.format(after="images = net.generate(16)").lstrip("\n"))
    assert lines([train]) == {("train.py", AFTER_LINE, "TW012")}
