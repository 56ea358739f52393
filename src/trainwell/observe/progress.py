"""A live progress bar per epoch (loss, lr, samples/s, ETA) and a one-line summary per epoch."""

from __future__ import annotations

import sys
from typing import Any

from tqdm.auto import tqdm

from trainwell.observe.base import FitInfo, Observer, StepReport


def format_metrics(record: dict[str, Any], keys: list[str] | None = None) -> str:
    keys = keys or [k for k in record if k not in ("epoch", "step", "time_s", "best")]
    parts = []
    for key in keys:
        value = record.get(key)
        if isinstance(value, float):
            parts.append(f"{key} {value:.4g}" if key != "lr" else f"lr {value:.2e}")
        elif value is not None:
            parts.append(f"{key} {value}")
    return "  ".join(parts)


class Progress(Observer):
    """Progress bar over the optimizer steps of each epoch, with a summary line per epoch."""

    def __init__(self, bar: bool = True, file: Any = None) -> None:
        self.bar_enabled = bar
        self.file = file or sys.stderr
        self._bar: tqdm | None = None
        self._info: FitInfo | None = None

    def on_fit_start(self, info: FitInfo) -> None:
        self._info = info
        # The checkpoint section has defaults, so say once that without run.dir none apply.
        where = (
            f" -> {info.run_dir}"
            if info.run_dir
            else " (no run.dir: nothing will be saved, no checkpoints or metrics log; set run.dir)"
        )
        resumed = f", resuming at epoch {info.start_epoch + 1}" if info.start_step else ""
        for line in model_summary(info):
            self._print(line)
        self._print(
            f"training {info.num_parameters:,} parameters on {info.device} ({info.precision}, "
            f"{info.strategy}), {info.max_epochs} epochs x {info.steps_per_epoch} steps"
            f"{resumed}{where}"
        )

    def _print(self, text: str) -> None:
        tqdm.write(text, file=self.file)

    def _open_bar(self, epoch: int) -> None:
        info = self._info
        self._bar = tqdm(
            total=info.steps_per_epoch if info else None,
            desc=f"epoch {epoch}/{info.max_epochs if info else '?'}",
            file=self.file,
            leave=False,
            dynamic_ncols=True,
            mininterval=0.2,
            disable=None if self.bar_enabled else True,  # None: off when not a terminal
        )

    def on_step_end(self, report: StepReport) -> None:
        if self._bar is None:
            self._open_bar(report.epoch)
        self._bar.update(1)
        if report.logged is not None:
            logged = report.logged
            rate = (
                f"{logged['tokens_per_s']:,.0f} tokens/s"
                if "tokens_per_s" in logged
                else f"{logged['samples_per_s']:,.0f} samples/s"
            )
            mfu = f"  MFU {logged['mfu']:.1%}" if "mfu" in logged else ""
            self._bar.set_postfix_str(
                f"loss {logged['loss']:.4f}  lr {logged['lr']:.2e}  {rate}{mfu}", refresh=False
            )

    def on_epoch_end(self, record: dict[str, Any]) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None
        total = self._info.max_epochs if self._info else "?"
        mark = "  *best*" if record.get("best") else ""
        self._print(
            f"epoch {record['epoch']:>3}/{total}  {format_metrics(record)}  "
            f"({record['time_s']:.1f}s){mark}"
        )

    def on_eval_end(self, metrics: dict[str, Any], *, step: int, epoch: int) -> None:
        if metrics.get("kind") != "eval":  # an epoch's: printed with the epoch's line
            return
        mark = "  *best*" if metrics.get("best") else ""
        shown = [k for k in metrics if k.startswith("val_")]
        self._print(f"step {step:>6} (epoch {epoch})  {format_metrics(dict(metrics), shown)}{mark}")

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None

    def on_fit_end(self, result: Any) -> None:
        self.close()
        for line in result.describe().splitlines():
            self._print(line)


def model_summary(info: FitInfo) -> list[str]:
    """The model in a few lines: its top-level modules with their parameters, trainable or
    frozen, and its size in memory."""
    if not info.model_name:
        return []
    frozen = info.total_parameters - info.num_parameters
    lines = [
        f"model {info.model_name}: {info.total_parameters:,} parameters"
        f"{f' ({frozen:,} frozen)' if frozen else ''}, {info.size_mb:.2f} MB"
    ]
    if len(info.modules) > 1:
        width = max(len(name) for name, _, _ in info.modules)
        for name, total, trainable in info.modules:
            state = "" if trainable == total else (" frozen" if not trainable else " partly frozen")
            lines.append(f"  {name:<{width}}  {total:>12,}{state}")
    return lines
