"""Train/eval mode: TW010, a model left in eval mode for the next training step (after
validation in the epoch loop, or by a step_fn given to trainwell's fit()).
"""

from __future__ import annotations

import ast

from .. import values as V
from .._astutil import dotted, last_part, walk
from ..analysis import ScopeWalker
from ..events import BACKWARD, CALL, EVAL, FORWARD, STEP, TRAIN, Event, is_prefix
from ..scope_facts import own_nodes
from ._common import (
    call_name,
    events_in,
    final_modes,
    is_training,
    mode_effects,
    report,
)
from ._input_gradients import InputGradients
from ._mode_examples import MORE_EXAMPLES
from ._mode_guards import (
    attack_only,
    backward_of_other_models,
    ends_the_training,
    frozen_right_after,
    in_another_arm,
    on_last_pass,
    runs,
    steps_another_model,
    trains,
    trains_a_copy_in_its_own_mode,
)
from ._mode_trained_examples import TRAINED_EXAMPLES
from ._registry import Example, Rule, scope_check

TW010 = Rule(
    "TW010",
    "eval-mode-leak",
    "error",
    "model.eval() is called in the epoch loop and the model is not switched back with "
    "model.train() before the next training step.",
    "eval() turns off dropout and freezes BatchNorm statistics. If validation runs at the "
    "end of an epoch and nothing calls model.train() before the next epoch's training, "
    "every epoch after the first trains in eval mode: no regularisation, stale batch "
    "statistics, silently worse results. A validation helper defined in the same file "
    "that restores train() before returning counts as restoring. A step_fn passed to "
    "trainwell.fit() runs every training step: one that leaves the model in eval mode "
    "is reported too.",
    "for epoch in range(epochs):\n"
    "    for x, y in train_loader:\n"
    "        optimizer.zero_grad()\n"
    "        criterion(model(x), y).backward()\n"
    "        optimizer.step()\n"
    "    model.eval()\n"
    "    with torch.no_grad():\n"
    "        for x, y in val_loader:\n"
    "            val_loss = criterion(model(x), y)\n",
    "for epoch in range(epochs):\n"
    "    model.train()\n"
    "    for x, y in train_loader:\n"
    "        optimizer.zero_grad()\n"
    "        criterion(model(x), y).backward()\n"
    "        optimizer.step()\n"
    "    model.eval()\n"
    "    with torch.no_grad():\n"
    "        for x, y in val_loader:\n"
    "            val_loss = criterion(model(x), y)\n",
    examples=(
        Example(
            "eval_leak",
            """\
            def fit(model, loader, val_loader, criterion, epochs):
                optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
                for epoch in range(epochs):
                    for x, y in loader:
                        optimizer.zero_grad()
                        criterion(model(x), y).backward()
                        optimizer.step()
                    model.eval()
                    with torch.no_grad():
                        print([model(x) for x, _ in val_loader])
            """,
            [(8, "TW010")],
        ),
        Example(
            "eval_restored_at_top",
            """\
            def fit(model, loader, val_loader, criterion, epochs):
                optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
                for epoch in range(epochs):
                    model.train()
                    for x, y in loader:
                        optimizer.zero_grad()
                        criterion(model(x), y).backward()
                        optimizer.step()
                    model.eval()
                    with torch.no_grad():
                        print([model(x) for x, _ in val_loader])
            """,
            [],
        ),
        Example(
            "eval_then_unknown_call",
            """\
            def fit(model, loader, val_loader, criterion, epochs, run_validation):
                optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
                for epoch in range(epochs):
                    for x, y in loader:
                        optimizer.zero_grad()
                        criterion(model(x), y).backward()
                        optimizer.step()
                    model.eval()
                    run_validation(model, val_loader)
            """,
            [],
        ),
        Example(
            "eval_chosen_in_an_elif_is_a_mode_choice",
            """\
            def fit(model, loader, val_loader, criterion, epochs, weights):
                optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
                for epoch in range(epochs):
                    if weights == "finetune":
                        model.train()
                    elif weights == "freeze":
                        model.eval()
                    for x, y in loader:
                        optimizer.zero_grad()
                        criterion(model(x), y).backward()
                        optimizer.step()
                    model.eval()
                    with torch.no_grad():
                        print([model(x) for x, _ in val_loader])
            """,
            [],
        ),
        Example(
            "menu_loop_is_not_an_epoch_loop",
            """\
            def main(model, loader, val_loader, criterion):
                optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
                cmd = ""
                while cmd != "Exit":
                    cmd = input("train / test / Exit: ")
                    if cmd == "train":
                        for x, y in loader:
                            optimizer.zero_grad()
                            criterion(model(x), y).backward()
                            optimizer.step()
                    elif cmd == "test":
                        model.eval()
                        with torch.no_grad():
                            print([model(x) for x, _ in val_loader])
            """,
            [],
        ),
        Example(
            "while_around_whole_runs_is_not_an_epoch_loop",
            """\
            def sweep(model, loader, val_loader, criterion, lrs):
                optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
                while lrs:
                    lr = lrs.pop()
                    for epoch in range(10):
                        model.train()
                        for x, y in loader:
                            optimizer.zero_grad()
                            criterion(model(x), y).backward()
                            optimizer.step()
                    model.eval()
                    with torch.no_grad():
                        print([model(x) for x, _ in val_loader])
            """,
            [],
        ),
        Example(
            "while_epoch_loop_leak",
            """\
            def fit(model, loader, val_loader, criterion):
                optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
                epoch = 0
                while epoch < 10:
                    for x, y in loader:
                        optimizer.zero_grad()
                        criterion(model(x), y).backward()
                        optimizer.step()
                    model.eval()
                    with torch.no_grad():
                        print([model(x) for x, _ in val_loader])
                    epoch += 1
            """,
            [(9, "TW010")],
        ),
        Example(
            "validation_epochs_under_no_grad_train_nothing",
            """\
            class Solver:
                def run_epoch(self, loader, train=True):
                    for x, y in loader:
                        loss = self.criterion(self.model(x), y)
                        if train:
                            self.optimizer.zero_grad()
                            loss.backward()
                            self.optimizer.step()

                def fit(self, epochs):
                    for epoch in range(epochs):
                        self.model.train()
                        self.run_epoch(self.train_loader)
                        self.model.eval()
                        with torch.no_grad():
                            self.run_epoch(self.valid_loader, train=False)
                            self.run_epoch(self.test_loader, train=False)
            """,
            [],
        ),
        Example(
            # the literal itself says the call trains nothing (mode_switch), no_grad or not
            "validation_epochs_switched_off_by_a_literal",
            """\
            def run_epoch(model, loader, optimizer, mode="train"):
                for x, y in loader:
                    loss = F.cross_entropy(model(x), y)
                    if mode == "train":
                        optimizer.zero_grad()
                        loss.backward()
                        optimizer.step()

            def fit(model, loader, val_loader, optimizer, epochs):
                for epoch in range(epochs):
                    model.train()
                    run_epoch(model, loader, optimizer)
                    model.eval()
                    run_epoch(model, val_loader, optimizer, mode="eval")

            fit(torch.nn.Linear(4, 2), loader, val_loader, optimizer, 3)
            """,
            [(14, "TW012")],
        ),
        Example(
            "train_mode_restored_on_the_moved_model",
            """\
            def fit(model, loader, optimizer, epochs):
                model.train()
                for epoch in range(epochs):
                    for x, y in loader:
                        optimizer.zero_grad()
                        F.cross_entropy(model(x), y).backward()
                        optimizer.step()
                    model.eval().cpu()
                    torch.save(model.state_dict(), "ckpt.pt")
                    model.to(device).train()
            """,
            [],
        ),
        Example(
            "only_the_trained_head_put_back_in_train_mode",
            """\
            def warm_up(model, loader, epochs):
                optimizer = torch.optim.SGD(model.heads[-1].parameters(), lr=0.1)
                for epoch in range(epochs):
                    model.heads[-1].train()
                    for x, y in loader:
                        optimizer.zero_grad()
                        F.cross_entropy(model(x), y).backward()
                        optimizer.step()
                    model.eval()
                    with torch.no_grad():
                        print([model(x) for x, _ in loader])
            """,
            [],
        ),
        Example(
            # the attack puts its own copy of the model in eval(), not the trained one
            "eval_of_a_copy_inside_a_helper",
            """\
            def attack(model, x):
                model = copy.deepcopy(model)
                model.eval()
                x = x.clone().requires_grad_()
                model(x).sum().backward()
                return (x + x.grad.sign()).detach()

            def fit(model, loader, optimizer, epochs):
                for epoch in range(epochs):
                    model.train()
                    for x, y in loader:
                        x_adv = attack(model, x)
                        optimizer.zero_grad()
                        F.cross_entropy(model(x_adv), y).backward()
                        optimizer.step()
            """,
            [],
        ),
        Example(
            # the probe puts the encoder in eval() itself and trains a new head on it
            "a_linear_probe_sets_the_encoders_mode_itself",
            """\
            def probe(encoder, loader):
                encoder.eval()
                head = torch.nn.Linear(8, 2)
                opt = torch.optim.Adam(head.parameters())
                for x, y in loader:
                    with torch.no_grad():
                        z = encoder(x)
                    opt.zero_grad()
                    F.cross_entropy(head(z), y).backward()
                    opt.step()

            def fit(model, loader, optimizer, epochs):
                for epoch in range(epochs):
                    model.train()
                    for x, y in loader:
                        optimizer.zero_grad()
                        model(x).pow(2).mean().backward()
                        optimizer.step()
                    model.eval()
                    probe(model, loader)
            """,
            [],
        ),
    )
    + MORE_EXAMPLES
    + TRAINED_EXAMPLES,
)


