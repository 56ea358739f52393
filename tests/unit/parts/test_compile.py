"""train.compile without compiling: a deep copy of a compiled model gets the plain forward, and
the config's compile values are checked and read. (Compiled training through fit():
tests/system/performance/test_compile.py.)"""

import copy
from functools import partial

import pytest
import torch
from tests.fixtures import mlp as shared_mlp
from torch import nn

import trainwell as tw
from trainwell.config.compile import CompileSettings
from trainwell.errors import ConfigError
from trainwell.parts.compile import compiled_forward

mlp = partial(shared_mlp, hidden=32, dropout=0.1)

FAST = {"backend": "aot_eager"}


def test_deepcopy_of_a_compiled_model_gets_the_plain_forward():
    model = mlp()
    with compiled_forward(model, FAST):
        twin = copy.deepcopy(model)
        x = torch.randn(3, 4)
        twin.eval()
        assert twin.forward.__self__ is twin
        torch.testing.assert_close(twin(x), nn.Sequential.forward(twin, x))


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ({"mod": "max-autotune"}, "no key 'mod'"),
        ("yes", "must be true, false, or a mapping"),
        ({"dynamic": "sometimes"}, "train.compile.dynamic"),
    ],
)
def test_bad_compile_values_name_the_key(value, message):
    with pytest.raises(ConfigError, match=message):
        tw.build_config({"train": {"compile": value}})


def test_compile_settings_from_overrides():
    cfg = tw.build_config(
        overrides=["train.compile.mode=max-autotune", "train.compile.dynamic=null"]
    )
    settings = CompileSettings.of(cfg.train.compile)
    assert settings.mode == "max-autotune" and settings.dynamic is None
    assert settings.torch_kwargs()["backend"] == "inductor"
    assert CompileSettings.of(tw.build_config(overrides=["train.compile=true"]).train.compile)
    assert CompileSettings.of(tw.build_config().train.compile) is None
