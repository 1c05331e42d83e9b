"""The checks of the estimators' parameters: functions of the estimator, which the
estimators list in order in their class data ``_checks`` (the base's ``_check_params``
runs them; ``docs/design/architecture.md``, the fit pipeline).

Examples
--------
>>> from discotree import TANClassifier
>>> check_distribution(TANClassifier(distribution="poisson"))
Traceback (most recent call last):
...
ValueError: TANClassifier: distribution must be one of ('discrete', 'gaussian'), got 'poisson'.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..learners.k_dependence import check_kdb_options
from ..learners.parameter_rules import BACKOFF_SMOOTHINGS
from ..validation import check_random_state_param

__all__ = [
    "DISTRIBUTIONS",
    "FOREST_SMOOTHINGS",
    "alpha_not_positive",
    "check_distribution",
    "check_forest_smoothing",
    "check_kdb_parameters",
    "check_parameter_table",
    "check_random_state_parameter",
    "check_rules",
]

#: Values of the ``distribution`` parameter of the estimators that have one.
DISTRIBUTIONS = ("discrete", "gaussian")


def check_parameter_table(estimator: Any) -> None:
    """Check every parameter against its constraint in the estimator's table (the
    fields of its options class, then its ``_parameter_checks``)."""
    estimator._check_table()


def check_rules(estimator: Any) -> None:
    """Raise the message of the first broken rule of the estimator's ``_rules``."""
    for rule in estimator._rules:
        rule.check(estimator)


def check_kdb_parameters(estimator: Any) -> None:
    """kDB's smoothing and selection loss, and hierarchical smoothing's positive alpha
    (:func:`~discotree.learners.k_dependence.check_kdb_options`)."""
    alpha = estimator._check_common_params()[0]
    check_kdb_options(
        type(estimator).__name__, estimator.smoothing, estimator.selection_loss, alpha
    )


def check_random_state_parameter(estimator: Any) -> None:
    """The estimator's ``random_state``: None, a seed, a RandomState or a Generator."""
    check_random_state_param(estimator.random_state, type(estimator).__name__)


def check_distribution(estimator: Any) -> None:
    """For estimators with a ``distribution`` parameter (and ``var_smoothing``)."""
    name = type(estimator).__name__
    if estimator.distribution not in DISTRIBUTIONS:
        raise ValueError(
            f"{name}: distribution must be one of {DISTRIBUTIONS}, got {estimator.distribution!r}."
        )
    smoothing = getattr(estimator, "var_smoothing", 0.0)
    if (
        isinstance(smoothing, bool)
        or not isinstance(smoothing, int | float | np.number)
        or not (np.isfinite(smoothing) and smoothing >= 0)
    ):
        raise ValueError(f"{name}: var_smoothing must be a finite number >= 0, got {smoothing!r}.")


#: The smoothings of the per-class forest estimators (naive Bayes, TAN, Chow-Liu, the
#: discriminative and EAR trees, A1DE and A2DE).
FOREST_SMOOTHINGS = ("dirichlet", "hierarchical", "hdp")


def alpha_not_positive(estimator: Any) -> bool:
    """Whether the validated ``alpha`` of ``estimator`` is a number <= 0 (a rule of the
    estimators whose weights need positive pseudo-counts; ``"auto"`` is not).

    Examples
    --------
    >>> from discotree import DiscriminativeTreeClassifier
    >>> alpha_not_positive(DiscriminativeTreeClassifier(alpha=0.0))
    True
    """
    alpha = estimator._check_common_params()[0]
    return alpha != "auto" and not alpha > 0


def check_forest_smoothing(estimator: Any) -> None:
    """Refuse a ``smoothing`` the forest estimators do not know, hierarchical and HDP
    smoothing of Gaussian models and without a positive pseudo-count for the
    marginals."""
    name = type(estimator).__name__
    smoothing = estimator.smoothing
    if smoothing not in FOREST_SMOOTHINGS:
        raise ValueError(
            f"{name}: smoothing must be one of {FOREST_SMOOTHINGS}, got {smoothing!r}."
        )
    if smoothing not in BACKOFF_SMOOTHINGS:
        return
    if getattr(estimator, "distribution", "discrete") != "discrete":
        raise ValueError(f"{name}: smoothing={smoothing!r} smooths discrete tables only.")
    alpha = estimator.alpha
    if not isinstance(alpha, str) and not alpha > 0:
        raise ValueError(
            f"{name}: smoothing={smoothing!r} needs alpha > 0 or 'auto' (it smooths the "
            f"features' marginals), got {alpha!r}."
        )
