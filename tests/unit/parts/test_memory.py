"""Memory: checkpointed blocks give the plain model's gradients exactly (dropout included), run
their forward twice only while training, leave the module tree alone, survive deepcopy and
torch.save, and undo cleanly; the tracker's peaks are exact on known allocations and show the
activation memory that checkpointing saves."""

import copy
import inspect
import io
import pickle
from functools import partial

import pytest
import torch
import torch.nn.functional as F
from tests.fixtures import random_data
from torch import nn

from trainwell.errors import ConfigError
from trainwell.parts.memory import (
    MemoryReport,
    checkpoint_blocks,
    checkpointed_blocks,
    memory_report,
    track_memory,
    uncheckpoint_blocks,
)

MIB = 2**20


class Block(nn.Module):
    """A pre-norm residual MLP block with dropout; counts how often its forward runs."""

    def __init__(self, dim, p=0.2):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.fc1 = nn.Linear(dim, 2 * dim)
        self.fc2 = nn.Linear(2 * dim, dim)
        self.drop = nn.Dropout(p)
        self.calls = 0

    def forward(self, x, scale=1.0):
        self.calls += 1
        return x + self.drop(self.fc2(F.gelu(self.fc1(self.norm(x))))) * scale


class Net(nn.Module):
    def __init__(self, dim=16, depth=4):
        super().__init__()
        self.embed = nn.Linear(8, dim)
        self.blocks = nn.ModuleList(Block(dim) for _ in range(depth))
        self.head = nn.Linear(dim, 3)

    def forward(self, x):
        h = self.embed(x)
        for block in self.blocks:
            h = block(h, scale=0.5)  # a keyword argument goes through the checkpoint too
        return self.head(h)


class Stages(nn.Module):
    """ResNet-like: Sequential stages of blocks, and a ModuleList that is not `blocks`."""

    def __init__(self):
        super().__init__()
        self.layer1 = nn.Sequential(Block(8), Block(8))
        self.layer2 = nn.Sequential(Block(8), Block(8), Block(8))
        self.small = nn.ModuleList([Block(8), Block(8)])
        self.big = nn.ModuleList([Block(8), Block(8), Block(8)])

    def forward(self, x):
        return self.layer2(self.layer1(x))


class GeluBlock(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x):
        return F.gelu(self.fc(x))


class Deep(nn.Module):
    """Activations dominate: 8 blocks of Linear(256, 256) + GELU."""

    def __init__(self, dim=256, depth=8):
        super().__init__()
        self.blocks = nn.ModuleList(GeluBlock(dim) for _ in range(depth))

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x


def _net():
    torch.manual_seed(0)
    return Net()


_batch = partial(random_data, 6, features=8, seed=1)


def _step(model, seed=123):
    """One forward + backward from a fixed seed; returns the loss and the gradients."""
    x, y = _batch()
    model.zero_grad(set_to_none=True)
    torch.manual_seed(seed)
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    return loss.detach(), {n: p.grad.clone() for n, p in model.named_parameters()}


def _calls(model):
    return [block.calls for block in model.blocks]


def _reset_calls(model):
    for block in model.modules():
        if isinstance(block, Block):
            block.calls = 0


# ----------------------------------------------------------------------------------------------
# checkpoint_blocks


def test_gradients_equal_plain_run_exactly_with_dropout():
    plain = _net()
    ckpt = copy.deepcopy(plain)
    assert checkpoint_blocks(ckpt, "blocks") == [f"blocks.{i}" for i in range(4)]
    plain.train()
    ckpt.train()

    loss_p, grads_p = _step(plain)
    rng_after_plain = torch.get_rng_state()
    loss_c, grads_c = _step(ckpt)
    rng_after_ckpt = torch.get_rng_state()

    assert _calls(ckpt) == [2, 2, 2, 2]  # the forward really was recomputed in backward
    assert torch.equal(loss_p, loss_c)
    assert grads_p.keys() == grads_c.keys()
    for name in grads_p:
        assert torch.equal(grads_p[name], grads_c[name]), name
    # the recompute replays the saved RNG state and leaves the global stream as it was
    assert torch.equal(rng_after_plain, rng_after_ckpt)
    # dropout was active: another seed gives other gradients (so equality above means something)
    _, grads_other = _step(plain, seed=7)
    assert not torch.equal(grads_other["blocks.0.fc1.weight"], grads_p["blocks.0.fc1.weight"])


def test_state_dict_and_tree_unchanged():
    model = _net()
    keys = list(model.state_dict())
    names = [n for n, _ in model.named_modules()]
    text = repr(model)
    checkpoint_blocks(model, "blocks")
    assert list(model.state_dict()) == keys
    assert not any("_checkpoint_wrapped_module" in k for k in model.state_dict())
    assert [n for n, _ in model.named_modules()] == names
    assert repr(model) == text
    # a plain model's state_dict loads into the checkpointed one and back, strictly
    fresh = Net()
    fresh.load_state_dict(model.state_dict())
    model.load_state_dict(fresh.state_dict())
    uncheckpoint_blocks(model)
    assert list(model.state_dict()) == keys


