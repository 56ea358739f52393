"""Config: nested dicts, overrides, YAML/TOML files, precise errors, save round trip, model section."""

from dataclasses import dataclass

import pytest

import trainwell as tw
from trainwell.config.sections import Config, OptimConfig, TrainConfig
from trainwell.config.tree import config_yaml
from trainwell.state.atomic import write_text_atomic

pytestmark = (
    pytest.mark.cpu_only
)  # asserts CPU semantics (exact parity with CPU tensors, fp32, CPU probes): CUDA hidden


def test_defaults():
    cfg = tw.build_config()
    assert cfg == Config()
    assert cfg.optim.lr == 1e-3 and cfg.train.precision == "auto"


def test_nested_dict_values():
    cfg = tw.build_config({"train": {"max_epochs": 3}, "run": {"progress": False, "quiet": True}})
    assert cfg.train.max_epochs == 3
    assert cfg.run.progress is False and cfg.run.quiet is True
    assert (
        cfg.train.accumulate_steps == TrainConfig().accumulate_steps
    )  # untouched keys keep defaults


def test_overrides_are_yaml_parsed():
    cfg = tw.build_config(
        overrides=[
            "optim.lr=3e-4",
            "train.max_epochs=7",
            "schedule.milestones=[2, 5]",
            "optim.betas=[0.8, 0.95]",
            "train.clip_norm=null",
            "train.max_steps=100",
            "run.progress=false",
            "data.shuffle=False",
            "optim.name=sgd",
            "run.dir=runs/a=b",
            "optim.weight_decay=0",
        ]
    )
    assert cfg.optim.lr == 3e-4 and isinstance(cfg.optim.lr, float)
    assert cfg.train.max_epochs == 7
    assert cfg.schedule.milestones == (2, 5)
    assert cfg.optim.betas == (0.8, 0.95)
    assert cfg.train.clip_norm is None
    assert cfg.train.max_steps == 100
    assert cfg.run.progress is False and cfg.data.shuffle is False
    assert cfg.optim.name == "sgd"
    assert cfg.run.dir == "runs/a=b"
    assert cfg.optim.weight_decay == 0.0 and isinstance(cfg.optim.weight_decay, float)


def test_overrides_win_over_values():
    cfg = tw.build_config({"optim": {"lr": 0.1, "eps": 1e-6}}, ["optim.lr=0.2"])
    assert cfg.optim.lr == 0.2
    assert cfg.optim.eps == 1e-6


def test_base_supplies_defaults():
    base = Config(optim=OptimConfig(lr=0.05, weight_decay=0.0))
    cfg = tw.build_config({"optim": {"weight_decay": 0.1}}, base=base)
    assert cfg.optim.lr == 0.05 and cfg.optim.weight_decay == 0.1


@pytest.mark.parametrize(
    ("override", "bad_key", "expected"),
    [
        ("optim.lrr=0.1", "'optim.lrr'", "optim.lr"),
        ("trian.max_epochs=3", "'trian'", "train.max_epochs"),  # a misspelt section
        ("train.max_epoch=3", "'train.max_epoch'", "train.max_epochs"),
        ("schedule.warmup_step=3", "'schedule.warmup_step'", "schedule.warmup_steps"),
    ],
)
def test_unknown_key_names_key_and_closest_valid_key(override, bad_key, expected):
    with pytest.raises(tw.ConfigError) as info:
        tw.build_config(overrides=[override])
    message = str(info.value)
    assert bad_key in message
    assert f"did you mean {expected}?" in message


def test_unknown_key_in_nested_dict():
    with pytest.raises(tw.ConfigError, match=r"'data\.batchsize'.*data\.batch_size"):
        tw.build_config({"data": {"batchsize": 3}})


def test_unknown_key_without_close_match_lists_valid_keys():
    with pytest.raises(tw.ConfigError, match="monitor.metric") as info:
        tw.build_config(overrides=["monitor.zzzzzzzz=1"])
    assert "monitor.zzzzzzzz" in str(info.value)


@pytest.mark.parametrize(
    ("override", "fragment"),
    [
        ("train.max_epochs=ten", "train.max_epochs='ten'"),
        ("train.max_epochs=2.5", "train.max_epochs=2.5"),
        ("optim.lr=fast", "optim.lr='fast'"),
        ("run.progress=maybe", "run.progress='maybe'"),
        ("optim.betas=0.9", "optim.betas=0.9"),
        ("optim.betas=[0.9]", "optim.betas"),
        ("train.max_steps=many", "train.max_steps='many'"),
        ("train.accumulate_steps=true", "train.accumulate_steps=True"),
    ],
)
def test_bad_types_name_the_key(override, fragment):
    with pytest.raises(tw.ConfigError) as info:
        tw.build_config(overrides=[override])
    assert fragment in str(info.value)


