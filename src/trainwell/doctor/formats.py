"""Machine formats: GitHub Actions workflow commands, SARIF 2.1.0, and ``--statistics``."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path

from .engine import Finding
from .rules import RULES
from .target import Target

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_LEVEL = {"error": "error", "warning": "warning"}


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def format_github(findings: Sequence[Finding]) -> str:
    """One ``::error``/``::warning`` workflow command per finding (GitHub annotations)."""
    lines = []
    for f in findings:
        level = "warning" if f.severity == "warning" else "error"
        name = RULES[f.code].name if f.code in RULES else f.code
        message = f"cell {f.cell}: {f.message}" if f.cell is not None else f.message
        props = ",".join(
            [
                f"file={_escape_property(f.path)}",
                f"line={f.line}",
                f"col={f.col}",
                f"title={_escape_property(f'{f.code} {name}')}",
            ]
        )
        lines.append(f"::{level} {props}::{_escape_data(message)}")
    return "\n".join(lines)


def _uri(path: str) -> str:
    posix = Path(path).as_posix()
    return posix[2:] if posix.startswith("./") else posix


def sarif_log(findings: Sequence[Finding], targets: Mapping[str, Target] | None = None) -> dict:
    """A SARIF 2.1.0 log (as a dict) with one run of ``trainwell doctor``."""
    rules = [
        {
            "id": rule.code,
            "name": rule.name,
            "shortDescription": {"text": rule.summary},
            "fullDescription": {"text": rule.why},
            "defaultConfiguration": {"level": _LEVEL.get(rule.severity, "warning")},
        }
        for rule in RULES.values()
    ]
    index = {rule["id"]: i for i, rule in enumerate(rules)}
    results = []
    for f in findings:
        region: dict[str, int] = {"startLine": f.line, "startColumn": f.col}
        result: dict = {
            "ruleId": f.code,
            "ruleIndex": index[f.code],
            "level": "warning" if f.severity == "warning" else "error",
            "message": {"text": f.message},
            "locations": [
                {"physicalLocation": {"artifactLocation": {"uri": _uri(f.path)}, "region": region}}
            ],
        }
        if f.cell is not None:
            result["properties"] = {"cell": f.cell, "lineInCell": f.line}
        results.append(result)
    run: dict = {
        "tool": {"driver": {"name": "trainwell doctor", "rules": rules}},
        "results": results,
        "columnKind": "unicodeCodePoints",
    }
    if targets:
        run["properties"] = {
            "targetTorch": sorted({t.describe() for t in targets.values()}),
        }
    return {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}


def format_sarif(findings: Sequence[Finding], targets: Mapping[str, Target] | None = None) -> str:
    return json.dumps(sarif_log(findings, targets), indent=2)


def statistics(findings: Sequence[Finding]) -> list[tuple[str, str, int]]:
    """(code, name, count) per rule, most frequent first, then by code."""
    counts = Counter(f.code for f in findings)
    rows = [(code, RULES[code].name if code in RULES else code, n) for code, n in counts.items()]
    return sorted(rows, key=lambda row: (-row[2], row[0]))


def format_statistics(findings: Sequence[Finding]) -> str:
    """``count  CODE  name`` lines, ruff style."""
    rows = statistics(findings)
    if not rows:
        return ""
    width = max(len(str(n)) for *_, n in rows)
    return "\n".join(f"{n:>{width}}\t{code}\t{name}" for code, name, n in rows)


def statistics_json(findings: Sequence[Finding]) -> str:
    return json.dumps(
        [{"code": c, "name": name, "count": n} for c, name, n in statistics(findings)], indent=2
    )
