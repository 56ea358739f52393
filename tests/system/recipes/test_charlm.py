"""The charlm recipe: its data (deterministic, split by position, shifted by one), its model
(shapes, causality, weight tying), a short run that learns, and text sampled from it."""

import math

import pytest
import torch

import trainwell as tw
from trainwell.cli.app import main
from trainwell.recipes import BUILTIN, Job, charlm, load_recipe
from trainwell.recipes.charlm import (
    CharGPT,
    ModelConfig,
    build,
    decode,
    encode,
    load_stdlib_text,
    make_data,
    make_windows,
    sample,
    sequence_cross_entropy,
    split_ids,
)

#: A tiny model on a little text: every test here runs in seconds on a laptop CPU.
TINY = {"block_size": 32, "n_layer": 1, "n_head": 4, "n_embd": 64, "max_chars": 40_000}


def tiny_config(**sections):
    values = {
        "run": {"quiet": True, "progress": False, "seed": 0, "device": "cpu"},
        "model": TINY,
        **sections,
    }
    return tw.build_config(values, base=charlm.CONFIG, model_type=ModelConfig)


@pytest.fixture(scope="module", autouse=True)
def _one_thread():
    """One intra-op thread: these matrices are small, and on a busy 2-core machine OpenMP's
    spinning threads make a run many times slower. Module-scoped, so the module-scoped
    training fixture below runs under it too."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture(scope="module")
def tiny_job():
    torch.manual_seed(0)  # trainwell seeds before build(); a test does it itself
    return build(tiny_config())


# --------------------------------------------------------------------------- registration


def test_charlm_is_a_builtin_recipe_with_the_recipe_contract():
    assert BUILTIN["charlm"] == "trainwell.recipes.charlm"
    module = load_recipe("charlm")
    assert module.DESCRIPTION
    assert isinstance(module.CONFIG.model, ModelConfig)
    assert module.CONFIG.monitor.metric == "val_loss"
    assert module.CONFIG.monitor.mode == "min"


def test_model_keys_are_overridable_and_checked():
    cfg = tw.build_config(base=charlm.CONFIG, model_type=ModelConfig, overrides=["model.n_layer=3"])
    assert cfg.model.n_layer == 3
    with pytest.raises(tw.ConfigError):
        tw.build_config(base=charlm.CONFIG, model_type=ModelConfig, overrides=["model.n_layers=3"])


# --------------------------------------------------------------------------- data


def test_the_text_is_deterministic_and_capped_by_max_chars():
    first, second = load_stdlib_text(5_000), load_stdlib_text(5_000)
    assert first == second
    assert len(first) == 5_000
    assert load_stdlib_text(10_000).startswith(first)  # a bigger cap only adds text at the end


def test_the_data_split_is_deterministic_and_disjoint_train_before_val():
    text = load_stdlib_text(20_000)
    (x_tr, y_tr), (x_va, y_va), vocab = make_data(text, block_size=16, val_fraction=0.25)
    (x_tr2, y_tr2), (x_va2, y_va2), vocab2 = make_data(text, block_size=16, val_fraction=0.25)
    assert vocab == vocab2
    for a, b in [(x_tr, x_tr2), (y_tr, y_tr2), (x_va, x_va2), (y_va, y_va2)]:
        assert torch.equal(a, b)

    cut = int(len(text) * 0.75)
    train_text = decode(x_tr.reshape(-1), vocab)
    val_text = decode(x_va.reshape(-1), vocab)
    # Training windows read the text from its start, validation windows from the cut on: the
    # two never share a character position, and all training text comes before validation.
    assert text.startswith(train_text)
    assert len(train_text) + 1 <= cut  # +1: the last training target is still before the cut
    assert text[cut:].startswith(val_text)
    assert len(val_text) >= 0.2 * len(text)


def test_targets_are_the_inputs_shifted_by_one():
    ids = torch.arange(50)
    x, y = make_windows(ids, block_size=8)
    assert x.shape == y.shape == (6, 8)  # (50 - 1) // 8 non-overlapping windows
    assert torch.equal(x[0], torch.arange(8))
    assert torch.equal(x[1], torch.arange(8, 16))  # non-overlapping
    assert torch.equal(y, x + 1)
    assert torch.equal(y[:, :-1], x[:, 1:])


def test_split_ids_cuts_at_the_val_fraction():
    train, val = split_ids(torch.arange(100), 0.1)
    assert torch.equal(train, torch.arange(90))
    assert torch.equal(val, torch.arange(90, 100))


def test_the_vocabulary_covers_the_text_and_round_trips(tiny_job):
    vocab = tiny_job.extra["vocab"]
    text = load_stdlib_text(TINY["max_chars"])
    assert vocab == "".join(sorted(set(text)))  # sorted, no duplicates
    assert decode(encode(text, vocab), vocab) == text
    x, _ = tiny_job.train_data
    assert int(x.min()) >= 0 and int(x.max()) < len(vocab)
    with pytest.raises(ValueError, match="not in the vocabulary"):
        encode("\x00", vocab)


def test_too_little_text_for_one_validation_window_is_a_config_error():
    with pytest.raises(tw.ConfigError, match="validation text"):
        make_data("x" * 100, block_size=32, val_fraction=0.1)


# --------------------------------------------------------------------------- model


def test_the_model_maps_ids_to_next_character_logits_per_position():
    model = CharGPT(vocab_size=40, block_size=16, n_layer=2, n_head=2, n_embd=32)
    logits = model(torch.randint(0, 40, (3, 16)))
    assert logits.shape == (3, 16, 40)
    assert model(torch.randint(0, 40, (2, 5))).shape == (2, 5, 40)  # shorter than block_size
    assert isinstance(model.blocks, torch.nn.ModuleList) and len(model.blocks) == 2
    with pytest.raises(ValueError, match="block_size"):
        model(torch.zeros(1, 17, dtype=torch.long))


def test_the_model_is_causal_a_future_token_changes_no_earlier_logit():
    torch.manual_seed(0)
    model = CharGPT(vocab_size=30, block_size=12, n_layer=2, n_head=2, n_embd=32).eval()
    ids = torch.randint(0, 30, (2, 12))
    changed = ids.clone()
    changed[:, 7] = (changed[:, 7] + 1) % 30
    with torch.no_grad():
        before, after = model(ids), model(changed)
    torch.testing.assert_close(before[:, :7], after[:, :7])
    assert not torch.allclose(before[:, 7:], after[:, 7:])


def test_the_head_is_tied_to_the_token_embedding():
    model = CharGPT(vocab_size=30, block_size=8, n_layer=1, n_head=2, n_embd=16)
    assert model.head.weight is model.tok_emb.weight
    names = [name for name, _ in model.named_parameters()]
    assert "head.weight" not in names  # one parameter, counted (and updated) once


def test_the_initial_loss_is_near_uniform(tiny_job):
    vocab_size = len(tiny_job.extra["vocab"])
    loss = tw.evaluate(tiny_job.model, tiny_job.val_data, loss=sequence_cross_entropy)["loss"]
    assert abs(loss - math.log(vocab_size)) < 0.3


def test_a_bad_head_count_is_a_config_error():
    with pytest.raises(tw.ConfigError, match="divisible"):
        CharGPT(vocab_size=10, n_embd=30, n_head=4)


# --------------------------------------------------------------------------- training


@pytest.fixture(scope="module")
def trained():
    cfg = tiny_config(train={"max_epochs": 3}, schedule={"warmup_steps": 5})
    torch.manual_seed(cfg.run.seed)
    job = build(cfg)
    assert isinstance(job, Job)
    result = tw.fit(
        job.model,
        job.train_data,
        job.val_data,
        loss=job.loss,
        metrics=job.metrics,
        config=cfg,
    )
    return job, result


def test_a_short_run_brings_the_loss_well_below_uniform_and_reports_val_loss(trained):
    job, result = trained
    uniform = math.log(len(job.extra["vocab"]))
    last = result.history[-1]
    assert last["train_loss"] < 0.7 * uniform
    assert math.isfinite(last["val_loss"]) and last["val_loss"] < 0.7 * uniform
    assert result.monitor == "val_loss" and result.best == min(
        r["val_loss"] for r in result.history
    )
    assert 0.0 < last["val_accuracy"] <= 1.0


def test_sample_returns_the_requested_characters_from_the_vocabulary(trained):
    job, _ = trained
    vocab = job.extra["vocab"]
    prompt = "def " * 20  # longer than block_size: the context is cropped
    text = sample(job.model, vocab, prompt, 80, generator=torch.Generator().manual_seed(0))
    assert len(text) == 80
    assert set(text) <= set(vocab)
    again = sample(job.model, vocab, prompt, 80, generator=torch.Generator().manual_seed(0))
    assert again == text  # a seeded generator reproduces the draw
    assert len(sample(job.model, vocab, "", 5, temperature=0)) == 5
    assert job.model.training  # the model's mode is restored


def test_the_cli_trains_charlm_with_overrides(tmp_path, capsys):
    sets = [f"model.{key}={value}" for key, value in TINY.items()]
    sets += ["train.max_steps=5", "run.device=cpu"]
    args = ["train", "--recipe", "charlm", "--run-dir", str(tmp_path / "run"), "--quiet"]
    for item in sets:
        args += ["--set", item]
    assert main(args) == 0
    assert (tmp_path / "run" / "summary.json").is_file()
