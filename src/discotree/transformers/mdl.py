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
from ..numerics import GAIN_RTOL, ZERO_TOL

__all__ = ["mdl_cut_points", "sampled_mdl_partition"]


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
        margins, split_entropy = _mdl_margins(cumulative, lo, hi)
        # first minimum up to rounding: deterministic ties
        best = int(np.flatnonzero(split_entropy <= split_entropy.min() + GAIN_RTOL)[0])
        if not margins[best] > 0:
            continue
        t = lo + 1 + best
        cuts.append(0.5 * (distinct[t - 1] + distinct[t]))
        stack.append((lo, t))
        stack.append((t, hi))
    return np.sort(np.asarray(cuts))


def _mdl_margins(
    cumulative: NDArray[np.float64], lo: int, hi: int
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """For every cut after position ``lo .. hi - 2`` of the ordered values ``lo:hi``
    (``cumulative``: their cumulative class weights, a zero row first): the MDL margin
    ``Gain(T) - (log2(N - 1) + delta(T)) / N`` (positive: the rule accepts the cut) and
    the weighted class entropy ``E(T)`` of the split."""
    total = cumulative[hi] - cumulative[lo]
    n = total.sum()
    left = cumulative[lo + 1 : hi] - cumulative[lo]  # split after position t
    right = total - left
    n_left = left.sum(axis=1)
    ent_left, ent_right = _entropy_bits(left), _entropy_bits(right)
    split_entropy = (n_left * ent_left + (n - n_left) * ent_right) / n
    ent_all = float(_entropy_bits(total))
    k = int((total > 0).sum())
    k1 = (left > 0).sum(axis=1)
    k2 = (right > 0).sum(axis=1)
    delta = np.log2(3.0**k - 2) - (k * ent_all - k1 * ent_left - k2 * ent_right)
    if n <= 1:
        return np.full(len(left), -np.inf), split_entropy
    return (ent_all - split_entropy) - (np.log2(n - 1) + delta) / n, split_entropy


def sampled_mdl_partition(
    class_counts: NDArray[np.float64], rng: np.random.Generator
) -> NDArray[np.intp]:
    """A stochastic supervised partition of ordered positions (after the sampled MDL
    discretisation of Zhang, Petitjean & Buntine 2020, Section 4): in each interval
    a cut is drawn with probability proportional to its MDL margin (the cuts the rule
    above accepts), and both halves are partitioned again; where the rule accepts no
    cut of the whole range, one cut is drawn with probability proportional to its
    information gain, so that a column with any class information keeps two bins.

    Parameters
    ----------
    class_counts : ndarray of shape (n_positions, n_classes)
        The class weights at each ordered position (fine bins, in order); empty
        positions never separate two bins on their own.
    rng : numpy.random.Generator

    Returns
    -------
    ndarray of shape (n_positions,)
        The bin of every position (0, 1, ...: non-decreasing).

    Examples
    --------
    >>> counts = np.array([[9.0, 0], [8, 1], [1, 8], [0, 9]])
    >>> sampled_mdl_partition(counts, np.random.default_rng(0)).tolist()
    [0, 0, 1, 1]
    """
    counts = np.asarray(class_counts, dtype=np.float64)
    present = np.flatnonzero(counts.sum(axis=1) > 0)
    starts: list[int] = []  # positions (into ``present``) where a new bin starts
    if len(present) >= 2:
        cumulative = np.vstack([np.zeros(counts.shape[1]), np.cumsum(counts[present], axis=0)])
        stack = [(0, len(present), True)]
        while stack:
            lo, hi, first = stack.pop()
            if hi - lo < 2:
                continue
            margins, split_entropy = _mdl_margins(cumulative, lo, hi)
            weight = np.where(margins > 0, margins, 0.0)
            if not weight.sum() > 0:
                if not first:
                    continue
                total = cumulative[hi] - cumulative[lo]
                weight = np.maximum(float(_entropy_bits(total)) - split_entropy, 0.0)
                if not weight.sum() > ZERO_TOL:
                    continue
                starts.append(lo + 1 + int(rng.choice(len(weight), p=weight / weight.sum())))
                continue
            t = lo + 1 + int(rng.choice(len(weight), p=weight / weight.sum()))
            starts.append(t)
            stack.append((t, hi, False))
            stack.append((lo, t, False))
    # a bin starts at the position of each chosen present value
    boundaries = np.sort(present[np.asarray(starts, dtype=np.intp)])
    return np.searchsorted(boundaries, np.arange(len(counts)), side="right").astype(np.intp)
