"""The fused recipe: the custom op ``trainwell::bias_gelu`` (values, gradients, opcheck, fake
tensors, compile without graph breaks), its C++ kernel where a compiler is present, and runs of
the recipe through fit() and the CLI.

The module is used as ``fused.<name>`` throughout: one test reloads it, which rebinds its names.
"""

import importlib
import shutil

import pytest
import torch
import torch.nn.functional as F
from functorch.compile import make_boxed_func
from torch._dynamo.backends.common import aot_autograd
from torch._dynamo.utils import counters

import trainwell as tw
from trainwell.cli.app import main
from trainwell.recipes import BUILTIN, Job, fused, load_recipe

HAS_COMPILER = fused.cpp_unavailable_reason() is None
needs_compiler = pytest.mark.skipif(
    not HAS_COMPILER, reason=f"C++ kernel unavailable: {fused.cpp_unavailable_reason()}"
)


@pytest.fixture(scope="module", autouse=True)
def _one_thread():
    """One intra-op thread: the matrices are small, and on a busy 2-core machine OpenMP's
    spinning threads make a run many times slower."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture(autouse=True)
def _python_kernel():
    """Each test starts, and leaves the process, on the Python kernel (the choice is global)."""
    fused.use_kernel("python")
    yield
    fused.use_kernel("python")


def unfused(x, bias):
    return F.gelu(x + bias, approximate="tanh")


def expected(x, bias):
    """What the fused op must return: the unfused result; in bfloat16, computed in float32 and
    rounded once (fused, x + bias is never rounded to bfloat16 on the way)."""
    if x.dtype == torch.bfloat16:
        return unfused(x.float(), bias.float()).to(x.dtype)
    return unfused(x, bias)


def sample_inputs(dtype=torch.float64, requires_grad=True):
    """(x, bias) pairs of the shapes the op must handle: 1-D, 2-D, 3-D, a transposed
    (non-contiguous) x, and no rows at all."""
    g = torch.Generator().manual_seed(0)

    def make(*shape):
        return (torch.randn(*shape, generator=g, dtype=dtype) * 3).requires_grad_(requires_grad)

    transposed = (torch.randn(6, 4, generator=g, dtype=dtype) * 3).t()
    return [
        (make(7), make(7)),
        (make(5, 7), make(7)),
        (make(2, 3, 7), make(7)),
        (transposed.requires_grad_(requires_grad), make(6)),
        (make(0, 7), make(7)),
    ]


def recipe_config(**sections):
    values = {"run": {"quiet": True, "progress": False, "seed": 0, "device": "cpu"}, **sections}
    return tw.build_config(values, base=fused.CONFIG, model_type=fused.ModelConfig)


def train(config):
    """Build the recipe's job and fit it, as the CLI does (seed, build, fit)."""
    torch.manual_seed(config.run.seed)
    job = fused.build(config)
    assert isinstance(job, Job)
    result = tw.fit(
        job.model,
        job.train_data,
        job.val_data,
        loss=job.loss,
        metrics=job.metrics,
        config=config,
    )
    return job, result


# --------------------------------------------------------------------------- registration


def test_fused_is_a_builtin_recipe_with_the_recipe_contract():
    assert BUILTIN["fused"] == "trainwell.recipes.fused"
    module = load_recipe("fused")
    assert module is fused and module.DESCRIPTION
    assert isinstance(module.CONFIG.model, fused.ModelConfig)
    assert module.CONFIG.model.kernel == "auto"
    assert module.CONFIG.monitor.metric == "val_accuracy"


def test_model_keys_are_overridable_and_checked():
    cfg = recipe_config(model={"kernel": "python", "hidden": 32})
    assert (cfg.model.kernel, cfg.model.hidden) == ("python", 32)
    with pytest.raises(tw.ConfigError):
        recipe_config(model={"kernel": "cuda"})
    with pytest.raises(tw.ConfigError):
        recipe_config(model={"hiden": 32})


def test_the_op_is_registered_once_under_its_name():
    assert fused.OP_NAME == "trainwell::bias_gelu"
    assert torch.ops.trainwell.bias_gelu.default._schema.name == "trainwell::bias_gelu"
    x, b = torch.randn(2, 3), torch.randn(3)
    torch.testing.assert_close(torch.ops.trainwell.bias_gelu(x, b), fused.bias_gelu(x, b))