def trained_models(w: ScopeWalker) -> set[str]:
    """Models this scope trains: the optimizer's parameters, or models put in train()."""
    keys: set[str] = set()
    candidates = list(w.env.values()) + list(w.fa.module_env.values())
    for value in candidates:
        if value is not None and value.kind == V.OPTIMIZER and value.alias:
            keys.add(value.alias)
    for e in w.events:
        for key, effect in mode_effects(w, e):
            # a helper that ends in train() only restores the mode its evaluation changed
            # (compute_accuracy: eval(), ..., train()): it trains nothing
            restores = e.kind == CALL and effect.first != "train" and not trains(e)
            if (effect.final == "train" and not restores) or effect.first == "train":
                keys.add(key)
    # and those whose parameters an optimizer of the scope takes in any form:
    # Adam(list(model.parameters()) + list(q.parameters()))
    keys |= _optimized_models(w)
    if keys:
        return keys
    # Fallback: the only model run in a loop that also calls backward() (the forward may
    # sit in a loop of its own inside it: one forward per task summed into one loss).
    forwarded = {
        e.receiver
        for e in w.events
        if e.kind == FORWARD
        and e.receiver
        and e.loops
        and any(
            b.kind == BACKWARD and b.loops and (e.loops[-1] in b.loops or b.loops[-1] in e.loops)
            for b in w.events
        )
    }
    return forwarded if len(forwarded) == 1 else set()


