"""Pictures of runs: ``trainwell plot RUN_DIR [RUN_DIR ...]`` and ``log.plots`` at the end.

Read from each run's ``metrics.jsonl`` (nothing else is needed, so finished, running and
copied runs plot alike), drawn with matplotlib (``pip install 'trainwell[plot]'``), one PNG
per quantity with every run on the same axes:

- ``loss.png``: the training loss per logged step (solid) and the validation loss per
  evaluation (dashed, at its step; one line per validation set, ``val_<set>_loss``);
- ``metrics.png``: each validation metric per evaluation, one panel each;
- ``lr.png``, ``grad_norm.png``, ``throughput.png`` (samples/s; tokens/s when logged): per
  logged step.

A 2-D classifier can also record its decision boundary sharpening epoch by epoch
(`DecisionBoundary`, an observer: the loop does not know) into ``decision_boundary.gif``;
the ``spiral`` recipe does with ``log.plots=true``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch

from trainwell.errors import UserError
from trainwell.observe.base import Observer

INSTALL = "pip install 'trainwell[plot]'"


@dataclass
class RunSeries:
    """What one run logged, as (x, y) series by name."""

    name: str
    steps: dict[str, tuple[list[int], list[float]]] = field(default_factory=dict)
    epochs: dict[str, tuple[list[int], list[float]]] = field(default_factory=dict)


def read_run(run_dir: str | Path) -> RunSeries:
    """The series of a run directory's ``metrics.jsonl`` (x: the optimizer step)."""
    path = Path(run_dir) / "metrics.jsonl"
    if not path.is_file():
        raise UserError(f"{run_dir} has no metrics.jsonl; pass the directory a run wrote")
    series = RunSeries(Path(run_dir).name)
    for line in path.read_text().splitlines():
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            continue  # a line cut short by a crash: the rest still plots
        kind = record.get("kind")
        evaluation = kind in ("epoch", "eval")  # eval: between epoch ends, keyed by step
        target = series.steps if kind == "step" else series.epochs if evaluation else None
        if target is None or "step" not in record:
            continue
        for name, value in record.items():
            if name in {"step", "epoch", "kind"} or isinstance(value, bool):
                continue
            if isinstance(value, int | float):
                xs, ys = target.setdefault(name, ([], []))
                xs.append(int(record["step"]))
                ys.append(float(value))
    return series


# (file, title, y label, [(kind, series name, style)]) per picture; metrics.png is built apart
PICTURES = [
    ("loss.png", "Loss", "loss", [("steps", "loss", "-"), ("epochs", "val_loss", "--")]),
    ("lr.png", "Learning rate", "lr", [("steps", "lr", "-")]),
    ("grad_norm.png", "Gradient norm (before clipping)", "norm", [("steps", "grad_norm", "-")]),
    (
        "throughput.png",
        "Throughput",
        "per second",
        [("steps", "samples_per_s", "-"), ("steps", "tokens_per_s", ":")],
    ),
]


def plot_runs(run_dirs: list[str | Path], out_dir: str | Path) -> list[Path]:
    """Write the PNGs of ``run_dirs`` (all runs on each figure) into ``out_dir``."""
    plt = _pyplot()
    runs = [read_run(d) for d in run_dirs]
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for filename, title, ylabel, lines in pictures(runs):
        fig, ax = plt.subplots(figsize=(7, 4.2), dpi=110)
        drawn = _draw(ax, runs, lines, several=len(runs) > 1)
        if drawn:
            ax.set(title=title, xlabel="optimizer step", ylabel=ylabel)
            if filename in {"loss.png", "grad_norm.png"} and _positive(ax):
                ax.set_yscale("log")
            ax.grid(alpha=0.3)
            ax.legend(fontsize=8)
            fig.tight_layout()
            fig.savefig(out / filename)
            written.append(out / filename)
        plt.close(fig)
    metrics = validation_metrics(runs)
    if metrics:
        written.append(_plot_metrics(plt, runs, metrics, out / "metrics.png"))
    return written


def pictures(runs: list[RunSeries]) -> list[tuple[str, str, str, list]]:
    """`PICTURES` for ``runs``: with several validation sets, loss.png also draws each set's
    ``val_<set>_loss``."""
    set_losses = sorted({n for r in runs for n in r.epochs if _is_val_loss(n) and n != "val_loss"})
    return [
        (name, title, ylabel, [*lines, *(("epochs", n, "--") for n in set_losses)])
        if name == "loss.png"
        else (name, title, ylabel, lines)
        for name, title, ylabel, lines in PICTURES
    ]


def validation_metrics(runs: list[RunSeries]) -> list[str]:
    """The validation values metrics.png draws, one panel each (the losses are on loss.png)."""
    return sorted(
        {n for r in runs for n in r.epochs if n.startswith("val_") and not _is_val_loss(n)}
    )


def _draw(ax: Any, runs: list[RunSeries], lines: list, *, several: bool) -> int:
    drawn = 0
    for index, run in enumerate(runs):
        color = f"C{index % 10}"
        for kind, name, style in lines:
            xs, ys = getattr(run, kind).get(name, ([], []))
            if not xs:
                continue
            label = f"{run.name}: {name}" if several else name
            marker = "o" if kind == "epochs" else None
            ax.plot(xs, ys, style, color=color, label=label, marker=marker, markersize=3)
            drawn += 1
    return drawn


