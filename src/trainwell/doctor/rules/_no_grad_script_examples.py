"""Examples of TW012 (inference without no_grad) in inference scripts and trainer classes:
a model frozen whole before its forward, a data transform named like a model of the file,
a GAN trainer whose discriminator method takes ``*images``, and a project's own alias of
no_grad; a function a gradio app runs (``button.click(predict, ...)``), in gradio's worker
threads with autograd on. Run as tests beside the rule."""

from __future__ import annotations

from ._registry import Example

# double DQN: the online network's argmax picks the actions whose target-network values
# make the target; an argmax that only chooses the next action in the environment (kept
# in a replay buffer for later) is inference
_DOUBLE_DQN = """\
    class Agent:
        def __init__(self):
            self.q = nn.Linear(4, 2)
            self.q_target = nn.Linear(4, 2)
            self.optimizer = torch.optim.Adam(self.q.parameters())
            self.memory = []

        def learn(self, s, a, r, s2, done):
            if self.double:
                {choose}
            else:
                next_q = self.q_target(s2).max(1)[0].detach()
            target = r + 0.99 * next_q * (1 - done)
            loss = F.mse_loss(self.q(s).gather(1, a), target)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
    """

# a VAE's sampling method (a forward of the decoder) called every few batches: its samples
# saved are inference; samples bound to a name that nothing reads are a leftover, not a use
_SAMPLES = """\
    class VAE(nn.Module):
        def __init__(self):
            super().__init__()
            self.encoder = nn.Linear(8, 4)
            self.decoder = nn.Linear(2, 8)

        def forward(self, x):
            mean, log_var = self.encoder(x).chunk(2, dim=1)
            return self.decoder(mean), mean, log_var

        def inference(self, n):
            return self.decoder(torch.randn(n, 2))

    def train(loader, save):
        vae = VAE()
        optimizer = torch.optim.Adam(vae.parameters())
        for i, x in enumerate(loader):
            recon, mean, log_var = vae(x)
            loss = F.mse_loss(recon, x) - (1 + log_var - mean**2 - log_var.exp()).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            if i % 100 == 0:
                x = vae.inference(16){use}
    """

# a utility class of static and class methods: train_net() calls its validation through
# ``cls`` (or the class's name), as a plain function
# multi-source domain adaptation, full batch: a moment distance over the sources is
# computed in nested loops of the step and printed, while only the class loss is trained
_MOMENTS = """\
    extractor, head = nn.Linear(4, 8), nn.Linear(8, 2)
    optimizer = torch.optim.SGD([*extractor.parameters(), *head.parameters()], lr=0.1)
    for epoch in range(10):
        loss = F.cross_entropy(head(extractor(xs)), ys)
        moment = 0
        for k in range(1, 3):
            for x in sources:
                moment = moment + (extractor(x) ** k).mean(0).dist((extractor(xt) ** k).mean(0))
        print(f"moment distance {{moment.item():.4f}}")
        optimizer.zero_grad()
        loss.backward()
        optimizer.step(){after}
    """

# a perceptual metric: a VGG slice frozen in __init__ (its mean kept as a buffer), run
# over a validation loader; a trainable head beside the frozen trunk records a graph
_PERCEPTUAL = """\
    class Perceptual(nn.Module):
        def __init__(self):
            super().__init__()
            self.vgg = torchvision.models.vgg16(weights="DEFAULT").features[:16]
            for p in self.vgg.parameters():
                p.requires_grad = False
            self.register_buffer("mean", torch.tensor([0.485, 0.456, 0.406]).view(1, 3, 1, 1))
            self.pool = nn.AdaptiveAvgPool2d(1){head}

        def forward(self, x, y):
            return F.mse_loss(self.pool(self.vgg(x - self.mean)), self.pool(self.vgg(y - self.mean)))

    def score(loader):
        metric = Perceptual()
        total = 0.0
        for x, y in loader:
            total += metric(x, y).item()
        return total

    print(score(val_loader))
    """

# evolution strategies: the reward of a set of weights, its model bound by partial()
_PARTIAL_REWARD = """\
    import functools

    def reward(weights, model, render=False):
        total = 0.0
        for x in episodes:
            total += model(x).argmax().item()
        return total

    net = nn.Linear(4, 2)
    reward_of = functools.partial(reward, model=net)
    {call}
    """

_UTILS = """\
    class ModelUtils:
        @staticmethod
        def calc_valid_loss(net, loader):
            net.eval()
            losses = []
            for x, y in loader:
                losses.append(F.cross_entropy(net(x), y).item())
            return losses

        @classmethod
        def train_net(cls, net, optimizer, loader, valid_loader, epochs):
            net.train()
            for epoch in range(epochs):
                for x, y in loader:
                    optimizer.zero_grad()
                    F.cross_entropy(net(x), y).backward()
                    optimizer.step()
                val_losses = {caller}.calc_valid_loss(net, valid_loader)
                net.train()
    """

