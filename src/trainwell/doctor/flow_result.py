"""What the data flow of graphs (`grad_flow`) finds in one scope: its result type."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field


@dataclass
class GraphFlow:
    """The outcome of :func:`graph_flow` for one scope."""

    # forwards (and graph-returning calls) whose graph nothing can use: (call, where to report)
    discarded: list[tuple[ast.AST, ast.AST]] = field(default_factory=list)
    # the scope returns a graph built by a forward of its own (or of a function it calls)
    returns_graph: bool = False
    # the forward the returned graph comes from (None: the scope's own callers are the site)
    graph_site: ast.AST | None = None
    # parameter -> what becomes of what is passed in it
    param_fates: dict[str, frozenset[str]] = field(default_factory=dict)
    # a tuple return: what each element carries (see _Flow.return_positions)
    return_positions: tuple[frozenset[str], ...] | None = None
    # calls of graph-returning functions whose graph this scope backpropagates
    trained_calls: set[ast.AST] = field(default_factory=set)
    # forwards on data (no graph upstream) whose output this scope backpropagates: a frozen
    # model among them (a teacher in eval()) builds a graph that only wastes the backward
    backprop_from_data: set[ast.AST] = field(default_factory=set)
    # forwards whose inputs carry no graph (data)
    data_input: set[ast.AST] = field(default_factory=set)
    # forwards on data whose output (graph and all) goes to code the analysis cannot see
    escaped_from_data: set[ast.AST] = field(default_factory=set)
    # discarded forwards whose detached values feed a backward(): part of a training step
    feeds_training: set[ast.AST] = field(default_factory=set)
    # it returns a detached tensor of a forward (``net(s2).detach().max(1)[0]``): a target?
    returns_cut: bool = False
    # calls of this file's functions whose returned graph (detached tensor) this scope trains
    # on or hands to unknown code, those it returns itself, and its discarded forwards whose
    # detached tensor it returns (a target if a caller uses it so: see `analysis`)
    used_calls: set[ast.AST] = field(default_factory=set)
    returned_calls: set[ast.AST] = field(default_factory=set)
    used_cut_calls: set[ast.AST] = field(default_factory=set)
    returned_cut_calls: set[ast.AST] = field(default_factory=set)
    cut_returned: set[ast.AST] = field(default_factory=set)
    # discards found only in one phase of a ``for phase in ("train", "val")`` loop
    # (the loop's name, the phase, the training phase)
    phase_of: dict[ast.AST, tuple[str, str, str]] = field(default_factory=dict)
