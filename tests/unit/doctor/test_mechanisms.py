"""Mechanism tests: each analysis mechanism with a positive and a negative snippet.

Every test runs a small script through :func:`check_source` and compares the exact set of
``(line, code)`` findings for the rules it is about.
"""

from __future__ import annotations

import textwrap

from trainwell.doctor import check_source


def findings(source: str, *codes: str, target: str = "2.6") -> list[tuple[int, str]]:
    """(line, code) of the findings of ``codes`` (all codes when none are given)."""
    text = textwrap.dedent(source)
    found = check_source(text, "t.py", target_torch=target)
    return sorted((f.line, f.code) for f in found if not codes or f.code in codes)


def line_of(source: str, marker: str, nth: int = 1) -> int:
    """1-based line number of the ``nth`` line of ``source`` containing ``marker``."""
    lines = textwrap.dedent(source).splitlines()
    hits = [number for number, text in enumerate(lines, start=1) if marker in text]
    return hits[nth - 1]


# -- 1. TW010: eval() and its restoring train() in the same conditional block ------------
PERIODIC_EVAL = """\
import torch

net = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.Dropout(0.5))
optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
x = torch.randn(8, 2)
for step in range(100):
    loss = net(x).sum()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if step % 10 == 0:
        net.eval()  # MARK-EVAL
        with torch.no_grad():
            print(net(x))
{restore}
"""


def test_tw010_restore_in_the_same_conditional_block_is_silent() -> None:
    source = PERIODIC_EVAL.format(restore="        net.train()")
    assert findings(source, "TW010") == []


def test_tw010_conditional_eval_without_restore_is_reported() -> None:
    source = PERIODIC_EVAL.format(restore="        pass")
    assert findings(source, "TW010") == [(line_of(source, "MARK-EVAL"), "TW010")]


def test_tw010_restore_in_another_conditional_block_is_reported() -> None:
    source = PERIODIC_EVAL.format(restore="    if step % 20 == 0:\n        net.train()")
    assert findings(source, "TW010") == [(line_of(source, "MARK-EVAL"), "TW010")]


# -- 2. TW012: eval-mode forward passes without no_grad ------------------------------------
# (a) the forward pass is in a function called after model.eval()
CALLED_AFTER_EVAL = """\
import torch

model = torch.nn.Linear(2, 2)


def decode(net, x):
    return net.decode(x)  # MARK-FORWARD


def inference(x):
    model.eval()
{call}


inference(torch.randn(2, 2))
"""


def test_tw012_forward_in_a_function_called_after_eval_is_reported() -> None:
    source = CALLED_AFTER_EVAL.format(call="    return decode(model, x)")
    assert findings(source, "TW012") == [(line_of(source, "MARK-FORWARD"), "TW012")]


def test_tw012_called_function_under_no_grad_is_silent() -> None:
    source = CALLED_AFTER_EVAL.format(
        call="    with torch.no_grad():\n        return decode(model, x)"
    )
    assert findings(source, "TW012") == []


MODULE_EVAL_THEN_CALL = """\
import torch

encoder = torch.load("encoder.pt", weights_only=False)
encoder.eval()


{decorator}
def evaluate(x):
    return encoder(x)  # MARK-FORWARD


print(evaluate(torch.randn(2, 2)))
"""


def test_tw012_module_level_eval_then_called_function_is_reported() -> None:
    source = MODULE_EVAL_THEN_CALL.format(decorator="")
    assert findings(source, "TW012") == [(line_of(source, "MARK-FORWARD"), "TW012")]


def test_tw012_called_function_decorated_no_grad_is_silent() -> None:
    source = MODULE_EVAL_THEN_CALL.format(decorator="@torch.no_grad()")
    assert findings(source, "TW012") == []


def test_tw012_called_function_that_sets_the_mode_itself_is_not_the_callers() -> None:
    source = (
        MODULE_EVAL_THEN_CALL.format(decorator="")
        .replace(
            "    return encoder(x)  # MARK-FORWARD", "    encoder.train()\n    return encoder(x)"
        )
        .replace("print(evaluate(", "keep(evaluate(")
    )  # handed on: its graph may be used
    assert findings(source, "TW012") == []


# (b) .eval() chained on the constructor
CHAINED = """\
import torch
from mymodels import Encoder


def main(image):
    encoder = Encoder(256).eval()
    encoder = encoder.to("cuda")
{body}


main(torch.randn(1, 3, 8, 8))
"""


def test_tw012_eval_chained_on_constructor_is_tracked() -> None:
    source = CHAINED.format(body="    return encoder(image)  # MARK-FORWARD")
    assert findings(source, "TW012") == [(line_of(source, "MARK-FORWARD"), "TW012")]


def test_tw012_eval_chained_on_constructor_under_no_grad_is_silent() -> None:
    source = CHAINED.format(body="    with torch.no_grad():\n        return encoder(image)")
    assert findings(source, "TW012") == []


# (c) every eval region of the same model is reported
REGIONS = """\
import torch

net = torch.nn.Linear(2, 2)
optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
x = torch.randn(4, 2)
net.eval()
print(net(x))  # MARK-FIRST
net.train()
loss = net(x).sum()
optimizer.zero_grad()
loss.backward()
optimizer.step()
net.eval()
{second}
"""


def test_tw012_second_eval_region_is_reported_too() -> None:
    source = REGIONS.format(second="print(net(x))  # MARK-SECOND")
    assert findings(source, "TW012") == [
        (line_of(source, "MARK-FIRST"), "TW012"),
        (line_of(source, "MARK-SECOND"), "TW012"),
    ]


def test_tw012_second_eval_region_under_no_grad_is_silent() -> None:
    source = REGIONS.format(second="with torch.no_grad():\n    print(net(x))")
    assert findings(source, "TW012") == [(line_of(source, "MARK-FIRST"), "TW012")]


def test_tw012_repeated_eval_in_one_region_reports_once() -> None:
    source = REGIONS.format(second="print(net(x))  # MARK-SECOND\nnet.eval()\nprint(net(x))")
    assert findings(source, "TW012") == [
        (line_of(source, "MARK-FIRST"), "TW012"),
        (line_of(source, "MARK-SECOND"), "TW012"),
    ]