_TEMPLATE = """\
    def train_discriminator(D, G, d_optimizer, real, z):
        fake = G(z).detach()
        d_real = D(real)
        d_fake = D(fake)
        # To-Do: compute the discriminator loss
        {loss}
        d_optimizer.zero_grad()
        d_loss.backward()
        d_optimizer.step()
        return d_loss, d_real, d_fake

    def train_gan(loader):
        D = nn.Linear(2, 1)
        G = nn.Linear(2, 2)
        d_optimizer = torch.optim.Adam(D.parameters())
        for real, z in loader:
            d_loss, d_real, d_fake = train_discriminator(D, G, d_optimizer, real, z)
            print(d_loss.item(), d_real.mean().item(), d_fake.mean().item())
    """

_ETA = """\
    class Agent:
        def __init__(self):
            self.critic = nn.Linear(4, 1)
            self.critic_optimizer = torch.optim.Adam(self.critic.parameters())

        def optimize_eta(self, s):
            eta_func = nn.Linear(4, 1)
            opt = torch.optim.Adam(eta_func.parameters())
            opt.zero_grad()
            eta_func(s).sum().backward()
            opt.step()
            etas = torch.clamp(eta_func(s).detach(), 0, 1)
            return eta_func, etas

        def train(self, data):
            for s, r in data:
                _, etas = self.optimize_eta(s)
                target = r - etas
                loss = (self.critic(s) - target).pow(2).mean()
                self.critic_optimizer.zero_grad()
                loss.backward()
                self.critic_optimizer.step()
    """

