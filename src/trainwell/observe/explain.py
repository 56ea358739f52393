"""``trainwell explain``: read a finished run's records and say what went wrong, with evidence.

Pure functions over what a run directory holds (``metrics.jsonl``, ``summary.json``,
``config.yaml``): no torch. Each rule returns `Finding`s with a code, a severity, one sentence of
evidence (numbers, steps or epochs, a ``metrics.jsonl line N`` pointer) and, where one exists, a
runnable ``--set`` suggestion. Every rule and threshold is documented in docs/explain.md.
"""

from __future__ import annotations

import dataclasses
import json
import math
import statistics
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

#: severities, most important first
SEVERITIES = ("problem", "warning", "info")

# The thresholds (docs/explain.md lists them with their reasons).
DIVERGE_RATIO = 3.0  # a logged loss this many times its start, and its minimum...
DIVERGE_MIN_RATIO = 10.0  # ...and this many times the minimum seen before it: diverged
STUCK_CHANGE = 0.02  # after a divergence, the loss moving less than this share: stuck
SPIKE_RATIO = 3.0  # a logged loss this many times the median of the few before it: a spike
SPIKE_WINDOW = 5  # how many logged losses before it make that median
RECOVERED = 1.5  # back within this x the minimum before a rise, and nearer it than the
# start, within the next 10 logs: a spike that training recovered from, not a divergence
LOW_LR_DROP = 0.10  # the loss fell by less than this share of its start: barely moved
LOW_LR = 1e-4  # an LR at or below this, with the loss still falling at the end, is small
FALLING = 0.01  # an epoch's training loss this share under the one before: still falling
OVERFIT_RISE = 0.05  # the final val loss this share above its minimum, train loss lower
OVERFIT_OF_FALL = 0.05  # ... and the rise this share of its fall from the first epoch:
# a loss that fell from 0.43 to 0.0088 and wiggles to 0.0099 sits at its floor
UNDERFIT_HIGH = 0.5  # final train loss at least this share of the first epoch's: high
UNDERFIT_CLOSE = 0.15  # train and val loss within this share of each other: close
PLATEAU_EVALS = 3  # no new best in the last N evaluations: a plateau
INPUT_WARN, INPUT_PROBLEM = 0.20, 0.50  # shares of training time spent waiting for data
SAVE_WARN, SAVE_PROBLEM = 0.10, 0.30  # shares of the run's wall time the loop blocked saving
GRAD_RATIO = 10.0  # a logged grad norm this many times the median grad norm: unstable


@dataclasses.dataclass(frozen=True)
class Finding:
    """One diagnosis of a run: what happened, with its evidence, and what to change."""

    code: str
    severity: str  # "problem", "warning" or "info"
    evidence: str  # one sentence, with numbers, steps/epochs and a pointer into the logs
    suggestion: str | None = None  # a runnable ``--set`` line or a config snippet
    step: int | None = None  # where to mark it on the curves (a step)...
    epoch: int | None = None  # ...or an epoch

    def as_dict(self) -> dict[str, Any]:
        """The finding as plain data (``--format json``)."""
        return {
            "code": self.code,
            "severity": self.severity,
            "evidence": self.evidence,
            "suggestion": self.suggestion,
        }


@dataclasses.dataclass
class Run:
    """A run directory's records: step and epoch records as (line number, record) pairs."""

    path: Path
    steps: list[tuple[int, dict[str, Any]]]
    epochs: list[tuple[int, dict[str, Any]]]
    summary: dict[str, Any]
    config: dict[str, Any]

    def setting(self, section: str, key: str, default: Any = None) -> Any:
        """``config[section][key]``, or ``default`` where the saved config has none."""
        value = (self.config.get(section) or {}).get(key, default)
        return default if value is None else value