def _optimized_models(w: ScopeWalker) -> set[str]:
    """The models whose ``parameters()`` go into an optimizer built in this scope, however
    the arguments combine them (one optimizer over a VAE's model and its variational net)."""
    cached = w.__dict__.get("_optimized_models")
    if cached is not None:
        return cached
    scope = w.func if w.func is not None else w.fa.tree
    models: set[str] = set()
    w.__dict__["_optimized_models"] = models  # filled below, read by later calls
    for node in own_nodes(scope):
        if not (
            isinstance(node, ast.Call) and last_part(dotted(node.func) or "") in V.OPTIMIZER_CLASSES
        ):
            continue
        for inner in walk(node):
            func = inner.func if isinstance(inner, ast.Call) else None
            if isinstance(func, ast.Attribute) and func.attr in {"parameters", "named_parameters"}:
                owner = w.lookup(dotted(func.value) or "")
                if owner is not None and owner.kind == V.MODEL:
                    models.add(dotted(func.value))  # type: ignore[arg-type]
    return models


@scope_check(TW010)
def check_eval_leak(w: ScopeWalker) -> None:
    """TW010: eval() in the epoch loop not undone before the next training step."""
    trained = trained_models(w)
    if not trained:
        return
    reported: set[int] = set()
    for lid in w.loops:
        seq = events_in(w, lid)
        if not _is_epoch_loop(w, lid, seq):
            continue
        for index, e in enumerate(seq):
            for key, effect in mode_effects(w, e):
                if key not in trained or effect.final != "eval" or id(e.node) in reported:
                    continue
                if _mode_chosen_per_iteration(seq, e, key) or on_last_pass(w, e, lid):
                    continue
                if ends_the_training(w, e, lid):
                    continue  # early stopping: test the best weights, then break
                if frozen_right_after(w, e, key):
                    continue  # net.eval(); for p in net.parameters(): p.requires_grad = False
                fresh = _fresh_model_each_pass(w.loops[lid].node, key, e.node)
                if _leaks_into_training(w, seq, index, key, this_pass_only=fresh, lid=lid):
                    reported.add(id(e.node))
                    what = (
                        f"{key}.eval()"
                        if e.kind == EVAL
                        else f"{call_name(e.node)} (which calls {key}.eval())"
                    )
                    report(
                        w,
                        "TW010",
                        e.node,
                        f"{what} leaves the model in eval mode for the "
                        f"next training step: call {key}.train() at the start of each epoch",
                    )


