"""More TW010 examples: where an eval() does not leak into a training step."""

from __future__ import annotations

from ._registry import Example

# a step whose train() and backward() each stand under an if: of the same test or another
_GUARDED_STEP = """\
    def train_step(model, x, with_params, optimizer):
        if with_params:
            model.train()
            optimizer.zero_grad()
        loss = model(x).sum()
        if {test}:
            loss.backward()
            optimizer.step()

    @torch.no_grad()
    def evaluate(model, x):
        model.eval()
        return model(x).sum().item()

    def run(model, x, optimizer, epochs, with_params, log):
        for epoch in range(epochs):
            train_step(model, x, with_params, optimizer)
            evaluate(model, x)
    """

_EARLY_STOP = """\
def fit(model, loader, test_loader, optimizer, epochs):
    for epoch in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            model(x).sum().backward()
            optimizer.step()
        if should_stop(epoch):
            model.load_state_dict(best_state)
            model.eval()
            with torch.no_grad():
                print(model(x).mean().item())
            break
{after}"""
_SECOND_PHASE = """\
    for x, y in loader:
        optimizer.zero_grad()
        model(x).mean().backward()
        optimizer.step()
"""

_EACH_PASS = """\
    def train(model, loader, optimizer):
        for x, y in loader:
            optimizer.zero_grad()
            F.cross_entropy(model(x), y).backward()
            optimizer.step()

    def search(model, grid, loader, device):
        for lr in grid:
            {build}
            optimizer = torch.optim.Adam(model.parameters(), lr=lr)
            train(model, loader, optimizer)
            model.eval()
            with torch.no_grad():
                print(model(x).argmax(1).eq(y).float().mean().item())
    """

_INPUT_GRADIENT = """\
    def scores(net, loader, optimizer, epsilon):
        for epoch in range(3):
            net.eval()
            for images, labels in loader:
                images = Variable(images, requires_grad=True)
                net.zero_grad()
                net(images).softmax(1).max().backward()
                {step}
                perturbed = images - epsilon * torch.sign(images.grad)
                with torch.no_grad():
                    print(net(perturbed).max().item())
    """

_COPIES = """\
    def rounds(loader, optimizer_class, n):
        fuse = nn.Linear(4, 4)
        head = nn.Linear(4, 2)
        optim = optimizer_class([*fuse.parameters(), *head.parameters()])
        fusehead = copy.deepcopy(fuse)
        finetunehead = copy.deepcopy(head)
        optimi = optimizer_class([*fusehead.parameters(), *finetunehead.parameters()])
        for i in range(n):
            for x, y in loader:
                optim.zero_grad()
                fuse.train()
                head.train()
                F.cross_entropy(head({first}(x)), y).backward()
                optim.step()
            for x, y in loader:
                optimi.zero_grad()
                fusehead.train()
                finetunehead.train()
                F.cross_entropy(finetunehead(fusehead(x)), y).backward()
                optimi.step()
            with torch.no_grad():
                fusehead.eval()
                finetunehead.eval()
                print(finetunehead(fusehead(x)).argmax(1).eq(y).float().mean().item())
    """

_OTHER_MODEL = """\
def fit(model, pre_model, loader, mlm_loader, criterion, epochs):
    optimizer = torch.optim.AdamW(model.parameters())
    mlm_optimizer = torch.optim.AdamW(pre_model.parameters())
    for epoch in range(epochs):
        model.train()
        for x, y in loader:
            optimizer.zero_grad()
            criterion(model(x), y).backward()
            optimizer.step()
        model.eval()
        with torch.no_grad():
            print(sum(criterion(model(x), y).item() for x, y in loader))
        pre_model.train()
        for x in mlm_loader:
            loss = pre_model(x)
            loss.backward()
            total = loss.item()
            {clip}
            mlm_optimizer.step()
            pre_model.zero_grad()
"""

