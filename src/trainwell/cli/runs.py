"""The commands that read a finished (or running) run directory: ``eval``, ``export``,
``plot``, and ``lr-find``, which reads a recipe. ``trainwell.cli`` parses and dispatches."""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from trainwell.cli.common import _note, _read_yaml, _recipe_in_files, _run_recipe, _trusting
from trainwell.cli.train import _build, _recipe, _seeded_job
from trainwell.errors import EXIT_OK, UserError, WriteFailedError


def cmd_eval(args: argparse.Namespace) -> int:
    from trainwell.step.evaluation import evaluate

    loaded = _load_run_model(args)
    job = loaded.job
    data = job.val_data if args.split == "val" else job.test_data
    if data is None:
        raise UserError(
            f"recipe {loaded.recipe!r} has no {args.split} data to evaluate on"
            + ("; try --split val" if args.split == "test" else "")
        )
    sets = data if isinstance(data, Mapping) else {None: data}  # several named sets, or one
    metrics = {}
    for name, one_set in sets.items():
        values = evaluate(
            job.model,
            one_set,
            loss=job.loss,
            metrics=job.metrics,
            step_fn=job.val_step_fn,  # what fit() validated with: the same numbers
            device=loaded.config.run.device,
            precision=loaded.config.train.precision,
            weight_by=loaded.config.train.weight_by,
        )
        # fit()'s names: val_loss, or val_<set>_loss with several sets
        metrics.update({(k if name is None else f"{name}_{k}"): v for k, v in values.items()})
    print(
        json.dumps(
            {
                "checkpoint": args.checkpoint or "best",
                "weights": loaded.weights,
                "split": args.split,
                "file": str(loaded.checkpoint),
                "epoch": loaded.epoch,
                **{f"{args.split}_{k}": round(v, 6) for k, v in metrics.items()},
            },
            indent=2,
        )
    )
    return EXIT_OK


@dataclasses.dataclass
class _RunModel:
    """A run's model rebuilt by its recipe with a checkpoint's weights in it."""

    job: Any
    config: Any
    recipe: str
    checkpoint: Path
    weights: str  # "ema" or "raw"
    epoch: int | None


def _load_run_model(args: argparse.Namespace) -> _RunModel:
    """The model of run ``args.run_dir`` with the weights of ``args.checkpoint`` (raw or their
    moving average, ``args.weights``), built by the run's own recipe."""
    from trainwell.config.tree import load_config
    from trainwell.state.checkpoint import load_checkpoint
    from trainwell.state.sharded import MARKER, consolidated_model, is_marker
    from trainwell.state.weights import load_weights

    run_dir = Path(args.run_dir)
    config_file = run_dir / "config.yaml"
    if not config_file.is_file():
        raise UserError(f"{run_dir} is not a run directory (no config.yaml)")
    recipe_name = _run_recipe(run_dir, _read_yaml(config_file))
    base, build = _recipe(recipe_name, run_dir, trust_recipe=args.trust_recipe)
    config = load_config([config_file], base=base)
    which = args.checkpoint or "best"
    chosen = _choose_checkpoint(run_dir, which, config.monitor.metric, config.monitor.mode)
    with _trusting(args):
        payload = load_checkpoint(chosen)
    state = payload["state"]
    if "model" not in state:
        raise UserError(f"{chosen} holds no model weights (its state has {sorted(state)})")
    if args.weights == "ema" and "ema" not in state:
        raise UserError(f"{chosen} holds no moving average of the weights; use --weights raw")
    averaged = args.weights != "raw" and "ema" in state
    job = _build(build, config, recipe_name)
    weights = state["ema"]["weights"] if averaged else state["model"]
    if is_marker(weights):  # a sharded (FSDP) checkpoint: its shards gathered
        with _trusting(args):  # its metadata is a pickle too
            weights = consolidated_model(Path(weights[MARKER]))  # pinned by load_checkpoint
    load_weights(job.model, weights)
    epoch = payload["manifest"].get("epoch")
    return _RunModel(job, config, recipe_name, chosen, "ema" if averaged else "raw", epoch)