# --------------------------------------------------------------------------- values and gradients


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16])
def test_forward_equals_the_unfused_gelu_of_x_plus_bias(dtype):
    for x, b in sample_inputs(dtype, requires_grad=False):
        y = fused.bias_gelu(x, b)
        assert y.shape == x.shape and y.dtype == dtype and y.is_contiguous()
        torch.testing.assert_close(y, expected(x, b))
    # A few values by hand: gelu(0) = 0, gelu(z) ~ z for large z, ~ 0 for very negative z.
    y = fused.bias_gelu(torch.tensor([[-1.0, 0.0, 10.0, -10.0]]), torch.tensor([1.0, 0.0, 0, 0]))
    torch.testing.assert_close(y, torch.tensor([[0.0, 0.0, 10.0, 0.0]]))
    assert fused.bias_gelu(torch.tensor([1.0]), torch.tensor([0.0])).item() == pytest.approx(
        0.8411920, abs=1e-6
    )


def test_gradients_of_x_and_bias_equal_the_unfused_ones():
    for x, b in sample_inputs(torch.float32):
        grad = torch.randn(x.shape)
        gx, gb = torch.autograd.grad(fused.bias_gelu(x, b), (x, b), grad)
        rx, rb = torch.autograd.grad(unfused(x, b), (x, b), grad)
        torch.testing.assert_close(gx, rx)
        torch.testing.assert_close(gb, rb)
        # the bias gradient is the x gradient summed over every leading dimension
        torch.testing.assert_close(gb, gx.reshape(-1, b.shape[0]).sum(0))


def test_bfloat16_gradients_are_computed_in_float32_and_rounded_once():
    x, b = sample_inputs(torch.bfloat16)[2]
    grad = torch.randn(x.shape, dtype=torch.bfloat16)
    gx, gb = torch.autograd.grad(fused.bias_gelu(x, b), (x, b), grad)
    assert gx.dtype == gb.dtype == torch.bfloat16
    x32, b32 = (t.detach().float().requires_grad_() for t in (x, b))
    rx, rb = torch.autograd.grad(unfused(x32, b32), (x32, b32), grad.float())
    torch.testing.assert_close(gx, rx.to(torch.bfloat16))
    torch.testing.assert_close(gb, rb.to(torch.bfloat16))


def test_gradcheck_and_gradgradcheck_in_float64():
    for x, b in sample_inputs(torch.float64)[:4]:
        assert torch.autograd.gradcheck(fused.bias_gelu, (x, b))
        # the backward is made of differentiable torch ops: double backward works too
        assert torch.autograd.gradgradcheck(fused.bias_gelu, (x, b))


def test_only_the_gradients_asked_for_are_computed():
    x, b = torch.randn(4, 3, requires_grad=True), torch.randn(3)
    fused.bias_gelu(x, b).sum().backward()
    assert x.grad is not None and b.grad is None


@pytest.mark.parametrize(
    ("x", "bias", "message"),
    [
        (torch.randn(2, 3), torch.randn(1, 3), "1-D"),
        (torch.randn(2, 3), torch.randn(4), "last dimension"),
        (torch.randn(2, 3), torch.randn(3, dtype=torch.float64), "dtype"),
    ],
)
def test_a_bad_call_is_refused_saying_why(x, bias, message):
    with pytest.raises(RuntimeError, match=message):
        fused.bias_gelu(x, bias)
    with pytest.raises(RuntimeError, match=message):  # the fake refuses it too, while tracing
        fused.bias_gelu(x.to("meta"), bias.to("meta"))


def test_the_fake_kernel_gives_shape_dtype_and_device_without_computing():
    y = fused.bias_gelu(torch.empty(5, 4, 3, device="meta"), torch.empty(3, device="meta"))
    assert y.device.type == "meta" and y.shape == (5, 4, 3) and y.dtype == torch.float32


def test_opcheck_passes_with_the_python_kernel():
    assert fused.kernel_in_use() == "python"
    for args in sample_inputs(torch.float64) + sample_inputs(torch.float32, False)[1:3]:
        result = torch.library.opcheck(fused.bias_gelu, args)
        assert all(outcome == "SUCCESS" for outcome in result.values()), result


# --------------------------------------------------------------------------- compile


