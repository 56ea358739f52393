"""``trainwell explain RUN --html FILE``: one self-contained page (inline base64 PNGs, inline
CSS, no external URL) with the run's curves, drawn by `trainwell.observe.plots`, marked where
the findings point (best epoch, divergence step, overfitting onset), the findings beside them,
and the config and summary."""

from __future__ import annotations

import base64
import html
import io
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from trainwell.observe.explain import Finding, Run, format_text

COLORS = {"problem": "#c62828", "warning": "#ef6c00", "info": "#1565c0"}

STYLE = """
body{font-family:sans-serif;margin:16px;color:#222}
.grid{display:flex;gap:16px;align-items:flex-start}
.curves{flex:3}.curves img{width:100%;border:1px solid #ddd;margin-bottom:8px}
.findings{flex:2}
.f{border-left:6px solid;padding:6px 10px;margin-bottom:10px;background:#fafafa}
.f b{text-transform:uppercase;font-size:12px}
code,pre{background:#f3f3f3;font-size:12px}pre{padding:8px;overflow:auto;max-height:400px}
"""


def marks(run: Run, findings: Sequence[Finding]) -> list[tuple[float, str, str]]:
    """(step, label, color) of each line to draw: the best epoch and each finding's place."""
    step_of = {r.get("epoch"): r.get("step") for _, r in run.epochs}
    found = []
    best_step = run.summary.get("best_step")
    if isinstance(best_step, int | float):
        found.append((float(best_step), f"best epoch {run.summary.get('best_epoch')}", "#2e7d32"))
    for finding in findings:
        step = finding.step if finding.step is not None else step_of.get(finding.epoch)
        if isinstance(step, int | float):
            found.append((float(step), finding.code, COLORS[finding.severity]))
    return found


def _pictures(run: Run, findings: Sequence[Finding]) -> list[str]:
    """The run's plots (`trainwell.observe.plots.figures`) with the marks, as base64 PNGs."""
    from trainwell.observe.plots import figures, read_run

    lines = marks(run, findings)
    encoded = []
    for _, fig in figures([read_run(run.path)]):
        for ax in fig.axes:
            for step, label, color in lines:
                ax.axvline(step, color=color, linestyle="--", linewidth=1.2, label=label)
            ax.legend(fontsize=7)
        buffer = io.BytesIO()
        fig.savefig(buffer, format="png")
        fig.clf()
        encoded.append(base64.b64encode(buffer.getvalue()).decode())
    return encoded


def render(run: Run, findings: Sequence[Finding]) -> str:
    """The page as one HTML string, nothing fetched when it opens."""
    esc = html.escape
    images = "".join(
        f'<img alt="curves" src="data:image/png;base64,{b}">' for b in _pictures(run, findings)
    )
    items = (
        "".join(
            f'<div class="f" style="border-color:{COLORS[f.severity]}"><b style="color:'
            f'{COLORS[f.severity]}">{esc(f.severity)}</b> <code>{esc(f.code)}</code><p>'
            f"{esc(f.evidence)}</p>"
            + (f"<p>try: <code>{esc(f.suggestion)}</code></p>" if f.suggestion else "")
            + "</div>"
            for f in findings
        )
        or "<p>No findings: the curves look healthy.</p>"
    )
    headline = esc(format_text(run, findings).splitlines()[0])
    return (
        f"<!doctype html><html><head><meta charset='utf-8'><title>trainwell explain "
        f"{esc(run.path.name)}</title><style>{STYLE}</style></head><body>"
        f"<h1>trainwell explain</h1><p>{headline}</p><div class='grid'>"
        f"<div class='curves'>{images}</div><div class='findings'><h2>Findings</h2>{items}"
        f"<h2>Summary</h2><pre>{esc(_dump(run.summary))}</pre>"
        f"<h2>Config</h2><pre>{esc(_dump(run.config))}</pre></div></div></body></html>"
    )


def _dump(tree: dict[str, Any]) -> str:
    """A config or summary tree as indented JSON."""
    return json.dumps(tree, indent=2, default=str)


def write_html(run: Run, findings: Sequence[Finding], path: Path) -> Path:
    """Write the page to ``path`` (through a temporary file, so a failed write leaves no half
    page) and return it."""
    text = render(run, findings)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)
    return path
