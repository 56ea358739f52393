"""TW012 examples: how the data flow reads what a helper does with a tensor it is handed.
Reading its dtype to make a tensor like it (a sampler's top-k filter) is no use of its
graph; its shape still is (a smoke test's ``assert out.shape == ...``). A forward as a
statement, its result thrown away (a warm-up, a model that keeps its output on
itself), is no evaluation by its output, after eval() too, unless hooks take what it
computes. A function named for running a forward and handed the model
(``forward_fn(model, batch)``, picked by the config) runs it, whatever its body. A
helper handed the model in the other arm of an evaluation the eval() rule already
reported (``compute_loss(model, x)`` where the first arm runs ``model(x)``) is that same
evaluation. A model method whose detached forward comes back in what it returns, into a
loss, is training (the detached head weighting the trained one); so is a loss written into
the dict the caller handed (``results["loss"] = loss``), which the caller backpropagates.
A token drawn with ``torch.multinomial`` is indices, no graph. Run as tests beside the
rule."""

from __future__ import annotations

from ._registry import Example

_SAMPLER = """\
import torch
import torch.nn.functional as F


def top_k_logits(logits, k):
    values, _ = torch.topk(logits, k)
    floor = values[:, -1:]
    return torch.where(logits < floor, torch.ones_like(logits, dtype=logits.dtype) * -1e10, logits)


def sample_sequence(model, tokens, steps, k):
    for _ in range(steps):
        logits = model(tokens)[:, -1, :]
        probs = F.softmax(top_k_logits(logits, k), dim=-1)
        tokens = torch.cat([tokens, torch.multinomial(probs, 1)], dim=1)
    return tokens.tolist()


{call}
"""

_GENERATE = """\
model.load_state_dict(torch.load("best.pt", weights_only=True))
model.eval()
for smiles in test_smiles:
    data = featurize(smiles)
    {run}
    coords = construct_conformers(data, model)
    save(coords)
"""

_FORWARD_FN = """\
def evaluate(model, loader, forward_fn, metrics_fn):
    model.eval()
    total_loss, hyps = 0.0, []
    for batch in loader:
        {run}
        total_loss += loss.item()
        hyps += batch_hyp
    return total_loss, metrics_fn(hyps)


print(evaluate(model, valid_loader, args.forward_fn, args.metrics_fn))
"""

_ARMS = """\
def compute_loss(model, x):
    return model(x).pow(2).mean()


def evaluate(model, loader, boosted):
    model.eval()
    if boosted:
        losses = [model(x).pow(2).mean().detach() for x in loader]
    else:
        losses = [{other}.detach() for x in loader]
    return torch.stack(losses).mean().item()


print(evaluate(model, valid_loader, args.boosted))
"""

# DIR-GNN's SPMotifNet: a method weighting by a detached forward of another head
_WEIGHTED = """\
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.causal = nn.Linear(4, 2)
        self.conf = nn.Linear(4, 2)

    def comb_pred(self, x, y):
        weight = self.conf(y).detach()
        return torch.sigmoid(weight) * self.causal(x)


def train(loader, alpha):
    g = Net()
    opt = torch.optim.Adam(g.parameters())
    for epoch in range(10):
        total = 0
        for x, ys, t in loader:
            loss = F.cross_entropy(g.causal(x), t)
            {use}
            total = total + loss
        opt.zero_grad()
        total.backward()
        opt.step()
"""

# rainier's PPO: the loss method writes into the results dict its caller backpropagates from
_RESULTS = """\
class Policy(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = nn.Linear(4, 2)

    def forward_pass(self, ids):
        return {{"logprobs": self.head(ids).log_softmax(-1)}}


class Trainer:
    def __init__(self, policy: Policy, optimizer):
        self.policy = policy
        self.optimizer = optimizer

    def loss(self, results):
        logprobs = self.policy.forward_pass(results["ids"])["logprobs"]
        results["loss"] = -(results["advantages"] * logprobs).mean()
        results["clipfrac"] = torch.gt(logprobs, -0.1).float().mean()

    def train(self, results):
        self.optimizer.zero_grad()
        self.loss(results)
        {use}
        self.optimizer.step()
"""

# CPM's generate.py: the next token drawn with torch.multinomial (indices, no graph)
_MULTINOMIAL = """\
def next_token(model, ids):
    logits = model(ids)[:, -1, :]
    return torch.multinomial(F.softmax(logits, dim=-1), num_samples=1)


def {name}(model, ids, optimizer):
    {body}
"""

