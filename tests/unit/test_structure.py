"""The shape of the package, as docs/architecture.md draws it: sub-packages by role whose imports
go down the layers, no import cycle of any length, short modules, and a short `fit()`."""

import ast
import collections
from pathlib import Path

import pytest

import trainwell

ROOT = Path(trainwell.__file__).parent

#: bottom to top: a package imports its own modules and those of the packages below it. The
#: doctor stands aside: it imports only the bottom layer (it never needs torch).
LAYERS = [
    {"errors", "_lazy"},
    {"config"},
    {"state"},
    {"data"},
    {"observe"},
    {"parts"},
    {"strategy"},
    {"step"},
    {"guards"},
    {"loop"},
    {"recipes"},
    {"doctor"},
    {"cli"},
]
LEVEL = {name: i for i, layer in enumerate(LAYERS) for name in layer}


def modules() -> dict[str, Path]:
    found = {}
    for path in ROOT.rglob("*.py"):
        parts = ("trainwell", *path.relative_to(ROOT).with_suffix("").parts)
        name = ".".join(parts).removesuffix(".__init__")
        found[name] = path
    return found


MODULES = modules()


def imports_of(name: str, path: Path) -> set[str]:
    """Every trainwell module ``name`` imports, wherever the import stands (in functions and
    ``TYPE_CHECKING`` blocks too)."""
    tree = ast.parse(path.read_text())
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(tree):
        targets = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1])
                base = f"{base}.{node.module}" if node.module else base
            for alias in node.names:
                full = f"{base}.{alias.name}"
                targets.append(full if full in MODULES else base)
        for target in targets:
            while target and target not in MODULES:
                target = target.rpartition(".")[0]
            if target.startswith("trainwell") and target != name:
                found.add(target)
    return found


GRAPH = {name: imports_of(name, path) for name, path in MODULES.items()}


def layer_of(name: str) -> str:
    parts = name.split(".")
    return parts[1] if len(parts) > 1 else "trainwell"


def test_no_import_cycle_of_any_length():
    index, low, stack, on_stack, cycles = {}, {}, [], set(), []

    def visit(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in GRAPH[node]:
            if other == "trainwell":
                continue
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for node in GRAPH:
        if node not in index:
            visit(node)
    assert cycles == []


def test_imports_go_down_the_layers():
    upward = collections.defaultdict(list)
    for name, targets in GRAPH.items():
        here = layer_of(name)
        if here == "trainwell" or name.endswith(".__main__"):
            continue  # the public surface and the entry points sit on top
        for target in targets:
            there = layer_of(target)
            if there == "trainwell":
                upward[name].append(target)  # the facade: never from inside the package
            elif (
                there != here
                and LEVEL[there] > LEVEL[here]
                or here == "doctor"
                and there not in ("doctor", "errors", "_lazy")
            ):
                upward[name].append(target)
    assert dict(upward) == {}


def test_a_module_imports_its_siblings_not_its_own_packages_facade():
    facades = [
        (name, target)
        for name, targets in GRAPH.items()
        for target in targets
        if target == name.rpartition(".")[0]  # the package this module is in
        and MODULES[name].name != "__init__.py"
        and not name.endswith("__main__")
    ]
    assert facades == []


def test_at_most_four_files_directly_in_the_package():
    assert sorted(p.name for p in ROOT.glob("*.py")) == [
        "__init__.py",
        "__main__.py",
        "_lazy.py",
        "errors.py",
    ]


def test_every_sub_package_says_what_it_holds():
    for init in ROOT.glob("*/__init__.py"):
        docstring = ast.get_docstring(ast.parse(init.read_text()))
        assert docstring, f"{init.parent.name}/__init__.py has no docstring"
        assert init.parent.name in LEVEL, f"{init.parent.name} is in no layer of LAYERS"


@pytest.mark.parametrize("name", sorted(MODULES))
def test_no_module_is_over_600_lines(name):
    assert len(MODULES[name].read_text().splitlines()) <= 600


def test_fit_reads_in_at_most_100_lines():
    tree = ast.parse((ROOT / "loop" / "fit.py").read_text())
    fit = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "fit")
    assert fit.end_lineno - fit.lineno + 1 <= 100
