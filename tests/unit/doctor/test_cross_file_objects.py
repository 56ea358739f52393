"""TW012 across files through objects: a toolkit's shared helper object, an object a
factory returns, and an object's method that puts its models in eval()."""

from __future__ import annotations

from pathlib import Path

from trainwell.doctor import check_paths

TOOL = """
import torch


class Tool:
    def get_score(self, model, x):
        tags = model(torch.tensor(x))[0]
        return f1_score(tags, x)


tool = Tool()
"""

VALIDATE = """
import torch
from tool import tool


def validate(model, dev):
    model.eval()
    scores = []
    for item in dev:
        scores.append(tool.get_score(model, item))
    return sum(scores) / len(scores)


def train(model, data, dev):
    opt = torch.optim.Adam(model.parameters())
    for epoch in range(3):
        model.train()
        for x, y in data:
            opt.zero_grad()
            model(x).sum().backward()
            opt.step()
        print(validate(model, dev))
"""

WRAPPER = """
import torch


class DepthModel(BaseModel):
    def __init__(self, opt):
        model = build_hourglass(opt)
        self.netG = model.cuda()

    def evaluate(self, images, targets):
        prediction = self.netG.forward(images)
        return rmse(prediction, targets).item()

    def switch_to_eval(self):
        self.netG.eval()
"""

FACTORY = """
def create_model(opt):
    from depth import DepthModel
    model = DepthModel(opt)
    return model
"""

TEST_SCRIPT = """
from factory import create_model

model = create_model(opt)


def test(model):
    model.switch_to_eval()
    total = 0.0
    for images, targets in loader:
        {line}
    return total


print(test(model))
"""

AGENT = """
import torch


class Agent:
    def __init__(self, actor, critic):
        self.actor = actor
        self.critic = critic

    def act(self, state):
        with torch.no_grad():
            return self.actor(state)

    def set_eval(self):
        self.actor.eval()
        self.critic.eval()
"""

ROLLOUT = """
import torch
from agent import Agent

agent = Agent(build_actor(), build_critic())
agent.set_eval()
for state in states:
    action = agent.act(state)
    {line}
    env.step(action.numpy())
"""


def write(directory: Path, name: str, text: str) -> Path:
    path = directory / name
    path.write_text(text.lstrip("\n"))
    return path


def lines(paths: list[Path]) -> set[tuple[str, int, str]]:
    return {(Path(f.path).name, f.line, f.code) for f in check_paths(paths)}


def test_a_method_of_another_files_shared_object_runs_the_forward(tmp_path: Path) -> None:
    # from tool import tool: the module-level Tool() object, its method called like a
    # function of the module; said at the call, where the caller can wrap it
    write(tmp_path, "tool.py", TOOL)
    script = write(tmp_path, "train.py", VALIDATE)
    assert lines([script]) == {("train.py", 9, "TW012")}


def test_the_shared_objects_method_under_no_grad(tmp_path: Path) -> None:
    write(tmp_path, "tool.py", TOOL)
    guarded = VALIDATE.replace(
        "        scores.append(tool.get_score(model, item))",
        "        with torch.no_grad():\n            scores.append(tool.get_score(model, item))",
    )
    script = write(tmp_path, "train.py", guarded)
    assert lines([script]) == set()


def test_an_object_a_factory_of_another_file_returns(tmp_path: Path) -> None:
    # model = create_model(opt) -> DepthModel(opt): its switch_to_eval() puts self.netG in
    # eval(), its evaluate() runs self.netG (kept from __init__'s local ``model``)
    write(tmp_path, "depth.py", WRAPPER)
    write(tmp_path, "factory.py", FACTORY)
    script = write(
        tmp_path, "test.py", TEST_SCRIPT.format(line="total += model.evaluate(images, targets)")
    )
    assert lines([script]) == {("test.py", 10, "TW012")}


def test_the_factorys_object_evaluated_under_no_grad(tmp_path: Path) -> None:
    write(tmp_path, "depth.py", WRAPPER)
    write(tmp_path, "factory.py", FACTORY)
    guarded = "with torch.no_grad():\n            total += model.evaluate(images, targets)"
    script = write(tmp_path, "test.py", "import torch\n" + TEST_SCRIPT.format(line=guarded))
    assert lines([script]) == set()


def test_an_objects_method_that_puts_its_models_in_eval(tmp_path: Path) -> None:
    # agent.set_eval() puts agent.critic in eval(); its forward after is inference
    write(tmp_path, "agent.py", AGENT)
    script = write(tmp_path, "rollout.py", ROLLOUT.format(line="q = agent.critic(state, action)"))
    assert lines([script]) == {("rollout.py", 8, "TW012")}


