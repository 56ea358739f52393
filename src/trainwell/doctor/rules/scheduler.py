"""Learning-rate schedulers: TW003 (epoch schedule stepped per batch) and TW004 (per-step
schedule stepped per epoch); TW018 (ReduceLROnPlateau's metric) is in :mod:`.plateau`.
"""

from __future__ import annotations

import ast

from .. import values as V
from .._astutil import argument, dotted, walk
from ..analysis import ScopeWalker
from ..events import CALL, SCHED, STEP, Event, LoopInfo, is_prefix
from ._common import events_in, report
from ._epoch_schedule_examples import EXAMPLES as EPOCH_EXAMPLES
from ._existence_checks import without_existence_checks
from ._lightning_schedules import EXAMPLES as LIGHTNING_EXAMPLES
from ._lightning_schedules import check_lightning_schedules
from ._registry import Example, Rule, scope_check
from ._schedule_step_examples import EXAMPLES as STEP_EXAMPLES
from ._step_facts import check_schedules_stepped_by_calls

TW003 = Rule(
    "TW003",
    "epoch-scheduler-per-batch",
    "error",
    "An epoch-based LR scheduler (StepLR, MultiStepLR, ExponentialLR, CosineAnnealingLR "
    "...) configured in epochs is stepped inside the batch loop.",
    "These schedulers count calls to step(). Configured with a number of epochs "
    "(step_size=30, T_max=args.epochs, milestones=[30, 60]) but stepped every batch, the "
    "schedule runs len(loader) times too fast: the LR decays to almost nothing (or, for "
    "cosine, oscillates) within the first epochs. Stepping per batch is right only when "
    "the schedule is expressed in batches (e.g. T_max=epochs * len(loader)); trainwell "
    "doctor stays silent when it cannot tell the unit.",
    "scheduler = StepLR(optimizer, step_size=30, gamma=0.1)\n"
    "for epoch in range(90):\n"
    "    for x, y in loader:\n"
    "        ...\n"
    "        optimizer.step()\n"
    "        scheduler.step()\n",
    "scheduler = StepLR(optimizer, step_size=30, gamma=0.1)\n"
    "for epoch in range(90):\n"
    "    for x, y in loader:\n"
    "        ...\n"
    "        optimizer.step()\n"
    "    scheduler.step()\n",
    examples=(
        Example(
            "epoch_scheduler_in_batch_loop",
            """\
            def fit(model, loader, criterion):
                optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
                scheduler = StepLR(optimizer, step_size=30)
                for epoch in range(90):
                    for x, y in loader:
                        optimizer.zero_grad()
                        criterion(model(x), y).backward()
                        optimizer.step()
                        scheduler.step()
            """,
            [(9, "TW003")],
        ),
        Example(
            "epoch_scheduler_per_epoch",
            """\
            def fit(model, loader, criterion):
                optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
                scheduler = StepLR(optimizer, step_size=30)
                for epoch in range(90):
                    for x, y in loader:
                        optimizer.zero_grad()
                        criterion(model(x), y).backward()
                        optimizer.step()
                    scheduler.step()
            """,
            [],
        ),
    )
    + EPOCH_EXAMPLES,
)

