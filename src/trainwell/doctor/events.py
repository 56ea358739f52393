"""What the walk of a scope records: events, and the summaries and findings it hands on.

An :class:`Event` is one thing a scope does that a rule may care about (``backward``, an
optimizer ``step``, ``zero_grad``, clipping, a train/eval switch, a forward pass, a call of
another function ...), stamped with the loops (:class:`LoopInfo`) and ``if`` branches
(:class:`IfInfo`, a :data:`Path`) it sits in.  A :class:`Summary` is what callers of a
function need to know about it, and a :class:`RawFinding` is a rule's report before the
engine attaches its file.  These are plain records shared by the walker, the rules and the
project index, so this module depends on nothing but the values.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from ._astutil import dotted
from .values import Value

# Event kinds.
BACKWARD = "backward"
STEP = "step"
ZERO = "zero_grad"
CLIP = "clip"
UNSCALE = "unscale"
SCHED = "sched_step"
EVAL = "eval"
TRAIN = "train"
MODE_UNKNOWN = "mode_unknown"
FORWARD = "forward"
CALL = "call"  # call of a function defined in this file (carries a Summary)
OPAQUE = "opaque"  # call of anything else; records which names it received

Path = tuple[tuple[int, int], ...]


@dataclass
class LoopInfo:
    id: int
    node: ast.stmt
    kind: str  # "batch" | "epoch" | "micro" | "other"
    parent: int | None


@dataclass
class IfInfo:
    node: ast.stmt
    loops: tuple[int, ...]


@dataclass
class ModeEffect:
    """How a function changes the train/eval mode of one model it can see."""

    first: str | None = None  # mode set before the function's own first training step
    final: str | None = None  # "train" | "eval" | "unknown"


@dataclass
class Summary:
    """What a call to a same-file function does, as seen by its callers."""

    params: list[str]
    backward: list[ast.AST] = field(default_factory=list)
    steps: list[ast.AST] = field(default_factory=list)
    # the function's own statements that train: its backward() and step() calls, and its
    # calls of functions that run either (where a parameter's test may gate them)
    training_sites: list[ast.AST] = field(default_factory=list)
    zero_grad: bool = False
    train_loop: bool = False
    sched_steps: set[str] = field(default_factory=set)
    modes: dict[str, ModeEffect] = field(default_factory=dict)
    returns: Value | None = None
    # some return of it is a per-step LR schedule (a ``get_scheduler(name)`` of choices)
    returns_per_step_schedule: bool = False
    # model -> first forward pass run with autograd on, before the function sets that
    # model's mode or trains: it runs in whatever mode the caller left the model in.
    forwards: dict[str, ast.AST] = field(default_factory=dict)
    # The data flow of graphs (see grad_flow.py): the function returns a graph built by a
    # forward run with autograd on, at graph_site (None: report at the call); what becomes of
    # each parameter's value (None for a parameter: unknown); forwards it runs whose graph
    # nothing uses (kept for a model's own methods, whose callers are reported).
    returns_graph: bool = False
    graph_site: ast.AST | None = None
    # the graph only when the object's own flag says so (``if self.training: ... else: with
    # torch.no_grad(): ...``): a caller cannot tell, so its discarding is not said
    graph_by_own_state: bool = False
    param_fates: dict[str, frozenset[str]] = field(default_factory=dict)
    # parameters whose detached value it returns, in a loss or a target: what a caller
    # passed there may feed its backward() (``old_log_policy`` of PPO's ratio)
    returned_cut: frozenset[str] = frozenset()
    discards: list[ast.AST] = field(default_factory=list)
    return_positions: tuple[frozenset[str], ...] | None = None
    # it returns a detached tensor of a forward (a target, if a caller uses it so)
    returns_cut: bool = False
    # every return is a tuple of this many values: what each position holds
    returned_elements: tuple[Value | None, ...] | None = None
    # parameters a method adds to (or stores in) an attribute of its object, as they came:
    # an AverageMeter's ``update(val, n)`` doing ``self.sum += val * n``
    kept_params: frozenset[str] = frozenset()
    # where it runs a model forward with autograd on: the forward itself, or the call of a
    # function that does (for mode_switch: which of them a literal argument leaves running)
    grad_forwards: list[ast.AST] = field(default_factory=list)
    # backward() calls of a loss straight from its criterion, in a function that steps no
    # optimizer (``self.loss_backpass(loss)``): its caller's accumulation (TW017)
    unscaled_backward: list[ast.AST] = field(default_factory=list)
    # it runs scaler.scale(loss).backward() and neither steps nor unscales (``train_step()``
    # of a trainer whose caller clips and calls scaler.step): its caller's gradients are
    # still scaled after it (TW006)
    scaled_backward: bool = False
    # it clips gradients and neither backpropagates, steps nor unscales (a trainer's
    # ``clipgradients(params)``): its call is a clip where its caller calls it
    clips: bool = False
    # epoch schedules it steps with the optimizer on every call, outside its loops
    # (``train_step()`` ending in ``optimizer.step(); scheduler.step()``): TW003 where a
    # caller calls it per batch
    epoch_schedules_each_call: list[ast.AST] = field(default_factory=list)

    @property
    def trains(self) -> bool:
        return bool(self.backward or self.steps)


@dataclass
class Event:
    kind: str
    node: ast.AST
    seq: int
    loops: tuple[int, ...]
    path: Path
    no_grad: bool
    receiver: str | None = None
    value: Value | None = None
    summary: Summary | None = None
    argmap: dict[str, str] = field(default_factory=dict)
    args: tuple[str, ...] = ()
    amp: bool = False
    engine: bool = False  # accelerator.backward(loss) & co.
    same_class: bool = False


# in the messages of TW012's eval() rule ("model(...) runs after model.eval() without ..."):
# a forward after the function's own eval(), as opposed to a data-flow finding
EVAL_RULE_MARK = " runs after "


@dataclass
class RawFinding:
    code: str
    line: int
    col: int
    message: str
    path: str | None = None  # another file of the project (cross-file findings); None: this one
    # TW012 found in a helper's forward: where to report instead when some caller trains
    # through the helper's output (a helper shared by training and evaluation: the fix is
    # no_grad at the evaluating call), and the helper's summary that decides it
    at_call: RawFinding | None = None
    helper: Summary | None = None
    # its forward's detached tensor is what the function returns: dropped when a caller
    # makes it a loss's target (or hands it to unknown code)
    cut_returned: bool = False
    # said at a call for a forward in another file: a noqa there silences it too
    silenced_at: tuple[str, int] | None = None
    # said at the call of another file's training function, for that function's own
    # evaluation: a forward of the caller's after it is another evaluation
    in_a_training_call: bool = False

    @property
    def by_eval_rule(self) -> bool:
        """Found by TW012's eval() rule for a region of this scope (``model(...) runs after
        model.eval() ...``), not by the data flow nor for a training function's own region."""
        return EVAL_RULE_MARK in self.message and not self.in_a_training_call

    # inference whatever a switch argument says (a frozen teacher in a train-or-evaluate
    # function): said at the forward, not only at the calls that switch training off
    every_call: bool = False
    # the parameter of its function that holds the model (``policy`` in ``evaluate(policy,
    # env)``): a caller that passes a function there runs no model of its own
    model_param: str | None = None
    # the method of that model the forward calls (``predict`` in ``model.predict(x)``): a
    # caller whose model's class runs it under @torch.no_grad() records no graph
    model_method: str | None = None
    # said at this call of another file's helper that returns its forward's detached
    # tensor: dropped when the calling scope makes a target of it (or returns it on)
    returned_by: ast.AST | None = None


def is_prefix(a: Path, b: Path) -> bool:
    """``a`` is an enclosing (or the same) branch context of ``b``."""
    return b[: len(a)] == a


def compatible(a: Path, b: Path) -> bool:
    """Two events that can run in the same pass: no ``if`` puts them in different arms
    (``if fp16: ...`` then ``if i % k == 0: ...`` are two ifs in a row, not a choice)."""
    arms = dict(a)
    return all(arms.get(if_id, branch) == branch for if_id, branch in b)


RECEIVER = "<receiver>"  # an argmap's entry for the object a method is called on


def receiver_entry(call: ast.Call) -> dict[str, str]:
    """``{RECEIVER: "agent"}`` for ``agent.set_eval()``: the caller's name for the callee's
    ``self`` (``self`` itself for a method inherited from a class of another file)."""
    holder = dotted(call.func.value) if isinstance(call.func, ast.Attribute) else None
    return {RECEIVER: holder} if holder and holder != "cls" else {}