def test_the_objects_critic_under_no_grad(tmp_path: Path) -> None:
    write(tmp_path, "agent.py", AGENT)
    guarded = "with torch.no_grad():\n        q = agent.critic(state, action)"
    script = write(tmp_path, "rollout.py", ROLLOUT.format(line=guarded))
    assert lines([script]) == set()


RANKER = """
import torch


class Evaluator:
    def __init__(self, model):
        self.model = model

    def rank_tails(self, h, topk):
        preds = self.model.forward(h)
        _, rank = torch.topk(preds, k=topk)
        return rank


def predict(model, x):
    out = model(x)
    return out.detach()


def bootstrap(q_target, s2, gamma):
    return (gamma * q_target(s2).max(1)[0]).detach()
"""

INFER = """
import torch
from ranker import Evaluator, predict


class Trainer:
    def __init__(self, model):
        self.model = model
        self.evaluator = None

    def build(self):
        self.evaluator = Evaluator(self.model)

    def infer_tails(self, h):
        return self.evaluator.rank_tails(h, 5).cpu().numpy()

    def interactive(self):
        print(self.infer_tails(1))


def test_loop(model, loader):
    return [predict(model, x).numpy() for x in loader]


print(test_loop(model, loader))
"""

DQN = """
import torch
import torch.nn.functional as F
from ranker import bootstrap

q, q_target = torch.nn.Linear(4, 2), torch.nn.Linear(4, 2)
opt = torch.optim.Adam(q.parameters())
for s, a, r, s2 in loader:
    y = r + bootstrap(q_target, s2, 0.99)
    loss = F.mse_loss(q(s).gather(1, a), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
"""


def test_another_files_helper_returning_its_forwards_indices_or_a_detached_copy(
    tmp_path: Path,
) -> None:
    # rank_tails() returns topk's indices, predict() a detached copy: inference where the
    # caller only reads them (said at the calls, where no_grad can go)
    write(tmp_path, "ranker.py", RANKER)
    script = write(tmp_path, "infer.py", INFER)
    assert lines([script]) == {("infer.py", 14, "TW012"), ("infer.py", 21, "TW012")}


def test_another_files_detached_return_made_a_target_is_training(tmp_path: Path) -> None:
    # the target network's detached bootstrap feeds the loss: the training step's business
    write(tmp_path, "ranker.py", RANKER)
    script = write(tmp_path, "dqn.py", DQN)
    assert lines([script]) == set()


def test_another_files_detached_return_under_no_grad(tmp_path: Path) -> None:
    write(tmp_path, "ranker.py", RANKER)
    guarded = INFER.replace(
        "        return self.evaluator.rank_tails(h, 5).cpu().numpy()",
        "        with torch.no_grad():\n            return self.evaluator.rank_tails(h, 5).numpy()",
    ).replace(
        "    return [predict(model, x).numpy() for x in loader]",
        "    with torch.inference_mode():\n        return [predict(model, x).numpy() for x in loader]",
    )
    script = write(tmp_path, "infer.py", guarded)
    assert lines([script]) == set()


ARAE = """
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.Enc = nn.Linear(8, 2)
        self.Dec = nn.Linear(2, 8)

    def AE(self, x):
        return self.Dec(self.Enc(x))
"""


def test_a_method_of_another_files_model_running_its_parts_after_eval(tmp_path: Path) -> None:
    # ARAE: model.AE(x) runs self.Enc and self.Dec; trained in the step, then the per-epoch
    # test loop after model.eval() runs it again with autograd on: the region's first
    # forward, before model.Enc(x)
    write(tmp_path, "arae.py", ARAE)
    script = (
        "import torch\n"
        "import torch.nn.functional as F\n"
        "from arae import Net\n\n"
        "model = Net()\n"
        "optimizer = torch.optim.Adam(list(model.Enc.parameters()) + list(model.Dec.parameters()))\n"
        "for epoch in range(10):\n"
        "    model.train()\n"
        "    for x in train_loader:\n"
        "        optimizer.zero_grad()\n"
        "        F.mse_loss(model.AE(x), x).backward()\n"
        "        optimizer.step()\n"
        "    model.eval()\n"
        "    for x in test_loader:\n"
        "        print(F.mse_loss(model.AE(x), x).item())\n"
        "        print(model.Enc(x).norm().item())\n"
    )
    write(tmp_path, "train.py", script)
    assert lines([tmp_path / "train.py"]) == {("train.py", 15, "TW012")}
