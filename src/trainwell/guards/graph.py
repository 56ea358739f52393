"""Autograd graphs nobody uses: built in validation, or kept alive across training steps.

Every forward that builds a graph gets a small `ForwardRecord`, referenced only by a hook on its
output: the record lives exactly as long as the output tensor or its graph does. So

* a forward in eval mode with grad enabled whose output never sees a backward before the next
  training step is a validation (or inference) pass that built a graph for nothing;
* training records of several steps (``retained_steps`` of them, or 2), each still alive
  ``retained_steps`` optimizer steps later, mean something keeps every step's graph:
  ``losses.append(loss)``, ``total += loss``, stored outputs. One old graph alone is not a
  leak: a variable holds the last loss until it is reassigned, and a model stepped only every
  few steps of another (a GAN generator, every ``n_critic`` critic steps) keeps its last loss
  that long.

Both findings point at the line that caused them: the validation forward's line (remembered
when the first graph-building eval forward runs), and for kept graphs the line that joins an
old graph to the new step's (``total += loss``), found by watching the torch operations of one
more step with a `TorchFunctionMode` once the leak is certain, plus the name of the variable in
your loop that holds the old graphs (``losses`` for ``losses.append(loss)``).
"""

from __future__ import annotations

import contextlib
import gc
import sys
import weakref
from collections import deque
from collections.abc import Mapping
from types import FrameType
from typing import Any

import torch
from torch.overrides import TorchFunctionMode

from trainwell.errors import user_frame
from trainwell.guards.base import ForwardRecord, Guard, first_grad_tensor
from trainwell.guards.finding import FrameInfo, frame_info


class EvalGraphGuard(Guard):
    switch = "eval_graph"

    def attach(self) -> None:
        self.pending: ForwardRecord | None = None  # first graph-building eval forward unresolved
        self.at: FrameInfo | None = None  # the line of that forward

    def on_forward(
        self,
        args: tuple,
        kwargs: Mapping[str, Any],
        output: Any,
        record: ForwardRecord | None,
        grad_enabled: bool,
    ) -> None:
        if record is None:
            return
        if not record.training:
            if self.pending is None and not self.ctx.reporter.seen("validation-graph", self.where):
                self.pending, self.at = record, frame_info()
            return
        self._resolve()

    def on_step_pre(self) -> None:
        self._resolve()

    def on_read(self) -> None:
        self._resolve()

    def close(self) -> None:
        self._resolve()

    @property
    def where(self) -> str:
        return type(self.ctx.model).__name__

    def _resolve(self) -> None:
        pending, self.pending = self.pending, None
        if pending is None or pending.backwarded:
            return  # a backward used it: training in eval mode, the mode guard's business
        ctx = self.ctx
        ctx.report(
            "validation-graph",
            name="validation builds an autograd graph",
            message=(
                "the model ran in eval mode with gradients enabled and no backward used the "
                "output before training resumed"
            ),
            where=self.where,
            step=pending.step,
            at=self.at,
            why=(
                "every validation batch records a graph and keeps its activations: slower, "
                "and memory grows with each batch kept (e.g. summed losses) until OOM"
            ),
            fix="wrap validation and inference in torch.inference_mode() (or torch.no_grad())",
            switch=self.switch,
        )