# (d) a model variable that shadows an imported module
SHADOWED = """\
import torch
import model

model = model.RNNModel(10, 20)


def evaluate(data):
    model.eval()
{body}


evaluate(torch.randn(2, 10))
"""


def test_tw012_model_shadowing_an_imported_module_is_tracked() -> None:
    source = SHADOWED.format(body="    return model(data)  # MARK-FORWARD")
    assert findings(source, "TW012") == [(line_of(source, "MARK-FORWARD"), "TW012")]


def test_tw012_model_shadowing_an_imported_module_under_no_grad_is_silent() -> None:
    source = SHADOWED.format(body="    with torch.no_grad():\n        return model(data)")
    assert findings(source, "TW012") == []


def test_tw012_unshadowed_module_is_not_a_model() -> None:
    source = """\
    import torch
    import model

    net = model.RNNModel(10, 20)


    def evaluate(data):
        model.eval()
        return model(data)


    evaluate(torch.randn(2, 10))
    """
    assert findings(source, "TW012") == []


# (e) healthy idioms stay silent; the same scripts without the guard are reported
GUARDED = {
    "decorator_no_grad": ("@torch.no_grad()", "", "return model(x)"),
    "decorator_inference_mode": ("@torch.inference_mode()", "", "return model(x)"),
    "alias_factory": ("", "ctx = torch.no_grad", "with ctx():\n        return model(x)"),
    "alias_object": ("", "ctx = torch.no_grad()", "with ctx:\n        return model(x)"),
    "exit_stack_with": (
        "",
        "",
        "with contextlib.ExitStack() as stack:\n"
        "        stack.enter_context(torch.no_grad())\n"
        "        return model(x)",
    ),
    "exit_stack_object": (
        "",
        "stack = contextlib.ExitStack()",
        "stack.enter_context(torch.inference_mode())\n    return model(x)",
    ),
    "set_grad_enabled_false": ("", "torch.set_grad_enabled(False)", "return model(x)"),
    "set_grad_enabled_phase": ("", "torch.set_grad_enabled(is_train)", "return model(x)"),
    "train_with_phase_flag": ("", "model.train(is_train)", "return model(x)"),
}
GUARDED_TEMPLATE = """\
import contextlib

import torch

model = torch.nn.Linear(2, 2)


{decorator}
def run(x, is_train=False):
    model.eval()
    {setup}
    {body}


run(torch.randn(2, 2))
"""


def test_tw012_healthy_idioms_are_silent() -> None:
    for name, (decorator, setup, body) in GUARDED.items():
        source = GUARDED_TEMPLATE.format(decorator=decorator, setup=setup or "pass", body=body)
        assert findings(source, "TW012") == [], name


def test_tw012_unguarded_template_is_reported() -> None:
    source = GUARDED_TEMPLATE.format(decorator="", setup="pass", body="return model(x)")
    assert findings(source, "TW012") == [(line_of(source, "return model(x)"), "TW012")]


def test_tw012_alias_of_no_grad_guards_only_where_used() -> None:
    source = GUARDED_TEMPLATE.format(
        decorator="",
        setup="ctx = torch.no_grad()",
        body="with contextlib.nullcontext():\n        return model(x)",
    )
    assert findings(source, "TW012") == [(line_of(source, "return model(x)"), "TW012")]


# -- 3. TW003: the batch loop over a progress bar; a scheduler passed as an argument -------
PBAR = """\
import torch
from torch.optim.lr_scheduler import StepLR
from tqdm import tqdm


def fit(model, loader, epochs):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = StepLR(optimizer, step_size=30)
    for epoch in range(epochs):
        pbar = {bar}
        for {target} in pbar:
            loss = model(x).sum()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
{sched}
"""


def test_tw003_batch_loop_over_a_progress_bar_is_the_batch_loop() -> None:
    for bar, target in (("tqdm(loader)", "x"), ("tqdm(enumerate(loader))", "i, x")):
        source = PBAR.format(
            bar=bar, target=target, sched="            scheduler.step()  # MARK-SCHED"
        )
        assert findings(source, "TW003") == [(line_of(source, "MARK-SCHED"), "TW003")], bar


def test_tw003_scheduler_after_the_progress_bar_loop_is_silent() -> None:
    source = PBAR.format(bar="tqdm(loader)", target="x", sched="        scheduler.step()")
    assert findings(source, "TW003") == []


def test_tw003_progress_bar_over_a_range_is_not_a_batch_loop() -> None:
    source = """\
    import torch
    from torch.optim.lr_scheduler import StepLR
    from tqdm import tqdm

    model = torch.nn.Linear(2, 2)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = StepLR(optimizer, step_size=30)
    pbar = tqdm(range(100))
    for it in pbar:
        loss = model(torch.randn(2, 2)).sum()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        scheduler.step()
    """
    assert findings(source, "TW003") == []


SCHED_ARGUMENT = """\
import torch
from tqdm import tqdm


def train_epoch(loader, model, optimizer, scheduler):
    progress_bar = tqdm(enumerate(loader), total=len(loader))
    for i, (x, y) in progress_bar:
        loss = torch.nn.functional.mse_loss(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        scheduler.step()  # MARK-SCHED


class Trainer:
    def __init__(self, model, loader, epochs):
        self.model = model
        self.loader = loader
        self.epochs = epochs
        self.optimizer = torch.optim.Adam(model.parameters())
        self.scheduler = torch.optim.lr_scheduler.{ctor}

    def run(self):
        for epoch in range(self.epochs):
            train_epoch(
                loader=self.loader,
                model=self.model,
                optimizer=self.optimizer,
                scheduler=self.scheduler,
            )
"""


def test_tw003_epoch_scheduler_passed_as_an_argument_is_reported() -> None:
    source = SCHED_ARGUMENT.format(ctor="StepLR(self.optimizer, step_size=self.epochs // 2)")
    assert findings(source, "TW003") == [(line_of(source, "MARK-SCHED"), "TW003")]


def test_tw003_per_step_scheduler_passed_as_an_argument_is_silent() -> None:
    source = SCHED_ARGUMENT.format(ctor="OneCycleLR(self.optimizer, 0.1, total_steps=10000)")
    assert findings(source, "TW003", "TW004") == []


