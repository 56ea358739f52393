"""TW012 examples where a model's state or its class decides what a forward records.

A policy that keeps the distribution its forward computed for the ``log_prob(act)`` that
follows (an on-policy loss that logs the entropy of ``policy(obs)``) feeds the loss through
that state: no inference. An attack object chosen among classes, one of which takes input
gradients, may need autograd. A forward that turns autograd off only to build a zero state
(``if test: with torch.no_grad(): hidden = zeros(...)``) still records the graph of its
layers. A distiller's own training step that puts the teacher in eval() runs it for targets
only: inference, said inside the step. And a command run from a table
(``COMMANDS[args.command](args)``) runs in the context of that dispatch: under no_grad
there, its evaluation helpers record nothing. Run as tests beside the rule."""

from __future__ import annotations

from ._registry import Example

_POLICY_LOSS = """\
class PolicyGradient:
    def __init__(self, actor, optimizer):
        self.actor = actor
        self.optimizer = optimizer

    def loss_pi(self, obs, act, logp, adv):
        distribution = self.actor(obs)
        {read}
        ratio = torch.exp(logp_ - logp)
        loss = -(ratio * adv).mean()
        self.entropy = distribution.entropy().mean().item()
        return loss

    def update(self, obs, act, logp, adv):
        self.optimizer.zero_grad()
        self.loss_pi(obs, act, logp, adv).backward()
        self.optimizer.step()
"""

# a KL early stop after the update: the method is handed the output (it reads no state the
# forward kept), and what it gives only stops the loop
_KL_STOP = """\
def ppo_step(policy, pi_opt, states, old_dist, target_kl, iters):
    for _ in range(iters):
        pi_opt.zero_grad()
        policy.log_prob(policy(states)).mean().backward()
        pi_opt.step()
        kl = policy.kl_divergence({forward}, old_dist).mean()
        if kl > target_kl:
            break
    return policy
"""

_ATTACKED_TEST = """\
from attacks.base import Attack


class Clean(Attack):
    def forward(self, x, y):
        return x, y


class FGSM(Attack):
    def forward(self, x, y):
        x = x.clone().requires_grad_(True)
        loss = F.cross_entropy(self.model(x), y)
        grad = torch.autograd.grad(loss, [x])[0]
        return (x + self.eps * grad.sign()).detach(), y


def test(model, loader, mode):
    model.eval()
    if mode == "clean":
        attack = Clean(model)
    else:
        attack = FGSM(model)
    correct = 0
    for x, y in loader:
        x, y = attack(x, y)
        with torch.no_grad():
            correct += (model(x).argmax(1) == y).sum().item()
    return correct


print(test(model, loader, args.attack))
"""

_ZERO_STATE = """\
class Recurrent(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(2, 2, 3)

    def forward(self, x, test=False):
        if test:
            with torch.no_grad():
                hidden = torch.zeros_like(x)
        else:
            hidden = torch.zeros_like(x)
        return self.conv(x + hidden)


def validate(net, loader, criterion):
    net.eval()
    total = 0.0
    for x, y in loader:
        pred = net(x, test=True)
        total += criterion(pred, y).item()
    return total


print(validate(Recurrent(), loader, nn.MSELoss()))
"""

_DISTILLER = """\
class Distiller(nn.Module):
    def student_step(self, x, student, teacher, optimizer):
        student.train()
        teacher.eval()
        logits = student(x)
        targets = teacher(x).detach()
        optimizer.zero_grad()
        loss = F.kl_div(F.log_softmax(logits, 1), F.softmax(targets, 1), reduction="batchmean")
        loss.backward()
        optimizer.step()
        return loss.item()

    def train_epoch(self, loader, student, teacher, optimizer):
        for x, _ in loader:
            self.student_step(x, student, teacher, optimizer)
"""

_COMMANDS = """\
def score(args, model):
    return [model(x).mean().item() for x in args.data]


def evaluate_prior(args):
    model = load_model(args.weights)
    print(score(args, model))


def main(args):
    {dispatch}


COMMANDS = {{"prior": evaluate_prior}}
"""

# list(map(f, xs)) calls f here, once per element: a training helper and an evaluation one
_MAPPED = """\
def fit(model, optimizer, train_loader, valid_loader):
    def train_one_batch(batch):
        optimizer.zero_grad()
        mse(model(batch[0]), batch[1]).backward()
        optimizer.step()

    def val_one_batch(batch):
        return mse(model(batch[0]), batch[1]).item()

    model.train()
    list(map(train_one_batch, train_loader))
    model.eval()
    {run}
"""


STATE_EXAMPLES = (
    Example(
        "a_policy_whose_log_prob_reads_the_distribution_its_forward_kept",
        _POLICY_LOSS.format(read="logp_ = self.actor.log_prob(act)"),
        [],
    ),
    Example(
        "a_policy_forward_whose_output_only_logs_its_entropy",
        _POLICY_LOSS.format(read="logp_ = log_prob_of(obs, act)"),
        [(7, "TW012")],
    ),
    Example(
        "an_attack_chosen_among_classes_one_of_which_takes_input_gradients",
        _ATTACKED_TEST,
        [],
    ),
    Example(
        "a_forward_that_turns_autograd_off_only_for_its_zero_state",
        _ZERO_STATE,
        [(19, "TW012")],
    ),
    Example(
        "a_distillers_own_step_runs_the_teacher_it_put_in_eval_for_targets",
        _DISTILLER,
        [(6, "TW012")],
    ),
    Example(
        "commands_of_a_table_dispatched_under_no_grad",
        _COMMANDS.format(dispatch="with torch.no_grad():\n        COMMANDS[args.command](args)"),
        [],
    ),
    Example(
        "commands_of_a_table_dispatched_with_autograd_on",
        _COMMANDS.format(dispatch="COMMANDS[args.command](args)"),
        [(2, "TW012")],
    ),
    Example(
        "a_forward_under_another_name_for_no_grad",
        """\
        torchNo_grad = _safe_import("torch.no_grad")

        def predict_proba(network, loader):
            network.eval()
            with torchNo_grad():
                return [network(x).softmax(1) for x in loader]

        predict_proba(torch.nn.Linear(2, 2), [])
        """,
        [],
    ),
    Example(
        "a_forward_under_another_name_for_something_else",
        """\
        torchNo_grad = _safe_import("torch.enable_grad")

        def predict_proba(network, loader):
            network.eval()
            with torchNo_grad():
                return [network(x).softmax(1) for x in loader]

        predict_proba(torch.nn.Linear(2, 2), [])
        """,
        [(6, "TW012")],
    ),
    Example(
        "an_evaluation_helper_mapped_over_the_loader",
        _MAPPED.format(run="valid = list(map(lambda b: val_one_batch(b), valid_loader))"),
        [(8, "TW012")],
    ),
    Example(
        "an_evaluation_helper_mapped_over_the_loader_under_no_grad",
        _MAPPED.format(
            run="with torch.no_grad():\n        valid = list(map(val_one_batch, valid_loader))"
        ),
        [],
    ),
    Example(
        "a_policy_forward_after_the_update_only_for_a_kl_early_stop",
        _KL_STOP.format(forward="policy(states)"),
        [(6, "TW012")],
    ),
    Example(
        "a_kl_early_stop_computed_under_no_grad",
        _KL_STOP.replace(
            "        kl = ", "        with torch.no_grad():\n            kl = "
        ).format(forward="policy(states)"),
        [],
    ),
)
