"""TW011: a loss tensor kept across iterations (or beyond a step_fn's step) with its
whole autograd graph.
"""

from __future__ import annotations

import ast

from .. import values as V
from .._astutil import closure, dotted, last_part, walk
from ..analysis import ScopeWalker
from ..events import CALL
from ..scope_facts import own_nodes
from ..values import Value
from ._common import report
from ._kept_values import uncut_names
from ._loss_graph_eval_examples import EVALUATION_EXAMPLES
from ._loss_graph_examples import KEPT_EXAMPLES, SUMMED_EXAMPLES
from ._registry import Example, Rule, accumulate_check, in_loop

TW011 = Rule(
    "TW011",
    "loss-kept-with-graph",
    "warning",
    "The loss tensor itself is accumulated or stored across iterations instead of "
    "loss.item() / loss.detach().",
    "A loss tensor keeps a reference to the whole autograd graph of its iteration "
    "(activations included). total += loss or losses.append(loss) keeps every "
    "iteration's graph alive: memory grows each step until an out-of-memory error hours "
    "later, and training slows down. Use loss.item() (or loss.detach() to avoid a sync). "
    "A step_fn passed to trainwell.fit() that stores its loss in a global, a closure or "
    "an attribute is reported too.",
    "running_loss = 0.0\n"
    "for x, y in loader:\n"
    "    loss = criterion(model(x), y)\n"
    "    loss.backward()\n"
    "    running_loss += loss\n",
    "running_loss = 0.0\n"
    "for x, y in loader:\n"
    "    loss = criterion(model(x), y)\n"
    "    loss.backward()\n"
    "    running_loss += loss.item()\n",
    examples=(
        Example(
            "loss_accumulated",
            in_loop(
                "optimizer.zero_grad()\nloss = criterion(model(x), y)\nloss.backward()\n"
                "optimizer.step()\ntotal += loss"
            ).replace("    for epoch", "    total = 0\n    for epoch"),
            [(10, "TW011")],
        ),
        Example(
            "loss_item_accumulated",
            in_loop(
                "optimizer.zero_grad()\nloss = criterion(model(x), y)\nloss.backward()\n"
                "optimizer.step()\ntotal += loss.item()"
            ).replace("    for epoch", "    total = 0\n    for epoch"),
            [],
        ),
        Example(
            "per_source_losses_of_one_step",
            """\
            def run_epoch(model, progress, optimizer, log):
                for step, (mix, sources) in enumerate(progress):
                    reco = F.mse_loss(model(mix), sources, reduction="none").mean(dim=(0, 2))
                    loss = reco.mean()
                    losses = {}
                    losses["loss"] = loss
                    for k, name in enumerate(model.sources):
                        losses[f"reco_{name}"] = reco[k]
                    optimizer.zero_grad()
                    loss.backward()
                    optimizer.step()
                    log({k: v.item() for k, v in losses.items()})
            """,
            [],
        ),
        Example(
            # every entry turned into a number in place before the sum (DBNet)
            "a_dict_of_losses_made_numbers_key_by_key",
            """\
            def train_epoch(model, loader, optimizer, criterion):
                train_loss = 0.0
                for x, y in loader:
                    losses = criterion(model(x), y)
                    optimizer.zero_grad()
                    losses["loss"].backward()
                    optimizer.step()
                    for key, value in losses.items():
                        losses[key] = value.item()
                    train_loss += losses["loss"]
                return train_loss
            """,
            [],
        ),
        Example(
            "a_dict_of_losses_summed_as_it_is",
            """\
            def train_epoch(model, loader, optimizer, criterion):
                train_loss = 0.0
                for x, y in loader:
                    losses = criterion(model(x), y)
                    optimizer.zero_grad()
                    losses["loss"].backward()
                    optimizer.step()
                    train_loss += losses["loss"]
                return train_loss
            """,
            [(8, "TW011")],
        ),
        Example(
            # a running mean kept as (sum, count): the loss tensor in its first position
            "loss_added_to_a_tuple_running_mean",
            """\
            def train_epoch(model, loader, optimizer, criterion):
                avg_loss = (0.0, 0.0)
                for x, y in loader:
                    optimizer.zero_grad()
                    loss = criterion(model(x), y)
                    loss.backward()
                    optimizer.step()
                    avg_loss = (avg_loss[0] * 0.99 + loss, avg_loss[1] * 0.99 + 1.0)
                    print(avg_loss[0] / avg_loss[1])
            """,
            [(8, "TW011")],
        ),
        Example(
            "loss_added_to_a_total_by_assignment",
            """\
            def train_epoch(model, loader, optimizer, criterion):
                total_loss = 0
                for batch_id, (x, y) in enumerate(loader):
                    optimizer.zero_grad()
                    loss = criterion(model(x), y)
                    loss.backward()
                    optimizer.step()
                    total_loss = total_loss + loss
                print(total_loss / (batch_id + 1))
            """,
            [(8, "TW011")],
        ),
        Example(
            # per-sample losses of one batch, averaged into the returned loss
            "per_sample_losses_averaged_and_returned",
            """\
            def model_fn(batch, model, criterion):
                outs = model(batch.src)
                losses = []
                for out, tgt in zip(outs.unbind(), batch.tgt.unbind()):
                    losses.append(criterion(out, tgt))
                return sum(losses) / len(losses)
            """,
            [],
        ),
        Example(
            # the name is rebound to a Python number before it is stored
            "loss_rebound_to_its_number_per_timestep",
            """\
            def train_epoch(model, loader, optimizer, loss_fn, window):
                loss_epoch = np.zeros(len(loader))
                for i, (x, y) in enumerate(loader):
                    optimizer.zero_grad()
                    loss = loss_fn(model(x), y)
                    loss.backward()
                    optimizer.step()
                    loss = loss.item() / window
                    loss_epoch[i] = loss
                return loss_epoch
            """,
            [],
        ),
        Example(
            # one step's loss summed over the heads of a multi-head model, then returned
            "a_loss_summed_over_heads_and_returned",
            """\
            class Learner:
                def criterion(self, preds, targets, tasks):
                    loss = 0
                    for t, t_preds in preds.items():
                        inds = [i for i in range(len(tasks)) if tasks[i] == t]
                        loss += self.criterion_fn(t_preds[inds], targets[inds]) * len(inds)
                    loss /= len(targets)
                    return loss
            """,
            [],
        ),
        Example(
            # one step's per-channel losses, summed into the dict the step returns
            "a_loss_summed_over_channels_into_a_returned_dict",
            """\
            def shared_step(model, images, targets, channels):
                maps = model(images)
                channel_losses, result = [], {}
                for i in range(channels):
                    channel_losses.append(F.mse_loss(maps[:, i], targets[i]))
                    result[f"loss_{i}"] = channel_losses[i].detach()
                result.update({"loss": sum(channel_losses)})
                return result
            """,
            [],
        ),
        Example(
            # summed over a rollout's horizon inside one update; read detached after it
            "a_loss_summed_over_a_horizon_before_the_steps_backward",
            """\
            def update(model, optimizer, obs, actions, targets, horizon):
                value_loss, priority = 0, 0
                z = model.encode(obs)
                for t in range(horizon):
                    z, q = model.next(z, actions[t])
                    value_loss += F.mse_loss(q, targets[t])
                    priority += F.l1_loss(q, targets[t])
                optimizer.zero_grad()
                value_loss.backward()
                optimizer.step()
                return priority.detach()
            """,
            [],
        ),
        Example(
            # train_step() returns (loss, metrics): the loss tensor, summed over the epoch
            "a_loss_returned_in_a_tuple_and_summed",
            """\
            def train_step(model, optimizer, x, y):
                optimizer.zero_grad()
                loss = F.cross_entropy(model(x), y)
                loss.backward()
                optimizer.step()
                return loss, accuracy(model, x, y)

            def train_epoch(model, optimizer, loader):
                total = 0.0
                for x, y in loader:
                    step_loss, step_acc = train_step(model, optimizer, x, y)
                    total += step_loss
                return total / len(loader)
            """,
            [(12, "TW011")],
        ),
    )
    + KEPT_EXAMPLES
    + SUMMED_EXAMPLES
    + EVALUATION_EXAMPLES,
)