def _is_epoch_loop(w: ScopeWalker, lid: int, seq: list[Event]) -> bool:
    """A loop that runs training steps each pass. A ``while`` loop is one only when it runs
    the step itself or through one batch loop: a loop that waits for ``input()`` (an
    interactive menu) or wraps whole epoch loops (a menu, a sweep) is not."""
    node = w.loops[lid].node
    if not isinstance(node, ast.While):
        return any(is_training(e) for e in seq)
    if _waits_for_input(node):
        return False
    return any(is_training(e) and _steps_per_pass(w, e, lid) for e in seq)


def _waits_for_input(node: ast.While) -> bool:
    return any(
        isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "input"
        for n in walk(node)
    )


def _steps_per_pass(w: ScopeWalker, e: Event, lid: int) -> bool:
    """``e`` runs in each pass of loop ``lid``: directly, or in one inner (batch) loop that
    is not itself an epoch loop (accumulation loops do not count)."""
    inner = [w.loops[i] for i in e.loops[e.loops.index(lid) + 1 :]]
    outer = [loop for loop in inner if loop.kind != "micro"]
    return not outer or (len(outer) == 1 and outer[0].kind != "epoch")


def _mode_chosen_per_iteration(seq: list[Event], e: Event, key: str) -> bool:
    """``if phase == "train": model.train() else: model.eval()`` sets the mode every pass; so
    does ``if finetune: model.train() elif freeze: model.eval()`` (a linear probe's frozen
    backbone): the train() sits in another branch of an ``if`` that holds the eval()."""
    branches = dict(e.path)
    return any(
        other.kind == TRAIN
        and other.receiver == key
        and any(i in branches and b != branches[i] for i, b in other.path)
        for other in seq
    )


def _fresh_model_each_pass(loop: ast.stmt, key: str, eval_node: ast.AST) -> bool:
    """``for params in grid: model = CNN(); train(model); evaluate(model)``: each pass
    builds a new model (in train mode) before the eval(), so the eval() cannot reach the
    next pass's training. A rebinding to the same model (``model = model.to(dev)``,
    ``DataParallel(model)``) or to a copy (``deepcopy(best)``, which keeps its mode) is not."""
    line = getattr(eval_node, "lineno", 0)
    for stmt in _unconditional_statements(getattr(loop, "body", [])):
        if getattr(stmt, "lineno", line) >= line:
            break
        if not isinstance(stmt, ast.Assign) or not isinstance(stmt.value, ast.Call):
            continue
        if not any(dotted(t) == key for t in stmt.targets):
            continue
        call = stmt.value
        called = last_part(dotted(call.func)) or ""
        if (
            called in {"deepcopy", "copy"}
            or isinstance(call.func, ast.Attribute)
            and (called in V.MODULE_SELF_METHODS)
        ):
            continue
        root = key.partition(".")[0]
        if not any(dotted(n) in {key, root} for n in walk(call) if isinstance(n, ast.expr)):
            return True
    return False


