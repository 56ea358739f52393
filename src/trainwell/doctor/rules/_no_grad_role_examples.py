"""TW012 examples: whether a forward is training's business by the role of what runs it: a
target network copied from the trained model, a helper a subclass trains through its base
class's loop, a trainer's forward helper that its own flag puts under no_grad, a random
feature network whose layers' parameters its ``__init__`` swapped for frozen ones, a
model's own method that runs its layers (``flow.invert(z)``) whatever its name, and the
arm that a train-or-evaluate function takes for the mode it is called with."""

from __future__ import annotations

from ._registry import Example

_DQN_SCRIPT = """\
import torch
import torch.nn.functional as F

if __name__ == "__main__":
    policy_net, target_net, optimizer, memory = load_model()
    {copy}
    target_net.eval()
    for epoch in range(100):
        batch = memory.sample(32)
        q = policy_net(batch.state).gather(1, batch.action)
        expected = torch.zeros(32)
        expected[batch.mask] = target_net(batch.next_state).max(1)[0].detach() * 0.99
        loss = F.mse_loss(q, expected.unsqueeze(1))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
"""

_TARGET_EXAMPLES = (
    Example(
        # a copy of the trained network, in eval(): its bootstrap is the update's target
        "a_target_network_in_eval_builds_the_target",
        _DQN_SCRIPT.format(copy="target_net.load_state_dict(policy_net.state_dict())"),
        [],
    ),
    Example(
        # loaded from its own checkpoint and frozen in eval(): a teacher, whose forward
        # under grad mode records a graph nothing uses
        "a_frozen_teacher_in_eval_is_inference",
        _DQN_SCRIPT.format(copy='target_net.load_state_dict(torch.load("teacher.pt"))'),
        [(12, "TW012")],
    ),
    Example(
        # copied from a loaded teacher the file never runs, not from the trained network
        "a_copy_of_a_teacher_the_file_never_runs_is_inference",
        _DQN_SCRIPT.format(copy="target_net.load_state_dict(teacher.state_dict())"),
        [(12, "TW012")],
    ),
)

_ESTIMATORS = """\
import torch


class Base:
    def _ff_batch(self, model, batch):
        return model(batch)

    def _get_losses(self, model, batch):
        return self._ff_batch(model, batch).mean()

    def _perform_validation(self, loader):
        return 0.0

    def fit(self, loader, val_loader):
        for epoch in range(3):
            for batch in loader:
                loss = self._get_losses(self.model, batch)
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
            self.model.eval()
            self._perform_validation(val_loader)


class Metric(Base):
    def _ff_batch(self, model, batch):
        out = model(batch[0], batch[1])
        return out, batch[2]

    def _get_losses(self, model, batch):
        out, label = self._ff_batch(model, batch)
        return self.loss_function(out, label)

    def classifier_validate(self, model, loader):
        scores = []
        for batch in loader:
            out, label = self._ff_batch(model, batch)
            scores.append(out.detach().numpy())
        return scores

    def _perform_validation(self, loader):
        return self.classifier_validate(self.model, loader)
"""

_CLASS_EXAMPLES = (
    Example(
        # Base.fit trains on Metric._get_losses, which runs Metric._ff_batch: the helper is
        # training's too, so the evaluation is said at its call in classifier_validate
        "a_helper_of_a_subclass_trained_through_its_base_class_loop",
        _ESTIMATORS,
        [(37, "TW012")],
    ),
)

_TEMPLATE_TRAINER = """\
import torch


class Trainer:
    def _forward(self, batch):
        if self.training:
            outputs = self.model(batch["inputs"])
        else:
            {validation_arm}
        return outputs, self.criterion(outputs, batch["targets"])

    def _train_epoch(self):
        self.training = True
        for batch in self.train_loader:
            _, loss = self._forward(batch)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()

    def _validate(self):
        self.training = False
        for batch in self.val_loader:
            _, loss = self._forward(batch)
            self.logger.update(loss=loss.item())

    def fit(self, epochs):
        for epoch in range(epochs):
            self._train_epoch()
            self._validate()
"""

