"""Facts shared across the files of one run: what ``from model import Net`` refers to.

When several files (or a directory) are checked together, an import of a sibling module
(``import model``, ``from model import Net``, ``from .models import Net``) is resolved to a
file among the checked paths, or to a file of the importing file's own directory (package).
That file is parsed and analysed once per run (nothing is imported or executed), and what a
caller needs from it is kept: which classes are nn.Modules whose forward() ends in softmax,
and a summary of each module-level function (does it train? set a model's mode? run a
forward pass with autograd on?).  Import cycles are cut: a module met again while its own
facts are being computed is treated as unknown.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from pathlib import Path

from . import values as V
from ._astutil import dotted, walk
from .analysis import Checks, FileAnalysis
from .autograd_aliases import resolve_autograd_aliases
from .class_facts import no_grad_methods
from .events import EVAL_RULE_MARK, Summary
from .foreign import Foreign, ForeignClass, ForeignFunction, ForeignNode
from .graph_calls import NOT_FOLLOWED_METHODS
from .project_calls import CallsAcrossFiles
from .recovery import parse_recovering
from .scope_state import ClassInfo, class_method
from .script_paths import script_path_folders
from .sources import SourceError, read_python
from .target import MODERN_TORCH

Symbol = ForeignClass | ForeignFunction


@dataclass
class ModuleFacts:
    """What other files may use from one module of the project."""

    path: str
    symbols: dict[str, Symbol] = field(default_factory=dict)
    reexported: dict[str, Symbol] = field(default_factory=dict)  # its own imports
    # module-level instances of its plain classes (``ner_tool = NERTool()``): their methods
    objects: dict[str, dict[str, ForeignFunction]] = field(default_factory=dict)

    def get(self, name: str) -> Symbol | None:
        return self.symbols.get(name) or self.reexported.get(name)


def _module_name(file: Path) -> str:
    """Dotted module name of a file, through the packages (``__init__.py``) above it."""
    parts = [file.stem] if file.stem != "__init__" else []
    parent = file.parent
    while (parent / "__init__.py").is_file() and parent.parent != parent:
        parts.insert(0, parent.name)
        parent = parent.parent
    return ".".join(parts)


_CODE_FOLDERS = ("lib", "src")


class ProjectIndex:
    """Module facts of the files of one run, computed lazily and cached."""

    def __init__(self, files: list[Path], checks: Checks) -> None:
        self.checks = checks
        self.checked: dict[Path, str] = {}  # resolved path -> path as reported
        self.by_name: dict[str, Path] = {}
        for file in files:
            if file.suffix != ".py":
                continue
            key = file.resolve()
            self.checked[key] = str(file)
            self.by_name.setdefault(_module_name(key), key)
        self._facts: dict[Path, ModuleFacts | None] = {}
        self._busy: set[Path] = set()
        self._script_folders: dict[Path, list[Path]] = {}  # what each file adds to sys.path
        self.calls_across = CallsAcrossFiles(self.checked)

    # -- resolution -----------------------------------------------------------------------
    def _file_at(self, base: Path, parts: list[str]) -> Path | None:
        if not parts:
            candidates = [base / "__init__.py"]
        else:
            stem = base.joinpath(*parts)
            candidates = [stem.with_name(stem.name + ".py"), stem / "__init__.py"]
        for candidate in candidates:
            if candidate.is_file():
                return candidate.resolve()
        return None

    def resolve(self, importer: Path, module: str | None, level: int) -> Path | None:
        """The file ``import module`` (``level`` dots) means in ``importer``, if a project file."""
        parts = module.split(".") if module else []
        if any(not part.isidentifier() for part in parts):
            return None
        if level:
            base = importer.parent
            for _ in range(level - 1):
                base = base.parent
            found = self._file_at(base, parts)
        else:
            if not parts or parts[0] in {"torch", "trainwell"}:
                return None
            # a sibling of the importing file (a script's directory is on sys.path), else a
            # checked file whose package path is that name
            found = (
                self._file_at(importer.parent, parts)
                or self.by_name.get(".".join(parts))
                or self._from_own_package(importer, parts)
            )
            if found is None:
                # a module of a subfolder imports the project's modules from the folder of
                # the entry script above it (``trainer/meta.py`` run through ``main.py``:
                # ``from models.mtl import MtlLearner``), or after sys.path.append(PARENT)
                for base in list(importer.parents)[1:3]:
                    found = self._file_at(base, parts)
                    if found is not None:
                        break
            if found is None:
                # tools/_init_paths.py's sys.path.insert(0, "../lib"): the project's code
                # folder beside the script's (``import models.eval_utils`` from lib/models)
                bases = list(importer.parents)[:3]
                found = next(
                    (f for b in bases for d in _CODE_FOLDERS if (f := self._file_at(b / d, parts))),
                    None,
                )
            if found is None:  # sys.path.append(os.path.join(BASE_DIR, "utils"))
                folders = self._script_folders.get(importer.resolve(), [])
                found = next((f for b in folders if (f := self._file_at(b, parts))), None)
        if found is None or found == importer.resolve():
            return None
        return found

    def _from_own_package(self, importer: Path, parts: list[str]) -> Path | None:
        """``from inclearn.lib import utils`` in ``inclearn/models/icarl.py``: the file lies
        inside the package it names, so the project's root is the folder above that package
        (``python -m inclearn.train`` or an installed package)."""
        for folder in importer.parents:
            if folder.name == parts[0]:
                found = self._file_at(folder.parent, parts)
                if found is not None:
                    return found
        return None

    def foreign_for(self, path: Path, tree: ast.Module) -> Foreign | None:
        """What the imports of ``path`` (parsed as ``tree``) resolve to in the project."""
        importer = path.resolve()
        self._script_folders[importer] = script_path_folders(importer, tree)
        foreign = Foreign()
        starred: dict[str, Symbol] = {}  # from models import *: what an explicit name lacks
        for node in walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    facts = self._facts_of(self.resolve(importer, alias.name, 0))
                    if facts is not None:
                        foreign.modules[alias.asname or alias.name] = _symbols(facts)
                        _add_objects(foreign, alias.asname or alias.name, facts)
            elif isinstance(node, ast.ImportFrom):
                for alias in node.names:
                    if alias.name == "*":
                        starred.update(self._public_symbols(importer, node))
                        continue
                    local = alias.asname or alias.name
                    sub = f"{node.module}.{alias.name}" if node.module else alias.name
                    facts = self._facts_of(self.resolve(importer, sub, node.level))
                    if facts is not None:  # from pkg import models: a module
                        foreign.modules[local] = _symbols(facts)
                        _add_objects(foreign, local, facts)
                        continue
                    if node.module is None:
                        continue
                    facts = self._facts_of(self.resolve(importer, node.module, node.level))
                    if facts is not None and alias.name in facts.objects:
                        # from .tool import ner_tool: its methods are called like a module's
                        # functions (ner_tool.get_score(model, x))
                        foreign.modules[local] = facts.objects[alias.name]
                        continue
                    symbol = facts.get(alias.name) if facts is not None else None
                    if symbol is None and facts is None:
                        symbol = self._defined_in_folder(importer, node, alias.name)
                    if symbol is not None:
                        foreign.names[local] = symbol
        for name, symbol in starred.items():
            foreign.names.setdefault(name, symbol)
        return foreign if foreign.names or foreign.modules else None

    def _defined_in_folder(self, importer: Path, node: ast.ImportFrom, name: str) -> Symbol | None:
        """``from core.utils import Trainer`` where ``core/utils/`` is a folder of the project
        whose ``__init__.py`` is not there (a partial checkout, a gist of a few files): the
        package re-exports ``Trainer`` from one of its modules, so the one module of the
        folder that defines it at top level stands for it."""
        folder = self._folder(importer, node.module or "", node.level)
        if folder is None:
            return None
        defines = re.compile(rf"^(?:class|def)\s+{re.escape(name)}\b", re.MULTILINE)
        found = []
        for file in sorted(folder.glob("*.py")):
            try:
                if defines.search(file.read_text(encoding="utf-8", errors="replace")):
                    found.append(file.resolve())
            except OSError:
                continue
        if len(found) != 1 or found[0] == importer:
            return None  # none, or two modules that could be meant
        facts = self._facts_of(found[0])
        return facts.symbols.get(name) if facts is not None else None

    def _folder(self, importer: Path, module: str, level: int) -> Path | None:
        """The project folder without ``__init__.py`` that ``module`` names, if any."""
        parts = module.split(".") if module else []
        if any(not part.isidentifier() for part in parts):
            return None
        if level:
            bases = [importer.parents[level - 1]] if level <= len(importer.parents) else []
        elif not parts or parts[0] in {"torch", "trainwell"}:
            return None
        else:
            own = [f.parent for f in importer.parents if f.name == parts[0]]
            added = self._script_folders.get(importer.resolve(), [])
            bases = [importer.parent, *own, *list(importer.parents)[1:3], *added]
        for base in bases:
            folder = base.joinpath(*parts)
            if folder.is_dir() and not (folder / "__init__.py").is_file():
                return folder
        return None

    def _public_symbols(self, importer: Path, node: ast.ImportFrom) -> dict[str, Symbol]:
        """What ``from module import *`` binds: the module's names without a leading _."""
        facts = self._facts_of(self.resolve(importer, node.module, node.level))
        if facts is None:
            return {}
        return {k: v for k, v in _symbols(facts).items() if not k.startswith("_")}

    # -- facts ----------------------------------------------------------------------------
    def _facts_of(self, file: Path | None) -> ModuleFacts | None:
        if file is None:
            return None
        if file in self._facts:
            return self._facts[file]
        if file in self._busy:
            return None  # an import cycle: unknown
        self._busy.add(file)
        try:
            facts = self._analyse(file)
        except (SourceError, SyntaxError, ValueError, RecursionError):
            facts = None
        finally:
            self._busy.discard(file)
        self._facts[file] = facts
        return facts

    def _analyse(self, file: Path) -> ModuleFacts:
        text = read_python(file).text
        tree, _ = parse_recovering(text, str(file))  # cuda(async=True) blanks one line
        if tree is None:
            raise SyntaxError(f"{file} does not parse")
        resolve_autograd_aliases(tree)
        fa = FileAnalysis(tree, MODERN_TORCH, self.checks, self.foreign_for(file, tree))
        fa.run()
        checked = file in self.checked
        shown = self.checked.get(file, str(file))
        facts = ModuleFacts(shown, reexported=dict(fa.foreign.names) if fa.foreign else {})
        for name, info in fa.classes.items():
            if info.node in tree.body:
                methods = self._methods(fa, info, shown, checked)
                flags = fa.forward_flags(name)
                facts.symbols[name] = ForeignClass(
                    name, info.is_module, flags, methods, no_grad_methods(info.node)
                )
        for name, func in fa.functions.items():
            exported = _exported_function(fa, func, name, shown, checked)
            if exported is not None:
                facts.symbols[name] = exported
        facts.objects = _module_objects(tree, facts)
        for name, func in fa.functions.items():
            exported = facts.symbols.get(name)
            if isinstance(exported, ForeignFunction):
                exported.returned_class = _returned_class(fa, func, facts)
        return facts

    @staticmethod
    def _methods(
        fa: FileAnalysis, info: ClassInfo, shown: str, checked: bool
    ) -> dict[str, ForeignFunction]:
        """What each method of a plain class does, for ``engine = Trainer(...)`` elsewhere
        and its ``engine.eval(x, y)``."""
        methods = {}
        for name, method in _own_and_inherited(fa, info).items():
            if info.is_module and (name in NOT_FOLLOWED_METHODS or name in V.MODULE_SELF_METHODS):
                continue  # model.train(), model.to(device): nn.Module's own, even overridden
            exported = _exported_function(
                fa, method, f"{info.node.name}.{name}", shown, checked, info.is_module
            )
            if exported is not None:
                methods[name] = exported
        return methods