# -- 4. TW013: lists grown by concatenation; user subclasses of nn layers -----------------
GROWN = """\
import torch
import torch.nn as nn


class Layer(nn.Linear):
    def forward(self, x):
        return super().forward(x).relu()


class Net(nn.Module):
    def __init__(self, dims):
        super().__init__()
        self.layers = {start}
        for d in range(len(dims) - 1):
            {grow}
{after}
"""


def test_tw013_list_grown_by_concatenation_is_reported() -> None:
    # said where the plain list is made: the line to change into nn.ModuleList()
    for grow in (
        "self.layers = self.layers + [Layer(dims[d], dims[d + 1]).to('cuda')]",
        "self.layers += [Layer(dims[d], dims[d + 1])]",
        "self.layers = self.layers + [nn.Linear(dims[d], dims[d + 1])]",
    ):
        source = GROWN.format(start="[]  # MARK", grow=grow, after="")
        assert findings(source, "TW013") == [(line_of(source, "# MARK"), "TW013")], grow


def test_tw013_concatenation_onto_a_module_list_is_silent() -> None:
    grow = "self.layers = self.layers + [Layer(dims[d], dims[d + 1])]"
    source = GROWN.format(start="nn.ModuleList()", grow=grow, after="")
    assert findings(source, "TW013") == []
    grow = "self.layers += [Layer(dims[d], dims[d + 1])]"
    source = GROWN.format(start="nn.ModuleList()", grow=grow, after="")
    assert findings(source, "TW013") == []


def test_tw013_grown_list_wrapped_afterwards_is_silent() -> None:
    grow = "self.layers = self.layers + [Layer(dims[d], dims[d + 1])]"
    after = "        self.layers = nn.ModuleList(self.layers)"
    assert findings(GROWN.format(start="[]", grow=grow, after=after), "TW013") == []


def test_tw013_list_of_user_layer_subclass_instances_is_reported() -> None:
    source = """\
    import torch.nn as nn


    class Conv(nn.Conv2d):
        pass


    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.convs = [Conv(3, 3, 3) for _ in range(4)]  # MARK
    """
    assert findings(source, "TW013") == [(line_of(source, "# MARK"), "TW013")]


def test_tw013_list_of_plain_class_instances_is_silent() -> None:
    source = """\
    import torch.nn as nn


    class Config:
        pass


    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.configs = [Config() for _ in range(4)]
            self.parts = []
            self.parts = self.parts + [Config()]
    """
    assert findings(source, "TW013") == []


# -- 5. TW007: softmax output reshaped before cross-entropy is still softmax --------------
SOFTMAX_MODEL = """\
import torch
import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 4)

    def forward(self, x):
        {forward}


model = Net()
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(2, 8), torch.tensor([1, 2])
y_pred = model(x)
loss = criterion({pred}, y)  # MARK
optimizer.zero_grad()
loss.backward()
optimizer.step()
"""


def test_tw007_reshaped_softmax_output_is_reported() -> None:
    for pred in ("y_pred.resize(2, 4)", "y_pred.view(2, -1)", "y_pred.reshape(2, 4)",
                 "y_pred.squeeze()", "y_pred.unsqueeze(0).squeeze(0).float()"):  # fmt: skip
        source = SOFTMAX_MODEL.format(forward="return F.softmax(self.fc(x), dim=1)", pred=pred)
        assert findings(source, "TW007") == [(line_of(source, "# MARK"), "TW007")], pred


def test_tw007_reshaped_logits_are_silent() -> None:
    for pred in ("y_pred.resize(2, 4)", "y_pred.view(2, -1)", "y_pred.squeeze()"):
        source = SOFTMAX_MODEL.format(forward="return self.fc(x)", pred=pred)
        assert findings(source, "TW007") == [], pred


def test_tw007_reshaped_softmax_tensor_is_reported_and_argmax_is_not_softmax() -> None:
    source = """\
    import torch
    import torch.nn.functional as F

    logits = torch.randn(2, 4, requires_grad=True)
    y = torch.tensor([1, 2])
    probs = F.softmax(logits, dim=-1)
    loss = F.cross_entropy(probs.reshape(2, 4), y)  # MARK
    other = F.cross_entropy(logits.view(2, 4), y)
    """
    assert findings(source, "TW007") == [(line_of(source, "# MARK"), "TW007")]


# -- 6. trainwell's own parts as the torch calls they replace -----------------------------
TRAINWELL_LOOP = """\
import torch
import trainwell as tw
from trainwell import Clipping

model = torch.nn.Linear(2, 2)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = torch.optim.lr_scheduler.{sched}
precision = {precision}
clipping = Clipping(max_norm=1.0)
strategy = tw.SingleDevice("cuda")
loader = torch.utils.data.DataLoader(range(10))
for epoch in range(10):
    for x in loader:
        with precision.autocast():
            loss = model(x).sum()
{body}
"""
FP16 = 'tw.Precision("fp16", "cuda")'
STEP_LR = "StepLR(optimizer, step_size=3)"


def tw_loop(body: str, precision: str = FP16, sched: str = STEP_LR) -> str:
    return TRAINWELL_LOOP.format(
        body=textwrap.indent(textwrap.dedent(body), " " * 8), precision=precision, sched=sched
    )


def test_trainwell_healthy_loop_is_silent() -> None:
    source = tw_loop("""\
        optimizer.zero_grad()
        precision.backward(loss)
        precision.unscale_(optimizer)
        clipping(model.parameters())
        if precision.step(optimizer):
            pass
    """)
    assert findings(source) == []


def test_tw001_trainwell_precision_backward_and_step_without_zero_grad() -> None:
    source = tw_loop("""\
        precision.backward(loss)
        precision.step(optimizer)  # MARK
    """)
    assert findings(source, "TW001") == [(line_of(source, "# MARK"), "TW001")]


def test_tw002_zero_grad_between_precision_backward_and_step() -> None:
    source = tw_loop("""\
        precision.backward(loss)
        optimizer.zero_grad()  # MARK
        if precision.step(optimizer):
            pass
    """)
    assert findings(source, "TW001", "TW002") == [(line_of(source, "# MARK"), "TW002")]