def cmd_export(args: argparse.Namespace) -> int:
    from trainwell.state.weights import export_weights

    source = Path(args.run_dir)
    if source.is_dir():
        saved = _read_yaml(source / "config.yaml") if (source / "config.yaml").is_file() else {}
        monitor = saved.get("monitor") or {}
        chosen = _choose_checkpoint(
            source,
            args.checkpoint or "best",
            monitor.get("metric", "val_loss"),
            monitor.get("mode", "min"),
        )
        run_dir = source
    else:
        if args.checkpoint is not None:
            raise UserError(
                f"--checkpoint picks a checkpoint of a run directory; {source} is a file already"
            )
        if not source.is_file():
            raise UserError(f"{source} does not exist; pass a run directory or a checkpoint file")
        chosen = source
        run_dir = source.parent.parent if source.parent.name == "checkpoints" else source.parent
    out = (
        Path(args.out)
        if args.out
        else run_dir / "export" / f"model-{_step_name(chosen)}.{args.fmt}"
    )
    if args.fmt in ("exported", "onnx"):
        return _export_program(args, run_dir, chosen, out)
    with _trusting(args):
        written = export_weights(chosen, out, fmt=args.fmt, which=args.weights)
    print(f"wrote {written} ({written.stat().st_size:,} bytes) from {chosen}")
    return EXIT_OK


def _export_program(args: argparse.Namespace, run_dir: Path, chosen: Path, out: Path) -> int:
    from trainwell.state.export import example_batch, export_onnx, export_program

    if not (run_dir / "config.yaml").is_file():
        raise UserError(
            f"--format {args.fmt} rebuilds the model with the run's recipe: pass the run directory"
        )
    args.run_dir, args.checkpoint = str(run_dir), str(chosen)
    loaded = _load_run_model(args)
    example = example_batch(loaded.job)
    if args.fmt == "onnx":
        written, difference = export_onnx(loaded.job.model, example, out.with_suffix(".onnx"))
    else:
        written, difference = export_program(loaded.job.model, example, out.with_suffix(".pt2"))
    print(
        f"wrote {written} ({written.stat().st_size:,} bytes) from {chosen} ({loaded.weights} "
        f"weights); checked: max |exported - eager| = {difference:.3g} on a batch of "
        f"{len(example)}"
    )
    return EXIT_OK


def cmd_lr_find(args: argparse.Namespace) -> int:
    from trainwell.config.tree import load_config, read_config_file
    from trainwell.loop.lr_find import lr_find, plot_sweep
    from trainwell.observe.plots import matplotlib_available
    from trainwell.state.atomic import write_text_atomic

    recipe_name = args.recipe or _recipe_in_files(args.config, read_config_file) or "digits"
    base, build = _recipe(recipe_name)
    config = load_config(args.config, [*args.overrides, f"run.recipe={recipe_name}"], base=base)
    out = Path(args.out)
    _writable_directory(out)  # before the sweep: a directory it cannot write wastes none
    job = _seeded_job(build, config, recipe_name)
    result = lr_find(
        job.model,
        job.train_data,
        loss=job.loss,
        config=config,
        step_fn=job.step_fn,
        train_step=job.train_step,  # a recipe's own step (the GAN's): all its optimizers
        min_lr=args.min_lr,
        max_lr=args.max_lr,
        num_steps=args.steps,
    )
    print(result.describe())  # first: a disk that fills up now does not lose the suggestion
    if result.suggestion is not None:
        print(_use_it(recipe_name, config, job, result.suggestion))
    record = {k: getattr(result, k) for k in ("suggestion", "min_loss_lr", "rule", "lrs", "losses")}
    write_text_atomic(json.dumps(record, indent=1) + "\n", out / "lr_find.json")
    if matplotlib_available():
        result.plot = plot_sweep(result, out / "lr_find.png")
    print(f"sweep in {out / 'lr_find.json'}" + (f", plot {result.plot}" if result.plot else ""))
    return EXIT_OK


def _writable_directory(directory: Path) -> None:
    """Make ``directory``, or raise `WriteFailedError` (exit 4) naming it and why not."""
    try:
        directory.mkdir(parents=True, exist_ok=True)
        if not os.access(directory, os.W_OK):
            raise PermissionError(13, "Permission denied")
    except OSError as exc:
        raise WriteFailedError(
            f"cannot write into {directory}: {exc.strerror or exc}; pass --out a directory "
            "you can write to"
        ) from None


