"""build_optimizer / param_groups: decay by module type, layer-wise LR decay, frozen params, kernels."""

import pytest
import torch
from torch import nn

import trainwell as tw
from trainwell.config.sections import OptimConfig


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


# --------------------------------------------------------------------------- every bias, 1-D params


class HandNorm(nn.Module):
    """An RMSNorm written by hand: its weight is a bare 1-D parameter on a custom module."""

    def __init__(self, d):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(d))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * self.weight


class Odd(nn.Module):
    """Parameters a module-type rule misses: attention biases, hand-made norms, scalars."""

    def __init__(self, d=8):
        super().__init__()
        self.embed = nn.Embedding(10, d)
        self.attn = nn.MultiheadAttention(d, 2, add_bias_kv=True)
        self.norm = HandNorm(d)
        self.temperature = nn.Parameter(torch.tensor(1.0))  # a learned scalar
        self.pos_scale = nn.Parameter(torch.ones(d))  # a learned 1-D scale
        self.conv = nn.Conv1d(d, d, 3)
        self.head = nn.Linear(d, 3)


def test_no_decay_on_every_bias_vector_and_scalar_parameter():
    groups = tw.param_groups(Odd(), weight_decay=0.1, lr=1e-3)
    decay, no_decay = _decay_split(groups)
    assert decay == {
        "attn.in_proj_weight",
        "attn.out_proj.weight",
        "conv.weight",
        "head.weight",
    }
    assert no_decay == {
        "embed.weight",
        "attn.in_proj_bias",
        "attn.out_proj.bias",
        "attn.bias_k",  # (1, 1, d): a bias, not a weight matrix
        "attn.bias_v",
        "norm.weight",
        "temperature",
        "pos_scale",
        "conv.bias",
        "head.bias",
    }


def test_nn_transformer_biases_and_norms_never_decay_matrices_do():
    model = nn.Transformer(
        8, 2, num_encoder_layers=2, num_decoder_layers=2, dim_feedforward=16, batch_first=True
    )
    opt = tw.build_optimizer(model, weight_decay=0.1)
    params = dict(model.named_parameters())
    for g in opt.param_groups:
        for n in g["names"]:
            assert g["weight_decay"] == (0.1 if params[n].ndim >= 2 else 0.0), n
    _, no_decay = _decay_split(opt.param_groups)
    assert "encoder.layers.0.self_attn.in_proj_bias" in no_decay
    assert "decoder.layers.1.multihead_attn.in_proj_bias" in no_decay


def test_no_decay_rule_can_be_replaced():
    from trainwell.parts.optim import default_no_decay

    model = Odd()
    groups = tw.param_groups(
        model, weight_decay=0.1, lr=1e-3, no_decay=lambda name, p: name.startswith("head.")
    )
    _, no_decay = _decay_split(groups)
    assert no_decay == {"head.weight", "head.bias"}
    rule = default_no_decay(model)  # the default rule, to extend rather than replace
    groups = tw.param_groups(
        model,
        weight_decay=0.1,
        lr=1e-3,
        no_decay=lambda name, p: rule(name, p) or name == "conv.weight",
    )
    decay, _ = _decay_split(groups)
    assert decay == {"attn.in_proj_weight", "attn.out_proj.weight", "head.weight"}


# --------------------------------------------------------------------------- encoder-decoder stacks


class Seq2Seq(nn.Module):
    def __init__(self, enc=2, dec=3, d=8):
        super().__init__()
        self.embed = nn.Embedding(11, d)
        self.transformer = nn.Transformer(
            d,
            2,
            num_encoder_layers=enc,
            num_decoder_layers=dec,
            dim_feedforward=16,
            batch_first=True,
        )
        self.head = nn.Linear(d, 11)


def test_layer_decay_reaches_the_decoder_layers_of_nn_transformer():
    lr, decay = 1.0, 0.5
    groups = tw.param_groups(Seq2Seq(2, 3), weight_decay=0.1, lr=lr, layer_decay=decay)
    by_name = _lr_by_name(groups)
    # embed 0, encoder layers 1-2, decoder layers 3-5, head 6
    top = 6
    assert by_name["head.weight"] == lr
    assert by_name["embed.weight"] == pytest.approx(decay**top)
    enc = "transformer.encoder.layers"
    dec = "transformer.decoder.layers"
    for i in range(2):
        assert by_name[f"{enc}.{i}.linear1.weight"] == pytest.approx(decay ** (top - 1 - i))
    for i in range(3):
        for n in (f"{dec}.{i}.linear1.weight", f"{dec}.{i}.multihead_attn.in_proj_bias"):
            assert by_name[n] == pytest.approx(decay ** (top - 3 - i)), n
    # the encoder's final norm sits with the last encoder layer, the decoder's with the head
    assert by_name["transformer.encoder.norm.weight"] == pytest.approx(decay ** (top - 2))
    assert by_name["transformer.decoder.norm.weight"] == lr
    decoder_lrs = [by_name[f"{dec}.{i}.linear1.weight"] for i in range(3)]
    assert all(a < b < lr for a, b in zip(decoder_lrs, decoder_lrs[1:]))
    assert by_name[f"{enc}.1.linear1.weight"] < decoder_lrs[0]


