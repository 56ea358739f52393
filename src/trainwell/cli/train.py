"""``trainwell train``, ``resume`` and ``recipes``: load a recipe (built-in or
``module:function``), seed and build its job, run `fit()` (in this process, or as ``--nproc``
processes through torchrun), and exit with the code the run earned."""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from pathlib import Path
from typing import Any

from trainwell.cli.common import (
    _note,
    _one_line,
    _read_yaml,
    _recipe_in_files,
    _run_recipe,
    _trusting,
)
from trainwell.errors import (
    EXIT_GUARD_STOPPED,
    EXIT_INTERRUPTED,
    EXIT_OK,
    ConfigError,
    UserError,
)


def cmd_train(args: argparse.Namespace) -> int:
    from trainwell.strategy.process import launched

    if args.print_config:  # shows what would run; starts no process and no process group
        return _train_command(args)
    if args.nproc is not None and not launched():
        return _launch(args)
    return _in_process_group(args)


def _launch(args: argparse.Namespace) -> int:
    """``--nproc N``: this same command in N processes, started by torchrun's own launcher."""
    from trainwell.strategy.process import launch_local

    if args.nproc < 1:
        raise UserError(f"--nproc {args.nproc} must be >= 1")
    if args.max_restarts < 0:
        raise UserError(f"--max-restarts {args.max_restarts} must be >= 0")
    argv = _without_option(_without_option(args.argv, "--nproc"), "--max-restarts")
    if not args.run_dir:  # every process must write to (and resume from) one directory
        argv += ["--run-dir", str(_new_run_dir(args.recipe or "digits"))]
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


def _in_process_group(
    args: argparse.Namespace, command: Any = None, device: str | None = None
) -> int:
    """Train (``command``: `_train_command`); under torchrun inside the process group
    (started here, destroyed at the end). ``device``: the run's, unless ``--set`` names one."""
    from trainwell.strategy.process import env_rank, process_group

    device = next(
        (o.split("=", 1)[1] for o in args.overrides if o.startswith("run.device=")), device
    )
    with process_group(device):
        if env_rank() != 0:
            args.quiet = True  # rank 0 speaks for the run
        return (command or _train_command)(args)


def _train_command(args: argparse.Namespace) -> int:
    from trainwell.config.tree import load_config, read_config_file
    from trainwell.strategy.process import broadcast_object, env_rank

    recipe_name = args.recipe or _recipe_in_files(args.config, read_config_file) or "digits"
    base, build = _recipe(recipe_name)
    overrides = [*args.overrides, f"run.recipe={recipe_name}"]
    if args.run_dir:
        overrides.append(f"run.dir={args.run_dir}")
    if args.resume:
        overrides.append(f"checkpoint.resume={args.resume}")
    if getattr(args, "overwrite", False):
        overrides.append("run.overwrite=true")
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
        # rank 0 creates a directory of its own, one for all ranks
        run_dir = broadcast_object(str(_new_run_dir(recipe_name)) if env_rank() == 0 else None)
        config = config.replace(run=dataclasses.replace(config.run, dir=run_dir))
    config = _fresh_start_if_nothing_to_resume(config)
    with _trusting(args):
        return _train(config, build, recipe_name, record_recipe=env_rank() == 0)


def cmd_resume(args: argparse.Namespace) -> int:
    """``trainwell resume RUN``: in this process, or as ``--nproc N`` processes like train."""
    from trainwell.strategy.process import launched

    saved, _ = _config_to_resume(Path(args.run_dir))
    if args.nproc is not None and not launched():
        return _launch(args)
    return _in_process_group(args, _resume_command, (saved.get("run") or {}).get("device"))


def _resume_command(args: argparse.Namespace) -> int:
    from trainwell.config.tree import build_config

    run_dir = Path(args.run_dir)
    saved, checkpoint = _config_to_resume(run_dir)
    recipe_name = _run_recipe(run_dir, saved)
    base, build = _recipe(recipe_name, run_dir, trust_recipe=args.trust_recipe)
    if checkpoint is not None:
        _warn_if_config_file_differs(run_dir / "config.yaml", saved, checkpoint, base)
    # Quietness belongs to this invocation, not to the run that is being continued.
    quiet = f"run.quiet={'true' if args.quiet else 'false'}"
    overrides = [*args.overrides, f"run.dir={run_dir}", "checkpoint.resume=auto", quiet]
    config = build_config(saved, overrides, base=base)
    config = _alone_as_single(config, args.overrides, run_dir)
    with _trusting(args):
        return _train(config, build, recipe_name)


