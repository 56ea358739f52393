"""TW013: sub-modules kept in a plain list or dict inside an nn.Module, unregistered. A
container made empty and filled item by item is said where it is made (the line to turn
into nn.ModuleList() / nn.ModuleDict()); a class of another project file counts as a module
when that file shows it subclasses nn.Module (``models.encoder_template(...)``)."""

from __future__ import annotations

import ast
import re

from .. import values as V
from .._astutil import dotted, last_part, walk
from ..analysis import FileAnalysis
from ..call_effects import is_loss_class
from ..foreign import ForeignClass
from ..scope_facts import own_nodes
from ._registry import Example, Rule, file_check

# nn modules without parameters or train/eval behaviour: a plain list of these is harmless.
_STATELESS_MODULES = {
    "ReLU", "ReLU6", "GELU", "SiLU", "Tanh", "Sigmoid", "LeakyReLU", "ELU", "SELU", "CELU",
    "Mish", "Hardswish", "Hardsigmoid", "Hardtanh", "Softplus", "Identity", "Flatten",
    "Unflatten", "Softmax", "Softmax2d", "LogSoftmax", "MaxPool1d", "MaxPool2d", "MaxPool3d", "AvgPool1d",
    "AvgPool2d", "AvgPool3d", "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveAvgPool3d",
    "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "Upsample", "PixelShuffle", "Tanhshrink",
}  # fmt: skip
_LOSS_WEIGHTS = {"weight", "pos_weight"}  # buffers that .to(device) would not move
_CONTAINERS = {"ModuleList", "ModuleDict", "Sequential", "ParameterList", "ParameterDict"}

TW013 = Rule(
    "TW013",
    "unregistered-submodules",
    "error",
    "An nn.Module stores sub-modules in a plain list or dict instead of nn.ModuleList / "
    "nn.ModuleDict.",
    "Modules inside a Python list or dict are invisible to nn.Module: their parameters "
    "are missing from model.parameters() (so the optimizer never updates them), from "
    "state_dict() (so checkpoints lose them) and from model.to(device). The model still "
    "runs, with those layers frozen at their random initial weights.",
    "class Net(nn.Module):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.layers = [nn.Linear(64, 64) for _ in range(4)]\n",
    "class Net(nn.Module):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.layers = nn.ModuleList(nn.Linear(64, 64) for _ in range(4))\n",
    examples=(
        Example(
            "module_list",
            """\
            class Net(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.layers = [nn.Linear(2, 2), nn.Linear(2, 2)]
            """,
            [(4, "TW013")],
        ),
        Example(
            # each branch an nn.Sequential holding convolutions, appended to a plain list
            "sequential_branches_appended_to_a_plain_list",
            """\
            class ASPP(nn.Module):
                def __init__(self, in_channels, rates=(1, 3, 6)):
                    super().__init__()
                    self.aspp = []
                    for r in rates:
                        self.aspp.append(
                            nn.Sequential(nn.Conv2d(in_channels, 128, 3, dilation=r), nn.ReLU())
                        )
                    self.acts = [nn.Sequential(nn.ReLU(), nn.Tanh())]
            """,
            [(4, "TW013")],
        ),
        Example(
            # federated clients each train with an optimizer of their own: the server keeps
            # them apart on purpose, one state_dict each
            "clients_that_train_themselves_in_a_plain_list",
            """\
            class Client(nn.Module):
                def __init__(self, data):
                    super().__init__()
                    self.model = nn.Linear(2, 2)

                def update(self):
                    opt = torch.optim.SGD(self.model.parameters(), lr=0.1)
                    for x, y in self.data:
                        opt.zero_grad()
                        F.mse_loss(self.model(x), y).backward()
                        opt.step()

            class Server(nn.Module):
                def __init__(self, datasets):
                    super().__init__()
                    self.clients = [Client(d) for d in datasets]
            """,
            [],
        ),
        Example(
            # losses without weights keep no state: a plain dict of them loses nothing
            "losses_without_weights_in_a_plain_dict",
            """\
            class Denoiser(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.net = nn.Linear(2, 2)
                    self.validation_losses = {"MSE": nn.MSELoss(), "L1": nn.L1Loss()}
            """,
            [],
        ),
        Example(
            # ... a class weight is a buffer: .to(device) would leave it behind
            "weighted_losses_in_a_plain_dict",
            """\
            class Classifier(nn.Module):
                def __init__(self, weights):
                    super().__init__()
                    self.net = nn.Linear(2, 2)
                    self.losses = {"ce": nn.CrossEntropyLoss(weight=weights)}
            """,
            [(5, "TW013")],
        ),
        Example(
            # an empty dict filled key by key in a loop
            "modules_stored_item_by_item_into_a_plain_dict",
            """\
            class Recommender(nn.Module):
                def __init__(self, sizes, dim, device):
                    super().__init__()
                    self.emb = {}
                    for key in sizes:
                        self.emb[key] = nn.Embedding(sizes[key], dim).to(device)
                    self.cache = {}
                    for key in sizes:
                        self.cache[key] = torch.zeros(sizes[key], dim)
            """,
            [(4, "TW013")],
        ),
        Example(
            "module_list_registered",
            """\
            class Net(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.layers = nn.ModuleList([nn.Linear(2, 2), nn.Linear(2, 2)])
            """,
            [],
        ),
    ),
)


