"""TW019: ``tensor.to(device)`` / ``.cuda()`` / ``.cpu()`` as a statement, its result
discarded.
"""

from __future__ import annotations

import ast
import re

from .. import values as V
from .._astutil import dotted, last_part, walk
from ..analysis import ScopeWalker
from ..loop_kinds import ITER_WRAPPERS
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
            # arithmetic makes tensors, never modules; an optimizer's state holds tensors
            "discarded_to_of_arithmetic_and_of_optimizer_state",
            """\
            def update(self, r, d, s2):
                q_backup = r + self.gamma * (1 - d) * self.q_target(s2)
                q_backup.to(self.device)
                for state in self.state.values():
                    state["exp_avg"].to(self.device)
                return q_backup
            """,
            [(3, "TW019"), (5, "TW019")],
        ),
        Example(
            "module_to_is_in_place",
            "model = nn.Linear(2, 2)\nmodel.to('cpu')\nmodel.cuda()\n",
            [],
        ),
        Example(
            # an in-place copy_ returns the tensor; its .to() copy is dropped (a module's
            # requires_grad_() returns the module, which .to() moves in place)
            "discarded_to_of_an_in_place_copy",
            """\
            class Model(nn.Module):
                def __init__(self, init_emb, device):
                    super().__init__()
                    self.emb = nn.Embedding(100, 8)
                    self.emb.weight.data.copy_(torch.from_numpy(init_emb)).to(device)
                    self.head = nn.Linear(8, 2).requires_grad_(False).to(device)
                    self.head.requires_grad_(True).to(device)
            """,
            [(5, "TW019")],
        ),
        Example(
            # unsqueeze() is a tensor's alone: its .cuda() copy is dropped (a module moved
            # by .cuda() as a statement is moved in place)
            "discarded_cuda_of_an_unsqueezed_image",
            """\
            def load_image(name, model):
                image = transform(Image.open(name).convert("RGB"))
                image = image.unsqueeze(0)
                image.cuda()
                model = model.eval()
                model.cuda()
                return model(image)
            """,
            [(4, "TW019")],
        ),
        Example(
            # a sparse optimizer's mask kept in the parameter's state, by key
            "discarded_to_of_a_mask_kept_by_key",
            """\
            def update_mask(self, masks):
                for group in self.param_groups:
                    for p in group["params"]:
                        self.state[p]["mask"] = masks[p]
                        self.state[p]["mask"].to(p)
            """,
            [(5, "TW019")],
        ),
        Example(
            # gather() and squeeze(): a tensor's methods, never a module's
            "discarded_to_of_a_gathered_tensor",
            """\
            def last_relevant(output, masks):
                last_output = output.gather(1, masks).squeeze(1)
                last_output.to(output.device)
                return last_output
            """,
            [(3, "TW019")],
        ),
        Example(
            # a loader's whole item, not unpacked: a graph Batch, a BatchEncoding or the
            # project's batch class, whose to() moves it in place (a tensor item is rare)
            "to_of_a_loaders_whole_item",
            """\
            def validate(self, loader):
                for i, batch in enumerate(loader):
                    batch.to(self.device)
                    out = self._forward(batch)
                for x, y in loader:
                    x.to(self.device)
            """,
            [(6, "TW019")],
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
    receiver = expr.func.value
    if _a_tensor_in_place(receiver):
        method = receiver.func.attr  # type: ignore[attr-defined]
        report(
            w,
            "TW019",
            expr,
            f"{method}(...) returns the tensor it changed in place, and its "
            f".{expr.func.attr}(...) copy is discarded: the tensor stays where it was",
        )
        return
    name = dotted(receiver) or _state_entry(receiver)
    value = w.lookup(name) if dotted(receiver) else None
    if value is not None and _a_loaders_whole_item(w, name):
        return
    if (value is not None and value.kind == V.TENSOR) or (
        value is None
        and name is not None
        and (
            _MASK.search(name.rpartition(".")[2])
            or _state_entry(receiver)
            or _made_by_arithmetic(w, name, expr)
        )
    ):
        report(
            w,
            "TW019",
            expr,
            f"{name}.{expr.func.attr}(...) returns a new tensor that "
            f"is discarded: write {name} = {name}.{expr.func.attr}(...)",
        )


def _a_loaders_whole_item(w: ScopeWalker, name: str | None) -> bool:
    """``for batch in loader`` / ``for i, batch in enumerate(loader)``, ``batch`` bound
    nowhere else in the scope: the batch object itself (``x, y`` are its tensors)."""
    scope = w.func if w.func is not None else w.fa.tree
    loops = [
        n for n in walk(scope) if isinstance(n, (ast.For, ast.AsyncFor)) and _whole_item(n, name)
    ]
    assigned = any(
        isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign))
        and any(dotted(t) == name for t in (n.targets if isinstance(n, ast.Assign) else [n.target]))
        for n in walk(scope)
    )
    return bool(loops) and not assigned


