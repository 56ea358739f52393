"""Examples of TW011 in evaluation code: a loss written by hand from a model's output run
with autograd on, summed over the batches, keeps every batch's graph. Run as tests beside
the rule."""

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
)