class RetainedGraphGuard(Guard):
    switch = "retained_graph"

    def attach(self) -> None:
        self.records: deque[tuple[int, weakref.ref]] = deque(maxlen=10_000)
        self.old: list[tuple[int, weakref.ref]] = []  # records past the horizon, still alive
        self.done = False  # reported: stop looking (and stop paying for gc.collect)
        self.finder: _JoinFinder | None = None  # the leak is certain: finding its line
        self.holders: list[str] = []  # names in the user's loop that hold old graphs
        self.step_seen, self.step_begins = -1, 0  # the last step's first graph node

    def on_forward(
        self,
        args: tuple,
        kwargs: Mapping[str, Any],
        output: Any,
        record: ForwardRecord | None,
        grad_enabled: bool,
    ) -> None:
        if record is not None and record.training and not self.done:
            self.records.append((record.step, weakref.ref(record)))
            if record.step != self.step_seen:  # the sequence number where this step's graphs begin
                self.step_seen = record.step
                tensor = first_grad_tensor(output)
                node = tensor.grad_fn if tensor is not None else None
                self.step_begins = node._sequence_nr() if node is not None else self.step_begins

    def on_step_post(self) -> None:
        if self.finder is not None:  # watching whole steps since the leak was certain
            self.finder.steps_left -= 1
            if self.finder.steps_left == 0 or self.finder.found is not None:
                self._report_found()
            return
        if self.done:
            return
        ctx, records = self.ctx, self.records
        horizon = ctx.steps - ctx.config.retained_steps
        while records and records[0][0] < horizon:
            step, ref = records.popleft()
            if ref() is not None:
                self.old.append((step, ref))
        if not self.old or self._old_steps() < self._leak_steps():
            return
        gc.collect()  # a reference cycle is not a leak; rule it out before reporting
        if self._old_steps() >= self._leak_steps():
            self.done = True
            self.first_kept = self.old[0][0]
            records.clear()
            self.old.clear()
            self._find_cause()

    def close(self) -> None:
        if self.finder is not None:
            self._report_found()

    def _find_cause(self) -> None:
        """Name the variables of the user's loop that hold old graphs now, and watch the next
        step's torch operations for the one that joins an old graph to a new one."""
        # Graphs older than the step just done are the kept ones; the loop's own `loss` of
        # this step is not. An operation that joins one of those to this step's (or a later
        # step's) graph is the cause: `total += loss`, which may come after optimizer.step(),
        # where this runs, so the finder watches until two more steps are done. (Node numbers
        # say when a node was made, not how old its graph is: `total` gets a new node at each
        # `+=`, so the test compares against the step's start, first match wins.)
        frame = user_frame(sys._getframe(1))
        self.holders = _graph_holders(frame, self.step_begins) if frame is not None else []
        self.finder = _JoinFinder(self.step_begins)
        try:
            self.finder.__enter__()
        except Exception:  # no mode can be pushed here: report without the line
            self.finder = None
            self._report(None)

    def _report_found(self) -> None:
        finder, self.finder = self.finder, None
        assert finder is not None
        finder.stop()
        self._report(finder.found)

    def _leak_steps(self) -> int:
        return max(2, self.ctx.config.retained_steps)

    def _old_steps(self) -> int:
        """How many different steps' graphs are still alive past the horizon (drops the dead)."""
        self.old = [(step, ref) for step, ref in self.old if ref() is not None]
        return len({step for step, _ in self.old})

    def _report(self, found: tuple[str, FrameInfo] | None) -> None:
        ctx, step = self.ctx, self.first_kept
        held = f"; held by {', '.join(self.holders)}" if self.holders else ""
        joined = (
            f"; {found[0]}() at {found[1].source} joins it to the new step's graph" if found else ""
        )
        ctx.report(
            "retained-graph",
            name="graphs kept alive across steps",
            message=(
                f"the graph of a forward at step {step} is still alive {ctx.steps - step} "
                f"optimizer steps later{held}{joined}"
            ),
            where=type(ctx.model).__name__,
            step=ctx.steps,
            at=found[1] if found else None,
            why=(
                "a loss or output tensor stored with its graph (losses.append(loss), "
                "total += loss) keeps every step's graph: memory grows each step until OOM"
            ),
            fix="store loss.item() (at the logging interval) or loss.detach(), not loss",
            switch=self.switch,
        )


def _is_old_graph(value: Any, threshold: int) -> bool:
    node = getattr(value, "grad_fn", None) if isinstance(value, torch.Tensor) else None
    return node is not None and node._sequence_nr() < threshold


def _graph_holders(frame: FrameType, threshold: int) -> list[str]:
    """Names of the loop's variables holding a tensor with an old graph, or a list, tuple or
    dict of them (``total``, ``losses``)."""
    names = []
    for name, value in list(frame.f_locals.items()):
        items: Any = ()
        if isinstance(value, list | tuple):
            items = value[-50:]
        elif isinstance(value, dict):
            items = list(value.values())[-50:]
        if _is_old_graph(value, threshold) or any(_is_old_graph(v, threshold) for v in items):
            names.append(f"'{name}'")
    return names


class _JoinFinder(TorchFunctionMode):
    """For one step: the first torch operation whose inputs mix a graph older than the step
    (``threshold``) with a new one, and the user's line that called it."""

    def __init__(self, threshold: int) -> None:
        super().__init__()
        self.threshold = threshold
        self.found: tuple[str, FrameInfo] | None = None
        self.active = True
        self.steps_left = 2

    def __torch_function__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        if self.active and self.found is None:
            self._look(func, args, kwargs or {})
        return func(*args, **(kwargs or {}))

    def _look(self, func: Any, args: Any, kwargs: Any) -> None:
        tensors = [a for a in (*args, *kwargs.values()) if isinstance(a, torch.Tensor)]
        for a in args:
            if isinstance(a, list | tuple):
                tensors.extend(t for t in a if isinstance(t, torch.Tensor))
        nodes = [t.grad_fn for t in tensors if t.grad_fn is not None]
        if len(nodes) < 2:
            return
        seqs = [n._sequence_nr() for n in nodes]
        if min(seqs) < self.threshold <= max(seqs):
            at = frame_info(sys._getframe(2))
            if at is not None:
                self.found = (getattr(func, "__name__", str(func)), at)

    def stop(self) -> None:
        """Leave the mode stack (or, if another mode was pushed over it, go inert)."""
        self.active = False
        # not on top of the stack (another mode was pushed over it): stays inert
        with contextlib.suppress(Exception):
            self.__exit__(None, None, None)