def _use_it(recipe_name: str, config: Any, job: Any, lr: float) -> str:
    """The command line that trains with the suggested LR: ``optim.lr``, or for a recipe whose
    own step builds its optimizers, its ``model.lr`` when it has one."""
    if job.train_step is None:
        key = "optim.lr"
    elif "lr" in {f.name for f in dataclasses.fields(config.model)}:
        key = "model.lr"
    else:
        return f"use it: as the LR of the optimizers recipe {recipe_name}'s TrainStep builds"
    return f"use it: trainwell train --recipe {recipe_name} --set {key}={lr:.3g}"


def cmd_plot(args: argparse.Namespace) -> int:
    from trainwell.observe.plots import plot_runs

    default = Path(args.run_dirs[0]) / "plots" if len(args.run_dirs) == 1 else Path("plots")
    for path in plot_runs(args.run_dirs, Path(args.out) if args.out else default, _skipped):
        print(path)
    return EXIT_OK


def cmd_compare(args: argparse.Namespace) -> int:
    from trainwell.observe.compare import compare_runs, plot_comparison

    comparison = compare_runs(args.run_dirs, findings_of=_explained)
    if args.format == "json":
        print(json.dumps(comparison.as_dict(), indent=2, default=str))
    else:
        print(comparison.describe())
    if args.plot:
        written = plot_comparison(comparison, Path(args.plot))
        if args.format == "text":
            print(f"\ncurves: {written}")
    return EXIT_OK


def _explained(run_dir: Path, summary: Mapping[str, Any]) -> list[tuple[str, str]]:
    """``trainwell explain``'s findings of a run (code, severity): what compare lines up."""
    from trainwell.observe.explain import explain, read_run

    del summary  # read_run reads it again, with the run's records
    run = read_run(run_dir, _read_yaml(run_dir / "config.yaml") or {})
    return [(finding.code, finding.severity) for finding in explain(run)]


def _skipped(path: Path, count: int) -> None:
    """One warning per metrics.jsonl with unreadable lines (the readable ones are plotted)."""
    lines = "line" if count == 1 else "lines"
    print(
        f"trainwell: warning: skipped {count} unreadable {lines} of {path} (binary, or cut "
        "short by a crash); plotted the rest",
        file=sys.stderr,
    )


def _choose_checkpoint(run_dir: Path, which: str, monitor: str, mode: str) -> Path:
    """`trainwell.state.checkpoint.choose_checkpoint`, with its notes printed as notes."""
    from trainwell.state.checkpoint import choose_checkpoint

    return choose_checkpoint(run_dir, which, monitor, mode, note=_note)


def _step_name(checkpoint: Path) -> str:
    """``step-N`` for a step file or a link to one (``last.pt``/``best.pt``), else its stem."""

    from trainwell.state.checkpoint import PREFIX, list_checkpoints

    if checkpoint.name.startswith(PREFIX):
        return checkpoint.stem
    with contextlib.suppress(OSError):
        for step in list_checkpoints(checkpoint.parent):
            if os.path.samefile(step, checkpoint):
                return step.stem
    return checkpoint.stem


def cmd_explain(args: argparse.Namespace) -> int:
    """``trainwell explain RUN``: the run's findings, most important first (text or JSON)."""
    from trainwell.observe.explain import explain, format_text, read_run

    run_dir = Path(args.run_dir)
    config_file = run_dir / "config.yaml"
    if not config_file.is_file() or not (run_dir / "metrics.jsonl").is_file():
        raise UserError(
            f"{run_dir} is not a run directory (no config.yaml and metrics.jsonl); pass the "
            "directory trainwell train wrote (its --run-dir)"
        )
    run = read_run(run_dir, _read_yaml(config_file) or {})
    findings = explain(run)
    if args.format == "json":
        body = {"run": str(run_dir), "findings": [f.as_dict() for f in findings]}
        print(json.dumps(body, indent=2))
    else:
        print(format_text(run, findings))
    if args.html:
        _write_explain_html(run, findings, Path(args.html))
    return EXIT_OK


def _write_explain_html(run: Any, findings: Any, path: Path) -> None:
    """The self-contained page of ``--html FILE``; a directory that cannot be written is exit 4."""
    from trainwell.observe.explain_html import write_html

    _writable_directory(path.parent if str(path.parent) else Path("."))
    print(f"page: {write_html(run, findings, path)}", file=sys.stderr)
