"""What the guards install on the user's objects, made so that it never travels with them.

A hook registered on a module (or tensor, or optimizer) sits in that object's hook dicts, which
``copy.deepcopy``, ``pickle`` and ``torch.save(model)`` all copy. A bound method or closure
there would drag the watch, the optimizer and its state into every EMA or best-model copy (and
keep firing into the watch from the copy after the watch closed), and could not be pickled at
all. So every hook is a `Hook`: it calls the guard, but a deep copy of it is `noop` and a
pickle of it unpickles as `noop`: inert, holding nothing.

Methods with no hook of their own (``scheduler.step``, ``GradScaler.update``) are observed by
`before_call`, and the loss module's and the model's ``forward`` under `watch()` by `after_call`,
`around_call` and `before_call_with` (a forward hook would send every call through the slow path of
``Module.__call__``: several microseconds a step): the method is wrapped once on the *class* while any watch needs it, and the wrapper calls
the callbacks registered for that one instance (a registry keyed by id, checked with a weak
reference). No instance attribute is set, so ``state_dict()``, ``__dict__``, pickles and copies
of the object never see it.
"""

from __future__ import annotations

import functools
import threading
import weakref
from collections.abc import Callable
from typing import Any


def noop(*args: Any, **kwargs: Any) -> None:
    """What a copied or unpickled object holds in place of a guard's hook: nothing at all."""


def _noop() -> Callable[..., None]:
    return noop


class Hook(functools.partial):
    """A hook that calls ``fn(*args, <the hook's arguments>)`` and is copied or pickled as `noop`.

    A `functools.partial`: calling it adds no Python frame of its own (hooks run every step).
    """

    __torch_unserializable__ = True  # torch.save of a tensor holding it: no "hook lost" warning

    def __deepcopy__(self, memo: dict[int, Any]) -> Callable[..., None]:
        return noop

    def __reduce__(self) -> tuple[Callable[[], Callable[..., None]], tuple[()]]:
        return (_noop, ())

    def __reduce_ex__(self, protocol: Any) -> tuple[Callable[[], Callable[..., None]], tuple[()]]:
        return (_noop, ())


class CallHandle:
    """Removes one `before_call`/`after_call` callback (safe to call twice)."""

    def __init__(
        self, key: tuple[int, str], ref: weakref.ref, callback: Callable[..., None], slot: int = 1
    ) -> None:
        self.key, self.ref, self.callback, self.slot = key, ref, callback, slot
        self.cls: type | None = None  # set once the class is wrapped

    def remove(self) -> None:
        with _lock:
            ident, name = self.key
            registry = _registry(name)
            entry = registry.get(ident)
            if entry is not None and entry[0] is self.ref and self.callback in entry[self.slot]:
                kept = list(entry[self.slot])
                kept.remove(self.callback)
                entry[self.slot] = tuple(kept)
                if not any(entry[1:]):
                    del registry[ident]
            if self.cls is not None:
                _release(self.cls, self.key[1])
                self.cls = None


_lock = threading.RLock()
#: method name -> {id(obj): [weak reference to obj, callbacks to run before the method,
#: callbacks to run after it with its result, callbacks with its arguments and result,
#: callbacks to run before it with its arguments]}; the callbacks are tuples, replaced (never
#: changed in place) when one is added or removed, so a call in progress runs the ones it found
_callbacks: dict[str, dict[int, list[Any]]] = {}
#: (class, method name) -> [users, the class's own attribute before wrapping (or _MISSING)]
_patched: dict[tuple[type, str], list[Any]] = {}
_MISSING = object()
_made: dict[tuple[Callable[..., Any], str], Callable[..., Any]] = {}  # (original, name) -> wrapper


def before_call(obj: Any, name: str, callback: Callable[[], None]) -> CallHandle:
    """Run ``callback()`` before every ``obj.<name>(...)`` call, until the handle is removed."""
    return _register(obj, name, callback, 1)


