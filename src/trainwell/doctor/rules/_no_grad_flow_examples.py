"""TW012 examples: how the data flow reads what a helper does with a tensor it is handed.
Reading its dtype to make a tensor like it (a sampler's top-k filter) is no use of its
graph; its shape still is (a smoke test's ``assert out.shape == ...``). A model's
``loss()`` method runs its forward, even where the model's class is out of sight. A
forward as a statement, its result thrown away (a warm-up, a model that keeps its output on
itself), is no evaluation by its output, after eval() too. Run as tests beside the rule."""

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

_VALIDATION_LOSS = """\
import torch
from models import load_model


def print_update(model, dataset):
    validation = dataset.get_validation()
    print("validation loss", model.loss(validation).mean().item())


model = load_model()
optimizer = torch.optim.Adam(model.parameters())
for batch in loader:
    loss = model.loss(batch).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    {update}
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
        "a_validation_loss_from_the_loss_method_of_an_unseen_model_class",
        _VALIDATION_LOSS.format(update="print_update(model, dataset)"),
        [(7, "TW012")],
    ),
    Example(
        "a_validation_loss_from_the_loss_method_under_no_grad",
        _VALIDATION_LOSS.format(
            update="with torch.no_grad():\n        print_update(model, dataset)"
        ),
        [],
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
)
