"""``train.compile``: `torch.compile` of the model's forward, in place, with its costs in view.

What `compiled_forward` does, and why:

* **In place, no wrapper module.** ``torch.compile(model)`` returns an ``OptimizedModule``
  whose state dict keys start with ``_orig_mod.``; checkpoints and exports written from it do
  not load into the plain model. Here the model keeps its class and its keys: only its
  ``forward`` is replaced, for this instance, for the length of the ``with`` block.
* **Hooks stay outside the graph.** Only ``forward`` is compiled; ``Module.__call__`` and the
  model's own forward hooks run eagerly around it, as with ``OptimizedModule`` for user
  modules. Guards that hook the model in some windows and not others cause no recompile.
  (``nn.Module.compile()`` would not compile an ``nn.Sequential`` at all: dynamo skips
  frames that start in ``torch.nn``; here the forward is entered from trainwell's own frame.)
* **Training and validation compile apart.** Two compiled entry points with their own code
  objects, so validation (eval mode, ``inference_mode``) is a second compile, not a
  "recompile" of the training graph that eats into dynamo's recompile limit.
* **Static shapes without a recompile for the short last batch.** With ``dynamic`` not
  true, a batch smaller than the largest seen so far in the same mode (the short last batch
  of an epoch or of the validation set) runs the eager forward: exact, one batch per epoch,
  and no new graph. A batch that differs otherwise (another sequence length) is compiled,
  and the recompile is reported with dynamo's reason.
* **CUDA graphs** (modes ``reduce-overhead`` and ``max-autotune``) reuse their output memory
  at the next replay. Training marks a new step (``torch.compiler.cudagraph_mark_step_begin``)
  once per optimizer step, at its first forward (a GAN's several forwards are one step);
  validation marks each batch and copies its outputs out of the graph's pool, since a metric
  may keep them (predictions for AUROC). Static shapes make the graphs replayable: the short
  last batch runs eagerly instead of recording a new graph.
* **Costs reported, not guessed.** Compile time (dynamo's own frame-compile metrics), the
  graphs, graph breaks and recompiles with their reasons, and the steady-state step time with
  compile time taken out: `CompileReport`, in the end-of-run summary and ``summary.json``.

trainwell imports ``torch._dynamo`` only when compile is on. (torch's own optimizers import it
when they are built, for ``torch._disable_dynamo`` on ``add_param_group``: torch's import.)
"""

from __future__ import annotations

import collections
import contextlib
import statistics
import sys
import time
import types
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import torch
from torch import nn
from torch.utils._python_dispatch import _get_current_dispatch_mode

from trainwell.config.compile import CompileSettings
from trainwell.observe.base import Observer, StepReport

#: The names of the two compiled entry points (dynamo's metrics report frames by name).
_TRAIN_ENTRY, _EVAL_ENTRY = "trainwell_compiled_train", "trainwell_compiled_eval"


@dataclass
class CompileReport:
    """What compiling cost and what it produced (``FitResult.compile``, ``summary.json``)."""

    settings: dict[str, Any]
    compile_s: float = 0.0  # dynamo's frame compile time, backward graphs included
    graphs: int = 0  # frames compiled (train, validation, recompiles, resumes after breaks)
    graph_breaks: dict[str, int] = field(default_factory=dict)  # reason -> times hit
    recompiles: list[str] = field(default_factory=list)  # dynamo's reason for each
    eager_batches: int = 0  # short last batches run by the eager forward (no recompile)
    steady_step_s: float | None = None  # median step time between logs, compile time removed

    def as_dict(self) -> dict[str, Any]:
        return {
            "settings": self.settings,
            "compile_s": round(self.compile_s, 3),
            "graphs": self.graphs,
            "graph_breaks": sum(self.graph_breaks.values()),
            "graph_break_reasons": {_first_line(k): v for k, v in self.graph_breaks.items()},
            "recompiles": len(self.recompiles),
            "recompile_reasons": list(self.recompiles),
            "eager_short_batches": self.eager_batches,
            "steady_step_ms": (
                None if self.steady_step_s is None else round(self.steady_step_s * 1e3, 3)
            ),
        }

    def describe(self) -> str:
        """One line, plus one per graph break and recompile reason."""
        steady = (
            f", steady step {self.steady_step_s * 1e3:.2f} ms"
            if self.steady_step_s is not None
            else ""
        )
        breaks = sum(self.graph_breaks.values())
        lines = [
            f"compile: {self.compile_s:.1f}s compiling {self.graphs} graphs{steady}; "
            f"{breaks} graph breaks, {len(self.recompiles)} recompiles"
            + (f", {self.eager_batches} short batches run eagerly" if self.eager_batches else "")
        ]
        lines += [f"  graph break ({n}x): {_first_line(r)}" for r, n in self.graph_breaks.items()]
        lines += [f"  recompile: {r}" for r in dict.fromkeys(self.recompiles)]
        if self.recompiles and any("size mismatch" in r for r in self.recompiles):
            lines.append("  shapes vary between batches: train.compile={dynamic: true} avoids this")
        return "\n".join(lines)