def _own_and_inherited(fa: FileAnalysis, info: ClassInfo) -> dict[str, ast.AST]:
    """The methods of a class, with those it inherits from base classes of its file."""
    names = dict.fromkeys(name for cls in fa.classes.values() for name in cls.methods)
    return {
        name: method
        for name in names
        if (method := class_method(fa.classes, info.node.name, name)) is not None
    }


def _exported_function(
    fa: FileAnalysis, func: ast.AST, name: str, shown: str, checked: bool, of_model: bool = False
) -> ForeignFunction | None:
    summary = fa.summaries.get(func)
    if summary is None:
        return None
    # a detached value the function returns is a target where a caller trains on it, which
    # only the callers show: left to them
    reached = _called_with_autograd_from(fa, func)
    candidates = [
        finding
        for owner, finding in fa.no_grad_candidates
        if owner in reached and not finding.cut_returned
    ]
    cut_candidates = [
        finding
        for owner, finding in fa.no_grad_candidates
        if owner in reached and finding.cut_returned
    ]
    exported = _export(summary, shown, checked, name, of_model or not _sets_autograd(func))
    node = func if isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)) else None
    found = ForeignFunction(name, exported, shown, checked, candidates, cut_candidates, node=node)
    if summary.trains and not checked:
        # (an eval() forward before its first training step prepares the training: prototypes
        # for a classifier's initial weights, a target network's first values)
        trained = min(getattr(n, "lineno", 0) for n in [*summary.backward, *summary.steps])
        found.own_evaluation = [
            finding
            for owner, finding in fa.no_grad_candidates
            if owner in (None, func)
            and EVAL_RULE_MARK in finding.message
            and trained < finding.line <= (getattr(func, "end_lineno", 0) or 0)
        ]
    return found


