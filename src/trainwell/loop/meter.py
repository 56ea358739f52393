"""The loop's meter: each step's bookkeeping in one call (`Meter.record`), one epoch's loss sums
on the device, data-wait time and throughput.

Nothing here syncs with the host except the log cadence's read (every ``run.log_every``
steps, inside `Meter.record`) and `Meter.epoch_values` (once per epoch); its partial sums are
saved with the run's state so a resumed run logs the same losses as one that never stopped.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator
from typing import Any

import torch

from trainwell.data.batch import batch_size_of
from trainwell.loop.run_state import Counters
from trainwell.observe.base import StepReport
from trainwell.observe.logged import StepValues, with_logged
from trainwell.parts.flops import StepFlops, tokens_in
from trainwell.step.train_step import StepResult


class Meter:
    """One epoch's bookkeeping: data-wait time, loss sums on the device, throughput.

    Nothing here syncs with the host except `read_interval` (every ``log_every`` steps) and
    `epoch_values` (once per epoch). A step's extra losses (``StepResult.logs``, e.g. a
    GAN's ``d_loss``/``g_loss``) are summed and logged beside the loss.
    """

    def __init__(
        self,
        device: torch.device,
        flops: StepFlops | None = None,
        *,
        world: Any = None,
        log_every: int = 50,
        precision: Any = None,
    ) -> None:
        self.device = device
        self.log_every = log_every  # run.log_every: the steps between host reads
        self.precision = precision  # its loss scale (fp16) goes into each report
        # several processes: losses averaged over ranks (one all-reduce per log), samples summed
        self.world = world if world is not None and world.world_size > 1 else None
        self.flops = flops  # FLOPs per step, counted once: tflops and mfu in the logs
        self.interval_loss = torch.zeros((), device=device)
        self.interval_logs: dict[str, torch.Tensor] = {}  # sums of the extra values logged
        self.interval_log_counts: dict[str, int] = {}  # the steps that logged each
        self.interval_windows = self.interval_samples = self.interval_tokens = 0
        self.counts_tokens: bool | None = None  # batches of token ids (decided on the first)
        # Log intervals span epoch boundaries: their clock and data-wait total never reset.
        self.interval_started = time.perf_counter()
        self.wait_s = self.last_wait_s = self.interval_wait_s = 0.0
        self._left_loader_at: float | None = None  # validation and saving are not training
        # the whole run's training throughput, over its logged intervals (the summary)
        self.run_seconds = 0.0
        self.run_windows = self.run_samples = self.run_tokens = 0
        self.last_lr = float("nan")
        # the first step's cost (CUDA init, cuDNN autotune, compile): host clock, no sync
        self.created = time.perf_counter()
        self.first_step_s: float | None = None
        self.start_epoch()

    def start_epoch(self) -> None:
        self.started = time.perf_counter()
        self.loss_sum = torch.zeros((), device=self.device)
        self.log_sums: dict[str, torch.Tensor] = {}
        self.log_counts: dict[str, int] = {}
        self.windows = 0
        # the epoch's data-wait share: its first batch (worker start-up) left out of both
        self.epoch_wait_s = self.epoch_fed_s = 0.0
        self.epoch_waits = 0

    def state_dict(self) -> dict[str, Any]:
        """The partial sums of an epoch cut short, so a resumed run logs the same losses."""
        return {
            "loss_sum": self.loss_sum,
            "log_sums": self.log_sums,
            "interval_logs": getattr(self, "interval_logs", {}),
            "log_counts": self.log_counts,
            "interval_log_counts": self.interval_log_counts,
            "windows": self.windows,
            "interval_loss": self.interval_loss,
            "interval_windows": self.interval_windows,
            "interval_samples": self.interval_samples,
        }

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.loss_sum = state["loss_sum"].to(self.device)
        self.log_sums = {k: v.to(self.device) for k, v in state.get("log_sums", {}).items()}
        self.interval_logs = {
            k: v.to(self.device) for k, v in state.get("interval_logs", {}).items()
        }
        self.interval_loss = state["interval_loss"].to(self.device)
        self.windows = state["windows"]
        self.interval_windows = state["interval_windows"]
        # older checkpoints: every step logged every value
        self.log_counts = state.get("log_counts", dict.fromkeys(self.log_sums, self.windows))
        self.interval_log_counts = state.get(
            "interval_log_counts", dict.fromkeys(self.interval_logs, self.interval_windows)
        )
        # Throughput is measured afresh: the clock of the run that saved this is gone.
        self.interval_samples, self.interval_started = 0, time.perf_counter()
        self.interval_tokens = 0

    def timed(self, loader: Iterable[Any], counters: Counters | None = None) -> Iterator[Any]:
        """Batches of ``loader``, timing how long each took to arrive (the step moves each to
        the device right before its forward: a window is never buffered there); with
        ``counters`` at an epoch's first batch, the epoch's sums start afresh."""
        if counters is not None and counters.batch_in_epoch == 0:
            self.start_epoch()
        if self._left_loader_at is not None:  # the clock stood still since the last epoch ended
            self.interval_started += time.perf_counter() - self._left_loader_at
            self._left_loader_at = None
        iterator = iter(loader)
        first_arrived: float | None = None  # host clocks only: perf_counter, no device sync
        try:
            while True:
                begin = time.perf_counter()
                try:
                    batch = next(iterator)
                except StopIteration:
                    return
                arrived = time.perf_counter()
                self.last_wait_s = arrived - begin
                self.wait_s += self.last_wait_s
                if first_arrived is None:
                    first_arrived = arrived
                else:
                    self.epoch_wait_s += self.last_wait_s
                    self.epoch_waits += 1
                yield batch
        finally:  # the epoch's end, or the loop left it (the last step, a stop): clock stops
            self._left_loader_at = time.perf_counter()
            if first_arrived is not None:
                self.epoch_fed_s += self._left_loader_at - first_arrived

    def record(
        self,
        window: list[Any],
        result: StepResult,
        counters: Counters,
        values: StepValues | None = None,
    ) -> StepReport:
        """One step's bookkeeping: ``counters`` advanced (a step GradScaler skipped is not
        counted), its facts added to the sums on the device (with the values ``tw.log``
        collected), and every ``log_every`` steps the one host read; returns the frozen report
        observers see."""
        if self.first_step_s is None:
            self.first_step_s = time.perf_counter() - self.created
        samples = sum(batch_size_of(m.batch) for m in window)
        counters.advance(window, result.stepped, samples)
        logs = with_logged(result.logs, values)
        if self.counts_tokens is None:  # once: a shape test of the first batch
            self.counts_tokens = tokens_in(window[0].batch) is not None
        if self.counts_tokens:
            self.interval_tokens += sum(tokens_in(m.batch) or 0 for m in window)
        loss, grad_norm, lr = result.loss, result.grad_norm, result.lr
        self.loss_sum += loss
        self.interval_loss += loss
        for name, value in logs.items():
            value = value.detach().float().to(self.device)
            self.log_sums[name] = self.log_sums.get(name, 0) + value
            self.interval_logs[name] = self.interval_logs.get(name, 0) + value
            self.log_counts[name] = self.log_counts.get(name, 0) + 1
            self.interval_log_counts[name] = self.interval_log_counts.get(name, 0) + 1
        self.windows += 1
        self.interval_windows += 1
        self.interval_samples += samples
        self.last_lr = lr
        due = result.stepped and counters.step % self.log_every == 0
        return StepReport(
            step=counters.step,
            epoch=counters.epoch + 1,  # 1-based, as in the epoch records
            batch_in_epoch=counters.batch_in_epoch,
            loss=loss,
            grad_norm=grad_norm,
            lr=lr,
            stepped=result.stepped,
            samples=samples,
            data_wait_s=self.last_wait_s,
            scale=self.precision.scale if self.precision is not None else None,
            logged=self.read_interval(grad_norm, lr) if due else None,
            window=tuple(window),
        )

    def read_interval(self, grad_norm: torch.Tensor, lr: float) -> dict[str, float]:
        """Floats since the last log: the loop's one host sync per ``log_every`` steps."""
        now = time.perf_counter()
        probing = self.flops.take_overhead() if self.flops is not None else 0.0
        elapsed = max(now - self.interval_started - probing, 1e-9)
        windows = self.interval_windows
        head = [self.interval_loss / windows, grad_norm.float().to(self.device)]
        self.interval_logs = self._agreed(self.interval_logs, self.interval_log_counts)
        values = _with_counts(head, self.interval_logs, self.interval_log_counts, self.device)
        ranks = 1
        if self.world is not None:
            values, ranks = self.world.mean(values), self.world.world_size
        (loss, norm), extra_values = _means_of(values.tolist(), len(head), len(self.interval_logs))
        logged = {
            "loss": loss,
            **dict(zip(self.interval_logs, extra_values, strict=True)),
            "grad_norm": norm,
            "lr": lr,
            "samples_per_s": self.interval_samples * ranks / elapsed,
            **(
                {"tokens_per_s": self.interval_tokens * ranks / elapsed}
                if self.counts_tokens
                else {}
            ),
            "data_wait": (self.wait_s - self.interval_wait_s) / elapsed,
            "interval_s": elapsed,  # training seconds since the last log
            **(self.flops.rates(windows, elapsed, ranks) if self.flops is not None else {}),
        }
        self.run_seconds += elapsed
        self.run_windows += windows
        self.run_samples += self.interval_samples
        self.run_tokens += self.interval_tokens
        self.interval_loss = torch.zeros((), device=self.device)
        self.interval_logs, self.interval_log_counts = {}, {}
        self.interval_windows = self.interval_samples = self.interval_tokens = 0
        self.interval_started, self.interval_wait_s = now, self.wait_s
        return logged

    def run_rates(self) -> dict[str, Any]:
        """The run's training throughput (validation and saving left out): samples/s,
        tokens/s, TFLOP/s and MFU with the peak it is relative to."""
        # the interval since the last log counts too (a run shorter than log_every has one)
        until = self._left_loader_at or time.perf_counter()
        overhead = self.flops.overhead_s if self.flops is not None else 0.0
        pending = max(until - self.interval_started - overhead, 0.0)
        seconds = self.run_seconds + pending
        if seconds <= 0 or self.run_windows + self.interval_windows == 0:
            return {}
        ranks = self.world.world_size if self.world is not None else 1  # summed over ranks
        samples = self.run_samples + self.interval_samples
        rates: dict[str, Any] = {"samples_per_s": samples * ranks / seconds}
        rates["data_wait"] = min(1.0, self.wait_s / seconds)  # share of it spent waiting
        if self.first_step_s is not None:  # warm-up, shown apart from epoch 1's time
            rates["first_step_s"] = round(self.first_step_s, 3)
        if self.counts_tokens:
            rates["tokens_per_s"] = (self.run_tokens + self.interval_tokens) * ranks / seconds
        if self.flops is not None:
            steps = self.run_windows + self.interval_windows
            rates.update(self.flops.rates(steps, seconds, ranks))
            if self.flops.per_step:
                rates["flops_per_step"] = self.flops.per_step
            if self.flops.peak:
                rates["peak_flops"], rates["peak_source"] = self.flops.peak
        return rates

    def epoch_values(self) -> dict[str, float]:
        """``train_loss`` (and ``train_<name>`` of each step log) of the epoch: one host read."""
        head = [self.loss_sum / max(self.windows, 1)]
        self.log_sums = self._agreed(self.log_sums, self.log_counts)
        values = _with_counts(head, self.log_sums, self.log_counts, self.device)
        if self.world is not None:
            values = self.world.mean(values)
        (loss,), extra = _means_of(values.tolist(), 1, len(self.log_sums))
        names = ["loss", *self.log_sums]
        record = {f"train_{n}": v for n, v in zip(names, [loss, *extra], strict=True)}
        share = self.epoch_data_wait()
        if share is not None:
            record["data_wait"] = share
        return record

    def epoch_data_wait(self) -> float | None:
        """The share of this epoch's training time spent waiting for the next batch, its
        first batch left out (worker start-up); None before a second batch."""
        if self.epoch_waits == 0 or self.epoch_fed_s <= 0:
            return None
        return min(1.0, self.epoch_wait_s / self.epoch_fed_s)

    def _agreed(self, sums: dict[str, torch.Tensor], counts: dict[str, int]) -> dict:
        """``sums`` over the names every rank logged (a rank without one adds 0 over 0 steps),
        in one order on every rank: the all-reduce then adds like to like."""
        if self.world is None:
            return sums
        names = self.world.union(list(sums))
        for name in names:
            counts.setdefault(name, 0)
        zero = torch.zeros((), device=self.device)
        return {name: sums.get(name, zero) for name in names}

    def elapsed(self) -> float:
        return time.perf_counter() - self.started


def _with_counts(
    head: list[torch.Tensor],
    sums: dict[str, torch.Tensor],
    counts: dict[str, int],
    device: torch.device,
) -> torch.Tensor:
    """One tensor for one read (and one all-reduce): ``head``, then the sums of the extra
    values, then how many steps logged each (they are reduced as sums and counts, so a value
    logged on some steps, or on some ranks, is the mean of what was logged)."""
    if not sums:
        return torch.stack(head)
    tally = torch.tensor([float(counts[name]) for name in sums], device=device)
    return torch.cat([torch.stack([*head, *sums.values()]), tally])


def _means_of(values: list[float], heads: int, extras: int) -> tuple[list[float], list[float]]:
    """``(head values, extra means)`` from a read of `_with_counts`."""
    sums, counts = values[heads : heads + extras], values[heads + extras :]
    return values[:heads], [s / c if c else float("nan") for s, c in zip(sums, counts, strict=True)]
