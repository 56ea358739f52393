"""The observers a run starts with: the progress bar and the run directory's logs (JSONL, CSV,
TensorBoard, MLflow, W&B, plots at the end), the input-bound detector and the profiler; the
user's observers that keep state (saved with the run); and what observers are told at the
start (`fit_info`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from torch import nn

from trainwell.config.sections import Config
from trainwell.loop.run_state import Counters, RunLength
from trainwell.observe.base import FitInfo, Observer
from trainwell.observe.input_bound import InputBoundDetector
from trainwell.observe.log import MetricsLog
from trainwell.observe.mlflow_log import MLflowLog  # imports mlflow only when built
from trainwell.observe.plots import PlotsAtEnd
from trainwell.observe.profiler import Profiler, ProfileWindow
from trainwell.observe.progress import Progress
from trainwell.observe.table import CSVLog
from trainwell.observe.tensorboard import TensorBoardLog, tensorboard_available
from trainwell.observe.wandb_log import WandbLog  # imports wandb only when built
from trainwell.parts.precision import Precision
from trainwell.strategy.base import Strategy


def default_observers(cfg: Config, strategy: Strategy) -> list[Observer]:
    """The progress bar and the run directory's logs (``metrics.jsonl``, ``metrics.csv``,
    TensorBoard: on the main process only), and the input-bound detector."""
    observers: list[Observer] = []
    if not cfg.run.quiet and strategy.is_main:
        observers.append(Progress(bar=cfg.run.progress))
    if cfg.run.dir is not None and strategy.is_main:
        observers.append(MetricsLog(cfg.run.dir))
        if cfg.log.csv:
            observers.append(CSVLog(cfg.run.dir))
        if cfg.log.tensorboard is True or (
            cfg.log.tensorboard == "auto" and tensorboard_available()
        ):
            observers.append(TensorBoardLog(cfg.run.dir))
        if cfg.log.mlflow:
            observers.append(
                MLflowLog(
                    cfg.run.dir,
                    cfg.log.mlflow_uri,
                    cfg.log.mlflow_experiment,
                    quiet=cfg.run.quiet,
                )
            )
        if cfg.log.wandb:
            observers.append(WandbLog(cfg.run.dir, cfg.log.wandb_project, cfg.log.wandb_mode))
        if cfg.log.plots:
            observers.append(PlotsAtEnd(cfg.run.dir))
    if cfg.data.input_bound_threshold is not None:
        observers.append(InputBoundDetector(cfg.data.input_bound_threshold))
    if cfg.profile.enabled and strategy.is_main:
        observers.append(_profiler(cfg))
    return observers


def _profiler(cfg: Config) -> Observer:
    """The profiler window (``profile.*``): its trace and table in RUN/profile (or ./profile)."""
    p = cfg.profile
    out_dir = Path(cfg.run.dir) / "profile" if cfg.run.dir is not None else Path("profile")
    return Profiler(out_dir, ProfileWindow(wait=p.wait, warmup=p.warmup, active=p.active))


def stateful_observers(observers: list[Any]) -> dict[str, Any]:
    """Your observers that keep state (``state_dict``/``load_state_dict``), under the names the
    checkpoint keeps them by: ``observer.<class name>``, ``.2``, ``.3``... for more of a class."""
    named: dict[str, Any] = {}
    for observer in observers:
        if not (hasattr(observer, "state_dict") and hasattr(observer, "load_state_dict")):
            continue
        name = base = f"observer.{type(observer).__name__}"
        count = 1
        while name in named:
            count += 1
            name = f"{base}.{count}"
        named[name] = observer
    return named


def fit_info(
    cfg: Config,
    model: nn.Module,
    counters: Counters,
    length: RunLength,
    strategy: Strategy,
    precision: Precision,
) -> FitInfo:
    """What observers are told at the start of a run."""
    return FitInfo(
        max_epochs=length.max_epochs,
        steps_per_epoch=length.steps_per_epoch,
        total_steps=length.max_steps,
        start_epoch=counters.epoch,
        start_step=counters.step,
        device=str(strategy.device),
        precision=precision.mode,
        num_parameters=sum(p.numel() for p in model.parameters() if p.requires_grad),
        run_dir=cfg.run.dir,
        config=cfg.to_dict(),
        model_name=type(model).__name__,
        modules=_module_counts(model),
        total_parameters=_count(model),
        size_mb=sum(t.numel() * t.element_size() for t in [*model.parameters(), *model.buffers()])
        / 2**20,
        strategy=type(strategy).__name__.lower().replace("singledevice", "single"),
    )


def _module_counts(model: nn.Module) -> list[tuple[str, int, int]]:
    """(name, parameters, trainable) of each top-level module that holds parameters of its
    own; a parameter shared with an earlier module (tied weights) is counted there only."""
    seen: set[int] = set()
    rows = []
    for name, child in model.named_children():
        own = [p for p in child.parameters() if id(p) not in seen]
        seen.update(id(p) for p in own)
        if own:
            total = sum(p.numel() for p in own)
            rows.append((name, total, sum(p.numel() for p in own if p.requires_grad)))
    return rows


def _count(module: nn.Module, *, trainable: bool = False) -> int:
    return sum(p.numel() for p in module.parameters() if p.requires_grad or not trainable)
