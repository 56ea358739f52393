"""Per-rule unit tests on small snippets: exact (line, code) findings."""

from __future__ import annotations

import textwrap

import pytest

from trainwell.doctor import RULES, Finding, check_source

HEADER = """\
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.optim.lr_scheduler import OneCycleLR, ReduceLROnPlateau, StepLR
"""
HEADER_LINES = HEADER.count("\n")


def run(body: str, **kwargs) -> list[tuple[int, str]]:
    """Findings of HEADER + body as (line within body, code)."""
    text = HEADER + textwrap.dedent(body)
    return [(f.line - HEADER_LINES, f.code) for f in check_source(text, "t.py", **kwargs)]


LOOP = """\
def fit(model, loader, criterion, epochs):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(epochs):
        for x, y in loader:
{body}
"""


def loop(body: str) -> str:
    return LOOP.format(body=textwrap.indent(textwrap.dedent(body), " " * 12))


CASES = {
    # name: (snippet, expected findings as (line, code))
    "zero_grad_missing": (
        loop("loss = criterion(model(x), y)\nloss.backward()\noptimizer.step()"),
        [(7, "TW001")],
    ),
    "zero_grad_present": (
        loop(
            "optimizer.zero_grad()\nloss = criterion(model(x), y)\nloss.backward()\n"
            "optimizer.step()"
        ),
        [],
    ),
    "zero_grad_after_step": (
        loop("criterion(model(x), y).backward()\noptimizer.step()\noptimizer.zero_grad()"),
        [],
    ),
    "zero_grad_model_set_to_none": (
        loop(
            "model.zero_grad(set_to_none=True)\ncriterion(model(x), y).backward()\noptimizer.step()"
        ),
        [],
    ),
    "zero_grad_between": (
        loop("criterion(model(x), y).backward()\noptimizer.zero_grad()\noptimizer.step()"),
        [(6, "TW002")],
    ),
    "epoch_scheduler_in_batch_loop": (
        """\
        def fit(model, loader, criterion):
            optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
            scheduler = StepLR(optimizer, step_size=30)
            for epoch in range(90):
                for x, y in loader:
                    optimizer.zero_grad()
                    criterion(model(x), y).backward()
                    optimizer.step()
                    scheduler.step()
        """,
        [(9, "TW003")],
    ),
    "epoch_scheduler_per_epoch": (
        """\
        def fit(model, loader, criterion):
            optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
            scheduler = StepLR(optimizer, step_size=30)
            for epoch in range(90):
                for x, y in loader:
                    optimizer.zero_grad()
                    criterion(model(x), y).backward()
                    optimizer.step()
                scheduler.step()
        """,
        [],
    ),
    "one_cycle_per_epoch": (
        """\
        def fit(model, loader, criterion, epochs):
            optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
            scheduler = OneCycleLR(optimizer, 0.1, epochs=epochs, steps_per_epoch=len(loader))
            for epoch in range(epochs):
                for x, y in loader:
                    optimizer.zero_grad()
                    criterion(model(x), y).backward()
                    optimizer.step()
                scheduler.step()
        """,
        [(9, "TW004")],
    ),
    "one_cycle_per_batch": (
        """\
        def fit(model, loader, criterion, epochs):
            optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
            scheduler = OneCycleLR(optimizer, 0.1, epochs=epochs, steps_per_epoch=len(loader))
            for epoch in range(epochs):
                for x, y in loader:
                    optimizer.zero_grad()
                    criterion(model(x), y).backward()
                    optimizer.step()
                    scheduler.step()
        """,
        [],
    ),
    "clip_before_backward": (
        loop(
            "optimizer.zero_grad()\nloss = criterion(model(x), y)\n"
            "nn.utils.clip_grad_norm_(model.parameters(), 1.0)\nloss.backward()\n"
            "optimizer.step()"
        ),
        [(7, "TW005")],
    ),
    "clip_after_step": (
        loop(
            "optimizer.zero_grad()\ncriterion(model(x), y).backward()\noptimizer.step()\n"
            "nn.utils.clip_grad_norm_(model.parameters(), 1.0)"
        ),
        [(8, "TW005")],
    ),
    "clip_between": (
        loop(
            "optimizer.zero_grad()\ncriterion(model(x), y).backward()\n"
            "nn.utils.clip_grad_norm_(model.parameters(), 1.0)\noptimizer.step()"
        ),
        [],
    ),
    "clip_scaled_grads": (
        """\
        def fit(model, loader, optimizer, criterion):
            scaler = torch.amp.GradScaler("cuda")
            for x, y in loader:
                optimizer.zero_grad()
                scaler.scale(criterion(model(x), y)).backward()
                torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                scaler.step(optimizer)
                scaler.update()
        """,
        [(6, "TW006")],
    ),
    "clip_unscaled_grads": (
        """\
        def fit(model, loader, optimizer, criterion):
            scaler = torch.amp.GradScaler("cuda")
            for x, y in loader:
                optimizer.zero_grad()
                scaler.scale(criterion(model(x), y)).backward()
                scaler.unscale_(optimizer)
                torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                scaler.step(optimizer)
                scaler.update()
        """,
        [],
    ),
    "softmax_into_ce": (
        "def f(logits, y):\n    return F.cross_entropy(F.softmax(logits, dim=1), y)\n",
        [(2, "TW007")],
    ),
    "softmax_sequential_into_ce": (
        """\
        model = nn.Sequential(nn.Linear(4, 3), nn.Softmax(dim=1))
        criterion = nn.CrossEntropyLoss()
        loss = criterion(model(torch.randn(2, 4)), torch.tensor([0, 1]))
        """,
        [(3, "TW007")],
    ),
    "log_softmax_into_ce": (
        "def f(logits, y):\n    return nn.CrossEntropyLoss()(logits.log_softmax(1), y)\n",
        [(2, "TW008")],
    ),
    "log_softmax_into_nll": (
        "def f(logits, y):\n    return F.nll_loss(F.log_softmax(logits, dim=1), y)\n",
        [],
    ),
    "softmax_into_nll": (
        "def f(logits, y):\n    return F.nll_loss(torch.softmax(logits, dim=1), y)\n",
        [(2, "TW009")],
    ),
    "log_of_softmax_into_nll": (
        "def f(logits, y):\n    return F.nll_loss(torch.log(F.softmax(logits, 1)), y)\n",
        [],
    ),
    "eval_leak": (
        """\
        def fit(model, loader, val_loader, criterion, epochs):
            optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
            for epoch in range(epochs):
                for x, y in loader:
                    optimizer.zero_grad()
                    criterion(model(x), y).backward()
                    optimizer.step()
                model.eval()
                with torch.no_grad():
                    print([model(x) for x, _ in val_loader])
        """,
        [(8, "TW010")],
    ),
    "eval_restored_at_top": (
        """\
        def fit(model, loader, val_loader, criterion, epochs):
            optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
            for epoch in range(epochs):
                model.train()
                for x, y in loader:
                    optimizer.zero_grad()
                    criterion(model(x), y).backward()
                    optimizer.step()
                model.eval()
                with torch.no_grad():
                    print([model(x) for x, _ in val_loader])
        """,
        [],
    ),
    "eval_then_unknown_call": (
        """\
        def fit(model, loader, val_loader, criterion, epochs, run_validation):
            optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
            for epoch in range(epochs):
                for x, y in loader:
                    optimizer.zero_grad()
                    criterion(model(x), y).backward()
                    optimizer.step()
                model.eval()
                run_validation(model, val_loader)
        """,
        [],
    ),
    "loss_accumulated": (
        loop(
            "optimizer.zero_grad()\nloss = criterion(model(x), y)\nloss.backward()\n"
            "optimizer.step()\ntotal += loss"
        ).replace("    for epoch", "    total = 0\n    for epoch"),
        [(10, "TW011")],
    ),
    "loss_item_accumulated": (
        loop(
            "optimizer.zero_grad()\nloss = criterion(model(x), y)\nloss.backward()\n"
            "optimizer.step()\ntotal += loss.item()"
        ).replace("    for epoch", "    total = 0\n    for epoch"),
        [],
    ),
    "inference_without_no_grad": (
        """\
        def predict(model, xs):
            model.eval()
            return [model(x) for x in xs]

        predict(torch.nn.Linear(2, 2), [])
        """,
        [(3, "TW012")],
    ),
    "inference_with_no_grad": (
        """\
        @torch.no_grad()
        def predict(model, xs):
            model.eval()
            return [model(x) for x in xs]

        predict(torch.nn.Linear(2, 2), [])
        """,
        [],
    ),
    "module_list": (
        """\
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.layers = [nn.Linear(2, 2), nn.Linear(2, 2)]
        """,
        [(4, "TW013")],
    ),
    "module_list_registered": (
        """\
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.layers = nn.ModuleList([nn.Linear(2, 2), nn.Linear(2, 2)])
        """,
        [],
    ),
    "torch_load_unsafe": ("sd = torch.load('x.pt', weights_only=False)\n", [(1, "TW015")]),
    "torch_load_default_modern": ("sd = torch.load('x.pt')\n", []),
    "accumulation_unscaled": (
        """\
        def fit(model, loader, optimizer, criterion, k):
            for i, (x, y) in enumerate(loader):
                loss = criterion(model(x), y)
                loss.backward()
                if (i + 1) % k == 0:
                    optimizer.step()
                    optimizer.zero_grad()
        """,
        [(4, "TW017")],
    ),
    "accumulation_scaled": (
        """\
        def fit(model, loader, optimizer, criterion, k):
            for i, (x, y) in enumerate(loader):
                loss = criterion(model(x), y)
                (loss / k).backward()
                if (i + 1) % k == 0:
                    optimizer.step()
                    optimizer.zero_grad()
        """,
        [],
    ),
    "plateau_without_metric": (
        """\
        def fit(optimizer, epochs):
            scheduler = ReduceLROnPlateau(optimizer)
            for epoch in range(epochs):
                scheduler.step()
        """,
        [(4, "TW018")],
    ),
    "plateau_with_metric": (
        """\
        def fit(optimizer, epochs, validate):
            scheduler = ReduceLROnPlateau(optimizer)
            for epoch in range(epochs):
                scheduler.step(validate())
        """,
        [],
    ),
    "discarded_to": (
        """\
        def fit(model, loader, device):
            model.to(device)
            for x, y in loader:
                x.to(device)
        """,
        [(4, "TW019")],
    ),
    "module_to_is_in_place": ("model = nn.Linear(2, 2)\nmodel.to('cpu')\nmodel.cuda()\n", []),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_rule_case(name: str) -> None:
    snippet, expected = CASES[name]
    assert run(snippet) == expected


def test_implicit_torch_load_depends_on_target() -> None:
    assert run("sd = torch.load('x.pt')\n", target_torch="2.5") == [(1, "TW016")]
    assert run("sd = torch.load('x.pt')\n", target_torch="2.6") == []
    assert run("sd = torch.load('x.pt', weights_only=True)\n", target_torch="1.13") == []


def test_every_rule_has_a_positive_unit_case() -> None:
    covered = {code for _, expected in CASES.values() for _, code in expected} | {"TW016"}
    assert covered == set(RULES) - {"TW000"}


def test_syntax_error_is_a_finding() -> None:
    findings = check_source("for x in y\n    pass\n", "bad.py")
    assert [(f.line, f.code, f.severity) for f in findings] == [(1, "TW000", "error")]
    assert "syntax error" in findings[0].message


def test_noqa_bare_and_coded() -> None:
    text = (
        "import torch\na = torch.load('a', weights_only=False)  # noqa\n"
        "b = torch.load('b', weights_only=False)  # noqa: TW015\n"
        "c = torch.load('c', weights_only=False)  # noqa: TW001\n"
    )
    assert [(f.line, f.code) for f in check_source(text)] == [(4, "TW015")]


def test_select_and_ignore_prefixes() -> None:
    text = HEADER + loop(
        "loss = criterion(model(x), y)\nloss.backward()\noptimizer.step()\n"
        "torch.load('x', weights_only=False)"
    )
    assert {f.code for f in check_source(text)} == {"TW001", "TW015"}
    assert {f.code for f in check_source(text, select="TW00")} == {"TW001"}
    assert {f.code for f in check_source(text, ignore=["TW001"])} == {"TW015"}
    assert check_source(text, select="TW015", ignore="TW01") == []


def test_unknown_code_is_rejected() -> None:
    from trainwell.doctor import UsageError

    with pytest.raises(UsageError, match="unknown rule code 'TW999'"):
        check_source("x = 1\n", select="TW999")


def test_finding_fields_and_format() -> None:
    [finding] = check_source("import torch\ntorch.load('a', weights_only=False)\n", "a.py")
    assert isinstance(finding, Finding)
    assert (finding.path, finding.line, finding.col, finding.code) == ("a.py", 2, 1, "TW015")
    assert finding.severity == "warning"
    assert finding.format().startswith("a.py:2:1: TW015 ")
    with pytest.raises(AttributeError):
        finding.line = 3  # type: ignore[misc]


def test_doctor_does_not_import_torch() -> None:
    import ast
    from pathlib import Path

    import trainwell.doctor as doctor

    for source in Path(doctor.__file__).parent.glob("*.py"):
        tree = ast.parse(source.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                assert all(not a.name.startswith("torch") for a in node.names), source
            if isinstance(node, ast.ImportFrom):
                assert not (node.module or "").startswith("torch"), source


def test_rule_metadata_is_complete() -> None:
    for code, rule in RULES.items():
        assert rule.code == code and rule.severity in {"error", "warning"}
        assert rule.summary and rule.why and rule.bad and rule.good
