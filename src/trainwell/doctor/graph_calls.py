"""What the calls and statements of a script do to an autograd graph, for grad_flow.py.

The tables name the tensor methods, functions and attributes that cut a graph (a number, an
index, a detached copy), the calls that only read what they are given (logging, plots),
those that put it in a container, and the libraries that compute on it without keeping it.
:func:`decide` and :func:`phase_loops` let the pass follow a ``for phase in ("train",
"val")`` loop one phase at a time.
"""

from __future__ import annotations

import ast
import re
from typing import TypeVar

from ._astutil import walk

T = TypeVar("T")

# Tensor methods whose result carries no graph (a number, indices, a boolean mask, a sample:
# ``probs.multinomial(1)`` draws indices).
CUTTING_METHODS = {
    "item", "tolist", "numpy", "detach", "detach_", "argmax", "argmin", "argsort", "sample",
    "long", "int", "bool", "byte", "short", "eq", "ne", "lt", "le", "gt", "ge", "isnan",
    "isinf", "isfinite", "nonzero", "size", "dim", "numel", "nelement", "any", "all",
    "equal", "allclose", "data_ptr", "get_device", "element_size", "stride", "is_contiguous",
    "multinomial", "bernoulli",
}  # fmt: skip
# Reductions that return (values, indices) when given a dim: ``_, pred = out.max(1)``.
VALUES_AND_INDICES = {"max", "min", "sort", "topk", "kthvalue", "median", "mode"}
# The cuts that keep the values: what they return may still be a loss's target.
VALUE_KEEPING = {"item", "tolist", "numpy", "detach", "detach_", "float", "data"}
# The cuts that read the values to the host: numbers from then on, not a tensor.
HOST_READS = {"item", "tolist", "numpy"}
# Attributes that carry no graph.
CUTTING_ATTRS = {
    "data", "grad", "shape", "dtype", "device", "requires_grad", "is_cuda", "ndim",
    "is_leaf", "grad_fn", "layout",
}  # fmt: skip
# Reading the output's shape is checking the model (``assert model(x).shape == ...`` in a
# smoke test), not inference: it counts as a use. Not its dtype, read to make a tensor
# like it (``torch.ones_like(logits, dtype=logits.dtype)`` in a sampling helper).
SHAPE_READS = {"shape", "size", "dim", "ndim"}
# Functions (by the last part of their name) whose result carries no graph.
CUTTING_FUNCTIONS = {
    "float", "int", "bool", "len", "str", "repr", "print", "format", "isinstance", "type",
    "id", "hash", "argmax", "argmin", "argsort", "isnan", "isinf", "isfinite", "array",
    "asarray", "save_image", "eq", "ne", "equal", "allclose", "round", "dumps", "dump",
    "multinomial", "bernoulli",  # samples drawn by the values: indices, no graph
}  # fmt: skip
# Calls that read what they are given and keep none of it for a backward (logging, plots,
# metrics, progress bars): what is handed to them is consumed, not escaped.
CONSUMING_METHODS = {
    "add_scalar", "add_scalars", "add_image", "add_images", "add_histogram", "add_figure",
    "add_text", "add_embedding", "add_video", "add_pr_curve", "log", "log_dict",
    "log_metrics", "info", "debug", "warning", "warn", "error", "write", "set_postfix",
    "set_description", "set_postfix_str", "savefig", "imshow", "plot", "scatter", "hist",
    "save_image", "imsave", "imwrite", "print", "format", "step",
    # a matplotlib Axes draws what it is given
    "semilogy", "semilogx", "loglog", "errorbar", "fill_between", "bar", "barh", "stem",
    "contour", "contourf", "pcolormesh", "matshow", "boxplot", "violinplot", "axhline",
    "axvline", "set_title", "set_xlabel", "set_ylabel", "text", "annotate",
}  # fmt: skip
# Methods that put what they are given into their receiver (a list, a dict, a set).
CONTAINER_METHODS = {"append", "extend", "insert", "add", "setdefault", "appendleft"}
# Libraries whose functions compute on what they are given and keep none of it.
PURE_LIBRARIES = (
    "torch.",
    "numpy.",
    "np.",
    "math.",
    "torchvision.",
    "PIL.",
    "matplotlib.",
    "plt.",
    "sklearn.",
    "scipy.",
    "einops.",
    "random.",
    "F.",
)
# Calls that backpropagate what they are given (``loss.backward()``, ``accelerator.backward(
# loss)``, ``self.manual_backward(loss)``), or take gradients of it.
BACKWARD_CALLS = {"backward", "manual_backward"}
GRAD_FUNCTIONS = {"torch.autograd.grad", "torch.autograd.backward"}
# Methods of a model class not followed as inference (they train, or return the model).
NOT_FOLLOWED_METHODS = {"forward", "train", "eval", "to", "cuda", "cpu", "__init__"}
BUILTINS_PURE = {
    "max", "min", "sum", "abs", "list", "tuple", "dict", "set", "zip", "enumerate", "sorted",
    "reversed", "map", "filter", "iter", "next", "range", "divmod", "pow", "getattr",
}  # fmt: skip