@accumulate_check(TW011)
def check_accumulation(
    w: ScopeWalker, container: str | None, value: Value | None, node: ast.AST
) -> None:
    """TW011 at ``acc += loss`` / ``acc.append(loss)`` / ``acc[k] = loss``."""
    if container is None or _into_a_numpy_array(w, container, node):
        return
    if (
        (value is None or value.kind != V.LOSS)
        and not _a_summed_output_in_training(w, node)
        and not _the_backpropagated_expression(w, node)
    ):
        return
    if not w.loop_stack and w.is_step_fn and not w.no_grad():
        # a step_fn given to fit() runs once per training step: whatever it did not create
        # itself (a global, an attribute, a closure's list) outlives the step
        root = container.split(".")[0]
        outlives = root not in w.bind_loops or ("." in container and root in w.params)
        if not outlives or _fed_to_backward(w, container):
            return
        report(
            w,
            "TW011",
            node,
            f"the loss tensor is kept in '{container}' beyond the step (step_fn runs every "
            "training step) with its whole autograd graph: use loss.item() or loss.detach()",
        )
        return
    if not w.loop_stack and _kept_by_a_step_method(w, container):
        report(
            w,
            "TW011",
            node,
            f"the loss tensor is kept in '{container}', which outlives this training step, "
            "with its whole autograd graph: use loss.item() or loss.detach()",
        )
        return
    if not w.loop_stack or container not in w.bind_loops:
        return
    if w.no_grad() and not w.grad_on_purpose[-1]:
        return
    bound_in = w.bind_loops[container]
    if all(loop in bound_in for loop in w.loop_stack):
        return  # created in this very iteration: not kept across iterations
    crossed = [w.loops[loop] for loop in w.loop_stack if loop not in bound_in]
    if any(
        w.loops[loop].kind == "batch" or _steps_each_pass(w.loops[loop].node) for loop in bound_in
    ) and all(info.kind not in {"batch", "epoch"} for info in crossed):
        # reset every batch (a loop that steps each pass is one, whatever it iterates),
        # filled over an inner loop (students, micro-batches, a model's sources)
        return
    if _fed_to_backward(w, container) or _differentiated(w, container):
        return  # summed on purpose and back-propagated later
    if not bound_in and _is_step_closure(w):
        return  # LBFGS's closure: its total is the one step's loss, handed to step()
    per_part = all(
        info.kind not in {"batch", "epoch"}
        and not _steps_each_pass(info.node)
        and not _calls_a_step_each_pass(w, info.id)
        for info in crossed
    )
    if per_part and (_returned(w, container) or (not bound_in and container.startswith("self."))):
        # a loss summed over heads or tasks, made anew per call and handed back (returned,
        # or kept in an attribute for another method: La-MAML's self.meta_losses)
        return
    if not bound_in and per_part and _trains_after(w, crossed[0].node):
        return  # summed over a horizon inside one training step (TD-MPC's priority_loss)
    what = "the loss tensor" if value is not None and value.kind == V.LOSS else "a loss term"
    report(
        w,
        "TW011",
        node,
        f"{what} is kept in '{container}' across iterations "
        "with its whole autograd graph: use loss.item() or loss.detach()",
    )


