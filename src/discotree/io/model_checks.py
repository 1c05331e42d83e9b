"""Checks of a JSON model file before and after decoding: size, nesting depth, the
fields of every object, and the consistency of the fitted arrays."""

from __future__ import annotations

import dataclasses
import functools
import types
import typing
from collections.abc import Iterator
from typing import Any

import numpy as np

from ..classifiers.file_checks import EstimatorFileChecks
from ..kernels.text_scan import json_nesting_depth
from ..stored_checks import CheckedState

__all__ = [
    "MAX_DEPTH",
    "check_consistency",
    "check_fields",
    "derived_names",
    "nesting_depth",
    "walk_objects",
]

#: Deepest nesting of JSON arrays and objects a model file may have (the deepest
#: estimator written by discotree, a boosted ensemble, is nested about 20 deep).
MAX_DEPTH = 200


def nesting_depth(text: str) -> int:
    """The deepest nesting of ``[`` and ``{`` outside JSON strings (one linear pass).

    Examples
    --------
    >>> nesting_depth('{"a": [1, {"b": "[[["}]}')
    3
    """
    return json_nesting_depth(text.encode("utf-8", "surrogatepass"))


def _matches(value: Any, hint: Any) -> bool:
    """Whether ``value`` has the type ``hint`` names (containers: the container only)."""
    if hint is Any or isinstance(hint, typing.TypeVar):
        return True
    origin = typing.get_origin(hint)
    if origin is typing.Union or origin is types.UnionType:
        return any(_matches(value, h) for h in typing.get_args(hint))
    if origin is typing.Literal:
        return value in typing.get_args(hint)
    if origin is not None:
        hint = origin
    if hint is type(None):
        return value is None
    if hint is float:
        return isinstance(value, int | float) and not isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if not isinstance(hint, type):
        return True  # a callable, a protocol: not checked
    if hint is frozenset:  # stored as a set
        return isinstance(value, set | frozenset)
    return isinstance(value, hint)


@functools.cache
def _field_hints(cls: type) -> dict[str, Any] | None:
    """The declared fields of a dataclass and their types (None: not a dataclass)."""
    if not dataclasses.is_dataclass(cls):
        return None
    try:
        hints = typing.get_type_hints(cls)
    except Exception:  # a forward reference that does not resolve: names only
        hints = {}
    return {f.name: hints.get(f.name, Any) for f in dataclasses.fields(cls)}


def derived_names(cls: type) -> frozenset[str]:
    """Attributes a class computes and caches in its instance dictionary
    (``functools.cached_property``): never stored in a model file, and dropped from one
    that holds them (an earlier version wrote them), so that what a loaded model computes
    with is recomputed from the fields its checks read."""
    return _cached_properties(cls)


@functools.cache  # (typed Any: mypy takes a class for no Hashable in a cached call)
def _cached_properties(cls: Any) -> frozenset[str]:
    return frozenset(
        name
        for klass in cls.__mro__
        for name, member in vars(klass).items()
        if isinstance(member, functools.cached_property)
    )


def check_fields(cls: type, state: dict[str, Any], where: str) -> None:
    """Refuse a stored object whose fields are not those of ``cls``: a dataclass needs
    every field, each of its declared type, and no other public name (cached values
    and private caches aside); an
    estimator needs every constructor parameter. The error names the field."""
    hints = _field_hints(cls)
    if hints is not None:
        for name, hint in hints.items():
            if name not in state:
                raise ValueError(f"{where}: the field {name!r} of {cls.__name__} is missing")
            if not _matches(state[name], hint):
                raise ValueError(
                    f"{where}.{name}: expected {hint}, found {type(state[name]).__name__}"
                )
        # private names are caches a method filled (recomputed if absent)
        extra = {n for n in set(state) - set(hints) - derived_names(cls) if n[0] != "_"}
        if extra:
            raise ValueError(f"{where}: {cls.__name__} has no field {sorted(extra)[0]!r}")
        return
    get_params = getattr(cls, "_get_param_names", None)
    if get_params is not None:
        for name in get_params():
            if name not in state:
                raise ValueError(f"{where}: the parameter {name!r} of {cls.__name__} is missing")


def walk_objects(content: Any, where: str = "content") -> Iterator[tuple[str, Any]]:
    """Every object of ``content`` (anything with attributes, ``content`` itself
    included) once, with its path (``content.model_.tables[3][1]``), parents before
    what they hold.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> [path for path, _ in walk_objects({"a": [SimpleNamespace(b=SimpleNamespace())]})]
    ['content.a[0]', 'content.a[0].b']
    """
    seen: set[int] = set()
    stack: list[tuple[Any, str]] = [(content, where)]
    while stack:
        value, path = stack.pop()
        if id(value) in seen:
            continue
        seen.add(id(value))
        if isinstance(value, dict):
            items = [(v, f"{path}.{k}" if isinstance(k, str) else f"{path}[{k!r}]")
                     for k, v in value.items()]  # fmt: skip
        elif isinstance(value, list | tuple):
            items = [(v, f"{path}[{k}]") for k, v in enumerate(value)]
        elif isinstance(value, np.ndarray) and value.dtype.kind == "O":
            items = [(v, f"{path}[{k}]") for k, v in enumerate(value.ravel())]
        elif not hasattr(value, "__dict__") or isinstance(value, type):
            continue
        else:
            yield path, value
            items = [(v, f"{path}.{name}") for name, v in vars(value).items()]
        stack.extend(reversed(items))


def check_consistency(content: Any, where: str = "content") -> None:
    """Refuse fitted arrays that do not agree: every object in ``content`` by its own
    ``check_structure`` (:class:`discotree.stored_checks.CheckedState`; an
    estimator's ``check_state_structure`` of its attributes): each
    classifier's ``classes_`` against its model's classes and its encoder's categories
    against the codes its model reads, each encoder's codes against its categories,
    every model's tables against its categories and parents."""
    for path, value in walk_objects(content, where):
        if isinstance(value, CheckedState):
            value.check_structure(path)
        elif isinstance(value, EstimatorFileChecks):
            value.check_state_structure(vars(value), path)