def _module_ctor(fa: FileAnalysis, node: ast.AST) -> str | None:
    """Class name when ``node`` constructs an nn.Module with state, else None."""
    while (  # Layer(...).to(device) is still the new Layer
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in V.MODULE_SELF_METHODS
    ):
        node = node.func.value
    if not isinstance(node, ast.Call):
        return None
    qual = fa.imports.resolve(node.func) or ""
    tail = last_part(qual)
    if _a_module_class_of_another_file(fa, node.func):
        return last_part(dotted(node.func))  # models.encoder_template(...) of import models
    if qual == tail and tail in fa.classes and fa.classes[tail].is_module:
        if _trains_itself(fa.classes[tail].node):
            return None  # a federated client, an agent: its own optimizer, its own state
        return tail
    if qual.startswith("torch.nn.") and qual.count(".") == 2 and tail[:1].isupper():
        if tail in _CONTAINERS:  # nn.Sequential(nn.Conv2d(...), nn.ReLU()) holds weights
            held = [a for a in node.args if not isinstance(a, ast.Starred)]
            return tail if any(_module_ctor(fa, a) for a in held) else None
        if tail in _STATELESS_MODULES:
            return None
        if is_loss_class(tail) and not any(k.arg in _LOSS_WEIGHTS for k in node.keywords):
            return None  # {"MSE": nn.MSELoss(), ...}: a loss without weights keeps no state
        return tail
    return None


def _a_module_class_of_another_file(fa: FileAnalysis, func: ast.expr) -> bool:
    """``Encoder(...)`` or ``models.Encoder(...)``: an nn.Module class of a project file."""
    name = dotted(func) or ""
    if fa.foreign is None or not name:
        return False
    head, _, rest = name.partition(".")
    symbol = fa.foreign.names.get(name) if not rest else fa.foreign.modules.get(head, {}).get(rest)
    if not (isinstance(symbol, ForeignClass) and symbol.is_module):
        return False
    # a loss or a metric (``SSIM()``, ``PSNR()``, ``FocalLoss()``): usually no weights
    return not (is_loss_class(symbol.name) or _METRIC_WORDS.search(symbol.name))


_METRIC_WORDS = re.compile(r"rmse|mse|mae|error|metric|psnr|ssim|distance|criterion", re.I)


def _trains_itself(cls: ast.ClassDef) -> bool:
    """A method of the class builds an optimizer over the class's own parameters
    (``torch.optim.SGD(self.model.parameters(), ...)``): each object trains apart, so a
    plain list of them keeps them apart on purpose (one state_dict, one optimizer each)."""
    for node in walk(cls):
        if not (isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Call)):
            continue
        optimizer = (dotted(node.func) or "").startswith(("torch.optim.", "optim."))
        if optimizer and (dotted(node.args[0].func) or "").startswith("self."):
            return True
    return False


def _collection_ctor(fa: FileAnalysis, node: ast.AST) -> str | None:
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
        return _collection_ctor(fa, node.left) or _collection_ctor(fa, node.right)
    if isinstance(node, (ast.List, ast.Tuple)):
        return next((c for c in (_module_ctor(fa, e) for e in node.elts) if c), None)
    if isinstance(node, (ast.ListComp, ast.GeneratorExp)):
        return _module_ctor(fa, node.elt)
    if isinstance(node, ast.Dict):
        return next((c for c in (_module_ctor(fa, v) for v in node.values) if c), None)
    if isinstance(node, ast.DictComp):
        return _module_ctor(fa, node.value)
    return None


@file_check(TW013)
def check_module_lists(fa: FileAnalysis) -> None:
    """TW013: nn.Module.__init__ storing modules in a list/dict attribute."""
    for info in fa.classes.values():
        init = info.methods.get("__init__")
        if info.is_module and init is not None:
            for node, attr, ctor, kind in _unregistered_candidates(fa, init):
                _module_list_finding(fa, node, attr, ctor, kind)


