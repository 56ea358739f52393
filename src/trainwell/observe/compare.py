"""``trainwell compare RUN_A RUN_B ...``: what differs between finished runs, the question after
every sweep. Read from what each run wrote (``config.yaml``, ``summary.json``,
``metrics.jsonl``): the config keys whose values differ, the best and final metrics side by
side, the findings that some runs have and others lack, and the curves on one figure.

Pure functions over files, no torch: `compare_runs` gives a `Comparison`, which prints as
text (`Comparison.describe`) or JSON (`Comparison.as_dict`); `plot_comparison` draws it.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from trainwell.errors import UserError, WriteFailedError
from trainwell.state.atomic import WriteFailure, write_atomic

#: Config keys that differ between any two runs without changing what was trained.
_BOOKKEEPING = ("run.dir", "run.overwrite", "run.quiet", "run.progress")

#: A value a run's config does not have (an older run, a recipe's own key).
ABSENT = "(absent)"

#: Findings of a run: (code, severity) pairs; `compare_runs` takes another source
#: (``trainwell explain``'s) as its ``findings_of``.
FindingsOf = Callable[[Path, Mapping[str, Any]], list[tuple[str, str]]]


@dataclass
class RunFacts:
    """What one run directory says about itself."""

    name: str
    path: Path
    config: dict[str, Any]  # flattened: "optim.lr" -> 0.01
    summary: dict[str, Any]
    findings: list[tuple[str, str]] = field(default_factory=list)  # (code, severity)


@dataclass
class Comparison:
    """Several runs compared: `config_diff`, `metrics` side by side, `findings` that differ."""

    runs: list[RunFacts]
    config_diff: list[tuple[str, list[Any]]]  # (key, one value per run)
    metrics: list[tuple[str, list[Any]]]  # (row name, one value per run; None: absent)
    findings_diff: list[tuple[str, list[bool]]]  # (code, whether each run has it)

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready: ``{"runs", "config_diff", "metrics", "findings_diff"}``."""
        names = [str(run.path) for run in self.runs]
        return {
            "runs": names,
            "config_diff": {key: dict(zip(names, vs, strict=True)) for key, vs in self.config_diff},
            "metrics": {row: dict(zip(names, vs, strict=True)) for row, vs in self.metrics},
            "findings_diff": {
                code: [n for n, has in zip(names, hows, strict=True) if has]
                for code, hows in self.findings_diff
            },
        }

    def describe(self) -> str:
        """The comparison as aligned text tables, a run per column."""
        header = ["", *(_label(run) for run in self.runs)]
        lines = [f"run {_label(run)}: {run.path}" for run in self.runs]
        lines.append("")
        if self.config_diff:
            lines.append("config (keys that differ):")
            lines += _table(header, [(k, [_show(v) for v in vs]) for k, vs in self.config_diff])
        else:
            lines.append("config: the same in every run")
        lines.append("")
        lines.append("results:")
        lines += _table(header, [(k, [_show(v) for v in vs]) for k, vs in self.metrics])
        lines.append("")
        if self.findings_diff:
            lines.append("findings that differ:")
            lines += _table(
                header,
                [(code, ["yes" if h else "-" for h in hows]) for code, hows in self.findings_diff],
            )
        else:
            lines.append("findings: the same in every run")
        return "\n".join(lines)


def compare_runs(run_dirs: list[str | Path], findings_of: FindingsOf | None = None) -> Comparison:
    """Compare the runs in ``run_dirs`` (two or more). A directory that is not a finished
    run is a `UserError` naming it."""
    if len(run_dirs) < 2:
        raise UserError("trainwell compare needs two or more run directories")
    findings_of = findings_of or guard_findings
    runs = [read_facts(Path(d), findings_of) for d in run_dirs]
    _distinct_labels(runs)
    return Comparison(runs, _config_diff(runs), _metric_rows(runs), _findings_diff(runs))


def read_facts(run_dir: Path, findings_of: FindingsOf | None = None) -> RunFacts:
    """A run directory's config, summary and findings; one clear error when it is not one."""
    if not run_dir.is_dir():
        raise UserError(f"{run_dir} is not a directory; pass run directories trainwell wrote")
    summary_path = run_dir / "summary.json"
    if not summary_path.is_file():
        raise UserError(
            f"{run_dir} has no summary.json (not a run directory, or the run has not finished); "
            "pass run directories of finished runs"
        )
    summary = _read_json(summary_path)
    config = _flatten(_read_yaml(run_dir / "config.yaml"))
    facts = RunFacts(run_dir.name or str(run_dir), run_dir, config, summary)
    facts.findings = (findings_of or guard_findings)(run_dir, summary)
    return facts


