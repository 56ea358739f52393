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
from trainwell.observe.base import StepReport
from trainwell.parts.compile import compiled_forward

pytestmark = pytest.mark.cpu_only  # models built here stay on the CPU; outputs compared exactly

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


@pytest.mark.parametrize(
    "value,graphs",
    [
        ({"mode": "reduce-overhead"}, True),
        ({"mode": "max-autotune"}, True),
        ({"mode": "max-autotune-no-cudagraphs"}, False),
        (True, False),
        ({"options": {"triton.cudagraphs": True}}, True),
        ({"mode": "reduce-overhead", "backend": "aot_eager"}, False),  # inductor's feature
    ],
)
def test_which_settings_record_cuda_graphs(value, graphs):
    assert CompileSettings.of(value).cuda_graphs is graphs


def test_under_cuda_graphs_each_optimizer_step_and_each_eval_batch_is_a_step(monkeypatch):
    """CUDA graphs overwrite their outputs at the next replay. Training marks a new step once
    per optimizer step (fit's observer call ends one), however many forwards it makes;
    validation marks each batch and hands back outputs of its own. (torch.compile itself is
    replaced: what is checked is the calls.)"""
    compiled_with, marks = [], []

    def graphed(fn, **kw):  # a stand-in for a CUDA graph: one output buffer, reused
        compiled_with.append(kw)
        pool = {}

        def replay(*args, **kwargs):
            out = fn(*args, **kwargs)
            pool.setdefault("out", torch.empty_like(out)).copy_(out.detach())
            return pool["out"] if not out.requires_grad else out

        return replay

    monkeypatch.setattr(torch, "compile", graphed)
    monkeypatch.setattr(torch.compiler, "cudagraph_mark_step_begin", lambda: marks.append(1))
    model = mlp()
    with compiled_forward(model, {"mode": "reduce-overhead"}) as compiled:
        for step in (1, 2):
            for _ in range(2):  # two forwards in one step (a GAN, a second view)
                model(torch.randn(8, 4)).sum().backward()
            report = StepReport(step, 1, step, None, None, 0.1, True, 8, data_wait_s=0.0)
            compiled.on_step_end(report)
        model(torch.randn(5, 4))  # the short last batch: eager, no new graph
        assert len(marks) == 2
        model.eval()
        with torch.inference_mode():
            batches = torch.randn(2, 8, 4)
            first = model(batches[0])
            model(batches[1])  # the next replay: the graph's buffer now holds batch 2
            expected = compiled._forward(batches[0])
        assert len(marks) == 4
        assert torch.equal(first, expected)  # the first batch's outputs are its own
    assert {kw["mode"] for kw in compiled_with} == {"reduce-overhead"}
    marks.clear()
    with compiled_forward(model, True):
        model(torch.randn(8, 4))
    assert marks == []  # no CUDA graphs, nothing to mark
