"""What counts as the forward of a model just put in eval() (TW012's eval() rule): its own
forward and its submodules', here or in a called function, a method that runs it for its
predictions, and a submodule by its name when the model's class is out of sight."""

from __future__ import annotations

import ast
import re

from .._astutil import dotted, last_part, walk
from ..analysis import ScopeWalker
from ..call_effects import runs_forward
from ..events import CALL, FORWARD, MODE_UNKNOWN, OPAQUE, TRAIN, Event
from ._common import caller_key, is_training


def unguarded_forward(
    w: ScopeWalker, after: list[Event], key: str
) -> tuple[ast.AST, ast.AST] | None:
    """The first forward pass of ``key`` with autograd on, here or in a called function
    (with the event's node that reaches it: the forward itself or the call)."""
    forward: ast.AST | None = None
    via: ast.AST | None = None
    # model(data, inference=True) as a statement: its result is thrown away (or kept by the
    # model on itself): no evaluation by its output, as the data-flow rule has it too
    # (unless the file registers hooks: they take what the forward computes)
    thrown = (
        set()
        if registers_hooks(w)
        else {
            id(n.value)
            for n in walk(ast.Module(body=list(w.body), type_ignores=[]))
            if isinstance(n, ast.Expr)
        }
    )
    for e in after:
        if e.kind in {TRAIN, MODE_UNKNOWN} and e.receiver == key:
            break
        if is_training(e):
            return None
        if forward is not None or e.no_grad:
            continue
        if id(e.node) in thrown and e.kind != CALL:
            continue
        if (
            (e.kind == FORWARD and e.receiver == key)
            or _inference_method(w, e, key)
            or _submodule_run(e, key)
            or _own_forward_called(e, key)
            or _forward_function_run_on(e, key)
        ):
            forward = via = e.node
        elif e.kind == CALL and e.summary is not None:
            # (the model's own method running its parts: model.AE(x) runs self.Enc, self.Dec)
            own = _on(getattr(e.node, "func", None), key)
            forward = next(
                (
                    node
                    for k, node in e.summary.forwards.items()
                    if caller_key(e, k) == key or (own and _model_or_part(caller_key(e, k), key))
                ),
                None,
            )
            via = e.node
    return (forward, via) if forward is not None and via is not None else None


def _forward_function_run_on(e: Event, key: str) -> bool:
    """``forward_fn(model, batch)``: a function the analysis cannot see (a parameter, one
    picked by the config) named for running a model's forward, handed the model."""
    node = e.node
    if e.kind != OPAQUE or not isinstance(node, ast.Call):
        return False
    name = last_part(dotted(node.func) or "") or ""
    if not (runs_forward(name) or name.endswith("_forward")) or name == "forward":
        return False
    return any(dotted(arg) == key for arg in node.args[:1])


def _model_or_part(receiver: str | None, key: str) -> bool:
    """``gan.G(z)`` after ``gan.eval()``: eval() puts every submodule in eval mode."""
    if receiver is None:
        return False
    part = receiver.removeprefix(key + ".")
    return receiver == key or (part != receiver and _submodule_name(part))


# Attributes of a model that are submodules by their name: ``self.model.G(noise)``,
# ``vae.decoder(z)``, ``net.backbone(x)`` on a model whose class is out of sight; and a
# short capitalised name (``model.Enc(x)``, ``model.AE(x)``), a class's instance as ``G`` is.
_SUBMODULE = re.compile(
    r"^([A-Z]|net_?[A-Z]\w*)$|encoder|decoder|generator|discriminator|backbone|classifier"
    r"|extractor|(^|_)(critic|actor)(_|\d|$)",  # an actor, not a "factor"
    re.I,
)
# a method named for what it does (``model.get_encoder_ids(x)``), not a submodule's name
_METHOD_VERB = re.compile(r"^(get|set|make|build|init|load|save|reset|freeze|update)_", re.I)
_SHORT_CAPITALISED = re.compile(r"[A-Z][A-Za-z0-9]{1,3}")


def _submodule_name(name: str) -> bool:
    if _METHOD_VERB.match(name):
        return False
    return bool(_SUBMODULE.search(name) or _SHORT_CAPITALISED.fullmatch(name))


def _submodule_run(e: Event, key: str) -> bool:
    """A submodule of the model in eval() run on an input, the model's class unseen."""
    node = e.node
    return (
        e.kind == OPAQUE
        and isinstance(node, ast.Call)
        and bool(node.args or node.keywords)
        and _on(node.func, key)
        and _submodule_name(node.func.attr)  # type: ignore[attr-defined]
    )


def _own_forward_called(e: Event, key: str) -> bool:
    """``self.eval(); out = self.forward(x)`` (or ``self.forwardAE(x)``) in a model's own
    method: its forward is a method of the class, called like any other."""
    node = e.node
    return (
        e.kind == CALL
        and isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and runs_forward(node.func.attr)
        and dotted(node.func.value) == key
    )


