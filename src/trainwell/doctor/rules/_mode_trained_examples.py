"""TW010 examples: which models a training step trains (an optimizer's models, a client's
copy of the global model); a model the step is handed only to average weights into (SWA's
``swa_model``) is not trained by it, so its eval() for testing leaks into nothing."""

from __future__ import annotations

from ._registry import Example

# federated rounds: each client trains a deep copy of the global model, then the global
# model is tested in eval(); the copy keeps the eval() unless the client's train() undoes it
_FEDERATED = """\
    import copy

    class Client:
        def __init__(self, loader):
            self.loader = loader

        def train(self, net):
            {mode}optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
            for x, y in self.loader:
                optimizer.zero_grad()
                F.cross_entropy(net(x), y).backward()
                optimizer.step()
            return net.state_dict()

    def test(net, loader):
        net.eval()
        with torch.no_grad():
            return sum(net(x).argmax(1).eq(y).sum().item() for x, y in loader)

    def federate(net_glob, loaders, test_loader, rounds):
        net_glob.train()
        for r in range(rounds):
            states = []
            for loader in loaders:
                client = Client(loader)
                states.append(client.train(net=copy.deepcopy(net_glob).to("cpu")))
            net_glob.load_state_dict(average(states))
            test(net_glob, test_loader)
    """

# active learning: each round trains through train(), which dispatches to one of two
# epoch helpers; each puts the classifier in train() before its steps (or one does not)
_DISPATCH = """\
    class DataHandler:
        def __init__(self, clf, loader):
            self.clf = clf
            self.loader = loader

        def _train(self, optimizer):
            self.clf.train()
            for x, y in self.loader:
                optimizer.zero_grad()
                F.cross_entropy(self.clf(x), y).backward()
                optimizer.step()

        def _train_weighted(self, optimizer, weights):
            {mode}for x, y in self.loader:
                optimizer.zero_grad()
                (F.cross_entropy(self.clf(x), y, reduction="none") * weights).mean().backward()
                optimizer.step()

        def train(self, weights=None):
            optimizer = torch.optim.SGD(self.clf.parameters(), lr=0.1)
            for epoch in range(10):
                if weights is None:
                    self._train(optimizer)
                else:
                    self._train_weighted(optimizer, weights)

        def accuracy(self, x, y):
            self.clf.eval()
            with torch.no_grad():
                return (self.clf(x).argmax(1) == y).float().mean().item()

    def active_learning(clf, loader, rounds, x, y):
        handler = DataHandler(clf, loader)
        for rd in range(rounds):
            handler.train()
            print(handler.accuracy(x, y))
    """

_PHASES = """\
def train_model(model, dataloaders, criterion, optimizer, num_epochs):
    for epoch in range(num_epochs):
        for phase in ["train", "val"]:
            {mode}
            for inputs, labels in dataloaders[phase]:
                if phase == "train":
                    optimizer.zero_grad()
                    loss = criterion(model(inputs), labels)
                    loss.backward()
                    optimizer.step()
                elif phase == "val":
                    with torch.no_grad():
                        loss = criterion(model(inputs), labels)
"""

# stochastic weight averaging: update() trains model and averages its weights into swa_model
_SWA = """\
def moving_average(net1, net2, alpha=1):
    for param1, param2 in zip(net1.parameters(), net2.parameters()):
        param1.data *= 1.0 - alpha
        param1.data += param2.data * alpha


def bn_update(loader, model):
    model.train()
    for x, _ in loader:
        model(x)


def update(loader, model, optimizer, swa_model):
    model.train()
    for x, y in loader:
        loss = F.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    {average}


def train(loader, model, swa_model, epochs):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(epochs):
        update(loader, model, optimizer, swa_model)
        bn_update(loader, swa_model)
        swa_model.eval()
        with torch.no_grad():
            print(sum(swa_model(x).argmax(1).eq(y).sum().item() for x, y in loader))
"""