def _whole_item(loop: ast.For | ast.AsyncFor, name: str | None) -> bool:
    target, over = loop.target, loop.iter
    enumerated = False  # tqdm(enumerate(loader)), enumerate(tqdm(loader))
    while (
        isinstance(over, ast.Call) and last_part(dotted(over.func)) in ITER_WRAPPERS and over.args
    ):
        enumerated |= last_part(dotted(over.func)) == "enumerate"
        over = over.args[0]
    if enumerated:
        if not (isinstance(target, ast.Tuple) and len(target.elts) == 2):
            return False
        target = target.elts[1]
    if not isinstance(target, ast.Name) or target.id != name:
        return False
    return "loader" in last_part(dotted(over)).lower()


def _a_tensor_in_place(node: ast.expr) -> bool:
    """``w.weight.data.copy_(init).to(device)``: an in-place tensor method (``copy_``,
    ``fill_``, ``normal_``) returns its tensor (a module's ``requires_grad_()`` returns the
    module, moved in place by ``.to()``)."""
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr.endswith("_")
        and not node.func.attr.startswith("_")
        and node.func.attr not in {"requires_grad_", "share_memory_"}
    )


# src_mask, attention_mask, masks: tensors by name (no module or batch object is called so)
_MASK = re.compile(r"(^|_)masks?$", re.I)


# An optimizer's per-parameter state: tensors by key (``state["exp_avg"].to(device)``).
_STATE_KEYS = {"exp_avg", "exp_avg_sq", "max_exp_avg_sq", "momentum_buffer", "square_avg"}


def _state_entry(node: ast.expr) -> str | None:
    """An optimizer state's tensor, or a mask kept by key (``self.state[p]["mask"]``)."""
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
        key = node.slice.value
        if key in _STATE_KEYS or (isinstance(key, str) and _MASK.search(key)):
            return f"{dotted(node.value) or ast.unparse(node.value)}[{key!r}]"
    return None


def _made_by_arithmetic(w: ScopeWalker, name: str, at: ast.expr) -> bool:
    """``q_backup = r + gamma * (1 - d) * q_next``: only tensors among the things with a
    ``.to()`` come out of arithmetic (modules do not, and numbers and arrays have none);
    ``image = image.unsqueeze(0)``: nor out of a method only tensors have."""
    scope = w.func if w.func is not None else w.fa.tree
    line = getattr(at, "lineno", 0)
    last: ast.expr | None = None
    for node in walk(scope):
        if (
            isinstance(node, ast.Assign)
            and node.lineno < line
            and any(dotted(t) == name for t in node.targets)
            and (last is None or node.lineno > getattr(last, "lineno", 0))
        ):
            last = node.value
    if _tensor_only_method(last):
        return True  # image = image.unsqueeze(0): only a tensor has unsqueeze()
    return isinstance(last, ast.BinOp) and not any(
        isinstance(n, (ast.JoinedStr, ast.List, ast.Tuple))
        or (isinstance(n, ast.Constant) and isinstance(n.value, str))
        for n in walk(last)
    )


# Methods that only a tensor has (not a module, an array, an image or a list).
_TENSOR_ONLY = {
    "unsqueeze", "permute", "contiguous", "detach", "view_as", "expand_as", "type_as",
    "masked_fill", "index_select", "narrow", "gather", "squeeze", "view", "reshape",
    "flatten", "transpose", "clone",
}  # fmt: skip


def _tensor_only_method(node: ast.expr | None) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in _TENSOR_ONLY
    )