def _into_a_numpy_array(w: ScopeWalker, container: str, node: ast.AST) -> bool:
    """``loss_arr[itr - 1] = loss`` into ``loss_arr = np.empty(n)``: NumPy stores the
    number, not the tensor (nor its graph)."""
    stored = isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store)
    if not stored and not (
        isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Subscript)
    ):
        return False
    scope = w.func if w.func is not None else ast.Module(body=list(w.body), type_ignores=[])
    return any(
        isinstance(n, ast.Assign)
        and isinstance(n.value, ast.Call)
        and (dotted(n.value.func) or "").split(".")[0] in {"np", "numpy"}
        and any(dotted(t) == container for t in n.targets)
        for n in walk(scope)
    )


_REDUCTIONS = {"mean", "sum"}
_CUTS = V.GRAPH_CUTTING | {"float", "int"}


def _a_summed_output_in_training(w: ScopeWalker, node: ast.AST) -> bool:
    """``loss_G_avg += -torch.mean(pred_fake)`` in a loop that trains each pass: a term of
    the loss recomputed from the model's output, with its graph, added up like the loss."""
    if not isinstance(node, ast.AugAssign) or w.no_grad():
        return False
    if not any(_steps_each_pass(w.loops[loop].node) for loop in w.loop_stack):
        return False
    calls = [n for n in walk(node.value) if isinstance(n, ast.Call)]
    names = {last_part(dotted(c.func) or "") for c in calls}
    if not names & _REDUCTIONS or names & _CUTS:
        return False
    if any(isinstance(n, ast.Attribute) and n.attr in _CUTS for n in walk(node.value)):
        return False  # pred.data.mean()
    read = [w.lookup(dotted(n) or "") for n in walk(node.value) if isinstance(n, ast.Name)]
    return any(v is not None and v.kind == V.OUTPUT for v in read)


