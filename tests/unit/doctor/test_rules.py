"""Per-rule tests: every rule's examples (kept next to the rule, in its family module of
``trainwell.doctor.rules``) give exactly their (line, code) findings; plus what is not
about one rule (noqa, select/ignore, the Finding type)."""

from __future__ import annotations

import ast
from types import ModuleType

import pytest

from trainwell.doctor import RULES, Finding, check_source
from trainwell.doctor.analysis import FileAnalysis
from trainwell.doctor.rules import (
    HEADER,
    HEADER_LINES,
    Example,
    Registry,
    Rule,
    in_loop,
    scope_check,
)

OLD_TORCH = "2.1"  # TW016's bad snippet: "project requires torch>=2.1"
EXAMPLES = [(code, example) for code, rule in RULES.items() for example in rule.examples]


def findings_of(example: Example) -> list[tuple[int, str]]:
    """Findings of the example's source as (line within the snippet, code)."""
    found = check_source(example.source(), "t.py", target_torch=example.target_torch)
    return [(f.line - HEADER_LINES, f.code) for f in found]


@pytest.mark.parametrize(
    ("code", "example"), EXAMPLES, ids=[f"{code}-{example.name}" for code, example in EXAMPLES]
)
def test_rule_example(code: str, example: Example) -> None:
    assert findings_of(example) == list(example.findings)


@pytest.mark.parametrize("code", sorted(RULES))
def test_every_rule_has_positive_and_negative_examples(code: str) -> None:
    examples = RULES[code].examples
    assert any(example.fires(code) for example in examples), "no example where it fires"
    assert any(not example.fires(code) for example in examples), "no example where it is silent"


def test_example_names_are_unique() -> None:
    names = [example.name for _, example in EXAMPLES]
    assert len(names) == len(set(names))


@pytest.mark.parametrize("code", sorted(RULES))
def test_bad_snippet_triggers_its_rule(code: str) -> None:
    rule = RULES[code]
    assert code in {f.code for f in check_source(rule.bad, target_torch=OLD_TORCH)}


@pytest.mark.parametrize("code", sorted(RULES))
def test_good_snippet_does_not_trigger_its_rule(code: str) -> None:
    rule = RULES[code]
    assert code not in {f.code for f in check_source(rule.good, target_torch=OLD_TORCH)}


def _family(name: str, code: str) -> ModuleType:
    """A family module made on the fly: one rule and a scope check that reports it."""
    family = ModuleType(name)
    rule = Rule(code, "demo", "warning", "summary", "why", "bad\n", "good\n")
    setattr(family, code, rule)

    def check(w) -> None:
        w.fa.report(code, w.body[0], "demo finding")

    check.__module__ = name
    family.check = scope_check(rule)(check)
    return family


def test_registry_runs_the_checks_a_family_registers() -> None:
    registry = Registry([_family("demo_family", "TW999")])
    assert list(registry.rules) == ["TW999"]
    tree = ast.parse("x = 1\n")
    findings = FileAnalysis(tree, (2, 6), registry).run()
    assert [(f.code, f.line) for f in findings] == [("TW999", 1)]


def test_registry_rejects_a_code_defined_twice() -> None:
    with pytest.raises(ValueError, match="TW999 is defined twice"):
        Registry([_family("first", "TW999"), _family("second", "TW999")])


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
    text = HEADER + in_loop(
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

    for source in Path(doctor.__file__).parent.rglob("*.py"):
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