def _first_line(text: str) -> str:
    lines = [line.strip() for line in str(text).splitlines() if line.strip()]
    if not lines:
        return ""
    # dynamo's messages: "Failed to trace ...\n  Explanation: <the useful part>"
    explained = next((line for line in lines if line.startswith("Explanation:")), None)
    return f"{lines[0]}: {explained[len('Explanation:') :].strip()}" if explained else lines[0]


class CompiledForward(Observer):
    """The model's ``forward`` compiled in place while active (see the module docstring).

    Use as a context manager (`compiled_forward`); as an observer it times the steady steps
    between logs, so the report can give the step time without compile time.
    """

    def __init__(self, model: nn.Module, settings: CompileSettings) -> None:
        import torch._dynamo  # only here: compile is on

        self.model, self.settings = model, settings
        self.report = CompileReport(settings=_plain(settings))
        self._had_own_forward = "forward" in model.__dict__
        self._forward: Callable[..., Any] = model.forward  # the eager forward
        kwargs = settings.torch_kwargs()
        self._train = torch.compile(_entry(self._forward, _TRAIN_ENTRY), **kwargs)
        self._eval = torch.compile(_entry(self._forward, _EVAL_ENTRY), **kwargs)
        self._largest: dict[bool, int] = {}
        self._static = settings.dynamic is not True
        # CUDA graphs reuse their output memory at the next replay (see the module docstring)
        self._mark_step = settings.cuda_graphs
        self._new_step = True  # set again at each optimizer step's end (fit's observer)
        self._since_us = time.time_ns() // 1000
        self._breaks_before = collections.Counter(_dynamo_counters()["graph_break"])
        self._last_log: tuple[int, float] | None = None  # (step, compile seconds) at a log
        self._step_times: list[float] = []

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if _get_current_dispatch_mode() is not None:  # FLOPs or memory being counted: eager
            return self._forward(*args, **kwargs)
        training = torch.is_grad_enabled()
        if self._static:
            size = _leading_size(args, kwargs)
            largest = self._largest.get(training)
            if size is not None:
                if largest is not None and size < largest:
                    self.report.eager_batches += 1
                    return self._forward(*args, **kwargs)
                if largest is None or size > largest:
                    self._largest[training] = size
        if not self._mark_step:
            return (self._train if training else self._eval)(*args, **kwargs)
        if training:
            if self._new_step:  # once per optimizer step: a GAN's two forwards are one step
                torch.compiler.cudagraph_mark_step_begin()
                self._new_step = False
            return self._train(*args, **kwargs)
        torch.compiler.cudagraph_mark_step_begin()
        # a metric may keep a batch's outputs (AUROC, predictions) past the next replay
        return _owned(self._eval(*args, **kwargs))

    def __deepcopy__(self, memo: dict[int, Any]) -> Any:
        """A deep copy of the model (an EMA copy, a snapshot) gets its plain eager forward."""
        import copy

        twin = memo.get(id(self.model))
        if self._had_own_forward or twin is None:
            return copy.deepcopy(self._forward, memo)
        return types.MethodType(type(twin).forward, twin)

    # -- install / remove
    def install(self) -> None:
        self.model.forward = self  # an instance attribute: the class and state dict unchanged

    def remove(self) -> None:
        if self._had_own_forward:
            self.model.forward = self._forward
        else:
            self.model.__dict__.pop("forward", None)

    # -- observer: steady-state step time (at the logging interval only)
    def on_step_end(self, report: StepReport) -> None:
        """Each log interval's training time (the meter's: validation and saving left out)
        less the compile time within it, per step. The first interval is left out: its first
        steps pay more than dynamo's compile time (loading compiled code, first-run costs),
        so a run shorter than two logging intervals reports no steady step time."""
        self._new_step = True
        if report.logged is None or "interval_s" not in report.logged:
            return
        compiled = self._compile_seconds(training_only=True)
        if self._last_log is not None:
            step, compiled_then = self._last_log
            if report.step > step:
                training = report.logged["interval_s"] - (compiled - compiled_then)
                self._step_times.append(max(training, 0.0) / (report.step - step))
        self._last_log = (report.step, compiled)

    def close(self) -> None:
        self.finish()

    def finish(self) -> CompileReport:
        """Read dynamo's metrics for this run into `report` (idempotent)."""
        entries = self._entries()
        report = self.report
        report.compile_s = self._compile_seconds(entries)
        report.graphs = sum(1 for e in entries if getattr(e, "is_forward", True) is not False)
        report.recompiles = [
            str(e.recompile_reason).strip() for e in entries if getattr(e, "recompile_reason", None)
        ]
        after = collections.Counter(_dynamo_counters()["graph_break"])
        report.graph_breaks = dict(after - self._breaks_before)
        if self._step_times:
            report.steady_step_s = statistics.median(self._step_times)
        return report

    def _entries(self) -> list[Any]:
        from torch._dynamo.utils import get_compilation_metrics

        return [
            e
            for e in get_compilation_metrics()
            if (getattr(e, "start_time_us", None) or 0) >= self._since_us
            or (getattr(e, "start_time", None) or 0) * 1e6 >= self._since_us
        ]

    def _compile_seconds(
        self, entries: list[Any] | None = None, *, training_only: bool = False
    ) -> float:
        """Seconds dynamo spent compiling in this run; ``training_only``: not counting the
        validation entry point (its compile falls in validation time, not a step's)."""
        entries = self._entries() if entries is None else entries
        total = 0.0
        for e in entries:
            if training_only and getattr(e, "co_name", None) == _EVAL_ENTRY:
                continue
            frame = getattr(e, "entire_frame_compile_time_s", None)
            if frame:
                total += frame
            elif getattr(e, "is_forward", True) is False and getattr(e, "duration_us", None):
                total += e.duration_us / 1e6  # a backward graph compiled at its first use
        return total