def test_compile_traces_the_op_as_one_node_with_no_graph_break():
    torch._dynamo.reset()
    counters.clear()
    graphs = {"forward": [], "backward": []}

    def recorder(kind):
        def compiler(gm, example_inputs):
            graphs[kind].append(gm)
            return make_boxed_func(gm.forward)

        return compiler

    backend = aot_autograd(fw_compiler=recorder("forward"), bw_compiler=recorder("backward"))
    torch.manual_seed(0)
    model = fused.FusedMLP(hidden=32, layers=2)
    compiled = torch.compile(model, fullgraph=True, backend=backend)  # fullgraph: a break raises
    x = torch.randn(16, 1, 8, 8)
    out = compiled(x)
    out.square().mean().backward()
    compiled_grads = [p.grad.clone() for p in model.parameters()]
    model.zero_grad()
    eager = model(x)
    eager.square().mean().backward()

    assert not counters["graph_break"]
    assert len(graphs["forward"]) == len(graphs["backward"]) == 1
    forward_ops = [n.target for n in graphs["forward"][0].graph.nodes if n.op == "call_function"]
    # one opaque node per hidden layer; the backward is the registered formula, in aten ops
    assert forward_ops.count(torch.ops.trainwell.bias_gelu.default) == 2
    backward_ops = {str(n.target) for n in graphs["backward"][0].graph.nodes}
    assert "aten.tanh.default" in backward_ops and "trainwell.bias_gelu.default" not in backward_ops
    torch.testing.assert_close(out, eager)
    for got, want in zip(compiled_grads, [p.grad for p in model.parameters()]):
        torch.testing.assert_close(got, want)
    torch._dynamo.reset()


def test_compile_with_aot_eager_and_dynamic_shapes_has_no_graph_break():
    torch._dynamo.reset()
    counters.clear()
    torch.manual_seed(0)
    model = fused.FusedMLP(hidden=16, layers=1)
    compiled = torch.compile(model, fullgraph=True, backend="aot_eager", dynamic=True)
    for batch in (3, 5, 9):  # the fake kernel handles symbolic batch sizes
        x = torch.randn(batch, 64)
        compiled(x).sum().backward()
        torch.testing.assert_close(compiled(x), model(x))
    assert not counters["graph_break"]
    torch._dynamo.reset()


@pytest.mark.slow
def test_compile_with_inductor_matches_eager():
    """Inductor compiles C++ for CPU: tens of seconds."""
    torch._dynamo.reset()
    counters.clear()
    torch.manual_seed(0)
    model = fused.FusedMLP(hidden=32, layers=2)
    compiled = torch.compile(model, fullgraph=True)
    x = torch.randn(16, 1, 8, 8)
    out = compiled(x)
    out.sum().backward()
    grads = [p.grad.clone() for p in model.parameters()]
    model.zero_grad()
    eager = model(x)
    eager.sum().backward()
    assert not counters["graph_break"]
    torch.testing.assert_close(out, eager)
    for got, want in zip(grads, [p.grad for p in model.parameters()]):
        torch.testing.assert_close(got, want)
    torch._dynamo.reset()


# --------------------------------------------------------------------------- kernels


def test_registration_is_idempotent_a_reload_redefines_the_op_without_error():
    fused.use_kernel("python")
    importlib.reload(fused)  # runs custom_op(...), register_fake, register_kernel again
    x, b = torch.randn(4, 3), torch.randn(3)
    torch.testing.assert_close(fused.bias_gelu(x, b), unfused(x, b))
    torch.testing.assert_close(torch.ops.trainwell.bias_gelu(x, b), unfused(x, b))
    assert torch.library.opcheck(fused.bias_gelu, (x.double().requires_grad_(), b.double()))


