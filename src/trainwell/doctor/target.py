"""Which torch version a checked file must support, read from its project's pins.

From the file's directory upwards, the first directory holding a project file
(``pyproject.toml``, ``setup.py``, ``setup.cfg``, ``requirements*.txt``,
``requirements/*.txt``, ``environment.yml``/``environment.yaml``) or a ``.git`` entry is the
project root; every torch pin in its project files is read (nothing is executed) and the
target is:

* the lowest lower bound over all pins (``torch==1.13.1`` -> 1.13, ``torch>=1.8`` -> 1.8,
  conda ``pytorch=1.13`` -> 1.13);
* else, when pins only cap the version (``torch<2.0``), the newest release the caps allow
  (``<2.0`` -> 1.13, ``<2.5`` -> 2.4, ``<=2.3`` -> 2.3) if that is older than the default,
  otherwise the default;
* else (no pin, or a bare ``torch``) the default, :data:`MODERN_TORCH`.
"""

from __future__ import annotations

import ast
import configparser
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from ._astutil import walk
from .tomlfile import load_toml

MODERN_TORCH = (2, 6)
"""Assumed when a project declares nothing: the first release with safe torch.load."""

_LAST_MINOR = {0: 4, 1: 13}  # last minor release of each finished major series
_PEP508 = re.compile(r"^\s*torch\s*(\[[^\]]*\])?\s*(?P<spec>[^;#]*)", re.I)
_CONDA = re.compile(r"^\s*(?:[\w.-]+::)?(?:pytorch|torch)(?![\w.-])\s*(?P<spec>[^#]*)", re.I)
_CLAUSE = re.compile(r"(===|==|~=|>=|<=|!=|>|<|=)?\s*v?(\d+)(?:\.(\d+))?[\w.*+!-]*")
PROJECT_FILES = ("pyproject.toml", "setup.py", "setup.cfg", "environment.yml", "environment.yaml")


@dataclass(frozen=True)
class Pin:
    """One torch requirement: where it was found and the bounds it sets."""

    source: str  # file name relative to the project root
    text: str  # the requirement as written
    lower: tuple[int, int] | None
    upper: tuple[int, int] | None  # newest (major, minor) allowed, when capped


@dataclass(frozen=True)
class Target:
    """The torch version assumed for a file and why (``reason`` is printed as is)."""

    version: tuple[int, int]
    reason: str

    @property
    def text(self) -> str:
        return f"{self.version[0]}.{self.version[1]}"

    def describe(self) -> str:
        return f"target torch {self.text} ({self.reason})"


def default_target(why: str = "no torch pin found") -> Target:
    return Target(MODERN_TORCH, f"default: {why}; pass --target-torch")


def _below(version: tuple[int, int]) -> tuple[int, int]:
    major, minor = version
    if minor > 0:
        return major, minor - 1
    return major - 1, _LAST_MINOR.get(major - 1, 99)


def _bounds(spec: str) -> tuple[tuple[int, int] | None, tuple[int, int] | None]:
    """(lowest allowed, newest allowed) of a version specifier such as ``>=1.8,<2``."""
    lowers, uppers = [], []
    for clause in re.split(r"[,|]", spec):
        clause = clause.strip()
        if not clause or clause.startswith("@"):
            continue
        match = _CLAUSE.match(clause)
        if not match:
            continue
        op, major, minor = match.group(1) or "==", int(match.group(2)), match.group(3)
        version = (major, int(minor or 0))
        if op in {"==", "===", "=", "~=", ">=", ">"}:
            lowers.append(version)
            if op in {"==", "===", "="} and "*" not in clause and minor is not None:
                uppers.append(version)
        elif op == "<=":
            uppers.append(version if minor is not None else (major, 99))
        elif op == "<":
            uppers.append(_below(version) if minor is not None else _below((major, 0)))
    return (min(lowers) if lowers else None), (min(uppers) if uppers else None)


def parse_requirement(text: str, source: str) -> Pin | None:
    """A PEP 508 requirement naming torch -> Pin; anything else -> None."""
    match = _PEP508.match(text)
    if not match:
        return None
    spec = match.group("spec").strip()
    if spec[:1].isalnum() or spec[:1] in {"_", "-", "."}:
        return None  # torchvision, torch-geometric, ...: another package
    lower, upper = _bounds(spec)
    return Pin(source, text.strip(), lower, upper)


def parse_conda(text: str, source: str) -> Pin | None:
    """A conda match spec (``pytorch=1.13``, ``pytorch 1.13.*``, ``pytorch>=1.8``) -> Pin."""
    match = _CONDA.match(text)
    if not match:
        return None
    spec = match.group("spec").strip()
    spec = spec.split("=", 2)[1] if re.match(r"^=[^=]", spec) else spec  # =1.13=build
    spec = spec.split()[0] if spec and spec[0].isdigit() else spec  # "1.13.* build"
    if spec and spec[0].isdigit():
        spec = "==" + spec
    lower, upper = _bounds(spec.replace("*", ""))
    return Pin(source, text.strip(), lower, upper)


def _requirements_txt(path: Path, root: Path, depth: int = 0) -> list[Pin]:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    name = path.relative_to(root).as_posix()
    pins: list[Pin] = []
    for raw in text.splitlines():
        line = raw.split(" #", 1)[0].strip()
        if line.startswith(("-r", "--requirement", "-c", "--constraint")) and depth < 3:
            include = line.split(maxsplit=1)[1] if " " in line else line[2:]
            target = (path.parent / include.strip()).resolve()
            if target.is_file() and root in target.parents:
                pins += _requirements_txt(target, root, depth + 1)
            continue
        pin = parse_requirement(line, name)
        if pin:
            pins.append(pin)
    return pins


