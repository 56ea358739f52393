"""The ``trainwell`` command: train, resume, eval, recipes, doctor.

User mistakes (bad config, data, shapes, checkpoints) print one clear message and exit 2.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from trainwell.errors import ConfigError, UserError

EXIT_USAGE = 2


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``trainwell`` command; returns the exit code."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "doctor":  # the linter has its own parser and must not import torch
        from trainwell.doctor.cli import main as doctor_main

        return doctor_main(argv[1:])
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse exits 2 on usage errors, 0 on --help
        return int(exc.code or 0)
    if not getattr(args, "command", None):
        parser.print_help()
        return EXIT_USAGE
    try:
        return args.run(args)
    except UserError as exc:
        print(f"trainwell: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("trainwell: interrupted", file=sys.stderr)
        return 130


def _parser() -> argparse.ArgumentParser:
    from trainwell.config import config_help

    parser = argparse.ArgumentParser(
        prog="trainwell", description="Train PyTorch models the right way, fast."
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
    train.add_argument("--resume", help="checkpoint file, run directory, or auto")
    train.add_argument("--quiet", action="store_true", help="print nothing but errors")
    train.set_defaults(run=cmd_train)

    resume = sub.add_parser("resume", help="continue a run from its last checkpoint")
    resume.add_argument("run_dir", help="the run directory to continue")
    resume.add_argument(
        "--set",
        dest="overrides",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override a config value, e.g. train.max_epochs=30",
    )
    resume.add_argument("--quiet", action="store_true", help="print nothing but errors")
    resume.set_defaults(run=cmd_resume)

    evaluate = sub.add_parser(
        "eval", help="evaluate a run's best (or last) checkpoint on its validation data"
    )
    evaluate.add_argument("run_dir", help="the run directory")
    evaluate.add_argument(
        "--checkpoint", default="best", choices=["best", "last"], help="which checkpoint"
    )
    evaluate.set_defaults(run=cmd_eval)

    export = sub.add_parser(
        "export", help="write a run's model weights (unwrapped) for serving or fine-tuning"
    )
    export.add_argument("run_dir", help="the run directory (or a checkpoint file)")
    export.add_argument(
        "--format", dest="fmt", default="safetensors", choices=["safetensors", "pt"]
    )
    export.add_argument(
        "--checkpoint", default="best", choices=["best", "last"], help="which checkpoint"
    )
    export.add_argument("--out", help="output file (default: RUN_DIR/model.<format>)")
    export.set_defaults(run=cmd_export)

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


# --------------------------------------------------------------------------- commands


def cmd_train(args: argparse.Namespace) -> int:
    from trainwell.config import load_config, read_config_file

    recipe_name = args.recipe or _recipe_in_files(args.config, read_config_file) or "digits"
    base, build = _recipe(recipe_name)
    overrides = [*args.overrides, f"run.recipe={recipe_name}"]
    if args.run_dir:
        overrides.append(f"run.dir={args.run_dir}")
    if args.resume:
        overrides.append(f"checkpoint.resume={args.resume}")
    if args.quiet:
        overrides.append("run.quiet=true")
    config = load_config(args.config, overrides, base=base)
    if config.run.dir is None:
        stamp = time.strftime("%Y%m%d-%H%M%S")
        config = config.replace(
            run=dataclasses.replace(config.run, dir=f"runs/{_slug(recipe_name)}-{stamp}")
        )
    return _train(config, build)


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
    base, build = _recipe(recipe_name)
    # Quietness belongs to this invocation, not to the run that is being continued.
    quiet = f"run.quiet={'true' if args.quiet else 'false'}"
    overrides = [*args.overrides, f"run.dir={run_dir}", "checkpoint.resume=auto", quiet]
    config = load_config([config_file], overrides, base=base)
    return _train(config, build)


def cmd_eval(args: argparse.Namespace) -> int:
    from trainwell.checkpoint import load_checkpoint, load_weights
    from trainwell.config import load_config
    from trainwell.loop import evaluate

    run_dir = Path(args.run_dir)
    config_file = run_dir / "config.yaml"
    if not config_file.is_file():
        raise UserError(f"{run_dir} is not a run directory (no config.yaml)")
    recipe_name = (_read_yaml(config_file).get("run") or {}).get("recipe") or "digits"
    base, build = _recipe(recipe_name)
    config = load_config([config_file], base=base)
    job = build(config)
    payload = load_checkpoint(run_dir / "checkpoints" / f"{args.checkpoint}.pt")
    load_weights(job.model, payload["state"]["model"])
    if job.val_data is None:
        raise UserError(f"recipe {recipe_name!r} has no validation data to evaluate on")
    metrics = evaluate(
        job.model,
        job.val_data,
        loss=job.loss,
        metrics=job.metrics,
        device=config.run.device,
        precision=config.train.precision,
    )
    print(
        json.dumps(
            {
                "checkpoint": args.checkpoint,
                "epoch": payload["manifest"]["epoch"],
                **{f"val_{k}": round(v, 6) for k, v in metrics.items()},
            },
            indent=2,
        )
    )
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    from trainwell.checkpoint import export_weights

    source = Path(args.run_dir)
    if source.is_dir():
        chosen = source / "checkpoints" / f"{args.checkpoint}.pt"
        if args.checkpoint == "best" and not chosen.is_file():
            chosen = source / "checkpoints" / "last.pt"  # a run without validation has no best
        out = Path(args.out) if args.out else source / f"model.{args.fmt}"
    else:
        chosen, out = source, Path(args.out or source.with_suffix(f".{args.fmt}"))
    written = export_weights(chosen, out, fmt=args.fmt)
    print(f"wrote {written} ({written.stat().st_size:,} bytes) from {chosen}")
    return 0


def cmd_recipes(args: argparse.Namespace) -> int:
    from trainwell.recipes import BUILTIN, DEFAULT, load_recipe

    for name in BUILTIN:
        mark = " (default)" if name == DEFAULT else ""
        print(f"{name:<10} {load_recipe(name).DESCRIPTION}{mark}")
    return 0


# --------------------------------------------------------------------------- helpers


def _train(config: Any, build: Any) -> int:
    from trainwell.loop import fit
    from trainwell.state import seed_everything

    # Seed before the recipe builds its model: initial weights are part of the run.
    seed_everything(config.run.seed, config.run.deterministic)
    job = build(config)
    result = fit(
        job.model,
        job.train_data,
        job.val_data,
        loss=job.loss,
        config=config,
        metrics=job.metrics,
        step_fn=job.step_fn,
    )
    if result.preempted == "SIGINT":
        return 130  # interrupted, but saved: the conventional code for Ctrl-C
    return 0  # finished, or preempted by SIGTERM after saving


def _recipe(name: str) -> tuple[Any, Any]:
    """(default config, build function) of a built-in recipe or a user's module:function."""
    from trainwell.config import Config
    from trainwell.recipes import load_recipe, load_user_recipe

    if ":" in name:
        if "" not in sys.path and str(Path.cwd()) not in sys.path:
            sys.path.insert(0, str(Path.cwd()))  # so `my_script:build` imports from here
        build = load_user_recipe(name)
        return getattr(build, "config", None) or Config(), build
    module = load_recipe(name)
    return module.CONFIG, module.build


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