SCRIPT_EXAMPLES = (
    Example(
        # requires_grad_(False) on the whole model before the forward: no graph is recorded,
        # after eval() or not
        "a_model_frozen_whole_before_an_inference_forward",
        """\
        def stylize(image_path, model_path, save_path):
            img = load_image(image_path).to(device)
            model = TransformationModel().to(device).eval()
            model.load_state_dict(torch.load(model_path, map_location=device))
            model.requires_grad_(False)
            out = model(img)
            save_image(postprocess(out).squeeze(0), save_path)

        def render(net, z):
            net.requires_grad_(False)
            return net(z).clamp(0, 1).cpu().numpy()

        stylize(args.image, args.model, args.out)
        print(render(Generator(), torch.randn(1, 8)))
        """,
        [],
    ),
    Example(
        # frozen, then thawed for fine-tuning elsewhere: the evaluation forward after
        # requires_grad_(True) records a graph again
        "a_model_thawed_before_its_forward_records_a_graph",
        """\
        def evaluate(model, loader):
            model.requires_grad_(False)
            model.requires_grad_(True)
            model.eval()
            correct = 0
            for x, y in loader:
                correct += (model(x).argmax(1) == y).sum().item()
            return correct

        print(evaluate(nn.Linear(4, 2), val_loader))
        """,
        [(7, "TW012")],
    ),
    Example(
        # ``transform = transforms.Compose(...)`` in a helper is a data transform, although
        # a ``transform`` model of the file is put in eval()
        "a_data_transform_named_like_a_model_of_the_file",
        """\
        from torchvision import transforms

        class Transform(nn.Module):
            def __init__(self, planes):
                super().__init__()
                self.conv = nn.Conv2d(planes, planes, 1)

            def forward(self, x):
                return self.conv(x)

        def test_transform():
            transform = transforms.Compose([transforms.ToTensor()])
            return transform

        transform = Transform(512)
        transform.eval()
        content_tf = test_transform()
        content = content_tf(Image.open(args.content)).unsqueeze(0)
        with torch.no_grad():
            out = transform(content)
        save_image(out, "out.png")
        """,
        [],
    ),
    Example(
        # the generator's output, detached, is what the discriminator's loss is built from
        # (through a method taking ``*images``): the update's business, not inference
        "a_gan_trainer_discriminates_through_a_varargs_method",
        """\
        class Trainer:
            def __init__(self, g_net, d_net, d_optimizer, criterion):
                self.g_net, self.d_net = g_net, d_net
                self.d_optimizer, self.criterion = d_optimizer, criterion

            def generate(self, lr_images):
                return self.g_net(lr_images)

            def discriminate(self, *images):
                return self.d_net(*images)

            def optimize_discriminator(self, loss):
                self.d_optimizer.zero_grad()
                loss.backward()
                self.d_optimizer.step()

            def train_discriminator(self, hr_images, lr_images):
                sr_images = self.generate(lr_images).detach()
                sr_labels = self.discriminate(sr_images)
                hr_labels = self.discriminate(hr_images)
                loss = self.criterion(sr_labels, hr_labels)
                self.optimize_discriminator(loss)

            def train(self, loader):
                for hr, lr in loader:
                    self.train_discriminator(hr, lr)
        """,
        [],
    ),
    Example(
        # a homework template whose loss is left to the student: d_loss is bound nowhere
        # (the caller's d_loss is another name), so what feeds its backward() is unknown;
        # with the loss unknown, the outputs handed back may well feed it
        "a_loss_left_unwritten_may_use_any_forward",
        _TEMPLATE.format(loss=""),
        [],
    ),
    Example(
        # a helper fits a small net, then returns it with its detached prediction, which the
        # caller makes the critic's target in the same update (RFQI's eta)
        "a_detached_prediction_returned_in_a_tuple_as_a_target",
        _ETA,
        [],
    ),
    Example(
        # a rollout's detached log-probabilities go to a buffer that a later update reads:
        # the rollout's forward was inference with autograd on
        "detached_log_probs_returned_in_a_tuple_to_a_buffer",
        """\
        class PPO:
            def __init__(self):
                self.actor = nn.Linear(4, 2)
                self.optimizer = torch.optim.Adam(self.actor.parameters())

            def get_action(self, obs):
                dist = torch.distributions.Categorical(logits=self.actor(obs))
                action = dist.sample()
                return action.numpy(), dist.log_prob(action).detach()

            def rollout(self, env, steps):
                obs_list, log_probs = [], []
                obs = env.reset()
                for _ in range(steps):
                    action, log_prob = self.get_action(obs)
                    obs_list.append(obs)
                    log_probs.append(log_prob)
                    obs = env.step(action)
                return torch.stack(obs_list), torch.stack(log_probs)

            def learn(self, env, advantages):
                obs, old_log_probs = self.rollout(env, 128)
                dist = torch.distributions.Categorical(logits=self.actor(obs))
                ratios = torch.exp(dist.log_prob(dist.sample()) - old_log_probs)
                loss = -(ratios * advantages).mean()
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
        """,
        [(7, "TW012")],
    ),
    Example(
        "double_dqn_argmax_of_the_online_network_makes_the_target",
        _DOUBLE_DQN.format(
            choose="index = self.q(s2).argmax(dim=1).unsqueeze(1)\n"
            "                next_q = self.q_target(s2).gather(1, index).detach()"
        ),
        [],
    ),
    Example(
        # the argmax only picks an action for the buffer; the loss never sees it
        "an_argmax_kept_in_a_replay_buffer_is_inference",
        _DOUBLE_DQN.format(
            choose="self.memory.append(self.q(s2).argmax(dim=1))\n"
            "                next_q = self.q_target(s2).max(1)[0].detach()"
        ),
        [(10, "TW012")],
    ),
    Example(
        "samples_saved_every_few_batches",
        _SAMPLES.format(use="\n                save(x.detach().numpy())"),
        [(24, "TW012")],
    ),
    Example(
        "samples_bound_and_never_read",
        _SAMPLES.format(use=""),
        [],
    ),
    Example(
        "validation_of_a_static_method_called_through_cls",
        _UTILS.format(caller="cls"),
        [(7, "TW012")],
    ),
    Example(
        "validation_of_a_static_method_called_through_its_class",
        _UTILS.format(caller="ModelUtils"),
        [(7, "TW012")],
    ),
    Example(
        # a moment-matching term computed in nested loops of the step and only printed:
        # a wasted graph, but the training step's own business
        "a_printed_term_in_nested_loops_of_the_step",
        _MOMENTS.format(after=""),
        [],
    ),
    Example(
        # a test loop after the full-batch update of the same iteration: evaluation
        "a_test_loop_after_a_full_batch_step",
        _MOMENTS.format(
            after="""
        correct = 0
        for x, t in test_loader:
            correct += (extractor(x).argmax(1) == t).sum().item()
        print(correct)"""
        ),
        [(15, "TW012")],
    ),
    Example(
        "a_metric_module_that_freezes_its_trunk_records_no_graph",
        _PERCEPTUAL.format(head=""),
        [],
    ),
    Example(
        "a_metric_module_with_a_trainable_head_records_a_graph",
        _PERCEPTUAL.format(head="\n            self.head = nn.Linear(256, 1)"),
        [(18, "TW012")],
    ),
    Example(
        # a fixed kernel kept in a buffer is no weight: the blur records no graph
        "a_blur_module_with_only_a_buffer_records_no_graph",
        """\
        class Blur(nn.Module):
            def __init__(self, k=5):
                super().__init__()
                self.register_buffer("kernel", torch.ones(1, 1, k, k) / k**2)

            def forward(self, x):
                return F.conv2d(x, self.kernel, padding=2)

        blur = Blur()
        maps = [blur(x).numpy() for x, _ in val_loader]
        """,
        [],
    ),
    Example(
        # a label-smoothing criterion written as a module keeps a torch loss, no weights:
        # the validation's one finding is the model's forward
        "a_criterion_module_in_validation_is_no_second_model",
        """\
        class LabelSmoothing(nn.Module):
            def __init__(self, smoothing=0.1):
                super().__init__()
                self.criterion = nn.KLDivLoss(reduction="sum")
                self.smoothing = smoothing

            def forward(self, x, target):
                dist = torch.full_like(x, self.smoothing).scatter_(1, target[:, None], 0.9)
                return self.criterion(x, dist)

        crit = LabelSmoothing()

        def valid(model, loader):
            model.eval()
            total = 0.0
            for x, y in loader:
                out = model(x)
                total += crit(out.log_softmax(-1), y).item()
            return total

        print(valid(net, val_loader))
        """,
        [(17, "TW012")],
    ),
    Example(
        "a_function_called_through_partial_runs_its_forward_here",
        _PARTIAL_REWARD.format(call="print(reward_of(None, render=True))"),
        [(6, "TW012")],
    ),
    Example(
        "a_function_called_through_partial_under_no_grad",
        _PARTIAL_REWARD.format(call="with torch.no_grad():\n        print(reward_of(None))"),
        [],
    ),
    Example(
        # a criterion built and called in one expression reads the logits like any loss
        "a_loss_built_and_called_inline_reads_the_logits",
        """\
        def test_clf(model, loader):
            losses = []
            for x, y in loader:
                logits = model(x)
                losses.extend(nn.CrossEntropyLoss(reduction="none")(logits, y).detach().numpy())
            return losses

        print(test_clf(net, test_loader))
        """,
        [(4, "TW012")],
    ),
    Example(
        # scDeepCluster: a method of the model puts it in eval() and runs its forwardAE()
        # for a k-means start; fit() calls it with autograd on
        "a_models_method_in_eval_runs_its_forward_named_forward_ae",
        """\
        class AE(nn.Module):
            def __init__(self):
                super().__init__()
                self.enc, self.dec = nn.Linear(4, 2), nn.Linear(2, 4)

            def forwardAE(self, x):
                z = self.enc(x)
                return z, self.dec(z)

            def encode_all(self, X):
                self.eval()
                z, _ = self.forwardAE(X)
                return z.data

            def fit(self, X, optimizer):
                centers = kmeans(self.encode_all(X).numpy())
                self.train()
                for x in X.split(32):
                    z, out = self.forwardAE(x)
                    loss = F.mse_loss(out, x)
                    optimizer.zero_grad()
                    loss.backward()
                    optimizer.step()
                return centers
        """,
        [(12, "TW012")],
    ),
    Example(
        # ARAE: the networks of a model of another file, named Enc, Gen, Cri, run after its
        # eval(): one evaluation of the model, said at the first
        "short_capitalised_submodules_of_an_unseen_model_after_eval",
        """\
        from arae import ARAE

        model = ARAE()
        model.load_state_dict(torch.load("arae.pt", weights_only=True))
        model.eval()
        for x, lengths in test_loader:
            z = model.Enc(x, lengths)
            print(model.Cri(z).mean().item(), model.Cri(model.Gen(noise)).mean().item())
        """,
        [(7, "TW012")],
    ),
    Example(
        # SR-LSTM: the model's forward bound to a name, then called per batch after eval()
        "a_models_forward_bound_to_a_name_and_called",
        """\
        class Processor:
            def __init__(self, net):
                self.net = net

            def val_epoch(self, loader):
                self.net.eval()
                forward = self.net.forward
                errors = []
                for x, y in loader:
                    out = forward(x, iftest=True)
                    errors.append((out - y).pow(2).mean().item())
                return errors


        p = Processor(torch.nn.Linear(2, 2))
        print(p.val_epoch(loader))
        """,
        [(10, "TW012")],
    ),
    Example(
        # the project's own name for torch.no_grad (config.py: NO_GRAD = torch.no_grad)
        "a_project_alias_of_no_grad",
        """\
        from config import NO_GRAD


        def val_epoch(model, loader):
            model.eval()
            with NO_GRAD():
                return [model(x).argmax(1) for x in loader]


        print(val_epoch(net, test_loader))
        """,
        [],
    ),
    Example(
        "a_function_a_gradio_button_runs",
        """\
        import gradio as gr

        model = torch.load("model.pt", weights_only=False)

        def predict(img):
            pred = model(torch.tensor(img).float())
            return pred.argmax(1).tolist()

        with gr.Blocks() as demo:
            image, label = gr.Image(), gr.Label()
            gr.Button("Predict").click(predict, [image], outputs=[label])
        demo.launch()
        """,
        [(3, "TW015"), (6, "TW012")],
    ),
)