def _alone_as_single(config: Any, overrides: list[str], run_dir: Path) -> Any:
    """A run that trained as several processes (``run.strategy`` ddp or fsdp), resumed in one
    process: ``run.strategy=single``, with a note. Its checkpoint loads into one process as is
    (a sharded one is resharded: `trainwell.state.sharded`); ``--set run.strategy=...`` or a
    launcher (``--nproc``, torchrun) keeps the recorded strategy."""
    from trainwell.strategy.process import launched

    recorded = config.run.strategy
    if launched() or recorded not in ("ddp", "fsdp"):
        return config
    if any(o.split("=", 1)[0].strip() == "run.strategy" for o in overrides):
        return config
    if not config.run.quiet:
        _note(
            f"{run_dir} trained with run.strategy={recorded} over several processes; resuming "
            f"it in this one process with run.strategy=single (on N processes: trainwell "
            f"resume {run_dir} --nproc N)"
        )
    return config.replace(run=dataclasses.replace(config.run, strategy="single"))


def _config_to_resume(run_dir: Path) -> tuple[dict[str, Any], Path | None]:
    """The config a resume continues with, and the checkpoint it comes from: the one the
    newest good checkpoint saved (its own, checked copy); ``config.yaml`` for a run that saved
    no checkpoint (the resume then says so)."""
    from trainwell.loop.resume import saved_config

    checkpointed = saved_config(run_dir)
    if checkpointed is not None:
        return checkpointed
    config_file = run_dir / "config.yaml"
    if not config_file.is_file():
        raise UserError(
            f"{run_dir} is not a run directory (no config.yaml, no checkpoint); pass the "
            "directory a run wrote"
        )
    return _read_yaml(config_file), None


def _warn_if_config_file_differs(
    config_file: Path, saved: dict[str, Any], checkpoint: Path, base: Any
) -> None:
    """One warning when ``config.yaml`` (read as a resume read it before: over the recipe's
    defaults) is not the config the checkpoint saved, which the resume uses."""
    import warnings

    from trainwell.config.tree import build_config
    from trainwell.loop.resume import differing_keys
    from trainwell.state.checkpoint import CheckpointWarning

    written = _read_yaml(config_file) if config_file.is_file() else None
    try:
        differ = differing_keys(saved, build_config(written, base=base).to_dict())
    except ConfigError as exc:
        differ = [f"invalid: {exc}"]
    if not differ:
        return
    if written is None:
        what = "is missing"
    elif not written:
        what = "is empty"
    else:
        what = f"disagrees with it ({_listed(differ)})"
    warnings.warn(
        f"resuming with the config saved in {checkpoint}; {config_file} {what} and is not "
        "used (change a value with --set KEY=VALUE)",
        CheckpointWarning,
        stacklevel=2,
    )


def _listed(names: list[str], most: int = 5) -> str:
    more = f" and {len(names) - most} more" if len(names) > most else ""
    return ", ".join(names[:most]) + more


def cmd_recipes(args: argparse.Namespace) -> int:
    from trainwell.recipes.job import BUILTIN, DEFAULT, load_recipe

    for name in BUILTIN:
        mark = " (default)" if name == DEFAULT else ""
        print(f"{name:<10} {load_recipe(name).DESCRIPTION}{mark}")
    return EXIT_OK


