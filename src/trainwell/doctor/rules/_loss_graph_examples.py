"""More examples of TW011 (a loss kept with its graph across iterations): what an average
meter reads back is a number. Run as tests beside the rule."""

from __future__ import annotations

from ._no_grad_what_runs_examples import METRIC_MODULE
from ._registry import Example

_SETDEFAULT = """\
def train(model, loader, optimizer, criterion):
    history = {{}}
    for epoch in range(3):
        for x, y in loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
            history.setdefault("loss", []).append({kept})
"""

_RUNNING_MEAN = """\
def train(model, loader, optimizer, criterion):
    for epoch in range(3):
        err = 0
        for i, (x, y) in enumerate(loader):
            with torch.set_grad_enabled(True):
                loss = criterion(model(x), y)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                err = {update}
        print(float(err))
"""

# a loop over range() that pulls the next batch each pass is a loop over batches
_DRAWN_EACH_PASS = """\
def evaluate(model, test_data, criterion):
    total = 0.0
    for _ in range(100):
        x, y = {draw}
        total += criterion(model(x), y)
    return total / 100
"""

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

# losses summed within one step (tasks, inner steps) against losses kept across steps
_GAN_AVERAGE = """\
def train(generator, discriminator, loader, optimizer_g):
    loss_g_avg = 0.0
    for real_a in loader:
        optimizer_g.zero_grad()
        pred_fake = discriminator(generator(real_a))
        loss_g = -torch.mean(pred_fake)
        loss_g.backward()
        optimizer_g.step()
        loss_g_avg += {kept}
    print(float(loss_g_avg))
"""

