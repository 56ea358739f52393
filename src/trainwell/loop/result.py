"""What `fit()` returns: `FitResult`, the run's history, best metric, checkpoints, stop
reason, guard findings and throughput, with the summary written to ``summary.json`` and the
lines (and next commands) printed at the end of a run."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from trainwell.loop.stops import TIME_UP
from trainwell.parts.compile import CompileReport
from trainwell.parts.flops import describe_throughput


@dataclass
class FitResult:
    """What a run did: per-epoch history, the best metric and where its checkpoint is."""

    history: list[dict[str, Any]]
    monitor: str
    best: float | None
    best_epoch: int | None
    best_step: int | None
    best_checkpoint: Path | None
    last_checkpoint: Path | None
    steps: int
    epochs: int
    wall_time_s: float
    stop_reason: str
    run_dir: Path | None
    final: dict[str, Any] = field(default_factory=dict)
    preempted: str | None = None  # the signal that stopped the run (SIGTERM, SIGINT), if any
    saves: list[Any] = field(default_factory=list)  # one SaveRecord per checkpoint written
    findings: list[Any] = field(default_factory=list)  # what the runtime guards found
    stopped_by_guard: str | None = None  # why a runtime guard stopped the run, if one did
    weights: str = "last"  # which weights the model holds now: "last" or "best (... epoch N)"
    compile: CompileReport | None = None  # train.compile: compile time, graph breaks, recompiles
    throughput: dict[str, Any] = field(default_factory=dict)  # samples/s, tokens/s, MFU
    kernels: dict[str, Any] = field(default_factory=dict)  # TF32 / cuDNN autotuning chosen
    recipe: str | None = None  # run.recipe: set by the CLI, which can rebuild the run from it
    world_size: int = 1  # processes that trained it: a resume hint launches as many

    @property
    def ok(self) -> bool:
        """False when a runtime guard stopped the run (the CLI then exits with code 3)."""
        return self.stopped_by_guard is None

    def summary(self) -> dict[str, Any]:
        """A JSON-ready summary (written to ``summary.json`` in the run directory)."""
        return {
            "monitor": self.monitor,
            "best": self.best,
            "best_epoch": self.best_epoch,
            "best_step": self.best_step,
            "best_checkpoint": str(self.best_checkpoint) if self.best_checkpoint else None,
            "last_checkpoint": str(self.last_checkpoint) if self.last_checkpoint else None,
            "final": self.final,
            "steps": self.steps,
            "epochs": self.epochs,
            "wall_time_s": round(self.wall_time_s, 3),
            "stop_reason": self.stop_reason,
            "stopped_by_guard": self.stopped_by_guard,
            "preempted": self.preempted,
            "weights": self.weights,
            "checkpoint_saves": len(self.saves),
            "checkpoint_blocked_s_max": round(
                max((s.blocked_s for s in self.saves), default=0.0), 4
            ),
            "checkpoint_write_s_max": round(max((s.write_s for s in self.saves), default=0.0), 4),
            # the share of the run spent saving (trainwell explain's checkpoint-bound reads it)
            "checkpoint_blocked_s_total": round(sum(s.blocked_s for s in self.saves), 4),
            "checkpoint_write_s_total": round(sum(s.write_s for s in self.saves), 4),
            "guard_findings": [f.as_dict() for f in self.findings],
            **({"compile": self.compile.as_dict()} if self.compile else {}),
            "throughput": self.throughput,
            "kernels": self.kernels,
        }

    def describe(self) -> str:
        """A few lines a person can read at the end of a run."""
        lines = [
            f"done: {self.epochs} epochs, {self.steps} steps in {self.wall_time_s:.1f}s ({self.stop_reason})"
        ]
        if self.best is not None:
            lines.append(
                f"best {self.monitor} {self.best:.4g} at epoch {self.best_epoch} (step {self.best_step})"
            )
        elif self.monitor and any(self.monitor in r for r in self.history):
            lines.append(f"no best {self.monitor}: it was never a finite number")
        elif self.monitor and self.history:  # e.g. no validation data
            lines.append(f"no best {self.monitor}: the run never measured it")
        final = {k: v for k, v in self.final.items() if k.startswith(("val_", "train_"))}
        if final:
            shown = "  ".join(f"{k} {v:.4g}" for k, v in final.items() if isinstance(v, float))
            lines.append(f"final: {shown}")
        lines.append(f"weights left in the model: {self.weights}")
        if self.best_checkpoint:
            lines.append(f"best checkpoint: {self.best_checkpoint}")
        if self.stopped_by_guard:
            lines.append(f"FAILED: a runtime guard stopped the run: {self.stopped_by_guard}")
        if self.throughput:
            lines.append(describe_throughput(self.throughput))
        if self.compile:
            lines.append(self.compile.describe())
        if self.saves:
            newest = self.saves[-1]
            lines.append(
                f"saved step {newest.step} to {newest.path} (loop blocked {newest.blocked_s:.2f}s, "
                f"write {newest.write_s:.2f}s)"
            )
            lines.append(_describe_saving(self.saves, self.wall_time_s))
        if self.run_dir:
            lines.append(f"run directory: {self.run_dir}")
            plots = Path(self.run_dir) / "plots"
            if plots.is_dir():
                lines.append(f"plots: {plots}")
            if self.saves:
                lines += next_commands(self)
        return "\n".join(lines)


def next_commands(result: FitResult) -> list[str]:
    """What a person types next for this run: ``trainwell`` commands when the run has a recipe
    the CLI can rebuild (``run.recipe``), else the Python calls; each one works as printed."""
    run_dir = result.run_dir
    # mid-run (a signal, a guard, train.max_time): resume it as it was
    stopped = bool(result.preempted or result.stopped_by_guard) or result.stop_reason.startswith(
        TIME_UP
    )
    if result.recipe is None:
        return _python_next(run_dir, result, stopped)
    resume = f"trainwell resume {run_dir}"
    if result.world_size > 1:
        resume += f" --nproc {result.world_size}"  # as many processes as trained it
    if stopped:
        first = [f"resume with: {resume}", "next:"]
    else:
        first = ["next:", f"  {resume} --set {_longer(result)}   # train longer"]
    return [
        *first,
        f"  trainwell eval {run_dir}              # the best checkpoint on the validation data",
        *_file_commands(run_dir),
    ]


def _longer(result: FitResult) -> str:
    """The override that lets the run go on: the limit it reached, doubled. A run stopped by
    ``train.max_steps`` (perhaps mid-epoch, with no whole epoch done) needs more steps; more
    epochs would change nothing."""
    if result.stop_reason.startswith("reached train.max_steps"):
        return f"train.max_steps={2 * result.steps}"
    return f"train.max_epochs={max(2 * result.epochs, result.epochs + 1)}"


def _python_next(run_dir: Path | None, result: FitResult, stopped: bool) -> list[str]:
    """The Python calls for a run `fit()` was called on directly: the CLI has no recipe to
    rebuild its model and data, so ``trainwell resume/eval`` would not work."""
    overrides = ["checkpoint.resume=auto"] + ([] if stopped else [_longer(result)])
    config = f'tw.load_config(["{Path(run_dir) / "config.yaml"}"], {overrides!r})'.replace("'", '"')
    best = result.best_checkpoint or result.last_checkpoint
    why = "resume it" if stopped else "train longer"
    lines = [
        "next (in Python: fit() was called with your own model and data):",
        f"  tw.fit(model, train_data, val_data, config={config})   # {why}: your fit() call, "
        "with this config",
    ]
    if best is not None:
        lines.append(
            f'  tw.load_weights(model, "{best}"); tw.evaluate(model, val_data)   # the best '
            "checkpoint on the validation data"
        )
    return [*lines, *_file_commands(run_dir)]


def _file_commands(run_dir: Path | None) -> list[str]:
    """Commands that read the run directory alone, with or without a recipe."""
    return [
        f"  trainwell export {run_dir}            # its weights as safetensors",
        f"  trainwell plot {run_dir}              # loss, metrics, LR, grad norm, throughput",
    ]


def _describe_saving(saves: list[Any], wall_time_s: float) -> str:
    """All the saves together: how long they blocked the loop, and what share of the run."""
    blocked = sum(s.blocked_s for s in saves)
    share = f" ({100 * blocked / wall_time_s:.1f}% of the run)" if wall_time_s > 0 else ""
    longest = max(s.blocked_s for s in saves)
    return (
        f"checkpoints: {len(saves)} save(s) blocked the loop {blocked:.2f}s in total{share}, "
        f"the longest {longest:.2f}s"
    )