def _train(config: Any, build: Any, recipe_name: str, *, record_recipe: bool = False) -> int:
    from trainwell.loop.fit import fit

    job = _seeded_job(build, config, recipe_name)
    observers = list(job.observers)
    if record_recipe and config.run.dir is not None:
        observers.append(_recipe_record(Path(config.run.dir), recipe_name))
    result = fit(
        job.model,
        job.train_data,
        job.val_data,
        loss=job.loss,
        config=config,
        metrics=job.metrics,
        step_fn=job.step_fn,
        val_step_fn=job.val_step_fn,
        train_step=job.train_step,
        observers=observers,
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
    from trainwell.state.rng import seed_everything

    seed_everything(config.run.seed, config.run.deterministic)
    return _build(build, config, recipe_name)


def _build(build: Any, config: Any, recipe_name: str) -> Any:
    from trainwell.recipes.job import check_job

    return check_job(build(config), recipe_name)


def _fresh_start_if_nothing_to_resume(config: Any) -> Any:
    """``checkpoint.resume=auto`` in a run directory without checkpoints: start fresh, in place
    of what an attempt that saved no checkpoint left there (``run.overwrite``).

    A directory with checkpoints none of which verifies is not "nothing": resuming then fails
    with the reasons, rather than starting over on top of them.
    """
    from trainwell.state.checkpoint import list_checkpoints

    if config.checkpoint.resume != "auto":
        return config
    directory = Path(config.run.dir) / "checkpoints"
    if list_checkpoints(directory):
        return config
    if not config.run.quiet:
        _note(f"no checkpoint in {directory} yet: starting fresh")
    return config.replace(
        checkpoint=dataclasses.replace(config.checkpoint, resume=None),
        run=dataclasses.replace(config.run, overwrite=True),
    )


def _new_run_dir(recipe_name: str) -> Path:
    """A new default run directory, ``runs/<recipe>-<time>`` (``-2``... when taken)."""
    from trainwell.state.rundir import new_run_dir

    return new_run_dir("runs", f"{_slug(recipe_name)}-{time.strftime('%Y%m%d-%H%M%S')}")


def _recipe(
    name: str, run_dir: Path | None = None, *, trust_recipe: bool = False
) -> tuple[Any, Any]:
    """(default config, build function) of a built-in recipe or a user's module:function.

    A ``module:function`` is imported from the working directory. One that a run directory
    names (``run_dir``: its ``config.yaml`` and ``recipe.json``) is code from data: it is
    imported only from the working directory, or — with ``trust_recipe`` (``--trust-recipe``)
    — from where the run recorded it came from.
    """
    from trainwell.config.sections import Config
    from trainwell.recipes.job import load_recipe, load_user_recipe

    if ":" not in name:
        module = load_recipe(name)
        return module.CONFIG, module.build
    if "" not in sys.path and str(Path.cwd()) not in sys.path:
        sys.path.insert(0, str(Path.cwd()))  # so `my_script:build` imports from here
    origin = _recorded_recipe(run_dir) if run_dir is not None else None
    if run_dir is not None and not trust_recipe:
        _refuse_unless_here(name, origin, run_dir)
    elif (
        origin and Path(origin.get("sys_path", "")).is_dir() and origin["sys_path"] not in sys.path
    ):
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


def _refuse_unless_here(name: str, origin: dict[str, str] | None, run_dir: Path) -> None:
    """`ConfigError` unless recipe ``name``, named by run directory ``run_dir``, is a module in
    the working directory: importing it from anywhere else would run code the run directory
    chose, without the user's consent."""
    module = name.partition(":")[0]
    here = Path.cwd().resolve()
    as_file = here.joinpath(*module.split("."))
    if as_file.with_suffix(".py").is_file() or (as_file / "__init__.py").is_file():
        return  # the user runs from the directory that holds it: their own code
    where = (origin or {}).get("file") or f"module {module!r} on sys.path"
    raise ConfigError(
        f"{run_dir} names the recipe {name!r} ({where}), which is code, not in the working "
        f"directory {here}; a run directory is data, so trainwell imports no code it names: run "
        "from the directory that holds the module, or pass --trust-recipe to import it"
    )


def _recipe_record(run_dir: Path, recipe_name: str) -> Any:
    """An observer that records the recipe (`_record_recipe`) when the run starts, not
    before: a run that fails to start writes nothing into its directory."""
    from trainwell.observe.base import Observer

    class RecipeRecord(Observer):
        def on_fit_start(self, info: Any) -> None:
            _record_recipe(run_dir, recipe_name)

    return RecipeRecord()


def _record_recipe(run_dir: Path, recipe_name: str) -> None:
    """Write ``recipe.json``: where a ``module:function`` recipe was imported from."""
    from trainwell.recipes.job import RECIPE_FILE, recipe_origin
    from trainwell.state.atomic import write_text_atomic

    origin = recipe_origin(recipe_name)
    if origin is None:
        return
    run_dir.mkdir(parents=True, exist_ok=True)
    write_text_atomic(json.dumps(origin, indent=2) + "\n", run_dir / RECIPE_FILE)


def _recorded_recipe(run_dir: Path) -> dict[str, str] | None:
    from trainwell.recipes.job import RECIPE_FILE

    try:
        origin = json.loads((run_dir / RECIPE_FILE).read_text())
    except (OSError, ValueError):
        return None
    return origin if isinstance(origin, dict) else None


def _slug(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "-" for c in name)