def phase_loops(body: list[ast.stmt]) -> list[tuple[str, list[str]]]:
    """``for phase in ["train", "val"]:`` loops of the scope: (name, the phases)."""
    loops = []
    for node in own_statements(body):
        if (
            isinstance(node, (ast.For, ast.AsyncFor))
            and isinstance(node.target, ast.Name)
            and isinstance(node.iter, (ast.List, ast.Tuple))
            and len(node.iter.elts) >= 2
            and all(
                isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.iter.elts
            )
        ):
            loops.append((node.target.id, [e.value for e in node.iter.elts]))  # type: ignore[attr-defined]
    return loops


def decide(test: ast.expr, assume: dict[str, str]) -> bool | None:
    """The value of an ``if`` test under ``phase == value`` assumptions (None: not decided).

    ``phase == "train"``, ``phase != "val"``, ``phase in ("val", "test")``, and ``not`` of
    one of these.
    """
    if not assume:
        return None
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = decide(test.operand, assume)
        return None if inner is None else not inner
    if not (
        isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.left, ast.Name)
    ):
        return None
    value = assume.get(test.left.id)
    if value is None:
        return None
    op, right = test.ops[0], test.comparators[0]
    if isinstance(op, (ast.Eq, ast.NotEq)) and isinstance(right, ast.Constant):
        return (value == right.value) == isinstance(op, ast.Eq)
    if isinstance(op, (ast.In, ast.NotIn)) and isinstance(right, (ast.Tuple, ast.List, ast.Set)):
        members = [e.value for e in right.elts if isinstance(e, ast.Constant)]
        return (value in members) == isinstance(op, ast.In)
    return None


# Measures that compute a number from what they are given and keep none of it (as a loss:
# 1 - ssim(out, y) backpropagated, the forward is used all the same).
MEASURE_WORDS = {"psnr", "ssim", "msssim", "iou", "miou", "bleu", "rouge", "f1", "auc", "wer", "cer"}  # fmt: skip


def is_measure(name: str) -> bool:
    """``pytorch_ssim.ssim(out, y)``, ``calc_psnr(sr, hr)``: a function of its inputs."""
    return bool(set(name.lower().split("_")) & MEASURE_WORDS)


def is_metric(name: str) -> bool:
    """``accuracy(out, y)``, ``compute_acc(...)``: a metric, never backpropagated."""
    words = set(name.lower().split("_"))
    return "accuracy" in words or "acc" in words or "metric" in words or "metrics" in words


def writes_out(name: str) -> bool:
    """``plot_reconstructions(x, x_mean)``, ``save_samples(out)``, ``visualize(pred)``: a
    function of the project that shows or writes what it is given, and keeps none of it;
    or a logger's method (``self.logger.log_train(step, loss, samples)``)."""
    tail = name.rpartition(".")[2]
    return tail.lower().split("_")[0] in _WRITER_WORDS or logs_out(name)


def logs_out(name: str) -> bool:
    """``self.logger.log_train(step, loss, samples)``, ``tb_writer.add_images(...)``: a
    method of a logger (by the receiver's name) that records what it is given."""
    receiver, _, method = name.rpartition(".")
    holder = receiver.rpartition(".")[2]
    return bool(_LOGGER.search(holder)) and method.lower().startswith(_LOGGING_VERBS)


_LOGGER = re.compile(r"(^|_)(logger|writer|tb|tensorboard|tracker|visualizer|wandb)s?$", re.I)
_LOGGING_VERBS = ("log", "add_", "write", "record", "save", "plot", "show")

# (not ``vis``: ``self.vis_encoder(feats)`` is a model's part)
_WRITER_WORDS = {"plot", "save", "show", "visualize", "visualise", "draw", "display", "print",
                 "imshow", "dump", "write"}  # fmt: skip


