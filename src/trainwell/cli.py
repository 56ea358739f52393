"""The ``trainwell`` command: train, resume, eval, export, recipes, doctor.

Exit codes (`trainwell.errors`, docs/cli.md): 0 finished (or preempted by SIGTERM after
saving); 2 a user mistake — config, data, shapes, checkpoints — printed as one line, no
traceback; 3 a runtime guard stopped the run; 4 a checkpoint or export could not be written
(disk full, permissions); 130 Ctrl-C, after saving.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import os
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from trainwell.errors import (
    EXIT_GUARD_STOPPED,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_USAGE,
    ConfigError,
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
        with _checkpoint_warnings_as_notes():
            return args.run(args)
    except UserError as exc:
        print(f"trainwell: error: {_one_line(str(exc))}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("trainwell: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


def _parser() -> argparse.ArgumentParser:
    from trainwell import cli_runs as runs  # imports this module's helpers: loaded here
    from trainwell.config import config_help

    parser = argparse.ArgumentParser(
        prog="trainwell",
        description="Train PyTorch models the right way, fast.",
        epilog="exit codes: 0 done, 2 user mistake, 3 stopped by a runtime guard, "
        "4 a file could not be written, 130 interrupted (after saving)",
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
    train.add_argument(
        "--nproc",
        type=int,
        default=None,
        metavar="N",
        help="train with N processes on this machine (DDP): runs torchrun's own launcher, "
        "torch.distributed.run --standalone --nproc_per_node N; for several machines use "
        "torchrun itself (docs/distributed.md)",
    )
    train.add_argument(
        "--max-restarts",
        type=int,
        default=0,
        metavar="K",
        help="with --nproc: when a process fails, restart all of them up to K times; each "
        "restart resumes from the run's newest good checkpoint",
    )
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
    _add_trust_arg(resume)
    resume.add_argument("--quiet", action="store_true", help="print nothing but errors")
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
    _add_trust_arg(evaluate)
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
    _add_trust_arg(export)
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

    recipes = sub.add_parser("recipes", help="list the built-in recipes")
    recipes.set_defaults(run=cmd_recipes)

    sub.add_parser("doctor", help="lint training scripts for silent bugs (trainwell doctor --help)")
    return parser


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


def _add_trust_arg(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--trust-checkpoint",
        action="store_true",
        help="load a checkpoint that holds pickled Python objects (torch.load with "
        "weights_only=False): only for files you trust, unpickling can run any code",
    )


# --------------------------------------------------------------------------- commands


def cmd_train(args: argparse.Namespace) -> int:
    from trainwell.distributed import launched

    if args.print_config:  # shows what would run; starts no process and no process group
        return _train_command(args)
    if args.nproc is not None and not launched():
        return _launch(args)
    return _in_process_group(args)


def _launch(args: argparse.Namespace) -> int:
    """``--nproc N``: this same command in N processes, started by torchrun's own launcher."""
    from trainwell.distributed import launch_local

    if args.nproc < 1:
        raise UserError(f"--nproc {args.nproc} must be >= 1")
    if args.max_restarts < 0:
        raise UserError(f"--max-restarts {args.max_restarts} must be >= 0")
    argv = _without_option(_without_option(args.argv, "--nproc"), "--max-restarts")
    if not args.run_dir:  # every process must write to (and resume from) one directory
        recipe = args.recipe or "digits"
        argv += ["--run-dir", f"runs/{_slug(recipe)}-{time.strftime('%Y%m%d-%H%M%S')}"]
    return launch_local(args.nproc, ["-m", "trainwell", *argv], max_restarts=args.max_restarts)


def _without_option(argv: list[str], name: str) -> list[str]:
    out, skip = [], False
    for item in argv:
        if skip:
            skip = False
        elif item == name:
            skip = True
        elif not item.startswith(f"{name}="):
            out.append(item)
    return out


def _in_process_group(args: argparse.Namespace) -> int:
    """Train; under torchrun inside the process group (started here, destroyed at the end)."""
    from trainwell.distributed import env_rank, process_group

    device = next((o.split("=", 1)[1] for o in args.overrides if o.startswith("run.device=")), None)
    with process_group(device):
        if env_rank() != 0:
            args.quiet = True  # rank 0 speaks for the run
        return _train_command(args)


