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
        if any(kw.arg is None for kw in node.keywords):
            continue  # **kwargs may carry weights_only
        weights_only = next((kw.value for kw in node.keywords if kw.arg == "weights_only"), None)
        if isinstance(weights_only, ast.Constant) and weights_only.value is False:
            fa.report(
                "TW015",
                node,
                "torch.load(weights_only=False) can execute arbitrary "
                "code from the checkpoint file",
            )
        elif weights_only is None and fa.target_torch < (2, 6):
            major, minor = fa.target_torch
            fa.report(
                "TW016",
                node,
                f"torch.load() without weights_only: torch {major}."
                f"{minor} defaults to the full (unsafe) unpickler; pass "
                "weights_only=True",
            )
