"""Gradient clipping: TW005 (before backward() or after step()) and TW006 (of gradients
still scaled by a GradScaler). A call of a function that only clips (a trainer's
``clipgradients(params)``) is a clip where it is called; a clip followed by a GradScaler's
step with no backward() in sight (``scheduler.step(grad_scaler)``) clips the gradients the
caller's scaled backward left, unless the file unscales somewhere.
"""

from __future__ import annotations

import ast
from dataclasses import replace

from ..analysis import ScopeWalker
from ..events import BACKWARD, CALL, CLIP, STEP, UNSCALE, Event, compatible, is_prefix
from ._common import iteration_events, report
from ._registry import Example, Rule, in_loop, scope_check

# a trainer whose train_step() runs scaler.scale(loss).backward() and whose loop clips
_TRAINER = """\
    class Trainer:
        def __init__(self, model, optimizer, fp16):
            self.model, self.optimizer = model, optimizer
            self.scaler = torch.amp.GradScaler(enabled=fp16)

        def train_step(self, x, y):
            loss = F.cross_entropy(self.model(x), y)
            self.scaler.scale(loss).backward()
            return loss.item()

        def train(self, loader):
            for x, y in loader:
                self.train_step(x, y)
                {unscale}
                torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
                self.scaler.step(self.optimizer)
                self.scaler.update()
                self.optimizer.zero_grad()
    """

TW005 = Rule(
    "TW005",
    "clip-outside-backward-step",
    "error",
    "Gradient clipping runs before backward() or after step(), where it has no effect.",
    "clip_grad_norm_/clip_grad_value_ modify the .grad tensors in place. Before "
    "backward() they clip the previous (or zeroed) gradients which backward() then "
    "overwrites or adds to; after step() the update has already been applied. Either "
    "way training runs unclipped, which is exactly when clipping was needed.",
    "optimizer.zero_grad()\n"
    "torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n"
    "loss.backward()\n"
    "optimizer.step()\n",
    "optimizer.zero_grad()\n"
    "loss.backward()\n"
    "torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n"
    "optimizer.step()\n",
    examples=(
        Example(
            "clip_before_backward",
            in_loop(
                "optimizer.zero_grad()\nloss = criterion(model(x), y)\n"
                "nn.utils.clip_grad_norm_(model.parameters(), 1.0)\nloss.backward()\n"
                "optimizer.step()"
            ),
            [(7, "TW005")],
        ),
        Example(
            "clip_after_step",
            in_loop(
                "optimizer.zero_grad()\ncriterion(model(x), y).backward()\noptimizer.step()\n"
                "nn.utils.clip_grad_norm_(model.parameters(), 1.0)"
            ),
            [(8, "TW005")],
        ),
        Example(
            # clipping "switched on" once before the epoch loop: it clips no gradient
            "clip_once_before_the_training_loop",
            """\
            def train(net, loader, optimizer, criterion):
                for x, y in loader:
                    optimizer.zero_grad()
                    criterion(net(x), y).backward()
                    optimizer.step()

            def main(net, loader, epochs):
                optimizer = torch.optim.Adam(net.parameters())
                torch.nn.utils.clip_grad_norm_(net.parameters(), 5.0)
                for epoch in range(epochs):
                    train(net, loader, optimizer, nn.CrossEntropyLoss())
            """,
            [(9, "TW005")],
        ),
        Example(
            # a step function that clips between its own backward() and step(), called
            # from the loop, and a clip after the last epoch's steps for a report: fine
            "clip_in_a_step_function_called_from_the_loop",
            """\
            def step(net, x, y, optimizer):
                optimizer.zero_grad()
                F.cross_entropy(net(x), y).backward()
                torch.nn.utils.clip_grad_norm_(net.parameters(), 5.0)
                optimizer.step()

            def main(net, loader, optimizer):
                for x, y in loader:
                    step(net, x, y, optimizer)
                norm = torch.nn.utils.clip_grad_norm_(net.parameters(), float("inf"))
                print(norm)
            """,
            [],
        ),
        Example(
            "clip_between",
            in_loop(
                "optimizer.zero_grad()\ncriterion(model(x), y).backward()\n"
                "nn.utils.clip_grad_norm_(model.parameters(), 1.0)\noptimizer.step()"
            ),
            [],
        ),
    ),
)