def test_without_a_compiler_auto_falls_back_to_python_and_cpp_is_a_config_error(monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    assert "compiler" in fused.cpp_unavailable_reason()
    assert fused.use_kernel("auto") == "python"
    assert fused.kernel_in_use() == "python"
    with pytest.raises(tw.ConfigError, match="model.kernel=cpp"):
        fused.use_kernel("cpp")
    job = fused.build(recipe_config(model={"kernel": "auto"}))
    assert job.extra["kernel"] == "python"
    with pytest.raises(tw.ConfigError):
        fused.use_kernel("fortran")


@pytest.mark.slow
@needs_compiler
def test_the_cpp_kernel_passes_opcheck_and_matches_the_python_kernel():
    """Builds the C++ kernel: tens of seconds the first time, then cached."""
    assert fused.use_kernel("cpp") == "cpp"
    assert fused.use_kernel("cpp") == "cpp"  # selecting (and loading) twice is fine
    fused.load_extension.cache_clear()
    fused.load_extension()  # so is loading the built library a second time
    assert fused.cpp_kernel_loaded() and fused.kernel_in_use() == "cpp"
    for dtype in (torch.float32, torch.float64, torch.bfloat16):  # bf16: the Python fallback
        for x, b in sample_inputs(dtype, requires_grad=False):
            y = fused.bias_gelu(x, b)
            assert y.is_contiguous()
            torch.testing.assert_close(y, expected(x, b))
            torch.testing.assert_close(y, fused.bias_gelu_reference(x, b))
    x, b = torch.randn(300, 257), torch.randn(257)  # several parallel chunks of rows
    torch.testing.assert_close(torch.ops.trainwell_ext.bias_gelu_cpu(x, b), unfused(x, b))
    for args in sample_inputs(torch.float64) + sample_inputs(torch.float32, requires_grad=False):
        result = torch.library.opcheck(fused.bias_gelu, args)
        assert all(outcome == "SUCCESS" for outcome in result.values()), result
    for x, b in sample_inputs(torch.float64)[:4]:
        assert torch.autograd.gradcheck(fused.bias_gelu, (x, b))


@pytest.mark.slow
@needs_compiler
def test_the_recipe_trains_with_the_cpp_kernel_under_compile():
    compile_settings = {"backend": "aot_eager", "fullgraph": True}
    cfg = recipe_config(
        train={"max_epochs": 3, "compile": compile_settings}, model={"kernel": "cpp"}
    )
    torch._dynamo.reset()
    counters.clear()
    job, result = train(cfg)
    assert job.extra["kernel"] == "cpp"
    assert not counters["graph_break"]
    assert result.summary()["compile"]["graph_breaks"] == 0
    assert result.history[-1]["val_accuracy"] > 0.93
    torch._dynamo.reset()


# --------------------------------------------------------------------------- training


def test_fit_trains_the_recipe_model_to_a_good_validation_accuracy():
    job, result = train(recipe_config(train={"max_epochs": 3}, model={"kernel": "python"}))
    assert job.extra["kernel"] == "python"
    assert isinstance(job.model, fused.FusedMLP)
    assert sum(isinstance(m, fused.LinearBiasGELU) for m in job.model.modules()) == 2
    accuracies = [row["val_accuracy"] for row in result.history]
    assert len(accuracies) == 3
    assert accuracies[-1] > 0.93  # measured: 0.961-0.972 over seeds 0-2
    assert result.history[-1]["train_loss"] < result.history[0]["train_loss"]
    assert result.best == max(accuracies)


def test_fit_with_plain_tensors_and_a_dict_config():
    """fit() straight on the model and (X, y) tensors, as a user would write it."""
    torch.manual_seed(0)
    fused.use_kernel("python")
    train_data, val_data = fused.load_digits_tensors(0.2, seed=0)
    result = tw.fit(
        fused.FusedMLP(hidden=128),
        train_data,
        val_data,
        metrics=["accuracy"],
        config={"run": {"quiet": True, "device": "cpu"}, "train": {"max_epochs": 4}},
    )
    assert result.history[-1]["val_accuracy"] > 0.9


def test_the_cli_trains_the_fused_recipe(tmp_path):
    args = ["train", "--recipe", "fused", "--run-dir", str(tmp_path / "run")]
    for item in ["model.kernel=python", "train.max_epochs=1", "run.quiet=true", "run.device=cpu"]:
        args += ["--set", item]
    assert main(args) == 0
    assert (tmp_path / "run" / "summary.json").is_file()


def test_fit_with_train_compile_reaches_the_accuracy_with_no_graph_break():
    """``train.compile`` compiles the model inside fit(); the op keeps it one graph."""
    torch._dynamo.reset()
    counters.clear()
    cfg = recipe_config(
        train={"max_epochs": 3, "compile": {"backend": "aot_eager"}},
        model={"kernel": "python"},
    )
    _, result = train(cfg)
    assert not counters["graph_break"]
    assert result.history[-1]["val_accuracy"] > 0.93
    report = result.summary()["compile"]
    assert report["graphs"] >= 1  # it did compile
    assert report["graph_breaks"] == 0 and not report["graph_break_reasons"], report
    torch._dynamo.reset()