def read_run(path: Path, config: dict[str, Any]) -> Run:
    """The records of run directory ``path`` (its ``config.yaml`` already parsed, ``config``);
    unreadable lines of ``metrics.jsonl`` are skipped."""
    steps, epochs = [], []
    metrics = path / "metrics.jsonl"
    lines = metrics.read_text(errors="replace").splitlines() if metrics.is_file() else []
    for number, line in enumerate(lines, start=1):
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if not isinstance(record, dict):
            continue
        if record.get("kind") == "step":
            steps.append((number, record))
        elif record.get("kind") == "epoch":
            epochs.append((number, record))
    summary_file = path / "summary.json"
    try:
        summary = json.loads(summary_file.read_text()) if summary_file.is_file() else {}
    except ValueError:
        summary = {}
    return Run(path, steps, epochs, summary if isinstance(summary, dict) else {}, config)


def explain(run: Run) -> list[Finding]:
    """Every rule's findings on ``run``, most important first (problems, warnings, notes)."""
    found = [finding for rule in RULES for finding in rule(run)]
    return sorted(found, key=lambda f: SEVERITIES.index(f.severity))


def _number(value: Any) -> float | None:
    """``value`` as a float (NaN and inf kept), or None where it is not a number."""
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        return None
    try:
        return float(value)
    except ValueError:
        return None


def _series(
    records: Sequence[tuple[int, dict[str, Any]]], key: str
) -> list[tuple[int, dict, float]]:
    """(line, record, value) for each record that logged ``key`` as a number."""
    found = []
    for line, record in records:
        value = _number(record.get(key))
        if value is not None:
            found.append((line, record, value))
    return found


def _losses(run: Run) -> list[tuple[int, dict, float]]:
    """The training loss over the run: the step records', else the epochs' ``train_loss``."""
    return _series(run.steps, "loss") or _series(run.epochs, "train_loss")


def _where(line: int, record: dict[str, Any]) -> str:
    """``step 400 (metrics.jsonl line 9)``: a place in the run and in its log."""
    at = f"step {record['step']}" if "step" in record else f"epoch {record.get('epoch')}"
    return f"{at} (metrics.jsonl line {line})"


def _lr_at(record: dict[str, Any]) -> str:
    """``LR 0.003`` where the record logged one."""
    lr = _number(record.get("lr"))
    return f" at LR {lr:.3g}" if lr is not None else ""


def _diverged(run: Run) -> list[Finding]:
    """The loss went non-finite, or rose far above its start and its minimum before."""
    losses = _losses(run)
    guard = [f for f in _guard_findings(run) if f.get("code") in ("loss-diverging",)]
    lr = _number(run.setting("optim", "lr"))
    fix = f"--set optim.lr={lr / 10:.3g}" if lr else "--set optim.lr=<a tenth of it>"
    low = math.inf
    for i, (line, record, value) in enumerate(losses):
        start = losses[0][2]
        blew = not math.isfinite(value) or (
            value > DIVERGE_RATIO * start and value > DIVERGE_MIN_RATIO * low
        )
        if blew and math.isfinite(value) and _recovers(losses[i + 1 :], low, start):
            continue  # an isolated spike after which training went on: loss-spikes says it
        if blew:
            what = "went non-finite" if not math.isfinite(value) else f"rose to {value:.4g}"
            evidence = (
                f"the training loss {what} at {_where(line, record)}{_lr_at(record)}, from "
                f"{start:.4g} at the start and a minimum of {low:.4g} before it"
            )
            evidence += _stuck_after(losses[i:])
            return [Finding("diverged", "problem", evidence + ".", fix, step=record.get("step"))]
        low = min(low, value)
    if guard:
        first = guard[0]
        return [
            Finding(
                "diverged",
                "problem",
                f"the loss guard saw the loss diverge at step {first.get('step')}: "
                f"{first.get('message')} (summary.json guard_findings).",
                fix,
                step=first.get("step"),
            )
        ]
    return []


def _recovers(after: Sequence[tuple[int, dict, float]], low: float, start: float) -> bool:
    """A run that had learned (its minimum below its start) and whose loss came back near that
    minimum within the next few logs: a spike, not a divergence."""
    if not low < start:
        return False
    soon = [v for _, _, v in after[: 2 * SPIKE_WINDOW] if math.isfinite(v)]
    back = min(RECOVERED * low, (low + start) / 2)  # nearer what it had learned than the start
    return any(v <= back for v in soon)


