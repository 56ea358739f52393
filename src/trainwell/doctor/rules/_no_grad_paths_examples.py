"""More examples of TW012 (inference without no_grad), on which path a forward is reached
by: a web route nested in a method, a literal argument that returns before a forward, a
``try`` under no_grad whose ``except`` retries with autograd on, the indices of
``torch.max`` kept for a metric, and a function handed to another thread or process, where
the caller's no_grad does not reach. Run as tests beside the rule."""

from __future__ import annotations

from ._registry import Example

# a distillation step whose caller sets the teacher's mode before handing it over
_KD_STEP = """\
    def train(student, teacher, loader, optimizer):
        student.train()
        for x, y in loader:
            soft = teacher(x).detach()
            loss = kd_loss(student(x), y, soft)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()

    student, teacher = torch.nn.Linear(4, 2), torch.nn.Linear(4, 2)
    teacher.load_state_dict(torch.load("teacher.pt", weights_only=True))
    {before_the_call}
    train(student, teacher, loader, torch.optim.SGD(student.parameters(), lr=0.1))
    """

PATH_EXAMPLES = (
    Example(
        # deploy()'s Flask route calls self.predict(): a caller with autograd on
        "a_route_nested_in_a_method_calls_predict",
        """\
        class Tagger:
            def __init__(self, model):
                self._model = model

            def predict(self, text):
                self._model.eval()
                tags = self._model(torch.tensor(text))[0]
                return [int(t) for t in tags]

            def deploy(self, app):
                @app.route("/predict")
                def predict():
                    return {"tags": self.predict(request.args["text"])}

                app.run()
        """,
        [(7, "TW012")],
    ),
    Example(
        # the same route under torch.no_grad(): nothing records a graph
        "a_route_nested_in_a_method_under_no_grad",
        """\
        class Tagger:
            def __init__(self, model):
                self._model = model

            def predict(self, text):
                self._model.eval()
                tags = self._model(torch.tensor(text))[0]
                return [int(t) for t in tags]

            def deploy(self, app):
                @app.route("/predict")
                def predict():
                    with torch.no_grad():
                        return {"tags": self.predict(request.args["text"])}

                app.run()
        """,
        [],
    ),
    Example(
        # reconstruct=True returns before the sampling loop: only the reconstruction runs
        # with autograd on (the other calls are under no_grad)
        "a_literal_argument_returns_before_a_forward",
        """\
        def generate(netG, noise, reconstruct=False, n=8):
            if reconstruct:
                rec = netG(noise)
                save_image(rec.detach())
                return rec
            for i in range(n):
                sample = netG(torch.randn_like(noise))
                save_image(sample.detach())

        netG = build_generator()
        with torch.no_grad():
            generate(netG, fixed_noise, n=50)
        out = generate(netG, fixed_noise, reconstruct=True)
        save_image((mask * out).detach())
        """,
        [(3, "TW012")],
    ),
    Example(
        # a match statement's cases are arms without an if test (the doctor stopped on
        # them with an internal error before)
        "a_forward_in_a_match_case",
        """\
        model = torch.nn.Linear(2, 2)
        model.eval()
        for x in loader:
            match mode:
                case "val":
                    print(model(x).argmax().item())
                case _:
                    pass
        """,
        [(6, "TW012")],
    ),
    Example(
        # the author tries no_grad first and retries with autograd on when the model needs
        # it (a VAE whose forward takes input gradients): the fallback is deliberate
        "an_except_fallback_of_a_no_grad_try",
        """\
        model = torch.nn.Linear(4, 2)
        model.eval()
        total = 0.0
        for x in eval_loader:
            try:
                with torch.no_grad():
                    out = model(x)
            except RuntimeError:
                out = model(x)
            total += out.sum().item()
        """,
        [],
    ),
    Example(
        # _, pred = torch.max(out, 1): the indices carry no graph, so the validation phase
        # keeps none of its forward's graph in the lists it concatenates for a logger
        "the_indices_of_torch_max_carry_no_graph",
        """\
        model = torch.nn.Linear(4, 2)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        for epoch in range(10):
            for phase in ["train", "val"]:
                if phase == "train":
                    model.train()
                else:
                    model.eval()
                preds = []
                for x, y in loaders[phase]:
                    out = model(x)
                    loss = F.cross_entropy(out, y)
                    if phase == "train":
                        opt.zero_grad()
                        loss.backward()
                        opt.step()
                    _, pred = torch.max(out, dim=1)
                    preds.append(pred.cpu())
                with torch.no_grad():
                    writer.log_confusion(phase, torch.cat(preds))
        """,
        [(11, "TW012")],
    ),
    Example(
        # the values of torch.max keep the graph: handed to code out of sight, they may
        # well be backpropagated there
        "the_values_of_torch_max_keep_the_graph",
        """\
        model = torch.nn.Linear(4, 2)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        for epoch in range(10):
            for phase in ["train", "val"]:
                if phase == "train":
                    model.train()
                else:
                    model.eval()
                scores = []
                for x, y in loaders[phase]:
                    out = model(x)
                    loss = F.cross_entropy(out, y)
                    if phase == "train":
                        opt.zero_grad()
                        loss.backward()
                        opt.step()
                    best, _ = torch.max(out, dim=1)
                    scores.append(best)
                bank.store_scores(phase, torch.cat(scores))
        """,
        [],
    ),
    Example(
        # grad mode is thread-local: the caller's no_grad does not reach the new process
        "a_function_handed_to_a_process_under_no_grad",
        """\
        def evaluate(model, loader):
            model.eval()
            for x, y in loader:
                pred = model(x).argmax(1)
                print((pred == y).float().mean().item())

        model = Net()
        model.share_memory()
        with torch.no_grad():
            worker = mp.Process(target=evaluate, args=(model, test_loader))
            worker.start()
        train(model, train_loader)
        """,
        [(4, "TW012")],
    ),
    Example(
        # the same process turns autograd off itself: nothing records a graph
        "a_function_handed_to_a_process_turns_autograd_off_itself",
        """\
        @torch.no_grad()
        def evaluate(model, loader):
            model.eval()
            for x, y in loader:
                pred = model(x).argmax(1)
                print((pred == y).float().mean().item())

        model = Net()
        model.share_memory()
        worker = mp.Process(target=evaluate, args=(model, test_loader))
        worker.start()
        train(model, train_loader)
        """,
        [],
    ),
    Example(
        # a pool's workers run partial(score, model) with autograd on
        "a_partial_mapped_over_a_pool",
        """\
        def score(model, batch):
            model.eval()
            logits = model(batch)
            return logits.argmax(1).tolist()

        model = load_model()
        with torch.no_grad(), ThreadPoolExecutor(4) as executor:
            labels = list(executor.map(partial(score, model), batches))
        """,
        [(3, "TW012")],
    ),
    Example(
        # a thread that trains records a graph on purpose
        "a_training_function_handed_to_threads",
        """\
        def worker(model, loader, optimizer):
            model.train()
            for x, y in loader:
                optimizer.zero_grad()
                loss = F.cross_entropy(model(x), y)
                loss.backward()
                optimizer.step()

        model = Net()
        model.share_memory()
        for rank in range(4):
            opt = torch.optim.SGD(model.parameters(), lr=0.01)
            threading.Thread(target=worker, args=(model, loaders[rank], opt)).start()
        """,
        [],
    ),
    Example(
        # a Ray actor's method runs in the actor's process: autograd on, whoever calls it
        "a_ray_actor_evaluates_with_autograd_on",
        """\
        @ray.remote(num_gpus=0.25)
        class Client:
            def __init__(self, model):
                self.model = model

            def test(self, loader):
                self.model.eval()
                correct = 0
                for x, y in loader:
                    correct += (self.model(x).argmax(1) == y).sum().item()
                return correct
        """,
        [(10, "TW012")],
    ),
    Example(
        # the same class run in the caller's process: nothing here calls test(), and a
        # caller elsewhere may wrap it in no_grad
        "a_plain_client_nobody_calls",
        """\
        class Client:
            def __init__(self, model):
                self.model = model

            def test(self, loader):
                self.model.eval()
                correct = 0
                for x, y in loader:
                    correct += (self.model(x).argmax(1) == y).sum().item()
                return correct
        """,
        [],
    ),
    Example(
        # compute_batch() also builds the training loss: the evaluation is said at its call
        # in evaluate(), not at the forward training needs
        "a_forward_shared_with_training_two_calls_below_an_eval",
        """\
        class Trainer:
            def compute_batch(self, batch):
                images, _ = batch
                outputs = self.model(images)
                return ((images - outputs) ** 2).sum()

            def evaluate(self, loader):
                return [self.compute_batch(batch).item() for batch in loader]

            def train(self, epochs):
                for epoch in range(epochs):
                    self.model.train()
                    for batch in self.train_iter:
                        self.optimizer.zero_grad()
                        loss = self.compute_batch(batch)
                        loss.backward()
                        self.optimizer.step()
                    self.model.eval()
                    print(sum(self.evaluate(self.val_iter)))
        """,
        [(8, "TW012")],
    ),
    Example(
        # eval() on the model puts its generator in eval mode too; the class is out of sight
        "a_submodule_of_a_model_in_eval_its_class_unseen",
        """\
        from models import *

        def generate_images(model, epoch):
            model.eval()
            noise = torch.randn(36, model.z_dim)
            images = model.G(noise)
            save_image(images.data, f"epoch_{epoch}.png")

        for epoch in range(10):
            train_epoch(model, loader)
            generate_images(model, epoch)
        """,
        [(6, "TW012")],
    ),
    Example(
        # a method of the model, not a submodule by its name: libraries run sample() under
        # no_grad themselves
        "a_method_of_a_model_in_eval_its_class_unseen",
        """\
        from models import *

        def generate_images(model, epoch):
            model.eval()
            images = model.sample(36)
            save_image(images.data, f"epoch_{epoch}.png")

        for epoch in range(10):
            train_epoch(model, loader)
            generate_images(model, epoch)
        """,
        [],
    ),
    Example(
        # a model that trains itself: self.eval() and then its own forward() for validation
        "a_model_validates_itself_through_its_forward",
        """\
        class Classifier(nn.Module):
            def forward(self, x):
                return self.fc(x)

            def train_model(self, epochs):
                optimizer = optim.Adam(self.parameters())
                for epoch in range(epochs):
                    self.train()
                    optimizer.zero_grad()
                    F.cross_entropy(self.forward(self.x_train), self.y_train).backward()
                    optimizer.step()
                    self.eval()
                    output = self.forward(self.x_val)
                    print((output.argmax(1) == self.y_val).float().mean().item())
        """,
        [(13, "TW012")],
    ),
    Example(
        # the same validation under no_grad
        "a_model_validates_itself_under_no_grad",
        """\
        class Classifier(nn.Module):
            def forward(self, x):
                return self.fc(x)

            def train_model(self, epochs):
                optimizer = optim.Adam(self.parameters())
                for epoch in range(epochs):
                    self.train()
                    optimizer.zero_grad()
                    F.cross_entropy(self.forward(self.x_train), self.y_train).backward()
                    optimizer.step()
                    self.eval()
                    with torch.no_grad():
                        output = self.forward(self.x_val)
                    print((output.argmax(1) == self.y_val).float().mean().item())
        """,
        [],
    ),
    Example(
        # self.G holds an argument of unknown class, but self.G.parameters() says it is a
        # module: the sample grid of the training loop runs it with autograd on
        "a_module_held_from_an_argument_samples_in_the_loop",
        """\
        class Trainer:
            def __init__(self, G):
                self.G = G

            def train(self, loader, fixed):
                opt = optim.Adam(self.G.parameters())
                for it, batch in enumerate(loader):
                    opt.zero_grad()
                    self.G(batch).sum().backward()
                    opt.step()
                    if it % 100 == 0:
                        x = self.G(fixed)
                        save_image(x.data, f"{it}.png")
        """,
        [(12, "TW012")],
    ),
    Example(
        # the same grid under no_grad
        "a_module_held_from_an_argument_samples_under_no_grad",
        """\
        class Trainer:
            def __init__(self, G):
                self.G = G

            def train(self, loader, fixed):
                opt = optim.Adam(self.G.parameters())
                for it, batch in enumerate(loader):
                    opt.zero_grad()
                    self.G(batch).sum().backward()
                    opt.step()
                    if it % 100 == 0:
                        with torch.no_grad():
                            x = self.G(fixed)
                        save_image(x.data, f"{it}.png")
        """,
        [],
    ),
    Example(
        # an evaluation script enters no_grad by hand for the rest of its function
        "no_grad_entered_by_hand",
        """\
        def main(model, test_set):
            model.eval()
            torch.no_grad().__enter__()
            for mix, sources in test_set:
                est = model(mix[None])
                print(sisdr(est, sources).item())

        main(torch.nn.Linear(4, 2), test_set)
        """,
        [],
    ),
    Example(
        # entered after the forward: the forward still records a graph
        "no_grad_entered_by_hand_too_late",
        """\
        def main(model, test_set):
            model.eval()
            for mix, sources in test_set:
                est = model(mix[None])
                print(sisdr(est, sources).item())
            torch.no_grad().__enter__()

        main(torch.nn.Linear(4, 2), test_set)
        """,
        [(4, "TW012")],
    ),
    Example(
        # the policy's class chosen by a conditional expression: its act() is either's
        "a_policy_of_a_class_chosen_by_a_conditional",
        """\
        class DiscretePolicy(nn.Module):
            def __init__(self, n_in, n_out):
                super().__init__()
                self.net = nn.Linear(n_in, n_out)

            def forward(self, s):
                return self.net(s).softmax(-1)

            def act(self, s):
                return torch.distributions.Categorical(self.forward(s)).sample().item()

        class ActorCritic(DiscretePolicy):
            def value(self, s):
                return self.net(s).sum()

        class PPO:
            def __init__(self, using_value):
                Policy = ActorCritic if using_value else DiscretePolicy
                self.policy_old = Policy(4, 2)

        ppo = PPO(True)
        state = env.reset()
        for t in range(1000):
            action = ppo.policy_old.act(torch.as_tensor(state))
            state, reward, done, _ = env.step(action)
        """,
        [(24, "TW012")],
    ),
    Example(
        # the caller puts the teacher in eval() and hands it over: frozen in the step too
        "a_teacher_handed_over_in_eval",
        _KD_STEP.format(before_the_call="teacher.eval()"),
        [(4, "TW012")],
    ),
    Example(
        # back in train() before the hand-over: a model the step may be meant to use so
        "a_model_handed_over_after_train_again",
        _KD_STEP.format(
            before_the_call="teacher.eval(); print(evaluate(teacher, val_loader)); teacher.train()"
        ),
        [],
    ),
    Example(
        # a frozen backbone in a train-or-validate function: inference in both phases
        "a_frozen_backbone_in_a_train_or_validate_function",
        """\
        def run(head, backbone, loader, optimizer, is_train):
            head.train() if is_train else head.eval()
            for x, y in loader:
                feats = backbone(x).detach()
                loss = F.cross_entropy(head(feats), y)
                if is_train:
                    optimizer.zero_grad()
                    loss.backward()
                    optimizer.step()

        backbone, head = torch.nn.Linear(4, 4), torch.nn.Linear(4, 2)
        backbone.eval()
        optimizer = torch.optim.SGD(head.parameters(), lr=0.1)
        for epoch in range(10):
            run(head, backbone, train_loader, optimizer, True)
            run(head, backbone, val_loader, optimizer, False)
        """,
        [(4, "TW012"), (16, "TW012")],
    ),
    Example(
        # a predictor's mode picks the arm; called for the second arm, its inference still
        # stands at the function's first forward of the model
        "a_mode_argument_picks_the_later_of_two_forwards",
        """\
        class Predictor:
            def __init__(self, model):
                model.eval()
                self.model = model

            def predict(self, x, mode="plain", n_samples=50):
                if mode == "plain":
                    pred = self.model(x)
                    print(pred.detach().numpy())
                elif mode == "with_uncertainty":
                    preds = []
                    for _ in range(n_samples):
                        pred = self.model(x)
                        preds.append(pred.detach().numpy())
                    print(np.var(preds))

        predictor = Predictor(build_model())
        predictor.predict(np.pi, mode="with_uncertainty")
        """,
        [(8, "TW012")],
    ),
)
