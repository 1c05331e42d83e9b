"""Dirichlet smoothing of count tables: the pseudo-count (per cell, or BDeu's equivalent
sample size, Heckerman et al. 1995) and the zero-probability floor, turned into
conditional probability tables."""

from __future__ import annotations

import numbers
import warnings
from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = ["PRIORS", "cell_pseudo_count", "check_smoothing", "smoothed_conditional"]

#: Smallest Dirichlet pseudo-count accepted when no probability floor is set.
_ALPHA_FLOOR = 1e-10


def check_smoothing(alpha: Any, epsilon: float, owner: str) -> tuple[Any, float]:
    """Validate the Dirichlet pseudo-count and probability floor; return them as floats
    (``alpha="auto"`` is returned as it is, for estimators that choose it by CV).

    ``alpha`` below 1e-10 together with ``epsilon == 0`` would let a zero probability
    reach a logarithm: alpha is then raised to 1e-10 with a warning, as scikit-learn's
    naive Bayes does.
    """
    if isinstance(alpha, str) and alpha == "auto":
        _, epsilon = check_smoothing(1.0, epsilon, owner)
        return "auto", epsilon
    for name, value in (("alpha", alpha), ("epsilon", epsilon)):
        if (
            isinstance(value, bool)
            or not isinstance(value, numbers.Real)
            or not np.isfinite(float(value))
        ):
            raise ValueError(f"{owner}: {name} must be a finite number, got {value!r}")
        if value < 0:
            raise ValueError(f"{owner}: {name} must be >= 0, got {value!r}")
    if epsilon >= 1:
        raise ValueError(f"{owner}: epsilon must be < 1, got {epsilon!r}")
    if alpha < _ALPHA_FLOOR and epsilon == 0:
        warnings.warn(
            f"{owner}: alpha={alpha} with epsilon=0 could give zero probabilities; "
            f"alpha set to {_ALPHA_FLOOR}. Set epsilon > 0 for the plain ML estimate.",
            UserWarning,
            stacklevel=3,
        )
        alpha = _ALPHA_FLOOR
    return float(alpha), float(epsilon)


#: Priors of the conditional probability tables.
PRIORS = ("dirichlet", "bdeu")


def cell_pseudo_count(alpha: float, prior: str, n_classes: int, shape: tuple[int, ...]) -> float:
    """The pseudo-count per cell of a class-conditional table of ``shape``
    (r_parent, r_j): ``alpha`` itself for a Dirichlet prior, or for BDeu the
    equivalent sample size ``alpha`` spread over the family's cells,
    ``alpha / (n_classes * r_parent * r_j)``.

    Examples
    --------
    >>> cell_pseudo_count(12.0, "bdeu", 2, (3, 2))
    1.0
    """
    if prior == "dirichlet":
        return alpha
    if prior == "bdeu":
        return alpha / (n_classes * int(np.prod(shape)))
    raise ValueError(f"prior must be one of {PRIORS}, got {prior!r}")


def smoothed_conditional(
    counts: NDArray[np.float64], alpha: float, epsilon: float
) -> NDArray[np.float64]:
    """Smoothed conditional probabilities along the last axis.

    ``P(v | u) = (n(u, v) + alpha) / (n(u) + r * alpha)``; then, as in Pernkopf & Bilmes
    2010, Section 6.1, probabilities that are still zero are replaced by ``epsilon`` and
    each distribution is renormalised. A context never observed gets
    the uniform distribution.

    Parameters
    ----------
    counts : ndarray of shape (..., r)
    alpha : float
        Dirichlet pseudo-count per cell.
    epsilon : float
        Floor for zero probabilities.

    Returns
    -------
    prob : ndarray of shape (..., r)
        Rows sum to 1.
    """
    counts = np.asarray(counts, dtype=np.float64) + alpha
    totals = counts.sum(axis=-1, keepdims=True)
    r = counts.shape[-1]
    prob = np.divide(counts, totals, out=np.full_like(counts, 1.0 / r), where=totals > 0)
    if epsilon > 0:
        prob = np.where(prob <= 0, epsilon, prob)
        prob /= prob.sum(axis=-1, keepdims=True)
    return prob
