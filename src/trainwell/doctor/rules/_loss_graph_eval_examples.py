"""Examples of TW011 in evaluation code: a loss written by hand from a model's output run
with autograd on, summed over the batches, keeps every batch's graph. And where a loss is
stored: into a NumPy array it goes as a number, graph and all left behind. Run as tests
beside the rule."""

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
)
