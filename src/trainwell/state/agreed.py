"""Checkpoints whose saves are collectives (every rank holds part of the state: FSDP shards,
every rank's RNG streams): `AgreedCheckpoints` has every rank save at the same moments, rank 0
decide the timed cadence and write the files, and every rank write its own shards."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import torch.distributed as dist
from torch.optim import Optimizer

from trainwell.errors import warn_at_user
from trainwell.state.checkpointer import state_of
from trainwell.state.sharded import Marker, shards_of, start_shards, weights_finite


class AgreedCheckpoints:
    """The checkpointer of a strategy whose saves are collectives (FSDP gathers every rank's
    shard): every rank calls it at the same moments, and every rank gathers the state of
    each save; rank 0 decides the cadence (its clock) and writes, through its `Checkpointer`.

    Where the save points are the same on every rank by construction (the step cadence's
    modulus, the end of the run) no message is sent; rank 0's timed decision
    (``checkpoint.min_interval_s``) reaches the others in one all-reduce.
    """

    def __init__(
        self,
        strategy: Any,
        writer: Any,
        every_steps: int | None,
        keep_best: int,
        *,
        async_save: bool = False,
    ) -> None:
        self.strategy, self.writer, self.every_steps = strategy, writer, every_steps
        self.keep_best = keep_best  # the same on every rank: new-best saves agree
        self.async_save = async_save  # checkpoint.async_save: shards written in the background
        self._save_group: Any = None  # the background saves' own process group
        self._committing: threading.Thread | None = None  # this rank's save in flight (rank > 0)
        self._error: BaseException | None = None

    def __getattr__(self, name: str) -> Any:  # paths, saves, wait, directory: the writer's
        return getattr(self.writer, name)

    def due_after_step(self, step: int) -> bool:
        if not (self.every_steps and step > 0 and step % self.every_steps == 0):
            return False
        return self.strategy.main_says(self.writer.due_after_step(step))

    def due_after_epoch(self, epoch: int, last: bool, *, best: bool = False) -> bool:
        if last:
            return True
        return self.strategy.main_says(self.writer.due_after_epoch(epoch, last, best=best))

    def save(self, parts: Any, counters: Any, **kwargs: Any) -> Any:
        if getattr(self.strategy, "sharded_checkpoints", False):
            parts, kwargs = self._save_shards(parts, counters, kwargs)
            if parts is None:
                return None
        if self.strategy.is_main:
            return self.writer.save(parts, counters, **kwargs)
        state_of(parts)  # this rank's share of the gathering
        commit = kwargs.get("before_write")
        if commit is not None:  # this rank's shards are written in the background
            self._committing = threading.Thread(target=self._commit, args=(commit,))
            self._committing.start()
        return None

    def hold(self, parts: Any, counters: Any, **kwargs: Any) -> None:
        if getattr(self.strategy, "sharded_checkpoints", False):
            self.save(parts, counters, **kwargs)  # shards cannot wait in memory: saved now
        elif self.strategy.is_main:
            self.writer.hold(parts, counters, **kwargs)
        else:
            state_of(parts)

    def _save_shards(
        self, parts: dict[str, Any], counters: Any, kwargs: dict[str, Any]
    ) -> tuple[dict[str, Any] | None, dict[str, Any]]:
        """Every rank writes its shards of the model and optimizers; returns the other parts
        with markers in their place and the manifest entry (None: not saved, NaN weights)."""
        model = parts["model"]
        if not weights_finite(model, self.strategy):
            if self.strategy.is_main:
                warn_at_user(
                    f"not saving step {counters.step}: the model's weights hold NaN/Inf; "
                    "keeping the last good checkpoint"
                )
            return None, kwargs
        self.wait()  # an earlier save in flight finishes first, on every rank
        # Replicated buffers (BatchNorm statistics) are written by whichever rank the
        # checkpoint planner picks: make them rank 0's, the model every rank validates.
        self.strategy.sync_buffers(model)
        path = self.writer.path_for(counters.step) if self.strategy.is_main else Path("x.pt")
        path = Path(self.strategy.broadcast(str(path)))
        shard_parts = {n: p for n, p in parts.items() if p is model or isinstance(p, Optimizer)}
        optimizers = {n: p for n, p in shard_parts.items() if p is not model}
        group = self._background_group() if self.async_save else None
        commit = start_shards(path, model, optimizers, self.strategy, group=group)
        marker = Marker(shards_of(path).name)
        rest = {n: marker if n in shard_parts else p for n, p in parts.items()}
        if group is None:
            return rest, {**kwargs, "shards": commit()}
        # The step file is written after the shards' commit: on rank 0 by the writer's thread.
        return rest, {**kwargs, "before_write": lambda: {"shards": commit()}}

    def _background_group(self) -> Any:
        """A gloo group for the background saves (created once, by every rank together): their
        collectives run in another thread, and must never interleave with training's."""
        if self._save_group is None:
            self._save_group = dist.new_group(backend="gloo")
        return self._save_group

    def _commit(self, commit: Any) -> None:
        try:
            commit()
        except BaseException as exc:  # re-raised in the training thread by wait()
            self._error = exc

    def wait(self) -> None:
        """Block until this rank's save in flight (if any) is on disk; re-raise its error."""
        if self._committing is not None:
            self._committing.join()
            self._committing = None
        self.writer.wait()
        if self._error is not None:
            error, self._error = self._error, None
            raise error

    def __enter__(self) -> AgreedCheckpoints:
        self.writer.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._committing is not None:
            self._committing.join()
            self._committing = None
        self.writer.__exit__(*exc)