def _calls_anything(body: list[ast.stmt]) -> bool:
    return any(isinstance(n, ast.Call) for stmt in body for n in walk(stmt))


# Contexts and decorators that set autograd's mode inside a function.
_AUTOGRAD_SWITCHES = {"no_grad", "inference_mode", "set_grad_enabled", "enable_grad"}


def _sets_autograd(func: ast.AST) -> bool:
    """The function turns autograd off or on somewhere (``with torch.no_grad():`` in one arm
    of ``if training:``): whether its graph reaches a caller may hang on the call."""
    for node in walk(func):
        exprs: list[ast.expr] = []
        if isinstance(node, (ast.With, ast.AsyncWith)) and _calls_anything(node.body):
            exprs = [item.context_expr for item in node.items]  # (not a no-op block)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            exprs = list(node.decorator_list)
        for expr in exprs:
            target = expr.func if isinstance(expr, ast.Call) else expr
            if (dotted(target) or "").rsplit(".", 1)[-1] in _AUTOGRAD_SWITCHES:
                return True
    return False


def _called_with_autograd_from(fa: FileAnalysis, func: ast.AST) -> set[ast.AST]:
    """``func`` and the functions of its file it runs with autograd on, directly or through
    others (``logger.log_pre_update()`` calling ``self.get_accuracy()``): their inference is
    the caller's when it calls ``func`` outside no_grad."""
    reached = {func}
    frontier = [func]
    while frontier:
        caller = frontier.pop()
        for callee, calls in fa.callers.items():
            if callee not in reached and any(c is caller and not ng for ng, c in calls):
                reached.add(callee)
                frontier.append(callee)
    return reached


