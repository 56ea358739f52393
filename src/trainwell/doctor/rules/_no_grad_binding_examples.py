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
)
