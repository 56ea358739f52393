"""The strategy's collectives in one process: the stop vote arrives one step late and never
waits; gradients a step reduced itself are averaged like DDP's; BatchNorm buffers follow rank
0. Several ranks are stood in for by a strategy whose collectives add another rank's values."""

import pytest
import torch
import torch.distributed as dist
from torch import nn

from trainwell.strategy import BaseStrategy
from trainwell.strategy.ddp import DDP


@pytest.fixture
def one_rank_group(tmp_path):
    """A real gloo process group of one process (this one)."""
    dist.init_process_group("gloo", init_method=f"file://{tmp_path}/store", rank=0, world_size=1)
    yield
    dist.destroy_process_group()


def test_a_stop_vote_reaches_every_rank_one_step_later(one_rank_group):
    ddp = DDP("cpu")
    assert ddp.vote(True) is False  # sent; no earlier vote had arrived
    assert ddp.vote(False) is True  # the previous step's vote, learnt by every rank now
    assert ddp.vote(False) is False
    assert ddp.vote(True) is False
    assert ddp.agree(False) is False  # another question: the vote in flight is not its answer
    assert ddp.vote(False) is True  # the vote arrives where votes are read
    ddp.close()


class OtherRank(BaseStrategy):
    """Two ranks: this one, and another whose values ``reduce`` adds (its gradients are
    ``other``; it has a gradient for every parameter)."""

    world_size = 2

    def __init__(self, other):
        super().__init__("cpu")
        self.other = other

    def reduce(self, total, count):
        if total.numel() == len(self.other):  # the reduction of which gradients exist
            return total + torch.ones_like(total), torch.as_tensor(count)
        flat = torch.cat([g.reshape(-1) for g in self.other])
        return total + flat, torch.as_tensor(count)

    def gather(self, value):
        return [value, value]


def test_gradients_a_step_reduced_itself_are_averaged_as_ddp_averages_them():
    a, b = nn.Parameter(torch.zeros(2)), nn.Parameter(torch.zeros(3))
    a.grad = torch.tensor([2.0, 4.0])  # b has none here, but has one on the other rank
    strategy = OtherRank([torch.tensor([4.0, 0.0]), torch.tensor([6.0, 6.0, 6.0])])
    strategy.sync_gradients([a, b])
    torch.testing.assert_close(a.grad, torch.tensor([3.0, 2.0]))
    torch.testing.assert_close(b.grad, torch.tensor([3.0, 3.0, 3.0]))  # zeros here, averaged


def test_a_gradient_no_rank_has_stays_none(one_rank_group):
    a, b = nn.Parameter(torch.zeros(2)), nn.Parameter(torch.zeros(3))
    a.grad = torch.tensor([2.0, 4.0])
    DDP("cpu").sync_gradients([a, b])
    torch.testing.assert_close(a.grad, torch.tensor([2.0, 4.0]))
    assert b.grad is None


def test_every_rank_takes_rank_0s_buffers(one_rank_group):
    model = nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3))
    model.train()(torch.randn(8, 2))  # running statistics move
    before = {k: v.clone() for k, v in model.state_dict().items()}
    DDP("cpu").sync_buffers(model)  # one rank: its own buffers, unchanged, same dtypes
    for name, value in model.state_dict().items():
        assert torch.equal(value, before[name]) and value.dtype == before[name].dtype