def _returned_class(fa: FileAnalysis, func: ast.AST, facts: ModuleFacts) -> ForeignClass | None:
    """The project class whose object the function returns (a factory: ``create_model``)."""
    summary = fa.summaries.get(func)
    value = summary.returns if summary is not None else None
    if value is None or value.kind not in {V.OBJECT, V.MODEL} or not value.cls:
        return None
    cls = facts.symbols.get(value.cls) or fa.foreign_objects.get(value.cls)
    if cls is None and fa.foreign is not None:
        cls = fa.foreign.names.get(value.cls)
    return cls if isinstance(cls, ForeignClass) and cls.methods else None


def _module_objects(tree: ast.Module, facts: ModuleFacts) -> dict[str, dict[str, ForeignFunction]]:
    """Module-level instances of the file's plain classes, by name: ``ner_tool = NERTool()``
    (a toolkit's shared helper object, imported where it is used)."""
    objects = {}
    for node in tree.body:
        if not (isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)):
            continue
        cls = facts.symbols.get(dotted(node.value.func) or "")
        if not isinstance(cls, ForeignClass) or cls.is_module or not cls.methods:
            continue
        for target in node.targets:
            if isinstance(target, ast.Name):
                objects[target.id] = cls.methods
    return objects


def _add_objects(foreign: Foreign, module: str, facts: ModuleFacts) -> None:
    """``import tool`` then ``tool.ner_tool.get_score(...)``: the object's methods."""
    for name, methods in facts.objects.items():
        foreign.modules[f"{module}.{name}"] = dict(methods)


