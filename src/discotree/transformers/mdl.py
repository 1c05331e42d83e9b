"""Fayyad-Irani recursive minimal-entropy partitioning with the MDL stopping rule.

U. M. Fayyad and K. B. Irani, "Multi-interval discretization of continuous-valued
attributes for classification learning", IJCAI 1993; the discretisation of Pernkopf & Bilmes 2010,
Section 6.1.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray
from scipy.special import xlogy

from ..kernels.counts import class_configuration_counts

__all__ = ["mdl_cut_points"]


def _entropy_bits(counts: NDArray[np.float64]) -> NDArray[np.float64]:
    """Class entropy in bits of count rows (last axis = classes); 0 for empty rows."""
    total = counts.sum(axis=-1, keepdims=True)
    p = np.divide(counts, total, out=np.zeros_like(counts), where=total > 0)
    return -xlogy(p, p).sum(axis=-1) / np.log(2)


def mdl_cut_points(
    values: NDArray[np.float64],
    class_index: NDArray[np.intp],
    weights: NDArray[np.float64],
    n_classes: int,
) -> NDArray[np.float64]:
    """Cut points of one feature by recursive minimal class-entropy splits.

    A candidate cut lies half-way between two consecutive distinct values. In a subset
    S of total weight N, the cut T minimising the weighted class entropy
    ``E(T) = N1/N Ent(S1) + N2/N Ent(S2)`` is accepted when

    ``Gain(T) > log2(N - 1) / N + (log2(3**k - 2) - k Ent(S) + k1 Ent(S1) + k2 Ent(S2)) / N``

    (k, k1, k2 the numbers of classes present), and both halves are split again.

    Parameters
    ----------
    values : ndarray of shape (n,)
        Observed (non-NaN) values.
    class_index : ndarray of shape (n,)
    weights : ndarray of shape (n,)
        Sample weights, used as counts (integer weights equal repetition).
    n_classes : int

    Returns
    -------
    ndarray
        Sorted cut points (possibly empty).

    Notes
    -----
    O(n log n) for the sort, then O(m * n_classes) per recursion level for m distinct
    values, with cumulative class counts.
    """
    keep = weights > 0
    values, class_index, weights = values[keep], class_index[keep], weights[keep]
    if len(values) == 0:
        return np.empty(0)
    distinct, per_value, _ = class_configuration_counts(values, class_index, weights, n_classes)
    cumulative = np.vstack([np.zeros(n_classes), np.cumsum(per_value, axis=0)])
    cuts: list[float] = []
    stack = [(0, len(distinct))]
    while stack:
        lo, hi = stack.pop()
        if hi - lo < 2:
            continue
        total = cumulative[hi] - cumulative[lo]
        n = total.sum()
        left = cumulative[lo + 1 : hi] - cumulative[lo]  # split after distinct value t
        right = total - left
        n_left = left.sum(axis=1)
        n_right = n - n_left
        ent_left, ent_right = _entropy_bits(left), _entropy_bits(right)
        split_entropy = (n_left * ent_left + n_right * ent_right) / n
        # first minimum up to rounding: deterministic ties
        best = int(np.flatnonzero(split_entropy <= split_entropy.min() + 1e-12)[0])
        ent_all = float(_entropy_bits(total))
        gain = ent_all - split_entropy[best]
        k = int((total > 0).sum())
        k1 = int((left[best] > 0).sum())
        k2 = int((right[best] > 0).sum())
        delta = np.log2(3.0**k - 2) - (k * ent_all - k1 * ent_left[best] - k2 * ent_right[best])
        if n <= 1 or gain <= (np.log2(n - 1) + delta) / n:
            continue
        t = lo + 1 + best
        cuts.append(0.5 * (distinct[t - 1] + distinct[t]))
        stack.append((lo, t))
        stack.append((t, hi))
    return np.sort(np.asarray(cuts))
