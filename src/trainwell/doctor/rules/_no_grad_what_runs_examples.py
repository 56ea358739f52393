"""More examples of TW012 (inference without no_grad), on what runs a network and what
does not: a project's plain ``Loss`` class, a tokenizer's decode() on an LLM wrapper, a
signal transform, a Sequential of feature transforms, a model name rebound to a lambda,
a gradient-penalty scope whose other forwards are still judged, and an output only plotted
by a function of the project.
Run as tests beside the rule."""

from __future__ import annotations

from ._registry import Example

# a measure written as a module that keeps nothing on self (TW011's examples use it too)
METRIC_MODULE = """\
class RMSE(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, fake, real):
        return torch.sqrt(torch.mean((real - fake) ** 2))

"""

_POLICY_HELPER = """\
def average_return(policy, env, episodes):
    total = 0.0
    for _ in range(episodes):
        obs, done = env.reset(), False
        while not done:
            obs, reward, done, _ = env.step(policy(obs))
            total += reward
    return total / episodes

for it in range(100):
    agent.update()
    print(average_return({policy}, env, 5))
"""

WHAT_RUNS_EXAMPLES = (
    Example(
        # the project's loss class is named plain Loss: a criterion, not a second model
        # run outside no_grad on the validation batch
        "a_project_loss_class_named_loss",
        """\
        class Loss(nn.Module):
            def forward(self, pred, target):
                return F.mse_loss(pred, target, reduction="sum")

        criterion = Loss()
        model = torch.nn.Linear(4, 2)
        model.eval()
        for x, y in val_loader:
            with torch.no_grad():
                preds = model(x)
            val_loss += criterion(preds, y).item()
        """,
        [],
    ),
    Example(
        # a metric written as a module that keeps nothing on self (no weights, so no graph
        # of its own): only the network's forward is inference without no_grad
        "a_metric_module_without_weights_is_no_second_model",
        METRIC_MODULE
        + """\
rmse = RMSE()
net = Net()
net.eval()
for x, y in val_loader:
    pred = net(x)
    total += rmse(pred, y).item()
        """,
        [(12, "TW012")],
    ),
    Example(
        # the same class keeping a layer on self has weights: a model of its own
        "a_module_that_keeps_a_layer_is_a_model",
        """\
        class Head(nn.Module):
            def __init__(self):
                super().__init__()
                self.proj = nn.Linear(4, 1)

            def forward(self, x):
                return self.proj(x)

        head = Head()
        for x, y in val_loader:
            score = head(x).mean().item()
        """,
        [(11, "TW012")],
    ),
    Example(
        # a model that trains itself: its fit() method's test loop trains nothing
        "the_test_loop_of_a_models_own_fit_method",
        """\
        class Dynamics(nn.Module):
            def __init__(self):
                super().__init__()
                self.net = nn.Linear(4, 4)

            def forward(self, x):
                return self.net(x)

            def fit(self, train_loader, test_loader, optimizer, epochs):
                for epoch in range(epochs):
                    for x, y in train_loader:
                        optimizer.zero_grad()
                        F.mse_loss(self.forward(x), y).backward()
                        optimizer.step()
                    test_error = 0.0
                    for x, y in test_loader:
                        test_error += F.mse_loss(self.forward(x), y).item()
        """,
        [(17, "TW012")],
    ),
    Example(
        # a method the model class inherits from its base class of the same file
        "an_inherited_method_of_a_model_class",
        """\
        class VAE(nn.Module):
            def __init__(self):
                super().__init__()
                self.encoder = nn.Linear(4, 2)

            def encode_batch(self, loader):
                return torch.cat([self.encoder(x).detach().cpu() for x in loader]).numpy()

        class ClusteringVAE(VAE):
            def init_centroids(self, loader):
                self.centroids.data.copy_(torch.from_numpy(self.encode_batch(loader)))

        model = ClusteringVAE()
        model.init_centroids(loader)
        latent = model.encode_batch(loader)
        """,
        [(14, "TW012")],
    ),
    Example(
        # the "policy" is the agent's get_action method, handed over as a function: its
        # code (maybe under no_grad) is out of sight, so no model runs here by its name
        "a_policy_function_handed_to_an_evaluation_helper",
        _POLICY_HELPER.format(policy="agent.get_action"),
        [],
    ),
    Example(
        # ... the agent's actor network itself is a model: its rollout is inference
        "a_policy_network_handed_to_an_evaluation_helper",
        _POLICY_HELPER.format(policy="agent.actor"),
        [(6, "TW012")],
    ),
    Example(
        # one name, two models trained and tested in turn by a library's trainer: each
        # model's test is an evaluation of its own
        "two_models_tested_in_turn_under_one_name",
        """\
        solver = Solver(model=FeedForward(1, 1))
        Trainer(solver).train()
        model = solver.model
        print(model(x_test).sub(y_test).abs().mean().item())
        solver = Solver(model=FNO(1, 1))
        Trainer(solver).train()
        model = solver.model
        print(model(x_test).sub(y_test).abs().mean().item())
        """,
        [(4, "TW012"), (8, "TW012")],
    ),
    Example(
        # ... but the same model moved or compiled under its name is one evaluation
        "one_model_rebound_to_itself_is_one_evaluation",
        """\
        model = Net()
        print(model(x_val).mean().item())
        model = torch.compile(model)
        print(model(x_test).mean().item())
        """,
        [(2, "TW012")],
    ),
    Example(
        # an LLM wrapper's decode() with a tokenizer's keywords turns ids into text; the
        # autoencoder's decode(z) is a forward
        "a_wrappers_tokenizer_decode_is_no_forward",
        """\
        model = torch.nn.Linear(4, 2)
        model.eval()
        for batch in loader:
            text = model.decode(batch["ids"], skip_special_tokens=True)
            images = model.decode(batch["z"])
            print(text, images.mean().item())
        """,
        [(5, "TW012")],
    ),
    Example(
        # a speech model's _forward_transform(stft) is a signal transform of its input;
        # its predict() after eval() is inference
        "a_forward_transform_is_no_forward",
        """\
        model = load_model(args.ckpt)
        model.eval()
        for y in noisy:
            Y = model._forward_transform(model._stft(y))
            X = model.predict_clean(Y)
            save(X.cpu().numpy())
        """,
        [(5, "TW012")],
    ),
    Example(
        # a WGAN-GP's penalty wants the gradient at its interpolates: that forward is used;
        # the critic's dev pass on real images later in the scope is inference all the same
        "a_gradient_penalty_scope_still_has_an_inference_pass",
        """\
        netD = torch.nn.Linear(4, 1)
        optD = torch.optim.Adam(netD.parameters())
        for it, (real, fake) in enumerate(loader):
            alpha = torch.rand(real.size(0), 1)
            interp = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
            grads = torch.autograd.grad(netD(interp).sum(), interp, create_graph=True)[0]
            optD.zero_grad()
            (netD(fake).mean() - netD(real).mean() + grads.norm(2, dim=1).mean()).backward()
            optD.step()
            if it % 100 == 0:
                for x in dev_images:
                    print(-netD(x).mean().item())
        """,
        [(12, "TW012")],
    ),
    Example(
        # the attack's delta wants gradients in the training loop; the test loop binds
        # delta anew and detaches it: its robust forward there is inference
        "a_detached_attack_input_wants_no_gradient",
        """\
        model = torch.nn.Linear(4, 2)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        for X, y in train_loader:
            delta = torch.zeros_like(X)
            delta.requires_grad = True
            F.cross_entropy(model(X + delta), y).backward()
            delta = (delta + 0.01 * delta.grad.sign()).detach()
            opt.zero_grad()
            F.cross_entropy(model(X + delta), y).backward()
            opt.step()
        model.eval()
        for X, y in test_loader:
            delta = attack_pgd(model, X, y)
            delta = delta.detach()
            robust = model(X + delta)
            print((robust.argmax(1) == y).sum().item())
        """,
        [(15, "TW012")],
    ),
    Example(
        # the model's own method runs the forward; a helper of the file turns it into a number
        "a_model_method_read_by_an_accuracy_helper",
        """\
        def accuracy(output, labels):
            return output.argmax(1).eq(labels).sum().item()

        def evaluate(model, idx, labels):
            model.eval()
            out = model.model_forward(idx)
            acc = accuracy(out, labels[idx])
            return acc

        print(evaluate(torch.nn.Linear(4, 2), val_idx, labels))
        """,
        [(6, "TW012")],
    ),
    Example(
        # the helper hands the graph back and the caller trains on it
        "a_model_method_read_by_a_helper_that_returns_its_graph",
        """\
        def scores(output, labels):
            return output.log_softmax(1).gather(1, labels[:, None])

        def step(model, idx, labels, opt):
            out = model.model_forward(idx)
            loss = -scores(out, labels).mean()
            loss.backward()
            opt.step()

        model = torch.nn.Linear(4, 2)
        step(model, idx, labels, torch.optim.SGD(model.parameters(), lr=0.1))
        """,
        [],
    ),
    Example(
        # a validation batch drawn inside the training loop after optimizer.step(): the
        # update is done, so nothing of this forward can reach its backward()
        "a_validation_batch_after_the_update_in_the_training_loop",
        """\
        class Recurrent(nn.Module):
            def __init__(self):
                super().__init__()
                self.cell = nn.Linear(4, 4)

            def loop(self, inputs):
                h = torch.zeros(4)
                for i in range(inputs.size(1)):
                    h = self.cell(inputs[:, i]) + h
                return h

        model = Recurrent()
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        for x, y in train_loader:
            loss = F.mse_loss(model.loop(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            x_val, y_val = next(val_iter)
            h = model.loop(x_val)
            val_losses.append(F.mse_loss(h, y_val).data)
        """,
        [(20, "TW012")],
    ),
    Example(
        # the batch accuracy computed before the update: the step's own business
        "a_batch_accuracy_before_the_update_in_the_training_loop",
        """\
        model = torch.nn.Linear(4, 2)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        for x, y in train_loader:
            loss = criterion(model(x), y)
            correct += (model(x).argmax(1) == y).sum().item()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        """,
        [],
    ),
    Example(
        # a normalizing flow's inverse pass is named backward(): samples drawn with it
        "a_flows_inverse_pass_named_backward",
        """\
        def sample_digits(model, n):
            model.eval()
            u = torch.zeros(n, 784).normal_(0, 1)
            samples, log_det = model.backward(u)
            return samples.detach().cpu().numpy()

        print(sample_digits(flow_model, 80))
        """,
        [(4, "TW012")],
    ),
    Example(
        # a DeepSpeed engine's backward(loss) is autograd's: the step trains
        "a_deepspeed_engines_backward_of_the_loss",
        """\
        engine, optimizer, _, _ = deepspeed.initialize(model=net, config=cfg)
        for batch in loader:
            out = engine(batch["x"])
            loss = F.cross_entropy(out, batch["y"])
            engine.backward(loss)
            engine.step()
        model = net
        model.train()
        for x, y in loader:
            loss = (model(x) - y).pow(2).mean()
            model.backward(loss)
        """,
        [],
    ),
    Example(
        # scikit-learn's metrics return NumPy values and floats: what reaches them is read
        "scores_read_only_by_a_scikit_learn_metric",
        """\
        from sklearn.metrics import roc_auc_score

        class Tester:
            def __init__(self, model):
                self.model = model

            def test(self, loader):
                labels, scores = [], []
                for x, y in loader:
                    labels.append(y)
                    scores.append(self.model(x)[:, 1])
                return roc_auc_score(torch.cat(labels), torch.cat(scores))

        tester = Tester(torch.nn.Linear(4, 2))
        save_aucs(tester.test(val_loader), "aucs.txt")
        """,
        [(11, "TW012")],
    ),
    Example(
        # the model's own forward_classifier() runs its evaluation branch under no_grad
        "a_model_method_with_its_own_no_grad_branch_read_by_a_metric",
        """\
        from sklearn.metrics import roc_auc_score

        class GNN(nn.Module):
            def __init__(self):
                super().__init__()
                self.mlp = nn.Linear(8, 2)

            def forward_classifier(self, batch, train):
                x, y = batch
                if train:
                    return F.cross_entropy(self.mlp(x), y)
                with torch.no_grad():
                    scores = self.mlp(x).softmax(1)[:, 1]
                return scores.cpu().numpy(), y.cpu().numpy()

        def test(model, batches):
            scores, labels = [], []
            for batch in batches:
                s, y = model.forward_classifier(batch, train=False)
                scores.append(s)
                labels.append(y)
            return roc_auc_score(np.concatenate(labels), np.concatenate(scores))

        save_result(test(GNN(), test_batches), "auc.txt")
        """,
        [],
    ),
    Example(
        # GAE targets built with the value head, kept on the agent, read by its update
        "targets_kept_on_the_object_for_its_update",
        """\
        class Agent:
            def __init__(self):
                self.critic = nn.Linear(4, 1)
                self.opt = torch.optim.Adam(self.critic.parameters())
                self.memory = {"state": [], "target": None, "advantage": []}

            def finish_path(self, rewards, next_states, states):
                target = rewards + 0.99 * self.critic(next_states)
                delta = (target - self.critic(states)).detach().numpy()
                self.memory["target"] = target.data
                self.memory["advantage"] += list(delta)

            def update(self):
                v = self.critic(torch.stack(self.memory["state"]))
                adv = torch.tensor(self.memory["advantage"])
                loss = (v - self.memory["target"]).pow(2).mean() - adv.mean()
                self.opt.zero_grad()
                loss.backward()
                self.opt.step()

        agent = Agent()
        for episode in range(100):
            rewards, next_states, states = play(agent)
            agent.finish_path(rewards, next_states, states)
            agent.update()
        """,
        [],
    ),
    Example(
        # a validation method that keeps its numbers on the trainer: still inference
        "validation_numbers_kept_on_a_trainer_that_trains",
        """\
        class Trainer:
            def __init__(self, model):
                self.model = model
                self.opt = torch.optim.Adam(model.parameters())
                self.history = {"val": []}

            def validate(self, loader):
                for x, y in loader:
                    loss = F.mse_loss(self.model(x), y)
                    self.history["val"].append(loss.item())

            def fit(self, loader, val_loader):
                for x, y in loader:
                    loss = F.mse_loss(self.model(x), y)
                    self.history["val"].append(0.0)
                    self.opt.zero_grad()
                    loss.backward()
                    self.opt.step()
                self.validate(val_loader)
        """,
        [(9, "TW012")],
    ),
    Example(
        # a model whose input gradients its evaluation takes as well (an energy's force
        # field read at test time): autograd is needed there, nothing to report
        "input_gradients_taken_at_evaluation_too",
        """\
        class Energy(nn.Module):
            def __init__(self):
                super().__init__()
                self.net = nn.Linear(3, 1)

            def forward(self, x):
                return self.net(x)

            def forces(self, x):
                x = x.requires_grad_(True)
                return -torch.autograd.grad(self(x).sum(), x, create_graph=True)[0]

            def train_step(self, x, f, opt):
                loss = F.mse_loss(self.forces(x), f)
                opt.zero_grad()
                loss.backward()
                opt.step()

            def evaluate(self, x, f):
                return F.mse_loss(self.forces(x), f).item()

        model = Energy()
        print(model.evaluate(x_test, f_test))
        """,
        [],
    ),
    Example(
        # an nn.Sequential of torchaudio transforms is a feature pipeline without weights,
        # run directly or by a plain class that holds it (set to None unless augmenting):
        # the spectrogram of a waveform that needs no gradient records no graph
        "a_sequential_of_feature_transforms_has_no_weights",
        """\
        from torchaudio.transforms import AmplitudeToDB, MelSpectrogram, Spectrogram, TimeMasking

        class WaveformProcessor:
            def __init__(self, rate, augment):
                modules = [MelSpectrogram(sample_rate=rate), AmplitudeToDB()]
                self.to_spectro = nn.Sequential(*modules)
                self.augment = None
                if augment:
                    self.augment = nn.Sequential(TimeMasking(8), nn.Identity())

            def __call__(self, waveforms):
                spectro = self.to_spectro(waveforms)
                if self.augment is not None:
                    spectro = self.augment(spectro)
                return spectro.permute(2, 0, 1)

        def show(waveform):
            trans = nn.Sequential(Spectrogram(n_fft=400), AmplitudeToDB())
            spectro = trans(waveform)
            plt.imshow(spectro[0])
            wp = WaveformProcessor(16000, True)
            features = wp(waveform)
            np.save("features.npy", features.detach().numpy())

        show(torch.randn(1, 16000))
        """,
        [],
    ),
    Example(
        # a Sequential with a layer that has weights is a model: its output, only printed,
        # records a graph for nothing
        "a_sequential_with_a_weighted_layer_is_a_model",
        """\
        from torchaudio.transforms import MelSpectrogram

        front = nn.Sequential(MelSpectrogram(sample_rate=16000), nn.Conv1d(128, 64, 3))
        features = front(torch.randn(1, 16000))
        np.save("features.npy", features.detach().numpy())
        """,
        [(4, "TW012")],
    ),
    Example(
        # the name the model had now holds a function of another runtime (an ONNX session):
        # calling it runs no torch module, after eval() or not
        "a_model_name_rebound_to_a_lambda_runs_no_module",
        """\
        model = nn.Linear(3, 2)
        model.eval()
        dummy = torch.randn(1, 3)
        torch.onnx.export(model, dummy, "m.onnx")
        session = ort.InferenceSession("m.onnx")
        model = lambda x: session.run(None, {"input": x.numpy()})[0]
        for _ in range(10):
            out = model(dummy)
        print(out)
        """,
        [],
    ),
    Example(
        # a project function that plots what it is given keeps none of it for a backward
        "an_evaluation_output_only_plotted_by_a_project_function",
        """\
        from utils import plot_reconstructions


        def evaluate(model, loader):
            for x, _ in loader:
                x_mean = model(x)
                plot_reconstructions(x, x_mean)


        evaluate(net, test_loader)
        """,
        [(6, "TW012")],
    ),
)