TW006 = Rule(
    "TW006",
    "clip-without-unscale",
    "error",
    "Gradients are clipped while still multiplied by the GradScaler's scale factor.",
    "With torch.amp.GradScaler, scaler.scale(loss).backward() produces gradients "
    "multiplied by the current scale (65536 by default). Clipping them to max_norm=1.0 "
    "without scaler.unscale_(optimizer) first clips almost every gradient to a tiny "
    "fraction of its value, so the model barely learns.",
    "scaler.scale(loss).backward()\n"
    "torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n"
    "scaler.step(optimizer)\n"
    "scaler.update()\n",
    "scaler.scale(loss).backward()\n"
    "scaler.unscale_(optimizer)\n"
    "torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n"
    "scaler.step(optimizer)\n"
    "scaler.update()\n",
    examples=(
        Example(
            "clip_scaled_grads",
            """\
            def fit(model, loader, optimizer, criterion):
                scaler = torch.amp.GradScaler("cuda")
                for x, y in loader:
                    optimizer.zero_grad()
                    scaler.scale(criterion(model(x), y)).backward()
                    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                    scaler.step(optimizer)
                    scaler.update()
            """,
            [(6, "TW006")],
        ),
        Example(
            # on the fp16 path the clipped gradients are still scaled
            "clip_after_a_backward_scaled_in_one_arm",
            """\
            def train_one_step(self, batch):
                loss = self.loss_of(batch)
                if self.fp16:
                    self.scaler.scale(loss).backward()
                else:
                    loss.backward()
                torch.nn.utils.clip_grad_norm_(self.parameters(), 1.0)
                if self.fp16:
                    self.scaler.step(self.optimizer)
                    self.scaler.update()
                else:
                    self.optimizer.step()
            """,
            [(7, "TW006")],
        ),
        Example(
            # the scaled backward() in another method of the trainer, the clip in its loop
            "clip_after_a_method_that_runs_the_scaled_backward",
            _TRAINER.format(unscale=""),
            [(15, "TW006")],
        ),
        Example(
            "clip_after_the_caller_unscales_what_the_method_scaled",
            _TRAINER.format(unscale="self.scaler.unscale_(self.optimizer)"),
            [],
        ),
        Example(
            "clip_unscaled_grads",
            """\
            def fit(model, loader, optimizer, criterion):
                scaler = torch.amp.GradScaler("cuda")
                for x, y in loader:
                    optimizer.zero_grad()
                    scaler.scale(criterion(model(x), y)).backward()
                    scaler.unscale_(optimizer)
                    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                    scaler.step(optimizer)
                    scaler.update()
            """,
            [],
        ),
        Example(
            # clipping "switched on" once, then a call of the function that runs the epochs
            "clip_once_before_the_function_that_trains",
            """\
            def train(model, loader, optimizer, epochs):
                for epoch in range(epochs):
                    for x, y in loader:
                        optimizer.zero_grad()
                        F.cross_entropy(model(x), y).backward()
                        optimizer.step()

            def run(model, loader):
                optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
                torch.nn.utils.clip_grad_value_(model.parameters(), 2.0)
                train(model, loader, optimizer, 10)
            """,
            [(10, "TW005")],
        ),
        Example(
            # sssegmentation's scheduler: its step(grad_scaler) clips through a helper of its
            # own, then steps the scaler; the caller's scaled backward is out of sight
            "a_schedulers_step_clipping_before_the_scalers_step",
            """\
            class Scheduler:
                def __init__(self, optimizer, clip_cfg):
                    self.optimizer, self.clip_cfg = optimizer, clip_cfg

                def step(self, grad_scaler=None):
                    if self.clip_cfg is not None:
                        for group in self.optimizer.param_groups:
                            self.clip(group["params"], **self.clip_cfg)
                    if grad_scaler is None:
                        self.optimizer.step()
                    else:
                        grad_scaler.step(self.optimizer)
                        grad_scaler.update()

                def clip(self, params, max_norm=35):
                    params = [p for p in params if p.grad is not None]
                    torch.nn.utils.clip_grad_norm_(params, max_norm=max_norm)
            """,
            [(8, "TW006")],
        ),
        Example(
            # the file unscales somewhere: a caller may well do it before this step
            "a_schedulers_step_clipping_in_a_file_that_unscales",
            """\
            def optimizer_step(optimizer, scaler):
                torch.nn.utils.clip_grad_norm_(optimizer.param_groups[0]["params"], 1.0)
                scaler.step(optimizer)
                scaler.update()

            def train_step(model, x, optimizer, scaler):
                scaler.scale(model(x).sum()).backward()
                scaler.unscale_(optimizer)
                optimizer_step(optimizer, scaler)
            """,
            [],
        ),
    ),
)


@scope_check(TW005, TW006)
def check_clipping(w: ScopeWalker) -> None:
    """TW005 (clip before backward / after step) and TW006 (clip of AMP-scaled grads)."""
    for event in w.events:
        clip = _as_clip(event)
        if clip is None:
            continue
        seq = [clip if e is event else e for e in iteration_events(w, event)]
        problem = _clipping_problem(seq, clip) or _before_the_scalers_step(w, clip)
        if problem is None and _clipped_once_before_training(w, clip):
            problem = (
                "TW005",
                (
                    "gradients are clipped once, before the training loop runs any backward(): "
                    "there is nothing to clip yet and every step is unclipped; clip after each "
                    "backward()"
                ),
            )
        if problem is not None:
            report(w, problem[0], clip.node, problem[1])