@contextlib.contextmanager
def compiled_forward(
    model: nn.Module, value: bool | Mapping[str, Any] | None
) -> Iterator[CompiledForward | None]:
    """Compile ``model``'s forward in place for the block (``train.compile``); yields the
    `CompiledForward` (its ``report``), or None when compile is off. The model's own forward
    is back afterwards: ``predict``/``evaluate`` after `fit()` run eagerly unless you compile."""
    settings = CompileSettings.of(value)
    if settings is None:
        yield None
        return
    compiled = CompiledForward(model, settings)
    compiled.install()
    try:
        yield compiled
    finally:
        compiled.remove()
        compiled.finish()


def _entry(forward: Callable[..., Any], name: str) -> Callable[..., Any]:
    """A function that calls ``forward``, with a code object of its own: dynamo keeps a cache
    (and a recompile limit) per code object, so each entry point and each model get theirs."""

    def entry(*args: Any, **kwargs: Any) -> Any:
        return forward(*args, **kwargs)

    names = {"co_name": name, **({"co_qualname": name} if sys.version_info >= (3, 11) else {})}
    code = entry.__code__.replace(**names)
    return types.FunctionType(code, entry.__globals__, name, None, entry.__closure__)


def _owned(outputs: Any) -> Any:
    """``outputs`` with each tensor copied out of the CUDA graph's memory pool."""
    return torch.utils._pytree.tree_map_only(torch.Tensor, torch.clone, outputs)


def _leading_size(args: tuple, kwargs: dict[str, Any]) -> int | None:
    """The batch dimension of the first tensor argument (its shape: no device sync)."""
    for value in (*args, *kwargs.values()):
        if isinstance(value, torch.Tensor):
            return value.shape[0] if value.dim() else None
        if isinstance(value, Mapping):
            for inner in value.values():
                if isinstance(inner, torch.Tensor):
                    return inner.shape[0] if inner.dim() else None
    return None


def _dynamo_counters() -> Mapping[str, collections.Counter]:
    from torch._dynamo.utils import counters

    return counters


def _plain(settings: CompileSettings) -> dict[str, Any]:
    return {
        "mode": settings.mode,
        "dynamic": settings.dynamic,
        "fullgraph": settings.fullgraph,
        "backend": settings.backend,
        **({"options": dict(settings.options)} if settings.options else {}),
    }
