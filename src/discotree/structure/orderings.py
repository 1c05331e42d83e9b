"""Orderings of the attributes for the order-based structure search of Pernkopf &
Bilmes 2010, Section 5.1 (Algorithm 1, step 1).

- :func:`omi_order` (OMI): the pair most informative about the class first, then the
  attribute with the largest conditional information I(C; X | earlier attributes);
  :func:`mmi_order` the same with the smallest (the minimum-MI baseline of 6.3).
- :func:`omisp_order`: OMI started from the attribute most informative alone.
- :func:`ocr_order`: the attribute that most raises the training classification rate
  of the saturated model P(C, X, earlier attributes).

Informations come from sparse histograms of the configurations present in the data.
Missing values follow the package's one rule, available-case analysis: each information
counts the rows where its variables are observed, as the parameters and the pair
informations do. ``I(C; X_v | B)`` is computed on the rows where X_v and every attribute
of B are observed (all four entropies of ``H(C,B) - H(B) + H(X_v,B) - H(C,X_v,B)`` on
those rows), ``I(C; X_i, X_j)`` on the rows where both are, and OCR's classification
rate on the rows where the attributes it uses are. Without missing values this is the
same computation on every row (the faster code path used then).
:data:`ORDERINGS` maps the names used in ``TANClassifier(structure="omi-cr")`` and its
kin to these functions.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy.special import xlogy

from .. import missing_values
from ..kernels.counts import (
    class_configuration_counts,
    configuration_masses,
    present_configurations,
)
from ..numerics import GAIN_RTOL, classification_rate

__all__ = ["ORDERINGS", "mmi_order", "ocr_order", "omi_order", "omisp_order"]


def _entropy_of(ids: NDArray[np.intp], weights: NDArray[np.float64]) -> float:
    mass = configuration_masses(ids, weights)  # dense for a small id range, else sparse
    p = mass[mass > 0] / mass.sum()
    return float(-(p * np.log(p)).sum())


def _combine(ids: NDArray[np.intp], column: NDArray[np.integer], size: int) -> NDArray[np.intp]:
    """Configuration ids of (ids, column), re-compressed so they stay small."""
    joint = ids * (size + 1) + (column.astype(np.intp) + 1)  # missing (-1) is a value
    if int(joint.max()) < 4 * len(joint):
        return joint
    return np.unique(joint, return_inverse=True)[1].astype(np.intp)


def _first_best(values: NDArray[np.float64], tol: float = GAIN_RTOL) -> int:
    """Index of the first value within ``tol`` of the largest: ties (up to rounding,
    which differs between equivalent ways of computing an information) go to the
    earliest candidate."""
    return int(np.flatnonzero(values >= values.max() - tol)[0])


def _compress(ids: NDArray[np.intp]) -> NDArray[np.intp]:
    """Configuration ids renumbered 0..(number present - 1)."""
    return np.unique(ids, return_inverse=True)[1].reshape(-1).astype(np.intp)


def _block_sum_mlogm(
    cells: NDArray[np.int64], mass: NDArray[np.float64], block: int, n_blocks: int
) -> NDArray[np.float64]:
    """``sum m log m`` of the cells of each of ``n_blocks`` blocks of ``block``
    consecutive cell numbers (``cells`` lists the cells and ``mass`` their masses)."""
    return np.bincount(cells // block, xlogy(mass, mass), n_blocks).astype(np.float64, copy=False)


def _entropy_gains(ids, codes, candidates, n_categories, class_index, *, weights, n_classes):
    """``H(X_v, B) - H(C, X_v, B)`` for every attribute v in ``candidates``, where B is
    the configuration of the chosen attributes (``ids``, numbered densely).

    I(C; X_v | B) = H(C, B) - H(B) + H(X_v, B) - H(C, X_v, B), the first two terms the
    same for every v. Candidates are counted together, one pass over the keys
    (v, b, x_v, c) (missing a value of its own): a dense ``bincount`` when the tables are
    small, else sparse histograms of the configurations present only (Section 5.1).
    """
    n_ids = int(ids.max()) + 1
    width = int(max(n_categories[v] for v in candidates)) + 1  # + 1: missing is a value
    per_candidate = n_ids * width * n_classes
    dense = per_candidate <= 4 * len(ids)
    total = float(weights.sum())
    gains = np.empty(len(candidates))
    batch = max(1, (1 << 22) // (per_candidate if dense else len(ids)))
    base = (ids.astype(np.int64) * width)[:, None]
    for start in range(0, len(candidates), batch):
        block = list(candidates[start : start + batch])
        keys = (base + codes[:, block] + 1) * n_classes + class_index[:, None]
        keys += np.arange(len(block), dtype=np.int64) * per_candidate
        repeated = np.repeat(weights, len(block))
        if dense:
            mass = configuration_masses(keys.reshape(-1), repeated, len(block) * per_candidate)
            cells = np.flatnonzero(mass)
            mass = mass[cells]
        else:
            cells, mass = present_configurations(keys.reshape(-1), repeated)
        # the (v, b, x_v) cells: cell // n_classes, sorted, so equal ones are adjacent
        xb = cells // n_classes
        first = np.flatnonzero(np.concatenate([[True], xb[1:] != xb[:-1]]))
        xb_mass = np.add.reduceat(mass, first) if len(mass) else mass
        # H = log W - sum m log m / W for masses m of total W
        gains[start : start + len(block)] = (
            _block_sum_mlogm(cells, mass, per_candidate, len(block))
            - _block_sum_mlogm(xb[first], xb_mass, n_ids * width, len(block))
        ) / total
    return gains


def _sum_mlogm(keys: NDArray[np.intp], weights: NDArray[np.float64]) -> float:
    """``sum m log m`` over the masses of the distinct ``keys``."""
    mass = present_configurations(keys, weights)[1]
    return float(xlogy(mass, mass).sum())


def _available_case_terms(ids, column, class_index, weights, n_classes) -> tuple[float, float]:
    """``(I(C; X | B), I(C; B))`` on the rows where ``column`` (X) is observed, every
    row given being one where B (configuration ``ids``) is observed: the two terms of
    ``I(C; X, B)`` from one set of rows (available-case analysis)."""
    seen = missing_values.observed(column)
    w = weights[seen]
    total = float(w.sum())
    if total <= 0:
        return 0.0, 0.0
    b = _compress(ids[seen])
    c = class_index[seen].astype(np.intp)
    xb = _compress(b * (int(column.max()) + 1) + column[seen].astype(np.intp))
    s_cxb = _sum_mlogm(xb * n_classes + c, w)
    s_xb = _sum_mlogm(xb, w)
    s_cb = _sum_mlogm(b * n_classes + c, w)
    s_b = _sum_mlogm(b, w)
    s_c = _sum_mlogm(c, w)
    conditional = (s_cxb - s_xb - s_cb + s_b) / total
    return conditional, float(np.log(total) - (s_c + s_b - s_cb) / total)


def _available_conditionals(ids, codes, candidates, class_index, weights, *, n_classes):
    """``I(C; X_v | B)`` of every candidate v, each on the rows where X_v is observed
    (every row given has B observed)."""
    return np.array(
        [
            _available_case_terms(ids, codes[:, v], class_index, weights, n_classes)[0]
            for v in candidates
        ]
    )


def _pair_informations(pair_stats) -> NDArray[np.float64]:
    """``I(C; X_i, X_j)`` of every pair from the (C, r_i, r_j) pair tables (complete
    data: every table has the same total), shape (n, n)."""
    counts = pair_stats.counts
    offsets = pair_stats.offsets
    first = counts[:, offsets[0] : offsets[1], offsets[0] : offsets[1]]
    class_mass = first.sum(axis=(1, 2))
    total = float(class_mass.sum())
    pair_mass = counts.sum(axis=0)  # (D, D)
    # sum_{c, a, b} n log(n W / (n_c n_ab)) / W per block of (a, b) cells
    with np.errstate(divide="ignore", invalid="ignore"):
        log_ratio = np.log(counts * total) - np.log(class_mass)[:, None, None] - np.log(pair_mass)
        terms = np.where(counts > 0, counts * log_ratio, 0.0).sum(axis=0)
    starts = offsets[:-1]
    blocks = np.add.reduceat(np.add.reduceat(terms, starts, axis=0), starts, axis=1)
    return blocks / total


def omi_order(
    codes, class_index, weights, n_classes, n_categories, pair_stats=None, minimize=False
) -> list[int]:
    """OMI: the pair most informative about C first (the one with larger I(C; X) in
    front), then repeatedly the attribute maximising I(C; X | all earlier attributes)
    (Section 5.1, heuristic 1; Algorithm 1). With complete data and ``pair_stats`` the
    first pair is read from the pair tables (the same values as the histograms).

    ``minimize=True`` is the minimum-MI ordering of Section 6.3 (argmin in place of
    argmax at every step: the least informative pair first, the one with smaller
    I(C; X) in front, then the attribute minimising I(C; X | earlier)), the baseline
    of Figs. 7-8."""
    sign = -1.0 if minimize else 1.0
    n = codes.shape[1]
    if missing_values.has_missing(codes):
        return _omi_available_case(codes, class_index, weights, n_classes, sign)
    zero = np.zeros(len(codes), dtype=np.intp)
    single = _class_informations(codes, class_index, weights, n_classes, n_categories)
    if n == 1:
        return [0]
    if pair_stats is not None:
        pair_values = _pair_informations(pair_stats)
    else:
        pair_values = np.empty((n, n))
        for i in range(n - 1):
            ids = _compress(_combine(zero, codes[:, i], n_categories[i]))
            rest = list(range(i + 1, n))
            # I(C; X_i, X_j) = I(C; X_i) + I(C; X_j | X_i)
            conditional = _class_entropy_given(ids, class_index, weights, n_classes) + (
                _entropy_gains(
                    ids,
                    codes,
                    rest,
                    n_categories,
                    class_index,
                    weights=weights,
                    n_classes=n_classes,
                )
            )
            pair_values[i, i + 1 :] = single[i] + conditional
    order = _first_pair(pair_values, single, sign)
    i, j = order
    ids = _combine(zero, codes[:, i], n_categories[i])
    ids = _combine(ids, codes[:, j], n_categories[j])
    return _extend_by(
        order,
        ids,
        codes,
        class_index,
        weights,
        n_classes=n_classes,
        n_categories=n_categories,
        sign=sign,
    )


def _first_pair(pair_values, single, sign) -> list[int]:
    """The pair of largest (``sign=-1``: smallest) information, the attribute with the
    larger I(C; X) in front (the lower index on a tie)."""
    n = len(single)
    best, pair = -np.inf, (0, 1)
    for i in range(n):
        for j in range(i + 1, n):
            if sign * pair_values[i, j] > best + GAIN_RTOL:
                best, pair = sign * pair_values[i, j], (i, j)
    i, j = pair
    return [i, j] if sign * single[i] >= sign * single[j] - GAIN_RTOL else [j, i]


def _omi_available_case(codes, class_index, weights, n_classes, sign) -> list[int]:
    """OMI (``sign=-1``: minimum MI) with missing values, every information on the
    rows where its attributes are observed."""
    n = codes.shape[1]
    zero = np.zeros(len(codes), dtype=np.intp)
    single = _available_conditionals(
        zero, codes, range(n), class_index, weights, n_classes=n_classes
    )
    if n == 1:
        return [0]
    pair_values = np.empty((n, n))
    for i in range(n - 1):
        rows: NDArray[Any] = missing_values.observed(codes[:, i])
        for j in range(i + 1, n):
            given, joint = _available_case_terms(
                codes[rows, i], codes[rows, j], class_index[rows], weights[rows], n_classes
            )
            pair_values[i, j] = given + joint  # I(C; X_i, X_j) on the rows of both
    order = _first_pair(pair_values, single, sign)
    rest = [v for v in range(n) if v not in order]
    rows = np.flatnonzero(missing_values.complete_rows(codes, order))
    first, second = (codes[rows, v].astype(np.intp) for v in order)
    ids = _compress(first * (int(codes[:, order[1]].max()) + 1) + second)
    while rest:
        values = _available_conditionals(
            ids, codes[rows], rest, class_index[rows], weights[rows], n_classes=n_classes
        )
        chosen = rest[_first_best(sign * values)]
        order.append(chosen)
        rest.remove(chosen)
        seen = missing_values.observed(codes[rows, chosen])
        rows = rows[seen]
        width = int(codes[:, chosen].max()) + 1
        ids = _compress(ids[seen] * width + codes[rows, chosen].astype(np.intp))
    return order


def _class_entropy_given(ids, class_index, weights, n_classes) -> float:
    """``H(C, B) - H(B)`` = H(C | B)."""
    return _entropy_of(ids * n_classes + class_index, weights) - _entropy_of(ids, weights)


def _class_informations(codes, class_index, weights, n_classes, n_categories):
    """``I(C; X_v)`` of every attribute."""
    zero = np.zeros(len(codes), dtype=np.intp)
    return _class_entropy_given(zero, class_index, weights, n_classes) + _entropy_gains(
        zero,
        codes,
        list(range(codes.shape[1])),
        n_categories,
        class_index,
        weights=weights,
        n_classes=n_classes,
    )


def _extend_by(
    order, ids, codes, class_index, weights, *, n_classes, n_categories, sign=1.0
) -> list[int]:
    """OMI after its first pair: append the attribute maximising I(C; X | B) until all are
    placed (``sign=-1``: minimising). A configuration of B that holds one class only
    adds 0 to every I(C; X | B) (each of its (b, x) cells holds one class too), so its
    samples are dropped; once no
    sample is left B determines the class, every I(C; X | B) is 0, and the rest follow
    in index order (ties are broken by index everywhere)."""
    rest = [v for v in range(codes.shape[1]) if v not in order]
    rows = np.arange(len(ids))  # the samples in configurations of several classes
    ids = _compress(ids)
    while rest:
        classes = class_index[rows]
        mass = configuration_masses(
            ids * n_classes + classes, weights[rows], (int(ids.max()) + 1) * n_classes
        )
        mixed = (mass.reshape(-1, n_classes) > 0).sum(axis=1) > 1
        keep = mixed[ids]
        if not keep.any():
            return order + rest
        rows, ids = rows[keep], _compress(ids[keep])
        # I(C; X | B) = H(C,B) - H(B) + H(X,B) - H(C,X,B): the first two do not depend on X
        values = _entropy_gains(
            ids,
            codes[rows],
            rest,
            n_categories,
            class_index[rows],
            weights=weights[rows],
            n_classes=n_classes,
        )
        chosen = rest[_first_best(sign * values)]
        order.append(chosen)
        rest.remove(chosen)
        ids = _compress(_combine(ids, codes[rows, chosen], n_categories[chosen]))
    return order


def omisp_order(codes, class_index, weights, n_classes, n_categories, pair_stats=None) -> list[int]:
    """OMISP: next the attribute maximising ``max_{X' earlier} I(C; X | X')``; the first
    maximises I(C; X) (Section 5.1, heuristic 2)."""
    n = codes.shape[1]
    zero = np.zeros(len(codes), dtype=np.intp)
    missing = missing_values.has_missing(codes)
    if missing:
        single = _available_conditionals(
            zero, codes, range(n), class_index, weights, n_classes=n_classes
        )
    else:
        single = _class_informations(codes, class_index, weights, n_classes, n_categories)
    order = [_first_best(single)]
    best_given = np.full(n, -np.inf)
    while len(order) < n:
        last = order[-1]
        rest = [v for v in range(n) if v not in order]
        if missing:  # I(C; X | X') on the rows where both are observed
            rows = missing_values.observed(codes[:, last])
            values = _available_conditionals(
                codes[rows, last],
                codes[rows],
                rest,
                class_index[rows],
                weights[rows],
                n_classes=n_classes,
            )
        else:
            ids = _compress(_combine(zero, codes[:, last], n_categories[last]))
            values = _class_entropy_given(ids, class_index, weights, n_classes) + _entropy_gains(
                ids, codes, rest, n_categories, class_index, weights=weights, n_classes=n_classes
            )
        best_given[rest] = np.maximum(best_given[rest], values)
        order.append(rest[_first_best(best_given[rest])])
    return order


def _saturated_rate(ids, class_index, weights, n_classes) -> float:
    """CR of the saturated model P(C, config) on the training data (ties: first class;
    0 without rows)."""
    if len(ids) == 0 or weights.sum() <= 0:
        return 0.0
    _, table, inverse = class_configuration_counts(ids, class_index, weights, n_classes)
    return classification_rate(table[inverse], class_index, weights)


def ocr_order(codes, class_index, weights, n_classes, n_categories, pair_stats=None) -> list[int]:
    """OCR: next the attribute whose saturated model over (C, X, earlier attributes),
    from sparse histograms, classifies the training data best (Section 5.1, heuristic 3)."""
    n = codes.shape[1]
    ids = np.zeros(len(codes), dtype=np.intp)
    rows = np.arange(len(codes))  # the rows where the chosen attributes are observed
    order: list[int] = []
    rest = list(range(n))
    while rest:
        rates = []
        for v in rest:
            seen = missing_values.observed(codes[rows, v])  # all True without missing values
            combined = _combine(ids[seen], codes[rows[seen], v], n_categories[v])
            rates.append(
                _saturated_rate(combined, class_index[rows[seen]], weights[rows[seen]], n_classes)
            )
        chosen = rest[int(np.argmax(rates))]
        order.append(chosen)
        rest.remove(chosen)
        seen = missing_values.observed(codes[rows, chosen])
        rows = rows[seen]
        ids = _combine(ids[seen], codes[rows, chosen], n_categories[chosen])
    return order


def mmi_order(codes, class_index, weights, n_classes, n_categories, pair_stats=None) -> list[int]:
    """The minimum mutual information ordering of Section 6.3 (argmin in Equation 2):
    :func:`omi_order` with ``minimize=True``."""
    return omi_order(
        codes, class_index, weights, n_classes, n_categories, pair_stats, minimize=True
    )


ORDERINGS: dict[str, Callable[..., list[int]]] = {
    "omi": omi_order,
    "mmi": mmi_order,
    "omisp": omisp_order,
    "ocr": ocr_order,
}