def shown_name(forward: ast.AST, key: str) -> str:
    """The name a finding shows: the submodule run (``vae.decoder``) or the model."""
    name = dotted(forward.func) if isinstance(forward, ast.Call) else None
    method = name is not None and name.startswith(key + ".") and runs_forward(last_part(name))
    handed = isinstance(forward, ast.Call) and any(dotted(a) == key for a in forward.args[:1])
    if handed and name is not None and "." not in name:
        return name  # forward_fn(model, batch): the function that runs it
    return name if name != key and (method or _model_or_part(name, key)) else key  # type: ignore[return-value]


def written_name(w: ScopeWalker, node: ast.AST | None, key: str, receiver: bool = False) -> str:
    """The name the code writes for the model ``key`` at ``node`` (``model``, wrapping
    ``single_model`` in DataParallel), when it names that model; else ``key``.
    ``receiver``: ``node`` is a method (``model.eval``) whose object is meant."""
    if receiver and isinstance(node, ast.Attribute):
        node = node.value
    name = dotted(node) if node is not None else None
    return name if name and w.model_key(name) == w.model_key(key) else key


# Methods that run a model for its predictions, called on a model just put in eval() whose
# class the analysis cannot see (``model.train(False); scores = model.predict(batch)``,
# ``loss = model.calculate_loss(x)``, ``emb = model.forward_emb(images)``).
# Not ``generate``, ``sample``, ``recognize``, ``encode``, ``extract_embedding``: libraries'
# models (Hugging Face, x-transformers, denoising-diffusion, kospeech, sentence-transformers,
# asv-subtools) decorate those with @torch.no_grad() or run them under it.
_INFERENCE_METHOD = re.compile(
    r"^(predict|rank)$|^predict_|(^|_)(loss|forward|reconstruct|embedding|"
    r"prob|probs|logits|scores?|infer|inference|calc|calculate|compute)(_|$)"
)


def _inference_method(w: ScopeWalker, e: Event, key: str) -> bool:
    node = e.node
    if e.kind != OPAQUE or not isinstance(node, ast.Call):
        return False
    func = node.func
    if not isinstance(func, ast.Attribute) or dotted(func.value) != key:
        return False
    if not _INFERENCE_METHOD.search(func.attr) or func.attr.startswith("extract"):
        return False
    if "transform" in func.attr:
        return False  # model._forward_transform(spec): a signal transform, no network
    # self.loss_huber(pred, target): a loss of predictions made before, no forward
    return "loss" not in func.attr or not any(_predicted(w, a, key) for a in node.args)


def _on(func: ast.expr, key: str) -> bool:
    return isinstance(func, ast.Attribute) and dotted(func.value) == key


def _predicted(w: ScopeWalker, arg: ast.expr, key: str) -> bool:
    """The argument is a name bound, before, to what a forward of this scope returned (or
    a method of the model: ``out, durations = self.forward(x)``)."""
    forwards = {
        id(e.node)
        for e in w.events
        if e.kind == FORWARD
        or (e.kind == CALL and isinstance(e.node, ast.Call) and _on(e.node.func, key))
    }
    line = getattr(arg, "lineno", 0)
    for node in walk(ast.Module(body=list(w.body), type_ignores=[])):
        if (
            isinstance(node, ast.Assign)
            and id(node.value) in forwards
            and node.lineno < line
            and dotted(arg) in {dotted(n) for t in node.targets for n in walk(t)}
        ):
            return True
    return False


# Registering a hook lets a forward's result reach a loss without any name holding it.


def foreign_call_inside(w: ScopeWalker, via: ast.AST, helper: str) -> ast.AST:
    """The call of the other file's ``helper`` inside this file's function that ``via``
    calls (``get_validation_loss()`` -> ``score_model(...)``): the one place its callers'
    evaluations all go through; else ``via`` itself."""
    local = w._resolve_local(via.func) if isinstance(via, ast.Call) else None
    if local is None:
        return via
    calls = [
        n for n in walk(local[0]) if isinstance(n, ast.Call) and last_part(dotted(n.func)) == helper
    ]
    return calls[0] if len(calls) == 1 else via


_HOOK_METHODS = {"register_forward_hook", "register_forward_pre_hook", "register_hook",
                 "register_full_backward_hook"}  # fmt: skip


def registers_hooks(w: ScopeWalker) -> bool:
    """The file registers forward or backward hooks: a forward's result may reach them."""
    fa = w.fa
    cached = getattr(fa, "_registers_hooks", None)
    if cached is None:
        cached = any(isinstance(n, ast.Attribute) and n.attr in _HOOK_METHODS for n in fa.nodes)
        fa._registers_hooks = cached  # type: ignore[attr-defined]
    return cached
