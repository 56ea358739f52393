"""``trainwell doctor``: command-line front end of the static checker."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from .config import UsageError
from .engine import check_files, parse_codes
from .report import explain, format_json, format_targets, format_text, list_rules
from .rules import RULES

EXIT_CLEAN, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        # argparse's default prints the whole usage block; keep it to one clear line.
        raise UsageError(f"{message} (see 'trainwell doctor --help')")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="trainwell doctor",
        description="Find silent bugs in PyTorch training scripts without running them.",
    )
    parser.add_argument("paths", nargs="*", metavar="PATH", help="files, notebooks or directories")
    parser.add_argument("--format", choices=("text", "json", "github", "sarif"), default="text",
                        help="text (default), json, github (Actions annotations) or sarif")  # fmt: skip
    parser.add_argument("--select", metavar="CODES", help="only these codes (prefixes, comma "
                        "separated), e.g. TW001,TW01")  # fmt: skip
    parser.add_argument("--ignore", metavar="CODES", help="skip these codes (prefixes)")
    parser.add_argument("--target-torch", metavar="X.Y", help="torch version to assume "
                        "(default: [tool.trainwell.doctor] target-torch, else the lowest torch "
                        "the project pins, else 2.6)")  # fmt: skip
    parser.add_argument("--statistics", action="store_true", help="also count findings per rule")
    parser.add_argument("--fix", action="store_true", help="fix TW016 in place (insert "
                        "weights_only=True); other rules are only reported")  # fmt: skip
    parser.add_argument("--explain", metavar="CODE", help="explain a rule with examples")
    parser.add_argument("--list-rules", action="store_true", help="list all rules")
    return parser


def _run(argv: Sequence[str] | None) -> int:
    args = build_parser().parse_args(argv)
    if args.list_rules:
        print(list_rules())
        return EXIT_CLEAN
    if args.explain:
        code = args.explain.strip().upper()
        if code not in RULES:
            raise UsageError(
                f"unknown rule code {args.explain!r}; run 'trainwell doctor --list-rules'"
            )
        print(explain(RULES[code]))
        return EXIT_CLEAN
    if not args.paths:
        raise UsageError("no PATH given: pass files or directories to check, e.g. "
                         "'trainwell doctor train.py'")  # fmt: skip
    if args.statistics and args.format in {"github", "sarif"}:
        raise UsageError("--statistics works with --format text or json")
    options = {
        "target_torch": args.target_torch,
        "select": parse_codes(args.select),
        "ignore": parse_codes(args.ignore),
    }
    result = check_files(args.paths, **options)
    if args.fix:
        _fix(result, args.format)
        result = check_files(args.paths, **options)  # positions after the edits
    findings = result.findings
    if args.format == "text":
        output = format_text(findings)
        if args.statistics and findings:
            output += "\n\n" + _formats().format_statistics(findings)
    elif args.format == "json":
        stats = args.statistics
        output = (
            _formats().statistics_json(findings) if stats else format_json(findings, result.targets)
        )
    elif args.format == "github":
        output = _formats().format_github(findings)
    else:
        output = _formats().format_sarif(findings, result.targets)
    if output:
        print(output)
    if args.format == "text" and result.targets:
        sys.stdout.flush()  # the target note follows the findings on a terminal
        print(f"trainwell doctor: {format_targets(result.targets)}", file=sys.stderr)
    return EXIT_FINDINGS if findings else EXIT_CLEAN


def _formats():  # imported on use: the default text output does not need it
    from . import formats

    return formats


def _fix(result, output_format: str) -> None:
    from .fix import apply_fixes

    outcomes = apply_fixes(result.findings, lambda path: result.targets[path].version)
    stream = sys.stdout if output_format == "text" else sys.stderr
    for outcome in outcomes:
        print(outcome.format(), file=stream)
    fixed = sum(o.fixed for o in outcomes)
    if outcomes:
        print(f"Fixed {fixed} of {len(outcomes)} fixable problem{'s' * (len(outcomes) != 1)}.",
              file=stream)  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; returns 0 (clean), 1 (findings) or 2 (usage error)."""
    try:
        return _run(argv)
    except UsageError as exc:
        print(f"trainwell doctor: error: {exc}", file=sys.stderr)
        return EXIT_USAGE


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
