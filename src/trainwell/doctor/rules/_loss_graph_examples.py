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
    Example(
        # a trainer's step method, called once per batch, hands the loss tensor to a
        # tracker the object keeps: the tracker's sum holds every step's graph
        "a_step_method_keeps_the_loss_in_its_objects_tracker",
        """\
        class LossTracker:
            def __init__(self):
                self.total, self.count = 0, 0

            def update(self, value, n=1):
                self.total += value * n
                self.count += n

        class Trainer:
            def __init__(self, model, optimizer):
                self.model, self.optimizer = model, optimizer
                self.tracker = LossTracker()

            def train_step(self, x, y):
                self.optimizer.zero_grad()
                loss = F.cross_entropy(self.model(x), y)
                self.tracker.update(loss, x.size(0))
                loss.backward()
                self.optimizer.step()
        """,
        [(17, "TW011")],
    ),
    Example(
        # the same step keeping loss.item(), or a loss the object sums to backpropagate
        # itself every k calls: nothing kept by mistake
        "a_step_method_keeps_numbers_or_backpropagates_its_sum",
        """\
        class Trainer:
            def __init__(self, model, optimizer):
                self.model, self.optimizer = model, optimizer
                self.history, self.meta_loss, self.t = [], 0, 0

            def train_step(self, x, y):
                loss = F.cross_entropy(self.model(x), y)
                self.history.append(loss.item())
                self.meta_loss += loss
                self.t += 1
                if self.t % 4 == 0:
                    self.optimizer.zero_grad()
                    self.meta_loss.backward()
                    self.optimizer.step()
                    self.meta_loss = 0
        """,
        [],
    ),
    Example(
        # a validation loss computed, outside no_grad, from outputs that were computed under
        # it carries no graph: summing it across batches keeps nothing
        "a_loss_of_outputs_computed_under_no_grad_keeps_no_graph",
        """\
        def validate(model, loader, criterion):
            model.eval()
            total, dev_loss = 0, []
            for x, y in loader:
                with torch.no_grad():
                    out, lengths = model(x)
                loss = criterion(out.view(-1, 10), y.reshape(-1))
                total += loss
                dev_loss.append(F.ctc_loss(out.transpose(0, 1), y, lengths, lengths))
            model.train()
            return total / len(loader), sum(dev_loss)
        """,
        [],
    ),
    Example(
        # the same sum with one forward outside no_grad keeps every batch's graph
        "a_loss_of_one_output_computed_with_autograd_on_keeps_its_graph",
        """\
        def validate(model, teacher, loader, criterion):
            model.eval()
            total = 0
            for x, y in loader:
                with torch.no_grad():
                    target = teacher(x)
                loss = criterion(model(x), target)
                total += loss
            model.train()
            return total / len(loader)
        """,
        [(8, "TW011")],
    ),
)
