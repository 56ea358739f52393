"""More examples of TW011 (a loss kept with its graph across iterations): what an average
meter reads back is a number. Run as tests beside the rule."""

from __future__ import annotations

from ._no_grad_what_runs_examples import METRIC_MODULE
from ._registry import Example

KEPT_EXAMPLES = (
    Example(
        # the meter is given a detached copy; its average, named cur_loss, is a number
        "a_meters_average_logged_under_a_loss_name",
        """\
        def train(model, loader, opt, losses, meters):
            logs = {}
            for x, y in loader:
                opt.zero_grad()
                loss_total = 0
                for k, l in enumerate(losses):
                    loss = l(model(x), y)
                    loss_total += loss.mean()
                    meters[k].update(loss.detach().cpu().numpy())
                    cur_loss = meters[k].avg
                    logs[l.__class__.__name__] = cur_loss
                loss_total.backward()
                opt.step()
        """,
        [],
    ),
    Example(
        # the loss itself logged: its graph is kept until the next iteration overwrites it
        "the_loss_itself_logged_under_its_name",
        """\
        def train(model, loader, opt, losses):
            logs = {}
            for x, y in loader:
                opt.zero_grad()
                loss_total = 0
                for k, l in enumerate(losses):
                    loss = l(model(x), y)
                    loss_total += loss.mean()
                    cur_loss = loss
                    logs[l.__class__.__name__] = cur_loss
                loss_total.backward()
                opt.step()
        """,
        [(10, "TW011")],
    ),
    Example(
        # a measure written as a module that keeps nothing on self is a criterion: what
        # it returns is a loss, summed here with its graph over the test set
        "a_metric_module_summed_over_the_test_set",
        METRIC_MODULE
        + """\
rmse = RMSE()
for epoch in range(epochs):
    for x, y in train_loader:
        optimizer.zero_grad()
        F.mse_loss(net(x), y).backward()
        optimizer.step()
    total = 0
    for x, y in val_loader:
        total += rmse(net(x), y)
    print(float(total) / len(val_loader))
        """,
        [(16, "TW011"), (16, "TW012")],
    ),
)
