"""TW017 examples: a running total of the loss averaged for the log is no loss scaling."""

from __future__ import annotations

from ._registry import Example

_CHUNKED = """\
def train(model, loader, optimizer, conf):
    for batch in loader:
        optimizer.zero_grad()
        avg_train_loss = 0.0
        for micro in range(conf.accum_steps):
            train_loss = model(batch[micro]).mean(){scaled}
            avg_train_loss += train_loss
            train_loss.backward()
        optimizer.step()
        avg_train_loss /= float(conf.accum_steps)
        print(float(avg_train_loss))
"""

EXAMPLES = (
    Example(
        # the average after the step is for the log: the chunks' gradients are summed
        "chunks_summed_and_the_loss_averaged_only_for_the_log",
        _CHUNKED.format(scaled=""),
        [(8, "TW017")],
    ),
    Example(
        "chunks_scaled_before_backward",
        _CHUNKED.format(scaled=" / conf.accum_steps"),
        [],
    ),
    Example(
        # the summed loss itself is divided and backpropagated: scaled
        "a_summed_loss_divided_then_backpropagated",
        """\
        def train(model, loader, optimizer, conf):
            for batch in loader:
                optimizer.zero_grad()
                total = 0.0
                for micro in range(conf.accum_steps):
                    total += model(batch[micro]).mean()
                    total.backward(retain_graph=True)
                optimizer.step()
                total /= conf.accum_steps
        """,
        [(7, "TW017")],
    ),
)