def from_pure_library(name: str) -> bool:
    """``torch.log(p)``, ``np.exp(x)``: computation, not logging."""
    return bool(name) and name.startswith(PURE_LIBRARIES)


def formatted_values(node: ast.AST) -> list[ast.expr] | None:
    """The values formatted into a string: ``f"{loss}"``, ``"%f" % (cost, err)``,
    ``"{}".format(acc)``; None when ``node`` builds no string."""
    if isinstance(node, ast.JoinedStr):
        return list(node.values)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod) and _a_string(node.left):
        right = node.right
        return list(right.elts) if isinstance(right, ast.Tuple) else [right]
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "format"
        and _a_string(node.func.value)
    ):
        return [*node.args, *(k.value for k in node.keywords)]
    return None


def _a_string(node: ast.expr) -> bool:
    return isinstance(node, ast.JoinedStr) or (
        isinstance(node, ast.Constant) and isinstance(node.value, str)
    )


TRAINING_WORDS = {"train", "learn", "fit", "optimize", "optimise", "backward", "backprop"}


def trains_on(name: str) -> bool:
    """``mine.train_inside_epoch(z, s, opt)``, ``agent.learn(batch)``: a method named for
    training on what it is given, which may backpropagate through it."""
    return bool(set(name.lower().split("_")) & TRAINING_WORDS)


def own_statements(body: list[ast.stmt]) -> list[ast.stmt]:
    """The statements of a scope's body, nested blocks included, nested scopes not: kept
    on the body's first statement (a statement heads one body only), by the body's extent."""
    if not body:
        return []
    cache = body[0].__dict__.setdefault("_tw_own_statements", {})
    key = (len(body), id(body[-1]))
    found = cache.get(key)
    if found is None:
        found = cache[key] = list(_own_statements(body))
    return found


def _own_statements(body: list[ast.stmt]):
    stack = list(body)
    while stack:
        node = stack.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.stmt) and not isinstance(
                child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
            ):
                stack.append(child)


def bind_arguments(call: ast.Call, params: list[str], taints: list[T]) -> dict[str, T]:
    """Parameter -> the taint of the argument passed in it."""
    bound: dict[str, T] = {}
    positional, keywords = taints[: len(call.args)], taints[len(call.args) :]
    if not any(isinstance(a, ast.Starred) for a in call.args):
        bound.update(zip(params, positional, strict=False))
    for kw, taint in zip(call.keywords, keywords, strict=True):
        if kw.arg in params:
            bound[kw.arg] = taint
    return bound


def names_in_nested_scopes(body: list[ast.stmt]) -> set[str]:
    """Free names of the functions and lambdas nested in the scope (what a closure reads of
    this scope: not its parameters, not the names it binds itself)."""
    if not body:
        return set()
    # kept like own_statements: each pass and each assumed phase asks again
    cache = body[0].__dict__.setdefault("_tw_nested_names", {})
    key = (len(body), id(body[-1]))
    names = cache.get(key)
    if names is None:
        names = cache[key] = _names_in_nested_scopes(body)
    return names


def _names_in_nested_scopes(body: list[ast.stmt]) -> set[str]:
    names: set[str] = set()
    stack: list[ast.AST] = list(body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            names |= _free_names(node)
            continue
        stack.extend(ast.iter_child_nodes(node))
    return names


def _free_names(func: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> set[str]:
    names = func.__dict__.get("_tw_free_names")
    if names is None:  # kept on the node: each enclosing scope asks again
        names = func._tw_free_names = _free_names_of(func)  # type: ignore[union-attr]
    return names


def _free_names_of(func: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> set[str]:
    args = func.args
    bound = {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]}
    bound |= {a.arg for a in (args.vararg, args.kwarg) if a is not None}
    loaded: set[str] = set()
    declared: set[str] = set()  # global / nonlocal: they are the outer names
    for node in walk(func):
        if isinstance(node, ast.Name):
            if isinstance(node.ctx, ast.Load):
                loaded.add(node.id)
            else:
                bound.add(node.id)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            declared |= set(node.names)
    return (loaded - bound) | declared


def is_abstract(func: ast.AST | None) -> bool:
    """A method with no body of its own (a docstring, ``pass``, ``...``, ``raise
    NotImplementedError``): subclasses elsewhere define what it does with its arguments."""
    if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    for stmt in func.body:
        if isinstance(stmt, ast.Pass) or (
            isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)
        ):
            continue
        if isinstance(stmt, ast.Raise) and "NotImplementedError" in ast.dump(stmt):
            continue
        return False
    return True
