"""The contenders of ``peers.py``: one function per way of training, all doing the same work.

Each ``run_<name>(work)`` trains a fresh model on ``work``'s data with the same model, batch
size, optimizer (AdamW, same lr / weight decay / betas), global-norm clipping at 1.0 and
per-step warmup+cosine schedule, validating once per epoch when ``work.val`` is set (loss and
accuracy, batches of 4 x batch). ``work.on_step()``, when set, is called right after each
optimizer step (and schedule step): the child times steps and the first step with it.

Each framework is imported inside its function, so a process that runs one contender
imports only that contender's framework (the start-up workload measures those imports).
``checkpoint_<name>(...)`` functions are the checkpoint workload's savers.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

CLIP = 1.0


@dataclass
class Work:
    """One training job, the same for every contender."""

    make_model: Callable[[], nn.Module]
    train: tuple[torch.Tensor, torch.Tensor]
    val: tuple[torch.Tensor, torch.Tensor] | None
    loss: Callable[[torch.Tensor, torch.Tensor], torch.Tensor]
    batch: int
    epochs: int
    lr: float
    weight_decay: float
    betas: tuple[float, float] = (0.9, 0.999)
    warmup_ratio: float = 0.05
    min_lr_ratio: float = 0.01
    max_steps: int | None = None  # stop after this many optimizer steps (None: whole epochs)
    compile: bool = False  # torch.compile the model (hand: model.compile(); trainwell: config)
    on_step: Callable[[], None] | None = None
    tmp: str | None = None  # a fresh directory a contender may write into (logs, checkpoints)
    info: dict[str, Any] = field(default_factory=dict)  # what a contender reports back

    @property
    def steps_per_epoch(self) -> int:
        return math.ceil(len(self.train[0]) / self.batch)

    @property
    def total_steps(self) -> int:
        total = self.epochs * self.steps_per_epoch
        return min(total, self.max_steps) if self.max_steps else total

    @property
    def warmup_steps(self) -> int:
        return int(self.warmup_ratio * self.total_steps)

    def lr_factor(self, step: int) -> float:
        """Warmup then cosine to ``min_lr_ratio`` (the formula of trainwell.schedule's
        warmup_cosine, written out so the hand loops import nothing of trainwell)."""
        warm, total = self.warmup_steps, self.total_steps
        if step < warm:
            return min(1.0, (step + 1) / warm)
        progress = min(1.0, (step - warm) / max(1, total - warm))
        return self.min_lr_ratio + (1 - self.min_lr_ratio) * 0.5 * (
            1 + math.cos(math.pi * progress)
        )

    def tick(self) -> None:
        if self.on_step is not None:
            self.on_step()


def _adamw(model: nn.Module, work: Work) -> torch.optim.Optimizer:
    """``torch.optim.AdamW`` with its defaults, as most loops create it."""
    return torch.optim.AdamW(
        model.parameters(), lr=work.lr, weight_decay=work.weight_decay, betas=work.betas
    )


def _loaders(work: Work) -> tuple[DataLoader, DataLoader | None]:
    """The default DataLoader over a TensorDataset, shuffled: what most people write."""
    train = DataLoader(TensorDataset(*work.train), batch_size=work.batch, shuffle=True)
    val = None
    if work.val is not None:
        val = DataLoader(TensorDataset(*work.val), batch_size=4 * work.batch)
    return train, val


def _validate(model: nn.Module, loader, loss_fn) -> tuple[float, float]:
    model.eval()
    total, correct, count = 0.0, 0, 0
    with torch.no_grad():
        for x, y in loader:
            logits = model(x)
            total += loss_fn(logits, y).item() * len(y)
            correct += (logits.argmax(-1) == y).sum().item()
            count += len(y)
    return total / count, correct / count


def _count_compiled() -> int:
    """Graphs compiled so far in this process (0 if dynamo never ran)."""
    import sys

    if "torch._dynamo" not in sys.modules:
        return 0
    from torch._dynamo.utils import counters

    return int(counters["stats"].get("unique_graphs", 0))


# --------------------------------------------------------------------------- hand loops


def run_hand(work: Work) -> None:
    """The loop most people write: default DataLoader, default AdamW, LambdaLR per step."""
    torch.manual_seed(0)
    model = work.make_model()
    if work.compile:
        model.compile()
    optimizer = _adamw(model, work)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, work.lr_factor)
    train, val = _loaders(work)
    step, total = 0, work.total_steps
    for _ in range(work.epochs):
        model.train()
        for x, y in train:
            optimizer.zero_grad()
            loss = work.loss(model(x), y)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), CLIP)
            optimizer.step()
            scheduler.step()
            step += 1
            work.tick()
            if step == total:
                break
        if val is not None:
            _validate(model, val, work.loss)
        if step == total:
            break
    work.info["compiled_graphs"] = _count_compiled()


def run_hand_parts(work: Work) -> None:
    """The hand loop built from trainwell's parts (as in overhead.py): its AdamW (fused,
    no decay on biases/norms), whole-batch indexing of a seeded per-epoch order, its schedule."""
    import trainwell as tw
    from trainwell.data import epoch_order

    torch.manual_seed(0)
    model = work.make_model()
    if work.compile:
        model.compile()
    optimizer = tw.build_optimizer(
        model, lr=work.lr, weight_decay=work.weight_decay, betas=work.betas
    )
    (x, y), batch = work.train, work.batch
    step, total = 0, work.total_steps
    for epoch in range(work.epochs):
        model.train()
        order = epoch_order(len(x), 0, epoch)
        for i in range(0, len(x), batch):
            index = order[i : i + batch]
            optimizer.zero_grad(set_to_none=True)
            loss = work.loss(model(x[index]), y[index])
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), CLIP)
            optimizer.step()
            step += 1
            factor = work.lr_factor(step)
            for group in optimizer.param_groups:
                group["lr"] = group["base_lr"] * factor
            work.tick()
            if step == total:
                break
        if work.val is not None:
            xv, yv = work.val
            model.eval()
            with torch.inference_mode():
                logits = torch.cat(
                    [model(xv[j : j + 4 * batch]) for j in range(0, len(xv), 4 * batch)]
                )
                (work.loss(logits, yv).item(), (logits.argmax(-1) == yv).float().mean().item())
        if step == total:
            break
    work.info["compiled_graphs"] = _count_compiled()


# --------------------------------------------------------------------------- trainwell


def trainwell_config(work: Work, *, guards: bool, lean: bool) -> dict[str, Any]:
    train: dict[str, Any] = {
        "max_epochs": work.epochs,
        "max_steps": work.max_steps,
        "clip_norm": CLIP,
    }
    if work.compile:
        train["compile"] = True
    return {
        "guards": {"enabled": guards},
        # quiet: no progress bar, no prints; lean: no periodic loss read either
        "run": {"quiet": True, "progress": False, "log_every": 10**9 if lean else 50},
        "data": {"batch_size": work.batch},
        "train": train,
        "optim": {"lr": work.lr, "weight_decay": work.weight_decay, "betas": list(work.betas)},
        "schedule": {
            "name": "warmup_cosine",
            "warmup_ratio": work.warmup_ratio,
            "min_lr_ratio": work.min_lr_ratio,
        },
        "monitor": {"metric": "val_accuracy", "mode": "max"}
        if work.val is not None
        else {"metric": "train_loss", "mode": "min", "restore_best": False},
    }


def _run_trainwell(work: Work, *, guards: bool, lean: bool) -> None:
    import trainwell as tw
    from trainwell.observe.base import Observer

    class Tick(Observer):
        def on_step_end(self, report) -> None:
            work.tick()

    torch.manual_seed(0)
    model = work.make_model()
    result = tw.fit(
        model,
        work.train,
        work.val,
        loss=work.loss,
        config=trainwell_config(work, guards=guards, lean=lean),
        metrics=["accuracy"] if work.val is not None else None,
        observers=[Tick()] if work.on_step is not None else (),
    )
    assert result.steps == work.total_steps, (result.steps, work.total_steps)
    work.info["findings"] = len(result.findings)
    work.info["compiled_graphs"] = _count_compiled()


def run_trainwell(work: Work) -> None:
    """``tw.fit`` with its defaults: guards on, loss read every 50 steps; quiet, no run dir."""
    _run_trainwell(work, guards=True, lean=False)


def run_trainwell_lean(work: Work) -> None:
    """``tw.fit`` with guards off and nothing logged."""
    _run_trainwell(work, guards=False, lean=True)


# --------------------------------------------------------------------------- Lightning


def _lightning():
    try:
        import lightning as L
    except ImportError:  # the older package name
        import pytorch_lightning as L
    return L


def _lightning_module(L, work: Work):
    class Module(L.LightningModule):
        def __init__(self) -> None:
            super().__init__()
            self.net = work.make_model()

        def forward(self, x):
            return self.net(x)

        def training_step(self, batch, batch_idx):
            x, y = batch
            return work.loss(self.net(x), y)

        def validation_step(self, batch, batch_idx):
            x, y = batch
            logits = self.net(x)
            accuracy = (logits.argmax(-1) == y).float().mean()
            self.log_dict(
                {"val_loss": work.loss(logits, y), "val_accuracy": accuracy}, batch_size=len(y)
            )

        def configure_optimizers(self):
            optimizer = _adamw(self, work)
            scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, work.lr_factor)
            return {
                "optimizer": optimizer,
                "lr_scheduler": {"scheduler": scheduler, "interval": "step"},
            }

        def on_train_batch_end(self, outputs, batch, batch_idx) -> None:
            work.tick()

    return Module()


def _run_lightning(work: Work, *, lean: bool, callbacks=(), checkpointing: bool = False) -> Any:
    L = _lightning()
    torch.manual_seed(0)
    module = _lightning_module(L, work)
    if work.compile:
        module.net.compile()
    train, val = _loaders(work)
    options: dict[str, Any] = {
        "max_epochs": work.epochs,
        "max_steps": work.max_steps or -1,
        "gradient_clip_val": CLIP,
        "accelerator": "cpu",
        "devices": 1,
        "default_root_dir": work.tmp,
        "callbacks": list(callbacks),
    }
    if lean:
        options.update(
            logger=False,
            enable_checkpointing=checkpointing,
            enable_progress_bar=False,
            enable_model_summary=False,
            num_sanity_val_steps=0,
        )
    trainer = L.Trainer(**options)
    trainer.fit(module, train, val)
    assert trainer.global_step == work.total_steps, (trainer.global_step, work.total_steps)
    work.info["compiled_graphs"] = _count_compiled()
    return trainer


def run_lightning(work: Work) -> None:
    """Lightning's Trainer, lean: no logger, no checkpoints, no progress bar or summary,
    no sanity validation."""
    _run_lightning(work, lean=True)


def run_lightning_defaults(work: Work) -> None:
    """Lightning's Trainer with its defaults: logger (CSV/TensorBoard), a checkpoint per epoch,
    the progress bar (to a pipe here), the model summary, 2 sanity validation batches."""
    _run_lightning(work, lean=False)


# --------------------------------------------------------------------------- Fabric


def run_fabric(work: Work) -> None:
    """Lightning Fabric around the hand loop: setup, setup_dataloaders, backward, clip."""
    try:
        from lightning.fabric import Fabric
    except ImportError:
        from lightning_fabric import Fabric

    fabric = Fabric(accelerator="cpu", devices=1)
    torch.manual_seed(0)
    model = work.make_model()
    if work.compile:
        model.compile()
    optimizer = _adamw(model, work)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, work.lr_factor)
    model, optimizer = fabric.setup(model, optimizer)
    train, val = _loaders(work)
    train = fabric.setup_dataloaders(train)
    val = fabric.setup_dataloaders(val) if val is not None else None
    step, total = 0, work.total_steps
    for _ in range(work.epochs):
        model.train()
        for x, y in train:
            optimizer.zero_grad()
            loss = work.loss(model(x), y)
            fabric.backward(loss)
            fabric.clip_gradients(model, optimizer, max_norm=CLIP)
            optimizer.step()
            scheduler.step()
            step += 1
            work.tick()
            if step == total:
                break
        if val is not None:
            _validate(model, val, work.loss)
        if step == total:
            break
    work.info["compiled_graphs"] = _count_compiled()


# --------------------------------------------------------------------------- Accelerate


def run_accelerate(work: Work) -> None:
    """Hugging Face Accelerate around the hand loop: prepare, backward, clip_grad_norm_."""
    from accelerate import Accelerator

    accelerator = Accelerator(cpu=True)
    torch.manual_seed(0)
    model = work.make_model()
    if work.compile:
        model.compile()
    optimizer = _adamw(model, work)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, work.lr_factor)
    train, val = _loaders(work)
    model, optimizer, train, scheduler = accelerator.prepare(model, optimizer, train, scheduler)
    val = accelerator.prepare(val) if val is not None else None
    step, total = 0, work.total_steps
    for _ in range(work.epochs):
        model.train()
        for x, y in train:
            optimizer.zero_grad()
            loss = work.loss(model(x), y)
            accelerator.backward(loss)
            accelerator.clip_grad_norm_(model.parameters(), CLIP)
            optimizer.step()
            scheduler.step()
            step += 1
            work.tick()
            if step == total:
                break
        if val is not None:
            _validate(model, val, work.loss)
        if step == total:
            break
    work.info["compiled_graphs"] = _count_compiled()


# --------------------------------------------------------------------------- Ignite


def run_ignite(work: Work) -> None:
    """PyTorch Ignite: an Engine over the hand step (its default returns loss.item()), the
    scheduler on ITERATION_COMPLETED, a supervised evaluator (Accuracy, Loss) per epoch."""
    from ignite.engine import Engine, Events, create_supervised_evaluator
    from ignite.metrics import Accuracy, Loss

    torch.manual_seed(0)
    model = work.make_model()
    if work.compile:
        model.compile()
    optimizer = _adamw(model, work)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, work.lr_factor)
    train, val = _loaders(work)

    def update(engine, batch):
        model.train()
        x, y = batch
        optimizer.zero_grad()
        loss = work.loss(model(x), y)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), CLIP)
        optimizer.step()
        return loss.item()

    trainer = Engine(update)
    trainer.add_event_handler(Events.ITERATION_COMPLETED, lambda _: scheduler.step())
    trainer.add_event_handler(Events.ITERATION_COMPLETED, lambda _: work.tick())
    if val is not None:
        evaluator = create_supervised_evaluator(
            model, metrics={"accuracy": Accuracy(), "loss": Loss(work.loss)}
        )
        trainer.add_event_handler(Events.EPOCH_COMPLETED, lambda _: evaluator.run(val))
    if work.max_steps:
        trainer.add_event_handler(
            Events.ITERATION_COMPLETED(once=work.total_steps), lambda e: e.terminate()
        )
    trainer.run(train, max_epochs=work.epochs)
    assert trainer.state.iteration == work.total_steps, (trainer.state.iteration, work.total_steps)
    work.info["compiled_graphs"] = _count_compiled()


RUNNERS: dict[str, Callable[[Work], None]] = {
    "hand": run_hand,
    "hand-parts": run_hand_parts,
    "trainwell": run_trainwell,
    "trainwell-lean": run_trainwell_lean,
    "lightning": run_lightning,
    "lightning-defaults": run_lightning_defaults,
    "fabric": run_fabric,
    "accelerate": run_accelerate,
    "ignite": run_ignite,
}


# --------------------------------------------------------------------------- checkpoints
#
# A saver is made once per process with (model, optimizer, directory) and called as
# ``save(k)`` for the k-th save; it returns the seconds the training loop was blocked.


def hand_saver(
    model: nn.Module, optimizer, directory: str, *, fsync: bool = True
) -> Callable[[int], float]:
    """``torch.save`` of model + optimizer state, flushed and fsynced: a save that is on disk
    (``fsync=False``: in the page cache only, as Lightning, Fabric, Accelerate and Ignite save)."""

    def save(k: int) -> float:
        start = time.perf_counter()
        with open(os.path.join(directory, f"hand-{k % 2}.pt"), "wb") as f:
            torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict()}, f)
            if fsync:
                f.flush()
                os.fsync(f.fileno())
        return time.perf_counter() - start

    return save


def trainwell_saver(model, optimizer, directory: str, *, async_save: bool = False):
    """trainwell's Checkpointer: atomic verified write (temp, fsync, rename, SHA-256 sidecar,
    last.pt link, retention); async: the loop waits only for the copy to CPU."""
    import trainwell as tw
    from trainwell.state.checkpointer import Checkpointer

    checkpointer = Checkpointer(directory, async_save=async_save, keep_last=2)
    parts = {"model": model, "optimizer": optimizer}

    def save(k: int) -> float:
        checkpointer.wait()  # a previous async write: in a real run, training overlaps it
        start = time.perf_counter()
        record = checkpointer.save(parts, tw.Counters(step=k + 1))
        blocked = time.perf_counter() - start
        assert record is not None
        return blocked

    save.close = checkpointer.close  # type: ignore[attr-defined]
    return save


def fabric_saver(model, optimizer, directory: str):
    try:
        from lightning.fabric import Fabric
    except ImportError:
        from lightning_fabric import Fabric

    fabric = Fabric(accelerator="cpu", devices=1)
    model, optimizer = fabric.setup(model, optimizer)

    def save(k: int) -> float:
        start = time.perf_counter()
        fabric.save(
            os.path.join(directory, f"fabric-{k % 2}.ckpt"),
            {"model": model, "optimizer": optimizer},
        )
        return time.perf_counter() - start

    return save


def accelerate_saver(model, optimizer, directory: str):
    from accelerate import Accelerator

    accelerator = Accelerator(cpu=True)
    model, optimizer = accelerator.prepare(model, optimizer)

    def save(k: int) -> float:
        start = time.perf_counter()
        accelerator.save_state(os.path.join(directory, f"accelerate-{k % 2}"))
        return time.perf_counter() - start

    return save


def ignite_saver(model, optimizer, directory: str):
    from ignite.engine import Engine
    from ignite.handlers import Checkpoint, DiskSaver

    engine = Engine(lambda e, b: None)
    checkpoint = Checkpoint(
        {"model": model, "optimizer": optimizer},
        DiskSaver(directory, require_empty=False),
        n_saved=2,
    )

    def save(k: int) -> float:
        engine.state.iteration = k + 1
        start = time.perf_counter()
        checkpoint(engine)
        return time.perf_counter() - start

    return save


SAVERS: dict[str, Callable[..., Callable[[int], float]]] = {
    "hand": hand_saver,
    "hand-nofsync": lambda m, o, d: hand_saver(m, o, d, fsync=False),
    "trainwell": trainwell_saver,
    "trainwell-async": lambda m, o, d: trainwell_saver(m, o, d, async_save=True),
    "fabric": fabric_saver,
    "accelerate": accelerate_saver,
    "ignite": ignite_saver,
}


def lightning_checkpoint(work: Work, saves: int, directory: str) -> tuple[list[float], list[float]]:
    """Blocked seconds of Lightning's ModelCheckpoint (every step, its defaults otherwise:
    keep the newest) and of the hand save, alternating, over ``saves`` training steps."""
    L = _lightning()
    ModelCheckpoint = L.pytorch.callbacks.ModelCheckpoint if hasattr(L, "pytorch") else None
    if ModelCheckpoint is None:  # pytorch_lightning
        ModelCheckpoint = L.callbacks.ModelCheckpoint
    lightning_s: list[float] = []
    hand_s: list[float] = []

    class TimedCheckpoint(ModelCheckpoint):
        def on_train_batch_end(self, trainer, pl_module, *args, **kwargs) -> None:
            start = time.perf_counter()
            super().on_train_batch_end(trainer, pl_module, *args, **kwargs)
            lightning_s.append(time.perf_counter() - start)

    class HandSave(L.Callback):
        def on_train_batch_end(self, trainer, pl_module, *args, **kwargs) -> None:
            save = hand_saver(pl_module.net, trainer.optimizers[0], directory)
            hand_s.append(save(len(hand_s)))

    work.max_steps, work.val = saves, None
    checkpoint = TimedCheckpoint(
        dirpath=os.path.join(directory, "lightning"), every_n_train_steps=1
    )
    _run_lightning(work, lean=True, callbacks=[HandSave(), checkpoint], checkpointing=True)
    return lightning_s, hand_s
