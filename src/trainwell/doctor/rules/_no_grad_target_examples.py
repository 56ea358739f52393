"""TW012 examples: models whose outputs build the update's targets (target networks)."""

from __future__ import annotations

from ._registry import Example

_DQN_SCRIPT = """\
import torch
import torch.nn.functional as F

if __name__ == "__main__":
    policy_net, target_net, optimizer, memory = load_model()
    {copy}
    target_net.eval()
    for epoch in range(100):
        batch = memory.sample(32)
        q = policy_net(batch.state).gather(1, batch.action)
        expected = torch.zeros(32)
        expected[batch.mask] = target_net(batch.next_state).max(1)[0].detach() * 0.99
        loss = F.mse_loss(q, expected.unsqueeze(1))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
"""

TARGET_EXAMPLES = (
    Example(
        # a copy of the trained network, in eval(): its bootstrap is the update's target
        "a_target_network_in_eval_builds_the_target",
        _DQN_SCRIPT.format(copy="target_net.load_state_dict(policy_net.state_dict())"),
        [],
    ),
    Example(
        # loaded from its own checkpoint and frozen in eval(): a teacher, whose forward
        # under grad mode records a graph nothing uses
        "a_frozen_teacher_in_eval_is_inference",
        _DQN_SCRIPT.format(copy='target_net.load_state_dict(torch.load("teacher.pt"))'),
        [(12, "TW012")],
    ),
)