def _symbols(facts: ModuleFacts) -> dict[str, Symbol]:
    return {**facts.reexported, **facts.symbols}


def _export(
    summary: Summary, path: str, checked: bool, func: str, of_model: bool = False
) -> Summary:
    """A summary usable from another file: nodes become ForeignNodes, and only what the
    function does to its parameters is kept (its own file's globals are not the caller's).
    ``of_model``: a method of a model class, whose returned graph is its forward's
    (``net.pi(x)``), or a helper that never switches autograd (``generate_image(netG, z)``);
    one that does may return a graph only for some calls (``training=False``)."""
    params = set(summary.params)
    if "." in func:  # a method: what it does to its own object's models (self.critic.eval())
        params.add("self")

    def keep(key: str) -> bool:
        return key.split(".")[0] in params

    def node(n: object) -> ForeignNode:
        if isinstance(n, ForeignNode):
            return n
        lineno, col = getattr(n, "lineno", 1), getattr(n, "col_offset", 0)
        return ForeignNode(path, lineno, col, checked, func)

    returns = _exported_value(summary.returns)
    elements = summary.returned_elements
    if elements is not None:
        elements = tuple(_exported_value(v) for v in elements)
    return Summary(
        params=list(summary.params),
        backward=[node(n) for n in summary.backward],  # type: ignore[misc]
        steps=[node(n) for n in summary.steps],  # type: ignore[misc]
        zero_grad=summary.zero_grad,
        train_loop=summary.train_loop,
        sched_steps={k for k in summary.sched_steps if keep(k)},
        modes={k: v for k, v in summary.modes.items() if keep(k)},
        returns=returns,
        forwards={k: node(n) for k, n in summary.forwards.items() if keep(k)},  # type: ignore[misc]
        # what becomes of a graph handed to it (count_accuracy(logits, y) reads numbers)
        param_fates=dict(summary.param_fates),
        returned_cut=summary.returned_cut,
        returns_cut=summary.returns_cut,
        # a model's own method: does it return its forward's graph, or read it inside?
        returned_elements=elements,
        kept_params=summary.kept_params,
        returns_graph=summary.returns_graph and of_model,
        graph_by_own_state=summary.graph_by_own_state,
        discards=[node(n) for n in summary.discards],  # type: ignore[misc]
        unscaled_backward=[node(n) for n in summary.unscaled_backward],  # type: ignore[misc]
        scaled_backward=summary.scaled_backward,
        epoch_schedules_each_call=[node(n) for n in summary.epoch_schedules_each_call],  # type: ignore[misc]
    )


def _exported_value(value: V.Value | None) -> V.Value | None:
    """What another file can use of a returned value (its own file's objects are not)."""
    if value is not None and value.kind not in {V.MODEL, V.LOSS, V.TENSOR, V.OUTPUT}:
        return None
    return value
