"""TW004 in PyTorch Lightning: ``configure_optimizers`` hands Lightning a per-step schedule
without ``"interval": "step"``, and Lightning steps it once per epoch (its default).

The schedule is the one the rest of the doctor knows (``OneCycleLR``, ``CyclicLR``,
``get_*_schedule_with_warmup``, a ``LambdaLR`` over total steps); what is read here is only
how it is handed over: ``return [optimizer], [scheduler]``, ``{"optimizer": ...,
"lr_scheduler": scheduler}`` or ``{"lr_scheduler": {"scheduler": scheduler, "interval":
...}}``, from the hook or from the method whose result it returns, the schedule built there
or in one arm of a choice.  A module that steps its schedules itself
(``self.lr_schedulers()``, manual optimization) is left alone.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from .. import values as V
from .._astutil import dotted, last_part, walk
from ._common import report
from ._registry import Example

if TYPE_CHECKING:
    from ..analysis import ScopeWalker


def check_lightning_schedules(w: ScopeWalker) -> None:
    """TW004 at a ``return`` of ``configure_optimizers`` that hands Lightning a per-step
    schedule to step at its default interval, once per epoch."""
    func = w.func
    if func is None or w.cls is None or not _configures_optimizers(w.cls.node, func.name):
        return
    if _steps_its_own_schedules(w.cls.node):
        return
    assigned = _assigned_expressions(func)
    for ret in (n for n in _own_nodes(func) if isinstance(n, ast.Return) and n.value):
        for entry in _scheduler_entries(ret.value, assigned):
            value = _schedule_of(w, entry, assigned)
            if value is None:
                continue
            report(
                w,
                "TW004",
                ret,
                f"configure_optimizers() returns a per-step schedule ({value}) without "
                '"interval": "step", so Lightning steps it once per epoch: return '
                '{"optimizer": optimizer, "lr_scheduler": {"scheduler": scheduler, '
                '"interval": "step"}}',
            )
            break


def _schedule_of(
    w: ScopeWalker, entry: ast.expr, assigned: dict[str, list[ast.expr]]
) -> str | None:
    """The class of the per-step schedule ``entry`` names, or of one that the helper it is
    built by may return (``self.get_scheduler(optimizer)`` choosing by a setting)."""
    name = dotted(entry)
    value = w.lookup(name) if name else None
    if value is not None and value.kind == V.SCHEDULER and V.PER_STEP in value.flags:
        return value.cls or "scheduler"
    forms = assigned.get(name or "", [])
    chosen = [f for f in forms if _per_step_constructor(f)]
    if len(forms) > 1 and chosen:  # if cosine: ... elif warmup: get_..._with_warmup(...)
        return f"{last_part(dotted(chosen[0].func))}, one of its choices"  # type: ignore[attr-defined]
    if len(forms) == 1 and isinstance(forms[0], ast.Call):
        for e in w.events:
            if e.node is forms[0] and e.summary is not None and e.summary.returns_per_step_schedule:
                return f"one that {dotted(forms[0].func) or 'its helper'}() can return"
    return None


def _configures_optimizers(cls: ast.ClassDef, name: str) -> bool:
    """``configure_optimizers``, or the method it returns the result of (``return
    self._set_configure_optimizers()``)."""
    if name == "configure_optimizers":
        return True
    hook = next(
        (
            n
            for n in cls.body
            if isinstance(n, ast.FunctionDef) and n.name == "configure_optimizers"
        ),
        None,
    )
    return hook is not None and any(
        isinstance(n, ast.Return)
        and isinstance(n.value, ast.Call)
        and dotted(n.value.func) == f"self.{name}"
        for n in _own_nodes(hook)
    )


def _per_step_constructor(node: ast.expr) -> bool:
    """``OneCycleLR(...)``, ``CyclicLR(...)``, ``get_cosine_schedule_with_warmup(...)``."""
    tail = last_part(dotted(node.func)) if isinstance(node, ast.Call) else None
    return bool(tail) and (
        tail in {"OneCycleLR", "CyclicLR"} or bool(V.WARMUP_SCHEDULE.match(tail))
    )


def _steps_its_own_schedules(cls: ast.ClassDef) -> bool:
    """``self.lr_schedulers()`` or ``self.automatic_optimization = False`` in the class, or
    an ``lr_scheduler_step`` of its own."""
    for node in walk(cls):
        if isinstance(node, ast.FunctionDef) and node.name == "lr_scheduler_step":
            return True
        if isinstance(node, ast.Attribute) and node.attr in {
            "lr_schedulers",
            "automatic_optimization",
        }:
            return True
    return False


def _own_nodes(func: ast.AST) -> list[ast.AST]:
    """The nodes of ``func``'s body, without those of the functions defined in it."""
    found: list[ast.AST] = []
    stack = list(ast.iter_child_nodes(func))
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue
        found.append(node)
        stack.extend(ast.iter_child_nodes(node))
    return found


