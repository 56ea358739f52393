"""``trainwell doctor``: command-line front end of the static checker."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from .config import UsageError
from .engine import check_paths, parse_codes
from .report import explain, format_json, format_text, list_rules
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
    parser.add_argument("paths", nargs="*", metavar="PATH", help="files or directories")
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.add_argument("--select", metavar="CODES", help="only these codes (prefixes, comma "
                        "separated), e.g. TW001,TW01")  # fmt: skip
    parser.add_argument("--ignore", metavar="CODES", help="skip these codes (prefixes)")
    parser.add_argument("--target-torch", metavar="X.Y", help="torch version to assume "
                        "(default: from the nearest pyproject.toml, else 2.6)")  # fmt: skip
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
    findings = check_paths(
        args.paths,
        target_torch=args.target_torch,
        select=parse_codes(args.select),
        ignore=parse_codes(args.ignore),
    )
    output = format_json(findings) if args.format == "json" else format_text(findings)
    if output:
        print(output)
    return EXIT_FINDINGS if findings else EXIT_CLEAN


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; returns 0 (clean), 1 (findings) or 2 (usage error)."""
    try:
        return _run(argv)
    except UsageError as exc:
        print(f"trainwell doctor: error: {exc}", file=sys.stderr)
        return EXIT_USAGE


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
