"""What one call of a training-step function does that its callers' rules judge: whether
its backward() leaves the gradients scaled or the loss undivided (TW006, TW017), and which
epoch schedules it steps on every call (TW003, when the caller calls it per batch).

Not a family (its name starts with ``_``, so the registry skips it).
"""

from __future__ import annotations

import ast

from .. import values as V
from ..analysis import ScopeWalker
from ..events import BACKWARD, CALL, CLIP, FORWARD, SCHED, STEP, UNSCALE, Event, is_prefix
from ..foreign import ForeignNode
from ._existence_checks import without_existence_checks


def leaves_scaled_gradients(w: ScopeWalker) -> bool:
    """A GradScaler-scaled backward() here (or in a call), no unscale_() after the last one."""
    scaled = False
    for e in w.events:
        if e.kind == UNSCALE:
            scaled = False
        elif e.kind == BACKWARD:
            scaled = scaled or e.amp
        elif e.kind == CALL and e.summary is not None:
            scaled = scaled or e.summary.scaled_backward
    return scaled


def only_clips(w: ScopeWalker) -> bool:
    """The scope clips gradients (itself or through a call) and runs no model, computes no
    gradient and steps nothing: a clipping helper (not a MAML inner loop that clips too)."""
    kinds = {e.kind for e in w.events}
    clips = CLIP in kinds or any(
        e.kind == CALL and e.summary is not None and e.summary.clips for e in w.events
    )
    runs = any(
        e.kind == CALL and e.summary is not None and (e.summary.trains or e.summary.grad_forwards)
        for e in w.events
    )
    return (
        clips
        and not runs
        and not kinds & {BACKWARD, STEP, UNSCALE, FORWARD}
        and not w.facts.grad_machinery
    )


def unscaled_backward(w: ScopeWalker) -> list[ast.AST]:
    """The scope's backward() calls of an unscaled loss, its callees' included."""
    found: list[ast.AST] = []
    for e in w.events:
        if e.kind == BACKWARD and not e.engine and V.unscaled_loss(e.value):
            found.append(e.node)
        elif e.kind == CALL and e.summary is not None:
            found += e.summary.unscaled_backward
    return found


def epoch_schedules_each_call(w: ScopeWalker) -> list[ast.AST]:
    """The ``scheduler.step()`` calls of epoch schedules (StepLR(step_size=30),
    CosineAnnealingLR(T_max=epochs)) that run with the optimizer's step on every call of
    this function, outside any loop of it: a ``train_step(batch)`` that ends in
    ``optimizer.step(); scheduler.step()``. Called in a batch loop, it steps the schedule
    every batch (TW003, said by the caller). Its callees' such steps count when it calls
    them on every call too."""
    steps = [e for e in w.events if e.kind == STEP and not e.loops]
    found: list[ast.AST] = []
    for e in w.events:
        if e.loops:
            continue
        if e.kind == CALL and e.summary is not None and e.summary.epoch_schedules_each_call:
            if not e.path:
                found += e.summary.epoch_schedules_each_call
            continue
        if e.kind != SCHED or e.value is None or V.EPOCH_BASED not in e.value.flags:
            continue
        call = e.node
        if isinstance(call, ast.Call) and (call.args or call.keywords):
            continue  # step(epoch) or step(metric): not a count of calls
        path = without_existence_checks(w, e)
        if any(is_prefix(path, s.path) for s in steps):
            found.append(e.node)
    return found


def check_schedules_stepped_by_calls(w: ScopeWalker) -> None:
    """TW003 where this scope calls, inside a batch loop, a function that steps an epoch
    schedule on every call: at the ``scheduler.step()`` when it is in a file being
    checked, else at the call (``self.tr_batch(x, y)``)."""
    for e in w.events:
        if e.kind != CALL or e.summary is None or not e.loops:
            continue
        if not e.summary.epoch_schedules_each_call or not _per_batch(w, e):
            continue
        for node in e.summary.epoch_schedules_each_call:
            site = e.node if isinstance(node, ForeignNode) and not node.checked else node
            w.fa.report(
                "TW003",
                site,
                "an epoch-based LR scheduler is stepped on every call of "
                f"{_called(e)}, which is called every batch: step it once per epoch, "
                "after the batch loop",
            )


def _per_batch(w: ScopeWalker, e: Event) -> bool:
    loop = w.loops[e.loops[-1]]
    return loop.kind == "batch" or (loop.parent is not None and loop.kind != "epoch")


def _called(e: Event) -> str:
    func = e.node.func if isinstance(e.node, ast.Call) else None
    name = ast.unparse(func) if func is not None else "the step function"
    return f"{name}()"