def after_call(obj: Any, name: str, callback: Callable[[Any], None]) -> CallHandle:
    """Run ``callback(result)`` after every ``obj.<name>(...)`` call, until the handle is
    removed. For a module's ``forward`` this costs far less than a forward hook, whose presence
    sends every call of the module through the slow path of ``Module.__call__``."""
    return _register(obj, name, callback, 2)


def around_call(
    obj: Any, name: str, callback: Callable[[tuple, dict[str, Any], Any], None]
) -> CallHandle:
    """Run ``callback(args, kwargs, result)`` after every ``obj.<name>(...)`` call, until the
    handle is removed: a module's forward hook (``with_kwargs=True``) without the slow path."""
    return _register(obj, name, callback, 3)


def before_call_with(
    obj: Any, name: str, callback: Callable[[tuple, dict[str, Any]], None]
) -> CallHandle:
    """Run ``callback(args, kwargs)`` before every ``obj.<name>(...)`` call, until the handle
    is removed: a module's forward pre-hook without the slow path of ``Module.__call__``."""
    return _register(obj, name, callback, 4)


def _registry(name: str) -> dict[int, list[Any]]:
    """The callbacks on method ``name``, by object id (one dict per name, kept for good: the
    wrappers hold it)."""
    registry = _callbacks.get(name)
    if registry is None:
        registry = _callbacks[name] = {}
    return registry


def _register(obj: Any, name: str, callback: Callable[..., None], slot: int) -> CallHandle:
    key = (id(obj), name)
    with _lock:
        registry = _registry(name)
        entry = registry.get(key[0])
        if entry is None or entry[0]() is not obj:  # new, or a dead object's recycled id
            entry = [weakref.ref(obj, functools.partial(_forget, key)), (), (), (), ()]
            registry[key[0]] = entry
        entry[slot] = (*entry[slot], callback)
        handle = CallHandle(key, entry[0], callback, slot)
        _acquire(type(obj), name)
        handle.cls = type(obj)
    return handle


def _forget(key: tuple[int, str], ref: weakref.ref) -> None:
    """The object died with a watch still open: drop its callbacks (and the guards they hold)."""
    with _lock:
        registry = _registry(key[1])
        entry = registry.get(key[0])
        if entry is not None and entry[0] is ref:
            del registry[key[0]]


def _acquire(cls: type, name: str) -> None:
    slot = _patched.get((cls, name))
    if slot is not None:
        slot[0] += 1
        return
    own = cls.__dict__.get(name, _MISSING)
    original = getattr(cls, name)
    while getattr(original, "__trainwell_guard__", False):  # a base class wrapped for another
        original = original.__wrapped__
    wrapper = _made.get((original, name))
    if wrapper is None:  # made once per method: watches come and go
        wrapper = _made[(original, name)] = _wrapper(original, name)
    setattr(cls, name, wrapper)
    _patched[(cls, name)] = [1, own]


def _release(cls: type, name: str) -> None:
    slot = _patched.get((cls, name))
    if slot is None:
        return
    slot[0] -= 1
    if slot[0] > 0:
        return
    del _patched[(cls, name)]
    if slot[1] is _MISSING:
        delattr(cls, name)
    else:
        setattr(cls, name, slot[1])


def _wrapper(original: Callable[..., Any], name: str) -> Callable[..., Any]:
    registry = _registry(name)

    @functools.wraps(original)
    def method(self: Any, *args: Any, **kwargs: Any) -> Any:
        # every step, for the model's and the loss module's forward: kept to a few lookups
        entry = registry.get(id(self))
        if entry is None or entry[0]() is not self:
            return original(self, *args, **kwargs)
        for callback in entry[1]:
            callback()
        for before in entry[4]:
            before(args, kwargs)
        result = original(self, *args, **kwargs)
        for after in entry[2]:
            after(result)
        for seen in entry[3]:
            seen(args, kwargs, result)
        return result

    method.__trainwell_guard__ = True  # type: ignore[attr-defined]
    return method