def test_bad_type_in_dict_values():
    with pytest.raises(tw.ConfigError, match=r"train\.max_epochs='ten'.*whole number"):
        tw.build_config({"train": {"max_epochs": "ten"}})
    with pytest.raises(tw.ConfigError, match="train"):
        tw.build_config({"train": 3})


def test_literal_choice_suggests_closest():
    with pytest.raises(tw.ConfigError) as info:
        tw.build_config(overrides=["train.precision=fp17"])
    message = str(info.value)
    assert "train.precision='fp17'" in message
    assert "did you mean 'fp16'?" in message
    with pytest.raises(tw.ConfigError, match="did you mean 'warmup_cosine'"):
        tw.build_config(overrides=["schedule.name=warmup_cosin"])


@pytest.mark.parametrize(
    ("override", "fragment"),
    [
        ("data.batch_size=0", "data.batch_size=0 must be > 0"),
        ("train.accumulate_steps=-1", "train.accumulate_steps=-1 must be > 0"),
        ("data.num_workers=-1", "data.num_workers=-1 must be >= 0"),
        ("optim.lr=0", "optim.lr=0.0 must be > 0"),
        ("train.max_steps=0", "train.max_steps=0 must be > 0"),
        ("schedule.warmup_ratio=1.0", "schedule.warmup_ratio=1.0"),
        ("optim.layer_decay=1.5", "optim.layer_decay=1.5"),
        ("train.clip_norm=-1", "train.clip_norm=-1.0 must be > 0"),
    ],
)
def test_value_ranges(override, fragment):
    with pytest.raises(tw.ConfigError) as info:
        tw.build_config(overrides=[override])
    assert fragment in str(info.value)


def test_malformed_override():
    with pytest.raises(tw.ConfigError, match="section.key=value"):
        tw.build_config(overrides=["optim.lr"])


def test_load_config_yaml_then_toml_then_overrides(tmp_path):
    yaml_file = tmp_path / "a.yaml"
    yaml_file.write_text("optim:\n  lr: 3e-4\n  weight_decay: 0.05\ntrain:\n  max_epochs: 4\n")
    toml_file = tmp_path / "b.toml"
    toml_file.write_text(
        '[optim]\nlr = 1e-2\n\n[schedule]\nname = "one_cycle"\nmilestones = [1, 2]\n'
    )
    cfg = tw.load_config([yaml_file, toml_file], ["train.max_epochs=9"])
    assert cfg.optim.lr == 1e-2  # the later file wins
    assert cfg.optim.weight_decay == 0.05  # merged, not replaced section-wide
    assert cfg.schedule.name == "one_cycle"
    assert cfg.schedule.milestones == (1, 2)
    assert cfg.train.max_epochs == 9  # overrides win over files
    reversed_order = tw.load_config([toml_file, yaml_file])
    assert reversed_order.optim.lr == 3e-4
    assert reversed_order.train.max_epochs == 4


def test_load_config_errors(tmp_path):
    with pytest.raises(tw.ConfigError, match="does not exist"):
        tw.load_config([tmp_path / "missing.yaml"])
    bad = tmp_path / "bad.toml"
    bad.write_text("[optim\nlr = ")
    with pytest.raises(tw.ConfigError, match="does not parse"):
        tw.load_config([bad])
    listy = tmp_path / "list.yaml"
    listy.write_text("- 1\n- 2\n")
    with pytest.raises(tw.ConfigError, match="mapping"):
        tw.load_config([listy])
    unknown = tmp_path / "unknown.yaml"
    unknown.write_text("optim:\n  lrr: 0.1\n")
    with pytest.raises(tw.ConfigError, match="optim.lr"):
        tw.load_config([unknown])


@dataclass(frozen=True)
class ModelOptions:
    hidden: int = 16
    dropout: float = 0.1
    act: str = "relu"


def test_model_section_typed_by_recipe_dataclass():
    cfg = tw.build_config({"model": {"hidden": 32}}, ["model.dropout=0.3"], model_type=ModelOptions)
    assert cfg.model == ModelOptions(hidden=32, dropout=0.3)
    with pytest.raises(tw.ConfigError, match="did you mean model.hidden"):
        tw.build_config(overrides=["model.hiden=3"], model_type=ModelOptions)
    with pytest.raises(tw.ConfigError, match="model.hidden='wide'"):
        tw.build_config(overrides=["model.hidden=wide"], model_type=ModelOptions)
    based = tw.build_config(
        overrides=["model.act=gelu"], base=Config(model=ModelOptions(hidden=64))
    )
    assert based.model == ModelOptions(hidden=64, act="gelu")