SUMMED_EXAMPLES = (
    Example(
        # per task, the losses of its inner steps, stacked into what the call returns
        "per_task_losses_stacked_into_what_is_returned",
        """\
        def forward(self, tasks, num_steps):
            total_losses = []
            for x, y in tasks:
                task_losses = []
                for step in range(num_steps):
                    loss, preds = self.net_forward(x, y)
                    task_losses.append(loss)
                total_losses.append(torch.sum(torch.stack(task_losses)))
            losses = {"loss": torch.mean(torch.stack(total_losses))}
            return losses

        def net_forward(self, x, y):
            preds = self.classifier(x)
            return F.cross_entropy(preds, y), preds
        """,
        [],
    ),
    Example(
        # ``loss`` rebound after the loop to a number for the report, then kept
        "a_report_number_named_loss_after_the_loop",
        """\
        def train(net, optimizer, batches):
            for x, y in batches:
                optimizer.zero_grad()
                loss, pred = net(x, y)
                loss.backward()
                optimizer.step()
            loss = binary_entropy(all_targets, all_preds)
            return loss, accuracy(all_targets, all_preds)

        for epoch in range(epochs):
            train_loss, train_acc = train(net, optimizer, batches)
            history[epoch] = train_loss
        """,
        [],
    ),
    Example(
        # AverageMeter.update() adds what it is given to self.sum: the loss tensor there
        "a_loss_tensor_handed_to_an_average_meter",
        """\
        class AverageMeter:
            def reset(self):
                self.sum, self.count = 0, 0

            def update(self, val, n=1):
                self.sum += val * n
                self.count += n

        def train_epoch(model, loader, optimizer):
            loss_meter = AverageMeter()
            acc_meter = AverageMeter()
            for x, y in loader:
                loss = F.cross_entropy(model(x), y)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                loss_meter.update(loss, x.shape[0])
                acc_meter.update(loss.item(), x.shape[0])
        """,
        [(17, "TW011")],
    ),
    Example(
        # terms of the loss, named for it, handed to a meter's update(**kwargs)
        "loss_terms_handed_to_a_meter_by_keyword",
        """\
        class Meter:
            def update(self, **kwargs):
                for k, v in kwargs.items():
                    self.sum[k] += kwargs[k]

        avg = Meter()
        for x, y in loader:
            outputs = model(x, y)
            cls_loss = torch.mean(outputs["losses"][0])
            loc_loss = torch.mean(outputs["losses"][1])
            loss = cls_loss + 0.5 * loc_loss
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            avg.update(cls_loss=cls_loss, loc_loss=loc_loss.item())
        """,
        [(15, "TW011")],
    ),
    Example(
        # La-MAML: the meta-losses of one call's inner updates, kept for _outer_update()
        "losses_of_the_inner_updates_kept_for_the_outer_update",
        """\
        class LaMAML:
            def _inner_updates(self, x, y):
                self.meta_losses = [0 for _ in range(self.n_inner)]
                for i in range(self.n_inner):
                    self.inner_update_step(self.fast_model, x[i], y[i])
                    self.meta_losses[i] = self.criterion(self.fast_model(x), y)
        """,
        [],
    ),
    Example(
        # an LBFGS closure: the total over the data is the loss of the one step
        "a_total_in_the_closure_of_an_lbfgs_step",
        """\
        def take_step(model, optimizer, loader):
            def closure():
                optimizer.zero_grad()
                total = torch.tensor(0.0)
                for x, y in loader:
                    loss = F.mse_loss(model(x), y) / len(loader)
                    loss.backward()
                    total += loss
                return total

            return optimizer.step(closure)
        """,
        [],
    ),
    Example(
        # the same sum without a training step after it: every iteration's graph kept
        "a_loss_summed_over_iterations_without_a_step",
        """\
        def evaluate(model, data, targets, n):
            total = 0
            for t in range(n):
                total += F.mse_loss(model(data[t]), targets[t])
            print(total.item() / n)
        """,
        [(4, "TW011")],
    ),
    Example(
        # the validation sum takes losses made under no_grad (no graph); the training
        # sum of the same name, after it, keeps every batch's graph
        "a_sum_of_no_grad_losses_then_of_training_losses",
        """\
        def run(model, train_loader, val_loader, optimizer, epochs):
            for epoch in range(epochs):
                sum_loss = 0
                for x, y in val_loader:
                    with torch.no_grad():
                        loss = F.cross_entropy(model(x), y)
                    sum_loss += loss
                sum_loss = 0
                for x, y in train_loader:
                    optimizer.zero_grad()
                    loss = F.cross_entropy(model(x), y)
                    loss.backward()
                    optimizer.step()
                    sum_loss += loss
        """,
        [(14, "TW011")],
    ),
    Example(
        # the full-batch loss is summed on purpose, then differentiated
        "a_sum_over_the_data_handed_to_a_gradient",
        """\
        def get_flat_grads(model, loader):
            loss, total = 0.0, 0
            for x, y in loader:
                loss += F.cross_entropy(model(x), y) * y.size(0)
                total += y.size(0)
            loss /= total
            return flat_grad(loss, model.parameters(), create_graph=True)
        """,
        [],
    ),
    Example(
        # what the loss function hands back beside its losses is no loss
        "predictions_kept_from_a_dict_of_losses",
        """\
        def train_epoch(model, loader, optimizer):
            predicted_all = []
            for x, y in loader:
                losses = model.unlabeled_loss(x, model(x))
                optimizer.zero_grad()
                losses["total"].backward()
                optimizer.step()
                predicted_all.append(losses["predicted_labels"])
        """,
        [],
    ),
    Example(
        # the forward ran under no_grad: the loss read off its output after the block
        # holds no graph, summing it keeps nothing; the training loss still does
        "a_loss_read_off_an_output_computed_under_no_grad",
        """\
        def evaluate(model, loader):
            losses = 0
            for batch in loader:
                with torch.no_grad():
                    outputs = model(**batch)
                loss = outputs.loss
                losses += loss.float()
            return losses / len(loader)

        def train(model, loader, optimizer):
            total = 0
            for batch in loader:
                outputs = model(**batch)
                loss = outputs.loss
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                total += loss
        """,
        [(18, "TW011")],
    ),
    Example(
        # each pass of range(n_updates) is a whole update (update() steps the optimizer):
        # the returned losses keep every update's graph until the caller reads them
        "losses_of_updates_a_helper_steps",
        """\
        class Actor(nn.Module):
            def __init__(self):
                super().__init__()
                self.pi = nn.Linear(4, 2)
                self.optimizer = torch.optim.Adam(self.pi.parameters())

            def update(self, o, a):
                self.optimizer.zero_grad()
                loss = F.mse_loss(self.pi(o), a)
                loss.backward()
                self.optimizer.step()
                return loss

            def multi_update(self, n_updates, buffer):
                losses = torch.zeros(n_updates)
                for i in range(n_updates):
                    loss = self.update(*buffer.sample())
                    losses[i] = loss
                return losses.mean()
        """,
        [(18, "TW011")],
    ),
    Example(
        # a term of the loss recomputed from the output and added up for the log
        "a_loss_term_of_the_output_summed_across_batches",
        _GAN_AVERAGE.format(kept="-torch.mean(pred_fake)"),
        [(9, "TW011")],
    ),
    Example(
        "a_loss_term_of_the_output_summed_as_a_number",
        _GAN_AVERAGE.format(kept="-torch.mean(pred_fake).item()"),
        [],
    ),
    Example(
        # no step in the loop: an evaluation pass, which TW012 is about
        "an_output_summed_where_nothing_trains",
        """\
        def evaluate(generator, discriminator, loader):
            total = 0.0
            with torch.no_grad():
                for real_a in loader:
                    total += torch.mean(discriminator(generator(real_a)))
            return total
        """,
        [],
    ),
    Example(
        # numpy adds up the logged numbers: the epoch's loss is a number, not a tensor
        "a_numpy_average_of_logged_losses_kept_per_epoch",
        """\
        import numpy as np


        class Solver:
            def train(self, epochs):
                epoch_loss_history = []
                for epoch_i in range(epochs):
                    batch_loss_history = []
                    for x, y in self.loader:
                        self.optimizer.zero_grad()
                        batch_loss = self.criterion(self.model(x), y)
                        batch_loss_history.append(batch_loss.item())
                        batch_loss.backward()
                        self.optimizer.step()
                    epoch_loss = np.sum(batch_loss_history) / len(self.loader)
                    epoch_loss_history.append(epoch_loss)
                    self.epoch_loss = epoch_loss
        """,
        [],
    ),
    Example(
        # self reaches every backward through self.model; self.train_loss does not (CGIB)
        "the_loss_summed_into_an_attribute_reset_each_epoch",
        """\
        class Trainer:
            def train(self, epochs):
                for epoch in range(epochs):
                    self.train_loss = 0
                    for x, y in self.loader:
                        self.optimizer.zero_grad()
                        loss = self.criterion(self.model(x), y)
                        loss.backward()
                        self.optimizer.step()
                        self.train_loss += loss
        """,
        [(10, "TW011")],
    ),
    Example(
        # the attribute is the loss that backward() runs on: summed on purpose
        "an_attribute_summed_for_one_backward",
        """\
        class Trainer:
            def train_step(self, batches):
                self.total = 0
                for x, y in batches:
                    self.total += self.criterion(self.model(x), y)
                self.optimizer.zero_grad()
                self.total.backward()
                self.optimizer.step()
        """,
        [],
    ),
    Example(
        # the list setdefault() makes is kept in the dict: the dict outlives the batch
        "losses_appended_to_a_list_made_by_setdefault",
        _SETDEFAULT.format(kept="loss"),
        [(9, "TW011")],
    ),
    Example(
        "numbers_appended_to_a_list_made_by_setdefault",
        _SETDEFAULT.format(kept="loss.item()"),
        [],
    ),
    Example(
        # a batch generator is a loader: each batch's validation loss is kept with its graph
        "validation_losses_of_a_batch_generator_kept",
        """\
        def score_model(model, criterion, datagen):
            partial = {}
            for x, y in datagen:
                partial.setdefault("sum", []).append(criterion(model(x), y))
            return {k: sum(v) / len(v) for k, v in partial.items()}
        """,
        [(4, "TW011")],
    ),
    Example(
        # a running mean of the loss tensor: each new mean references the old one
        "a_running_mean_of_the_loss_tensor",
        _RUNNING_MEAN.format(update="err * i / (i + 1) + loss / (i + 1)"),
        [(10, "TW011")],
    ),
    Example(
        "an_exponential_average_of_the_loss_tensor",
        _RUNNING_MEAN.format(update="0.9 * err + 0.1 * loss"),
        [(10, "TW011")],
    ),
    Example(
        "a_running_mean_of_the_loss_value",
        _RUNNING_MEAN.format(update="err * i / (i + 1) + loss.item() / (i + 1)"),
        [],
    ),
    Example(
        "losses_of_batches_pulled_with_a_next_method",
        _DRAWN_EACH_PASS.format(draw="test_data.next()"),
        [(5, "TW011")],
    ),
    Example(
        "losses_of_batches_pulled_with_next",
        _DRAWN_EACH_PASS.format(draw="next(test_data)"),
        [(5, "TW011")],
    ),
    Example(
        # the parts of one batch, not a new batch each pass: a sum handed back
        "losses_of_the_parts_of_one_batch_returned",
        _DRAWN_EACH_PASS.format(draw="test_data[_]"),
        [],
    ),
    Example(
        # a slot per discriminator, named by the method's parameter: overwritten each step
        "a_loss_kept_in_the_slot_of_a_parameter",
        """\
        class CycleGAN:
            def backward_D(self, name, real, fake):
                loss = self.gan_loss(self.nets[name](real), True) + self.gan_loss(
                    self.nets[name](fake.detach()), False
                )
                self.losses[name] = loss
                loss.backward()
        """,
        [],
    ),
)