TW004 = Rule(
    "TW004",
    "step-scheduler-per-epoch",
    "error",
    "A per-step LR scheduler (OneCycleLR, CyclicLR, get_*_schedule_with_warmup, a LambdaLR "
    "over total steps) is stepped once per epoch instead of every batch.",
    "These schedules are defined over optimizer steps (total_steps, num_training_steps). "
    "Stepped once per epoch they advance len(loader) times too slowly: warmup never "
    "finishes and the LR stays near its initial value for the whole run. PyTorch "
    "Lightning does the same to a schedule that configure_optimizers() returns without "
    '"interval": "step" (its default interval is the epoch).',
    "scheduler = OneCycleLR(optimizer, max_lr=0.1, epochs=10, steps_per_epoch=len(loader))\n"
    "for epoch in range(10):\n"
    "    for x, y in loader:\n"
    "        ...\n"
    "        optimizer.step()\n"
    "    scheduler.step()\n",
    "scheduler = OneCycleLR(optimizer, max_lr=0.1, epochs=10, steps_per_epoch=len(loader))\n"
    "for epoch in range(10):\n"
    "    for x, y in loader:\n"
    "        ...\n"
    "        optimizer.step()\n"
    "        scheduler.step()\n",
    examples=(
        Example(
            # epoch_iter (the epoch count of range(epoch_iter)) or one epoch's iterations?
            # a name that says both is no unit to go by
            "milestones_of_a_name_of_both_units",
            """\
            def fit(model, loader, criterion, epoch_iter):
                optimizer = torch.optim.Adam(model.parameters())
                scheduler = MultiStepLR(optimizer, milestones=[epoch_iter // 2], gamma=0.1)
                for epoch in range(epoch_iter):
                    scheduler.step()
                    for x, y in loader:
                        optimizer.zero_grad()
                        criterion(model(x), y).backward()
                        optimizer.step()
            """,
            [],
        ),
        Example(
            # step_size=args.lr_decay_step: the schedule's own step, in whatever unit
            "step_size_named_after_the_schedules_step",
            """\
            def fit(model, loader, criterion, args):
                optimizer = torch.optim.Adam(model.parameters())
                scheduler = StepLR(optimizer, step_size=args.lr_decay_step, gamma=0.5)
                for epoch in range(args.epochs):
                    for x, y in loader:
                        optimizer.zero_grad()
                        criterion(model(x), y).backward()
                        optimizer.step()
                    scheduler.step()
            """,
            [],
        ),
        Example(
            # step_size=args.pre_step_size: StepLR's own parameter, named with a prefix
            "step_size_option_with_a_prefix",
            """\
            def fit(model, loader, criterion, args):
                optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
                scheduler = StepLR(optimizer, step_size=args.pre_step_size, gamma=0.2)
                for epoch in range(args.epochs):
                    scheduler.step()
                    for x, y in loader:
                        optimizer.zero_grad()
                        criterion(model(x), y).backward()
                        optimizer.step()
            """,
            [],
        ),
        Example(
            # a decay period in steps divided by the batches of an epoch: epochs, stepped so
            "step_size_of_steps_divided_by_the_epochs_batches",
            """\
            def fit(model, loader, criterion, hp):
                optimizer = torch.optim.Adam(model.parameters())
                scheduler = StepLR(optimizer, hp.decay_each // len(loader), gamma=0.5)
                for epoch in range(hp.epochs):
                    for x, y in loader:
                        optimizer.zero_grad()
                        criterion(model(x), y).backward()
                        optimizer.step()
                    scheduler.step()
            """,
            [],
        ),
        Example(
            # milestones=steps: the schedule's decay "steps", counted in epochs here
            "milestones_named_steps",
            """\
            def fit(model, loader, criterion, epochs, steps=(20, 30, 40)):
                optimizer = torch.optim.Adam(model.parameters())
                scheduler = MultiStepLR(optimizer, milestones=steps, gamma=0.1)
                for epoch in range(epochs):
                    for x, y in loader:
                        optimizer.zero_grad()
                        criterion(model(x), y).backward()
                        optimizer.step()
                    scheduler.step()
            """,
            [],
        ),
        Example(
            # milestones=self.arg.step: the same, as a config's --step 30 40
            "milestones_named_step",
            """\
            def fit(self, model, loader, criterion):
                optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
                scheduler = MultiStepLR(optimizer, milestones=self.arg.step, gamma=0.1)
                for epoch in range(self.arg.num_epoch):
                    for x, y in loader:
                        optimizer.zero_grad()
                        criterion(model(x), y).backward()
                        optimizer.step()
                    scheduler.step()
            """,
            [],
        ),
        Example(
            # points2surf: --scheduler_steps 75 125, "the epochs the lr is multiplied at"
            "milestones_named_scheduler_steps",
            """\
            def fit(model, loader, criterion, opt):
                optimizer = torch.optim.SGD(model.parameters(), lr=opt.lr)
                scheduler = MultiStepLR(optimizer, milestones=opt.scheduler_steps, gamma=0.1)
                for epoch in range(opt.nepoch):
                    for x, y in loader:
                        optimizer.zero_grad()
                        criterion(model(x), y).backward()
                        optimizer.step()
                    scheduler.step()
            """,
            [],
        ),
        Example(
            "milestones_in_iterations_per_epoch_stepped_per_epoch",
            """\
            def fit(model, loader, criterion, epochs):
                optimizer = torch.optim.Adam(model.parameters())
                iters_per_epoch = len(loader)
                scheduler = MultiStepLR(optimizer, milestones=[30 * iters_per_epoch])
                for epoch in range(epochs):
                    for x, y in loader:
                        optimizer.zero_grad()
                        criterion(model(x), y).backward()
                        optimizer.step()
                    scheduler.step()
            """,
            [(10, "TW004")],
        ),
        Example(
            "warm_restarts_period_in_batches_stepped_per_epoch",
            """\
            def fit(model, loader, train_set, criterion, epochs):
                optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
                scheduler = CosineAnnealingWarmRestarts(optimizer, T_0=len(train_set))
                for epoch in range(epochs):
                    for x, y in loader:
                        optimizer.zero_grad()
                        criterion(model(x), y).backward()
                        optimizer.step()
                    scheduler.step()
            """,
            [(9, "TW004")],
        ),
        Example(
            "warm_restarts_fractional_epoch_per_batch",
            """\
            def fit(model, loader, criterion, epochs):
                optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
                scheduler = CosineAnnealingWarmRestarts(optimizer, T_0=len(loader))
                iters = len(loader)
                for epoch in range(epochs):
                    for i, (x, y) in enumerate(loader):
                        optimizer.zero_grad()
                        criterion(model(x), y).backward()
                        optimizer.step()
                        scheduler.step(epoch + i / iters)
            """,
            [],
        ),
        Example(
            "one_cycle_per_epoch",
            """\
            def fit(model, loader, criterion, epochs):
                optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
                scheduler = OneCycleLR(optimizer, 0.1, epochs=epochs, steps_per_epoch=len(loader))
                for epoch in range(epochs):
                    for x, y in loader:
                        optimizer.zero_grad()
                        criterion(model(x), y).backward()
                        optimizer.step()
                    scheduler.step()
            """,
            [(9, "TW004")],
        ),
        Example(
            "one_cycle_per_batch",
            """\
            def fit(model, loader, criterion, epochs):
                optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
                scheduler = OneCycleLR(optimizer, 0.1, epochs=epochs, steps_per_epoch=len(loader))
                for epoch in range(epochs):
                    for x, y in loader:
                        optimizer.zero_grad()
                        criterion(model(x), y).backward()
                        optimizer.step()
                        scheduler.step()
            """,
            [],
        ),
        Example(
            # a GAN's iteration loop: range(opt.niter) steps the schedule whose milestones
            # are counted in opt.niter; the inner loops repeat the D and G updates
            "a_schedule_counted_in_the_iterations_of_its_loop",
            """\
            def train(netD, netG, optD, optG, opt):
                schedD = MultiStepLR(optD, milestones=[0.8 * opt.niter], gamma=0.1)
                for it in range(opt.niter):
                    for j in range(opt.Dsteps):
                        optD.zero_grad()
                        netD(netG(noise())).mean().backward()
                        optD.step()
                    for j in range(opt.Gsteps):
                        optG.zero_grad()
                        (-netD(netG(noise())).mean()).backward()
                        optG.step()
                    schedD.step()
            """,
            [],
        ),
        Example(
            # the same loop, the milestones counted in steps of another count
            "a_schedule_counted_in_other_steps_than_its_loop",
            """\
            def train(netD, netG, optD, opt):
                schedD = MultiStepLR(optD, milestones=[0.8 * opt.total_steps], gamma=0.1)
                for it in range(opt.niter):
                    for j in range(opt.Dsteps):
                        optD.zero_grad()
                        netD(netG(noise())).mean().backward()
                        optD.step()
                    schedD.step()
            """,
            [(8, "TW004")],
        ),
    )
    + LIGHTNING_EXAMPLES
    + STEP_EXAMPLES,
)


