"""torch.load safety: TW015 (weights_only=False) and TW016 (no weights_only on a target
torch older than 2.6, where the default is the full unpickler).
"""

from __future__ import annotations

import ast

from .._astutil import dotted, last_part
from ..analysis import FileAnalysis
from ._registry import Example, Rule, file_check

TW015 = Rule(
    "TW015",
    "unsafe-torch-load",
    "warning",
    "torch.load(..., weights_only=False) unpickles arbitrary objects.",
    "With weights_only=False, loading a checkpoint runs any code the file's pickle "
    "contains: a downloaded or shared checkpoint can take over the machine. Use "
    "weights_only=True (the default since torch 2.6) and save plain state_dicts; for "
    "your own extra classes use torch.serialization.add_safe_globals. Add "
    "'# noqa: TW015' where the file is fully trusted.",
    'state = torch.load("checkpoint.pt", weights_only=False)\n',
    'state = torch.load("checkpoint.pt", weights_only=True)\n',
    examples=(
        Example(
            "torch_load_unsafe",
            "sd = torch.load('x.pt', weights_only=False)\n",
            [(1, "TW015")],
        ),
        Example(
            "torch_load_weights_only_old_torch",
            "sd = torch.load('x.pt', weights_only=True)\n",
            [],
            target_torch="1.13",
        ),
    ),
)

TW016 = Rule(
    "TW016",
    "torch-load-implicit-pickle",
    "warning",
    "torch.load() without weights_only on a target torch older than 2.6, where the "
    "default is the unsafe full unpickler.",
    "Before torch 2.6 torch.load defaults to weights_only=False, so loading an untrusted "
    "checkpoint can run arbitrary code. Pass weights_only=True explicitly (available "
    "since torch 1.13). The target version comes from --target-torch, the "
    "[tool.trainwell.doctor] target-torch setting, or the project's torch pins "
    "(pyproject.toml, requirements*.txt, setup.py/setup.cfg, environment.yml).",
    'state = torch.load("checkpoint.pt")  # project requires torch>=2.1\n',
    'state = torch.load("checkpoint.pt", weights_only=True)\n',
    examples=(
        Example(
            "torch_load_default_old_torch",
            "sd = torch.load('x.pt')\n",
            [(1, "TW016")],
            target_torch="2.5",
        ),
        Example(
            # weights_only=False handed over in a dict of keyword arguments
            "weights_only_false_through_a_kwargs_dict",
            """\
            load_kwargs = {"map_location": "cpu"}
            load_kwargs["weights_only"] = False
            state = torch.load(path, **load_kwargs)
            extra = {"weights_only": False} if torch.__version__ >= "2" else {}
            state = torch.load(path, **extra)
            """,
            [(3, "TW015"), (5, "TW015")],
            target_torch="2.6",
        ),
        Example(
            # **kwargs of a file that never names weights_only: the default unpickler
            "kwargs_that_never_carry_weights_only",
            """\
            def load_weights(self, path, **kwargs):
                self.net.load_state_dict(torch.load(path, **kwargs))
            """,
            [(2, "TW016")],
            target_torch="2.5",
        ),
        Example(
            "kwargs_that_may_carry_weights_only",
            """\
            def load_weights(self, path, **kwargs):
                self.net.load_state_dict(torch.load(path, **kwargs))

            model.load_weights("best.pt", weights_only=True)
            """,
            [],
            target_torch="2.5",
        ),
        Example(
            # a dict of the file's own with only map_location in it
            "a_dict_of_load_options_without_weights_only",
            """\
            def resume(self, path):
                kwargs = {"map_location": lambda storage, loc: storage.cuda(0)}
                ckpt = torch.load(path, **kwargs)
            """,
            [(3, "TW016")],
            target_torch="2.5",
        ),
        Example(
            "torch_load_default_torch_2_6",
            "sd = torch.load('x.pt')\n",
            [],
            target_torch="2.6",
        ),
        Example(
            "torch_load_default_modern",
            "sd = torch.load('x.pt')\n",
            [],
        ),
    ),
)