MORE_EXAMPLES = (
    Example(
        # the attack runs backward() for the perturbation and steps nothing; the model's
        # own step comes after its train()
        "an_attack_before_the_models_train_is_no_training_step",
        """\
        def attack_pgd(model, x, y, eps):
            delta = torch.zeros_like(x).uniform_(-eps, eps)
            delta.requires_grad_()
            F.cross_entropy(model(x + delta), y).backward()
            return (delta + eps * delta.grad.sign()).detach()

        for epoch in range(epochs):
            for x, y in loader:
                delta = attack_pgd(model, x, y, 8 / 255)
                model.train()
                optimizer.zero_grad()
                F.cross_entropy(model(x + delta), y).backward()
                optimizer.step()
            model.eval()
            with torch.no_grad():
                print(model(x_val).argmax(1).eq(y_val).float().mean().item())
        """,
        [],
    ),
    Example(
        # the same test picks both the eval() and the train() that undoes it
        "eval_and_train_under_the_same_test",
        """\
            def run(self, epochs):
                for epoch in range(epochs):
                    if epoch % 10 == 0:
                        self.model.eval()
                        if self.train_cameras:
                            self.pose.eval()
                        self.plot()
                        self.model.train()
                        if self.train_cameras:
                            self.pose.train()
                    for x, y in self.loader:
                        loss = self.model(x, self.pose(y)).mean()
                        self.optimizer.zero_grad()
                        loss.backward()
                        self.optimizer.step()
            """,
        [],
    ),
    Example(
        # eval() on the epoch's last batch; the next epoch starts with train()
        "eval_on_the_last_batch_of_the_epoch",
        """\
            def fit(model, loader, optimizer, epochs):
                for epoch in range(epochs):
                    model.train()
                    for i, x in enumerate(loader):
                        optimizer.zero_grad()
                        model(x).pow(2).mean().backward()
                        optimizer.step()
                        if i == len(loader) - 1:
                            model.eval()
                            scores = evaluator.eval(sample_fn)
            """,
        [],
    ),
    Example(
        # test() leaves net2 in eval(); warmup(net1) trains net1 only, and the
        # training calls that use net2 set its mode themselves
        "a_training_call_that_does_not_run_the_model_in_eval",
        """\
            def warmup(net, optimizer, loader):
                net.train()
                for x, y in loader:
                    optimizer.zero_grad()
                    F.cross_entropy(net(x), y).backward()
                    optimizer.step()

            def test(net1, net2):
                net1.eval()
                net2.eval()

            for epoch in range(epochs):
                if epoch < warm_up:
                    warmup(net1, optimizer1, loader)
                    warmup(net2, optimizer2, loader)
                test(net1, net2)
            """,
        [],
    ),
    Example(
        # last round's models, copied, put in eval() and frozen: references, not trained
        "previous_models_frozen_as_references",
        """\
            for round in range(rounds):
                for net in nets:
                    for x, y in loader:
                        optimizer.zero_grad()
                        F.cross_entropy(net(x), y).backward()
                        optimizer.step()
                old_nets = copy.deepcopy(nets)
                for net in old_nets:
                    net.eval()
                    for p in net.parameters():
                        p.requires_grad = False
            """,
        [],
    ),
    Example(
        # compute_accuracy() restores the mode it found: it trains nothing, and the
        # global model's eval() before the clients train is its business
        "a_helper_that_restores_train_mode_is_no_training",
        """\
            def local_train(nets, global_model, loaders):
                for k, net in nets.items():
                    optimizer = torch.optim.SGD(net.parameters(), lr=0.01)
                    for x, y in loaders[k]:
                        optimizer.zero_grad()
                        loss = F.cross_entropy(net(x), y) + prox(net, global_model)
                        loss.backward()
                        optimizer.step()

            @torch.no_grad()
            def compute_accuracy(model, loader):
                was_training = model.training
                model.eval()
                acc = sum((model(x).argmax(1) == y).sum().item() for x, y in loader)
                if was_training:
                    model.train()
                return acc

            for round in range(rounds):
                global_model.eval()
                local_train(nets, global_model, loaders)
                print(compute_accuracy(global_model, test_loader))
            """,
        [],
    ),
    Example(
        # the rollout's policy in eval(); the step after it is the discriminator's
        "another_models_step_after_a_rollout_in_eval",
        """\
            class GAIL:
                def act(self, state):
                    self.pi.eval()
                    with torch.no_grad():
                        return self.pi(state).sample().numpy()

                def train(self, env, iterations, horizon, labels):
                    opt_d = torch.optim.Adam(self.d.parameters())
                    opt_pi = torch.optim.Adam(self.pi.parameters())
                    for i in range(iterations):
                        obs = env.reset()
                        for t in range(horizon):
                            obs = env.step(self.act(obs))
                        opt_d.zero_grad()
                        F.binary_cross_entropy(self.d(obs), labels).backward()
                        opt_d.step()
                        self.pi.train()
                        opt_pi.zero_grad()
                        (-self.pi(obs).mean()).backward()
                        opt_pi.step()
            """,
        [],
    ),
    Example(
        # the training function sets the mode itself, one way or the other
        "a_training_call_that_sets_the_mode_either_way",
        """\
            def train_one_epoch(model, focal_net, loader, optimizer, optimizer_focal, refine):
                model.train()
                if refine:
                    focal_net.train()
                else:
                    focal_net.eval()
                for x in loader:
                    optimizer.zero_grad()
                    optimizer_focal.zero_grad()
                    model(x, focal_net(0)).mean().backward()
                    optimizer.step()
                    optimizer_focal.step()

            optimizer = torch.optim.Adam(model.parameters())
            optimizer_focal = torch.optim.Adam(focal_net.parameters())
            for epoch in range(epochs):
                train_one_epoch(model, focal_net, loader, optimizer, optimizer_focal, epoch > 9)
                focal_net.eval()
                with torch.no_grad():
                    print(focal_net(0))
            """,
        [],
    ),
    Example(
        # an optimizer class of the file, a forward per task inside the batch loop and an
        # early stopper of the file handed the model: still a leak
        "an_optimizer_class_of_the_file_and_an_early_stopper",
        """\
            class BertAdam(Optimizer):
                def step(self, closure=None):
                    pass

            class EarlyStopping:
                def __call__(self, val_loss, model):
                    torch.save(model.state_dict(), "best.pt")

            class Trainer:
                def fit(self, batches, val_x, epochs, tasks):
                    groups = [{"params": [p for n, p in self.model.named_parameters()]}]
                    optimizer = BertAdam(groups, 1e-3)
                    if val_x is not None:
                        self.stopper = EarlyStopping()
                    for epoch in range(epochs):
                        for x, y in batches:
                            optimizer.zero_grad()
                            loss = 0
                            for task in range(tasks):
                                loss = loss + F.mse_loss(self.model(x, task), y)
                            loss.backward()
                            optimizer.step()
                        self.model.eval()
                        with torch.no_grad():
                            val_loss = self.model(val_x, 0).mean()
                        self.stopper(val_loss, self.model)
            """,
        [(23, "TW010")],
    ),
    Example(
        # the attack optimises its perturbation with an optimizer of its own (DDN): stepping
        # SGD([delta]) trains no model, and the model's own step comes after its train()
        "an_attack_that_steps_an_optimizer_over_its_perturbation",
        """\
        class DDN:
            def attack(self, model, x, y):
                delta = torch.zeros_like(x, requires_grad=True)
                optimizer = torch.optim.SGD([delta], lr=1)
                for _ in range(self.steps):
                    loss = -F.cross_entropy(model(x + delta), y)
                    optimizer.zero_grad()
                    loss.backward()
                    optimizer.step()
                return (x + delta).detach()

        attacker = DDN()
        for epoch in range(epochs):
            model.train()
            for x, y in loader:
                model.eval()
                adv = attacker.attack(model, x, y)
                model.train()
                optimizer.zero_grad()
                F.cross_entropy(model(adv), y).backward()
                optimizer.step()
        """,
        [],
    ),
    Example(
        # fit() reaches train_one_epoch(), whose first act is model.train(): the fold's
        # eval() is undone before any training step of the next fold
        "a_method_whose_callee_sets_train_mode_first",
        """\
        class Pipeline:
            def train_one_epoch(self, loader):
                self.model.train()
                for x, y in loader:
                    self.optimizer.zero_grad()
                    F.cross_entropy(self.model(x), y).backward()
                    self.optimizer.step()

            def fit(self, loader, epochs):
                for epoch in range(epochs):
                    self.train_one_epoch(loader)

            def cross_validate(self, folds):
                for loader, val_loader in folds:
                    self.optimizer = torch.optim.SGD(self.model.parameters(), lr=0.1)
                    self.fit(loader, 3)
                    self.model.eval()
                    with torch.no_grad():
                        print([self.model(x).argmax(1) for x, _ in val_loader])
        """,
        [],
    ),
    Example(
        # each validation runs on its own cadence: either one alone leaves eval mode behind
        "two_validations_on_their_own_cadences_both_leak",
        """\
        def validate(model, loader):
            model.eval()
            with torch.no_grad():
                return sum(model(x).argmax(1).eq(y).sum().item() for x, y in loader)

        def train(model, loader, val_loader, test_loader, opt):
            for epoch in range(10):
                for step, (x, y) in enumerate(loader):
                    opt.zero_grad()
                    F.cross_entropy(model(x), y).backward()
                    opt.step()
                    if step % 100 == 0:
                        validate(model, val_loader)
                    if step % 1000 == 0:
                        validate(model, test_loader)
        """,
        [(13, "TW010"), (15, "TW010")],
    ),
    Example(
        # the second eval() runs whenever the first did: the leak is reported there, once
        "a_later_eval_that_always_runs_is_the_one_reported",
        """\
        def validate(model, loader):
            model.eval()
            with torch.no_grad():
                return sum(model(x).argmax(1).eq(y).sum().item() for x, y in loader)

        def train(model, loader, val_loader, opt):
            for epoch in range(10):
                for x, y in loader:
                    opt.zero_grad()
                    F.cross_entropy(model(x), y).backward()
                    opt.step()
                if epoch % 5 == 0:
                    validate(model, val_loader)
                validate(model, val_loader)
        """,
        [(14, "TW010")],
    ),
    Example(
        # one optimizer over two models' parameters: both are trained, and the evaluation
        # helper's eval() leaks into the next step of each
        "two_models_under_one_optimizer",
        """\
        @torch.no_grad()
        def evaluate(model, variational, data):
            model.eval()
            return sum(model(variational(x)).mean().item() for x in data)

        model = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.Dropout(0.1))
        variational = torch.nn.Linear(4, 4)
        optimizer = torch.optim.RMSprop(list(model.parameters()) + list(variational.parameters()))
        for step in range(10000):
            x = next(train_ds)
            optimizer.zero_grad()
            model(variational(x)).mean().backward()
            optimizer.step()
            if step % 100 == 0:
                print(evaluate(model, variational, valid_data))
        """,
        [(15, "TW010")],
    ),
    Example(
        # train() under the same test as the backward and step: it runs whenever they do
        "train_under_the_test_that_guards_the_step",
        _GUARDED_STEP.format(test="with_params"),
        [],
    ),
    Example(
        # train() under another test than the step's: the step may run in eval mode
        "train_under_another_test_than_the_step",
        _GUARDED_STEP.format(test="log"),
        [(18, "TW010")],
    ),
    Example(
        # early stopping: the best weights are tested in eval() and the loop breaks; no
        # training step follows
        "eval_then_break_with_nothing_trained_after",
        _EARLY_STOP.format(after=""),
        [],
    ),
    Example(
        # ... but a second phase trained after the loop runs in eval mode when it broke
        "eval_then_break_before_a_second_training_phase",
        _EARLY_STOP.format(after=_SECOND_PHASE),
        [(9, "TW010")],
    ),
    Example(
        # a checkpoint saved with torch.save() after the test: saving keeps the eval mode
        "eval_in_a_test_helper_then_the_model_saved",
        """\
        def train(loader, model, optimizer):
            for x, y in loader:
                loss = F.mse_loss(model(x), y)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()

        def test(loader, model):
            model.eval()
            with torch.no_grad():
                return sum(float(F.l1_loss(model(x), y)) for x, y in loader)

        def save_model(path, model):
            torch.save(model, path)

        model = nn.Linear(4, 1)
        optimizer = torch.optim.Adam(model.parameters())
        for epoch in range(10):
            train(train_loader, model, optimizer)
            test(val_loader, model)
            save_model(f"{epoch}.pth", model)
        """,
        [(20, "TW010")],
    ),
    Example(
        # a hyper-parameter search: each pass builds a new model (in train mode) before its
        # training and test, so the eval() of one pass never reaches the next pass's model
        "eval_of_a_model_built_anew_each_pass",
        _EACH_PASS.format(build="model = nn.Linear(4, 2)"),
        [],
    ),
    Example(
        # ... but moving the same model (or wrapping it) builds nothing new
        "eval_of_a_model_moved_each_pass",
        _EACH_PASS.format(build="model = model.to(device)"),
        [(12, "TW010")],
    ),
    Example(
        # ODIN: backward() for the gradient of the input, in a scope that steps nothing
        "eval_then_backward_for_an_input_gradient",
        _INPUT_GRADIENT.format(step=""),
        [],
    ),
    Example(
        # ... an optimizer step in the same loop makes it a training step again
        "eval_then_backward_and_a_step",
        _INPUT_GRADIENT.format(step="optimizer.step()"),
        [(3, "TW010")],
    ),
    Example(
        # each round first trains fuse and head (their own train()), then fine-tunes copies
        # of them (train() before each step) and tests the copies in eval(): the next
        # round's first step builds its loss from fuse and head alone
        "eval_of_copies_that_the_next_step_does_not_run",
        _COPIES.format(first="fuse"),
        [],
    ),
    Example(
        # ... but a first step that runs the eval()'d copy trains it in eval mode
        "eval_of_a_copy_that_the_next_step_runs",
        _COPIES.format(first="fusehead"),
        [(22, "TW010")],
    ),
    Example(
        # after the evaluation, another model's training pass (its loss logged and clipped
        # before its own optimizer steps): the evaluated model is not trained until the
        # next epoch's train()
        "eval_then_another_models_step_after_logging_and_clipping",
        _OTHER_MODEL.format(clip="torch.nn.utils.clip_grad_norm_(pre_model.parameters(), 1.0)"),
        [],
    ),
    Example(
        "eval_then_a_step_of_the_evaluated_models_optimizer",
        _OTHER_MODEL.format(clip="")
        .replace("loss = pre_model(x)", "loss = model(x)")
        .replace("mlm_optimizer.step()", "optimizer.step()"),
        [(10, "TW010")],
    ),
)