@scope_check(TW003, TW004)
def check_scheduler_placement(w: ScopeWalker) -> None:
    """TW003 (epoch scheduler in the batch loop) and TW004 (per-step scheduler per epoch)."""
    for sched in (e for e in w.events if e.kind == SCHED and e.value is not None):
        call = sched.node
        has_args = isinstance(call, ast.Call) and bool(call.args or call.keywords)
        if V.EPOCH_BASED in sched.value.flags and not has_args:
            _check_epoch_scheduler(w, sched)
        elif V.PER_STEP in sched.value.flags and not has_args:
            _check_step_scheduler(w, sched)
    check_schedules_stepped_by_calls(w)
    check_lightning_schedules(w)


def _check_epoch_scheduler(w: ScopeWalker, sched: Event) -> None:
    if not sched.loops:
        return
    loop = w.loops[sched.loops[-1]]
    steps = [e for e in events_in(w, loop.id) if e.kind == STEP and e.loops[-1] == loop.id]
    if not steps or not (loop.kind == "batch" or loop.parent is not None):
        return
    if _outlasts_the_epochs(w, sched, loop):
        return  # StepLR(step_size=300) over range(25) epochs: a count of batches
    path = without_existence_checks(w, sched)
    if any(is_prefix(path, s.path) or _gated_by(w, sched, s) for s in steps):
        cls = sched.value.cls if sched.value else "scheduler"
        report(
            w,
            "TW003",
            sched.node,
            f"{cls} is configured in epochs but stepped every "
            "batch: move scheduler.step() after the batch loop",
        )