def _train_command(args: argparse.Namespace) -> int:
    from trainwell.config import load_config, read_config_file
    from trainwell.distributed import broadcast_object, env_rank

    recipe_name = args.recipe or _recipe_in_files(args.config, read_config_file) or "digits"
    base, build = _recipe(recipe_name)
    overrides = [*args.overrides, f"run.recipe={recipe_name}"]
    if args.run_dir:
        overrides.append(f"run.dir={args.run_dir}")
    if args.resume:
        overrides.append(f"checkpoint.resume={args.resume}")
    if args.quiet:
        overrides.append("run.quiet=true")
    if getattr(args, "profile", False):
        overrides.append("profile.enabled=true")
    config = load_config(args.config, overrides, base=base)
    if getattr(args, "print_config", False):
        import yaml

        print(yaml.safe_dump(config.to_dict(), sort_keys=False), end="")
        return EXIT_OK
    if config.run.dir is None:
        if config.checkpoint.resume == "auto":
            raise UserError(
                "--resume auto needs --run-dir DIR: the directory the job writes its checkpoints "
                "to and resumes from when it is started again"
            )
        stamp = broadcast_object(time.strftime("%Y%m%d-%H%M%S"))  # one directory for all ranks
        config = config.replace(
            run=dataclasses.replace(config.run, dir=f"runs/{_slug(recipe_name)}-{stamp}")
        )
    config = _fresh_start_if_nothing_to_resume(config)
    if env_rank() == 0:
        _record_recipe(Path(config.run.dir), recipe_name)
    with _trusting(args):
        return _train(config, build, recipe_name)


def cmd_resume(args: argparse.Namespace) -> int:
    from trainwell.config import load_config

    run_dir = Path(args.run_dir)
    config_file = run_dir / "config.yaml"
    if not config_file.is_file():
        raise UserError(
            f"{run_dir} is not a run directory (no config.yaml); pass the directory a run wrote"
        )
    saved = _read_yaml(config_file)
    recipe_name = (saved.get("run") or {}).get("recipe") or "digits"
    base, build = _recipe(recipe_name, run_dir)
    # Quietness belongs to this invocation, not to the run that is being continued.
    quiet = f"run.quiet={'true' if args.quiet else 'false'}"
    overrides = [*args.overrides, f"run.dir={run_dir}", "checkpoint.resume=auto", quiet]
    config = load_config([config_file], overrides, base=base)
    with _trusting(args):
        return _train(config, build, recipe_name)


def cmd_recipes(args: argparse.Namespace) -> int:
    from trainwell.recipes import BUILTIN, DEFAULT, load_recipe

    for name in BUILTIN:
        mark = " (default)" if name == DEFAULT else ""
        print(f"{name:<10} {load_recipe(name).DESCRIPTION}{mark}")
    return EXIT_OK


# --------------------------------------------------------------------------- helpers


def _train(config: Any, build: Any, recipe_name: str) -> int:
    from trainwell.loop import fit

    job = _seeded_job(build, config, recipe_name)
    result = fit(
        job.model,
        job.train_data,
        job.val_data,
        loss=job.loss,
        config=config,
        metrics=job.metrics,
        step_fn=job.step_fn,
        train_step=job.train_step,
        observers=job.observers,
    )
    if result.preempted == "SIGINT":
        return EXIT_INTERRUPTED  # interrupted, but saved: the conventional code for Ctrl-C
    if not result.ok:
        saved = (
            f"; checkpoints are in {Path(config.run.dir) / 'checkpoints'}" if result.saves else ""
        )
        print(
            f"trainwell: error: a runtime guard stopped the run: "
            f"{_one_line(str(result.stopped_by_guard))}{saved} (see docs/guards.md)",
            file=sys.stderr,
        )
        return EXIT_GUARD_STOPPED
    return EXIT_OK  # finished, or preempted by SIGTERM after saving


def _seeded_job(build: Any, config: Any, recipe_name: str) -> Any:
    """The recipe's job, built after seeding: its initial weights are part of the run."""
    from trainwell.state import seed_everything

    seed_everything(config.run.seed, config.run.deterministic)
    return _build(build, config, recipe_name)


def _build(build: Any, config: Any, recipe_name: str) -> Any:
    from trainwell.recipes import check_job

    return check_job(build(config), recipe_name)