def _plot_metrics(plt: Any, runs: list[RunSeries], metrics: list[str], path: Path) -> Path:
    fig, axes = plt.subplots(
        len(metrics), 1, figsize=(7, 2.6 * len(metrics) + 0.6), dpi=110, squeeze=False
    )
    for ax, metric in zip(axes[:, 0], metrics, strict=True):
        _draw(ax, runs, [("epochs", metric, "-")], several=len(runs) > 1)
        ax.set(title=metric, xlabel="optimizer step")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path


def _is_val_loss(name: str) -> bool:
    """``val_loss``, or a named validation set's ``val_<set>_loss``: drawn on loss.png."""
    return name.startswith("val_") and (name == "val_loss" or name.endswith("_loss"))


def _positive(ax: Any) -> bool:
    return all(min(line.get_ydata(), default=1.0) > 0 for line in ax.get_lines())


def matplotlib_available() -> bool:
    """Whether matplotlib (``pip install 'trainwell[plot]'``) is installed."""
    import importlib.util

    return importlib.util.find_spec("matplotlib") is not None


def _pyplot() -> Any:
    try:
        import matplotlib
    except ImportError:
        raise UserError(f"plots need matplotlib: {INSTALL}") from None
    matplotlib.use("Agg")  # files only: no display needed, none opened
    import matplotlib.pyplot as plt

    return plt


class PlotsAtEnd(Observer):
    """``log.plots``: the run's PNGs into ``RUN/plots`` when it ends."""

    def __init__(self, run_dir: str | Path) -> None:
        _pyplot()  # a missing matplotlib is said before training, not after
        self.run_dir = Path(run_dir)

    def on_fit_end(self, result: Any) -> None:
        plot_runs([self.run_dir], self.run_dir / "plots")


class DecisionBoundary(Observer):
    """Records a 2-D classifier's predicted class over a grid after every epoch and writes the
    frames as ``decision_boundary.gif`` (with the training points) when the run ends.

    The grid is predicted in eval mode under ``inference_mode`` and the model's mode is put
    back, so training sees nothing of it; it runs on the epoch boundary, not per step.
    """

    def __init__(
        self,
        model: torch.nn.Module,
        points: torch.Tensor,
        labels: torch.Tensor,
        out: str | Path,
        *,
        resolution: int = 120,
    ) -> None:
        _pyplot()
        self.model, self.points, self.labels, self.out = model, points, labels, Path(out)
        low, high = points.min(0).values - 0.1, points.max(0).values + 0.1
        xs = torch.linspace(float(low[0]), float(high[0]), resolution)
        ys = torch.linspace(float(low[1]), float(high[1]), resolution)
        grid_x, grid_y = torch.meshgrid(xs, ys, indexing="xy")
        self.extent = (float(low[0]), float(high[0]), float(low[1]), float(high[1]))
        self.grid = torch.stack([grid_x.reshape(-1), grid_y.reshape(-1)], dim=1)
        self.resolution = resolution
        self.frames: list[tuple[int, torch.Tensor]] = []

    def on_epoch_end(self, record: dict[str, Any]) -> None:
        model = self.model
        was_training = model.training
        device = next(model.parameters()).device
        model.eval()
        try:
            with torch.inference_mode():
                classes = model(self.grid.to(device)).argmax(dim=1).cpu()
        finally:
            model.train(was_training)
        grid = classes.reshape(self.resolution, self.resolution)
        self.frames.append((int(record.get("epoch", len(self.frames) + 1)), grid))

    def on_fit_end(self, result: Any) -> None:
        if self.frames:
            write_boundary_gif(self.frames, self.points, self.labels, self.extent, self.out)


def write_boundary_gif(
    frames: list[tuple[int, torch.Tensor]],
    points: torch.Tensor,
    labels: torch.Tensor,
    extent: tuple[float, float, float, float],
    path: Path,
) -> Path:
    """An animated GIF of predicted-class grids (one frame per epoch) over the points."""
    plt = _pyplot()
    from matplotlib.animation import FuncAnimation, PillowWriter
    from matplotlib.colors import ListedColormap

    fig, ax = plt.subplots(figsize=(4.2, 4.2), dpi=90)
    classes = int(labels.max()) + 1
    colors = ListedColormap([f"C{i}" for i in range(classes)])  # areas and points alike
    image = ax.imshow(
        frames[0][1].numpy(),
        origin="lower",
        extent=extent,
        cmap=colors,
        vmin=-0.5,
        vmax=classes - 0.5,
        alpha=0.35,
        interpolation="nearest",
    )
    ax.scatter(
        points[:, 0], points[:, 1], c=labels, cmap=colors, vmin=-0.5, vmax=classes - 0.5, s=5
    )
    ax.set_xticks([])
    ax.set_yticks([])
    title = ax.set_title("")

    def show(index: int) -> list[Any]:
        epoch, grid = frames[index]
        image.set_data(grid.numpy())
        title.set_text(f"decision boundary after epoch {epoch}")
        return [image, title]

    animation = FuncAnimation(fig, show, frames=len(frames), blit=False)
    path.parent.mkdir(parents=True, exist_ok=True)
    animation.save(str(path), writer=PillowWriter(fps=4))
    plt.close(fig)
    return path