def test_tw006_fp16_precision_clipping_without_unscale() -> None:
    for clip in ("tw.Clipping(1.0)(model.parameters())",
                 "torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)",
                 "strategy.clip(clipping, list(model.parameters()))"):  # fmt: skip
        source = tw_loop(f"""\
            optimizer.zero_grad()
            precision.backward(loss)
            {clip}  # MARK
            precision.step(optimizer)
        """)
        assert findings(source, "TW006") == [(line_of(source, "# MARK"), "TW006")], clip


def test_tw006_silent_with_unscale_or_without_fp16() -> None:
    body = """\
        optimizer.zero_grad()
        precision.backward(loss)
        {unscale}
        clipping(model.parameters())
        precision.step(optimizer)
    """
    source = tw_loop(body.format(unscale="precision.unscale_(optimizer)"))
    assert findings(source, "TW006") == []
    for other in ('tw.Precision("bf16", "cuda")', 'tw.Precision("auto", "cuda")'):
        source = tw_loop(body.format(unscale="pass"), precision=other)
        assert findings(source, "TW006") == [], other


def test_tw005_trainwell_clipping_after_step_or_before_backward() -> None:
    source = tw_loop("""\
        optimizer.zero_grad()
        precision.backward(loss)
        precision.unscale_(optimizer)
        precision.step(optimizer)
        strategy.clip(clipping, list(model.parameters()))  # MARK
    """)
    assert findings(source, "TW005") == [(line_of(source, "# MARK"), "TW005")]
    source = tw_loop("""\
        optimizer.zero_grad()
        clipping(model.parameters())  # MARK
        precision.backward(loss)
        precision.step(optimizer)
    """)
    assert findings(source, "TW005") == [(line_of(source, "# MARK"), "TW005")]


def test_tw005_clipping_an_unknown_object_is_not_clipping() -> None:
    source = tw_loop("""\
        optimizer.zero_grad()
        precision.backward(loss)
        precision.step(optimizer)
        strategy.clip(something, list(model.parameters()))
        postprocess(model.parameters())
    """)
    assert findings(source, "TW005") == []


def test_tw003_tw004_scheduler_gated_by_precision_step() -> None:
    body = """\
        optimizer.zero_grad()
        precision.backward(loss)
        if precision.step(optimizer):
            scheduler.step()  # MARK
    """
    source = tw_loop(body)
    assert findings(source, "TW003", "TW004") == [(line_of(source, "# MARK"), "TW003")]
    source = tw_loop(body, sched="OneCycleLR(optimizer, 0.1, total_steps=10000)")
    assert findings(source, "TW003", "TW004") == []


def test_precision_step_then_epoch_scheduler_after_the_batch_loop_is_silent() -> None:
    source = tw_loop("""\
        optimizer.zero_grad()
        precision.backward(loss)
        precision.step(optimizer)
    """)
    source += "    scheduler.step()\n"  # in the epoch loop, after the batch loop
    assert findings(source) == []


def test_precision_is_tracked_by_assignment_only() -> None:
    # a name that merely looks like a precision (no trainwell constructor) stays unknown
    source = tw_loop(
        """\
        precision.backward(loss)
        precision.step(optimizer)
    """,
        precision="make_precision()",
    )
    assert findings(source, "TW001") == []


# -- schedule units: an "epoch" scheduler given a length in batches is stepped per batch -----
WARM_RESTARTS = """\
import torch

model = torch.nn.Linear(4, 2)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
train_set = list(range(1000))
loader = torch.utils.data.DataLoader(train_set, batch_size=10)
scheduler = torch.optim.lr_scheduler.{ctor}
for epoch in range(100):
    for i, x in enumerate(loader):
        optimizer.zero_grad()
        model(x).sum().backward()
        optimizer.step()
{batch_step}
{epoch_step}
"""


def test_tw004_a_length_in_batches_stepped_once_per_epoch_is_reported() -> None:
    for ctor in (
        "CosineAnnealingWarmRestarts(optimizer, T_0=len(train_set))",
        "CosineAnnealingWarmRestarts(optimizer, len(loader))",
        "CosineAnnealingLR(optimizer, T_max=len(loader) * 100)",
        "StepLR(optimizer, step_size=len(loader) * 30)",
    ):
        source = WARM_RESTARTS.format(
            ctor=ctor, batch_step="", epoch_step="    scheduler.step()  # MARK"
        )
        assert findings(source, "TW003", "TW004") == [(line_of(source, "# MARK"), "TW004")], ctor


def test_tw004_lengths_in_epochs_or_steps_per_batch_are_silent() -> None:
    per_epoch = "    scheduler.step()"
    per_batch = "        scheduler.step()"
    fractional = "        scheduler.step(epoch + i / len(loader))"  # the documented usage
    for ctor, batch_step, epoch_step in (
        ("CosineAnnealingWarmRestarts(optimizer, T_0=10)", "", per_epoch),
        ("CosineAnnealingWarmRestarts(optimizer, T_0=len(train_set))", per_batch, ""),
        ("CosineAnnealingWarmRestarts(optimizer, T_0=10)", fractional, ""),
        ("CosineAnnealingLR(optimizer, T_max=len(loader) * 100)", per_batch, ""),
    ):
        source = WARM_RESTARTS.format(ctor=ctor, batch_step=batch_step, epoch_step=epoch_step)
        assert findings(source, "TW003", "TW004") == [], (ctor, batch_step)


# -- models whose class the doctor cannot see (``from models import *``) ------------------
STAR_IMPORTED_GENERATOR = """\
import torch
from models import *
from torchvision.utils import save_image

g = GeneratorResNet()
optimizer = torch.optim.Adam({params}, lr=1e-4)


def sample_images(real):
    fake = g(real)  # MARK
    save_image(torch.cat((real.data, fake.data), -2), "sample.png")


for real in loader:
    sample_images(real)
"""


def test_a_star_imported_class_used_as_a_module_is_a_model() -> None:
    # g.parameters() says it is an nn.Module: its sample forward is inference
    source = STAR_IMPORTED_GENERATOR.format(params="g.parameters()")
    assert findings(source, "TW012") == [(line_of(source, "MARK"), "TW012")]


def test_a_star_imported_class_never_used_as_a_module_is_left_alone() -> None:
    source = STAR_IMPORTED_GENERATOR.format(params="params")
    assert findings(source, "TW012") == []


