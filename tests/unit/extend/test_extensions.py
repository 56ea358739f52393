"""Extending trainwell from outside: a guard added with `register_guard` runs in `watch()` and
`fit()` like the built-in ones (same moments, cadence, switches and reporting) until it is
unregistered; the doctor runs extra rules (a family module, or rules and their checks) next
to the built-in ones with ``check_source(..., rules=...)``, leaving the built-in findings as
they are."""

from __future__ import annotations

import ast
import importlib.util
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest
import torch
from torch import nn

import trainwell as tw
from trainwell.config.guards import GuardsConfig
from trainwell.doctor import RULES, UsageError, check_source
from trainwell.doctor.engine import with_rules
from trainwell.doctor.rules import CHECKS, HEADER, Example, Rule, expression_check, in_loop
from trainwell.guards import (
    GUARDS,
    Guard,
    GuardError,
    GuardWarning,
    register_guard,
    registered_guards,
    unregister_guard,
    watch,
)
from trainwell.guards.nonfinite import NonFiniteGuard
from trainwell.guards.registry import guards_on
from trainwell.guards.zero_grad import ZeroGradGuard

ROOT = Path(__file__).parents[3]


# ---------------------------------------------------------------------------- guards
class StepGuard(Guard):
    """Reports once, at its first ``on_step_pre``, and records every step it was called at."""

    switch = None

    def attach(self) -> None:
        self.seen: list[int] = []

    def on_step_pre(self) -> None:
        self.seen.append(self.ctx.steps)
        self.ctx.report(
            "custom-step",
            name="a registered guard saw a step",
            message=f"step {self.ctx.steps}",
            where=type(self.ctx.model).__name__,
            why="a test",
            fix="nothing",
            switch=self.switch,
        )


class SwitchedGuard(StepGuard):
    switch = "optimizer_params"  # shares the switch of a built-in guard


@pytest.fixture
def registered() -> Iterator[type[Guard]]:
    register_guard(StepGuard)
    try:
        yield StepGuard
    finally:
        unregister_guard(StepGuard)


@pytest.fixture(autouse=True)
def _nothing_left_registered() -> Iterator[None]:
    yield
    assert registered_guards() == ()


