"""Config is data: one frozen dataclass tree with a default and a one-line doc per field.

Load it from YAML or TOML files plus ``section.key=value`` overrides. Unknown keys and values
of the wrong type are rejected with the key's name and the closest valid key. Each part of the
loop receives only its own section.
"""

from __future__ import annotations

import dataclasses
import difflib
import json
import re
import sys
import types
import typing
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any, Literal, Union

import yaml

from trainwell.config.checks import _BOUNDS, validate_config
from trainwell.config.sections import Config, _plain
from trainwell.errors import ConfigError


def build_config(
    values: Mapping[str, Any] | None = None,
    overrides: Iterable[str] = (),
    *,
    base: Config | None = None,
    model_type: type | None = None,
    _origins: Mapping[str, str] | None = None,
) -> Config:
    """Build a `Config` from nested ``values`` and ``section.key=value`` override strings.

    ``base`` supplies defaults (e.g. a recipe's); ``model_type`` is the dataclass of the
    ``model`` section. Raises `ConfigError` naming the key and the closest valid key.
    """
    base = base or Config()
    if model_type is None:
        model_type = type(base.model)
    tree = base.to_dict()
    tree["model"] = _plain(dataclasses.asdict(base.model))
    # where each value came from, so a refused value's message can name it
    origins: dict[str, str] = dict(_origins or {})
    if values:
        _merge(tree, _check_mapping(values, "config"), Config, model_type, prefix="")
        for name in _dotted_keys(values):
            origins.setdefault(name, "the config")
    for item in overrides:
        key, value = _parse_override(item)
        _merge(tree, _nest(key, value), Config, model_type, prefix="")
        origins[key] = "--set"
    return validate_config(_construct(Config, tree, model_type, prefix="", origins=origins))


def load_config(
    paths: Iterable[str | Path] = (),
    overrides: Iterable[str] = (),
    *,
    base: Config | None = None,
    model_type: type | None = None,
) -> Config:
    """Load YAML/TOML files (later files win), then apply ``section.key=value`` overrides."""
    merged: dict[str, Any] = {}
    origins: dict[str, str] = {}
    for path in paths:
        data = read_config_file(path)
        _deep_update(merged, data)
        origins.update(dict.fromkeys(_dotted_keys(data), f"config file {path}"))  # later wins
    return build_config(merged, overrides, base=base, model_type=model_type, _origins=origins)


def _dotted_keys(values: Mapping[str, Any], prefix: str = "") -> Iterator[str]:
    """Every key of nested ``values`` as ``section.key`` (and each level above it)."""
    for key, value in values.items():
        name = f"{prefix}{key}"
        yield name
        if isinstance(value, Mapping):
            yield from _dotted_keys(value, f"{name}.")


def read_config_file(path: str | Path) -> dict[str, Any]:
    """Read one YAML or TOML config file into nested dicts.

    Anything wrong with the file itself is one `ConfigError` naming it and what is wrong:
    missing or unreadable, not UTF-8, not parsing, not a mapping of sections, a section that
    is not a mapping (``run: [1, 2]``), or a YAML alias that contains itself (``a: &a [*a]``).
    An empty section (``run:``) counts as an empty mapping.
    """
    path = Path(path)
    if not path.is_file():
        raise ConfigError(
            f"config file {path} does not exist; pass the path of a .yaml or .toml file"
        )
    try:
        text = path.read_bytes().decode("utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read config file {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(
            f"config file {path} is not UTF-8 text (byte 0x{exc.object[exc.start]:02x} at "
            f"offset {exc.start}); save it as UTF-8 YAML or TOML"
        ) from None
    try:
        if path.suffix == ".toml":
            if sys.version_info >= (3, 11):
                import tomllib
            else:  # pragma: no cover - Python 3.10
                import tomli as tomllib
            data = tomllib.loads(text)
        else:
            data = yaml.safe_load(text)
    except RecursionError:
        raise ConfigError(f"config file {path} is nested too deeply to read") from None
    except Exception as exc:  # both parsers raise their own error types
        raise ConfigError(f"config file {path} does not parse: {exc}") from None
    try:
        return _checked_sections(data if data is not None else {}, path)
    except RecursionError:
        raise ConfigError(f"config file {path} is nested too deeply to read") from None


