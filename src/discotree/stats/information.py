"""Information measures of count and probability tables: entropy, (conditional) mutual
information, Kullback-Leibler and J divergences (Cover & Thomas 2006, Chapter 2; the J
divergence of Tan et al. 2010, eq. 14)."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray
from scipy.special import xlogy

__all__ = [
    "clip_information",
    "conditional_mutual_information",
    "entropy",
    "j_divergence",
    "kl_divergence",
    "mutual_information",
]


def clip_information(values: NDArray[np.float64], what: str) -> NDArray[np.float64]:
    """Clip rounding noise in [-1e-12, 0) to 0; a more negative value is a bug."""
    if np.any(values < -1e-10):
        raise RuntimeError(f"negative {what} {values.min():.3g}: counts are inconsistent")
    return np.maximum(values, 0.0)


def entropy(prob: NDArray[np.float64], axis: int | tuple[int, ...] = -1) -> NDArray[np.float64]:
    """Shannon entropy in nats, ``-sum p log p`` over ``axis`` (0 log 0 = 0)."""
    return -xlogy(prob, prob).sum(axis=axis)


def mutual_information(table: NDArray[np.float64]) -> float:
    """Mutual information (nats) of a 2-D count or probability table; 0 if empty."""
    table = np.asarray(table, dtype=np.float64)
    n = table.sum()
    if n <= 0:
        return 0.0
    joint = table / n
    value = entropy(joint.sum(axis=1)) + entropy(joint.sum(axis=0)) - entropy(joint, (0, 1))
    return float(clip_information(np.asarray(value), "mutual information"))


def conditional_mutual_information(table: NDArray[np.float64]) -> float:
    """I(X; Y | C) in nats of a count table of shape (n_classes, r_x, r_y)."""
    table = np.asarray(table, dtype=np.float64)
    n = table.sum()
    if n <= 0:
        return 0.0
    return float(sum(t.sum() / n * mutual_information(t) for t in table))


def kl_divergence(p: NDArray[np.float64], q: NDArray[np.float64]) -> float:
    """Kullback-Leibler divergence D(p || q) in nats of two distributions of equal shape.

    Returns ``inf`` when p puts mass where q has none.
    """
    p = np.asarray(p, dtype=np.float64)
    q = np.asarray(q, dtype=np.float64)
    if p.shape != q.shape:
        raise ValueError(f"p and q must have the same shape, got {p.shape} and {q.shape}")
    if np.any((p > 0) & (q <= 0)):
        return float("inf")
    return float(max(0.0, (xlogy(p, p) - xlogy(p, np.where(p > 0, q, 1.0))).sum()))


def j_divergence(p: NDArray[np.float64], q: NDArray[np.float64]) -> float:
    """J-divergence ``D(p || q) + D(q || p)`` (Tan et al. 2010, eq. 11)."""
    return kl_divergence(p, q) + kl_divergence(q, p)
