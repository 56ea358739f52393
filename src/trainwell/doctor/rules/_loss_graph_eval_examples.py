"""Examples of TW011 in evaluation code: a loss written by hand from a model's output run
with autograd on, summed over the batches, keeps every batch's graph. And where a loss is
stored: into a NumPy array it goes as a number, graph and all left behind. A helper that
every call runs under no_grad (tuned-lens's per-layer evaluation, called from its
``@torch.no_grad()`` ``execute``) keeps no graph. The entry of a model's dict output that
the scope backpropagates (``output["loss"].backward()``) is a loss when kept; so is a term
of a backpropagated sum (``(loss + reg).backward()``). Run as tests beside the rule."""

from __future__ import annotations

from ._registry import Example

_HAND_WRITTEN = """\
def evaluate(model, loader):
    total = 0.0
    for x, y in loader:
        prob = model(x)
        loss = {loss}
        total += loss
    return total / len(loader)
"""

_HISTORY = """\
import numpy as np


def fit(model, optimizer, z0, z, iterations):
    loss_history = {history}
    for it in range(iterations):
        optimizer.zero_grad()
        loss = F.mse_loss(model(z0), z)
        loss.backward()
        optimizer.step()
        loss_history[it] = loss
    return loss_history
"""

_CALLED = """\
class Evaluator:
    def _per_layer(self, lens, hidden, labels, out):
        for layer, h in enumerate(hidden):
            out[layer] = F.cross_entropy(lens(h), labels)

    @torch.no_grad()
    def execute(self, lens, loader):
        out = {}
        for hidden, labels in loader:
            self._per_layer(lens, hidden, labels, out)
        return out
"""

# neuromancer's Trainer: the model returns a dict of losses; the one backpropagated is kept
_DICT_OUTPUT = """\
def train(model, optimizer, loader, epochs):
    for epoch in range(epochs):
        losses = []
        for batch in loader:
            output = model(batch)
            optimizer.zero_grad()
            output["train_loss"].backward()
            optimizer.step()
            losses.append({kept})
        print(torch.stack(losses).mean())
"""

# DIR-GNN's molhiv trainer: a regulariser summed into the backward, and summed for the log
_REGULARISER = """\
def train(model, optimizer, loader, alpha):
    total_reg = 0
    for x, y in loader:
        out = model(x)
        reg = alpha * torch.var(out)
        optimizer.zero_grad()
        (F.cross_entropy(out, y) + reg).backward()
        optimizer.step()
        total_reg += {kept}
    print(total_reg)
"""

EVALUATION_EXAMPLES = (
    Example(
        "a_hand_written_evaluation_loss_summed",
        _HAND_WRITTEN.format(loss="-torch.mean(torch.log(prob) * y)"),
        [(6, "TW011")],
    ),
    Example(
        "a_hand_written_evaluation_loss_read_as_a_number",
        _HAND_WRITTEN.format(loss="-torch.mean(torch.log(prob) * y).item()"),
        [],
    ),
    Example(
        # named otherwise, a quantity of the output is no loss by its name alone
        "a_hand_written_score_summed",
        _HAND_WRITTEN.format(loss="(prob.argmax(1) == y).float().mean()").replace("loss", "score"),
        [],
    ),
    Example(
        "a_loss_stored_into_a_numpy_array_each_iteration",
        _HISTORY.format(history="np.empty(iterations)"),
        [],
    ),
    Example(
        "a_loss_stored_into_a_list_each_iteration",
        _HISTORY.format(history="[None] * iterations"),
        [(11, "TW011")],
    ),
    Example(
        "a_loss_kept_by_a_helper_called_only_under_no_grad",
        _CALLED,
        [],
    ),
    Example(
        "a_loss_kept_by_a_helper_called_with_autograd_on",
        _CALLED.replace("@torch.no_grad()", "@torch.enable_grad()"),
        [(4, "TW011")],
    ),
    Example(
        "the_backpropagated_entry_of_a_dict_output_kept",
        _DICT_OUTPUT.format(kept='output["train_loss"]'),
        [(9, "TW011")],
    ),
    Example(
        "the_backpropagated_entry_of_a_dict_output_kept_detached",
        _DICT_OUTPUT.format(kept='output["train_loss"].detach()'),
        [],
    ),
    Example(
        "a_term_of_the_backpropagated_sum_kept",
        _REGULARISER.format(kept="reg"),
        [(9, "TW011")],
    ),
    Example(
        "a_term_of_the_backpropagated_sum_kept_as_a_number",
        _REGULARISER.format(kept="reg.item()"),
        [],
    ),
)