TRAINED_EXAMPLES = (
    Example(
        # the encoder is put back in train() each iteration, the decoder (trained by an
        # optimizer over list(decoder.parameters())) never is
        "eval_of_a_second_model_that_only_its_optimizer_names",
        """\
        def train(encoder, decoder, loader, test_x, iters):
            enc_optim = torch.optim.Adam(encoder.parameters())
            dec_optim = torch.optim.Adam(list(decoder.parameters()), lr=1e-3)
            for it, (x, y) in enumerate(loader):
                encoder.train()
                loss = F.mse_loss(decoder(encoder(x)), y)
                enc_optim.zero_grad()
                dec_optim.zero_grad()
                loss.backward()
                enc_optim.step()
                dec_optim.step()
                if it % 100 == 0:
                    encoder.eval()
                    decoder.eval()
                    with torch.no_grad():
                        print(decoder(encoder(test_x)).mean().item())
        """,
        [(14, "TW010")],
    ),
    Example(
        # the client puts its copy in train() first: the global model's eval() stays there
        "a_client_that_trains_a_copy_in_train_mode",
        _FEDERATED.format(mode="net.train()\n            "),
        [],
    ),
    Example(
        # ... without that train() the copy is trained in the eval mode it was copied in
        "a_client_that_trains_a_copy_in_eval_mode",
        _FEDERATED.format(mode=""),
        [(28, "TW010")],
    ),
    Example(
        # each epoch takes one arm: its eval() cannot reach the other arm's steps of that
        # epoch, and the next epoch starts with train()
        "eval_in_one_arm_of_an_epoch_that_starts_with_train",
        """\
        def train(model, optimizer, batches, loader, epochs, pre_encoded):
            for epoch in range(epochs):
                model.train()
                if pre_encoded:
                    for x, y in batches:
                        optimizer.zero_grad()
                        F.mse_loss(model(x), y).backward()
                        optimizer.step()
                    model.eval()
                    with torch.no_grad():
                        print(model(x).mean().item())
                else:
                    for x, y in loader:
                        optimizer.zero_grad()
                        F.mse_loss(model(x), y).backward()
                        optimizer.step()
        """,
        [],
    ),
    Example(
        # ... but arms of an if in the batch loop alternate: the next batch trains in eval()
        "eval_in_one_arm_of_a_batch_the_next_batch_trains_in",
        """\
        def train(model, optimizer, loader, epochs):
            for epoch in range(epochs):
                model.train()
                for i, (x, y) in enumerate(loader):
                    if i % 100 == 0:
                        model.eval()
                        with torch.no_grad():
                            print(model(x).mean().item())
                    else:
                        optimizer.zero_grad()
                        F.mse_loss(model(x), y).backward()
                        optimizer.step()
        """,
        [(6, "TW010")],
    ),
    Example(
        "each_arm_of_the_training_puts_the_model_in_train_mode",
        _DISPATCH.format(mode="self.clf.train()\n            "),
        [],
    ),
    Example(
        "one_arm_of_the_training_trains_in_the_callers_mode",
        _DISPATCH.format(mode=""),
        [(36, "TW010")],
    ),
    Example(
        # IM-NET's SVR: the optimizer takes the image encoder's parameters only; test_1()
        # puts the whole network, encoder and all, in eval() every ten epochs
        "an_optimizer_over_a_part_of_the_model_put_in_eval",
        """\
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.img_encoder = nn.Linear(4, 2)
                self.decoder = nn.Linear(2, 4)

            def forward(self, x):
                return self.img_encoder(x)


        class SVR(object):
            def __init__(self):
                self.im_network = Net()
                self.optimizer = torch.optim.Adam(self.im_network.img_encoder.parameters())

            def train(self, loader, epochs):
                self.im_network.train()
                for epoch in range(epochs):
                    for x, z in loader:
                        self.im_network.zero_grad()
                        err = ((self.im_network(x) - z) ** 2).mean()
                        err.backward()
                        self.optimizer.step()
                    if epoch % 10 == 9:
                        self.test_1()

            def test_1(self):
                self.im_network.eval()
                print(self.im_network(sample).detach().numpy())
        """,
        [(25, "TW010"), (29, "TW012")],
    ),
    Example(
        # a conditional expression picks the mode per phase, like an if statement
        "the_mode_picked_by_a_conditional_expression_per_phase",
        _PHASES.format(mode='model.train() if phase == "train" else model.eval()'),
        [],
    ),
    Example(
        "only_eval_picked_by_a_conditional_expression",
        _PHASES.format(mode='model.eval() if phase == "val" else None'),
        [(4, "TW010")],
    ),
    Example(
        "a_model_the_step_only_averages_weights_into",
        _SWA.format(average="moving_average(swa_model, model, 0.1)"),
        [],
    ),
    Example(
        "a_model_the_step_also_trains",
        _SWA.format(average="F.mse_loss(swa_model(x), y).backward()").replace(
            "SGD(model.parameters()", "SGD([*model.parameters(), *swa_model.parameters()]"
        ),
        [(28, "TW010")],
    ),
)