def _stuck_after(losses: Sequence[tuple[int, dict, float]]) -> str:
    """``; it then stayed at 2.303 ...`` when the loss stopped moving after a divergence."""
    tail = [v for _, _, v in losses[len(losses) // 2 :] if math.isfinite(v)]
    if len(losses) < 4 or len(tail) < 2:
        return ""
    spread = (max(tail) - min(tail)) / max(abs(statistics.mean(tail)), 1e-12)
    if spread >= STUCK_CHANGE:
        return ""
    return (
        f"; it then stayed flat at {tail[-1]:.4g} to the end (stuck at chance: the spike likely "
        "killed units, e.g. dead ReLUs)"
    )


def _loss_spikes(run: Run) -> list[Finding]:
    """Isolated spikes: a logged loss far above the median before it that falls back after."""
    losses = [s for s in _series(run.steps, "loss") if math.isfinite(s[2])]
    spikes = []
    for i in range(SPIKE_WINDOW, len(losses) - 1):
        before = statistics.median(v for _, _, v in losses[i - SPIKE_WINDOW : i])
        if losses[i][2] > SPIKE_RATIO * before and losses[i + 1][2] < SPIKE_RATIO * before:
            spikes.append(losses[i])
    if not spikes:
        return []
    clip = _number(run.setting("train", "clip_norm"))
    norms = [v for _, _, v in _series(run.steps, "grad_norm")]
    clipped = ""
    if clip and norms:
        share = sum(v > clip for v in norms) / len(norms)
        clipped = f"; {share:.0%} of the logged steps had a grad norm over train.clip_norm={clip:g}"
    line, record, value = spikes[0]
    evidence = (
        f"{len(spikes)} isolated loss spike(s), the first to {value:.4g} at "
        f"{_where(line, record)}{clipped}."
    )
    fix = "--set train.clip_norm=1.0" if not clip else "--set schedule.warmup_ratio=0.1"
    return [Finding("loss-spikes", "warning", evidence, fix, step=record.get("step"))]


def _lr_too_low(run: Run) -> list[Finding]:
    """The loss barely moved from its start, or is still falling steadily with a small LR."""
    losses = [s for s in _losses(run) if math.isfinite(s[2])]
    lr = _number(run.setting("optim", "lr"))
    if len(losses) < 2 or lr is None:
        return []
    start, end = losses[0][2], losses[-1][2]
    fix = f"--set optim.lr={lr * 10:.3g}"
    if start > 0 and (start - min(v for _, _, v in losses)) < LOW_LR_DROP * start:
        line, record, _ = losses[-1]
        evidence = (
            f"the training loss barely moved: {start:.4g} at the start, {end:.4g} at "
            f"{_where(line, record)} (under {LOW_LR_DROP:.0%} down) with optim.lr={lr:.3g}."
        )
        return [Finding("lr-too-low", "problem", evidence, fix, step=record.get("step"))]
    train = _series(run.epochs, "train_loss")
    if lr <= LOW_LR and len(train) >= 3 and _still_falling(train):
        line, record, value = train[-1]
        evidence = (
            f"the training loss is still falling steadily at the end ({value:.4g} at "
            f"{_where(line, record)}) with a small optim.lr={lr:.3g}."
        )
        return [Finding("lr-too-low", "warning", evidence, fix, epoch=record.get("epoch"))]
    return []


def _still_falling(series: Sequence[tuple[int, dict, float]]) -> bool:
    """Each of the last three values at least `FALLING` under the one before."""
    last = [v for _, _, v in series[-3:]]
    return all(b < a * (1 - FALLING) for a, b in zip(last, last[1:], strict=False))


def _overfitting(run: Run) -> list[Finding]:
    """The validation loss bottomed at epoch k and rose while the training loss fell."""
    val = _series(run.epochs, "val_loss")
    train = {r.get("epoch"): v for _, r, v in _series(run.epochs, "train_loss")}
    if len(val) < 3:
        return []
    k = min(range(len(val)), key=lambda i: val[i][2])
    (line_k, rec_k, best), (line, last, final) = val[k], val[-1]
    ek, e_last = rec_k.get("epoch"), last.get("epoch")
    if k == len(val) - 1 or final < best * (1 + OVERFIT_RISE):
        return []
    if final - best < OVERFIT_OF_FALL * (val[0][2] - best):
        return []  # noise at the floor of a loss that fell far, not a rise
    if not (ek in train and e_last in train and train[e_last] < train[ek]):
        return []
    gap = final - train[e_last]
    evidence = (
        f"the validation loss bottomed at {best:.4g} at epoch {ek} (metrics.jsonl line {line_k}) "
        f"and rose to {final:.4g} by epoch {e_last} (line {line}) while the training loss fell "
        f"from {train[ek]:.4g} to {train[e_last]:.4g} (gap {gap:.4g}); {_what_was_done(run, ek)}."
    )
    patience = max(1, min(3, int(e_last) - int(ek)))
    fix = f"--set early_stop.patience={patience} --set monitor.restore_best=true"
    return [Finding("overfitting", "problem", evidence, fix, epoch=ek)]


def _what_was_done(run: Run, onset: Any) -> str:
    """What early stopping and ``monitor.restore_best`` did about overfitting."""
    patience = run.setting("early_stop", "patience")
    stopped = "early_stop was off" if patience is None else f"early_stop.patience={patience}"
    weights = run.summary.get("weights")
    if weights:
        return f"{stopped}; the weights left in the model: {weights}"
    restore = run.setting("monitor", "restore_best", False)
    return f"{stopped}; monitor.restore_best={str(bool(restore)).lower()}"


def _underfitting(run: Run) -> list[Finding]:
    """Training and validation loss both high, close, and still falling."""
    train, val = _series(run.epochs, "train_loss"), _series(run.epochs, "val_loss")
    if len(train) < 3 or not val:
        return []
    first, (line, record, final) = train[0][2], train[-1]
    final_val = val[-1][2]
    high = final >= UNDERFIT_HIGH * first
    close = abs(final_val - final) <= UNDERFIT_CLOSE * max(final, 1e-12)
    if not (high and close and _still_falling(train)):
        return []
    epochs = int(record.get("epoch", len(train)))
    evidence = (
        f"the training loss ({final:.4g}) and validation loss ({final_val:.4g}) are both high and "
        f"close at epoch {epochs} ({_where(line, record)}), still falling from {first:.4g}."
    )
    fix = f"--set train.max_epochs={2 * epochs}  # or a larger model"
    return [Finding("underfitting", "warning", evidence, fix, epoch=record.get("epoch"))]


def _plateau(run: Run) -> list[Finding]:
    """No new best of the monitored metric over the last `PLATEAU_EVALS` evaluations."""
    evals = [(line, r) for line, r in run.epochs if "best" in r]
    if len(evals) <= PLATEAU_EVALS or any(r["best"] for _, r in evals[-PLATEAU_EVALS:]):
        return []
    metric = run.summary.get("monitor") or run.setting("monitor", "metric", "val_loss")
    best = [(line, r) for line, r in evals if r["best"]]
    at = f" (best at epoch {best[-1][1].get('epoch')}, metrics.jsonl line {best[-1][0]})"
    evidence = f"no improvement in {metric} over the last {PLATEAU_EVALS} evaluations{at}."
    fix = f"--set early_stop.patience={PLATEAU_EVALS}"
    return [
        Finding("plateau", "info", evidence, fix, epoch=best[-1][1].get("epoch") if best else None)
    ]


def _input_bound(run: Run) -> list[Finding]:
    """The share of training time spent waiting for data (logged at the log cadence)."""
    waits = _series(run.steps, "data_wait") or _series(run.epochs, "data_wait")
    if not waits:
        return []
    share = statistics.mean(v for _, _, v in waits)
    if share < INPUT_WARN:
        return []
    worst = max(waits, key=lambda s: s[2])
    workers = int(run.setting("data", "num_workers", 0))
    evidence = (
        f"the loop waited for data {share:.0%} of the training time on average over "
        f"{len(waits)} logged intervals, up to {worst[2]:.0%} at {_where(worst[0], worst[1])}, "
        f"with data.num_workers={workers}."
    )
    severity = "problem" if share >= INPUT_PROBLEM else "warning"
    fix = f"--set data.num_workers={max(4, 2 * workers)}"
    return [Finding("input-bound", severity, evidence, fix)]


def _checkpoint_bound(run: Run) -> list[Finding]:
    """The share of the run's wall time the loop blocked on saving checkpoints."""
    blocked = _number(run.summary.get("checkpoint_blocked_s_total"))
    wall = _number(run.summary.get("wall_time_s"))
    if not blocked or not wall or wall <= 0:
        return []
    share = blocked / wall
    if share < SAVE_WARN:
        return []
    saves = run.summary.get("checkpoint_saves")
    evidence = (
        f"saving {saves} checkpoint(s) blocked the loop {blocked:.2f}s of the run's {wall:.2f}s "
        f"({share:.0%}; summary.json checkpoint_blocked_s_total)."
    )
    severity = "problem" if share >= SAVE_PROBLEM else "warning"
    every = int(run.setting("checkpoint", "every_epochs", 1) or 1)
    fix = f"--set checkpoint.async_save=true --set checkpoint.every_epochs={2 * every}"
    return [Finding("checkpoint-bound", severity, evidence, fix)]


def _unstable_gradients(run: Run) -> list[Finding]:
    """Logged grad norms far above the median of the few before them (early norms are large by
    nature, so each is compared with its recent past) or non-finite, or the guards' findings."""
    norms = _series(run.steps, "grad_norm")
    found = []
    wild = []
    for i, (line, record, value) in enumerate(norms):
        before = [v for _, _, v in norms[max(0, i - SPIKE_WINDOW) : i] if math.isfinite(v)]
        if not math.isfinite(value):
            wild.append((line, record, value, math.inf))
        elif len(before) >= 3 and value > GRAD_RATIO * statistics.median(before) > 0:
            wild.append((line, record, value, value / statistics.median(before)))
    if wild:
        line, record, value, ratio = max(wild, key=lambda s: s[3])
        evidence = (
            f"{len(wild)} of {len(norms)} logged grad norms were over {GRAD_RATIO:g}x the median "
            f"of the ones before them or non-finite, the largest {value:.3g} at "
            f"{_where(line, record)}."
        )
        clip = _number(run.setting("train", "clip_norm"))
        fix = "--set train.clip_norm=1.0" if not clip else None
        found.append(
            Finding("unstable-gradients", "warning", evidence, fix, step=record.get("step"))
        )
    grads = [f for f in _guard_findings(run) if "grad" in str(f.get("code", ""))]
    if grads and not found:
        first = grads[0]
        evidence = (
            f"the guards reported {len(grads)} gradient finding(s), the first "
            f"[{first.get('code')}] at step {first.get('step')}: {first.get('message')} "
            "(summary.json guard_findings)."
        )
        found.append(Finding("unstable-gradients", "warning", evidence, first.get("fix")))
    return found


def _guard_findings(run: Run) -> list[dict[str, Any]]:
    """The guards' findings the run's summary kept."""
    found = run.summary.get("guard_findings") or []
    return [f for f in found if isinstance(f, dict)]


RULES: tuple[Callable[[Run], list[Finding]], ...] = (
    _diverged,
    _loss_spikes,
    _lr_too_low,
    _overfitting,
    _underfitting,
    _plateau,
    _input_bound,
    _checkpoint_bound,
    _unstable_gradients,
)


def format_text(run: Run, findings: Sequence[Finding]) -> str:
    """The findings as text, most important first, with a line for a run without any."""
    lines = [f"{run.path}: {_headline(findings)}"]
    for finding in findings:
        lines.append(f"{finding.severity:8} {finding.code}: {finding.evidence}")
        if finding.suggestion:
            lines.append(f"{'':8}   try: {finding.suggestion}")
    return "\n".join(lines)


def _headline(findings: Sequence[Finding]) -> str:
    """``2 problems, 1 warning`` or ``no findings: the curves look healthy``."""
    if not findings:
        return "no findings: the curves look healthy"
    counts = [(s, sum(f.severity == s for f in findings)) for s in SEVERITIES]
    return ", ".join(f"{n} {s}{'s' if n > 1 else ''}" for s, n in counts if n)