@file_check(TW015, TW016)
def check_torch_load(fa: FileAnalysis) -> None:
    """TW015 (weights_only=False) and TW016 (implicit default before torch 2.6)."""
    aliases = {name for name, path in fa.imports.names.items() if path == "torch.load"}
    for node in fa.nodes:
        if not isinstance(node, ast.Call):
            continue
        name = dotted(node.func)
        if last_part(name) != "load" and name not in aliases:
            continue
        if fa.imports.resolve(node.func) != "torch.load":
            continue
        weights_only = next((kw.value for kw in node.keywords if kw.arg == "weights_only"), None)
        spread = [kw.value for kw in node.keywords if kw.arg is None]
        if spread and weights_only is None:
            # **kwargs may carry weights_only: read what the file puts in it
            weights_only = _spread_weights_only(fa, spread)
            if weights_only is None:
                continue
        if isinstance(weights_only, ast.Constant) and weights_only.value is False:
            fa.report(
                "TW015",
                node,
                "torch.load(weights_only=False) can execute arbitrary "
                "code from the checkpoint file",
            )
        elif _unset(weights_only) and fa.target_torch < (2, 6):
            major, minor = fa.target_torch
            fa.report(
                "TW016",
                node,
                f"torch.load() without weights_only: torch {major}."
                f"{minor} defaults to the full (unsafe) unpickler; pass "
                "weights_only=True",
            )


def _spread_weights_only(fa: FileAnalysis, spread: list[ast.expr]) -> ast.expr | None:
    """What ``torch.load(path, **kw)`` passes as weights_only: the value the file puts in a
    dict of that name (``kw = {"weights_only": False}``, ``kw["weights_only"] = False``,
    ``dict(weights_only=False)``), or, for a function's own ``**kwargs`` in a file that never
    names weights_only, the default (an ``ast.Constant(None)``)."""
    names = {dotted(node) for node in spread} - {None}
    built: set[str] = set()  # kwargs = {"map_location": ...}: a dict of the file's own
    for node in fa.nodes:
        if isinstance(node, ast.Assign):
            if any(_entry_of(t, names) for t in node.targets):
                return node.value
            if any(dotted(t) in names for t in node.targets):
                found = _dict_entry(node.value)
                if found is not None:
                    return found
                if _literal_dict(node.value):
                    built |= {dotted(t) for t in node.targets} & names  # type: ignore[arg-type]
    collected = {  # def load(self, path, **kwargs): what its callers hand over
        n.args.kwarg.arg
        for n in fa.nodes
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.args.kwarg is not None
    }
    mentioned = any(
        (isinstance(n, ast.keyword) and n.arg == "weights_only")
        or (isinstance(n, ast.Constant) and n.value == "weights_only")
        for n in fa.nodes
    )
    return None if mentioned or not names <= collected | built else ast.Constant(None)


def _literal_dict(value: ast.expr) -> bool:
    """``{"map_location": ...}`` or ``dict(map_location=...)``, nothing spread into it."""
    if isinstance(value, ast.Dict):
        return None not in value.keys
    return (
        isinstance(value, ast.Call)
        and dotted(value.func) == "dict"
        and not value.args
        and all(kw.arg is not None for kw in value.keywords)
    )


def _dict_entry(value: ast.expr) -> ast.expr | None:
    if isinstance(value, ast.IfExp):  # {"weights_only": False} if new_torch else {}
        return _dict_entry(value.body) or _dict_entry(value.orelse)
    if isinstance(value, ast.Dict):
        for key, item in zip(value.keys, value.values, strict=True):
            if isinstance(key, ast.Constant) and key.value == "weights_only":
                return item
    if isinstance(value, ast.Call) and dotted(value.func) == "dict":
        return next((kw.value for kw in value.keywords if kw.arg == "weights_only"), None)
    return None


def _unset(weights_only: ast.expr | None) -> bool:
    return weights_only is None or (
        isinstance(weights_only, ast.Constant) and weights_only.value is None
    )


def _entry_of(target: ast.expr, names: set) -> bool:
    """``kw["weights_only"] = ...`` for a dict ``kw`` of ``names``."""
    return (
        isinstance(target, ast.Subscript)
        and dotted(target.value) in names
        and isinstance(target.slice, ast.Constant)
        and target.slice.value == "weights_only"
    )