def _loop(steps: int = 3, **config: object):
    """A healthy hand-written loop under watch(); returns the watch."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", GuardWarning)
        with watch(model, optimizer, **config) as guards:
            for _ in range(steps):
                optimizer.zero_grad()
                x, y = torch.randn(16, 4), torch.randint(0, 3, (16,))
                nn.functional.cross_entropy(model(x), y).backward()
                optimizer.step()
    return guards


def _fit(**guards: object):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
    data = (torch.randn(64, 4), torch.randint(0, 3, (64,)))
    config = {"run": {"quiet": True}, "train": {"max_epochs": 1}, "guards": guards}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", GuardWarning)
        return tw.fit(model, data, loss=nn.CrossEntropyLoss(), config=config)


def test_register_returns_the_class_lists_it_once_and_unregister_undoes_it():
    assert register_guard(StepGuard) is StepGuard  # usable as a class decorator
    try:
        register_guard(StepGuard)  # again: nothing changes
        assert registered_guards() == (StepGuard,)
    finally:
        unregister_guard(StepGuard)
    assert registered_guards() == ()
    unregister_guard(StepGuard)  # not registered: nothing to do


def test_a_registered_guard_runs_in_watch_and_reports_like_the_built_in_ones(registered):
    guards = _loop()
    assert isinstance(guards.guard(StepGuard), StepGuard)
    (finding,) = guards.findings
    assert (finding.code, finding.where, finding.step) == ("custom-step", "Sequential", 0)
    assert finding.switch == "enabled"  # switch=None: only guards.enabled turns it off
    assert "(switch off: guards.enabled=false)" in str(finding)


def test_its_finding_names_the_users_line_not_the_guards(registered):
    lines = Path(__file__).read_text().splitlines()
    here = next(i for i, line in enumerate(lines, 1) if line.endswith("# reported here"))
    model = nn.Linear(4, 3)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    warned = pytest.warns(GuardWarning, match=r"\[custom-step\]")
    with warned as caught, watch(model, optimizer) as guards:
        model(torch.randn(2, 4)).sum().backward()
        optimizer.step()  # reported here
    assert guards.findings[0].source.endswith(f"test_extensions.py:{here}")
    assert (caught[0].filename, caught[0].lineno) == (__file__, here)


def test_a_registered_guard_runs_in_fit(registered):
    result = _fit()
    assert [f.code for f in result.findings] == ["custom-step"]
    assert [f.code for f in _fit(enabled=True).findings] == ["custom-step"]


def test_guards_enabled_false_runs_no_registered_guard(registered):
    guards = _loop(enabled=False)
    assert guards.guards == [] and guards.findings == []
    assert _fit(enabled=False).findings == []


def test_a_switch_naming_a_guards_field_turns_it_off_with_that_field():
    register_guard(SwitchedGuard)
    try:
        assert [f.code for f in _loop().findings] == ["custom-step"]
        assert _loop().findings[0].switch == "optimizer_params"
        assert _loop(optimizer_params=False).findings == []
        assert _fit(optimizer_params=False).findings == []
    finally:
        unregister_guard(SwitchedGuard)


def test_an_unregistered_guard_is_gone_from_new_watches_and_kept_by_an_open_one():
    register_guard(StepGuard)
    assert [f.code for f in _loop().findings] == ["custom-step"]
    unregister_guard(StepGuard)
    assert _loop().findings == []
    assert _fit().findings == []
    model = nn.Linear(4, 3)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    register_guard(StepGuard)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", GuardWarning)
        with watch(model, optimizer) as guards:
            unregister_guard(StepGuard)
            model(torch.randn(2, 4)).sum().backward()
            optimizer.step()
    assert [f.code for f in guards.findings] == ["custom-step"]


@pytest.mark.parametrize(
    ("every_step", "expected"),
    [(frozenset(), [0, 4, 8]), (frozenset({"on_step_pre"}), list(range(10)))],
)
def test_a_registered_guard_follows_the_cadence_of_the_built_in_ones(every_step, expected):
    class Sampled(StepGuard):
        pass

    Sampled.every_step = every_step
    register_guard(Sampled)
    try:
        guards = _loop(steps=10, every=4)
    finally:
        unregister_guard(Sampled)
    assert guards.guard(Sampled).seen == expected  # armed: the first step of every 4


def test_registered_guards_run_after_the_built_in_ones_and_before_the_nonfinite_guard(
    registered,
):
    classes = guards_on(GuardsConfig())
    assert classes == [*(c for c in GUARDS if c is not NonFiniteGuard), StepGuard, NonFiniteGuard]
    assert [type(g) for g in _loop(steps=1).guards] == classes


def test_on_finding_raise_raises_a_registered_guards_finding_at_the_step_end(registered):
    with pytest.raises(GuardError, match=r"\[custom-step\]"):
        _loop(on_finding="raise")


def test_register_guard_says_what_it_takes():
    with pytest.raises(TypeError, match="Guard subclass"):
        register_guard(object)  # type: ignore[type-var]
    with pytest.raises(ValueError, match="built-in"):
        register_guard(ZeroGradGuard)
    for switch in ("", "no_such_field", "every"):  # unset, unknown, not a boolean

        class Bad(Guard):
            pass

        Bad.switch = switch
        with pytest.raises(ValueError, match="switch = None"):
            register_guard(Bad)


# ---------------------------------------------------------------------------- doctor
FAMILY = '''\
"""X900: breakpoint() left in a training script."""

import ast

from trainwell.doctor.analysis import FileAnalysis
from trainwell.doctor.rules import Example, Rule, file_check

X900 = Rule(
    "X900",
    "leftover-breakpoint",
    "error",
    "breakpoint() is called in a training script.",
    "An unattended run stops at it and waits for input forever.",
    "breakpoint()\\n",
    "pass\\n",
    examples=(
        Example("breakpoint_call", "x = 1\\nbreakpoint()\\n", [(2, "X900")]),
        Example("no_breakpoint", "x = 1\\n"),
    ),
)


@file_check(X900)
def check_breakpoint(fa: FileAnalysis) -> None:
    for node in fa.nodes:
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "breakpoint":
            fa.report("X900", node, "breakpoint() stops an unattended run")
'''

X901 = Rule(
    "X901",
    "zero-grad-keeps-zeros",
    "warning",
    "optimizer.zero_grad(set_to_none=False) in a training loop.",
    "Zeros are written into every gradient each step instead of freeing them.",
    "optimizer.zero_grad(set_to_none=False)\n",
    "optimizer.zero_grad()\n",
)


@expression_check(X901)
def check_zero_grad_keeps_zeros(w, expr: ast.expr) -> None:
    if not (isinstance(expr, ast.Call) and getattr(expr.func, "attr", "") == "zero_grad"):
        return
    if any(
        k.arg == "set_to_none" and getattr(k.value, "value", None) is False for k in expr.keywords
    ):
        w.fa.report("X901", expr, "zero_grad(set_to_none=False) writes zeros")


@pytest.fixture
def family(tmp_path: Path):
    """The family as a user's own module file, imported as any module is."""
    path = tmp_path / "my_rules.py"
    path.write_text(FAMILY)
    spec = importlib.util.spec_from_file_location("my_rules", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SCRIPT = HEADER + in_loop(
    """\
    optimizer.zero_grad(set_to_none=False)
    loss = criterion(model(x), y)
    loss.backward()
    breakpoint()
    optimizer.step()
    torch.load("x.pt", weights_only=False)
    """
)


def _codes(text: str, **kwargs: object) -> list[str]:
    return [f.code for f in check_source(text, **kwargs)]


def test_a_family_module_runs_next_to_the_built_in_rules(family):
    assert _codes(SCRIPT) == ["TW015"]
    assert _codes(SCRIPT, rules=[family]) == ["X900", "TW015"]
    (found,) = check_source(SCRIPT, rules=[family], select="X")
    assert (found.line, found.severity) == (HEADER.count("\n") + 8, "error")
    for example in family.X900.examples:  # its own tests, as the doctor's run for its rules
        got = check_source(example.source(), rules=[family])
        assert [(f.line - HEADER.count("\n"), f.code) for f in got] == list(example.findings)


def test_rules_and_checks_given_one_by_one_and_several_families(family):
    one_by_one = [X901, check_zero_grad_keeps_zeros]
    assert _codes(SCRIPT, rules=one_by_one) == ["X901", "TW015"]
    assert _codes(SCRIPT, rules=[family, *one_by_one]) == ["X901", "X900", "TW015"]
    assert _codes(X901.bad, rules=one_by_one) == ["X901"]
    assert _codes(X901.good, rules=one_by_one) == []


def test_select_ignore_and_noqa_know_the_extra_codes(family):
    assert _codes(SCRIPT, rules=[family], select="X9") == ["X900"]
    assert _codes(SCRIPT, rules=[family], ignore="X900") == ["TW015"]
    assert _codes(SCRIPT, rules=[family], select="TW015") == ["TW015"]
    quiet = SCRIPT.replace("breakpoint()", "breakpoint()  # noqa: X900")
    assert _codes(quiet, rules=[family]) == ["TW015"]
    with pytest.raises(UsageError, match="unknown rule code 'X900'"):
        check_source(SCRIPT, select="X900")  # without the rule, its code is unknown


def test_the_built_in_findings_are_the_same_with_extra_rules(family):
    scripts = sorted(ROOT.glob("tests/**/doctor/corpus/*.py"))
    texts = [SCRIPT, *(p.read_text() for p in scripts)]
    extra = [family, X901, check_zero_grad_keeps_zeros]
    for text in texts:
        alone = check_source(text, "t.py")
        together = check_source(text, "t.py", rules=extra)
        assert [f for f in together if not f.code.startswith("X")] == alone
    assert len(texts) > 1, "no doctor corpus found under tests/"


def test_extra_rules_leave_the_built_in_registry_alone(family):
    assert with_rules() is CHECKS and with_rules([]) is CHECKS
    extended = with_rules([family])
    assert list(extended.rules) == [*RULES, "X900"]
    assert extended.families[: len(CHECKS.families)] == CHECKS.families
    assert "X900" not in RULES and "X900" not in CHECKS.rules


def test_a_code_defined_twice_or_something_that_is_no_rule_is_refused(family):
    with pytest.raises(ValueError, match="TW015 is defined twice"):
        check_source("x = 1\n", rules=[Rule("TW015", "n", "error", "s", "w", "b", "g")])
    again = Rule("X900", "another", "error", "s", "w", "b", "g")
    with pytest.raises(ValueError, match="X900 is defined twice"):
        check_source("x = 1\n", rules=[family, again])
    with pytest.raises(TypeError, match="not a rule family"):
        check_source("x = 1\n", rules=[lambda w: None])
    with pytest.raises(ValueError, match="undefined rules"):
        check_source("x = 1\n", rules=[check_zero_grad_keeps_zeros])  # its Rule left out


def test_examples_of_an_extra_rule_need_no_header_imports():
    example = Example("x", "optimizer.zero_grad(set_to_none=False)\n", [(1, "X901")])
    got = check_source(example.source(), rules=[X901, check_zero_grad_keeps_zeros])
    assert [(f.line - HEADER.count("\n"), f.code) for f in got] == list(example.findings)
