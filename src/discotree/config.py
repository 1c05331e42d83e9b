"""Package-wide limits that protect a fit from costs the user did not ask for.

Like scikit-learn's ``set_config`` / ``config_context``: the limits apply to every
estimator, and a user who means it raises them::

    import discotree
    with discotree.config_context(category_limit=50_000, memory_limit=16 * 2**30):
        model.fit(X, y)

Keys
----
category_limit : int, default=1000
    Most categories a non-numeric column may have; a column with more (an identifier,
    a date as text) raises a ``ValueError`` naming it, because its pair tables cost
    memory and time quadratic in the number of categories. A column with more than 100
    categories that are more than half its rows gets a warning below the limit.
memory_limit : int, default=4 GiB
    Largest estimated peak memory in bytes of a fit's statistics (the pairwise count
    tables and what naive Bayes, Chow-Liu, TAN-CMI and discriminative trees learn from
    them, ``fit_memory_estimate_``; the forest density feature map; a BIF table); a fit
    whose estimate is larger raises a ``ValueError`` with the estimate before allocating
    anything. ``benchmarks/results/memory.md`` compares the estimates with measured
    peaks.
ear_feature_limit : int, default=40
    Most features an EAR tree is learnt on (its cost grows like n**5 in the number of
    features n; 30 features take seconds to minutes). Above 20 features a warning
    states the cost.
pairwise_class_limit : int, default=50
    Above this many classes, pairwise multiclass (n(n-1)/2 binary problems) warns and
    suggests ``multiclass="ovr"``.
model_file_limit : int, default=1 GiB
    Largest model file (JSON or signed pickle) that is read, in bytes, checked against
    the file's size before reading it.
importance_rows : int, default=200
    Training rows (a seeded sample) that ``fit`` keeps for ``feature_importances_``
    (:mod:`discotree.importance`); they are part of the fitted state and of model
    files. 0 keeps none (then ``feature_importances_`` is not available).
verbose : bool, default=False
    Log the progress of long fits (boosting rounds, EAR splits, structure searches) to
    standard error; the same messages always go to the ``discotree`` logger.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import warnings
from collections.abc import Iterator
from typing import Any

__all__ = ["config_context", "format_bytes", "get_config", "set_config"]

_DEFAULTS: dict[str, Any] = {
    "category_limit": 1000,
    "memory_limit": 4 * 2**30,
    "ear_feature_limit": 40,
    "pairwise_class_limit": 50,
    "model_file_limit": 2**30,
    "importance_rows": 200,
    "verbose": False,
}
_local = threading.local()
_handler: logging.Handler | None = None


def _config() -> dict[str, Any]:
    if not hasattr(_local, "config"):
        _local.config = dict(_DEFAULTS)
    return _local.config


def get_config() -> dict[str, Any]:
    """A copy of the current configuration (see the module for the keys)."""
    return dict(_config())


def config_changes() -> dict[str, Any]:
    """The keys whose value in this thread differs from the default."""
    return {k: v for k, v in _config().items() if v != _DEFAULTS[k]}


def set_config(**changes: Any) -> None:
    """Change configuration keys for the current thread (see the module for the keys).

    Raises
    ------
    ValueError
        For an unknown key or a value of the wrong kind.
    """
    config = _config()
    for key, value in changes.items():
        if key not in _DEFAULTS:
            raise ValueError(f"unknown configuration key {key!r}; known: {sorted(_DEFAULTS)}")
        if key == "verbose":
            if not isinstance(value, bool):
                raise ValueError(f"verbose must be True or False, got {value!r}")
        elif key == "importance_rows":
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"importance_rows must be an integer >= 0, got {value!r}")
        elif isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"{key} must be a positive integer, got {value!r}")
        config[key] = value
    _set_verbose(config["verbose"])


@contextlib.contextmanager
def config_context(**changes: Any) -> Iterator[None]:
    """Change configuration keys within a ``with`` block only."""
    old = get_config()
    set_config(**changes)
    try:
        yield
    finally:
        set_config(**old)


def _set_verbose(on: bool) -> None:
    global _handler
    logger = logging.getLogger("discotree")
    if on and _handler is None:
        _handler = logging.StreamHandler()
        _handler.setFormatter(logging.Formatter("discotree: %(message)s"))
        logger.addHandler(_handler)
        logger.setLevel(logging.INFO)
    elif not on and _handler is not None:
        logger.removeHandler(_handler)
        logger.setLevel(logging.NOTSET)
        _handler = None


def format_bytes(n: float) -> str:
    """``1.5 GiB``-style size.

    Examples
    --------
    >>> format_bytes(3 * 2**30)
    '3.0 GiB'
    """
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if n < 1024 or unit == "TiB":
            return f"{n:.1f} {unit}" if unit != "B" else f"{int(n)} B"
        n /= 1024
    raise AssertionError("unreachable")  # pragma: no cover


def check_memory(estimate: float, what: str, owner: str) -> None:
    """Raise before allocating when ``estimate`` bytes exceed ``memory_limit``."""
    limit = _config()["memory_limit"]
    if estimate > limit:
        raise ValueError(
            f"{owner}: {what} would need about {format_bytes(estimate)}, more than the "
            f"memory limit of {format_bytes(limit)}; reduce the data (fewer features or "
            "categories, a sample of the rows) or raise the limit with "
            "discotree.set_config(memory_limit=...)."
        )


def check_file_size(path: Any) -> None:
    """Raise before reading a model file larger than ``model_file_limit``."""
    import os

    limit = _config()["model_file_limit"]
    size = os.stat(path).st_size
    if size > limit:
        raise ValueError(
            f"{path} holds {format_bytes(size)}, more than the model file limit of "
            f"{format_bytes(limit)}; it is not read. Raise the limit with "
            "discotree.set_config(model_file_limit=...) if the file is yours."
        )


def warn_many_pairs(n_classes: int, owner: str) -> None:
    """Warn when pairwise multiclass means more than ``pairwise_class_limit`` classes."""
    limit = _config()["pairwise_class_limit"]
    if n_classes > limit:
        warnings.warn(
            f"{owner}: {n_classes} classes make {n_classes * (n_classes - 1) // 2} pairwise "
            "problems (cost quadratic in the classes); multiclass='ovr' needs "
            f"{n_classes}.",
            UserWarning,
            stacklevel=5,
        )
