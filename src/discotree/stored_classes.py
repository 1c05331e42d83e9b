"""The registry of the classes a model file may name.

A class whose instances are stored in model files (estimators, encoders, models,
structures, statistics) registers itself with the :func:`stored` decorator where it is
defined; the JSON reader (:mod:`discotree.io.json_model`) builds objects of these
classes only, and names each by its module and qualified name. Adding a model class is
one decorator, not an entry in a list elsewhere; the names that files written by
earlier versions hold are in :mod:`discotree.models.migrations`.

Examples
--------
>>> @stored
... class Example:
...     pass
>>> stored_classes()[f"{__name__}.Example"] is Example
True
>>> forget(Example)
"""

from __future__ import annotations

from typing import TypeVar

__all__ = ["forget", "stored", "stored_classes"]

T = TypeVar("T", bound=type)

_CLASSES: dict[str, type] = {}


def stored(cls: T) -> T:
    """Class decorator: instances of ``cls`` may be stored in (and loaded from) model
    files."""
    _CLASSES[f"{cls.__module__}.{cls.__qualname__}"] = cls
    return cls


def forget(cls: type) -> None:
    """Take ``cls`` off the registry (tests and examples)."""
    _CLASSES.pop(f"{cls.__module__}.{cls.__qualname__}", None)


def stored_classes() -> dict[str, type]:
    """Every registered class by its name (``module.QualifiedName``): those of the
    modules imported so far (the reader imports the estimators first, and with them
    every class they hold)."""
    return dict(_CLASSES)