def test_the_config_yaml_round_trip(tmp_path):
    cfg = tw.build_config(
        {
            "optim": {"lr": 3e-4, "betas": [0.8, 0.9], "eps": 1e-8, "layer_decay": 0.75},
            "schedule": {"name": "multistep", "milestones": [3, 6]},
            "train": {"max_steps": None, "clip_norm": None, "precision": "bf16"},
            "run": {"dir": "runs/x"},
            "model": {"hidden": 8},
        },
        model_type=ModelOptions,
    )
    path = tmp_path / "config.yaml"
    write_text_atomic(config_yaml(cfg), path)
    loaded = tw.load_config([path], model_type=ModelOptions)
    assert loaded == cfg
    assert loaded.fingerprint() == cfg.fingerprint()
    assert tw.build_config(overrides=["optim.lr=0.1"]).fingerprint() != Config().fingerprint()


def test_fit_accepts_a_plain_dict_config_and_rejects_bad_keys():
    import torch

    with pytest.raises(tw.ConfigError, match="train.max_epochs"):
        tw.fit(
            torch.nn.Linear(2, 2),
            (torch.zeros(4, 2), torch.zeros(4, dtype=torch.long)),
            config={"train": {"max_epoch": 1}},
        )


# --------------------------------------------------------------------------- messages a user can act on


@pytest.mark.parametrize(
    "override",
    [
        "train.max_steps=None",
        "train.clip_norm=None",
        "data.pin_memory=None",
        "early_stop.patience=none",
        "run.dir=None",
    ],
)
def test_python_none_suggests_null(override):
    key = override.split("=")[0]
    with pytest.raises(tw.ConfigError) as info:
        tw.build_config(overrides=[override])
    message = str(info.value)
    assert key in message
    assert "write null, not None" in message
    assert "\n" not in message


def test_python_none_where_null_is_not_allowed_says_what_is():
    with pytest.raises(tw.ConfigError) as info:
        tw.build_config(overrides=["data.num_workers=None"])
    assert str(info.value) == "data.num_workers='None' must be a whole number >= 0 or auto"