def test_forward_runs_twice_only_when_training_with_grad():
    model = _net()
    checkpoint_blocks(model, "blocks")
    x, _ = _batch()

    model.train()
    out = model(x)
    assert _calls(model) == [1, 1, 1, 1]  # forward: once
    out.sum().backward()
    assert _calls(model) == [2, 2, 2, 2]  # backward: recomputed once

    _reset_calls(model)
    model.eval()
    model(x).sum().backward()  # eval with grad: no checkpoint, no recompute
    assert _calls(model) == [1, 1, 1, 1]

    _reset_calls(model)
    model.train()
    with torch.no_grad():
        model(x)
    with torch.inference_mode():
        model(x)
    assert _calls(model) == [2, 2, 2, 2]  # one call each, no recompute


def test_single_block_and_idempotent():
    model = _net()
    assert checkpoint_blocks(model, ["blocks.1", " blocks.3 "]) == ["blocks.1", "blocks.3"]
    assert checkpoint_blocks(model, "blocks.1") == ["blocks.1"]  # again: still wrapped once
    assert model.blocks[1].forward.original is None
    assert checkpointed_blocks(model) == ["blocks.1", "blocks.3"]
    model.train()
    _step(model)
    assert _calls(model) == [1, 2, 1, 2]


def test_auto_picks_blocks():
    model = _net()
    assert checkpoint_blocks(model, "auto") == [f"blocks.{i}" for i in range(4)]
    assert checkpoint_blocks(_net()) == [f"blocks.{i}" for i in range(4)]  # the default


def test_auto_falls_back_to_largest_module_list():
    model = Stages()
    assert checkpoint_blocks(model, "auto") == ["big.0", "big.1", "big.2"]


def test_auto_without_module_list_raises():
    model = nn.Sequential(nn.Linear(2, 2), nn.ReLU())
    with pytest.raises(ConfigError, match="auto"):
        checkpoint_blocks(model, "auto")


def test_sequential_paths_mean_their_children():
    model = Stages()
    paths = checkpoint_blocks(model, "layer1,layer2")
    assert paths == ["layer1.0", "layer1.1", "layer2.0", "layer2.1", "layer2.2"]
    model.train()
    x = torch.randn(4, 8)
    model(x).sum().backward()
    assert [b.calls for b in [*model.layer1, *model.layer2]] == [2, 2, 2, 2, 2]


@pytest.mark.parametrize(
    ("path", "words"),
    [
        ("blocks.9", ["'blocks.9'", "does not exist", "blocks (4 x Block)"]),
        ("nope", ["'nope'", "does not exist", "blocks (4 x Block)"]),
        ("embed.weight", ["'embed.weight'", "is a Parameter, not a module"]),
    ],
)
def test_bad_path_raises_config_error_naming_it(path, words):
    model = _net()
    with pytest.raises(ConfigError) as info:
        checkpoint_blocks(model, f"blocks,{path}")
    for word in words:
        assert word in str(info.value)
    assert checkpointed_blocks(model) == []  # all paths are checked before anything changes


def test_container_without_forward_raises():
    model = nn.Module()
    model.groups = nn.ModuleList([nn.ModuleList([nn.Linear(2, 2)])])
    with pytest.raises(ConfigError, match="'groups.0'.*no forward"):
        checkpoint_blocks(model, "groups")


def test_uncheckpoint_restores_original_forward():
    model = _net()
    checkpoint_blocks(model, "blocks")
    assert uncheckpoint_blocks(model) == [f"blocks.{i}" for i in range(4)]
    assert all("forward" not in block.__dict__ for block in model.blocks)
    assert checkpointed_blocks(model) == []
    assert uncheckpoint_blocks(model) == []
    model.train()
    _step(model)
    assert _calls(model) == [1, 1, 1, 1]


def test_uncheckpoint_keeps_a_previous_instance_forward():
    model = _net()
    block = model.blocks[0]
    custom = lambda x, scale=1.0: x * 0
    block.forward = custom
    checkpoint_blocks(model, "blocks.0")
    assert block.forward.original is custom
    assert torch.equal(block(torch.ones(2, 16)), torch.zeros(2, 16))
    uncheckpoint_blocks(model)
    assert block.forward is custom


def test_signature_of_wrapped_forward_is_the_blocks():
    model = _net()
    checkpoint_blocks(model, "blocks")
    assert list(inspect.signature(model.blocks[0].forward).parameters) == ["x", "scale"]


