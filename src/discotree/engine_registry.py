"""Engines for data that is not in memory, found by the estimators without importing
them.

An engine (Dask today, ``discotree[dask]``) says which inputs it accepts and names its
functions by role (``"fit"``, ``"predict"``, ``"fit_boosted"``) as ``"module:function"``
strings; an estimator asks :func:`engine_function` for the function of a role that
accepts its input, and the engine's module is imported then, only when such input
arrives. So the estimators (a lower layer) never import the engines (a higher one), and
an engine whose extra is not installed costs nothing until it is needed. The package's
``__init__`` registers the engines it ships (Dask, at the end of this module).

Examples
--------
>>> register_engine("lists", lambda X: isinstance(X, list), fit="builtins:len")
>>> engine_function([1, 2, 3], "fit")([1, 2, 3])
3
>>> engine_function((1, 2), "fit") is None
True
>>> unregister_engine("lists")
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "Engine",
    "engine_function",
    "is_dask_collection",
    "register_engine",
    "unregister_engine",
]


@dataclass(frozen=True)
class Engine:
    """An engine: its name, the inputs it accepts, and its functions by role."""

    name: str
    accepts: Callable[[Any], bool]
    functions: dict[str, str] = field(default_factory=dict)


_ENGINES: dict[str, Engine] = {}


def is_dask_collection(obj: Any) -> bool:
    """A dask DataFrame, Series or Array (duck-typed: the core never imports dask)."""
    return hasattr(type(obj), "__dask_graph__")


def register_engine(name: str, accepts: Callable[[Any], bool], **functions: str) -> None:
    """Register (or replace) the engine ``name`` for the inputs ``accepts(X)`` is true
    of, with its ``role="module:function"`` entries."""
    for role, target in functions.items():
        if ":" not in target:
            raise ValueError(f"engine {name!r}: {role}={target!r} must be 'module:function'")
    _ENGINES[name] = Engine(name, accepts, dict(functions))


def unregister_engine(name: str) -> None:
    """Forget the engine ``name`` (no error if it is not registered)."""
    _ENGINES.pop(name, None)


def engine_function(X: Any, role: str) -> Callable[..., Any] | None:
    """The function of ``role`` of the first engine that accepts ``X``, its module
    imported now; ``None`` when no engine takes ``X`` (it is then in memory).

    Raises
    ------
    ImportError
        If the engine's module cannot be imported (its extra is not installed), with
        the name of the extra to install.
    """
    for engine in _ENGINES.values():
        if role in engine.functions and engine.accepts(X):
            module, _, name = engine.functions[role].partition(":")
            try:
                return getattr(importlib.import_module(module), name)
            except ImportError as err:
                raise ImportError(
                    f"this input needs the {engine.name} engine, whose packages are missing "
                    f"({err}); install them with: pip install 'discotree[{engine.name}]'"
                ) from err
    return None


# The engines shipped with the package, imported only when their input arrives.
register_engine(
    "dask",
    is_dask_collection,
    fit="discotree.engines.dask_engine:fit_dask",
    predict="discotree.engines.dask_engine:predict_dask",
    fit_boosted="discotree.engines.dask_boosting:fit_boosted_dask",
    fit_ensemble="discotree.engines.ensemble_dask:fit_ensemble_dask",
)