_STATE_EXAMPLES = (
    Example(
        # self.training picks the arm: validation runs the no_grad one
        "a_forward_helper_under_no_grad_by_the_trainers_own_flag",
        _TEMPLATE_TRAINER.format(
            validation_arm="with torch.no_grad():\n                outputs = self.model(batch['inputs'])"
        ),
        [],
    ),
    Example(
        "a_forward_helper_with_autograd_on_in_both_arms",
        _TEMPLATE_TRAINER.format(validation_arm="outputs = self.model(batch['inputs'])"),
        [(23, "TW012")],
    ),
)

_RANDOM_CNN = """\
import torch
import torch.nn as nn


class RandomCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 32, kernel_size=(3, 1){bias})
        self.act = nn.LeakyReLU(0.2)
        weight = torch.randn(self.conv1.weight.data.shape)
        self.conv1.weight = nn.Parameter(weight, requires_grad=False)
        {swap_bias}

    def forward(self, x):
        return self.act(self.conv1(x))


def grams(model, spects):
    return [model(s).sum() for s in spects]


model = RandomCNN()
model.eval()
print(grams(model, spects))
"""

_FROZEN_EXAMPLES = (
    Example(
        # weight and bias swapped for frozen Parameters: no parameter records a graph
        "a_random_feature_network_frozen_layer_by_layer",
        _RANDOM_CNN.format(
            bias="",
            swap_bias="self.conv1.bias = nn.Parameter(torch.zeros(32), requires_grad=False)",
        ),
        [],
    ),
    Example(
        "a_random_feature_network_without_a_bias",
        _RANDOM_CNN.format(bias=", bias=False", swap_bias="pass"),
        [],
    ),
    Example(
        # the bias is still trainable: the forward records a graph
        "a_random_feature_network_with_its_bias_left_trainable",
        _RANDOM_CNN.format(bias="", swap_bias="pass"),
        [(19, "TW012")],
    ),
)

_FLOW = """\
import torch
import torch.nn as nn


class Flow(nn.Module):
    def __init__(self):
        super().__init__()
        self.m = nn.ModuleList([nn.Linear(4, 4) for _ in range(3)])

    def forward(self, x):
        for layer in self.m:
            x = x + layer(x)
        return x

    def invert(self, z):
        for i in range(len(self.m) - 1, -1, -1):
            z = z - self.m[i](z)
        return z

    def update(self, x, optimizer):
        optimizer.zero_grad()
        self(x).pow(2).mean().backward()
        optimizer.step()
        return 0.0


flow = Flow()
optimizer = torch.optim.Adam(flow.parameters())
for x in loader:
    {train}
for i in range(100):
    {sample}
"""

_METHOD_EXAMPLES = (
    Example(
        # invert() runs the flow's layers: sampling after training records a graph
        "a_models_own_method_running_its_layers_to_sample",
        _FLOW.format(
            train="optimizer.zero_grad(); flow(x).pow(2).mean().backward(); optimizer.step()",
            sample="plt.imshow(flow.invert(torch.randn(1, 4)).data.numpy())",
        ),
        [(32, "TW012")],
    ),
    Example(
        # update() trains: its call is a training step, not an inference
        "a_models_own_method_that_trains",
        _FLOW.format(
            train="print(flow.update(x, optimizer))",
            sample="print(flow.update(torch.randn(1, 4), optimizer))",
        ),
        [],
    ),
)

_MOVED_CRITERION_EXAMPLES = (
    Example(
        # .cuda() hands back the criterion: its loss is read as a number, no training
        "an_evaluation_loss_from_a_criterion_moved_to_the_gpu",
        """\
        import torch.nn as nn

        nll = nn.NLLLoss().cuda()
        for x, y in test_loader:
            out = net(x)
            print(nll(out, y).item())
        """,
        [(5, "TW012")],
    ),
)

# autograd turned on by name: a forward there keeps its graph on purpose (input gradients)
_GRAD_ON_PURPOSE = """\
for x, y in val_loader:
    with {context}:
        out = net(x)
    print(out.argmax(1))
"""