def _check_copy(original, clone):
    assert checkpointed_blocks(clone) == [f"blocks.{i}" for i in range(4)]
    for a, b in zip(original.blocks, clone.blocks):
        assert b.forward.module is b and b.forward.module is not a
    _reset_calls(original)
    _reset_calls(clone)
    original.train()
    clone.train()
    loss_a, grads_a = _step(original)
    loss_b, grads_b = _step(clone)
    assert torch.equal(loss_a, loss_b)
    assert all(torch.equal(grads_a[n], grads_b[n]) for n in grads_a)
    assert _calls(clone) == [2, 2, 2, 2]  # the copy checkpoints its own blocks...
    assert _calls(original) == [2, 2, 2, 2]  # ...and did not run the original's


def test_deepcopy_round_trip():
    model = _net()
    checkpoint_blocks(model, "blocks")
    _check_copy(model, copy.deepcopy(model))


def test_pickle_and_torch_save_round_trip():
    model = _net()
    checkpoint_blocks(model, "blocks")
    _check_copy(model, pickle.loads(pickle.dumps(model)))
    buffer = io.BytesIO()
    torch.save(model, buffer)
    buffer.seek(0)
    loaded = torch.load(buffer, weights_only=False)
    _check_copy(model, loaded)
    assert uncheckpoint_blocks(loaded) == [f"blocks.{i}" for i in range(4)]


# ----------------------------------------------------------------------------------------------
# track_memory


def test_tracker_counts_known_allocations_exactly():
    keep = torch.zeros(256, 256)  # allocated before tracking: not counted
    with track_memory("cpu") as mem:
        with mem.phase("alloc"):
            a = torch.empty(MIB, dtype=torch.uint8)
            b = torch.empty(2 * MIB, dtype=torch.uint8)
            del b
        with mem.phase("views"):
            v = keep.view(-1)[:10]
            keep.add_(1)
            a.view(torch.int32).zero_()
        with mem.phase("free"):
            del a
            c = torch.empty(MIB // 2, dtype=torch.uint8)
        del keep, v
    report = mem.report
    assert isinstance(report, MemoryReport)
    assert report["alloc"] == 3 * MIB and report.retained_bytes["alloc"] == MIB
    assert report["views"] == MIB and report.retained_bytes["views"] == MIB  # nothing new
    assert report["free"] == MIB and report.retained_bytes["free"] == MIB // 2
    assert report["total"] == 3 * MIB
    assert list(report) == ["alloc", "views", "free", "total"]
    assert report.peak_bytes == dict(report)
    assert c.numel() == MIB // 2


def test_tracker_nested_and_repeated_phases():
    with track_memory("cpu") as mem:
        for size in (MIB, 3 * MIB):
            with mem.phase("outer"):
                held = torch.empty(size, dtype=torch.uint8)
                with mem.phase("inner"):
                    tmp = torch.empty(MIB, dtype=torch.uint8)
                    del tmp
                del held
    assert mem.report["inner"] == 4 * MIB  # its own peak, held included (same baseline)
    assert mem.report["outer"] == 4 * MIB  # the higher of its two runs
    assert mem.report.retained_bytes["outer"] == 0
    with (
        pytest.raises(ValueError, match="reserved"),
        track_memory("cpu") as other,
        other.phase("total"),
    ):
        pass


def test_memory_report_and_table():
    def work(n):
        a = torch.ones(n, dtype=torch.uint8)
        b = a * 2
        return b.sum()

    report = memory_report(work, MIB, device="cpu")
    assert report["total"] == 2 * MIB + 8  # two buffers and a 0-d int64 sum
    text = str(report)
    assert "total" in text and "2.00" in text and "MiB" in text


def _fwd_bwd_memory(model, x):
    with track_memory("cpu") as mem:
        with mem.phase("forward"):
            loss = model(x).square().mean()
        with mem.phase("backward"):
            loss.backward()
        del loss
    return mem.report


def test_checkpointing_lowers_measured_peak():
    torch.manual_seed(0)
    plain = Deep()
    ckpt = copy.deepcopy(plain)
    checkpoint_blocks(ckpt, "blocks")
    x = torch.randn(512, 256)
    act = 512 * 256 * 4  # one activation: 0.5 MiB

    before = _fwd_bwd_memory(plain, x)
    after = _fwd_bwd_memory(ckpt, x)
    # plain keeps each block's Linear output and GELU output for backward: 16 activations
    assert before.retained_bytes["forward"] >= 16 * act
    # checkpointed keeps only each block's output (the next block's input): 8 activations
    assert after.retained_bytes["forward"] <= 9 * act
    assert after["total"] < before["total"]
    assert before["total"] - after["total"] >= 4 * act
    assert torch.equal(plain.blocks[0].fc.weight.grad, ckpt.blocks[0].fc.weight.grad)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
def test_cuda_tracker_counts_allocations():
    with track_memory("cuda") as mem, mem.phase("alloc"):
        a = torch.empty(4 * MIB, dtype=torch.uint8, device="cuda")
        del a
    assert mem.report["alloc"] == 4 * MIB
    assert mem.report.retained_bytes["alloc"] == 0
