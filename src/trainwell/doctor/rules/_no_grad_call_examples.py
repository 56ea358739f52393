"""More examples of TW012 (inference without no_grad), on how calls are read: functions
that train or evaluate by an argument, what runs a model, which forwards share a finding,
and when a caller's no_grad covers a helper. Run as tests beside the rule."""

from __future__ import annotations

from ._registry import Example

CALL_EXAMPLES = (
    # one function trains or evaluates by an argument: the literal a call passes decides
    Example(
        "function_switched_to_evaluation_by_a_literal",
        """\
        def run_epoch(model, loader, optimizer, mode="train"):
            total = 0.0
            for x, y in loader:
                loss = F.cross_entropy(model(x), y)
                if mode == "train":
                    optimizer.zero_grad()
                    loss.backward()
                    optimizer.step()
                total += loss.item()
            return total

        model = torch.nn.Linear(4, 2)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        for epoch in range(3):
            model.train()
            run_epoch(model, train_loader, optimizer)
            model.eval()
            run_epoch(model, val_loader, optimizer, mode="eval")
            run_epoch(model, test_loader, optimizer, mode="eval")
        """,
        [(18, "TW012")],
    ),
    Example(
        "function_switched_to_evaluation_under_no_grad",
        """\
        def backprop(model, data, optimizer, training=True):
            if training:
                for x in data:
                    loss = model(x).pow(2).mean()
                    optimizer.zero_grad()
                    loss.backward()
                    optimizer.step()
                return loss.item()
            else:
                return torch.stack([model(x) for x in data]).detach().numpy()

        model = torch.nn.Linear(4, 2)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        backprop(model, train_data, optimizer)
        model.eval()
        with torch.no_grad():
            scores = backprop(model, test_data, optimizer, False)
        """,
        [],
    ),
    Example(
        "function_switched_by_a_variable_is_not_known",
        """\
        def backprop(model, data, optimizer, training=True):
            if training:
                for x in data:
                    loss = model(x).pow(2).mean()
                    optimizer.zero_grad()
                    loss.backward()
                    optimizer.step()
                return loss.item()
            return torch.stack([model(x) for x in data]).detach().numpy()

        model = torch.nn.Linear(4, 2)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        for flag in flags:
            backprop(model, data, optimizer, flag)
        """,
        [(9, "TW012")],
    ),
    Example(
        # a layer without weights records no graph of its own: the finding is the model's
        "parameterless_layer_beside_the_model",
        """\
        def predict(model, loader):
            model.eval()
            up = torch.nn.Upsample(size=(299, 299), mode="bilinear")
            preds = []
            for x in loader:
                x = up(x)
                preds.append(F.softmax(model(x), 1).data.cpu().numpy())
            return preds

        predict(torch.nn.Linear(4, 2), [])
        """,
        [(7, "TW012")],
    ),
    Example(
        # the project's own no-grad decorator (utils.make_nograd_func wraps torch.no_grad)
        "evaluation_under_a_projects_no_grad_decorator",
        """\
        @make_nograd_func
        def test_sample(model, sample):
            model.eval()
            return model(sample).argmax(1).tolist()

        test_sample(torch.nn.Linear(4, 2), batch)
        """,
        [],
    ),
    Example(
        "parameterless_layer_built_and_run_at_once",
        """\
        def build_images(real_imgs, vis_size):
            real_imgs = nn.Upsample(size=(vis_size, vis_size), mode="bilinear")(real_imgs)
            real_imgs.add_(1).div_(2).mul_(255)
            return real_imgs.data.numpy()

        build_images(torch.randn(4, 3, 8, 8), 16)
        """,
        [],
    ),
    Example(
        # the generator head is part of the model whose encode() was just reported
        "a_submodule_of_the_reported_model",
        """\
        def inference_test(src, steps):
            model = make_model(11, 11, 2)
            model.eval()
            memory = model.encode(src)
            ys = src[:, :1]
            for i in range(steps):
                out = model.decode(memory, ys)
                prob = model.generator(out[:, -1])
                next_word = prob.argmax(1).data[0]
                ys = torch.cat([ys, torch.full((1, 1), next_word)], dim=1)
            print(ys)

        inference_test(src, 9)
        """,
        [(4, "TW012")],
    ),
    Example(
        # train() is run from another file; it trains through a helper on every call, so its
        # sample grid after each epoch runs with autograd on whatever the caller does
        "sampling_in_a_method_that_trains_through_a_helper",
        """\
        class Trainer:
            def __init__(self, generator, optimizer):
                self.G = generator
                self.opt = optimizer

            def _train_epoch(self, loader):
                for x in loader:
                    self.opt.zero_grad()
                    self.G(x).pow(2).mean().backward()
                    self.opt.step()

            def train(self, loader, epochs, fixed):
                frames = []
                for epoch in range(epochs):
                    self._train_epoch(loader)
                    frames.append(self.G(fixed).cpu().data.numpy())
                return frames
        """,
        [(16, "TW012")],
    ),
    Example(
        "sampling_in_a_method_that_trains_only_sometimes",
        """\
        class Trainer:
            def __init__(self, generator, optimizer):
                self.G = generator
                self.opt = optimizer

            def _train_epoch(self, loader):
                for x in loader:
                    self.opt.zero_grad()
                    self.G(x).pow(2).mean().backward()
                    self.opt.step()

            def run(self, loader, fixed, train):
                if train:
                    self._train_epoch(loader)
                return self.G(fixed).cpu().data.numpy()
        """,
        [],
    ),
    Example(
        # the global model's forward runs on every path: with partition="valid" it is inference
        "shared_epoch_function_of_a_global_model",
        """\
        model = torch.nn.Linear(4, 1)
        optimizer = torch.optim.Adam(model.parameters())

        def train(epoch, loader, partition="train"):
            total = 0.0
            for x, y in loader:
                if partition == "train":
                    optimizer.zero_grad()
                loss = (model(x) - y).abs().mean()
                if partition == "train":
                    loss.backward()
                    optimizer.step()
                total += loss.item()
            return total

        for epoch in range(10):
            train(epoch, train_loader)
            val_loss = train(epoch, val_loader, partition="valid")
        """,
        [(18, "TW012")],
    ),
    Example(
        "shared_epoch_function_whose_forward_is_only_on_the_training_path",
        """\
        model = torch.nn.Linear(4, 1)
        optimizer = torch.optim.Adam(model.parameters())

        def step(batches, partition="train"):
            n = 0
            for x, y in batches:
                if partition == "train":
                    optimizer.zero_grad()
                    (model(x) - y).abs().mean().backward()
                    optimizer.step()
                n += 1
            return n

        for epoch in range(10):
            step(train_batches)
            n = step(val_batches, partition="valid")
        """,
        [],
    ),
    Example(
        # extract_features() runs the network as forward() does
        "features_extracted_without_no_grad",
        """\
        def run(loader):
            model = InceptionI3d(400)
            model.train(False)
            for inputs, name in loader:
                features = model.extract_features(inputs)
                np.save(name, features.squeeze(0).data.cpu().numpy())

        run(loader)
        """,
        [(5, "TW012")],
    ),
    Example(
        # train() is run from another file and trains on every call: its validation epoch
        # through the shared helper is reported without a caller in sight
        "shared_epoch_method_switched_off_in_a_method_that_trains",
        """\
        class Solver:
            def train(self, epochs):
                for epoch in range(epochs):
                    self.model.train()
                    self._run_one_epoch(epoch)
                    self.model.eval()
                    val_loss = self._run_one_epoch(epoch, cross_valid=True)

            def _run_one_epoch(self, epoch, cross_valid=False):
                total = 0.0
                loader = self.tr_loader if not cross_valid else self.cv_loader
                for x, y in loader:
                    loss = F.mse_loss(self.model(x), y)
                    if not cross_valid:
                        self.optimizer.zero_grad()
                        loss.backward()
                        self.optimizer.step()
                    total += loss.item()
                return total
        """,
        [(7, "TW012")],
    ),
    Example(
        # plot() runs from a callback that fit() calls under no_grad, out of sight here
        "evaluation_in_a_callback_handed_to_the_trainer",
        """\
        def plot(net, x):
            net.eval()
            _, f = net(x)
            plt.plot(f.cpu().numpy()[0])

        def main(net, data):
            def plot_model(x, step):
                if step % 100 == 0:
                    plot(net, x)

            simple_fit(net, data, on_save_callback=plot_model)

        main(make_net(), data)
        """,
        [],
    ),
    Example(
        # an inference script turns autograd off for the thread once, in its set-up
        "autograd_turned_off_for_the_whole_script",
        """\
        class Inferer:
            def __init__(self, model):
                self.model = model
                self.model.eval()
                torch.autograd.set_grad_enabled(False)

            def evaluate(self, x):
                return F.softmax(self.model(x), dim=-1).cpu().numpy()

        print(Inferer(net).evaluate(batch))
        """,
        [],
    ),
    Example(
        # the same script without the switch: the forward records a graph for nothing
        "an_inference_script_that_leaves_autograd_on",
        """\
        class Inferer:
            def __init__(self, model):
                self.model = model
                self.model.eval()

            def evaluate(self, x):
                return F.softmax(self.model(x), dim=-1).cpu().numpy()

        print(Inferer(net).evaluate(batch))
        """,
        [(7, "TW012")],
    ),
    Example(
        # a function of the file that returns torch.no_grad() (or a no-op on old torch)
        "a_helper_that_returns_the_no_grad_context",
        """\
        def no_grad_ctx():
            if float(torch.__version__[0:3]) >= 0.4:
                return torch.no_grad()
            return contextlib.suppress()

        def evaluate(model, loader):
            model.eval()
            with no_grad_ctx():
                return [model(x).argmax(1) for x, _ in loader]

        evaluate(net, val_loader)
        """,
        [],
    ),
    Example(
        # a @contextmanager that freezes every parameter: forces need input gradients only
        "a_context_manager_that_freezes_the_parameters",
        """\
        @contextmanager
        def frozen(model):
            for p in model.parameters():
                p.requires_grad = False
            yield
            for p in model.parameters():
                p.requires_grad = True

        def evaluate(model, loader):
            with frozen(model):
                return [model(x).detach().cpu() for x, _ in loader]

        evaluate(net, val_loader)
        """,
        [],
    ),
    Example(
        # timm's NativeScaler: loss_scaler(loss, optimizer) runs backward() and step()
        "a_loss_scaler_call_is_the_training_step",
        """\
        with torch.no_grad():
            model.eval()
            for x, y in val_loader:
                psnr.append(batch_psnr(model(x), y).item())
        loss_scaler = NativeScaler()
        for epoch in range(epochs):
            for x, y in train_loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss_scaler(loss, optimizer, parameters=model.parameters())
        """,
        [],
    ),
    Example(
        # classifier(encoder(x)): two models in eval(), one finding for the line
        "two_models_on_one_line_give_one_finding",
        """\
        def evaluate(encoder, classifier, loader):
            encoder.eval()
            classifier.eval()
            for x, y in loader:
                preds = classifier(encoder(x))
                print(preds.argmax(1).eq(y).sum().item())

        evaluate(enc, clf, val_loader)
        """,
        [(5, "TW012")],
    ),
    Example(
        # a project's context manager asked for no-grad by keyword
        "a_context_called_with_no_grad_true",
        """\
        def save_latents(self):
            total = 0
            with utils.eval_mode(self.encoder, self.decoder, no_grad=True):
                for x in self.loader:
                    z = self.encoder(x)
                    total += F.mse_loss(self.decoder(z), x, reduction="sum")
                    self.latents.append(z.detach().cpu())
            return total.item()

        trainer.save_latents()
        """,
        [],
    ),
    Example(
        # model.train(False), then the model's predict(): its class is out of sight
        "predict_of_a_model_just_put_in_eval",
        """\
        def valid_epoch(model, loader):
            model.train(False)
            scores = []
            for batch in loader:
                scores.append(model.predict(batch).tolist())
            return scores

        for epoch in range(epochs):
            train_epoch(model, train_loader, optimizer)
            valid_epoch(model, val_loader)
        """,
        [(5, "TW012")],
    ),
    Example(
        # the model's own loss method, run after eval() for a validation number
        "a_loss_method_of_a_model_just_put_in_eval",
        """\
        def validate(model, loader):
            model.eval()
            total = 0.0
            for x in loader:
                loss, re, kl = model.calculate_loss(x)
                total += loss.item()
            return total / len(loader)

        for epoch in range(epochs):
            train(model, train_loader, optimizer)
            validate(model, val_loader)
        """,
        [(5, "TW012")],
    ),
    Example(
        # run() trains, so no caller wraps it in no_grad: its evaluation arm is said here
        # although only another file calls it
        "a_training_method_of_a_class_no_caller_here",
        """\
        class Agent:
            def __init__(self):
                self.qf = nn.Linear(4, 2)
                self.optimizer = torch.optim.Adam(self.qf.parameters())

            def run(self, env, batches):
                for obs, batch in zip(env, batches):
                    if self.eval_mode:
                        action = self.qf(obs).argmax().detach().cpu().numpy()
                        env.step(action)
                    else:
                        loss = F.mse_loss(self.qf(batch.obs), batch.target)
                        self.optimizer.zero_grad()
                        loss.backward()
                        self.optimizer.step()
        """,
        [(9, "TW012")],
    ),
    Example(
        # model_fn is a function handed the model (it sets autograd itself), not a model
        "a_model_fn_is_not_a_model",
        """\
        class Trainer:
            def __init__(self, model, model_fn):
                self.model, self.model_fn = model, model_fn

            def eval_epoch(self, loader):
                total = 0.0
                for batch in loader:
                    _, loss = self.model_fn(self.model, batch, is_eval=True)
                    total += loss.item()
                return total

        trainer = Trainer(net, make_model_fn(criterion))
        trainer.eval_epoch(val_loader)
        """,
        [],
    ),
    Example(
        # a model's set-up methods after eval() run no forward
        "set_up_methods_of_a_model_just_put_in_eval",
        """\
        def validate(model, loader):
            model.eval()
            model.reset_states()
            hidden = model.init_hidden(len(loader))
            return hidden

        for epoch in range(epochs):
            train(model, train_loader, optimizer)
            validate(model, val_loader)
        """,
        [],
    ),
    Example(
        # generate() of a library's model is decorated with @torch.no_grad() there
        "generate_of_a_model_just_put_in_eval",
        """\
        def sample(model, prompt):
            model.eval()
            return decode(model.generate(prompt, seq_len=256))

        for i in range(steps):
            train_step(model, optimizer)
            if i % 500 == 0:
                print(sample(model, prompt))
        """,
        [],
    ),
    Example(
        # self.dnn is a DNN, or a loaded model's: a model either way
        "a_model_attribute_built_or_loaded",
        """\
        class PINN:
            def __init__(self, checkpoint=None):
                if checkpoint is None:
                    self.dnn = DNN()
                else:
                    self.dnn = load_checkpoint(checkpoint).dnn

            def predict(self, x):
                self.dnn.eval()
                return self.dnn(x).detach().cpu().numpy()

        pinn = PINN()
        u = pinn.predict(x)
        """,
        [(10, "TW012")],
    ),
    Example(
        # parameters named for what they do, put in eval(): modules all the same
        "networks_named_for_their_role",
        """\
        def test(feature_extractor, class_classifier, loader):
            feature_extractor.eval()
            class_classifier.eval()
            correct = 0
            for x, y in loader:
                out = class_classifier(feature_extractor(x))
                correct += out.data.max(1)[1].eq(y).sum()
            return correct

        test(fe, cc, loader)
        """,
        [(6, "TW012")],
    ),
    Example(
        # test = test_nll or test = test_dice: the call runs either
        "either_of_two_functions_bound_to_one_name",
        """\
        def test_nll(model, loader):
            model.eval()
            return sum(F.nll_loss(model(x), y).item() for x, y in loader)

        def test_dice(model, loader):
            model.eval()
            return sum(dice(model(x), y).item() for x, y in loader)

        if args.dice:
            test = test_dice
        else:
            test = test_nll
        for epoch in range(epochs):
            train(model, loader, optimizer)
            test(model, val_loader)
        """,
        [(3, "TW012"), (7, "TW012")],
    ),
)