def _fresh_start_if_nothing_to_resume(config: Any) -> Any:
    """``checkpoint.resume=auto`` in a run directory without checkpoints: start fresh.

    A directory with checkpoints none of which verifies is not "nothing": resuming then fails
    with the reasons, rather than starting over on top of them.
    """
    from trainwell.checkpoint import list_checkpoints

    if config.checkpoint.resume != "auto":
        return config
    directory = Path(config.run.dir) / "checkpoints"
    if list_checkpoints(directory):
        return config
    if not config.run.quiet:
        _note(f"no checkpoint in {directory} yet: starting fresh")
    return config.replace(checkpoint=dataclasses.replace(config.checkpoint, resume=None))


def _recipe(name: str, run_dir: Path | None = None) -> tuple[Any, Any]:
    """(default config, build function) of a built-in recipe or a user's module:function.

    A ``module:function`` is imported from the working directory, or — for a run that recorded
    where its recipe came from (``recipe.json``) — from there first.
    """
    from trainwell.config import Config
    from trainwell.recipes import load_recipe, load_user_recipe

    if ":" not in name:
        module = load_recipe(name)
        return module.CONFIG, module.build
    if "" not in sys.path and str(Path.cwd()) not in sys.path:
        sys.path.insert(0, str(Path.cwd()))  # so `my_script:build` imports from here
    origin = _recorded_recipe(run_dir) if run_dir is not None else None
    if origin and Path(origin.get("sys_path", "")).is_dir() and origin["sys_path"] not in sys.path:
        sys.path.insert(0, origin["sys_path"])
    try:
        build = load_user_recipe(name)
    except ConfigError as exc:
        if origin and not Path(origin.get("file", "")).is_file():
            raise ConfigError(
                f"{exc}; the run was trained with {origin.get('file')}, which is gone: put the "
                "module on PYTHONPATH or run from the directory that holds it"
            ) from None
        raise
    return getattr(build, "config", None) or Config(), build


def _record_recipe(run_dir: Path, recipe_name: str) -> None:
    """Write ``recipe.json``: where a ``module:function`` recipe was imported from."""
    from trainwell.atomic import write_text_atomic
    from trainwell.recipes import RECIPE_FILE, recipe_origin

    origin = recipe_origin(recipe_name)
    if origin is None:
        return
    run_dir.mkdir(parents=True, exist_ok=True)
    write_text_atomic(json.dumps(origin, indent=2) + "\n", run_dir / RECIPE_FILE)


def _recorded_recipe(run_dir: Path) -> dict[str, str] | None:
    from trainwell.recipes import RECIPE_FILE

    try:
        origin = json.loads((run_dir / RECIPE_FILE).read_text())
    except (OSError, ValueError):
        return None
    return origin if isinstance(origin, dict) else None


@contextlib.contextmanager
def _trusting(args: argparse.Namespace) -> Iterator[None]:
    from trainwell.checkpoint import trusting_checkpoints

    with trusting_checkpoints(bool(getattr(args, "trust_checkpoint", False))):
        yield


@contextlib.contextmanager
def _checkpoint_warnings_as_notes() -> Iterator[None]:
    """Warnings about checkpoints (a damaged one skipped) as one ``trainwell: warning:`` line."""
    import warnings

    from trainwell.checkpoint import CheckpointWarning

    shown = warnings.showwarning

    def show(message: Any, category: Any, filename: str, lineno: int, *rest: Any) -> None:
        if issubclass(category, CheckpointWarning):
            print(f"trainwell: warning: {_one_line(str(message))}", file=sys.stderr)
        else:
            shown(message, category, filename, lineno, *rest)

    with warnings.catch_warnings():
        warnings.showwarning = show
        yield


def _note(message: str) -> None:
    print(f"trainwell: note: {_one_line(message)}", file=sys.stderr)


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _recipe_in_files(paths: list[str], read: Any) -> str | None:
    for path in reversed(paths):
        recipe = (read(path).get("run") or {}).get("recipe")
        if recipe:
            return recipe
    return None


def _read_yaml(path: Path) -> dict[str, Any]:
    import yaml

    try:
        return yaml.safe_load(path.read_text()) or {}
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path} does not parse: {exc}") from None


def _slug(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "-" for c in name)