def _the_backpropagated_expression(w: ScopeWalker, node: ast.AST) -> bool:
    """``losses.append(output["loss"])`` where the scope runs ``output["loss"].backward()``:
    what is kept is the loss itself, whatever the model's output is (a dict of losses)."""
    kept = (
        node.args[-1]
        if isinstance(node, ast.Call) and node.args
        else node.value
        if isinstance(node, ast.AugAssign)
        else None
    )
    if not isinstance(kept, (ast.Subscript, ast.Attribute, ast.Name)):
        return False
    losses = _backpropagated(w)
    if isinstance(kept, ast.Name):  # (causal_loss + env_loss).backward(); all_env += env_loss
        return kept.id in losses
    if ast.unparse(kept) not in losses:
        return False
    return not _made_numbers(w, dotted(kept.value))


def _backpropagated(w: ScopeWalker) -> set[str]:
    """What the scope's ``.backward()`` calls are called on: each receiver written out
    (``output["loss"]``), and the names summed or scaled into one (``(a + b).backward()``)."""
    found = w.__dict__.get("_backpropagated")
    if found is None:
        scope = w.func if w.func is not None else w.fa.tree
        found = w.__dict__["_backpropagated"] = set()
        for n in own_nodes(scope):
            if not (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)):
                continue
            loss = n.func.value
            if n.func.attr != "backward":
                continue
            if isinstance(loss, (ast.Subscript, ast.Attribute)):
                found.add(ast.unparse(loss))
            elif isinstance(loss, ast.BinOp):
                found |= {t.id for t in walk(loss) if isinstance(t, ast.Name)}
    return found


_NUMBERS = {"item", "detach", "tolist", "cpu", "float"}


def _made_numbers(w: ScopeWalker, holder: str | None) -> bool:
    """``losses[key] = value.item()``: the holder's entries are turned into numbers."""
    scope = w.func if w.func is not None else w.fa.tree
    return any(
        isinstance(n, ast.Assign)
        and any(isinstance(t, ast.Subscript) and dotted(t.value) == holder for t in n.targets)
        and any(
            isinstance(c, ast.Call) and last_part(dotted(c.func) or "") in _NUMBERS
            for c in walk(n.value)
        )
        for n in own_nodes(scope)
    )


def _fed_to_backward(w: ScopeWalker, container: str) -> bool:
    """The container (``total_loss``, ``losses.total``) feeds a ``backward()`` of the scope.
    An attribute of ``self`` is judged by its own name: ``self`` itself reaches every
    backward through ``self.model``, which says nothing of ``self.train_loss``."""
    root = container.split(".")[0]
    if root != "self" and root in w.backward_involved:
        return True
    return last_part(container) in w.backward_involved


def _kept_by_a_step_method(w: ScopeWalker, container: str) -> bool:
    """A loop-less method running backward() (``train_step()``, once per batch) adds the loss
    to an attribute it did not make (``self.tracker.update(loss)``): it outlives the step."""
    if (
        w.cls is None
        or w.no_grad()
        or not container.startswith("self.")
        or container in w.bind_loops
    ):
        return False
    if last_part(container) in w.backward_involved or _differentiated(w, container):
        return False
    return any(
        isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "backward"
        for n in walk(w.func)
    )


