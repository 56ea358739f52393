"""build_optimizer / param_groups: decay by module type, layer-wise LR decay, frozen params, kernels."""

import pytest
import torch
from torch import nn

import trainwell as tw
from trainwell.config import OptimConfig


class Mixed(nn.Module):
    """Names chosen to fool a name-matching implementation."""

    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding(10, 4)
        self.norm = nn.Linear(4, 4)  # a Linear *named* norm: its weight decays
        self.bias_layer = nn.Linear(4, 4, bias=False)  # named bias_*: its weight decays
        self.proj = nn.LayerNorm(4)  # a LayerNorm named proj: no decay
        self.bn = nn.BatchNorm1d(4)
        self.gn = nn.GroupNorm(2, 4)
        self.head = nn.Linear(4, 3)

    def forward(self, idx):
        h = self.embedding(idx)
        h = self.proj(self.bias_layer(self.norm(h)))
        return self.head(self.gn(self.bn(h)))


def _decay_split(groups):
    decay, no_decay = set(), set()
    for g in groups:
        (decay if g["weight_decay"] > 0 else no_decay).update(g["names"])
    return decay, no_decay


def test_no_decay_by_module_type_not_by_name():
    groups = tw.param_groups(Mixed(), weight_decay=0.1, lr=1e-3)
    decay, no_decay = _decay_split(groups)
    assert decay == {"norm.weight", "bias_layer.weight", "head.weight"}
    assert no_decay == {
        "embedding.weight",
        "norm.bias",
        "proj.weight",
        "proj.bias",
        "bn.weight",
        "bn.bias",
        "gn.weight",
        "gn.bias",
        "head.bias",
    }
    for g in groups:
        assert g["weight_decay"] in (0.0, 0.1)
        assert g["lr"] == g["base_lr"] == 1e-3


def test_every_parameter_in_exactly_one_group():
    model = Mixed()
    groups = tw.param_groups(model, weight_decay=0.1, lr=1e-3)
    ids = [id(p) for g in groups for p in g["params"]]
    assert len(ids) == len(set(ids))
    assert set(ids) == {id(p) for p in model.parameters()}
    for g in groups:
        assert [id(p) for p in g["params"]] == [
            id(dict(model.named_parameters())[n]) for n in g["names"]
        ]


def test_frozen_params_excluded():
    model = Mixed()
    model.embedding.weight.requires_grad_(False)
    for p in model.head.parameters():
        p.requires_grad_(False)
    opt = tw.build_optimizer(model)
    names = {n for g in opt.param_groups for n in g["names"]}
    assert "embedding.weight" not in names
    assert "head.weight" not in names and "head.bias" not in names
    assert "norm.weight" in names
    frozen = {id(model.embedding.weight), id(model.head.weight), id(model.head.bias)}
    assert not frozen & {id(p) for g in opt.param_groups for p in g["params"]}


def test_all_frozen_is_an_error():
    model = nn.Linear(2, 2).requires_grad_(False)
    with pytest.raises(tw.ConfigError, match="no trainable parameters"):
        tw.build_optimizer(model)


def test_default_is_adamw_with_config_values_and_fused_on_cpu():
    opt = tw.build_optimizer(
        Mixed(), OptimConfig(lr=3e-4, weight_decay=0.05, betas=(0.8, 0.95), eps=1e-6)
    )
    assert type(opt) is torch.optim.AdamW
    assert opt.defaults["lr"] == 3e-4
    assert opt.defaults["betas"] == (0.8, 0.95)
    assert opt.defaults["eps"] == 1e-6
    assert opt.defaults["fused"] is True  # CPU has fused AdamW in torch >= 2.4
    assert {g["weight_decay"] for g in opt.param_groups} == {0.05, 0.0}
    for g in opt.param_groups:
        assert g["base_lr"] == 3e-4


def test_fused_adamw_actually_steps():
    torch.manual_seed(0)
    model = nn.Linear(3, 2)
    opt = tw.build_optimizer(model)
    before = model.weight.detach().clone()
    model(torch.randn(4, 3)).sum().backward()
    opt.step()
    assert not torch.equal(before, model.weight)


def test_sgd_with_momentum_and_overrides():
    opt = tw.build_optimizer(Mixed(), name="sgd", lr=0.1, momentum=0.8, nesterov=True)
    assert type(opt) is torch.optim.SGD
    assert opt.defaults["momentum"] == 0.8
    assert opt.defaults["nesterov"] is True
    assert opt.defaults["lr"] == 0.1
    assert opt.defaults["fused"] is True
    for g in opt.param_groups:
        assert g["base_lr"] == 0.1