def _assigned_expressions(func: ast.AST) -> dict[str, list[ast.expr]]:
    """What each plain name is assigned in ``func``, and what a subscript of it is
    (``config["interval"] = "step"``), so that a returned name can be read as its dict."""
    assigned: dict[str, list[ast.expr]] = {}
    for node in _own_nodes(func):
        if not isinstance(node, ast.Assign):
            continue
        for target in node.targets:
            if isinstance(target, ast.Name):
                assigned.setdefault(target.id, []).append(node.value)
            elif isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
                # a key set later: the dict is not the literal any more, say it has it
                key = target.slice
                if isinstance(key, ast.Constant) and key.value == "interval":
                    assigned.setdefault(target.value.id, []).append(node.value)
    return assigned


def _scheduler_entries(
    node: ast.expr, assigned: dict[str, list[ast.expr]], depth: int = 0
) -> list[ast.expr]:
    """The schedules in what ``configure_optimizers`` returns that Lightning steps at its
    default interval (an entry with an ``interval`` key of its own is not one)."""
    if depth > 3:
        return []
    if isinstance(node, ast.Name) and node.id in assigned:
        forms = assigned[node.id]
        if len(forms) == 1 and isinstance(forms[0], (ast.Dict, ast.Tuple, ast.List)):
            return _scheduler_entries(forms[0], assigned, depth + 1)
        if not any(isinstance(f, (ast.Dict, ast.Tuple, ast.List)) for f in forms):
            return [node]  # a schedule, built in one arm or another
        if len(forms) > 1 and any(not isinstance(f, ast.Dict) for f in forms[1:]):
            return []  # the dict is given an interval (or more) after it is built
        return [node] if len(forms) == 1 else []
    if isinstance(node, (ast.Name, ast.Attribute)):
        return [node]
    if isinstance(node, ast.Tuple) and len(node.elts) == 2:
        optimizers, schedulers = node.elts
        if isinstance(optimizers, (ast.List, ast.Tuple)) and isinstance(
            schedulers, (ast.List, ast.Tuple)
        ):  # return [optimizer], [scheduler]
            return [e for s in schedulers.elts for e in _scheduler_entries(s, assigned, depth + 1)]
        return []
    if isinstance(node, (ast.List, ast.Tuple)):  # a list of optimizer dicts
        return [
            e
            for d in node.elts
            if isinstance(d, ast.Dict)
            for e in _scheduler_entries(d, assigned, depth + 1)
        ]
    if isinstance(node, ast.Dict):
        keys = {
            k.value: v
            for k, v in zip(node.keys, node.values, strict=True)
            if isinstance(k, ast.Constant)
        }
        if None in node.keys or "interval" in keys:
            return []  # **config, or an interval of its own
        if "lr_scheduler" in keys:
            return _scheduler_entries(keys["lr_scheduler"], assigned, depth + 1)
        if "scheduler" in keys:
            return _scheduler_entries(keys["scheduler"], assigned, depth + 1)
        return []
    return []