def _unregistered_candidates(fa: FileAnalysis, init: ast.AST) -> list[tuple]:
    candidates: list[tuple[ast.AST, str, str, str]] = []
    # attr -> ``self.attr = []`` / ``{}``: filled item by item, said where it is made (the
    # line to change into nn.ModuleList() / nn.ModuleDict())
    empty: dict[str, ast.AST] = {}
    assigned: dict[str, int] = {}  # attr -> number of assignments in __init__
    handed_over: set[str] = set()  # attrs passed to a call: nn.ModuleList(self.layers) & co.
    registers = False
    for node in own_nodes(init):
        grown = _grown_list(node)
        if grown is not None:
            # self.layers = self.layers + [Layer(...)] / self.layers += [...]: an append
            attr, added = grown
            ctor = _collection_ctor(fa, added)
            if attr in empty and ctor:
                candidates.append((empty[attr], attr, ctor, "list"))
            continue
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            stored = _item_store(node.targets[0])
            if stored in empty and _module_ctor(fa, node.value):
                # self.emb = {} ... self.emb[key] = nn.Embedding(...): filled item by item
                candidates.append((empty[stored], stored, _module_ctor(fa, node.value), "dict"))
            attr = _self_attr(node.targets[0])
            if attr is None:
                continue
            assigned[attr] = assigned.get(attr, 0) + 1
            ctor = _collection_ctor(fa, node.value)
            if ctor:
                kind = "dict" if isinstance(node.value, (ast.Dict, ast.DictComp)) else "list"
                candidates.append((node, attr, ctor, kind))
            elif isinstance(node.value, (ast.List, ast.Dict)) and not _elements(node.value):
                empty[attr] = node
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            registers = registers or node.func.attr in {"add_module", "register_module"}
            attr = _self_attr(node.func.value)
            if attr in empty and node.func.attr in {"append", "extend", "insert"} and node.args:
                ctor = _module_ctor(fa, node.args[-1]) or _collection_ctor(fa, node.args[-1])
                if ctor:
                    candidates.append((empty[attr], attr, ctor, "list"))
        if isinstance(node, ast.Call):
            for arg in [*node.args, *(kw.value for kw in node.keywords)]:
                inner = arg.value if isinstance(arg, ast.Starred) else arg
                if _self_attr(inner):
                    handed_over.add(_self_attr(inner))  # type: ignore[arg-type]
    if registers:
        return []  # modules registered by hand with add_module(): unsure, stay silent
    # A list that is later wrapped (self.layers = nn.ModuleList(self.layers)) or handed to
    # nn.Sequential(*self.layers) is registered after all.
    kept = [c for c in candidates if assigned.get(c[1]) == 1 and c[1] not in handed_over]
    return list({(id(c[0]), c[1]): c for c in reversed(kept)}.values())[::-1]  # once per attr


def _grown_list(node: ast.AST) -> tuple[str, ast.expr] | None:
    """(attr, added) for ``self.attr = self.attr + added`` or ``self.attr += added``."""
    if isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Add):
        attr = _self_attr(node.target)
        return (attr, node.value) if attr else None
    if not (isinstance(node, ast.Assign) and len(node.targets) == 1):
        return None
    attr, value = _self_attr(node.targets[0]), node.value
    if attr is None or not (isinstance(value, ast.BinOp) and isinstance(value.op, ast.Add)):
        return None
    if _self_attr(value.left) == attr:
        return attr, value.right
    if _self_attr(value.right) == attr:
        return attr, value.left
    return None


def _item_store(target: ast.AST) -> str | None:
    """``attr`` for an item store into ``self.attr[key]``."""
    return _self_attr(target.value) if isinstance(target, ast.Subscript) else None


def _elements(node: ast.List | ast.Dict) -> list:
    return node.elts if isinstance(node, ast.List) else node.keys


def _self_attr(node: ast.AST) -> str | None:
    is_self = isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
    return node.attr if is_self and node.value.id == "self" else None  # type: ignore[attr-defined]


def _module_list_finding(fa: FileAnalysis, node: ast.AST, attr: str, ctor: str, kind: str):
    container = "nn.ModuleDict" if kind == "dict" else "nn.ModuleList"
    fa.report(
        "TW013",
        node,
        f"self.{attr} holds {ctor} modules in a plain {kind}: their "
        f"parameters are not registered (use {container})",
    )
