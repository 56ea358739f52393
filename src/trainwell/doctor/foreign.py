"""Facts from other files of the project, as the walk of one file sees them.

When several files are checked together, :mod:`.project` analyses the file behind an
``import`` and keeps what a caller needs: which of its classes are ``nn.Module`` s (and
whether their ``forward()`` ends in softmax) and a :class:`~.events.Summary` of each of its
module-level functions.  The records here carry those facts into the importing file's walk;
:class:`ForeignNode` stands in for an AST node of the other file, so that a finding can
point there.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from ._astutil import dotted
from .class_facts import no_grad_methods
from .events import RawFinding, Summary


@dataclass(frozen=True)
class ForeignNode:
    """Where something happens in another file of the project (stands in for its AST node)."""

    path: str
    lineno: int
    col_offset: int
    checked: bool  # the file is among the checked paths: findings may be reported there
    func: str  # the function it sits in, for messages


@dataclass(frozen=True)
class ForeignClass:
    """A class defined in another file: an nn.Module? does its forward() end in softmax?
    For a plain class (a trainer, an engine, a logger), what its methods do."""

    name: str
    is_module: bool
    flags: frozenset[str] = frozenset()
    methods: dict[str, ForeignFunction] = field(default_factory=dict, compare=False, hash=False)
    no_grad_methods: frozenset[str] = frozenset()  # run under @torch.no_grad()


@dataclass
class ForeignFunction:
    """A module-level function of another file, summarised as it would be in this one."""

    name: str
    summary: Summary
    path: str
    checked: bool
    # TW012 inside the function itself (its own eval() then a forward without no_grad):
    # reported when a caller anywhere runs it with autograd on.
    candidates: list[RawFinding] = field(default_factory=list)
    # TW012 inside it whose forward's detached tensor it returns (``_, pred = out.max(1);
    # return pred``): reported at a call whose scope makes no target of what it gets back
    cut_candidates: list[RawFinding] = field(default_factory=list)
    # a training function's own evaluation (its eval(), then a forward without no_grad, in
    # its own body): it stands whoever calls it, so with its file outside the run it is
    # said at the callers' calls
    own_evaluation: list[RawFinding] = field(default_factory=list)
    # an object of a project class it returns (``create_model(opt)`` -> ``HGModel(opt)``)
    returned_class: ForeignClass | None = None
    # its definition: which of its forwards a call's literal arguments leave running
    node: ast.FunctionDef | ast.AsyncFunctionDef | None = field(default=None, compare=False)


@dataclass
class Foreign:
    """What the imports of one file resolve to among the project's files."""

    names: dict[str, ForeignClass | ForeignFunction] = field(default_factory=dict)
    modules: dict[str, dict[str, ForeignClass | ForeignFunction]] = field(default_factory=dict)


def methods_without_grad(classes: dict, foreign: Foreign | None, cls: str | None) -> frozenset[str]:
    """The methods class ``cls`` (of this file's ``classes`` or another file's) runs under
    @torch.no_grad() or wholly inside a ``with torch.no_grad():`` block."""
    if cls in classes:
        return no_grad_methods(classes[cls].node)
    found = foreign.names.get(cls or "") if foreign is not None else None
    return found.no_grad_methods if isinstance(found, ForeignClass) else frozenset()


def reached_twice(findings: list[RawFinding], tree: ast.AST) -> list[RawFinding]:
    """TW012 said twice for one forward of another file: at a call of this file's function
    that reaches it (``preprocess(q, sni_model)`` after ``sni_model.eval()``) and at the
    call of the other file's helper inside that function (``fast_test(inp, sni_model)``).
    The finding at the helper's own call stands; the one down the chain is dropped."""
    direct = {f.silenced_at for f in findings if f.silenced_at and _calls_helper(f, tree)}
    return [
        f
        for f in findings
        if not (f.silenced_at in direct and f.silenced_at and not _calls_helper(f, tree))
    ]


def _calls_helper(finding: RawFinding, tree: ast.AST) -> bool:
    """The finding's line calls the other file's helper it names (``fast_test() (in``)."""
    helper = finding.message.partition("() (in ")[0].rpartition(" ")[2].rpartition(".")[2]
    return any(
        isinstance(n, ast.Call)
        and getattr(n, "lineno", 0) == finding.line
        and (dotted(n.func) or "").rpartition(".")[2] == helper
        for n in ast.walk(tree)
    )