# -- a method of the model's own class is not a submodule's forward ----------------------
OWN_METHOD_NAMED_LIKE_A_NET = """\
import torch
from torch import nn


class Policy(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 1)
        self.optimizer = torch.optim.Adam(self.parameters())

    def train_net(self, s, target):
        loss = nn.functional.mse_loss(self.fc(s), target)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()


pi = Policy()
for s, target in batches:
    stats = pi.train_net(s, target)
"""


def test_a_model_method_named_like_a_network_is_not_a_forward_pass() -> None:
    # value_from_name("pi.train_net") guesses a network from the name; the class says it is
    # a method that trains, so no discarded forward is reported at the call
    assert findings(OWN_METHOD_NAMED_LIKE_A_NET, "TW012") == []


# -- a model held as an attribute, in a method that another file calls -------------------
SOLVER = """\
import torch
from network import U_Net


class Solver:
    def __init__(self, config):
        self.build_model()

    def build_model(self):
        self.unet = U_Net(img_ch=3, output_ch=1)
        self.optimizer = torch.optim.Adam(self.unet.parameters(), 1e-4)

    def train(self):
        for epoch in range(10):
            self.unet.train(True)
            for images, gt in self.train_loader:
                loss = torch.nn.functional.binary_cross_entropy(self.unet(images), gt)
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
{validation}
"""
VALIDATION_IN_TRAIN = """\
            self.unet.eval()
            acc = 0.0
            for images, gt in self.valid_loader:
                sr = torch.sigmoid(self.unet(images))  # MARK
                acc += ((sr > 0.5) == gt).float().mean().item()
"""
VALIDATION_ALONE = """\

    def validate(self):
        self.unet.eval()
        acc = 0.0
        for images, gt in self.valid_loader:
            sr = torch.sigmoid(self.unet(images))
            acc += ((sr > 0.5) == gt).float().mean().item()
        return acc
"""


def test_validation_inside_a_training_method_called_from_another_file_is_reported() -> None:
    # Solver.train() is only called from main.py; it runs backward() on every call, so no
    # caller runs it under no_grad: its validation forward records a graph for nothing
    source = SOLVER.format(validation=VALIDATION_IN_TRAIN)
    assert findings(source, "TW012") == [(line_of(source, "MARK"), "TW012")]


def test_an_evaluation_method_called_only_from_another_file_is_left_to_its_caller() -> None:
    # validate() does not train: a caller elsewhere may well wrap it in no_grad
    assert findings(SOLVER.format(validation=VALIDATION_ALONE), "TW012") == []


# -- freezing parameters is not input-gradient machinery ---------------------------------
FROZEN_CRITIC_SAMPLES = """\
import torch
from torchvision.utils import save_image

netG, netD = torch.nn.Linear(4, 4), torch.nn.Linear(4, 1)
optimizerG = torch.optim.Adam(netG.parameters())
for i, real in enumerate(loader):
    for p in netD.parameters():
        p.requires_grad = {flag}
    errG = netD(netG(torch.randn(8, 4))).mean()
    errG.backward()
    optimizerG.step()
    if i % 500 == 0:
        fake = netG(fixed_noise)  # MARK
        save_image(fake.data, "fake.png")
"""


def test_freezing_a_model_keeps_tw012_on() -> None:
    # p.requires_grad = False/True over parameters freezes a model for a phase: the scope
    # does not compute input gradients, so its sample grid is still inference
    for flag in ("False", "True"):
        source = FROZEN_CRITIC_SAMPLES.format(flag=flag)
        assert findings(source, "TW012") == [(line_of(source, "MARK"), "TW012")]


def test_input_gradients_turn_tw012_off_for_the_scope() -> None:
    source = FROZEN_CRITIC_SAMPLES.format(flag="False").replace(
        "        fake = netG(fixed_noise)  # MARK",
        "        fixed_noise.requires_grad_()\n        fake = netG(fixed_noise)  # MARK",
    )
    assert findings(source, "TW012") == []


# -- a loss of detached tensors has no graph to keep -------------------------------------
LOGGED_LOSSES = """\
import torch

model = torch.nn.Linear(4, 2)
criterion = torch.nn.MSELoss()
total = []
with torch.no_grad():
    pass
for x, y in loader:
    pred = model(x)
    loss = criterion({pred}, {y})
    total.append(loss)  # MARK
"""


def test_a_loss_of_detached_inputs_kept_in_a_list_is_fine() -> None:
    source = LOGGED_LOSSES.format(pred="pred.detach().cpu()", y="y.detach().cpu()")
    assert findings(source, "TW011") == []


def test_a_loss_of_a_live_output_kept_in_a_list_is_tw011() -> None:
    source = LOGGED_LOSSES.format(pred="pred", y="y")
    assert findings(source, "TW011") == [(line_of(source, "MARK"), "TW011")]


# -- methods of a plain class called on its instance -------------------------------------
AGENT = """\
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        return self.fc(x)


class Agent:
    def __init__(self):
        self.act_net = Net()

{decorator}
    def select_action(self, state):
        value = self.act_net(state)  # MARK
        return torch.max(value, 1)[1].item()


agent = Agent()
for step in range(100):
    action = agent.select_action(torch.randn(1, 4))
"""


def test_an_agents_action_selection_called_on_its_instance_is_inference() -> None:
    source = AGENT.format(decorator="")
    assert findings(source, "TW012") == [(line_of(source, "MARK"), "TW012")]


def test_an_agents_action_selection_under_no_grad_is_fine() -> None:
    assert findings(AGENT.format(decorator="    @torch.no_grad()"), "TW012") == []


# -- a helper shared by training and evaluation: reported at the evaluating call -----------
SHARED_HELPER = """\
import torch

model = torch.nn.Linear(4, 2)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)


def process(x):
    return model(x)  # FORWARD

{training}
for x, y in val_loader:
    pred = process(x)  # EVAL-CALL
    print((pred.argmax(1) == y).sum().item())
"""
TRAINING_THROUGH_THE_HELPER = """\
for x, y in train_loader:
    loss = torch.nn.functional.cross_entropy(process(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
"""