_LENGTH_ARGUMENT = {
    "StepLR": (1, "step_size"),
    "MultiStepLR": (1, "milestones"),
    "CosineAnnealingLR": (1, "T_max"),
    "CosineAnnealingWarmRestarts": (1, "T_0"),
}


def _outlasts_the_epochs(w: ScopeWalker, sched: Event, batch_loop: LoopInfo) -> bool:
    """The schedule's literal length is longer than the epoch loop around its batch loop
    runs (``StepLR(step_size=300)`` in ``for epoch in range(25)``): stepped per epoch it
    would never decay, so the number counts batches and per batch is right."""
    call = sched.value.node if sched.value is not None else None
    key = _LENGTH_ARGUMENT.get(sched.value.cls or "") if sched.value is not None else None
    if not isinstance(call, ast.Call) or key is None:
        return False
    length = argument(call, *key)
    items = length.elts if isinstance(length, (ast.List, ast.Tuple)) else [length]
    lengths = [n.value for n in items if isinstance(n, ast.Constant) and type(n.value) is int]
    if not items or len(lengths) != len(items):
        return False
    epochs = _epoch_count(w, batch_loop)
    return epochs is not None and min(lengths) > epochs


def _epoch_count(w: ScopeWalker, batch_loop: LoopInfo) -> int | None:
    """How many times the epoch loop around ``batch_loop`` runs, when the scope says:
    ``range(25)``, ``range(epochs)`` with ``epochs=25`` its parameter's default or a
    constant bound once."""
    parent = batch_loop.parent
    while parent is not None and w.loops[parent].kind != "epoch":
        parent = w.loops[parent].parent
    loop = w.loops[parent].node if parent is not None else None
    if not isinstance(loop, (ast.For, ast.AsyncFor)):
        return None
    ranges = [n for n in walk(loop.iter) if isinstance(n, ast.Call) and dotted(n.func) in _RANGES]
    if len(ranges) != 1 or not ranges[0].args or len(ranges[0].args) > 2:
        return None
    return _int_value(w, ranges[0].args[-1])


_RANGES = {"range", "trange", "tqdm.trange"}


def _int_value(w: ScopeWalker, node: ast.expr) -> int | None:
    """An int literal, a parameter's literal default, or a name bound only to one literal."""
    if isinstance(node, ast.Constant):
        return node.value if type(node.value) is int else None
    if not isinstance(node, ast.Name):
        return None
    func = w.func if isinstance(w.func, (ast.FunctionDef, ast.AsyncFunctionDef)) else None
    if func is not None:
        defaults = _parameter_defaults(func.args)
        if node.id in defaults:
            default = defaults[node.id]
            return _int_value(w, default) if isinstance(default, ast.Constant) else None
    bound = [
        n.value
        for n in [*walk(func if func is not None else w.fa.tree), *w.fa.tree.body]
        if isinstance(n, ast.Assign)
        and any(isinstance(t, ast.Name) and t.id == node.id for t in n.targets)
    ]
    values = {b.value if isinstance(b, ast.Constant) else None for b in bound}
    value = values.pop() if len(values) == 1 else None
    return value if type(value) is int else None