# CCA-SSG: the backbone's detached embeddings, features for a linear probe trained after
_PROBE = """\
class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Linear(4, 8)

    def get_embedding(self, x):
        return self.backbone(x).detach()


def linear_probe(model, x, y):
    embeds = model.get_embedding(x)
    probe = nn.Linear(8, 2)
    opt = torch.optim.Adam(probe.parameters())
    for epoch in range(100):
        opt.zero_grad()
        F.cross_entropy(probe(embeds), y).backward()
        opt.step()


linear_probe(Encoder(), torch.randn(16, 4), torch.randint(0, 2, (16,)))
"""

FLOW_EXAMPLES = (
    Example(
        "a_forward_as_a_statement_after_eval_keeps_nothing_by_its_output",
        _GENERATE.format(run="model(data, inference=True)"),
        [],
    ),
    Example(
        "a_forward_whose_output_is_kept_after_eval",
        _GENERATE.format(run="out = model(data, inference=True)"),
        [(5, "TW012")],
    ),
    Example(
        # a forward hook takes what the thrown-away forward computes: an evaluation
        "a_forward_as_a_statement_whose_features_a_hook_keeps",
        """\
        features = []
        model.layer4.register_forward_hook(lambda module, inputs, out: features.append(out))
        model.eval()
        for x in loader:
            model(x)
        save(features)
        """,
        [(5, "TW012")],
    ),
    Example(
        # the sampler's logits end in multinomial's indices: inference, whatever the dtype
        "a_sampling_helper_reading_the_dtype_of_the_logits",
        _SAMPLER.format(call="print(sample_sequence(model, prompt, 20, 5))"),
        [(13, "TW012")],
    ),
    Example(
        "a_sampling_helper_run_under_no_grad",
        _SAMPLER.format(
            call="with torch.no_grad():\n    print(sample_sequence(model, prompt, 20, 5))"
        ),
        [],
    ),
    Example(
        "a_forward_function_handed_the_model_after_eval",
        _FORWARD_FN.format(run="loss, batch_hyp = forward_fn(model, batch)"),
        [(5, "TW012")],
    ),
    Example(
        "a_forward_function_handed_the_model_under_no_grad",
        _FORWARD_FN.format(
            run="with torch.no_grad():\n            loss, batch_hyp = forward_fn(model, batch)"
        ),
        [],
    ),
    Example(
        # one evaluation whichever arm runs: said once, at the first arm's forward
        "a_helper_handed_the_model_in_the_other_arm_of_one_evaluation",
        _ARMS.format(other="compute_loss(model, x)"),
        [(8, "TW012")],
    ),
    Example(
        # (another model in the other arm is another evaluation, said at the forward of
        # the file's helper)
        "another_model_in_the_other_arm_of_an_evaluation",
        _ARMS.format(other="compute_loss(ema_model, x)"),
        [(2, "TW012"), (8, "TW012")],
    ),
    Example(
        # the detached head weights the trained one: the method's result, and the
        # detached value inside it, feed the backward after the batch loop
        "a_methods_detached_forward_returned_into_the_loss",
        _WEIGHTED.format(use="loss = loss + alpha * F.cross_entropy(g.comb_pred(x, ys), t)"),
        [],
    ),
    Example(
        "a_methods_detached_forward_returned_only_to_be_printed",
        _WEIGHTED.format(use="print(g.comb_pred(x, ys).argmax(1).tolist())"),
        [(19, "TW012")],
    ),
    Example(
        "a_loss_written_into_the_callers_dict",
        _RESULTS.format(use='results["loss"].backward()'),
        [],
    ),
    Example(
        "a_token_drawn_by_multinomial_in_a_generation_loop",
        _MULTINOMIAL.format(
            name="generate",
            body="for _ in range(20):\n        ids = torch.cat([ids, next_token(model, ids)], 1)\n"
            "    return ids.tolist()",
        ),
        [(2, "TW012")],
    ),
    Example(
        # REINFORCE: the action is data, the log-probability gathered at it is the loss
        "an_action_drawn_by_multinomial_for_a_policy_gradient",
        _MULTINOMIAL.format(
            name="reinforce",
            body="probs = F.softmax(model(ids), -1)\n    action = probs.multinomial(1)\n"
            "    loss = -torch.log(probs.gather(1, action)).mean()\n"
            "    optimizer.zero_grad()\n    loss.backward()\n    optimizer.step()",
        ),
        [],
    ),
    Example(
        # the detached value alone comes back: features for another model, inference
        "a_methods_detached_features_for_a_linear_probe",
        _PROBE,
        [(11, "TW012")],
    ),
)