def test_a_helper_shared_with_training_is_reported_at_the_evaluating_call() -> None:
    # no_grad inside process() would break training: the fix belongs at the call
    source = SHARED_HELPER.format(training=TRAINING_THROUGH_THE_HELPER)
    assert findings(source, "TW012") == [(line_of(source, "EVAL-CALL"), "TW012")]


def test_an_evaluation_only_helper_is_reported_at_its_forward() -> None:
    source = SHARED_HELPER.format(training="")
    assert findings(source, "TW012") == [(line_of(source, "FORWARD"), "TW012")]


# -- several optimizers each stepping after their own backward ---------------------------
TD3_LIKE = """\
import torch
import torch.nn.functional as F

critic_1, critic_2, actor = torch.nn.Linear(4, 1), torch.nn.Linear(4, 1), torch.nn.Linear(4, 4)
opt_1 = torch.optim.Adam(critic_1.parameters())
opt_2 = torch.optim.Adam(critic_2.parameters())
opt_a = torch.optim.Adam(actor.parameters())
for i, (s, target) in enumerate(batches):
    loss_1 = F.mse_loss(critic_1(s), target)
    opt_1.zero_grad()
    loss_1.backward()  # MARK-1
{step_1}
    loss_2 = F.mse_loss(critic_2(s), target)
    opt_2.zero_grad()
    loss_2.backward()
    opt_2.step()
    if i % 2 == 0:
        actor_loss = -critic_1(actor(s)).mean()
        opt_a.zero_grad()
        actor_loss.backward()
        opt_a.step()
"""


def test_each_optimizer_stepping_after_its_backward_is_not_accumulation() -> None:
    assert findings(TD3_LIKE.format(step_1="    opt_1.step()"), "TW017") == []


def test_a_backward_left_for_a_gated_step_is_still_accumulation() -> None:
    # critic_1's gradients wait for a step every 2 iterations and are cleared only then:
    # accumulated, not divided
    source = TD3_LIKE.format(
        step_1="    if i % 2 == 0:\n        opt_1.step()\n        opt_1.zero_grad()"
    )
    source = source.replace("    opt_1.zero_grad()\n    loss_1.backward()", "    loss_1.backward()")
    assert (line_of(source, "MARK-1"), "TW017") in findings(source, "TW017")


def test_a_backward_cleared_each_iteration_accumulates_nothing() -> None:
    # opt_1.zero_grad() runs every iteration before the backward: the gated step sees one
    # batch's gradients, never a sum of them
    source = TD3_LIKE.format(step_1="    if i % 2 == 0:\n        opt_1.step()")
    assert findings(source, "TW017") == []


# -- functions the command line runs --------------------------------------------------------
FIRE_CLI = """\
import fire
import torch

model = torch.nn.Linear(4, 2)


def generate(n=4):
    out = model(torch.randn(n, 4))  # MARK
    print(out.argmax(1).tolist())


if __name__ == "__main__":
    fire.Fire({expose})
"""


def test_a_function_exposed_by_fire_is_run_with_autograd_on() -> None:
    for expose in ("", "generate", '{"gen": generate}'):
        source = FIRE_CLI.format(expose=expose)
        assert findings(source, "TW012") == [(line_of(source, "MARK"), "TW012")]


def test_a_function_nothing_exposes_is_left_to_its_callers() -> None:
    assert findings(FIRE_CLI.format(expose="main"), "TW012") == []


# -- a GAN train() that steps every k batches still trains on every call ------------------
GATED_GAN_TRAIN = """\
import torch
from torchvision.utils import save_image


def train(netg, netd, opt_d, loader, d_every):
    for ii, real in enumerate(loader):
        if ii % d_every == 0:
            loss = netd(netg(torch.randn(8, 4)).detach()).mean() - netd(real).mean()
            opt_d.zero_grad()
            loss.backward()
            opt_d.step()
    fake = netg(fixed_noise)  # MARK
    save_image(fake.data, "fake.png")
"""


def test_a_function_stepping_under_a_modulo_gate_trains_on_every_call() -> None:
    assert findings(GATED_GAN_TRAIN, "TW012") == [(line_of(GATED_GAN_TRAIN, "MARK"), "TW012")]


def test_a_function_stepping_under_a_flag_may_be_an_evaluation() -> None:
    source = GATED_GAN_TRAIN.replace("if ii % d_every == 0:", "if d_every:")
    assert findings(source, "TW012") == []


# -- a frozen teacher on the backward path ----------------------------------------------
DISTILL = """\
import torch
import torch.nn.functional as F

student, teacher = torch.nn.Linear(4, 3), torch.nn.Linear(4, 3)
teacher.eval()
opt = torch.optim.SGD(student.parameters(), lr=0.1)
for x, y in loader:
    t = teacher({teacher_input})  # MARK
    loss = F.mse_loss(student(x), t)
    opt.zero_grad()
    loss.backward()
    opt.step()
"""


def test_a_frozen_teacher_on_data_feeding_the_loss_is_inference() -> None:
    source = DISTILL.format(teacher_input="x")
    assert findings(source, "TW012") == [(line_of(source, "MARK"), "TW012")]


def test_a_frozen_network_on_a_generated_input_is_a_perceptual_loss() -> None:
    # vgg(fake): the graph through the frozen network carries the generator's gradient
    assert findings(DISTILL.format(teacher_input="student(x)"), "TW012") == []


def test_a_teacher_frozen_by_requires_grad_builds_no_graph() -> None:
    source = DISTILL.format(teacher_input="x").replace(
        "teacher.eval()", "teacher.eval()\nteacher.requires_grad_(False)"
    )
    assert findings(source, "TW012") == []


# -- closures read their free names only ---------------------------------------------------
CLOSURE = """\
import torch

model = torch.nn.Linear(4, 2)


def helper(x):
    {body}


for x, y in test_loader:
    out = model(x)  # MARK
    print((out.argmax(1) == y).sum().item())
"""


def test_a_function_with_its_own_local_of_the_same_name_is_no_closure() -> None:
    source = CLOSURE.format(body="out = x * 2\n    return out")
    assert findings(source, "TW012") == [(line_of(source, "MARK"), "TW012")]


def test_a_function_reading_the_name_may_backpropagate_it() -> None:
    assert findings(CLOSURE.format(body="return out.sum()"), "TW012") == []