def _checked_sections(data: Any, path: Path) -> dict[str, Any]:
    """``data`` if it is a mapping of sections without cycles (empty sections as ``{}``)."""
    if not isinstance(data, dict):
        raise ConfigError(
            f"config file {path} must hold a mapping of sections, not {type(data).__name__}"
        )
    cycle = _cycle_at(data, "", {})
    if cycle is not None:
        raise ConfigError(
            f"config file {path}: {cycle or 'the file'!s} contains itself (a YAML alias such as "
            "&a ... *a inside its own anchor); write the values out"
        )
    sections = {f.name for f in dataclasses.fields(Config)}
    checked = {}
    for key, value in data.items():
        if key in sections and value is None:
            value = {}
        elif key in sections and not isinstance(value, dict):
            raise ConfigError(
                f"config file {path}: section {key!r} must be a mapping of keys to values "
                f"(e.g. {key}: {{...}}), not {type(value).__name__} {_short(value)}"
            )
        checked[key] = value
    recipe = checked.get("run", {}).get("recipe") if isinstance(checked.get("run"), dict) else None
    if recipe is not None and not isinstance(recipe, str):  # read before the config is built
        raise ConfigError(
            f"config file {path}: run.recipe must be a recipe name or module:function, not "
            f"{type(recipe).__name__} {_short(recipe)}"
        )
    return checked


def _cycle_at(value: Any, where: str, parents: dict[int, str]) -> str | None:
    """The dotted key of a list or mapping that contains itself ("" for the whole file), else
    None. ``parents``: the containers above ``value`` by id, with their keys."""
    if not isinstance(value, dict | list):
        return None
    if id(value) in parents:
        return parents[id(value)]
    parents[id(value)] = where
    items = value.items() if isinstance(value, dict) else enumerate(value)
    for key, item in items:
        found = _cycle_at(item, f"{where}.{key}" if where else str(key), parents)
        if found is not None:
            return found
    del parents[id(value)]  # a value shared by two keys (an ordinary alias) is no cycle
    return None


def _short(value: Any, limit: int = 40) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def config_yaml(config: Config) -> str:
    """The resolved config as YAML (``config.yaml`` in a run directory; `load_config` reads
    it back to an equal `Config`)."""
    return yaml.safe_dump(config.to_dict(), sort_keys=False)


def config_help(config: Config | None = None) -> str:
    """Every config key with its default and its one-line doc, for ``--help`` screens."""
    config = config or Config()
    lines = []
    for section in dataclasses.fields(config):
        sub = getattr(config, section.name)
        if not dataclasses.is_dataclass(sub):
            continue
        for f in dataclasses.fields(sub):
            default = getattr(sub, f.name)
            lines.append(
                f"  {section.name}.{f.name}={_as_written(default)}  {field_help(f)}".rstrip()
            )
    return "\n".join(lines)


def field_help(f: dataclasses.Field[Any]) -> str:
    """A config field's one-line help: its ``metadata["help"]`` (see `option`), or ""."""
    return f.metadata.get("help") or ""