_MODULE = """\
import pytorch_lightning as pl


class Classifier(pl.LightningModule):
    def __init__(self, net, steps):
        super().__init__()
        self.net = net
        self.steps = steps

    def training_step(self, batch, batch_idx):
        x, y = batch
        return F.cross_entropy(self.net(x), y)

    def configure_optimizers(self):
        optimizer = torch.optim.AdamW(self.parameters(), lr=1e-3)
        scheduler = OneCycleLR(optimizer, max_lr=1e-3, total_steps=self.steps)
        {ret}
"""

EXAMPLES = (
    Example(
        "lightning_per_step_schedule_in_two_lists",
        _MODULE.format(ret="return [optimizer], [scheduler]"),
        [(17, "TW004")],
    ),
    Example(
        "lightning_per_step_schedule_in_a_dict_without_interval",
        _MODULE.format(ret='return {"optimizer": optimizer, "lr_scheduler": scheduler}'),
        [(17, "TW004")],
    ),
    Example(
        "lightning_per_step_schedule_stepped_per_step",
        _MODULE.format(
            ret='return {"optimizer": optimizer, "lr_scheduler": '
            '{"scheduler": scheduler, "interval": "step"}}'
        ),
        [],
    ),
    Example(
        # a helper choosing the schedule by a setting: one choice is per step
        "lightning_per_step_schedule_of_a_helpers_choice",
        _MODULE.replace(
            "        scheduler = OneCycleLR(optimizer, max_lr=1e-3, total_steps=self.steps)\n",
            "        scheduler = self.make_schedule(optimizer)\n",
        ).format(ret="return [optimizer], [scheduler]")
        + """
    def make_schedule(self, optimizer):
        if self.hparams.schedule == "cyclic":
            return torch.optim.lr_scheduler.CyclicLR(optimizer, 1e-4, 1e-3)
        return StepLR(optimizer, step_size=30)
""",
        [(17, "TW004")],
    ),
    Example(
        # the module steps it itself, in training_step
        "lightning_schedule_stepped_by_hand",
        _MODULE.replace(
            "        return F.cross_entropy(self.net(x), y)\n",
            "        self.lr_schedulers().step()\n        return F.cross_entropy(self.net(x), y)\n",
        ).format(ret="return [optimizer], [scheduler]"),
        [],
    ),
    Example(
        # an epoch schedule handed over per epoch is right
        "lightning_epoch_schedule_in_two_lists",
        _MODULE.replace(
            "OneCycleLR(optimizer, max_lr=1e-3, total_steps=self.steps)",
            "StepLR(optimizer, step_size=30)",
        ).format(ret="return [optimizer], [scheduler]"),
        [],
    ),
    Example(
        # crystal-gnn: configure_optimizers returns a helper's result; the helper picks the
        # schedule by a setting, one choice a warmup schedule, in a config dict without an
        # interval
        "lightning_per_step_choice_in_a_helper_returned_by_the_hook",
        _MODULE.replace(
            "        optimizer = torch.optim.AdamW(self.parameters(), lr=1e-3)\n"
            "        scheduler = OneCycleLR(optimizer, max_lr=1e-3, total_steps=self.steps)\n",
            "        return self._set_configure_optimizers()\n\n"
            "    def _set_configure_optimizers(self):\n"
            "        optimizer = torch.optim.AdamW(self.parameters(), lr=1e-3)\n"
            '        if self.hparams.scheduler == "cosine":\n'
            "            scheduler = CosineAnnealingLR(optimizer, T_max=10)\n"
            "        else:\n"
            "            scheduler = get_constant_schedule_with_warmup(optimizer, 100)\n"
            '        config = {{"scheduler": scheduler, "monitor": "val/loss"}}\n',
        ).format(ret="return [optimizer], [config]"),
        [(24, "TW004")],
    ),
)