def _pyproject(path: Path, root: Path) -> list[Pin]:
    data = load_toml(path)
    if not data:
        return []
    project = data.get("project", {})
    requirements = list(project.get("dependencies", []))
    for extra in project.get("optional-dependencies", {}).values():
        requirements += extra if isinstance(extra, list) else []
    pins = [parse_requirement(r, path.name) for r in requirements if isinstance(r, str)]
    poetry = data.get("tool", {}).get("poetry", {}).get("dependencies", {})
    spec = poetry.get("torch") if isinstance(poetry, dict) else None
    if isinstance(spec, dict):
        spec = spec.get("version")
    if isinstance(spec, str):  # poetry: "^1.13", "~2.1", ">=1.8"
        pins.append(parse_requirement("torch" + re.sub(r"^[\^~](?!=)", ">=", spec), path.name))
    return [p for p in pins if p]


def _string_list(node: ast.AST | None, names: dict[str, ast.AST]) -> list[str]:
    if isinstance(node, ast.Name) and node.id in names:
        node = names[node.id]
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]  # fmt: skip
    if isinstance(node, ast.Dict):
        return [s for v in node.values for s in _string_list(v, names)]
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value.splitlines()
    return []


def _setup_py(path: Path, root: Path) -> list[Pin]:
    try:
        tree = ast.parse(path.read_bytes())
    except (OSError, SyntaxError, ValueError):
        return []
    names = {
        t.id: n.value
        for n in tree.body
        if isinstance(n, ast.Assign)
        for t in n.targets
        if isinstance(t, ast.Name)
    }
    requirements: list[str] = []
    for node in walk(tree):
        if isinstance(node, ast.Call):
            for kw in node.keywords:
                if kw.arg in {"install_requires", "extras_require"}:
                    requirements += _string_list(kw.value, names)
    pins = [parse_requirement(r, path.name) for r in requirements]
    return [p for p in pins if p]


def _setup_cfg(path: Path, root: Path) -> list[Pin]:
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(path.read_text(encoding="utf-8", errors="replace"))
    except (OSError, configparser.Error):
        return []
    requirements = parser.get("options", "install_requires", fallback="").splitlines()
    if parser.has_section("options.extras_require"):
        for _, value in parser.items("options.extras_require"):
            requirements += value.splitlines()
    pins = [parse_requirement(r, path.name) for r in requirements if r.strip()]
    return [p for p in pins if p]


def _environment(path: Path, root: Path) -> list[Pin]:
    import yaml  # only projects with a conda environment file pay for the import

    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8", errors="replace"))
    except (OSError, yaml.YAMLError):
        return []
    deps = data.get("dependencies", []) if isinstance(data, dict) else []
    pins: list[Pin | None] = []
    for dep in deps if isinstance(deps, list) else []:
        if isinstance(dep, str):
            pins.append(parse_conda(dep, path.name))
        elif isinstance(dep, dict) and isinstance(dep.get("pip"), list):
            pins += [parse_requirement(r, path.name) for r in dep["pip"] if isinstance(r, str)]
    return [p for p in pins if p]


_READERS = {
    "pyproject.toml": _pyproject,
    "setup.py": _setup_py,
    "setup.cfg": _setup_cfg,
    "environment.yml": _environment,
    "environment.yaml": _environment,
}


def _requirement_files(directory: Path) -> list[Path]:
    try:
        found = [p for p in directory.glob("requirements*.txt") if p.is_file()]
        sub = directory / "requirements"
        if sub.is_dir():
            found += [p for p in sub.glob("*.txt") if p.is_file()]
    except OSError:
        return []
    return sorted(found)


def project_pins(root: Path) -> list[Pin]:
    """Every torch pin in the project files of ``root``."""
    pins: list[Pin] = []
    for name in PROJECT_FILES:
        candidate = root / name
        if candidate.is_file():
            pins += _READERS[name](candidate, root)
    for requirements in _requirement_files(root):
        pins += _requirements_txt(requirements, root)
    return pins


def _is_root(directory: Path) -> bool:
    if any((directory / name).is_file() for name in PROJECT_FILES):
        return True
    return bool(_requirement_files(directory)) or (directory / ".git").exists()


@lru_cache(maxsize=1024)
def project_root(directory: Path) -> Path | None:
    """Nearest directory at or above ``directory`` that holds a project file or ``.git``."""
    for folder in (directory, *directory.parents):
        if _is_root(folder):
            return folder
    return None


def target_from_pins(pins: list[Pin]) -> Target:
    lowered = [p for p in pins if p.lower]
    if lowered:
        pin = min(lowered, key=lambda p: p.lower)  # type: ignore[arg-type, return-value]
        assert pin.lower is not None
        return Target(pin.lower, f"from {pin.source}: {pin.text}")
    capped = [p for p in pins if p.upper]
    if capped:
        pin = min(capped, key=lambda p: p.upper)  # type: ignore[arg-type, return-value]
        assert pin.upper is not None
        if pin.upper < MODERN_TORCH:
            return Target(pin.upper, f"from {pin.source}: {pin.text}, newest allowed")
    if pins:
        return default_target(f"{pins[0].source} pins no lower bound ({pins[0].text})")
    return default_target()


@lru_cache(maxsize=256)
def target_for_root(root: Path | None) -> Target:
    if root is None:
        return default_target()
    return target_from_pins(project_pins(root))


def find_target(path: str | Path) -> Target:
    """The torch target of ``path`` (a file or directory) from its project's pins."""
    start = Path(path).resolve()
    directory = start if start.is_dir() else start.parent
    return target_for_root(project_root(directory))