def _differentiated(w: ScopeWalker, name: str) -> bool:
    """The scope hands the sum to a gradient: ``torch.autograd.grad(total, params)`` or a
    helper given the model's parameters with it (``get_flat_grad(loss, model.parameters())``)."""
    if w.func is None:
        return False
    for node in walk(w.func):
        if not isinstance(node, ast.Call):
            continue
        args = [*node.args, *(kw.value for kw in node.keywords)]
        if not any(dotted(a) == name for a in args):
            continue
        if last_part(dotted(node.func) or "") == "grad" or any(
            isinstance(a, ast.Call) and last_part(dotted(a.func) or "") == "parameters"
            for a in args
        ):
            return True
    return False


def _returned(w: ScopeWalker, name: str) -> bool:
    """The function returns ``name`` or a value made of it (``sum(losses) / len(losses)``),
    having bound it itself."""
    if w.func is None or name not in w.bind_loops:
        return False
    return name in _feeding_returns(w.func)


def _feeding_returns(func: ast.AST) -> set[str]:
    """Names whose values reach what the function returns: read in a return, assigned to
    such a name, or appended to one (``task_losses`` -> ``total_losses.append(...)`` ->
    ``losses = metrics(total_losses)`` -> ``return losses``), or put in a returned dict
    (``result.update({"loss": loss})``, ``result["loss"] = loss``)."""
    returned: set[str] = set()
    for n in walk(func):
        if isinstance(n, ast.Return) and n.value is not None:
            returned |= uncut_names(n.value)  # return loss.item(): no graph goes out
    flows: list[tuple[set[str], set[str]]] = []  # (targets, sources)
    for n in walk(func):
        if isinstance(n, (ast.Assign, ast.AugAssign)) and n.value is not None:
            targets = n.targets if isinstance(n, ast.Assign) else [n.target]
            # result["loss"] = loss: into the dict ``result``
            targets = [t.value if isinstance(t, ast.Subscript) else t for t in targets]
            flows.append(({dotted(t) for t in targets} - {None}, uncut_names(n.value)))  # type: ignore[arg-type]
        elif (
            isinstance(n, ast.Call)
            and isinstance(n.func, ast.Attribute)
            and n.func.attr in {"append", "extend", "insert", "update"}
            and dotted(n.func.value)
        ):
            flows.append(({dotted(n.func.value)}, set().union(*map(uncut_names, n.args))))  # type: ignore[arg-type]
    return closure(returned, flows)


def _is_step_closure(w: ScopeWalker) -> bool:
    """The scope is a closure handed to ``optimizer.step(closure)``."""
    name = getattr(w.func, "name", None)
    return name is not None and any(
        isinstance(n, ast.Call)
        and isinstance(n.func, ast.Attribute)
        and n.func.attr == "step"
        and any(isinstance(a, ast.Name) and a.id == name for a in n.args)
        for n in w.fa.nodes
    )


def _trains_after(w: ScopeWalker, loop: ast.AST) -> bool:
    """The function calls ``backward()`` after ``loop``: the loop is part of one training
    step, so what it sums lives no longer than that step."""
    end = getattr(loop, "end_lineno", None)
    if w.func is None or end is None:
        return False
    return any(
        isinstance(n, ast.Call)
        and isinstance(n.func, ast.Attribute)
        and n.func.attr == "backward"
        and n.lineno > end
        for n in walk(w.func)
    )


def _steps_each_pass(loop: ast.AST) -> bool:
    """The loop's body calls ``backward()`` or ``step()`` itself, not in an inner loop (a
    training iteration, whatever it iterates)."""
    stack: list[ast.AST] = list(getattr(loop, "body", []))
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.For, ast.AsyncFor, ast.While, ast.FunctionDef, ast.Lambda)):
            continue
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in {"backward", "step"}
        ):
            return True
        stack.extend(ast.iter_child_nodes(node))
    return False


def _calls_a_step_each_pass(w: ScopeWalker, loop_id: int) -> bool:
    """The loop calls a function of the project that steps an optimizer (``loss =
    self.update(batch)`` in ``for i in range(n_updates)``): each pass is a training step."""
    return any(
        e.kind == CALL and e.summary is not None and e.summary.steps and loop_id in e.loops
        for e in w.events
    )
