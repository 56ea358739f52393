"""BatchNorm on tiny batches, identical consecutive batches, vanishing/exploding gradients."""

import torch
from tests.fixtures import Net, batches
from torch import nn
from torch.utils.data import DataLoader, IterableDataset, TensorDataset

from trainwell.guards import watch

from .helpers import codes, warns


def _train(model, data, **config):
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    crit = nn.CrossEntropyLoss()
    with watch(model, opt, **config) as guards:
        for x, y in data:
            opt.zero_grad()
            crit(model(x), y).backward()
            opt.step()
    return guards


def test_batchnorm_fed_a_tiny_last_batch_is_found():
    x, y = torch.randn(66, 4), torch.randint(0, 3, (66,))
    loader = DataLoader(TensorDataset(x, y), batch_size=32)  # last batch: 2 samples
    with warns("batchnorm-small-batch"):
        guards = _train(Net(batchnorm=True), loader)
    assert codes(guards) == ["batchnorm-small-batch"]
    assert guards.findings[0].where == "net.1" and "batch of 2" in guards.findings[0].message


def test_batchnorm_with_drop_last_is_silent():
    x, y = torch.randn(66, 4), torch.randint(0, 3, (66,))
    loader = DataLoader(TensorDataset(x, y), batch_size=32, drop_last=True)
    assert _train(Net(batchnorm=True), loader).findings == []


def _sized_batches(sizes):
    g = torch.Generator().manual_seed(0)
    return [(torch.randn(n, 4, generator=g), torch.randint(0, 3, (n,), generator=g)) for n in sizes]


def test_batchnorm_fed_a_tiny_batch_between_the_armed_windows_is_found():
    """every=100: step 20 is far from any armed window; its 3-sample batch is still seen (a new
    input shape brings the layers' hooks back for that forward)."""
    sizes = [16] * 20 + [3] + [16] * 5
    with warns("batchnorm-small-batch"):
        guards = _train(Net(batchnorm=True), _sized_batches(sizes), every=100)
    assert codes(guards) == ["batchnorm-small-batch"]
    finding = guards.findings[0]
    assert finding.step == 20 and "batch of 3" in finding.message


def test_batchnorm_fed_a_tiny_batch_of_the_shape_validation_had_is_found():
    """A 3-sample forward in eval mode, then training on 3-sample batches: the same input shape
    in another mode is a new forward for the check."""
    model = Net(batchnorm=True)
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    crit = nn.CrossEntropyLoss()
    (xv, _), *train = _sized_batches([3, 16, 16, 3, 3])
    with warns("batchnorm-small-batch"), watch(model, opt, every=100) as guards:
        for x, y in train[:2]:
            opt.zero_grad()
            crit(model(x), y).backward()
            opt.step()
        model.eval()
        with torch.no_grad():
            model(xv)
        model.train()
        for x, y in train[2:]:
            opt.zero_grad()
            crit(model(x), y).backward()
            opt.step()
    assert [f.step for f in guards.findings] == [2]


class DictBatchNet(nn.Module):
    """BatchNorm behind a model that takes its batch as a dict."""

    def __init__(self) -> None:
        super().__init__()
        self.body = Net(batchnorm=True)

    def forward(self, batch):
        return self.body(batch["x"])


def test_batchnorm_behind_a_dict_input_is_watched_on_every_forward():
    """A first argument that is not a tensor has no one shape to compare: the layers keep their
    hooks, and the short batch of step 6 is found."""
    data = [({"x": x}, y) for x, y in _sized_batches([16] * 6 + [2] + [16] * 2)]
    with warns("batchnorm-small-batch"):
        guards = _train(DictBatchNet(), data, every=100)
    assert [(f.code, f.step) for f in guards.findings] == [("batchnorm-small-batch", 6)]