def _as_clip(e: Event) -> Event | None:
    """A clip, or a call of a function that only clips (``self.clipgradients(params)``)."""
    if e.kind == CLIP:
        return e
    if e.kind == CALL and e.summary is not None and e.summary.clips:
        return replace(e, kind=CLIP)
    return None


def _unscales_anywhere(w: ScopeWalker) -> bool:
    """The file calls ``unscale_`` somewhere (a caller may unscale before a clip here)."""
    return any(isinstance(n, ast.Attribute) and n.attr == "unscale_" for n in w.fa.nodes)


def _clipped_once_before_training(w: ScopeWalker, clip: Event) -> bool:
    """``clip_grad_norm_(net.parameters(), c)`` once, outside every loop, after the optimizer
    is built and before the epoch loop whose iterations run backward() and step()
    (``for epoch ...: train(net, ...)``), or before a call of a function that runs that loop
    itself: a setting taken for a switch."""
    if clip.loops:
        return False
    if any(_trains(e) for e in w.events if e.seq < clip.seq):
        return False
    return any(
        (e.loops and _trains(e)) or _runs_a_training_loop(e) for e in w.events if e.seq > clip.seq
    )


def _runs_a_training_loop(e: Event) -> bool:
    """``train(config, model, ...)``: a call of a function whose loop trains."""
    return e.kind == CALL and e.summary is not None and e.summary.train_loop


def _trains(e: Event) -> bool:
    """A backward() or a step, or a call of a function that runs both (a train epoch)."""
    if e.kind in {BACKWARD, STEP}:
        return True
    return e.kind == CALL and e.summary is not None and bool(e.summary.backward and e.summary.steps)


def _clipping_problem(seq: list[Event], clip: Event) -> tuple[str, str] | None:
    pos = seq.index(clip)
    seq = [_as_backward(e) for e in seq]
    relevant = {BACKWARD, STEP}
    before = [e for e in seq[:pos] if e.kind in relevant and compatible(e.path, clip.path)]
    after = [e for e in seq[pos + 1 :] if e.kind in relevant and compatible(e.path, clip.path)]
    prev = before[-1] if before else None
    nxt = after[0] if after else None
    no_backward_yet = prev is None or prev.kind == STEP
    backward_then_step = (
        nxt is not None and nxt.kind == BACKWARD and any(e.kind == STEP for e in after[1:])
    )
    if no_backward_yet and backward_then_step:
        return "TW005", (
            "gradients are clipped before backward(): the clipping is overwritten and the "
            "step is unclipped"
        )
    after_step = prev is not None and prev.kind == STEP and is_prefix(prev.path, clip.path)
    if after_step and (nxt is None or nxt.kind == BACKWARD):
        return "TW005", (
            "gradients are clipped after optimizer.step(): the update was already applied unclipped"
        )
    scaled = _scaled_backward_since_step(before)
    if scaled is not None:
        between = seq[seq.index(scaled) + 1 : pos]
        next_is_scaler_step = nxt is not None and nxt.kind == STEP and nxt.amp
        if next_is_scaler_step and not any(e.kind == UNSCALE for e in between):
            return "TW006", (
                "gradients are clipped while still scaled by GradScaler: call "
                "scaler.unscale_(optimizer) before clipping"
            )
    return None


def _before_the_scalers_step(w: ScopeWalker, clip: Event) -> tuple[str, str] | None:
    """``step(grad_scaler)``: clip, then ``grad_scaler.step(optimizer)`` with no backward()
    in the scope: the caller's backward scaled the gradients, and nothing in the file
    unscales them."""
    seen = [e for e in w.events if compatible(e.path, clip.path)]
    if any(e.kind in {BACKWARD, STEP, UNSCALE} for e in seen if e.seq < clip.seq):
        return None
    for e in (e for e in seen if e.seq > clip.seq):
        if e.kind == BACKWARD:
            return None
        if e.kind == STEP and e.amp and not _unscales_anywhere(w):
            return "TW006", (
                "gradients are clipped while still scaled by GradScaler (scaled by the "
                "caller's backward): call scaler.unscale_(optimizer) before clipping"
            )
    return None


def _as_backward(e: Event) -> Event:
    """A call of a function that runs a scaled backward() and steps nothing (a trainer's
    ``train_step(batch)``) stands for that backward() in its caller's iteration."""
    if e.kind == CALL and e.summary is not None and e.summary.scaled_backward:
        return replace(e, kind=BACKWARD, amp=True)
    return e


def _scaled_backward_since_step(before: list[Event]) -> Event | None:
    """A ``scaler.scale(loss).backward()`` among the backward() calls since the last step
    (``if fp16: scaler.scale(loss).backward() else: loss.backward()``: either may run)."""
    for e in reversed(before):
        if e.kind == STEP:
            return None
        if e.kind == BACKWARD and e.amp:
            return e
    return None
