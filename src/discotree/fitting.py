"""The fit contract, held by construction for every estimator of the package.

* A successful ``fit`` replaces *every* fitted attribute: the fit runs on a fresh
  working copy of the estimator that holds the parameters only, and what that copy
  gained is moved onto the estimator as a whole. Nothing of an earlier fit survives, so
  an attribute that only some parameter settings define (``order_``,
  ``calibration_slope_``, ...) disappears when a refit does not define it.
* A failed ``fit`` leaves no fitted attribute: the estimator is then unfitted, and
  ``predict`` raises scikit-learn's ``NotFittedError``, never a half-fitted answer.

Subclasses and helpers may call ``fit`` re-entrantly (a base class's ``fit`` from a
subclass's, or ``clone(self).fit`` for an internal cross-validation): only the
outermost call on an estimator swaps state.

A clone carries the package configuration under which it was made
(:meth:`FitContractMixin.__sklearn_clone__`), and its ``fit`` runs under it: scikit-learn
clones an estimator in the caller's thread before handing it to joblib workers (threads
or processes, which do not see the caller's thread-local configuration), so
``config_context(category_limit=...)`` around ``cross_val_score(..., n_jobs=2)`` reaches
every fit, as scikit-learn's own configuration does.

The decision rules that must not depend on rounding (ties, the classification rate)
live in :mod:`discotree.numerics`.
"""

from __future__ import annotations

import contextlib
import functools
import types
from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar

from .config import config_changes, config_context

__all__ = [
    "FitContractMixin",
    "atomic_fit",
    "available_if_explained",
    "clear_fitted_state",
]

_STATE = "_fitted_state_names"
_FITTING = "_fit_in_progress"
#: The configuration keys (changed from their defaults) a clone was made under.
_CARRIED_CONFIG = "_config_of_clone"

F = TypeVar("F", bound=Callable[..., Any])


#: Private attributes of a streaming fit (``partial_fit``), fitted state too.
_STREAM_PREFIXES = ("_stream", "_counted")


def _fitted_names(estimator: Any) -> list[str]:
    return _fitted_names_of(dict(estimator.__dict__))


def _fitted_names_of(state: dict[str, Any]) -> list[str]:
    """The fitted attributes among the names of an estimator's attribute dict."""
    names = set(state.get(_STATE, ()))
    names.update(k for k in state if k.endswith("_") and not k.startswith("__"))
    names.update(k for k in state if k.startswith(_STREAM_PREFIXES))
    return sorted(names)


def clear_fitted_state(estimator: Any) -> None:
    """Delete every attribute a previous ``fit`` set (the parameters stay)."""
    for name in _fitted_names(estimator):
        estimator.__dict__.pop(name, None)
    estimator.__dict__.pop(_STATE, None)


def atomic_fit(fit: F) -> F:
    """Decorate a ``fit`` method so that it replaces the fitted state as a whole.

    The wrapped method runs on a working copy that has the estimator's parameters and
    configuration (``set_output``, metadata requests) but no fitted attribute. On
    success the attributes the copy gained replace the old fitted ones in one
    assignment of the estimator's attribute dict (the old model stays whole and usable
    meanwhile: a predict in another thread gets the old answer or the new one); on
    failure the estimator is left unfitted and the error is re-raised unchanged.
    """

    @functools.wraps(fit)
    def wrapper(self, *args: Any, **kwargs: Any):
        if self.__dict__.get(_FITTING, False):  # re-entrant call on the working copy
            return fit(self, *args, **kwargs)
        # The estimator's attribute dict is never changed in place: the old fitted
        # state stays whole while the copy fits, then one assignment swaps in the new
        # dict, so a predict in another thread reads the old model or the new one
        # (deleting the old attributes one by one let it see a half-cleared model,
        # or fail with "dictionary changed size during iteration").
        snapshot = dict(self.__dict__)  # one C-level copy
        fitted = set(_fitted_names_of(snapshot))
        base = {k: v for k, v in snapshot.items() if k not in fitted and k != _STATE}
        work = object.__new__(type(self))
        work.__dict__.update(base)
        work.__dict__[_FITTING] = True
        carried = base.get(_CARRIED_CONFIG)
        try:
            with config_context(**carried) if carried else contextlib.nullcontext():
                fit(work, *args, **kwargs)
        except BaseException:
            self.__dict__ = dict(base)  # a failed fit leaves the estimator unfitted
            raise
        del work.__dict__[_FITTING]
        gained = {k: v for k, v in work.__dict__.items() if k not in base}
        self.__dict__ = {**base, **gained, _STATE: tuple(gained)}
        return self

    return wrapper  # type: ignore[return-value]


class FitContractMixin:
    """Mixin that applies :func:`atomic_fit` to the ``fit`` of the class and of every
    subclass that defines one, so that no estimator can forget it."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        fit = cls.__dict__.get("fit")
        if fit is not None and not getattr(fit, "_atomic_fit", False):
            wrapped = atomic_fit(fit)
            wrapped._atomic_fit = True
            cls.fit = wrapped  # type: ignore[attr-defined]

    def _set_fitted(self, attributes: Mapping[str, Any], drop: Iterable[str] = ()) -> None:
        """The one point where what a fit learnt becomes the estimator's attributes:
        ``attributes`` set (by ``setattr``, in their order), after the attributes named
        in ``drop`` are deleted (those absent are skipped). The estimators of
        :mod:`discotree.classifiers` compute a fit into locals and call this once;
        nothing else there sets a private attribute (``tests/test_fit_pipeline.py``)."""
        for name in drop:
            self.__dict__.pop(name, None)
        for name, value in attributes.items():
            setattr(self, name, value)

    def __sklearn_clone__(self) -> Any:
        """scikit-learn's clone, which also carries the configuration keys changed in
        this thread (see the module notes) to the clone's ``fit``."""
        clone = super().__sklearn_clone__()  # type: ignore[misc]
        changes = config_changes()
        if changes:
            clone.__dict__[_CARRIED_CONFIG] = changes
        return clone


class _ConditionalMethod:
    """A method that exists only when ``check(estimator)`` passes; ``check`` raises
    ``AttributeError`` with the reason otherwise, so ``hasattr`` is honest and the
    error says why (scikit-learn's ``available_if`` replaces the reason by a generic
    message)."""

    def __init__(self, method: Callable[..., Any], check: Callable[[Any], Any]) -> None:
        self.method = method
        self.check = check
        functools.update_wrapper(self, method)  # type: ignore[arg-type]

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        if obj is None:
            return self.method
        if not self.check(obj):
            raise AttributeError(
                f"This {type(obj).__name__!r} has no attribute {self.method.__name__!r}"
            )
        return types.MethodType(self.method, obj)


def available_if_explained(check: Callable[[Any], Any]) -> Callable[[F], F]:
    """Decorator: the method is available only when ``check(estimator)`` is true;
    ``check`` may raise ``AttributeError`` with the reason."""

    def decorate(method: F) -> F:
        return _ConditionalMethod(method, check)  # type: ignore[return-value]

    return decorate