def _as_written(value: Any) -> str:
    """A value as it is written in a config file or override: null, true, [0.9, 0.999]."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list | tuple):
        return f"[{', '.join(_as_written(v) for v in value)}]"
    if isinstance(value, str):
        return value if value and _parse_yaml_scalar(value) == value else json.dumps(value)
    return repr(value)


def _deep_update(target: dict[str, Any], source: Mapping[str, Any]) -> None:
    for key, value in source.items():
        if isinstance(value, Mapping) and isinstance(target.get(key), dict):
            _deep_update(target[key], value)
        else:
            target[key] = dict(value) if isinstance(value, Mapping) else value


def _parse_override(item: str) -> tuple[str, Any]:
    key, sep, raw = item.partition("=")
    if not sep or not key.strip():
        raise ConfigError(
            f"override {item!r} is not of the form section.key=value (e.g. optim.lr=3e-4)"
        )
    try:
        value = yaml.safe_load(raw) if raw.strip() else None
    except yaml.YAMLError:
        value = raw
    return key.strip(), value


def _nest(dotted: str, value: Any) -> dict[str, Any]:
    parts = dotted.split(".")
    nested: dict[str, Any] = {parts[-1]: value}
    for part in reversed(parts[:-1]):
        nested = {part: nested}
    return nested


def _check_mapping(value: Any, where: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise ConfigError(f"{where} must be a mapping of keys to values, got {value!r}")
    return value


def _merge(tree: dict, values: Mapping, cls: type, model_type: type, prefix: str) -> None:
    hints = _hints(cls, model_type)
    for key, value in values.items():
        name = f"{prefix}{key}"
        if key not in hints:
            raise ConfigError(_unknown_key_message(name, prefix, list(hints), value))
        sub = _dataclass_of(hints[key])
        if sub is not None:
            _merge(
                tree.setdefault(key, {}), _check_mapping(value, name), sub, model_type, f"{name}."
            )
        elif isinstance(value, Mapping) and isinstance(tree.get(key), dict):
            _deep_update(tree[key], value)  # train.compile.mode=..., then train.compile.dynamic=...
        else:
            tree[key] = dict(value) if isinstance(value, Mapping) else value


def _construct(
    cls: type, tree: Mapping, model_type: type, prefix: str, origins: Mapping[str, str]
) -> Any:
    hints = _hints(cls, model_type)
    kwargs = {}
    for f in dataclasses.fields(cls):
        if f.name not in tree:
            continue
        name = f"{prefix}{f.name}"
        sub = _dataclass_of(hints[f.name])
        if sub is not None:
            kwargs[f.name] = _construct(sub, tree[f.name], model_type, f"{name}.", origins)
        else:
            kwargs[f.name] = _coerce(tree[f.name], hints[f.name], name, _origin(name, origins))
    return cls(**kwargs)


def _origin(name: str, origins: Mapping[str, str]) -> str | None:
    """Where ``name``'s value came from (``--set``, a config file): its own key or a section
    set whole (``train.compile={...}``)."""
    while name:
        if name in origins:
            return origins[name]
        name = name.rpartition(".")[0]
    return None


def _hints(cls: type, model_type: type) -> dict[str, Any]:
    hints = typing.get_type_hints(cls)
    if cls is Config:
        hints["model"] = model_type
    return hints


def _dataclass_of(tp: Any) -> type | None:
    return tp if isinstance(tp, type) and dataclasses.is_dataclass(tp) else None


def _unknown_key_message(name: str, prefix: str, valid: list[str], value: Any = None) -> str:
    key = name[len(prefix) :]
    close = difflib.get_close_matches(key, valid, n=1, cutoff=0.5)
    if not close:
        return f"unknown config key {name!r}; valid keys: {', '.join(prefix + v for v in valid)}"
    suggestion = f"{prefix}{close[0]}"
    if isinstance(value, Mapping) and len(value) == 1:  # a misspelt section: name the whole key
        suggestion += f".{next(iter(value))}"
    return f"unknown config key {name!r}; did you mean {suggestion}?"


def _coerce(value: Any, tp: Any, name: str, origin: str | None = None) -> Any:
    """``value`` converted to type ``tp``, or a one-line `ConfigError` in plain words that
    names where the value came from (``origin``: ``--set``, a config file)."""
    ok, result = _convert(value, tp)
    if ok:
        return result
    where = f" (in {origin})" if origin else ""
    raise ConfigError(_mismatch(value, tp, name, where))


_NoneType = type(None)
_WHOLE_NUMBER = re.compile(r"[+-]?[0-9]+")


def _is_union(tp: Any) -> bool:
    return typing.get_origin(tp) in (Union, types.UnionType)


def _says_none(value: Any) -> bool:
    """The text None (Python's spelling), which YAML reads as a string, not as null."""
    return isinstance(value, str) and value.strip().lower() == "none"


def _convert(value: Any, tp: Any) -> tuple[bool, Any]:
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if _is_union(tp):
        if _NoneType in args:
            if value is None:
                return True, None
            if _says_none(value):  # not a directory called "None": the user meant null
                return False, None
        for arg in (a for a in args if a is not _NoneType):
            ok, result = _convert(value, arg)
            if ok:
                return True, result
        return False, None
    if origin is Literal:
        return (value in args and not isinstance(value, bool)), value
    if origin is tuple:
        if not isinstance(value, list | tuple):
            return False, None
        items = args[:1] * len(value) if len(args) == 2 and args[1] is Ellipsis else args
        if len(value) != len(items):
            return False, None
        converted = [_convert(v, a) for v, a in zip(value, items, strict=True)]
        return all(ok for ok, _ in converted), tuple(r for _, r in converted)
    if tp is Any:
        return True, value
    if tp is bool:
        return isinstance(value, bool), value
    if tp is int:
        # A quoted whole number ("3") counts, as a quoted float does: one rule for both, from
        # a file or --set (YAML already reads 1e-3 without a dot as a string).
        if isinstance(value, str) and _WHOLE_NUMBER.fullmatch(value.strip()):
            return True, int(value.strip())
        return (isinstance(value, int) and not isinstance(value, bool)), value
    if tp is float:
        if isinstance(value, int | float) and not isinstance(value, bool):
            return True, float(value)
        if isinstance(value, str):  # YAML 1.1 reads 1e-3 (no dot) as a string
            try:
                return True, float(value)
            except ValueError:
                pass
        return False, None
    if tp is str:
        return isinstance(value, str), value
    return True, value


def _mismatch(value: Any, tp: Any, name: str, where: str = "") -> str:
    """Why ``value`` does not fit ``tp``, in words a user can act on; ``where`` names where a
    quoted value came from (" (in --set)", " (in config file c.yaml)")."""
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if _is_union(tp) and _NoneType in args and _says_none(value):
        return f"{name}={value!r} is read as the text {value.strip()!r}; write null, not None"
    if isinstance(value, str):
        parsed = _parse_yaml_scalar(value)
        if not isinstance(parsed, str) and _convert(parsed, tp)[0]:
            return (
                f"{name}={value!r} is a quoted string{where}; write {value.strip()} without quotes"
            )
    if origin is Literal:
        close = difflib.get_close_matches(str(value), [str(a) for a in args], n=1, cutoff=0.4)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        return f"{name}={value!r} is not one of {', '.join(map(repr, args))}{hint}"
    if origin is tuple and isinstance(value, list | tuple):
        items = args[:1] * len(value) if len(args) == 2 and args[1] is Ellipsis else args
        if len(value) == len(items):
            for i, (v, a) in enumerate(zip(value, items, strict=True)):
                if not _convert(v, a)[0]:
                    return _mismatch(v, a, f"{name}[{i}]", where)
    message = f"{name}={value!r} must be {_describe(tp, name)}"
    choices = [str(a) for a in _literal_choices(tp)]
    if isinstance(value, str) and choices:
        close = difflib.get_close_matches(value, choices, n=1, cutoff=0.4)
        if close:
            message += f"; did you mean {close[0]!r}?"
    elif _accepts_str(tp) and isinstance(value, int | float):
        message += f"; to mean the text, quote it: '{value}'"
    return message


def _parse_yaml_scalar(text: str) -> Any:
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError:
        return text


def _literal_choices(tp: Any) -> list[Any]:
    if typing.get_origin(tp) is Literal:
        return list(typing.get_args(tp))
    if _is_union(tp):
        return [c for a in typing.get_args(tp) for c in _literal_choices(a)]
    return []


def _accepts_str(tp: Any) -> bool:
    return tp is str or (_is_union(tp) and str in typing.get_args(tp))


def _describe(tp: Any, name: str = "") -> str:
    """A type in plain words: "a whole number >= 0 or auto", "a list of 2 numbers", ..."""
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if _is_union(tp):
        options = [a for a in args if a is not _NoneType]
        text = _join_or([_describe(a, name) for a in options])
        if len(options) == len(args):
            return text
        return "true, false or null" if options == [bool] else f"{text}, or null"
    if origin is Literal:
        words = [str(a) for a in args]
        return _join_or(words) if len(words) <= 2 else f"one of {', '.join(words)}"
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return f"a list of {_plural(args[0])}"
        if len(set(args)) == 1:
            return f"a list of {len(args)} {_plural(args[0])}"
        return f"a list of {len(args)} values ({', '.join(_describe(a) for a in args)})"
    bound = f" {_BOUNDS[name]}" if name in _BOUNDS else ""
    if tp is bool:
        return "true or false"
    if tp is int:
        return f"a whole number{bound}"
    if tp is float:
        return f"a number{bound}"
    if tp is str:
        return "a string"
    if tp is Any:
        return "any value"
    return getattr(tp, "__name__", str(tp))


def _plural(tp: Any) -> str:
    plurals = {int: "whole numbers", float: "numbers", bool: "true/false values", str: "strings"}
    return plurals.get(tp) or f"values that are each {_describe(tp)}"


def _join_or(words: list[str]) -> str:
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} or {words[-1]}"
