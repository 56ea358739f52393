"""The ``trainwell`` command: train, resume, eval, export, recipes, doctor.

Exit codes (`trainwell.errors`, docs/cli.md): 0 finished (or preempted by SIGTERM after
saving); 2 a user mistake — config, data, shapes, checkpoints — printed as one line, no
traceback; 3 a runtime guard stopped the run; 4 a checkpoint or export could not be written
(disk full, permissions); 130 Ctrl-C, after saving.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from trainwell.cli.common import _one_line, _warnings_as_one_line
from trainwell.cli.train import cmd_recipes, cmd_resume, cmd_train
from trainwell.errors import (
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_USAGE,
    UserError,
)

EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE, as a shell reports a reader that went away


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``trainwell`` command; returns the exit code."""
    try:
        return _main(argv)
    except BrokenPipeError:
        # The reader left early (``trainwell doctor ... | head``): not an error to report
        # with a traceback. Output still buffered must not fail again at exit.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_BROKEN_PIPE


def _main(argv: Sequence[str] | None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "doctor":  # the linter has its own parser and must not import torch
        from trainwell.doctor.cli import main as doctor_main

        return doctor_main(argv[1:])
    parser = _parser()
    try:
        args = parser.parse_args(argv)
        args.argv = argv
    except SystemExit as exc:  # argparse exits 2 on usage errors, 0 on --help
        return int(exc.code or EXIT_OK)
    if not getattr(args, "command", None):
        parser.print_help()
        return EXIT_USAGE
    try:
        with _warnings_as_one_line():
            return args.run(args)
    except UserError as exc:
        print(f"trainwell: error: {_one_line(str(exc))}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("trainwell: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


def _parser() -> argparse.ArgumentParser:
    from trainwell.cli import runs
    from trainwell.config.tree import config_help

    parser = argparse.ArgumentParser(
        prog="trainwell",
        description="Train PyTorch models the right way, fast.",
        epilog="exit codes: 0 done, 2 user mistake, 3 stopped by a runtime guard, "
        "4 a file could not be written, 130 interrupted (after saving)",
    )
    parser.add_argument(
        "--version", action="version", version=f"trainwell {_version()}", help="print the version"
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    train = sub.add_parser(
        "train",
        help="train a built-in recipe or your own module:function",
        description="Train a recipe. Config keys (override with --set section.key=value):",
        epilog=config_help(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    train.add_argument(
        "--recipe", default=None, help="built-in recipe name or module:function (default: digits)"
    )
    _add_config_args(train)
    train.add_argument("--run-dir", help="run directory (default: runs/RECIPE-TIMESTAMP)")
    train.add_argument(
        "--resume",
        metavar="auto|PATH",
        help="auto (with --run-dir): resume from the run directory's newest good checkpoint if "
        "it has one, else start fresh — one command line for preemptible jobs; or a "
        "checkpoint file or run directory to start from",
    )
    train.add_argument(
        "--overwrite",
        action="store_true",
        help="replace the run already in --run-dir: its checkpoints and logs are deleted once "
        "this run starts (without it such a directory is refused unless resumed)",
    )
    _add_trust_arg(train)
    train.add_argument("--quiet", action="store_true", help="print nothing but errors")
    train.add_argument(
        "--print-config",
        action="store_true",
        help="print the fully resolved config (recipe defaults, files, --set) as YAML and exit",
    )
    train.add_argument(
        "--profile",
        action="store_true",
        help="record a torch.profiler window (profile.wait/warmup/active steps) into "
        "RUN/profile and print the top operators",
    )
    _add_launch_args(train)
    train.set_defaults(run=cmd_train)

    resume = sub.add_parser("resume", help="continue a run from its newest good checkpoint")
    resume.add_argument("run_dir", help="the run directory to continue")
    resume.add_argument(
        "--set",
        dest="overrides",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override a config value, e.g. train.max_epochs=30",
    )
    _add_trust_arg(resume, recipe=True)
    resume.add_argument("--quiet", action="store_true", help="print nothing but errors")
    _add_launch_args(resume)
    resume.set_defaults(run=cmd_resume)

    evaluate = sub.add_parser(
        "eval", help="evaluate a run's best (or last) checkpoint on its validation data"
    )
    evaluate.add_argument("run_dir", help="the run directory")
    _add_checkpoint_arg(evaluate)
    _add_weights_arg(evaluate)
    evaluate.add_argument(
        "--split", default="val", choices=["val", "test"], help="which of the recipe's data"
    )
    _add_trust_arg(evaluate, recipe=True)
    evaluate.set_defaults(run=runs.cmd_eval)

    export = sub.add_parser(
        "export", help="write a run's model weights (unwrapped) for serving or fine-tuning"
    )
    export.add_argument("run_dir", help="the run directory (or a checkpoint file)")
    export.add_argument(
        "--format",
        dest="fmt",
        default="safetensors",
        choices=["safetensors", "pt", "exported", "onnx"],
        help="safetensors or pt: the weights; exported: the whole model as a torch.export "
        "ExportedProgram (.pt2); onnx: as ONNX (trainwell[onnx]); both rebuilt by the run's "
        "recipe and checked against it on a batch",
    )
    _add_checkpoint_arg(export)
    _add_weights_arg(export)
    export.add_argument(
        "--out",
        help="output file (default: RUN_DIR/export/model-step-N.FORMAT); never a checkpoint",
    )
    _add_trust_arg(export, recipe=True)
    export.set_defaults(run=runs.cmd_export)

    finder = sub.add_parser(
        "lr-find", help="sweep the learning rate on a recipe and suggest one (with a plot)"
    )
    finder.add_argument("--recipe", default=None, help="built-in recipe or module:function")
    finder.add_argument("--config", action="append", default=[], metavar="FILE")
    finder.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE")
    finder.add_argument("--min-lr", type=float, default=1e-7)
    finder.add_argument("--max-lr", type=float, default=10.0)
    finder.add_argument("--steps", type=int, default=100, help="optimizer steps of the sweep")
    finder.add_argument("--out", default="lr_find", help="directory for lr_find.png/.json")
    finder.set_defaults(run=runs.cmd_lr_find)

    plot = sub.add_parser(
        "plot", help="PNGs of runs' loss, metrics, LR, grad norm and throughput (matplotlib)"
    )
    plot.add_argument("run_dirs", nargs="+", metavar="RUN_DIR", help="runs, drawn together")
    plot.add_argument(
        "--out", help="output directory (default: RUN_DIR/plots; ./plots for several)"
    )
    plot.set_defaults(run=runs.cmd_plot)

    explain = sub.add_parser(
        "explain", help="diagnose a finished run: findings with evidence and a --set to try"
    )
    explain.add_argument("run_dir", metavar="RUN_DIR", help="a run directory")
    explain.add_argument(
        "--format", choices=("text", "json"), default="text", help="output format (default text)"
    )
    explain.add_argument(
        "--html", metavar="FILE", help="also write one self-contained page: curves, findings"
    )
    explain.set_defaults(run=runs.cmd_explain)

    compare = sub.add_parser(
        "compare",
        help="runs side by side: the config keys that differ, best and final metrics, findings",
    )
    compare.add_argument("run_dirs", nargs="+", metavar="RUN_DIR", help="two or more runs")
    compare.add_argument("--format", choices=("text", "json"), default="text")
    compare.add_argument(
        "--plot", metavar="FILE", help="also draw the runs' curves on one figure (.png or .svg)"
    )
    compare.set_defaults(run=runs.cmd_compare)

    recipes = sub.add_parser("recipes", help="list the built-in recipes")
    recipes.set_defaults(run=cmd_recipes)

    sub.add_parser("doctor", help="lint training scripts for silent bugs (trainwell doctor --help)")
    return parser


def _version() -> str:
    """The installed distribution's version (importlib.metadata)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("trainwell")
    except PackageNotFoundError:  # imported from a source tree that was never installed
        return "unknown (not installed: pip install -e .)"


def _add_config_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--config",
        action="append",
        default=[],
        metavar="FILE",
        help="YAML or TOML config file (repeatable; later files win)",
    )
    parser.add_argument(
        "--set",
        dest="overrides",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override a config value, e.g. optim.lr=3e-4 (repeatable)",
    )


def _add_launch_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--nproc",
        type=int,
        default=None,
        metavar="N",
        help="train with N processes on this machine (DDP): runs torchrun's own launcher, "
        "torch.distributed.run --standalone --nproc_per_node N; for several machines use "
        "torchrun itself (docs/distributed.md)",
    )
    parser.add_argument(
        "--max-restarts",
        type=int,
        default=0,
        metavar="K",
        help="with --nproc: when a process fails, restart all of them up to K times; each "
        "restart resumes from the run's newest good checkpoint",
    )


def _add_checkpoint_arg(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--checkpoint",
        default=None,
        metavar="best|last|step-N|FILE",
        help="best (default; refused if damaged), last (the newest checkpoint that verifies), "
        "step-N (that step's checkpoint of the run), or a checkpoint file (refused if damaged)",
    )


def _add_weights_arg(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--weights",
        default="auto",
        choices=["auto", "raw", "ema"],
        help="a run with train.ema_decay saves raw weights and their moving average: auto "
        "(the average where there is one: what the run validated), raw or ema",
    )


def _add_trust_arg(parser: argparse.ArgumentParser, *, recipe: bool = False) -> None:
    parser.add_argument(
        "--trust-checkpoint",
        action="store_true",
        help="load a checkpoint that holds pickled Python objects (torch.load with "
        "weights_only=False, a shard directory's metadata with pickle): only for files you "
        "trust, unpickling can run any code",
    )
    if recipe:
        parser.add_argument(
            "--trust-recipe",
            action="store_true",
            help="import the module:function recipe the run directory names even when it is "
            "not in the working directory (from where the run recorded it): it runs its code",
        )