@pytest.mark.parametrize(
    ("impl", "key", "value"),
    [("for_loop", "foreach", False), ("foreach", "foreach", True), ("fused", "fused", True)],
)
def test_impl_choice(impl, key, value):
    opt = tw.build_optimizer(nn.Linear(2, 2), impl=impl)
    assert opt.defaults[key] is value
    if impl != "fused":
        assert not opt.defaults.get("fused")


class Stacked(nn.Module):
    def __init__(self, num_blocks=3):
        super().__init__()
        self.embed = nn.Embedding(11, 4)
        self.blocks = nn.ModuleList(
            nn.Sequential(nn.Linear(4, 4), nn.LayerNorm(4)) for _ in range(num_blocks)
        )
        self.final_norm = nn.LayerNorm(4)
        self.head = nn.Linear(4, 2)


def _lr_by_name(groups):
    return {n: g["lr"] for g in groups for n in g["names"]}


def test_layer_wise_lr_decay_exact_values():
    lr, decay, num_blocks = 1.0, 0.5, 3
    groups = tw.param_groups(Stacked(num_blocks), weight_decay=0.1, lr=lr, layer_decay=decay)
    by_name = _lr_by_name(groups)
    assert by_name["head.weight"] == lr
    assert by_name["head.bias"] == lr
    assert by_name["final_norm.weight"] == lr
    for i in range(num_blocks):
        for suffix in ("0.weight", "0.bias", "1.weight", "1.bias"):
            assert by_name[f"blocks.{i}.{suffix}"] == pytest.approx(lr * decay ** (num_blocks - i))
    assert by_name["embed.weight"] == pytest.approx(lr * decay ** (num_blocks + 1))
    for g in groups:
        assert g["base_lr"] == g["lr"]
    # decay split still by type inside each layer
    decay_names, _ = _decay_split(groups)
    assert decay_names == {f"blocks.{i}.0.weight" for i in range(num_blocks)} | {"head.weight"}


def test_layer_wise_lr_decay_is_monotonic_from_embedding_to_head():
    groups = tw.param_groups(Stacked(4), weight_decay=0.0, lr=2e-3, layer_decay=0.75)
    by_name = _lr_by_name(groups)
    order = ["embed.weight"] + [f"blocks.{i}.0.weight" for i in range(4)] + ["head.weight"]
    lrs = [by_name[n] for n in order]
    assert all(a < b for a, b in zip(lrs, lrs[1:]))
    assert lrs[-1] == 2e-3


def test_layer_decay_through_build_optimizer_sets_base_lr():
    opt = tw.build_optimizer(Stacked(2), lr=1e-2, layer_decay=0.5)
    by_name = {n: (g["lr"], g["base_lr"]) for g in opt.param_groups for n in g["names"]}
    assert by_name["head.weight"] == (1e-2, 1e-2)
    assert by_name["blocks.0.0.weight"] == pytest.approx((1e-2 * 0.25, 1e-2 * 0.25))
    assert by_name["embed.weight"] == pytest.approx((1e-2 * 0.125, 1e-2 * 0.125))


def test_custom_layer_of():
    model = nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 2))
    groups = tw.param_groups(
        model, weight_decay=0.0, lr=1.0, layer_decay=0.1, layer_of=lambda n: int(n[0]) * 2
    )
    by_name = _lr_by_name(groups)
    assert by_name["1.weight"] == 1.0
    assert by_name["0.weight"] == pytest.approx(0.01)


class BlockWithMLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.mlp = nn.Sequential(nn.Linear(4, 4), nn.GELU(), nn.Linear(4, 4))


class TwoBlocks(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(5, 4)
        self.blocks = nn.ModuleList([BlockWithMLP(), BlockWithMLP()])
        self.head = nn.Linear(4, 2)


def test_layer_decay_uses_the_outer_block_stack_not_an_inner_sequential():
    groups = tw.param_groups(TwoBlocks(), weight_decay=0.0, lr=1.0, layer_decay=0.5)
    by_name = _lr_by_name(groups)
    assert by_name["head.weight"] == 1.0
    # both linears of block i share block i's LR: lr * decay**(L - i) with L = 2
    for i in range(2):
        assert by_name[f"blocks.{i}.mlp.0.weight"] == pytest.approx(0.5 ** (2 - i))
        assert by_name[f"blocks.{i}.mlp.2.weight"] == pytest.approx(0.5 ** (2 - i))
    assert by_name["embed.weight"] == pytest.approx(0.5**3)