# -- TW011: one slot, a per-batch sum, a detached rebinding --------------------------------
GAN_LOSS_DICT = """\
import torch

model = torch.nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
losses = {{}}
for x in loader:
    d_loss = model(x).mean()
    opt.zero_grad()
    d_loss.backward()
    opt.step()
    losses[{key}] = d_loss  # MARK
"""


def test_a_loss_stored_under_a_fixed_key_keeps_one_graph() -> None:
    assert findings(GAN_LOSS_DICT.format(key='"d"'), "TW011") == []


def test_a_loss_stored_under_a_new_key_each_step_keeps_them_all() -> None:
    source = GAN_LOSS_DICT.format(key="len(losses)")
    assert findings(source, "TW011") == [(line_of(source, "MARK"), "TW011")]


PER_BATCH_SUM = """\
import torch

students = [torch.nn.Linear(4, 2) for _ in range(3)]
opts = [torch.optim.SGD(s.parameters(), lr=0.1) for s in students]
{reset_outside}
for x, y in loader:
    {reset_inside}
    for i in range(3):
        loss = torch.nn.functional.cross_entropy(students[i](x), y)
        loss.backward()
        opts[i].step()
        total += loss  # MARK
"""


def test_a_sum_reset_every_batch_is_not_kept_across_steps() -> None:
    source = PER_BATCH_SUM.format(reset_outside="", reset_inside="total = 0")
    assert findings(source, "TW011") == []


def test_a_sum_over_the_whole_epoch_is_kept_across_steps() -> None:
    source = PER_BATCH_SUM.format(reset_outside="total = 0", reset_inside="pass")
    assert findings(source, "TW011") == [(line_of(source, "MARK"), "TW011")]


def test_a_loss_rebound_to_its_detached_value_is_a_number() -> None:
    source = PER_BATCH_SUM.format(reset_outside="total = 0", reset_inside="pass").replace(
        "        total += loss  # MARK",
        "        loss = loss.detach().cpu().numpy()\n        total += loss",
    )
    assert findings(source, "TW011") == []


# -- a schedule's own "step" setting is not a count of optimizer steps -----------------------
STEPLR_BY_EPOCH = """\
import torch

model = torch.nn.Linear(4, 2)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size={size}, gamma=0.5)
for epoch in range(opt.epochs):
    for x, y in loader:
        loss = torch.nn.functional.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    scheduler.step()  # MARK
"""


def test_a_step_size_named_after_the_scheduler_is_not_counted_in_batches() -> None:
    assert findings(STEPLR_BY_EPOCH.format(size="opt.lr_scheduler_step")) == []


def test_a_step_size_counted_in_iterations_stepped_per_epoch_is_tw004() -> None:
    source = STEPLR_BY_EPOCH.format(size="opt.decay_iters")
    assert "TW004" in {code for _, code in findings(source)}


# -- RL networks by name ---------------------------------------------------------------------
def test_a_policy_parameter_is_a_model_and_its_rollout_is_inference() -> None:
    source = """\
import torch


def evaluate(policy, env):
    obs = env.reset()
    done = False
    while not done:
        action = policy(torch.as_tensor(obs)).argmax().item()  # MARK
        obs, reward, done, info = env.step(action)


evaluate(load_policy(), make_env())
"""
    assert findings(source, "TW012") == [(line_of(source, "MARK"), "TW012")]


# -- parameters made by hand are not input gradients -------------------------------------
HAND_MADE_LINEAR = """\
import torch

weight = torch.randn(1)
weight.requires_grad_()
bias = torch.zeros(1, requires_grad=True)


def model(xb):
    return xb @ weight + bias


net = torch.nn.Linear(1, 1)
for x, y in loader:
    loss = ((model(x) - y) ** 2).mean()
    loss.backward()
    with torch.no_grad():
        weight -= weight.grad * 0.001
        bias -= bias.grad * 0.001
        weight.grad.zero_()
        bias.grad.zero_()
print(net(x_test).argmax(1).tolist())  # MARK
"""


def test_hand_made_parameters_keep_tw012_on() -> None:
    source = HAND_MADE_LINEAR
    assert findings(source, "TW012") == [(line_of(source, "MARK"), "TW012")]


def test_an_input_made_to_require_gradients_turns_tw012_off() -> None:
    source = HAND_MADE_LINEAR.replace("weight.requires_grad_()", "x_test.requires_grad_()")
    assert findings(source, "TW012") == []


# -- a sampling function with two loops is one inference block ------------------------------
TWO_LOOP_SAMPLE = """\
import torch


def sample(model, prompt, n):
    model.eval()
    hidden = None
    for ch in prompt:
        out, hidden = model(ch, hidden)  # MARK
    text = []
    for _ in range(n):
        out, hidden = model(out.argmax(-1), hidden)
        text.append(out.argmax(-1).item())
    return text


print(sample(torch.nn.GRU(4, 4), prompt, 10))
"""


def test_a_sampling_function_gets_one_finding() -> None:
    assert findings(TWO_LOOP_SAMPLE, "TW012") == [(line_of(TWO_LOOP_SAMPLE, "MARK"), "TW012")]


# -- an averager's add() is not a list's append() -----------------------------------------
def test_an_averager_add_of_the_loss_is_not_a_kept_graph() -> None:
    source = """\
import torch
import utils

model = torch.nn.Linear(4, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
loss_avg = utils.averager()
for x, y in loader:
    cost = torch.nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    cost.backward()
    opt.step()
    loss_avg.add(cost)
"""
    assert findings(source, "TW011") == []


# -- a loss the model returns is a loss as it gave it --------------------------------------
MODEL_RETURNS_ITS_LOSS = """\
import torch

model = LanguageModel()
optim = torch.optim.Adam(model.parameters())
for step, batch in enumerate(loader):
    loss = {loss}
    loss.backward()  # MARK
    if (step + 1) % 4 == 0:
        optim.step()
        optim.zero_grad()
"""


def test_a_loss_returned_by_the_model_and_accumulated_undivided_is_tw017() -> None:
    for loss in ("model(batch)", 'model(batch)["loss"]'):
        source = MODEL_RETURNS_ITS_LOSS.format(loss=loss)
        assert findings(source, "TW017") == [(line_of(source, "MARK"), "TW017")]