_GRAD_ON_PURPOSE_EXAMPLES = (
    Example(
        "an_inference_forward_under_enable_grad",
        _GRAD_ON_PURPOSE.format(context="torch.enable_grad()"),
        [],
    ),
    Example(
        "an_inference_forward_under_set_grad_enabled_true",
        _GRAD_ON_PURPOSE.format(context="torch.set_grad_enabled(True)"),
        [],
    ),
    Example(
        "an_inference_forward_under_a_plain_context",
        _GRAD_ON_PURPOSE.format(context="timer()"),
        [(3, "TW012")],
    ),
)

# a model's attribute called after eval(): a submodule by its name, or a method by its verb
_ATTRIBUTE_RUN = """\
class Instructor:
    def evaluate(self, loader):
        self.model.eval()
        found = []
        for ids, labels in loader:
            with torch.no_grad():
                logits = self.model(ids)
            ids = self.model.{attribute}(ids)
            found.append((logits.argmax(-1), ids))
        return found


print(Instructor().evaluate(test_loader))
"""

_ATTRIBUTE_EXAMPLES = (
    Example(
        "a_feature_extractor_run_after_eval",
        _ATTRIBUTE_RUN.format(attribute="feature_extractor"),
        [(8, "TW012")],
    ),
    Example(
        # "actor" inside "extractor", and a getter's verb: an index helper, not a network
        "a_getter_of_token_ids_named_for_an_extractor",
        _ATTRIBUTE_RUN.format(attribute="get_ids_for_local_context_extractor"),
        [],
    ),
)

# handed to a logger's method: recorded, not kept for a backward
_LOGGED = """\
for x, y in test_loader:
    pred = net(x)
    {receiver}.log_images(x, y, pred)
"""

_LOGGED_EXAMPLES = (
    Example(
        "predictions_handed_to_a_loggers_method", _LOGGED.format(receiver="logger"), [(2, "TW012")]
    ),
    Example("predictions_handed_to_an_unknown_objects_method", _LOGGED.format(receiver="bank"), []),
)

_TRAINER_EXAMPLES = (
    Example(
        # a trainer's self is no model: the student's eval() leaves the teacher's forward
        # to be judged on its own, a second model of the block
        "a_trainers_teacher_beside_its_student_in_eval",
        """\
        class Trainer:
            def evaluate(self):
                self.student.eval()
                agree = 0
                for x, y in self.loader:
                    soft = self.teacher(x)
                    logits = self.student(x)
                    agree += (logits.argmax(1) == soft.argmax(1)).sum().item()
                return agree


        print(Trainer().evaluate())
        """,
        [(6, "TW012"), (7, "TW012")],
    ),
)

_LEARN = """\
import torch.nn.functional as F


def train_step(net, opt, x, y):
    loss = F.cross_entropy(net(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()


def learn(args, net, opt, data, log):
    for step, (x, y) in enumerate(data):
        if args.{flag}:
            {gated}
        if len(y) > 1:
            {step}
        if step % 100 == 0:
            log.info((net(x).argmax(1) == y).float().mean().item())
"""

# A training function that no call in the file runs (a launcher elsewhere does), training
# only on some calls: nobody calls it under no_grad, so its evaluation stands; unless a
# test of a parameter gates its training (``if args.train: train_step(...)``), when a
# caller may want only its evaluation, under no_grad
_GATED_EXAMPLES = (
    Example(
        "a_parameter_gating_other_work_leaves_the_function_a_trainer",
        _LEARN.format(
            flag="warmup", gated='log.info("warming up")', step="train_step(net, opt, x, y)"
        ),
        [(18, "TW012")],
    ),
    Example(
        "a_parameter_gating_the_training_step_leaves_the_evaluation_to_the_caller",
        _LEARN.format(flag="train", gated="train_step(net, opt, x, y)", step="pass"),
        [],
    ),
)

