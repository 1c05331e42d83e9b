"""Discriminative (conditional log-likelihood) parameters of a Bayesian network
classifier (Pernkopf & Bilmes 2010, Section 4.2).

The CPT entries are re-parameterised by a softmax, ``theta_j[c, h, i] =
exp(beta_j[c, h, i]) / sum_i' exp(beta_j[c, h, i'])`` (Section 4.2.2), so the
constraints disappear, and ::

    CLL(beta) = sum_m w_m [log P(c_m, x_m) - log sum_c P(c, x_m)]

is maximised by conjugate gradient (Polak-Ribiere: scipy's ``method="CG"``) from the
ML parameters. The gradient (Cases A and B of Section 4.2) is, with
``A[m, c] = w_m ([c = c_m] - P(c | x_m))``,

::

    d CLL / d beta_C[c]       = sum_m A[m, c]
    d CLL / d beta_j[c, h, i] = sum_{m: x_m has h, i at j's family} A[m, c]
                                - theta_j[c, h, i] sum_{m: x_m has h} A[m, c].

The number of iterations is chosen by *cross tuning* (Greiner et al., 2005, as the
paper does): the optimisation is run on 80 % of the training data (stratified) and the
iteration with the best conditional log-likelihood of the other 20 % is kept; the final
parameters are that many iterations from the ML parameters of all the data.

Samples with a missing value skip the families that contain it (available-case), an
approximation used for training only.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray
from scipy.optimize import minimize
from scipy.special import softmax

from .. import missing_values
from ..kernels.counts import class_totals
from ..kernels.family_joint import family_cll_gradient
from ..numerics import GAIN_RTOL
from .bayes_net import BayesNetModel

__all__ = ["conditional_log_likelihood", "fit_conditional_likelihood"]


class _Layout:
    """Flat parameter vector <-> class prior and per-node beta arrays."""

    def __init__(self, model: BayesNetModel) -> None:
        self.shapes = [model.class_log_prior.shape] + [t.shape for t in model.log_cpts]
        self.sizes = [int(np.prod(s)) for s in self.shapes]
        self.offsets = np.concatenate([[0], np.cumsum(self.sizes)])

    def split(self, flat: NDArray[np.float64]) -> list[NDArray[np.float64]]:
        return [
            flat[a:b].reshape(shape)
            for a, b, shape in zip(self.offsets[:-1], self.offsets[1:], self.shapes, strict=True)
        ]


class _Families:
    """Where each sample reads each node's table in the flat parameter vector (after
    the class prior): ``base[s, j]`` is the entry of node j's family value at sample s
    for class 0 (class c adds ``c * class_stride[j]``), -1 where the sample misses a
    value of the family (available-case, as the module notes say); the layout of
    :mod:`discotree.kernels.family_joint`. ``row_starts`` and ``row_lengths`` cut the
    vector into the softmax rows (c, parent configuration)."""

    def __init__(self, model: BayesNetModel, codes, layout: _Layout) -> None:
        node_offsets = layout.offsets[1:-1] - layout.sizes[0]
        self.n_params = int(layout.offsets[-1] - layout.sizes[0])
        self.class_stride = np.array(
            [int(np.prod(t.shape[1:])) for t in model.log_cpts], dtype=np.intp
        )
        base = np.empty((len(codes), len(model.parents)), dtype=np.intp)
        for j, pa in enumerate(model.parents):
            index = np.zeros(len(codes), dtype=np.intp)
            missing = np.zeros(len(codes), dtype=bool)
            for v in (*pa, j):
                column = np.asarray(codes[:, v], dtype=np.intp)
                missing |= missing_values.is_missing(column)
                index = index * int(model.n_categories[v]) + np.maximum(column, 0)
            base[:, j] = np.where(missing, -1, node_offsets[j] + index)
        self.base = base
        lengths = [int(model.n_categories[j]) for j in range(len(model.parents))]
        self.row_lengths = np.repeat(
            lengths, [t.size // r for t, r in zip(model.log_cpts, lengths, strict=True)]
        ).astype(np.intp)
        self.row_starts = np.concatenate([[0], np.cumsum(self.row_lengths)[:-1]]).astype(np.intp)

    def positions(self, c: int) -> NDArray[np.intp]:
        """Entries read for class ``c``, ``n_params`` (one past the last) where the
        sample misses a family value."""
        return np.where(self.base < 0, self.n_params, self.base + c * self.class_stride)


def _log_softmax_rows(beta: NDArray[np.float64], families: _Families) -> NDArray[np.float64]:
    """``beta`` minus the log-sum-exp of its softmax row, for every row at once."""
    starts, lengths = families.row_starts, families.row_lengths
    top = np.maximum.reduceat(beta, starts)
    top[~np.isfinite(top)] = 0.0
    top_each = np.repeat(top, lengths)
    with np.errstate(divide="ignore"):
        row_lse = np.log(np.add.reduceat(np.exp(beta - top_each), starts))
    return beta - (np.repeat(row_lse, lengths) + top_each)


def _log_sum_exp(x: NDArray[np.float64], axis: int) -> NDArray[np.float64]:
    """``log sum exp`` along ``axis`` (kept), shifted by the largest entry; ``-inf``
    where every entry is ``-inf``."""
    top = np.max(x, axis=axis, keepdims=True)
    top = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(divide="ignore"):
        return np.log(np.sum(np.exp(x - top), axis=axis, keepdims=True)) + top


def _objective(flat, layout, families, class_index, weights, n_classes):
    """Negative CLL and its gradient (for a minimiser), every node at once: the
    softmax of every row by ``reduceat``, then one pass over the samples for the CLL,
    Case A and the scatter of Case B
    (:func:`discotree.kernels.family_joint.family_cll_gradient`), then the second term
    of Case B row by row."""
    log_prior = flat[:n_classes] - _log_sum_exp(flat[:n_classes], axis=0)
    log_theta = flat[n_classes:]
    if families.n_params:
        log_theta = _log_softmax_rows(log_theta, families)
    cll, prior_sums, G = family_cll_gradient(
        log_theta, log_prior, families.base, families.class_stride, class_index, weights
    )
    if not families.n_params:
        return -cll, -prior_sums
    row_sums = np.repeat(np.add.reduceat(G, families.row_starts), families.row_lengths)
    return -cll, -np.concatenate([prior_sums, G - np.exp(log_theta) * row_sums])


def conditional_log_likelihood(
    model: BayesNetModel, codes, class_index, weights
) -> tuple[float, NDArray[np.float64]]:
    """CLL of the model's parameters and its gradient with respect to the flat softmax
    parameters (class prior first, then each node's table, C order)."""
    layout = _Layout(model)
    flat = np.concatenate([model.class_log_prior.ravel(), *(t.ravel() for t in model.log_cpts)])
    value, grad = _objective(
        flat, layout, _Families(model, codes, layout), class_index, weights, model.n_classes
    )
    return -value, -grad


def _weight_scale(weights) -> float:
    """A power of two that brings the mean weight into [2^-20, 2^20] (1 when it is
    already there): the CL optimum does not change when every weight is scaled, and the
    objective and its gradient then neither overflow nor vanish."""
    mean = float(np.mean(weights)) if len(weights) else 1.0
    if not mean > 0 or 2.0**-20 <= mean <= 2.0**20:
        return 1.0
    return float(2.0 ** -round(np.log2(mean)))


def _optimise(model, codes, class_index, weights, max_iter, *, on_iteration=None):
    weights = weights * _weight_scale(weights)
    layout = _Layout(model)
    start = np.concatenate([model.class_log_prior.ravel(), *(t.ravel() for t in model.log_cpts)])
    families = _Families(model, codes, layout)
    result = minimize(
        _objective,
        start,
        args=(layout, families, class_index, weights, model.n_classes),
        jac=True,
        method="CG",
        callback=on_iteration,
        options={"maxiter": max_iter, "gtol": 1e-6},
    )
    return _with_parameters(model, layout, result.x), result


def _with_parameters(model, layout, flat) -> BayesNetModel:
    parts = layout.split(flat)
    return BayesNetModel(
        model.n_categories,
        list(model.parents),
        [np.log(softmax(beta, axis=-1)) for beta in parts[1:]],
        np.log(softmax(parts[0])),
    )


def fit_conditional_likelihood(
    codes,
    class_index,
    weights,
    n_classes: int,
    n_categories,
    parents,
    *,
    alpha: float,
    epsilon: float,
    max_iter: int = 100,
    holdout: float = 0.2,
    random_state: int | np.random.Generator = 0,
) -> tuple[BayesNetModel, int]:
    """CL parameters by conjugate gradient with cross tuning (module notes).

    Returns the model and the number of iterations used. With too few samples per
    class for a held-out part (fewer than 2 in some class), ``max_iter`` iterations.
    """

    def ml(rows):
        return BayesNetModel.maximum_likelihood(
            codes[rows],
            class_index[rows],
            weights[rows],
            n_classes,
            n_categories,
            parents,
            alpha=alpha,
            epsilon=epsilon,
        )

    counts = class_totals(class_index, None, n_classes)
    n_iter = max_iter
    if holdout > 0 and counts.min() >= 2:
        rng = np.random.default_rng(random_state)
        held = np.zeros(len(class_index), dtype=bool)
        for c in range(n_classes):
            members = np.flatnonzero(class_index == c)
            take = max(1, round(holdout * len(members)))
            held[rng.choice(members, take, replace=False)] = True
        train, test = np.flatnonzero(~held), np.flatnonzero(held)
        start_model = ml(train)
        layout = _Layout(start_model)
        test_families = _Families(start_model, codes[test], layout)
        record: dict[str, float] = {"best": np.inf, "iteration": 0, "count": 0}

        def held_out(flat):
            record["count"] += 1
            value, _ = _objective(
                flat, layout, test_families, class_index[test], weights[test], n_classes
            )
            if value < record["best"] - GAIN_RTOL:
                record["best"], record["iteration"] = value, record["count"]

        start = np.concatenate(
            [start_model.class_log_prior.ravel(), *(t.ravel() for t in start_model.log_cpts)]
        )
        held_out(start)  # iteration 0: the ML parameters themselves
        record["count"] = 0
        record["iteration"] = 0
        _optimise(
            start_model,
            codes[train],
            class_index[train],
            weights[train],
            max_iter,
            on_iteration=held_out,
        )
        n_iter = int(record["iteration"])
    everything = np.arange(len(class_index))
    model = ml(everything)
    if n_iter == 0:
        return model, 0
    fitted, _ = _optimise(model, codes, class_index, weights, n_iter)
    return fitted, n_iter
