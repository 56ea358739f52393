"""``trainwell compare RUN_A RUN_B ...``: what differs between runs — their configs, their best
and final metrics, their findings — the question after every sweep. Pure functions over the
runs' records (`trainwell.observe.explain.Run`), no torch."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from trainwell.observe.explain import Run, explain

#: config keys that differ between any two runs and mean nothing about training
IGNORED = {"run.dir", "run.overwrite", "run.quiet", "run.progress"}


def flatten(tree: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """``{"optim.lr": 0.003, ...}`` from a nested config."""
    flat = {}
    for key, value in tree.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            flat.update(flatten(value, f"{name}."))
        else:
            flat[name] = value
    return flat


def compare(runs: Sequence[Run]) -> dict[str, Any]:
    """The config diff, the best and final metrics side by side and the findings that differ."""
    configs = [flatten(r.config) for r in runs]
    keys = sorted(set().union(*configs) - IGNORED)
    diff = {
        k: [c.get(k) for c in configs] for k in keys if len({repr(c.get(k)) for c in configs}) > 1
    }
    codes = [{f"{f.code} ({f.severity})" for f in explain(r)} for r in runs]
    shared = set.intersection(*codes) if codes else set()
    return {
        "runs": [str(r.path) for r in runs],
        "config_diff": diff,
        "metrics": [_metrics(r) for r in runs],
        "findings_differ": [sorted(c - shared) for c in codes],
        "findings_shared": sorted(shared),
    }


def _metrics(run: Run) -> dict[str, Any]:
    """A run's monitored best (value, epoch) and its final epoch record's numbers."""
    final = run.summary.get("final") or (run.epochs[-1][1] if run.epochs else {})
    numbers = {
        k: v for k, v in final.items() if isinstance(v, int | float) and not isinstance(v, bool)
    }
    return {
        "monitor": run.summary.get("monitor"),
        "best": run.summary.get("best"),
        "best_epoch": run.summary.get("best_epoch"),
        "final": numbers,
    }


def format_text(table: dict[str, Any]) -> str:
    """The comparison as text: one column per run."""
    names = [Path(r).name or r for r in table["runs"]]
    lines = ["runs: " + "  |  ".join(table["runs"]), "", "config diff:"]
    if not table["config_diff"]:
        lines.append("  (the same config)")
    for key, values in table["config_diff"].items():
        lines.append(f"  {key}: " + "  |  ".join(map(str, values)))
    lines += ["", f"{'metrics:':26}" + "".join(f"  {n:>14}" for n in names)]
    metrics = table["metrics"]
    rows = [("best " + str(metrics[0]["monitor"]), [m["best"] for m in metrics])]
    rows.append(("best epoch", [m["best_epoch"] for m in metrics]))
    finals = sorted({k for m in metrics for k in m["final"]} - {"epoch", "time_s"})
    rows += [(f"final {k}", [m["final"].get(k) for m in metrics]) for k in finals]
    for label, values in rows:
        lines.append(f"  {label:24}" + "".join(f"  {_cell(v):>14}" for v in values))
    lines += ["", "findings that differ:"]
    for name, codes in zip(names, table["findings_differ"], strict=True):
        lines.append(f"  {name}: {', '.join(codes) or '-'}")
    if table["findings_shared"]:
        lines.append(f"  all: {', '.join(table['findings_shared'])}")
    return "\n".join(lines)


def _cell(value: Any) -> str:
    """A number in a few significant digits, ``-`` for none."""
    if value is None:
        return "-"
    return f"{value:.4g}" if isinstance(value, float) else str(value)


def plot_curves(runs: Sequence[Run], path: Path) -> Path:
    """The runs' loss curves on one figure (`trainwell.observe.plots`), saved as PNG or SVG."""
    from trainwell.observe.plots import figures, read_run

    (_, fig), *_ = figures([read_run(r.path) for r in runs])
    fig.savefig(path, format=path.suffix.lstrip(".").lower() or "png")
    return path