def _parameter_defaults(args: ast.arguments) -> dict[str, ast.expr | None]:
    """Each parameter's default (None for a parameter without one: the caller says)."""
    positional = [*args.posonlyargs, *args.args]
    padded = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
    pairs = [
        *zip(positional, padded, strict=True),
        *zip(args.kwonlyargs, args.kw_defaults, strict=True),
    ]
    return {a.arg: d for a, d in pairs}


def _gated_by(w: ScopeWalker, e: Event, step: Event) -> bool:
    """``e`` runs exactly when ``step`` succeeds: ``if precision.step(opt): sched.step()``."""
    if len(e.path) != len(step.path) + 1 or not is_prefix(step.path, e.path):
        return False
    if_id, branch = e.path[-1]
    test = getattr(w.ifs[if_id].node, "test", None)
    return branch == 0 and test is not None and any(n is step.node for n in walk(test))


def _check_step_scheduler(w: ScopeWalker, sched: Event) -> None:
    region = events_in(w, sched.loops[-1]) if sched.loops else list(w.events)
    training_loops = {
        e.loops[-1] for e in region if e.kind == STEP and e.loops and e.loops != sched.loops
    }
    called_training = any(
        e.kind == CALL and e.summary is not None and e.summary.train_loop for e in region
    )
    if any(lid in sched.loops for lid in training_loops):
        return  # stepped inside the training loop after all
    if any(e.kind == STEP and e.loops == sched.loops and e.seq < sched.seq for e in region):
        return  # opt.step(); scheduler.step(): once per optimizer step, whatever loops around
    if sched.loops and _counted_in_its_loop(w, sched, training_loops):
        return  # for it in range(opt.niter): ... MultiStepLR(milestones=[0.8 * opt.niter])
    if not training_loops and not called_training:
        return
    stepped_elsewhere = any(
        (e.kind == SCHED and e.receiver == sched.receiver and e is not sched)
        or (e.kind == CALL and e.summary is not None and e.summary.sched_steps)
        for e in w.events
    )
    if stepped_elsewhere:
        return
    cls = sched.value.cls if sched.value else "scheduler"
    report(
        w,
        "TW004",
        sched.node,
        f"{cls} is a per-step schedule but is stepped once per "
        "epoch: call scheduler.step() after every optimizer.step()",
    )


def _counted_in_its_loop(w: ScopeWalker, sched: Event, training_loops: set[int]) -> bool:
    """The schedule's length is counted in the iterations of the loop that steps it: the
    loop runs ``range(opt.niter)`` and the milestones are ``0.8 * opt.niter``, and the loops
    with the optimizer steps inside it only repeat an update (a GAN's ``range(Dsteps)``),
    they run over no data."""
    call = sched.value.node if sched.value is not None else None
    loop = w.loops[sched.loops[-1]].node
    if not isinstance(call, ast.Call) or not isinstance(loop, (ast.For, ast.AsyncFor)):
        return False
    inner = [w.loops[lid].node for lid in training_loops if lid in w.loops]
    if not inner or not all(_range_bounds(getattr(n, "iter", n)) for n in inner):
        return False  # for x, y in loader: a step per batch
    counts = _range_bounds(_iterated(w, loop.iter))
    lengths = {dotted(n) for a in [*call.args[1:], *(k.value for k in call.keywords)]
               for n in walk(a)} - {None}  # fmt: skip
    return bool(counts & lengths)


def _iterated(w: ScopeWalker, node: ast.expr) -> ast.expr:
    """``_iter = tqdm(range(opt.niter)); for iter in _iter:``: what the name was bound to."""
    if not isinstance(node, ast.Name) or w.func is None:
        return node
    bound = [
        n.value
        for n in walk(w.func)
        if isinstance(n, ast.Assign)
        and any(isinstance(t, ast.Name) and t.id == node.id for t in n.targets)
    ]
    return bound[0] if len(bound) == 1 else node


def _range_bounds(node: ast.expr) -> set[str]:
    """Dotted names of the bounds of the ``range(...)`` calls in ``node``."""
    return {
        name
        for n in walk(node)
        if isinstance(n, ast.Call) and dotted(n.func) == "range"
        for a in n.args
        for name in [dotted(a)]
        if name is not None
    }
