"""TW019: ``tensor.to(device)`` / ``.cuda()`` / ``.cpu()`` as a statement, its result
discarded.
"""

from __future__ import annotations

import ast
import re

from .. import values as V
from .._astutil import dotted
from ..analysis import ScopeWalker
from ._common import report
from ._registry import Example, Rule, expression_check

TW019 = Rule(
    "TW019",
    "discarded-tensor-move",
    "error",
    "tensor.to(device) / .cuda() / .cpu() is called as a statement and its result discarded.",
    "Unlike nn.Module.to(), Tensor.to() is not in place: it returns a new tensor and "
    "leaves the original where it was. The batch stays on the CPU, and the model either "
    "fails with a device mismatch later or (for CPU models and .cpu()) silently does "
    "nothing useful. Only tensors known to be tensors (unpacked from a DataLoader, made "
    "by torch.tensor/randn/..., or named as masks) are checked; modules are moved in place "
    "and are fine.",
    "for x, y in loader:\n    x.to(device)\n    y.to(device)\n",
    "for x, y in loader:\n    x = x.to(device)\n    y = y.to(device)\n",
    examples=(
        Example(
            "discarded_to",
            """\
            def fit(model, loader, device):
                model.to(device)
                for x, y in loader:
                    x.to(device)
            """,
            [(4, "TW019")],
        ),
        Example(
            # a mask is a tensor whatever built it
            "discarded_to_of_a_mask",
            """\
            def train_model(model, batches, device):
                for batch in batches:
                    src_mask, trg_mask = create_masks(batch.src, batch.trg)
                    src_mask.to(device)
                    trg_mask = trg_mask.to(device)
                    print(model(batch.src, src_mask, trg_mask))
            """,
            [(4, "TW019")],
        ),
        Example(
            "module_to_is_in_place",
            "model = nn.Linear(2, 2)\nmodel.to('cpu')\nmodel.cuda()\n",
            [],
        ),
    ),
)


@expression_check(TW019)
def check_discarded_to(w: ScopeWalker, expr: ast.expr) -> None:
    """TW019 at an expression statement ``x.to(device)`` whose result is dropped."""
    if not (isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute)):
        return
    if expr.func.attr not in {"to", "cuda", "cpu"}:
        return
    name = dotted(expr.func.value)
    value = w.lookup(name) if name else None
    if (value is not None and value.kind == V.TENSOR) or (
        value is None and name is not None and _MASK.search(name.rpartition(".")[2])
    ):
        report(
            w,
            "TW019",
            expr,
            f"{name}.{expr.func.attr}(...) returns a new tensor that "
            f"is discarded: write {name} = {name}.{expr.func.attr}(...)",
        )


# src_mask, attention_mask, masks: tensors by name (no module or batch object is called so)
_MASK = re.compile(r"(^|_)masks?$", re.I)
