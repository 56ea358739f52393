"""TW017 examples: a running total of the loss averaged for the log, or a step counter
spelled like the setting k (``step`` and ``args.step``), is no loss scaling; and
``torch.autograd.backward([loss1, loss2])`` is a backward() of the losses it is handed.
A zero_grad() under the step's own test before the backward (``if (it + 1) % k == 0:``
at both ends of a step function) clears what the other passes left: nothing accumulates.
A loop over what a pipeline-parallel model yields (``for out in model(**batch):``) runs one
backward() per micro-batch before the step."""

from __future__ import annotations

from ._registry import Example

_TWO_HEADS = """\
def train(model, loader, optimizer, iter_size):
    for i, (x, y, z) in enumerate(loader):
        seg, angle = model(x)
        loss1 = F.cross_entropy(seg, y)
        loss2 = F.cross_entropy(angle, z){divide}
        torch.autograd.backward([loss1, loss2])
        if i % iter_size == 0:
            optimizer.step()
            optimizer.zero_grad()
"""

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

_SKIPPING = """\
def train(model, batch, criterion, optimizer, it, args):
    {zero}
    x, y = batch
    criterion(model(x), y).backward()
    if (it + 1) % args.every == 0:
        optimizer.step()
"""

# a pipeline-parallel model yields one output per micro-batch
_PIPELINE = """\
def train(model, optimizer, loader, micro_batches):
    for batch in loader:
        optimizer.zero_grad()
        for out in model(**batch):
            {loss}.backward()
        optimizer.step()


model = nn.Linear(2, 2)
train(model, torch.optim.SGD(model.parameters(), lr=0.1), [], 4)
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

_COUNTER = """\
from losses import WeightedBCE


def train(model, loader, optimizer, args, log):
    step = 0
    for epoch in range(args.epochs):
        for i, (x, y) in enumerate(loader):
            loss = WeightedBCE(weights=args.weights)(model(x), y){scaled}
            loss.backward()
            if (i + 1) % args.step == 0:
                optimizer.step()
                optimizer.zero_grad()
                step += 1
                write_event(log, step, loss=loss.item())
"""

COUNTER_EXAMPLES = (
    Example(
        # the logger is given the counter ``step``, not the setting ``args.step`` (apex's
        # kaggle pipelines): nothing divides the loss
        "a_step_counter_named_like_the_setting",
        _COUNTER.format(scaled=""),
        [(9, "TW017")],
    ),
    Example(
        "a_step_counter_named_like_the_setting_and_the_loss_scaled",
        _COUNTER.format(scaled=" / args.step"),
        [],
    ),
    Example(
        # ``step`` is a copy of the setting here: the call may divide by it
        "the_setting_copied_into_a_local_and_handed_to_a_helper",
        """\
        def train(model, loader, optimizer, args):
            step = args.step
            for i, batch in enumerate(loader):
                loss = compute_loss(model, batch, step)
                loss.backward()
                if (i + 1) % args.step == 0:
                    optimizer.step()
                    optimizer.zero_grad()
                    step += 0
        """,
        [],
    ),
    Example(
        # torch.autograd.backward([loss1, loss2]) is a backward() of both losses
        "losses_of_two_heads_backpropagated_with_torch_autograd",
        _TWO_HEADS.format(divide=""),
        [(6, "TW017")],
    ),
    Example(
        "divided_losses_of_two_heads_backpropagated_with_torch_autograd",
        _TWO_HEADS.format(divide="\n        loss1, loss2 = loss1 / iter_size, loss2 / iter_size"),
        [],
    ),
    Example(
        "gradients_cleared_under_the_steps_test_before_the_backward",
        _SKIPPING.format(zero="if (it + 1) % args.every == 0:\n        optimizer.zero_grad()"),
        [],
    ),
    Example(
        "gradients_cleared_after_the_step_under_its_test",
        _SKIPPING.format(zero="pass").replace(
            "optimizer.step()", "optimizer.step()\n        optimizer.zero_grad()"
        ),
        [(4, "TW017")],
    ),
    Example(
        "a_backward_per_micro_batch_output_of_a_pipeline_model",
        _PIPELINE.format(loss="out.loss"),
        [(5, "TW017")],
    ),
    Example(
        "a_backward_per_micro_batch_output_divided_by_their_count",
        _PIPELINE.format(loss="(out.loss / micro_batches)"),
        [],
    ),
)