def test_python_none_in_a_yaml_file_suggests_null(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("train:\n  max_steps: None\n")
    with pytest.raises(tw.ConfigError, match="train.max_steps='None'.*write null, not None"):
        tw.load_config([path])


@pytest.mark.parametrize(
    ("override", "expected"),
    [
        ("data.num_workers=lots", "data.num_workers='lots' must be a whole number >= 0 or auto"),
        ("data.num_workers=2.5", "data.num_workers=2.5 must be a whole number >= 0 or auto"),
        ("train.max_steps=many", "train.max_steps='many' must be a whole number > 0, or null"),
        ("train.clip_norm=high", "train.clip_norm='high' must be a number > 0, or null"),
        ("data.pin_memory=maybe", "data.pin_memory='maybe' must be true, false or null"),
        ("train.max_epochs=ten", "train.max_epochs='ten' must be a whole number > 0"),
        ("optim.betas=0.9", "optim.betas=0.9 must be a list of 2 numbers"),
        ("optim.betas=[0.9]", "optim.betas=[0.9] must be a list of 2 numbers"),
        ("schedule.milestones=3", "schedule.milestones=3 must be a list of whole numbers"),
        ("schedule.milestones=[1, x]", "schedule.milestones[1]='x' must be a whole number"),
    ],
)
def test_type_errors_read_in_plain_words(override, expected):
    with pytest.raises(tw.ConfigError) as info:
        tw.build_config(overrides=[override])
    message = str(info.value)
    assert expected in message
    for jargon in ("Union", "Literal", "fits none", "NoneType", "typing"):
        assert jargon not in message


def test_union_with_a_choice_suggests_the_closest_choice():
    with pytest.raises(tw.ConfigError, match="did you mean 'auto'"):
        tw.build_config(overrides=["data.num_workers=atuo"])


@pytest.mark.parametrize(
    ("yaml_text", "expected"),
    [
        ('run:\n  progress: "false"\n', "write false without quotes"),
        ('train:\n  max_steps: "null"\n', "write null without quotes"),
    ],
)
def test_quoted_value_in_a_yaml_file_says_so(tmp_path, yaml_text, expected):
    path = tmp_path / "c.yaml"
    path.write_text(yaml_text)
    with pytest.raises(tw.ConfigError) as info:
        tw.load_config([path])
    message = str(info.value)
    assert f"is a quoted string (in config file {path})" in message
    assert expected in message


def test_quoted_float_in_a_yaml_file_is_read_as_a_number(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text('optim:\n  lr: "1e-3"\n  eps: 1e-6\n')
    cfg = tw.load_config([path])
    assert cfg.optim.lr == 1e-3 and cfg.optim.eps == 1e-6


def test_optim_layers_key():
    cfg = tw.build_config(overrides=["optim.layers=encoder.layers, decoder.layers"])
    assert cfg.optim.layers == "encoder.layers, decoder.layers"
    assert tw.build_config().optim.layers is None
    for bad in ("encoder..layers", "encoder.layers,", "encoder.layers[0]"):
        with pytest.raises(tw.ConfigError, match=r"optim\.layers=.*dotted path"):
            tw.build_config(overrides=[f"optim.layers={bad}"])


def test_config_help_shows_defaults_as_they_are_written():
    from trainwell.config.tree import config_help

    lines = config_help().splitlines()
    assert any(line.startswith("  train.max_steps=null  ") for line in lines)
    assert any(line.startswith("  optim.betas=[0.9, 0.999]  ") for line in lines)
    assert any(line.startswith("  run.progress=true  ") for line in lines)
    assert any(line.startswith("  optim.name=adamw  ") for line in lines)
    for line in lines:  # every default shown can be pasted back as an override
        key, value = line.strip().split("  ")[0].split("=", 1)
        assert tw.build_config(overrides=[f"{key}={value}"]) == tw.build_config(), line


def _leaf_fields(config, prefix=""):
    """(dotted key, owning class, field) for every leaf of a config tree, sections recursed."""
    import dataclasses

    for f in dataclasses.fields(config):
        value = getattr(config, f.name)
        if dataclasses.is_dataclass(value):
            yield from _leaf_fields(value, f"{prefix}{f.name}.")
        else:
            yield f"{prefix}{f.name}", type(config), f


def test_every_config_key_has_help_in_its_metadata():
    from trainwell.config.tree import field_help

    leaves = list(_leaf_fields(Config()))
    assert len(leaves) > 60 and any(key.startswith("guards.") for key, _, _ in leaves)
    for key, _, f in leaves:
        help_text = f.metadata.get("help")
        assert isinstance(help_text, str) and help_text.strip(), (
            f"{key} has no help: declare it with option(default, help)"
        )
        assert "\n" not in help_text, f"{key}: help is one line"
        assert field_help(f) == help_text


def test_config_help_lists_keys_with_their_help():
    from trainwell.config.tree import config_help

    lines = config_help().splitlines()
    for expected in (
        "  optim.lr=0.001  peak learning rate",
        "  train.precision=auto  auto (bf16 on CUDA GPUs that have it, else fp16 with "
        "GradScaler; fp32 on CPU and MPS) | fp32 | bf16 | fp16",
        "  data.batch_size=64  samples per micro-batch",
        "  checkpoint.resume=null  a checkpoint file, a run directory, or "
        '"auto" (this run\'s newest)',
        "  guards.every=100  optimizer steps between the guards' host reads and sampled checks",
    ):
        assert expected in lines
    keys = [line.split("=", 1)[0].strip() for line in lines]
    assert keys == [key for key, _, _ in _leaf_fields(Config())]


def test_config_help_does_not_need_the_source_code(monkeypatch):
    import inspect

    from trainwell.config.tree import config_help

    expected = config_help()

    def no_source(obj):
        raise OSError("source code not available")

    monkeypatch.setattr(inspect, "getsource", no_source)
    monkeypatch.setattr(inspect, "getsourcelines", no_source)
    assert config_help() == expected


def test_option_keeps_help_in_metadata_and_copies_mutable_defaults():
    import dataclasses

    from trainwell.config.fields import option
    from trainwell.config.tree import field_help

    @dataclass
    class Opts:
        rate: float = option(0.5, "a rate", metadata={"unit": "1/s"})
        names: list = option(["a"], "some names")

    first, second = Opts(), Opts()
    first.names.append("b")
    assert second.names == ["a"] and Opts().names == ["a"]
    rate, names = dataclasses.fields(Opts)
    assert dict(rate.metadata) == {"unit": "1/s", "help": "a rate"}
    assert field_help(rate) == "a rate" and field_help(names) == "some names"
