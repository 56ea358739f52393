"""Shared by the rule families: predicates over events, the translation of a called
function's names into its caller's, and the summary of a scope that its callers use.

Not a family (its name starts with ``_``, so the registry skips it).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from .. import values as V
from .._astutil import dotted
from ..analysis import ScopeWalker
from ..events import (
    BACKWARD,
    CALL,
    EVAL,
    FORWARD,
    MODE_UNKNOWN,
    OPAQUE,
    SCHED,
    STEP,
    TRAIN,
    ZERO,
    Event,
    ModeEffect,
    Summary,
)
from ..values import Value

# Calls that certainly do not change a model's train/eval mode even though they receive it.
_HARMLESS_CALLS = {
    "print", "len", "isinstance", "str", "repr", "type", "id", "hasattr", "getattr", "float",
    "int", "sum", "enumerate", "zip", "range", "list", "dict", "tuple", "max", "min", "abs",
    "round", "sorted", "format", "iter", "next", "vars",
}  # fmt: skip


# -- small predicates over events ---------------------------------------------------------
# A call of a function of this file (CALL, with its Summary) counts as what it does inside.
def is_backward(e: Event) -> bool:
    """A backward() call, or a call of a function that runs one."""
    return e.kind == BACKWARD or (e.kind == CALL and e.summary is not None and
                                  bool(e.summary.backward))  # fmt: skip


def is_step(e: Event) -> bool:
    """An optimizer step, or a call of a function that steps."""
    return e.kind == STEP or (e.kind == CALL and e.summary is not None and bool(e.summary.steps))


def is_zero(e: Event) -> bool:
    """A zero_grad() (or ``p.grad = None``), or a call of a function that clears."""
    return e.kind == ZERO or (e.kind == CALL and e.summary is not None and e.summary.zero_grad)


def is_training(e: Event) -> bool:
    """backward() or step(), or a call of a function that runs either."""
    return e.kind in {BACKWARD, STEP} or (
        e.kind == CALL and e.summary is not None and e.summary.trains
    )


def events_in(w: ScopeWalker, loop_id: int) -> list[Event]:
    """The events inside a loop (nested loops included), in source order."""
    return [e for e in w.events if loop_id in e.loops]


def iteration_events(w: ScopeWalker, e: Event) -> list[Event]:
    """The events of the iteration ``e`` belongs to (its innermost loop, or the function)."""
    if e.loops:
        return events_in(w, e.loops[-1])
    return [x for x in w.events if not x.loops]


def caller_key(e: Event, key: str) -> str | None:
    """Translate a name used inside a called function into the caller's name for it."""
    assert e.summary is not None
    if key in e.argmap:
        return V.normalize_receiver(e.argmap[key])
    if key.startswith("self."):
        return key if e.same_class else None
    if key in e.summary.params:
        return None
    return key  # a module-level global seen by both


def mode_effects(w: ScopeWalker, e: Event) -> Iterator[tuple[str, ModeEffect]]:
    """(model name, effect) pairs for an event: eval()/train() or a call that changes modes."""
    if e.kind in {EVAL, TRAIN, MODE_UNKNOWN} and e.receiver:
        final = {EVAL: "eval", TRAIN: "train", MODE_UNKNOWN: "unknown"}[e.kind]
        yield e.receiver, ModeEffect(final=final)
    elif e.kind == CALL and e.summary is not None:
        for key, effect in e.summary.modes.items():
            mapped = caller_key(e, key)
            if mapped:
                yield mapped, effect
    elif e.kind in {CALL, OPAQUE}:
        func = e.node.func if isinstance(e.node, ast.Call) else None
        if dotted(func) in _HARMLESS_CALLS:
            return
        for arg in e.args:
            yield w.model_key(arg) or arg, ModeEffect(final="unknown")


def report(w: ScopeWalker, code: str, node: ast.AST, message: str) -> None:
    """Report a finding at ``node`` (kept only in the reporting pass)."""
    w.fa.report(code, node, message)


def call_name(node: ast.AST) -> str:
    """``optimizer.step()``: how a step call is named in messages."""
    if isinstance(node, ast.Call):
        return (dotted(node.func) or "step") + "()"
    return "step()"


# -- summaries ----------------------------------------------------------------------------
def summarize(w: ScopeWalker) -> Summary:
    """What callers of this scope need to know (see :class:`~.analysis.Summary`)."""
    summary = Summary(params=list(w.params))
    for e in w.events:
        if e.kind == BACKWARD:
            summary.backward.append(e.node)
        elif e.kind == STEP:
            summary.steps.append(e.node)
            summary.train_loop = summary.train_loop or bool(e.loops)
        elif e.kind == ZERO:
            summary.zero_grad = True
        elif e.kind == SCHED and e.receiver:
            summary.sched_steps.add(e.receiver)
        elif e.kind == CALL and e.summary is not None:
            inner = e.summary
            summary.backward += inner.backward
            summary.steps += inner.steps
            summary.zero_grad = summary.zero_grad or inner.zero_grad
            summary.train_loop = (
                summary.train_loop or inner.train_loop or (bool(e.loops) and bool(inner.steps))
            )
            summary.sched_steps |= {k for k in map(lambda s: caller_key(e, s),
                                                   inner.sched_steps) if k}  # fmt: skip
    summary.modes = final_modes(w)
    summary.returns = _merged_returns(w.returns)
    summary.forwards = _mode_dependent_forwards(w)
    return summary


def _mode_dependent_forwards(w: ScopeWalker) -> dict[str, ast.AST]:
    """Forward passes with autograd on whose mode is the caller's (see Summary.forwards)."""
    forwards: dict[str, ast.AST] = {}
    if w.facts.grad_machinery:
        return forwards  # input gradients, saliency ...: the graph is wanted
    touched: set[str] = set()
    for e in w.events:
        if is_training(e):
            break
        if e.kind == FORWARD and e.receiver and not e.no_grad and e.receiver not in touched:
            forwards.setdefault(e.receiver, e.node)
        elif e.kind == CALL and e.summary is not None and not e.no_grad:
            for key, node in e.summary.forwards.items():
                mapped = caller_key(e, key)
                if mapped and mapped not in touched:
                    forwards.setdefault(mapped, node)
        touched |= {key for key, _ in mode_effects(w, e)}
    return forwards


def final_modes(w: ScopeWalker) -> dict[str, ModeEffect]:
    """How the scope leaves each model's mode (and sets it before its first training step)."""
    first_training = min((e.seq for e in w.events if is_training(e)), default=len(w.events))
    modes: dict[str, ModeEffect] = {}
    for e in w.events:
        for key, effect in mode_effects(w, e):
            current = modes.setdefault(key, ModeEffect())
            final = effect.final
            if final is None:
                continue
            if (
                current.final is None
                and e.seq < first_training
                and not e.path
                and e.kind in {EVAL, TRAIN}
            ):
                current.first = final
            # A conditional switch to eval may not happen: the end state is unknown. A
            # conditional train() still counts as restoring (staying silent is the safe side).
            if e.path and final != "train":
                final = "unknown"
            current.final = final
    return modes


def _merged_returns(returns: list[Value | None]) -> Value | None:
    if not returns:
        return None
    result = returns[0]
    for value in returns[1:]:
        result = V.merge(result, value)
    return result
