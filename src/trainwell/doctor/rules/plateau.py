"""TW018: ReduceLROnPlateau.step() without the metric it monitors (or with the epoch number)."""

from __future__ import annotations

import ast
import re

from .._astutil import dotted, last_part, walk
from ..analysis import ScopeWalker
from ..events import SCHED, Event
from ._common import report
from ._registry import Example, Rule, scope_check

TW018 = Rule(
    "TW018",
    "plateau-step-without-metric",
    "error",
    "ReduceLROnPlateau.step() is called without the monitored metric (or with the epoch number).",
    "ReduceLROnPlateau decides from the value passed to step(metrics). Without it the "
    "call fails after the first epoch; with the epoch number the 'metric' never improves "
    "(mode='min') so the LR is cut every `patience` epochs regardless of training.",
    "scheduler = ReduceLROnPlateau(optimizer, mode='min')\n"
    "for epoch in range(epochs):\n"
    "    val_loss = validate()\n"
    "    scheduler.step()\n",
    "scheduler = ReduceLROnPlateau(optimizer, mode='min')\n"
    "for epoch in range(epochs):\n"
    "    val_loss = validate()\n"
    "    scheduler.step(val_loss)\n",
    examples=(
        Example(
            "plateau_without_metric",
            """\
            def fit(optimizer, epochs):
                scheduler = ReduceLROnPlateau(optimizer)
                for epoch in range(epochs):
                    scheduler.step()
            """,
            [(4, "TW018")],
        ),
        Example(
            "plateau_with_metric",
            """\
            def fit(optimizer, epochs, validate):
                scheduler = ReduceLROnPlateau(optimizer)
                for epoch in range(epochs):
                    scheduler.step(validate())
            """,
            [],
        ),
        Example(
            # the counter of the epoch loop, whatever its name
            "plateau_stepped_with_the_loop_counter",
            """\
            def fit(optimizer, n_epoch, validate):
                scheduler = ReduceLROnPlateau(optimizer, patience=10)
                for _ in tqdm(range(n_epoch)):
                    validate()
                    scheduler.step(_)
            """,
            [(5, "TW018")],
        ),
        Example(
            "a_step_for_every_scheduler_but_a_plateau",
            """\
            def fit(optimizer, epochs, validate, scheduler):
                for epoch in range(epochs):
                    if not isinstance(scheduler, ReduceLROnPlateau):
                        scheduler.step()
                    else:
                        scheduler.step(validate())
            """,
            [],
        ),
        Example(
            "a_step_only_for_a_plateau_without_its_metric",
            """\
            def fit(optimizer, epochs, validate):
                scheduler = ReduceLROnPlateau(optimizer)
                for epoch in range(epochs):
                    if isinstance(scheduler, ReduceLROnPlateau):
                        scheduler.step()
            """,
            [(5, "TW018")],
        ),
        Example(
            # a metric whose name starts with "epoch" is still the metric
            "plateau_with_a_metric_named_after_the_epoch",
            """\
            def fit(optimizer, epochs, validate):
                scheduler = ReduceLROnPlateau(optimizer)
                for epoch in range(epochs):
                    epoch_val_loss = validate()
                    scheduler.step(epoch_val_loss)
            """,
            [],
        ),
    ),
)


@scope_check(TW018)
def check_plateau(w: ScopeWalker) -> None:
    """TW018: ReduceLROnPlateau.step() needs the monitored metric."""
    for sched in (e for e in w.events if e.kind == SCHED and e.value is not None):
        if sched.value.cls != "ReduceLROnPlateau" or not isinstance(sched.node, ast.Call):
            continue
        call = sched.node
        if _excluded_by_an_isinstance_test(w, call):
            continue  # if not isinstance(sched, ReduceLROnPlateau): sched.step()
        if not call.args and not call.keywords:
            report(
                w,
                "TW018",
                call,
                "ReduceLROnPlateau.step() is called without the "
                "metric it monitors: pass it, e.g. scheduler.step(val_loss)",
            )
        elif (
            len(call.args) == 1
            and not call.keywords
            and _is_the_epoch_number(w, sched, call.args[0])
        ):
            report(
                w,
                "TW018",
                call,
                "ReduceLROnPlateau.step() receives the epoch "
                "number as its metric: pass the validation metric instead",
            )


def _excluded_by_an_isinstance_test(w: ScopeWalker, call: ast.Call) -> bool:
    """The step sits where its scheduler is known not to be a ReduceLROnPlateau: in the
    body of ``if not isinstance(sched, ReduceLROnPlateau):`` or the else of ``if
    isinstance(sched, ReduceLROnPlateau):`` (a loop written for any scheduler class)."""
    for node in (n for stmt in w.body for n in walk(stmt)):
        if not isinstance(node, ast.If):
            continue
        test, negated = node.test, False
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            test, negated = test.operand, True
        if not _isinstance_of_plateau(test):
            continue
        arm = node.body if negated else node.orelse
        if any(n is call for stmt in arm for n in walk(stmt)):
            return True
    return False


def _isinstance_of_plateau(test: ast.expr) -> bool:
    if not (isinstance(test, ast.Call) and dotted(test.func) == "isinstance"):
        return False
    classes = test.args[1:2]
    return any(last_part(dotted(c)) == "ReduceLROnPlateau" for a in classes for c in walk(a))


# epoch, cur_epoch, n_epoch, epoch_idx, self.epoch; not epoch_loss or val_loss_epoch
_EPOCH_COUNTER = re.compile(
    r"(cur(rent)?_?|n_?|num_?|i_?|e_?)?epochs?(_?(idx|index|num|no|i|id|count|counter))?",
    re.I,
)


def _is_the_epoch_number(w: ScopeWalker, sched: Event, arg: ast.expr) -> bool:
    """The argument counts epochs: a name that says so, or the counter of a loop around
    the step over ``range(...)`` (``for _ in tqdm(range(n_epoch)): ... step(_)``)."""
    name = dotted(arg)
    if name is None:
        return False
    if _EPOCH_COUNTER.fullmatch(last_part(name)):
        return True
    for lid in sched.loops:
        loop = w.loops[lid].node
        if isinstance(loop, ast.For) and _counter_of(loop) == name and _over_a_range(loop.iter):
            return True
    return False


def _counter_of(loop: ast.For) -> str | None:
    return loop.target.id if isinstance(loop.target, ast.Name) else None


def _over_a_range(node: ast.expr) -> bool:
    """``range(...)``, ``trange(...)``, ``tqdm(range(...))``."""
    if not isinstance(node, ast.Call):
        return False
    name = last_part(dotted(node.func))
    if name in {"range", "trange"}:
        return True
    return name in {"tqdm", "tqdm_notebook"} and bool(node.args) and _over_a_range(node.args[0])