def test_a_loss_returned_by_the_model_and_divided_is_fine() -> None:
    assert findings(MODEL_RETURNS_ITS_LOSS.format(loss="model(batch) / 4"), "TW017") == []


# -- a DeepSpeed engine is its model -------------------------------------------------------
def test_train_on_the_deepspeed_engine_restores_its_model() -> None:
    source = """\
import deepspeed
import torch

model = torch.nn.Linear(4, 2)
engine, optimizer, loader, _ = deepspeed.initialize(model=model, model_parameters=model.parameters())
for epoch in range(3):
    engine.train()
    for x, y in loader:
        loss = torch.nn.functional.cross_entropy(engine(x), y)
        engine.backward(loss)
        engine.step()
    model.eval()
    with torch.no_grad():
        print(model(x_val).argmax(1).tolist())
"""
    assert findings(source, "TW010") == []


# -- models bound from a tuple a helper returns ------------------------------------------
TUPLE_MODELS = """\
import torch
import torch.nn.functional as F


def get_model(opt):
    return make_embedding(opt), make_head(opt)


(embedder, cls_head) = get_model(opt)
optimizer = torch.optim.SGD(
    [{"params": embedder.parameters()}, {"params": cls_head.parameters()}], lr=0.1
)
for epoch in range(3):
    for x, y in train_loader:
        optimizer.zero_grad()
        F.cross_entropy(cls_head(embedder(x)), y).backward()
        optimizer.step()
    for x, y in val_loader:
        features = embedder(x)
        logits = cls_head(features)
        print((logits.argmax(1) == y).float().mean().item())
"""


def test_an_element_of_a_returned_tuple_used_as_a_module_is_a_model() -> None:
    # .parameters() says both are modules: the validation forwards of both are inference
    source = TUPLE_MODELS
    first, second = line_of(source, "features = embedder"), line_of(source, "logits = cls_head")
    assert findings(source, "TW012") == [(first, "TW012"), (second, "TW012")]


def test_an_element_of_a_returned_tuple_never_used_as_a_module_is_unknown() -> None:
    source = TUPLE_MODELS.replace('{"params": cls_head.parameters()}', '{"params": head_params}')
    assert findings(source, "TW012") == []


# -- a function named for what it does to a model is not a model -----------------------
STAR_IMPORTED_EVALUATION = """\
import torch
from trainer import *

model = Net()
optimizer = torch.optim.Adam(model.parameters())
for epoch in range(10):
    train_model(model=model, loader=train_loader, optimizer=optimizer)
    eer = time_augmented_evaluate_model(mode="eval", model=model, loader=eval_loader)
    print(eer)
    {extra}
"""


def test_an_unbound_function_named_after_an_action_on_a_model_is_a_function() -> None:
    assert findings(STAR_IMPORTED_EVALUATION.format(extra=""), "TW012") == []


def test_a_variable_named_like_a_model_is_still_a_model() -> None:
    extra = "test_model = make_net()\n    print(test_model(x).argmax(1).tolist())"
    source = STAR_IMPORTED_EVALUATION.format(extra=extra)
    assert findings(source, "TW012") == [(line_of(source, "print(test_model(x)"), "TW012")]


# -- a class the file defines under a conventional alias's name -------------------------
ENERGY_NAMED_F = """\
import torch
import torch.nn as nn


class F(nn.Module):
    def __init__(self):
        super().__init__()
        self.body, self.head = nn.Linear(4, 8), nn.Linear(8, 2)

    def forward(self, x):
        return self.head(self.body(x)).logsumexp(1)

    def classify(self, x):
        return self.head(self.body(x))


f = F()
f.load_state_dict(torch.load("energy.pt", weights_only=True))
print(torch.cat([f.classify(x).argmax(-1) for x in buffer]))
"""


def test_a_class_named_f_is_the_files_model_not_torch_functional() -> None:
    # JEM: ``class F(nn.Module)`` without ``import torch.nn.functional as F``: F() builds a
    # model whose classify() is inference here
    assert findings(ENERGY_NAMED_F, "TW012") == [(line_of(ENERGY_NAMED_F, "f.classify"), "TW012")]
    renamed = ENERGY_NAMED_F.replace("F(", "Energy(")
    assert findings(renamed, "TW012") == [(line_of(renamed, "f.classify"), "TW012")]


# -- a finding names the model as the code writes it -------------------------------------
WRAPPED_VALIDATE = """\
import torch


def validate(loader, model):
    model.eval()
    for x, y in loader:
        out = model(x)
        print((out.argmax(1) == y).float().mean().item())


single_model = torch.nn.Linear(4, 2)
model = torch.nn.DataParallel(single_model)
validate(val_loader, model)
"""


def test_a_wrapped_model_is_named_as_the_helper_writes_it() -> None:
    # dla_bdd100k: validate() runs ``model``, a DataParallel around ``single_model``; the
    # finding says what the line says
    [finding] = check_source(WRAPPED_VALIDATE, "t.py", target_torch="2.6")
    assert (finding.line, finding.code) == (line_of(WRAPPED_VALIDATE, "out = model(x)"), "TW012")
    assert finding.message.startswith("model(...) runs after model.eval()")


# -- an eval() after the epoch loop opens another region ----------------------------------
FULL_BATCH_GCN = """\
import torch
import torch.nn.functional as F

model = torch.nn.Linear(8, 3)
optimizer = torch.optim.Adam(model.parameters())
for epoch in range(200):
    model.train()
    optimizer.zero_grad()
    F.cross_entropy(model(X)[train_idx], y[train_idx]).backward()
    optimizer.step()
    model.eval()
    val_out = model(X)
    print(F.cross_entropy(val_out[val_idx], y[val_idx]).item())
model.eval()
test_out = model(X)
print(F.cross_entropy(test_out[test_idx], y[test_idx]).item())
"""


def test_the_test_after_the_epoch_loop_is_a_region_of_its_own() -> None:
    # GCN_reproduce: validation in the epoch loop, then model.eval() and the test after it:
    # two evaluation regions of one model
    expected = [
        (line_of(FULL_BATCH_GCN, "val_out = model"), "TW012"),
        (line_of(FULL_BATCH_GCN, "test_out = model"), "TW012"),
    ]
    assert findings(FULL_BATCH_GCN, "TW012") == expected