class T5Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.layer = nn.ModuleList([nn.Linear(d, d), nn.Linear(d, d)])  # a stack inside a block
        self.norm = HandNorm(d)


class T5Stack(nn.Module):
    def __init__(self, n, d, positions=False):
        super().__init__()
        if positions:
            self.embed_positions = nn.Embedding(16, d)
        self.block = nn.ModuleList(T5Block(d) for _ in range(n))
        self.final_layer_norm = HandNorm(d)


class T5Like(nn.Module):
    def __init__(self, d=8):
        super().__init__()
        self.shared = nn.Embedding(11, d)
        self.encoder = T5Stack(3, d)
        self.decoder = T5Stack(3, d, positions=True)
        self.lm_head = nn.Linear(d, 11, bias=False)


def test_layer_decay_with_two_stacks_of_the_same_block_type():
    groups = tw.param_groups(T5Like(), weight_decay=0.1, lr=1.0, layer_decay=0.5)
    by_name = _lr_by_name(groups)
    layer = {n: g["layer"] for g in groups for n in g["names"]}
    assert layer["shared.weight"] == 0
    assert layer["decoder.embed_positions.weight"] == 0  # embeddings are layer 0 wherever they sit
    assert [layer[f"encoder.block.{i}.layer.1.weight"] for i in range(3)] == [1, 2, 3]
    assert layer["encoder.final_layer_norm.weight"] == 3
    assert [layer[f"decoder.block.{i}.layer.0.weight"] for i in range(3)] == [4, 5, 6]
    assert layer["decoder.final_layer_norm.weight"] == 7  # after the last stack: the top
    assert layer["lm_head.weight"] == 7
    assert by_name["lm_head.weight"] == 1.0
    assert all(by_name[f"decoder.block.{i}.norm.weight"] < 1.0 for i in range(3))


class StackedWithMLPHead(Stacked):
    def __init__(self):
        super().__init__(num_blocks=2)
        self.head = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2), nn.Dropout())


def test_a_sequential_head_of_plain_layers_is_not_a_stack_of_blocks():
    groups = tw.param_groups(StackedWithMLPHead(), weight_decay=0.0, lr=1.0, layer_decay=0.5)
    by_name = _lr_by_name(groups)
    assert by_name["head.0.weight"] == by_name["head.2.weight"] == 1.0
    assert by_name["blocks.1.0.weight"] == 0.5
    assert by_name["blocks.0.0.weight"] == 0.25


def test_optim_layers_selects_the_stacks():
    model = Seq2Seq(2, 3)
    enc, dec = "transformer.encoder.layers", "transformer.decoder.layers"
    opt = tw.build_optimizer(model, OptimConfig(lr=1.0, layer_decay=0.5, layers=dec))
    layer = {n: g["layer"] for g in opt.param_groups for n in g["names"]}
    assert layer["embed.weight"] == 0
    assert layer[f"{enc}.1.linear1.weight"] == 0  # registered before the chosen stack
    assert [layer[f"{dec}.{i}.linear1.weight"] for i in range(3)] == [1, 2, 3]
    assert layer["head.weight"] == 4
    both = tw.build_optimizer(model, lr=1.0, layer_decay=0.5, layers=f"{enc}, {dec}")
    layer = {n: g["layer"] for g in both.param_groups for n in g["names"]}
    assert [layer[f"{dec}.{i}.linear1.weight"] for i in range(3)] == [3, 4, 5]


@pytest.mark.parametrize("path", ["transformer.encoder.layer", "head", "transformer.encoder"])
def test_optim_layers_that_is_not_a_stack_names_the_key_and_the_candidates(path):
    with pytest.raises(tw.ConfigError) as info:
        tw.build_optimizer(Seq2Seq(), layer_decay=0.5, layers=path)
    message = str(info.value)
    assert f"optim.layers={path!r}" in message
    assert "transformer.encoder.layers" in message and "transformer.decoder.layers" in message


def test_optim_layers_is_checked_even_without_layer_decay_and_rejects_nesting():
    with pytest.raises(tw.ConfigError, match="optim.layers='encoder.blocks'.*encoder.block "):
        tw.build_optimizer(T5Like(), layers="encoder.blocks")
    with pytest.raises(tw.ConfigError, match="'encoder.block.0.layer' lies inside 'encoder.block'"):
        tw.build_optimizer(T5Like(), layer_decay=0.5, layers="encoder.block,encoder.block.0.layer")
