"""What the guards install on the user's objects, made so that it never travels with them.

A hook registered on a module (or tensor, or optimizer) sits in that object's hook dicts, which
``copy.deepcopy``, ``pickle`` and ``torch.save(model)`` all copy. A bound method or closure
there would drag the watch, the optimizer and its state into every EMA or best-model copy (and
keep firing into the watch from the copy after the watch closed), and could not be pickled at
all. So every hook is a `Hook`: it calls the guard, but a deep copy of it is `noop` and a
pickle of it unpickles as `noop`: inert, holding nothing.

Methods with no hook of their own (``scheduler.step``, ``GradScaler.update``) are observed by
`before_call`: the method is wrapped once on the *class* while any watch needs it, and the
wrapper calls the callbacks registered for that one instance (a registry keyed by id, checked
with a weak reference). No instance attribute is set, so ``state_dict()``, ``__dict__``, pickles
and copies of the object never see it.
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


class Hook:
    """A hook that calls ``fn`` and is copied or pickled as `noop`."""

    __slots__ = ("fn",)
    __torch_unserializable__ = True  # torch.save of a tensor holding it: no "hook lost" warning

    def __init__(self, fn: Callable[..., Any]) -> None:
        self.fn = fn

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.fn(*args, **kwargs)

    def __deepcopy__(self, memo: dict[int, Any]) -> Callable[..., None]:
        return noop

    def __reduce__(self) -> tuple[Callable[[], Callable[..., None]], tuple[()]]:
        return (_noop, ())


class CallHandle:
    """Removes one `before_call` callback (safe to call twice)."""

    def __init__(
        self, key: tuple[int, str], ref: weakref.ref, callback: Callable[[], None]
    ) -> None:
        self.key, self.ref, self.callback = key, ref, callback
        self.cls: type | None = None  # set once the class is wrapped

    def remove(self) -> None:
        with _lock:
            entry = _callbacks.get(self.key)
            if entry is not None and entry[0] is self.ref and self.callback in entry[1]:
                entry[1].remove(self.callback)
                if not entry[1]:
                    del _callbacks[self.key]
            if self.cls is not None:
                _release(self.cls, self.key[1])
                self.cls = None


_lock = threading.RLock()
#: (id(obj), method name) -> (weak reference to obj, callbacks to run before the method)
_callbacks: dict[tuple[int, str], tuple[weakref.ref, list[Callable[[], None]]]] = {}
#: (class, method name) -> [users, the class's own attribute before wrapping (or _MISSING)]
_patched: dict[tuple[type, str], list[Any]] = {}
_MISSING = object()


def before_call(obj: Any, name: str, callback: Callable[[], None]) -> CallHandle:
    """Run ``callback()`` before every ``obj.<name>(...)`` call, until the handle is removed."""
    key = (id(obj), name)
    with _lock:
        entry = _callbacks.get(key)
        if entry is None or entry[0]() is not obj:  # new, or a dead object's recycled id
            entry = (weakref.ref(obj, functools.partial(_forget, key)), [])
            _callbacks[key] = entry
        entry[1].append(callback)
        handle = CallHandle(key, entry[0], callback)
        _acquire(type(obj), name)
        handle.cls = type(obj)
    return handle


def _forget(key: tuple[int, str], ref: weakref.ref) -> None:
    """The object died with a watch still open: drop its callbacks (and the guards they hold)."""
    with _lock:
        entry = _callbacks.get(key)
        if entry is not None and entry[0] is ref:
            del _callbacks[key]


def _acquire(cls: type, name: str) -> None:
    slot = _patched.get((cls, name))
    if slot is not None:
        slot[0] += 1
        return
    own = cls.__dict__.get(name, _MISSING)
    original = getattr(cls, name)
    while getattr(original, "__trainwell_guard__", False):  # a base class wrapped for another
        original = original.__wrapped__
    setattr(cls, name, _wrapper(original, name))
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
    @functools.wraps(original)
    def method(self: Any, *args: Any, **kwargs: Any) -> Any:
        entry = _callbacks.get((id(self), name))
        if entry is not None and entry[0]() is self:
            for callback in list(entry[1]):
                callback()
        return original(self, *args, **kwargs)

    method.__trainwell_guard__ = True  # type: ignore[attr-defined]
    return method
