"""The examples of TW012 (inference without no_grad), run as tests beside the rule: each
mechanism of the data-flow rule with a case that must be reported and one that must not."""

from __future__ import annotations

from ._registry import Example

EXAMPLES = (
    Example(
        "inference_without_no_grad",
        """\
        def predict(model, xs):
            model.eval()
            return [model(x) for x in xs]

        predict(torch.nn.Linear(2, 2), [])
        """,
        [(3, "TW012")],
    ),
    Example(
        "inference_with_no_grad",
        """\
        @torch.no_grad()
        def predict(model, xs):
            model.eval()
            return [model(x) for x in xs]

        predict(torch.nn.Linear(2, 2), [])
        """,
        [],
    ),
    Example(
        "eval_inside_a_call_argument",
        """\
        def accuracy(model, loader):
            return sum((model(x).argmax(1) == y).sum() for x, y in loader)

        model = torch.nn.Linear(2, 2)
        acc = accuracy(model.eval(), val_loader)
        """,
        [(2, "TW012")],
    ),
    Example(
        "eval_inside_a_call_argument_no_grad",
        """\
        @torch.no_grad()
        def accuracy(model, loader):
            return sum((model(x).argmax(1) == y).sum() for x, y in loader)

        model = torch.nn.Linear(2, 2)
        acc = accuracy(model.eval(), val_loader)
        """,
        [],
    ),
    # by data flow: no eval() needed
    Example(
        "test_loop_without_eval",
        """\
        model = torch.nn.Linear(4, 2)
        for x, y in test_loader:
            preds = model(x).argmax(1)
            correct += (preds == y).sum().item()
        """,
        [(3, "TW012")],
    ),
    Example(
        "training_step_uses_its_forward",
        """\
        model = torch.nn.Linear(4, 2)
        for x, y in loader:
            out = model(x)
            loss = torch.nn.functional.cross_entropy(out, y)
            correct += (out.argmax(1) == y).sum().item()
            loss.backward()
        """,
        [],
    ),
    Example(
        "rollout_through_a_model_method",
        """\
        from torch.distributions import Categorical

        class Policy(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, 2)

            def pi(self, x):
                return torch.softmax(self.fc(x), -1)

        policy = Policy()
        action = Categorical(policy.pi(obs)).sample().item()
        """,
        [(12, "TW012")],
    ),
    Example(
        "rollout_kept_for_reinforce",
        """\
        class Policy(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, 2)
                self.saved = []

            def pi(self, x):
                return torch.softmax(self.fc(x), -1)

            def keep(self, prob):
                self.saved.append(prob)

        policy = Policy()
        prob = policy.pi(obs)
        policy.keep(prob[0])
        """,
        [],
    ),
    Example(
        "target_network_in_the_training_step",
        """\
        q, q_target = torch.nn.Linear(4, 2), torch.nn.Linear(4, 2)
        for s, r in loader:
            target = r + 0.99 * q_target(s).max(1)[0].detach()
            loss = torch.nn.functional.mse_loss(q(s).max(1)[0], target)
            loss.backward()
        """,
        [],
    ),
    Example(
        "frozen_teacher_output_detached",
        """\
        student, teacher = torch.nn.Linear(4, 2), torch.nn.Linear(4, 2)
        teacher.eval()
        for x in loader:
            soft = teacher(x).detach()
            loss = torch.nn.functional.mse_loss(student(x), soft)
            loss.backward()
        """,
        [(4, "TW012")],
    ),
    Example(
        "helper_metrics_from_a_returned_tuple",
        """\
        model = torch.nn.Linear(4, 2)

        def run(x, y):
            out = model(x)
            return torch.nn.functional.cross_entropy(out, y), (out.argmax(1) == y).sum()

        for x, y in val_loader:
            loss, correct = run(x, y)
            total += loss.item() + correct.item()
        """,
        [(4, "TW012")],
    ),
    Example(
        "validation_phase_without_grad_switch",
        """\
        model = torch.nn.Linear(4, 2)
        for phase in ["train", "val"]:
            for x, y in loaders[phase]:
                loss = torch.nn.functional.cross_entropy(model(x), y)
                if phase == "train":
                    loss.backward()
                total += loss.item()
        """,
        [(4, "TW012")],
    ),
    Example(
        "validation_phase_with_grad_switch",
        """\
        model = torch.nn.Linear(4, 2)
        for phase in ["train", "val"]:
            for x, y in loaders[phase]:
                with torch.set_grad_enabled(phase == "train"):
                    loss = torch.nn.functional.cross_entropy(model(x), y)
                if phase == "train":
                    loss.backward()
                total += loss.item()
        """,
        [],
    ),
    Example(
        "shape_smoke_test",
        """\
        model = torch.nn.Linear(4, 2)
        preds = model(torch.randn(3, 4))
        assert preds.shape == (3, 2)
        """,
        [],
    ),
    Example(
        "plot_of_a_fitted_line",
        """\
        model = torch.nn.Linear(1, 1)
        predicted = model(torch.from_numpy(x_train)).detach().numpy()
        plt.plot(x_train, predicted)
        """,
        [(2, "TW012")],
    ),
    Example(
        "output_handed_to_unknown_code",
        """\
        model = torch.nn.Linear(4, 2)
        for x, y in loader:
            out = model(x)
            trainer_update(out, y)
        """,
        [],
    ),
    Example(
        "detached_target_returned_through_helpers",
        """\
        def next_values(q_net, s2):
            return q_net(s2).detach().max(1)[0]

        def td_loss(q_net, s, a, r, s2):
            target = r + 0.99 * next_values(q_net, s2)
            return F.mse_loss(q_net(s).gather(1, a).squeeze(1), target)

        def learn(q_net, batch, take_step):
            take_step(td_loss(q_net, *batch))
        """,
        [],
    ),
    Example(
        "shared_helper_whose_loss_goes_to_unknown_code",
        """\
        def act(policy, state):
            out = policy(state)
            return out.tanh(), out.sum(1)

        def pick_action(policy, state):
            action, _ = act(policy, state)
            return action.detach().cpu().numpy()

        def actor_loss(policy, states):
            _, logp = act(policy, states)
            return -logp.mean()

        def run(policy, env, take_step):
            action = pick_action(policy, env.reset())
            take_step(actor_loss(policy, env.batch()))
        """,
        [(6, "TW012")],
    ),
    Example(
        "critic_frozen_before_its_dev_pass",
        """\
        for it in range(iters):
            for p in netD.parameters():
                p.requires_grad = True
            optD.zero_grad()
            (netD(real).mean() - netD(netG(z).detach()).mean()).backward()
            optD.step()
            for p in netD.parameters():
                p.requires_grad = False
            optG.zero_grad()
            (-netD(netG(z)).mean()).backward()
            optG.step()
            if it % 100 == 0:
                print(netD(dev_images).mean().item())
        """,
        [],
    ),
    Example(
        "wrapped_model_sampled_after_the_step",
        """\
        def train(generator, optimizer, loader, writer):
            generator.train()
            for i, (x, y) in enumerate(loader):
                optimizer.zero_grad()
                generator(x, y).mean().backward()
                optimizer.step()
                if i % 100 == 0:
                    (sample, *_), *_ = generator.module(x[:1], gen=True)
                    writer.add_image("sample", sample[0].data.cpu().numpy())
        """,
        [(8, "TW012")],
    ),
    Example(
        "model_chosen_by_name_in_branches",
        """\
        if arch == "vgg":
            detector = vgg16(classes)
        elif arch == "resnet":
            detector = resnet(classes)
        detector.eval()
        for images in loader:
            boxes = detector(images).data
            print(boxes)
        """,
        [(7, "TW012")],
    ),
    Example(
        "helper_that_sets_autograd_itself_returns_no_graph",
        """\
        class MetaLearner:
            def outer_loss(self, batch):
                mean_loss = torch.tensor(0.0)
                for train_x, train_y, test_x, test_y in zip(*batch["train"], *batch["test"]):
                    params = self.adapt(train_x, train_y)
                    with torch.set_grad_enabled(self.model.training):
                        mean_loss += self.loss_fn(self.model(test_x, params=params), test_y)
                return mean_loss, {"loss": mean_loss.item()}

            def adapt(self, x, y):
                loss = self.loss_fn(self.model(x), y)
                return update_parameters(self.model, loss)

            def evaluate(self, loader):
                self.model.eval()
                for batch in loader:
                    _, results = self.outer_loss(batch)
                    yield results

            def report(self, loader):
                return list(self.evaluate(loader))
        """,
        [],
    ),
    Example(
        "graph_collected_in_a_dict_of_lists",
        """\
        def render(rays, network):
            return {"rgb": network(rays).sigmoid()}

        def render_all(rays, network, chunk):
            outs = {}
            for i in range(0, len(rays), chunk):
                ret = render(rays[i:i + chunk], network)
                for k in ret:
                    if k not in outs:
                        outs[k] = []
                    outs[k].append(ret[k])
            return {k: torch.cat(outs[k]) for k in outs}

        def train(network, rays, target, optimizer):
            optimizer.zero_grad()
            ((render_all(rays, network, 64)["rgb"] - target) ** 2).mean().backward()
            optimizer.step()
        """,
        [],
    ),
    Example(
        "both_arms_of_an_if_rebind_the_output",
        """\
        def predict_batch(network, x):
            scores = network(x)
            if isinstance(scores, list):
                scores = [s.detach().numpy() for s in scores]
            else:
                scores = scores.detach().numpy()
            return scores

        def predict_epoch(network, loader):
            network.eval()
            return [predict_batch(network, x) for x, _ in loader]
        """,
        [(2, "TW012")],
    ),
    Example(
        "a_forward_method_of_the_model",
        """\
        def explain(network, loader):
            network.eval()
            return [network.forward_masks(x)[0].detach().numpy() for x in loader]

        explain(network, loader)
        """,
        [(3, "TW012")],
    ),
    Example(
        "a_hand_written_model_function",
        """\
        weight = torch.randn(1, requires_grad=True)
        bias = torch.zeros(1, requires_grad=True)

        def model(xb):
            return xb @ weight + bias

        for xb, yb in loader:
            loss = ((model(xb) - yb) ** 2).mean()
            loss.backward()
            with torch.no_grad():
                weight -= 0.01 * weight.grad
                bias -= 0.01 * bias.grad
                weight.grad.zero_()
                bias.grad.zero_()

        predicted = model(x_test).detach().numpy()
        """,
        [(16, "TW012")],
    ),
    Example(
        "one_name_two_models_trained_and_tested_in_turn",
        """\
        model = torch.nn.Linear(1, 1)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        for xb, yb in loader:
            optimizer.zero_grad()
            loss_fn(model(xb), yb).backward()
            optimizer.step()
        print(model(x_test).detach().numpy())

        model = Net()
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        for xb, yb in loader:
            optimizer.zero_grad()
            loss_fn(model(xb), yb).backward()
            optimizer.step()
        print(model(x_test).argmax(1))
        """,
        [(7, "TW012"), (15, "TW012")],
    ),
    Example(
        "frozen_teacher_output_to_a_loss_method_defined_elsewhere",
        """\
        class Distiller:
            def calculate_kd_loss(self, student_out, teacher_out, y):
                raise NotImplementedError

            def train_student(self, loader, epochs):
                self.teacher.eval()
                self.student.train()
                for epoch in range(epochs):
                    for x, y in loader:
                        loss = self.calculate_kd_loss(self.student(x), self.teacher(x), y)
                        self.optimizer.zero_grad()
                        loss.backward()
                        self.optimizer.step()
        """,
        [(10, "TW012")],
    ),
    Example(
        # the frozen feature extractor runs twice per step (support and query): one finding
        "frozen_teacher_run_twice_in_one_step",
        """\
        class FewShot:
            def train_step(self, loader):
                self.feat_model.eval()
                self.classifier.train()
                for support, query, y in loader:
                    f_support = self.feat_model(support)
                    f_query = self.feat_model(query)
                    loss = F.cross_entropy(self.classifier(f_support, f_query), y)
                    self.optimizer.zero_grad()
                    loss.backward()
                    self.optimizer.step()
        """,
        [(6, "TW012")],
    ),
    Example(
        "a_detached_value_a_loss_closure_reads",
        """\
        def update(policy_net, value_net, states, actions, optimizer):
            values = value_net(states)
            advantages = compute_advantages(values.data)

            def policy_loss():
                return -(policy_net.log_prob(states, actions) * advantages).mean()

            trust_region_step(policy_net, policy_loss)

        update(policy, critic, states, actions, optimizer)
        """,
        [],
    ),
    Example(
        "a_dicts_keys_are_not_its_graphs",
        """\
        def traverse(net, image, out_dir):
            net.eval()
            codes = {"image": net.encoder(image)}
            for key in codes.keys():
                make_gif(out_dir, key)
            return [net.decoder(z).sigmoid().data for z in codes.values()]

        traverse(net, image, "out")
        """,
        [(3, "TW012"), (6, "TW012")],
    ),
    Example(
        # an attribute of a model called without any input is a method, not a submodule
        "an_argless_method_of_a_model_runs_no_forward",
        """\
        def test(model, loader):
            model.eval()
            if model.net_name() == "region":
                shape = (0, 0)
            else:
                shape = (model.width, model.height)
            with torch.no_grad():
                return [model(x, shape).argmax(1) for x in loader]

        for epoch in range(epochs):
            train(model, train_loader, optimizer)
            test(model, val_loader)
        """,
        [],
    ),
    Example(
        # a flow's layers sit in an nn.ModuleList: layer.inverse(z) runs each one, so
        # model.inverse(z) is a forward, run here only for a plot (then once under no_grad)
        "sampling_through_the_layers_of_a_module_list_known_model",
        """\
        class Flow(nn.Module):
            def __init__(self, layers):
                super().__init__()
                self.layers = nn.ModuleList(layers)

            def inverse(self, z):
                for layer in reversed(self.layers):
                    z = layer.inverse(z)
                return z

        def main(layers, x, z, optimizer):
            model = Flow(layers)
            for _ in range(1000):
                optimizer.zero_grad()
                model(x).mean().backward()
                optimizer.step()
            samples = model.inverse(z).data
            plt.scatter(samples[:, 0], samples[:, 1])
            with torch.no_grad():
                plt.scatter(*model.inverse(z).T)
        """,
        [(17, "TW012")],
    ),
    Example(
        # an if that chooses evaluation or training holds two inference regions: acting
        # to evaluate, acting to explore before the update; the two forwards of one arm
        # share a finding
        "forwards_in_two_arms_of_an_if_are_two_regions",
        """\
        def update(policy_net, optimizer, batch):
            loss = policy_net(batch).pow(2).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()

        policy_net = torch.nn.Linear(4, 2)
        optimizer = torch.optim.Adam(policy_net.parameters())
        while True:
            if eval_mode:
                action = policy_net(torch.as_tensor(obs)).detach().numpy()
                value = policy_net(torch.as_tensor(obs)).max().item()
            else:
                action = policy_net(torch.as_tensor(obs)).argmax().item()
                if steps > 1000:
                    update(policy_net, optimizer, buffer.sample())
            obs, reward, done, _ = env.step(action)
        """,
        [(11, "TW012"), (14, "TW012")],
    ),
    Example(
        # arms that only choose between two ways to score are one evaluation region
        "forwards_in_two_arms_of_an_evaluation_are_one_region",
        """\
        model = torch.nn.Linear(4, 2)
        head_model = torch.nn.Linear(2, 2)
        model.eval()
        for x, labels in loader:
            feats = model(x)
            if add_loss == "ocsoftmax":
                score = head_model(feats)[:, 0]
            else:
                score = F.softmax(head_model(feats), dim=1)[:, 0]
            out.write(str(score.tolist()))
        """,
        [(5, "TW012"), (7, "TW012")],
    ),
)
