"""Facts from other files of the project, as the walk of one file sees them.

When several files are checked together, :mod:`.project` analyses the file behind an
``import`` and keeps what a caller needs: which of its classes are ``nn.Module`` s (and
whether their ``forward()`` ends in softmax) and a :class:`~.events.Summary` of each of its
module-level functions.  The records here carry those facts into the importing file's walk;
:class:`ForeignNode` stands in for an AST node of the other file, so that a finding can
point there.
"""

from __future__ import annotations

from dataclasses import dataclass, field

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
    # an object of a project class it returns (``create_model(opt)`` -> ``HGModel(opt)``)
    returned_class: ForeignClass | None = None


@dataclass
class Foreign:
    """What the imports of one file resolve to among the project's files."""

    names: dict[str, ForeignClass | ForeignFunction] = field(default_factory=dict)
    modules: dict[str, dict[str, ForeignClass | ForeignFunction]] = field(default_factory=dict)
