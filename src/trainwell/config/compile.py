"""``train.compile`` resolved: `CompileSettings`, torch.compile's own arguments, checked with
messages that name the key (the compiling itself is `trainwell.parts.compile`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from trainwell.errors import ConfigError

#: The keys ``train.compile`` accepts as a mapping, with what each means.
COMPILE_KEYS = {
    "mode": "torch.compile mode: default, reduce-overhead, max-autotune, ...",
    "dynamic": "false (static shapes; default), true (dynamic), null (torch decides)",
    "fullgraph": "true: a graph break is an error (default false)",
    "backend": "torch.compile backend (default inductor)",
    "options": "backend options (a mapping), e.g. {trace.enabled: true}",
}


@dataclass(frozen=True)
class CompileSettings:
    """``train.compile`` resolved: ``torch.compile``'s own arguments."""

    mode: str | None = None
    dynamic: bool | None = False
    fullgraph: bool = False
    backend: str = "inductor"
    options: Mapping[str, Any] | None = None

    @classmethod
    def of(cls, value: bool | Mapping[str, Any] | None) -> CompileSettings | None:
        """``train.compile`` as settings, or None when compile is off; bad values raise
        `ConfigError` naming the key."""
        if value is None or value is False:
            return None
        if value is True:
            return cls()
        if not isinstance(value, Mapping):
            raise ConfigError(
                f"train.compile={value!r} must be true, false, or a mapping of "
                f"{', '.join(COMPILE_KEYS)} (e.g. train.compile={{mode: max-autotune}})"
            )
        unknown = sorted(set(value) - set(COMPILE_KEYS))
        if unknown:
            raise ConfigError(
                f"train.compile has no key {unknown[0]!r}; valid keys: {', '.join(COMPILE_KEYS)}"
            )
        settings = cls(**dict(value))
        _check_types(settings)
        return settings

    @property
    def cuda_graphs(self) -> bool:
        """Whether inductor records CUDA graphs: modes reduce-overhead and max-autotune, or
        ``options: {triton.cudagraphs: true}``."""
        if self.backend != "inductor":
            return False
        if self.options and "triton.cudagraphs" in self.options:
            return bool(self.options["triton.cudagraphs"])
        return self.mode in ("reduce-overhead", "max-autotune")

    def torch_kwargs(self) -> dict[str, Any]:
        kwargs: dict[str, Any] = {
            "dynamic": self.dynamic,
            "fullgraph": self.fullgraph,
            "backend": self.backend,
        }
        if self.mode is not None:
            kwargs["mode"] = self.mode
        if self.options:
            kwargs["options"] = dict(self.options)
        return kwargs


def _check_types(s: CompileSettings) -> None:
    checks = (
        ("mode", s.mode, (str, type(None)), "a string such as max-autotune, or null"),
        ("dynamic", s.dynamic, (bool, type(None)), "true, false or null"),
        ("fullgraph", s.fullgraph, (bool,), "true or false"),
        ("backend", s.backend, (str,), "a string such as inductor or aot_eager"),
        ("options", s.options, (Mapping, type(None)), "a mapping, or null"),
    )
    for name, value, types_, words in checks:
        if not isinstance(value, types_):
            raise ConfigError(f"train.compile.{name}={value!r} must be {words}")
