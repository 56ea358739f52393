"""TW012 examples on what names are bound to: a class held in a name before it is called,
and a function that trains or evaluates by one part of an ``and`` test. Run as tests
beside the rule."""

from __future__ import annotations

from ._registry import Example

BINDING_EXAMPLES = (
    Example(
        # the class is chosen first and called later: agent(...) builds an Agent
        "a_class_held_in_a_name_then_called",
        """\
        class Agent:
            def __init__(self, model):
                self.model = model

            def get_action(self, state):
                logits = self.model(torch.as_tensor(state))
                return logits.argmax(-1).cpu().numpy()

        agent = Agent
        agent = agent(torch.nn.Linear(4, 2))
        for step in range(1000):
            action = agent.get_action(state)
            state = env.step(action)
        """,
        [(6, "TW012")],
    ),
    Example(
        "a_class_held_in_a_name_rebound_to_a_factory_is_unknown",
        """\
        class Agent:
            def __init__(self, model):
                self.model = model

            def get_action(self, state):
                logits = self.model(torch.as_tensor(state))
                return logits.argmax(-1).cpu().numpy()

        agent = Agent
        agent = make_agent
        agent = agent(torch.nn.Linear(4, 2))
        for step in range(1000):
            action = agent.get_action(state)
            state = env.step(action)
        """,
        [],
    ),
    Example(
        # `is_train and not first` needs is_train: False switches every backward() off
        "function_switched_off_by_one_part_of_an_and_test",
        """\
        def train_or_eval(net, teacher, data, optim, is_train, first):
            net.train() if is_train else net.eval()
            for x, y in data:
                with torch.no_grad():
                    target = teacher(x)
                loss = F.mse_loss(net(x), target)
                if is_train and not first:
                    optim.zero_grad()
                    loss.backward()
                    optim.step()
                log(loss.item())

        for epoch in range(10):
            train_or_eval(net, teacher, train_data, optim, True, epoch == 0)
            train_or_eval(net, teacher, val_data, None, False, epoch == 0)
        """,
        [(15, "TW012")],
    ),
    Example(
        # `is_train or warmup`: either may run the backward(), is_train=False alone does not
        # switch it off
        "function_with_an_or_test_is_not_switched_off",
        """\
        def train_or_eval(net, data, optim, is_train, warmup):
            for x, y in data:
                loss = F.mse_loss(net(x), y)
                if is_train or warmup:
                    optim.zero_grad()
                    loss.backward()
                    optim.step()

        for epoch in range(10):
            train_or_eval(net, train_data, optim, True, epoch == 0)
            train_or_eval(net, val_data, optim, False, epoch == 0)
        """,
        [],
    ),
    Example(
        # the model's forward() turns autograd off itself when the call says so
        "a_forward_that_runs_under_no_grad_when_its_argument_says_so",
        """\
        class Seq2Seq(nn.Module):
            def forward(self, batch, is_eval=False):
                if is_eval:
                    self.eval()
                    with torch.no_grad():
                        loss = self.decode(batch)
                else:
                    self.train()
                    loss = self.decode(batch)
                return loss

        model = Seq2Seq()
        for step, batch in enumerate(train_loader):
            loss = model(batch)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            if step % 100 == 0:
                dev_loss = model(next(iter(dev_loader)), is_eval=True)
                print(dev_loss.item())
                test_loss = model(next(iter(test_loader)), is_eval=False)
                print(test_loss.item())
        """,
        [(21, "TW012")],
    ),
    Example(
        # the model's loss method takes the predictions made under no_grad: no forward
        "a_loss_method_of_predictions_made_under_no_grad",
        """\
        class TTS(nn.Module):
            def validate(self, loader):
                self.eval()
                total = 0.0
                for x, durations in loader:
                    with torch.no_grad():
                        out, predicted = self.forward(x)
                    total += self.loss_huber(predicted, durations).item()
                return total

            def fit(self, train_loader, val_loader, optimizer):
                for epoch in range(10):
                    self.train()
                    for x, durations in train_loader:
                        optimizer.zero_grad()
                        self.forward(x)[1].sub(durations).pow(2).mean().backward()
                        optimizer.step()
                    print(self.validate(val_loader))
        """,
        [],
    ),
    Example(
        # ... while a loss method handed the batch runs the forward itself
        "a_loss_method_of_the_batch_after_eval",
        """\
        model.eval()
        total = 0.0
        for x, durations in loader:
            total += model.compute_loss(x, durations).item()
        """,
        [(4, "TW012")],
    ),
    Example(
        # unwrap_model() names what it does, not a model: calling it is no forward
        "a_method_named_for_what_it_does_to_a_model_is_no_forward",
        """\
        class TorchDriver(Driver):
            @rank_zero_call
            def save_model(self, filepath, only_state_dict=True):
                model = self.unwrap_model()
                if only_state_dict:
                    states = {k: v.cpu().detach() for k, v in model.state_dict().items()}
                    torch.save(states, filepath)
                else:
                    torch.save(model, filepath)

            def save_checkpoint(self, folder):
                self.save_model(folder / "model.pt")
        """,
        [],
    ),
    Example(
        # eval() and the ONNX session's call sit in opposite arms of the same test
        "eval_and_a_forward_in_opposite_arms_of_the_same_test",
        """\
        class Learner:
            def predict_onnx(self, x):
                return self.model(x)

            def predict(self, x):
                with torch.no_grad():
                    return self.model(x)

            def predict_dl(self, dl):
                if self.onnx_mode:
                    log.info("ONNX runtime")
                else:
                    self.model.eval()
                for x, y in dl:
                    if self.onnx_mode:
                        z = self.predict_onnx(x)
                    else:
                        z = self.predict(x)
                    yield x, y, z

            def predict_dataset(self, dataset):
                return list(self.predict_dl(DataLoader(dataset)))
        """,
        [],
    ),
    Example(
        # a factory of the file builds the model from a class it is handed; eval() and
        # parameters() say what it returned. A bare torch.no_grad() statement does nothing.
        "a_model_built_by_a_factory_of_the_file",
        """\
        def build(model_input, in_channels, classes):
            model = model_input(in_channels, classes)
            return model

        net = build(MODELS[args.arch], 3, 1)
        opt = torch.optim.Adam(net.parameters())
        for epoch in range(epochs):
            net.train()
            for x, y in train_loader:
                opt.zero_grad()
                F.binary_cross_entropy_with_logits(net(x), y).backward()
                opt.step()
            net.eval()
            torch.no_grad()
            for x, y in val_loader:
                print(F.binary_cross_entropy_with_logits(net(x), y).item())
        """,
        [(16, "TW012")],
    ),
    Example(
        # the agent is a PPO or a SAC, as the arm of the if chose: both act by forward
        "an_agent_of_one_of_the_classes_of_an_if_acts_under_grad_mode",
        """\
        class PPO(nn.Module):
            def __init__(self):
                super().__init__()
                self.actor = nn.Linear(4, 2)

            def get_action(self, x):
                return self.actor(x)

        class SAC(nn.Module):
            def __init__(self):
                super().__init__()
                self.actor = nn.Linear(4, 2)

            def get_action(self, x):
                return torch.tanh(self.actor(x))

        if algo == "ppo":
            agent = PPO()
        elif algo == "sac":
            agent = SAC()
        for step in range(1000):
            action = agent.get_action(torch.as_tensor(state))
            state = env.step(action.cpu().numpy())
        """,
        [(22, "TW012")],
    ),
    Example(
        "an_agent_of_one_of_the_classes_of_an_if_acts_under_no_grad",
        """\
        class PPO(nn.Module):
            def __init__(self):
                super().__init__()
                self.actor = nn.Linear(4, 2)

            def get_action(self, x):
                return self.actor(x)

        class SAC(nn.Module):
            def __init__(self):
                super().__init__()
                self.actor = nn.Linear(4, 2)

            def get_action(self, x):
                return torch.tanh(self.actor(x))

        if algo == "ppo":
            agent = PPO()
        elif algo == "sac":
            agent = SAC()
        for step in range(1000):
            with torch.no_grad():
                action = agent.get_action(torch.as_tensor(state))
            state = env.step(action.cpu().numpy())
        """,
        [],
    ),
    Example(
        # train_net() computes its advantages with the critic and detaches them, then
        # steps: the targets of its own update, not an inference to report at its call
        "a_model_s_update_method_builds_its_targets_with_the_model",
        """\
        class PPO(nn.Module):
            def __init__(self):
                super().__init__()
                self.actor = nn.Linear(4, 2)
                self.critic = nn.Linear(4, 1)
                self.opt = torch.optim.Adam(self.parameters())

            def advantages(self, states, rewards):
                values = self.critic(states).detach()
                delta = (rewards + 0.99 * self.critic(states) - values).detach().numpy()
                adv, running = [], 0.0
                for d in reversed(delta):
                    running = 0.99 * running + d[0]
                    adv.append([running])
                return values, torch.tensor(adv[::-1])

            def train_net(self, states, rewards):
                values, adv = self.advantages(states, rewards)
                for i in range(3):
                    policy_loss = -(self.actor(states).sum(-1) * adv).mean()
                    loss = policy_loss + (self.critic(states) - adv - values).pow(2).mean()
                    self.opt.zero_grad()
                    loss.backward()
                    self.opt.step()

        agent = PPO()
        for epoch in range(10):
            agent.train_net(states, rewards)
        """,
        [],
    ),
    Example(
        # forward() runs the no_grad inference itself when the model is not trainable
        "a_forward_that_turns_autograd_off_by_the_model_s_own_state",
        """\
        class YOLO(nn.Module):
            def __init__(self, trainable=False):
                super().__init__()
                self.trainable = trainable
                self.head = nn.Conv2d(3, 5, 1)

            @torch.no_grad()
            def inference(self, x):
                return self.head(x).argmax(1)

            def forward(self, x):
                if not self.trainable:
                    return self.inference(x)
                return self.head(x)

        net = YOLO(trainable=True)
        net = torch.nn.SyncBatchNorm.convert_sync_batchnorm(net)
        for x, y in loader:
            loss = F.cross_entropy(net(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
        net.trainable = False
        net.eval()
        boxes = net(val_images).cpu().numpy()
        """,
        [],
    ),
    Example(
        # forward(reverse=True) returns reverse_flow(), whose body runs under no_grad
        "a_forward_whose_switch_returns_a_method_run_under_no_grad",
        """\
        class Glow(nn.Module):
            def __init__(self):
                super().__init__()
                self.flow = nn.Linear(4, 4)

            def reverse_flow(self, z):
                with torch.no_grad():
                    x = self.flow(z)
                return x

            def forward(self, x=None, z=None, reverse=False):
                if not reverse:
                    return self.flow(x)
                else:
                    return self.reverse_flow(z)

        graph = Glow()
        graph.eval()
        img = graph(z=torch.randn(1, 4), reverse=True)
        save_image(img.cpu())
        """,
        [],
    ),
    Example(
        # the same sampling without the switch records a graph
        "a_forward_whose_switch_is_not_passed_runs_under_grad_mode",
        """\
        class Glow(nn.Module):
            def __init__(self):
                super().__init__()
                self.flow = nn.Linear(4, 4)

            def reverse_flow(self, z):
                with torch.no_grad():
                    x = self.flow(z)
                return x

            def forward(self, x=None, z=None, reverse=False):
                if not reverse:
                    return self.flow(x)
                else:
                    return self.reverse_flow(z)

        graph = Glow()
        graph.eval()
        img = graph(x=torch.randn(1, 4))
        save_image(img.cpu())
        """,
        [(19, "TW012")],
    ),
    Example(
        # the class is the project's: a loss of its name, not a second model run
        "a_loss_class_of_the_project_named_in_lower_case",
        """\
        class yoloLoss(nn.Module):
            def forward(self, pred, target):
                return ((pred - target) ** 2).sum()

        criterion = yoloLoss()
        net = torchvision.models.resnet50()
        for images, target in train_loader:
            loss = criterion(net(images), target)
            opt.zero_grad()
            loss.backward()
            opt.step()
        validation_loss = 0.0
        for images, target in test_loader:
            with torch.no_grad():
                pred = net(images)
            loss = criterion(pred, target)
            validation_loss += loss.item()
        """,
        [],
    ),
    Example(
        # the agent's networks are attributes its class sets: alg.policy_net is a
        # PolicyNet, whose get_action() runs its forward; the noise is sized by the shape
        "a_model_held_in_an_attribute_of_an_object_of_the_file",
        """\
        class PolicyNet(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(3, 1)

            def get_action(self, state, noise_scale=1.0):
                action = self.fc(torch.as_tensor(state))
                noise = noise_scale * torch.randn(action.shape)
                return (action + noise).detach().cpu().numpy()

        class DDPG:
            def __init__(self):
                self.policy_net = PolicyNet()

        alg = DDPG()
        for step in range(1000):
            action = alg.policy_net.get_action(state)
            state = env.step(action)
        """,
        [(17, "TW012")],
    ),
    Example(
        # the old policy's log-probs go into the loss detached, inside ppo_loss(): part
        # of the update, as a target is
        "a_detached_argument_returned_in_a_tuple_feeds_the_caller_s_loss",
        """\
        def log_prob(policy, obs, actions):
            mean = policy(obs)
            return -((actions - mean) ** 2).sum(-1)


        def ppo_loss(policy, obs, actions, old_log_prob, adv):
            ratio = torch.exp(log_prob(policy, obs, actions) - old_log_prob.detach())
            return -(ratio * adv).mean(), ratio.mean().item()


        policy = nn.Linear(4, 2)
        opt = torch.optim.Adam(policy.parameters())
        for it in range(100):
            obs, actions, adv = rollout()
            old_log_prob = log_prob(policy, obs, actions)
            for epoch in range(4):
                loss, ratio = ppo_loss(policy, obs, actions, old_log_prob, adv)
                opt.zero_grad()
                loss.backward()
                opt.step()
        """,
        [],
    ),
    Example(
        # eval_step() runs under no_grad; predict() is a Sigmoid layer over its output,
        # a layer without weights that records no graph of its own
        "a_layer_without_weights_over_an_output_made_under_no_grad",
        """\
        class GCN(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(8, 3)
                self.opt = torch.optim.Adam(self.parameters())

            def predict(self, preds):
                return nn.Sigmoid()(preds)

            def train_step(self, x, y):
                self.train()
                preds = self.fc(x)
                loss = F.binary_cross_entropy_with_logits(preds, y)
                self.opt.zero_grad()
                loss.backward()
                self.opt.step()
                return loss.item()

            def eval_step(self, x, y):
                self.eval()
                with torch.no_grad():
                    preds = self.fc(x)
                    loss = F.binary_cross_entropy_with_logits(preds, y)
                return loss, self.predict(preds)


        def evaluate(model, x, y):
            loss, probs = model.eval_step(x, y)
            return loss.item(), (probs > 0.5).float().mean().item()


        def run(model, data):
            for epoch in range(10):
                model.train_step(*data.train)
                print(evaluate(model, *data.val))


        run(GCN(), data)
        """,
        [],
    ),
    Example(
        # one eval() opens one sampling block: its two loops are one region of the model
        "one_finding_for_a_sampling_block_of_two_loops_after_one_eval",
        """\
        def tensor2numpy(x):
            return x.detach().cpu().numpy().transpose(1, 2, 0)


        def train(gen, opt, loader, test_images, iters):
            for step in range(iters):
                x, y = next(loader)
                loss = F.l1_loss(gen(x), y)
                opt.zero_grad()
                loss.backward()
                opt.step()
                if step % 100 == 0:
                    gen.eval()
                    grid = []
                    for _ in range(5):
                        grid.append(tensor2numpy(gen(next(loader)[0])[0]))
                    for _ in range(5):
                        grid.append(tensor2numpy(gen(next(test_images))[0]))
                    save_grid(grid, step)
                    gen.train()
        """,
        [(16, "TW012")],
    ),
    Example(
        # another framework's network, however it is named: OpenCV's DNN, a Keras model
        "a_network_of_another_framework_is_not_a_torch_model",
        """\
        import cv2
        import tensorflow as tf

        net = cv2.dnn.readNet("yolov3.weights", "yolov3.cfg")
        net.setInput(cv2.dnn.blobFromImage(image, 1 / 255.0, (416, 416)))
        outs = net.forward(output_layers)
        model = tf.keras.models.load_model("model.h5")
        print(model(images).numpy().argmax(1))
        """,
        [],
    ),
    Example(
        # ... while a torch model beside them is still one
        "a_torch_model_beside_another_frameworks_network",
        """\
        import cv2

        detector = cv2.dnn.readNet("yolov3.weights", "yolov3.cfg")
        net = torchvision.models.resnet18(num_classes=10)
        net.load_state_dict(torch.load("best.pt", weights_only=True))
        net.eval()
        print(net(images).argmax(1).tolist())
        """,
        [(7, "TW012")],
    ),
)