_AGENT = """\
import torch
import torch.nn as nn


class Agent(nn.Module):
    def __init__(self):
        super().__init__()
        self.actor = nn.Linear(4, 2)
        self.opt = torch.optim.Adam(self.parameters())

    def evaluate_agent(self, env, episodes):
        total = 0.0
        for _ in range(episodes):
            obs, done = env.reset(), False
            while not done:
                action = self.actor(obs).argmax(-1)
                obs, reward, done = env.step(action.item())
                total += reward
        return total / episodes

    def train_agent(self, env, batches):
        for i, (x, y) in enumerate(batches):
            loss = ((self.actor(x) - y) ** 2).mean()
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()
            if i % 100 == 0:
                {evaluate}


Agent().train_agent(env, batches)
"""

# A model's own training method that calls its own evaluation method: the evaluation's
# forward runs with autograd on, said inside the method (the model's own update helpers,
# whose detached values are targets, stay the update's business)
_OWN_EVALUATION_EXAMPLES = (
    Example(
        "a_model_s_training_method_runs_its_own_evaluation_method",
        _AGENT.format(evaluate="print(self.evaluate_agent(env, 3))"),
        [(16, "TW012")],
    ),
    Example(
        "a_model_s_training_method_runs_its_own_evaluation_under_no_grad",
        _AGENT.format(
            evaluate="with torch.no_grad():\n                    print(self.evaluate_agent(env, 3))"
        ),
        [],
    ),
)

_ITERATE = """\
import torch


def iterate(model, loader, criterion, optimizer=None, mode="train"):
    for x, y in loader:
        if mode != "train":
            {evaluate}
        else:
            optimizer.zero_grad()
            out = model(x)
        loss = criterion(out, y)
        if mode == "train":
            loss.backward()
            optimizer.step()


for epoch in range(10):
    model.train()
    iterate(model, train_loader, criterion, optimizer, mode="train")
    model.eval()
    iterate(model, val_loader, criterion, mode="val")
"""

# A train-or-evaluate function called with mode="val" after eval(): only the arm that mode
# takes runs, so the training arm's forward is no evaluation
_SWITCHED_ARM_EXAMPLES = (
    Example(
        "the_evaluation_arm_of_a_switched_function_runs_under_no_grad",
        _ITERATE.format(evaluate="with torch.no_grad():\n                out = model(x)"),
        [],
    ),
    Example(
        "the_evaluation_arm_of_a_switched_function_runs_with_autograd_on",
        _ITERATE.format(evaluate="out = model(x)"),
        [(21, "TW012")],
    ),
)

_PROBE = """\
import copy


class KnnProbe:
    def __init__(self, encoder):
        self.encoder = copy.deepcopy(encoder)
        for p in self.encoder.parameters():
            p.requires_grad = {flag}

    def accuracy(self, loader, bank):
        hits = 0
        for x, y in loader:
            hits += (bank.nearest(self.encoder(x)) == y).sum().item()
        return hits


print(KnnProbe(model.backbone).accuracy(test_loader, bank))
"""

# A probe whose __init__ froze its copy of the encoder: its forwards record no graph
_PROBE_EXAMPLES = (
    Example("an_encoder_its_class_froze_records_no_graph", _PROBE.format(flag="False"), []),
    Example(
        "an_encoder_its_class_left_trainable_records_a_graph",
        _PROBE.format(flag="True"),
        [(13, "TW012")],
    ),
)

ROLE_EXAMPLES = (
    _TARGET_EXAMPLES
    + _CLASS_EXAMPLES
    + _STATE_EXAMPLES
    + _FROZEN_EXAMPLES
    + _METHOD_EXAMPLES
    + _MOVED_CRITERION_EXAMPLES
    + _GRAD_ON_PURPOSE_EXAMPLES
    + _ATTRIBUTE_EXAMPLES
    + _LOGGED_EXAMPLES
    + _TRAINER_EXAMPLES
    + _GATED_EXAMPLES
    + _OWN_EVALUATION_EXAMPLES
    + _SWITCHED_ARM_EXAMPLES
    + _PROBE_EXAMPLES
)
