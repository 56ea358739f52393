"""Pictures of runs: ``trainwell plot RUN_DIR [RUN_DIR ...]`` and ``log.plots`` at the end.

Read from each run's ``metrics.jsonl`` (nothing else is needed, so finished, running and
copied runs plot alike), drawn with matplotlib (``pip install 'trainwell[plot]'``), one PNG
per quantity with every run on the same axes:

- ``loss.png``: every loss (a series whose name ends in ``loss``: the training loss and
  ``tw.log`` losses such as a GAN's ``d_loss``/``g_loss`` per logged step, solid;
  ``train_*loss`` and ``val_loss`` per epoch, dashed, at the step the epoch ended);
- ``lr.png``, ``grad_norm.png``: per logged step (and per epoch where logged);
- ``throughput.png``: samples/s (tokens/s when logged), then a panel each for TFLOP/s, MFU,
  data wait and step time;
- ``metrics.png``: every other numeric series (``val_*``, ``train_*``, ``tw.log`` values), a
  panel each.

Tick labels are plain numbers (``2.085``, not ``2.085×10⁰``); a loss or gradient norm is
drawn on a log scale only when its values span 10x or more. Unreadable lines of
``metrics.jsonl`` (a binary file, a line cut short by a crash) are skipped and counted.

A 2-D classifier can also record its decision boundary sharpening epoch by epoch
(`DecisionBoundary`, an observer: the loop does not know) into ``decision_boundary.gif``;
the ``spiral`` recipe does with ``log.plots=true``.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch

from trainwell.errors import UserError, WriteFailedError
from trainwell.observe.base import Observer
from trainwell.state.atomic import WriteFailure, write_atomic

INSTALL = "pip install 'trainwell[plot]'"


@dataclass
class RunSeries:
    """What one run logged, as (x, y) series by name; ``skipped``: lines that could not be
    read (binary, cut short by a crash, not a JSON object)."""

    name: str
    steps: dict[str, tuple[list[int], list[float]]] = field(default_factory=dict)
    epochs: dict[str, tuple[list[int], list[float]]] = field(default_factory=dict)
    skipped: int = 0
    path: Path | None = None


def read_run(run_dir: str | Path) -> RunSeries:
    """The series of a run directory's ``metrics.jsonl`` (x: the optimizer step).

    Every numeric value of a step or epoch record is a series (``tw.log`` values, ``train_*``
    and ``val_*`` included). Unreadable lines are skipped and counted; a file with lines but
    no readable record is a `UserError`.
    """
    path = Path(run_dir) / "metrics.jsonl"
    if not path.is_file():
        raise UserError(f"{run_dir} has no metrics.jsonl; pass the directory a run wrote")
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise UserError(f"cannot read {path}: {exc.strerror or exc}") from None
    series = RunSeries(Path(run_dir).name, path=path)
    lines = [line for line in raw.split(b"\n") if line.strip()]
    for line in lines:
        record = _record(line)
        if record is None:
            series.skipped += 1  # a line cut short by a crash, or not ours: the rest plots
            continue
        _add(series, record)
    if lines and series.skipped == len(lines):
        raise UserError(
            f"{path} holds no readable record ({len(lines)} lines, none a JSON object); "
            "pass the directory of a run trainwell wrote"
        )
    return series


def _record(line: bytes) -> dict[str, Any] | None:
    """One line's JSON object, or None when it is not one."""
    try:
        record = json.loads(line.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    return record if isinstance(record, dict) else None


def _add(series: RunSeries, record: dict[str, Any]) -> None:
    kind = record.get("kind")
    evaluation = kind in ("epoch", "eval")  # eval: between epoch ends (main's eval_every_steps)
    target = series.steps if kind == "step" else series.epochs if evaluation else None
    step = record.get("step")
    if target is None or not isinstance(step, int | float) or isinstance(step, bool):
        return
    for name, value in record.items():
        if name in {"step", "epoch", "kind"} or isinstance(value, bool):
            continue
        if isinstance(value, int | float) and math.isfinite(value):
            xs, ys = target.setdefault(name, ([], []))
            xs.append(int(step))
            ys.append(float(value))


# Which series go where. Every numeric series of metrics.jsonl is drawn once: the losses
# together, the learning rate, the gradient norm, the speed of the run (a panel each), and
# every other metric (val_*, train_*, tw.log values) in a panel of its own in metrics.png.
THROUGHPUT = ("samples_per_s", "tokens_per_s")
SPEED = ("tflops", "mfu", "data_wait", "interval_s", "time_s")
KINDS = (("steps", "-"), ("epochs", "--"))


@dataclass
class Panel:
    """One axes: its title, y label and the (kind, series name) it draws."""

    title: str
    ylabel: str
    series: list[tuple[str, str]]
    log_if_wide: bool = False  # log scale when every value is > 0 and they span 10x or more


def layout(runs: list[RunSeries]) -> list[tuple[str, list[Panel]]]:
    """(file name, panels) of each picture for ``runs``: every numeric series exactly once."""
    names = {kind: sorted({n for r in runs for n in getattr(r, kind)}) for kind, _ in KINDS}
    taken: set[tuple[str, str]] = set()

    def pick(wanted: Any) -> list[tuple[str, str]]:
        found = [(k, n) for k, _ in KINDS for n in names[k] if wanted(n) and (k, n) not in taken]
        taken.update(found)
        return found

    pictures: list[tuple[str, list[Panel]]] = []
    losses = pick(lambda n: n == "loss" or n.endswith("loss"))
    losses.sort(key=lambda item: (item[1] != "loss", item[0] != "steps", item[1]))
    if losses:
        pictures.append(("loss.png", [Panel("Loss", "loss", losses, log_if_wide=True)]))
    for filename, title, ylabel, name, log in (
        ("lr.png", "Learning rate", "lr", "lr", False),
        ("grad_norm.png", "Gradient norm (before clipping)", "norm", "grad_norm", True),
    ):
        picked = pick(lambda n, name=name: n == name)
        if picked:
            pictures.append((filename, [Panel(title, ylabel, picked, log_if_wide=log)]))
    speed = [Panel("Throughput", "per second", pick(lambda n: n in THROUGHPUT))]
    speed += [Panel(n, n, pick(lambda m, n=n: m == n)) for n in SPEED]
    speed = [panel for panel in speed if panel.series]
    if speed:
        pictures.append(("throughput.png", speed))
    rest = sorted(
        {n for k, _ in KINDS for n in names[k] if (k, n) not in taken},
        key=lambda n: (not n.startswith("val_"), not n.startswith("train_"), n),
    )
    metrics = [Panel(n, n, pick(lambda m, n=n: m == n)) for n in rest]
    if metrics:
        pictures.append(("metrics.png", metrics))
    return pictures


def figures(runs: list[RunSeries]) -> list[tuple[str, Any]]:
    """(file name, matplotlib Figure) of each picture, drawn but not saved."""
    plt = _pyplot()
    drawn = []
    for filename, panels in layout(runs):
        fig, axes = plt.subplots(
            len(panels),
            1,
            figsize=(7, 4.2 if len(panels) == 1 else 2.6 * len(panels) + 0.6),
            dpi=110,
            squeeze=False,
        )
        for ax, panel in zip(axes[:, 0], panels, strict=True):
            _draw(ax, runs, panel.series, several=len(runs) > 1)
            ax.set(title=panel.title, xlabel="optimizer step", ylabel=panel.ylabel)
            if panel.log_if_wide and _wide_and_positive(ax):
                ax.set_yscale("log")
            plain_ticks(ax)
            ax.grid(alpha=0.3)
            ax.legend(fontsize=8)
        fig.tight_layout()
        drawn.append((filename, fig))
    return drawn


def plot_runs(
    run_dirs: list[str | Path], out_dir: str | Path, on_skipped: Any = None
) -> list[Path]:
    """Write the PNGs of ``run_dirs`` (all runs on each figure) into ``out_dir``.

    ``on_skipped(path, count)`` is told about each ``metrics.jsonl`` with unreadable lines.
    """
    plt = _pyplot()
    runs = [read_run(d) for d in run_dirs]
    for run in runs:
        if run.skipped and on_skipped is not None:
            on_skipped(run.path, run.skipped)
    out = Path(out_dir)
    written = []
    drawn = figures(runs)
    try:
        for filename, fig in drawn:
            written.append(save_figure(fig, out / filename))
    finally:
        for _, fig in drawn:
            plt.close(fig)
    return written


def save_figure(fig: Any, path: Path) -> Path:
    """Save a figure as PNG atomically (making its directory): a full disk or a read-only
    directory is a `WriteFailedError` (exit 4) naming the file, with no half PNG and no
    temporary file left."""

    def write(file: Any, _tmp: Path) -> None:
        fig.savefig(file, format="png")

    try:
        write_atomic(path, write)
    except WriteFailure as failure:
        raise WriteFailedError(str(failure)) from None
    return path


def _draw(ax: Any, runs: list[RunSeries], series: list[tuple[str, str]], *, several: bool) -> int:
    drawn = 0
    for index, run in enumerate(runs):
        for position, (kind, name) in enumerate(series):
            xs, ys = getattr(run, kind).get(name, ([], []))
            if not xs:
                continue
            label = f"{name} ({kind[:-1]})" if _both_kinds(series, name) else name
            label = f"{run.name}: {label}" if several else label
            color = f"C{(index * len(series) + position) % 10}"
            style = dict(KINDS)[kind]
            marker = "o" if kind == "epochs" or len(xs) == 1 else None  # one point: a dot
            ax.plot(xs, ys, style, color=color, label=label, marker=marker, markersize=3)
            drawn += 1
    return drawn


def _both_kinds(series: list[tuple[str, str]], name: str) -> bool:
    return sum(1 for _, n in series if n == name) > 1


def _wide_and_positive(ax: Any) -> bool:
    """Whether a log scale helps: every value > 0 and the largest 10x the smallest or more."""
    values = [float(v) for line in ax.get_lines() for v in line.get_ydata()]
    return bool(values) and min(values) > 0 and max(values) >= 10 * min(values)


def tick_label(value: float) -> str:
    """A tick's label in plain digits: ``2.085``, ``0.2``, ``14490``; e-notation (``1e-05``)
    only outside 1e-4..1e6. Never ``2.085×10⁰``."""
    if value == 0 or not math.isfinite(value):
        return "0" if value == 0 else str(value)
    size = abs(value)
    if 1e-4 <= size < 1e6:
        decimals = max(0, 3 - math.floor(math.log10(size)))  # 4 significant digits
        text = f"{value:.{decimals}f}"
        return text.rstrip("0").rstrip(".") if "." in text else text
    return f"{value:.3g}"


def plain_ticks(ax: Any) -> None:
    """Plain tick labels on the y axis: no offset (``+2.08``) and no ``×10ⁿ`` for ordinary
    ranges, on a linear or a log scale."""
    from matplotlib.ticker import LogFormatter, ScalarFormatter

    class PlainLog(LogFormatter):
        def _num_to_string(self, x: float, vmin: float, vmax: float) -> str:
            return tick_label(x)

    if ax.get_yscale() == "log":
        ax.yaxis.set_major_formatter(PlainLog(labelOnlyBase=False))
        ax.yaxis.set_minor_formatter(PlainLog(labelOnlyBase=False, minor_thresholds=(2, 0.5)))
    else:
        plain = ScalarFormatter(useOffset=False, useMathText=False)
        plain.set_scientific(False)  # 0.0003, not 3×10⁻⁴ above the axis
        ax.yaxis.set_major_formatter(plain)


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