def test_same_shape_forwards_leave_no_hook_on_the_batchnorm_layers():
    """The layers' pre-hooks send every call through the slow path of Module.__call__: between
    forwards of one input shape they are not there."""
    model = Net(batchnorm=True)
    bn = model.net[1]
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    crit = nn.CrossEntropyLoss()
    with watch(model, opt, every=100):
        for x, y in _sized_batches([16] * 5):
            opt.zero_grad()
            crit(model(x), y).backward()
            opt.step()
            assert not bn._forward_pre_hooks  # the first forward's hook took itself off


class Unsharded(IterableDataset):
    """Random samples drawn from the torch RNG, not sharded: each worker yields the same ones."""

    def __iter__(self):
        g = torch.Generator().manual_seed(0)  # planted: the same seed in every worker
        for _ in range(64):
            yield torch.randn(4, generator=g), torch.randint(0, 3, (), generator=g)


def test_identical_batches_from_replicated_workers_are_found():
    loader = DataLoader(Unsharded(), batch_size=16, num_workers=2)
    with warns("duplicate-batches"):
        guards = _train(Net(), loader, every=4)
    assert codes(guards) == ["duplicate-batches"]
    assert "get_worker_info" in guards.findings[0].fix


def test_one_batch_reused_on_purpose_and_constant_data_are_silent():
    x, y = batches(1)[0]
    assert _train(Net(), [(x, y)] * 12, every=4).findings == []
    zeros = [(torch.zeros(16, 4), y)] * 6 + batches(6)
    assert _train(Net(), zeros, every=4).findings == []


def test_shuffled_data_is_silent():
    x, y = torch.randn(256, 4), torch.randint(0, 3, (256,))
    loader = DataLoader(TensorDataset(x, y), batch_size=16, shuffle=True)
    assert _train(Net(), loader, every=4).findings == []


class Scaled(nn.Module):
    """A net whose loss gets multiplied by ``factor`` from a given step on (the planted bug)."""

    def __init__(self) -> None:
        super().__init__()
        self.net = Net()
        self.factor = 1.0

    def forward(self, x):
        out = self.net(x)
        return out + (self.factor - 1.0) * (out - out.detach())  # same value, scaled gradient


def _grad_run(factor, at=30, steps=40):
    model = Scaled()
    opt = torch.optim.SGD(model.parameters(), lr=1e-9)  # weights stay put: norms stay steady
    crit = nn.CrossEntropyLoss()
    x, y = batches(1)[0]
    with watch(model, opt, every=1) as guards:
        for step in range(steps):
            model.factor = factor if step >= at else 1.0
            opt.zero_grad()
            crit(model(x), y).backward()
            opt.step()
    return guards


def test_exploding_gradients_are_found_per_layer():
    with warns("grad-exploding"):
        guards = _grad_run(1e4)
    assert set(codes(guards)) == {"grad-exploding"}
    assert {f.where for f in guards.findings} == {"net.net.0", "net.net.2"}
    assert guards.findings[0].step == 30


def test_vanishing_gradients_are_found():
    with warns("grad-vanishing"):
        guards = _grad_run(1e-5)
    assert set(codes(guards)) == {"grad-vanishing"}


def test_steady_gradients_are_silent():
    assert _grad_run(1.0).findings == []


def test_identical_batches_are_found_under_r_drop_and_accumulation():
    """Two forwards of one batch (R-Drop) are one batch; the replicated workers still show."""
    model = Net(dropout=True)
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    crit = nn.CrossEntropyLoss()
    loader = DataLoader(Unsharded(), batch_size=16, num_workers=2)
    with warns("duplicate-batches"), watch(model, opt, every=2, accumulate_steps=2) as guards:
        for i, (x, y) in enumerate(loader):
            out1, out2 = model(x), model(x)
            ((crit(out1, y) + crit(out2, y)) / 4).backward()
            if i % 2 == 1:
                opt.step()
                opt.zero_grad()
    assert codes(guards) == ["duplicate-batches"]