def _input_gradient_backward(w: ScopeWalker, e: Event) -> bool:
    """``images.requires_grad = True; loss.backward(); images.grad`` in a scope that steps no
    optimizer (ODIN's input perturbation, a saliency map): a gradient of the input, not a
    training step."""
    if e.kind != BACKWARD or any(
        x.kind == STEP or (x.kind == CALL and x.summary is not None and x.summary.steps)
        for x in w.events
    ):
        return False
    wanted = InputGradients(w).events.values()
    return any(what is True for events in wanted for _, what in events)


def _unconditional_statements(body: list[ast.stmt]):
    """The statements of ``body`` that run on every pass, through ``with`` and ``try``."""
    for stmt in body:
        yield stmt
        if isinstance(stmt, (ast.With, ast.AsyncWith, ast.Try)):
            yield from _unconditional_statements(stmt.body)


def _leaks_into_training(
    w: ScopeWalker,
    seq: list[Event],
    start: int,
    key: str,
    this_pass_only: bool = False,
    lid: int | None = None,
) -> bool:
    # Paths of the train() calls seen since the eval(). A restore counts for a training
    # step when it runs whenever that step runs (its branch encloses the step), or whenever
    # the eval() itself ran (its branch encloses the eval: ``if log: m.eval(); ...; m.train()``).
    eval_path = seq[start].path
    restored: list[tuple] = []
    n = len(seq)
    # with a fresh model each pass, only the rest of this pass can run the eval()'d model
    for offset in range(1, n - start if this_pass_only else n):
        e = seq[(start + offset) % n]
        if start + offset < n and in_another_arm(w, e.path, eval_path, lid):
            continue  # ``if pre_encoded: ...; eval() else: ...``: not in the eval()'s pass
        effects = [eff for k, eff in mode_effects(w, e) if k == key]
        # a call that sets the model's mode itself before it trains (a linear probe that
        # puts the encoder in eval() and trains a new head) does not inherit the caller's
        sets_mode_itself = any(eff.first is not None for eff in effects)
        sets_mode_itself = sets_mode_itself or trains_a_copy_in_its_own_mode(e, key)
        if e.kind == TRAIN and e.receiver and e.receiver.startswith((f"{key}.", f"{key}[")):
            return False  # model.heads[-1].train(): the parts' modes are managed one by one
        # a call under no_grad trains nothing (``run_epoch(train=False)`` for validation)
        if (
            is_training(e)
            and not attack_only(e)
            and not _input_gradient_backward(w, e)
            and not sets_mode_itself
            and not e.no_grad
            and runs(e, key)
            and not steps_another_model(w, seq, (start + offset) % n, key)
            and not backward_of_other_models(seq, (start + offset) % n, key)
        ):
            return not any(
                is_prefix(path, e.path) or is_prefix(path, eval_path) for path in restored
            )
        for effect in effects:
            if effect.final == "unknown":
                return False  # unknowable
            if effect.final == "eval" and (
                is_prefix(e.path, eval_path) or _mode_chosen_per_iteration(seq, e, key)
            ):
                # another eval() that runs whenever this one did (checked on its own), or
                # the eval() arm of a mode chosen each pass
                return False
            if effect.final == "train":
                restored.append(e.path)
    return False


@scope_check(TW010)
def check_step_fn_eval(w: ScopeWalker) -> None:
    """TW010: a ``step_fn`` given to trainwell's fit() that leaves a model in eval mode."""
    if not w.is_step_fn:
        return
    modes = final_modes(w)
    for key, effect in modes.items():
        if effect.final != "eval":
            continue
        evals = [e for e in w.events if e.kind == EVAL and e.receiver == key and not e.path]
        if evals:
            report(
                w,
                "TW010",
                evals[-1].node,
                f"{key}.eval() in the step_fn given to fit(): step_fn runs every training "
                f"step, so the model trains in eval mode (dropout off, BatchNorm statistics "
                "frozen): remove it",
            )