def guard_findings(run_dir: Path, summary: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The runtime guards' findings in ``summary.json`` (code and severity)."""
    del run_dir
    found = []
    for finding in summary.get("guard_findings") or []:
        if isinstance(finding, Mapping) and finding.get("code"):
            found.append((str(finding["code"]), str(finding.get("severity", "warning"))))
    return found


def _read_json(path: Path) -> dict[str, Any]:
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise UserError(f"cannot read {path}: {exc}") from None
    if not isinstance(value, dict):
        raise UserError(f"{path} is not a JSON object; pass run directories trainwell wrote")
    return value


def _read_yaml(path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {}  # a run written by tw.fit without a directory config: results still compare
    try:
        value = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise UserError(f"cannot read {path}: {str(exc).splitlines()[0]}") from None
    return value if isinstance(value, dict) else {}


def _flatten(tree: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for key, value in tree.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping) and value:
            flat.update(_flatten(value, name + "."))
        else:
            flat[name] = value
    return flat


def _config_diff(runs: list[RunFacts]) -> list[tuple[str, list[Any]]]:
    keys = sorted({k for run in runs for k in run.config} - set(_BOOKKEEPING))
    diff = []
    for key in keys:
        values = [run.config.get(key, ABSENT) for run in runs]
        if any(v != values[0] for v in values[1:]):
            diff.append((key, values))
    return diff


def _metric_rows(runs: list[RunFacts]) -> list[tuple[str, list[Any]]]:
    """Best (with its epoch), the final train_/val_ values, and how the run went."""
    rows: list[tuple[str, list[Any]]] = []
    monitors = {run.summary.get("monitor") for run in runs} - {None}
    for monitor in sorted(monitors):
        rows.append(
            (
                f"best {monitor}",
                [_best(run) if run.summary.get("monitor") == monitor else None for run in runs],
            )
        )
    finals = sorted(
        {k for run in runs for k in _final(run) if k.startswith(("val_", "train_"))},
        key=lambda k: (not k.startswith("val_"), k),
    )
    for name in finals:
        rows.append((f"final {name}", [_final(run).get(name) for run in runs]))
    for row, read in (
        ("epochs", lambda s: s.get("epochs")),
        ("steps", lambda s: s.get("steps")),
        ("wall time s", lambda s: s.get("wall_time_s")),
        ("samples/s", lambda s: (s.get("throughput") or {}).get("samples_per_s")),
        ("stop reason", lambda s: s.get("stop_reason")),
    ):
        rows.append((row, [read(run.summary) for run in runs]))
    return rows


def _best(run: RunFacts) -> str | None:
    best, epoch = run.summary.get("best"), run.summary.get("best_epoch")
    if not isinstance(best, int | float):
        return None
    return f"{best:.4g} (epoch {epoch})"


def _final(run: RunFacts) -> dict[str, Any]:
    final = run.summary.get("final")
    return final if isinstance(final, dict) else {}


def _findings_diff(runs: list[RunFacts]) -> list[tuple[str, list[bool]]]:
    codes = sorted({code for run in runs for code, _ in run.findings})
    diff = []
    for code in codes:
        has = [any(c == code for c, _ in run.findings) for run in runs]
        if not all(has):
            diff.append((code, has))
    return diff


def _distinct_labels(runs: list[RunFacts]) -> None:
    """Columns are named by directory name; two runs of one name get their parent too."""
    seen: dict[str, int] = {}
    for run in runs:
        seen[run.name] = seen.get(run.name, 0) + 1
    for run in runs:
        if seen[run.name] > 1:
            run.name = f"{run.path.parent.name}/{run.path.name}"


def _label(run: RunFacts) -> str:
    return run.name


def _show(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.4g}" if math.isfinite(value) else str(value)
    if isinstance(value, list | dict):
        return json.dumps(value)
    return str(value)


def _table(header: list[str], rows: list[tuple[str, list[str]]]) -> list[str]:
    cells = [header, *([name, *values] for name, values in rows)]
    widths = [max(len(row[i]) for row in cells) for i in range(len(header))]
    return [
        "  " + "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip()
        for row in cells
    ]


# --------------------------------------------------------------------------------------------
# The curves on one figure
# --------------------------------------------------------------------------------------------


def plot_comparison(comparison: Comparison, path: Path) -> Path:
    """The runs' losses (train per log interval, validation per epoch) and the monitored
    metric on one figure, a colour per run; written atomically as PNG or SVG by suffix."""
    from trainwell.observe.plots import _pyplot, plain_ticks, read_run  # matplotlib: lazily

    suffix = path.suffix.lower()
    if suffix not in (".png", ".svg"):
        raise UserError(f"--plot {path}: the file must end in .png or .svg")
    plt = _pyplot()
    monitors = sorted({run.summary.get("monitor") for run in comparison.runs} - {None, ""})
    panels = ["loss", *[m for m in monitors if m not in ("val_loss",)]]
    fig, axes = plt.subplots(1, len(panels), figsize=(6 * len(panels), 4.2), squeeze=False)
    try:
        for index, run in enumerate(comparison.runs):
            series = read_run(run.path)
            colour = f"C{index}"
            ax = axes[0][0]
            train = series.steps.get("loss")
            if not train or len(train[0]) < 3:  # a short run: its epochs' training loss
                train = series.epochs.get("train_loss")
            _line(ax, train, colour, "-", f"{run.name} train")
            _line(ax, series.epochs.get("val_loss"), colour, "--", f"{run.name} val")
            for ax, monitor in zip(axes[0][1:], panels[1:], strict=True):
                _line(ax, series.epochs.get(monitor), colour, "-", run.name)
        for ax, title in zip(axes[0], panels, strict=True):
            ax.set_title(title)
            ax.set_xlabel("step")
            ax.grid(alpha=0.3)
            if ax.lines:
                ax.legend(fontsize="small")
            plain_ticks(ax)
        fig.tight_layout()

        def write(file: Any, _tmp: Path) -> None:
            fig.savefig(file, format=suffix[1:])

        try:
            write_atomic(path, write)
        except WriteFailure as failure:
            raise WriteFailedError(str(failure)) from None
    finally:
        plt.close(fig)
    return path


def _line(
    ax: Any, xy: tuple[list[int], list[float]] | None, colour: str, style: str, label: str
) -> None:
    if xy and xy[0]:
        ax.plot(
            xy[0], xy[1], style, color=colour, label=label, marker="." if len(xy[0]) < 30 else None
        )
