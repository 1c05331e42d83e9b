"""Checks of the numbers of a loaded JSON model file: one check per model kind.

The structural checks of :mod:`discotree.io.model_checks` make a file's arrays agree
in shape; these make its numbers ones a fitted model can hold, so that a tampered or
corrupted file is refused at load instead of predicting NaN or shifted probabilities:

* every stored number is finite and at most :data:`MAX_MAGNITUDE` in absolute value
  (the sums and products prediction forms of such numbers stay finite), except the
  log-probabilities a model may legitimately hold as ``-inf``: a class prior's, for a
  class with no weight (a class given to ``partial_fit`` and never seen);
* counts, weights, variances and concentrations are non-negative (variances and
  scales positive);
* every distribution sums to one within :data:`NORMALISATION_TOLERANCE`: each row of
  a conditional table, each joint table, each class prior, and the class marginal an
  averaged model stores agrees with the one its tables imply;
* integer fields lie in their ranges (class indices among the classes, parents among
  the features, forests without cycles);
* a fitted estimator has every fitted attribute its predictions read, none of them
  null.

The model kinds' checks are here (k-dependence models and their sparse tables, A1DE,
A2DE, the kDB ensemble and its logistic members, Bayesian networks, discrete and
Gaussian forests); those of the estimators, of the binary problems of the
discriminative trees and boosting, of statistics, encoders and streaming state are in
:mod:`discotree.io.estimator_numbers`. Each runs after the structural checks, so the
shapes and cross-references it relies on hold. Each refusal is a ``ValueError`` whose
message starts with the path of the field (``content.model_.tables[3][1].masses: holds
nan at [4]; ...``).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import numpy as np
from scipy.special import logsumexp

from ..kernels.counts import triple_layout
from ..models.averaged_dependence import AveragedOneDependenceModel, AveragedTwoDependenceModel
from ..models.bayes_net import BayesNetModel
from ..models.discrete_forest import DiscreteForestModel
from ..models.ensemble import KDBEnsembleModel
from ..models.gaussian_forest import GaussianForestModel
from ..models.k_dependence import KDependenceModel
from ..models.logistic import LogisticModel
from ..stats.family_tables import SparseFamilyTable
from ..structure.spanning import topological_order

__all__ = [
    "MAX_MAGNITUDE",
    "MODEL_CHECKS",
    "NORMALISATION_TOLERANCE",
    "check_class_prior",
    "check_forest_parents",
    "integer",
    "log_probabilities",
    "normalised",
    "numbers",
]

#: How far a stored distribution's probabilities may sum from one (absolute): far
#: above the rounding of any table the package writes (about 1e-15 times the number of
#: cells summed), far below any change that would shift a prediction visibly.
NORMALISATION_TOLERANCE = 1e-6
#: Largest absolute value of any stored number (counts, weights, log-probabilities,
#: coefficients): sums of up to 1e200 such numbers, and products of two, stay finite.
MAX_MAGNITUDE = 1e100


def _fail(where: str, why: str) -> ValueError:
    return ValueError(f"{where}: {why}")


def numbers(
    value: Any,
    where: str,
    *,
    low: float = -MAX_MAGNITUDE,
    high: float = MAX_MAGNITUDE,
    above: bool = False,
    minus_infinity: bool = False,
) -> np.ndarray:
    """``value`` (an array or a number) as float64, refused unless every entry is
    finite and in ``[low, high]`` (``(low, high]`` with ``above``; ``-inf`` also
    allowed with ``minus_infinity``). The error names the first bad entry.

    Examples
    --------
    >>> numbers(np.array([0.5, np.nan]), "content.p")
    Traceback (most recent call last):
    ...
    ValueError: content.p: holds nan at [1]; expected finite numbers in [-1e+100, 1e+100]
    """
    if isinstance(value, bool) or not isinstance(value, np.ndarray | int | float | np.number):
        raise _fail(where, f"must be numbers, found {type(value).__name__}")
    array = np.asarray(value)
    if array.dtype.kind not in "iuf":
        raise _fail(where, f"must be numbers, found an array of dtype {array.dtype}")
    array = array.astype(np.float64, copy=False)
    with np.errstate(invalid="ignore"):
        ok = np.isfinite(array) & (array <= high) & ((array > low) if above else (array >= low))
    if minus_infinity:
        ok |= np.isneginf(array)
    if not ok.all():
        at = np.unravel_index(int(np.argmin(ok)), array.shape)
        where_at = f" at {[int(i) for i in at]}" if array.ndim else ""
        interval = f"{'(' if above else '['}{low:g}, {high:g}]"
        extra = " or -inf" if minus_infinity else ""
        raise _fail(
            where,
            f"holds {float(array[at])!r}{where_at}; expected finite numbers in {interval}{extra}",
        )
    return array


def normalised(log_p: np.ndarray, axis: int | tuple[int, ...], where: str) -> None:
    """Refuse log-probabilities whose probabilities do not sum to one along ``axis``
    (within :data:`NORMALISATION_TOLERANCE`).

    Examples
    --------
    >>> normalised(np.log([[0.5, 0.5], [0.5, 0.6]]), 1, "content.t")
    Traceback (most recent call last):
    ...
    ValueError: content.t: its probabilities sum to 1.1 at [1], not 1 (tolerance 1e-06)
    """
    if np.size(log_p) == 0:
        return
    with np.errstate(all="ignore"):
        total = np.exp(logsumexp(np.asarray(log_p, dtype=np.float64), axis=axis))
    ok = np.abs(total - 1.0) <= NORMALISATION_TOLERANCE
    if not np.all(ok):
        at = np.unravel_index(int(np.argmin(ok)), np.shape(total))
        where_at = f" at {[int(i) for i in at]}" if np.ndim(total) else ""
        raise _fail(
            where,
            f"its probabilities sum to {float(np.asarray(total)[at]):.6g}{where_at}, not 1 "
            f"(tolerance {NORMALISATION_TOLERANCE:g})",
        )


def log_probabilities(
    value: Any, axis: int | tuple[int, ...], where: str, *, minus_infinity: bool = False
) -> np.ndarray:
    """Finite (or ``-inf``, where allowed) log-probabilities normalised along ``axis``."""
    array = numbers(value, where, high=NORMALISATION_TOLERANCE, minus_infinity=minus_infinity)
    normalised(array, axis, where)
    return array


def integer(value: Any, where: str, low: int, high: int) -> int:
    """An int in ``[low, high)``."""
    if (
        isinstance(value, bool)
        or not isinstance(value, int | np.integer)
        or not (low <= value < high)
    ):
        raise _fail(where, f"must be an integer in [{low}, {high}), got {value!r}")
    return int(value)


def check_class_prior(prior: Any, where: str) -> np.ndarray:
    """A class prior: log-probabilities summing to one, ``-inf`` for a class without
    weight."""
    return log_probabilities(prior, 0, where, minus_infinity=True)


def _sparse_table(table: SparseFamilyTable, where: str) -> None:
    """Counts (or, in an HDP model, probabilities): finite and >= 0."""
    numbers(table.masses, f"{where}.masses", low=0.0)


def _k_dependence(model: KDependenceModel, where: str) -> None:
    """Smoothing that keeps every probability positive and finite (its tables are
    checked as objects of their own)."""
    alpha = numbers(model.alpha, f"{where}.alpha", low=0.0)
    epsilon = numbers(model.epsilon, f"{where}.epsilon", low=0.0, high=1.0)
    if not (alpha > 0 or epsilon > 0):
        raise _fail(f"{where}.alpha", "alpha = epsilon = 0 gives zero probabilities")
    for j, b in enumerate(model.concentrations or []):
        numbers(b, f"{where}.concentrations[{j}]", low=0.0, above=True)


def _blocks(n_categories: np.ndarray) -> list[slice]:
    offsets = np.concatenate([[0], np.cumsum(n_categories)])
    return [slice(int(a), int(b)) for a, b in itertools.pairwise(offsets)]


def _same_prior(prior: np.ndarray, implied: np.ndarray, where: str) -> None:
    check_class_prior(prior, where)
    gap = np.abs(np.exp(prior) - np.exp(implied))
    if not (gap <= NORMALISATION_TOLERANCE).all():
        c = int(np.argmax(gap))
        raise _fail(where, f"P(class {c}) is {np.exp(prior[c]):.6g}, the tables give "
                    f"{np.exp(implied[c]):.6g}")  # fmt: skip


def _averaged_one(model: AveragedOneDependenceModel, where: str) -> None:
    """``P(c, x_i)`` a distribution per feature, each ``P(x_j | c, x_i)`` one per
    context (0 in a feature's own block), the prior their class marginal."""
    blocks = _blocks(np.asarray(model.n_categories))
    parent = numbers(model.parent_log, f"{where}.parent_log", high=NORMALISATION_TOLERANCE)
    child = numbers(model.child_log, f"{where}.child_log", high=NORMALISATION_TOLERANCE)
    marginals = []
    for j, block in enumerate(blocks):
        normalised(parent[:, block], (0, 1), f"{where}.parent_log[:, {j}]")
        marginals.append(logsumexp(parent[:, block], axis=1))
        normalised(child[:, : block.start, block], 2, f"{where}.child_log[..., {j}]")
        normalised(child[:, block.stop :, block], 2, f"{where}.child_log[..., {j}]")
        own = child[:, block, block]
        if (np.abs(own) > NORMALISATION_TOLERANCE).any():
            raise _fail(f"{where}.child_log", f"feature {j}'s own block must hold 0")
    implied = logsumexp(np.column_stack(marginals), axis=1) - np.log(len(blocks))
    _same_prior(model.class_log_prior, implied, f"{where}.class_log_prior")


def _averaged_two(model: AveragedTwoDependenceModel, where: str) -> None:
    """Each pair's ``P(c, x_i, x_j)`` a distribution, each triple's three conditionals
    one per context, the prior their class marginal."""
    r = np.asarray(model.n_categories, dtype=np.int64)
    d, n_classes = len(r), len(model.class_log_prior)
    pair_log = numbers(model.pair_log, f"{where}.pair_log", high=NORMALISATION_TOLERANCE)
    cond_log = numbers(model.cond_log, f"{where}.cond_log", high=NORMALISATION_TOLERANCE)
    start, marginals = 0, []
    for i in range(d):
        for j in range(i + 1, d):
            table = pair_log[start : start + r[i] * r[j] * n_classes].reshape(-1, n_classes)
            normalised(table, (0, 1), f"{where}.pair_log[pair {i}, {j}]")
            marginals.append(logsumexp(table, axis=0))
            start += table.size
    layout = triple_layout(r, n_classes)
    triples = [(i, j, k) for i in range(d) for j in range(i + 1, d) for k in range(j + 1, d)]
    for t, (i, j, k) in enumerate(triples):
        block = slice(int(layout[t]), int(layout[t + 1]))
        for m in range(3):
            cube = cond_log[m, block].reshape(r[i], r[j], r[k], n_classes)
            normalised(cube, m, f"{where}.cond_log[{m}][triple {i}, {j}, {k}]")
    implied = logsumexp(np.column_stack(marginals), axis=1) - np.log(len(marginals))
    _same_prior(model.class_log_prior, implied, f"{where}.class_log_prior")


def _ensemble(model: KDBEnsembleModel, where: str) -> None:
    """A prior, at least one member, every member of the ensemble's classes."""
    prior = check_class_prior(model.class_log_prior, f"{where}.class_log_prior")
    if not model.members:
        raise _fail(f"{where}.members", "an ensemble needs at least one member")
    for m, member in enumerate(model.members):
        if member.n_classes != len(prior):
            raise _fail(f"{where}.members[{m}]",
                        f"has {member.n_classes} classes, the ensemble {len(prior)}")  # fmt: skip


def _logistic(model: LogisticModel, where: str) -> None:
    """Finite weights and input values."""
    numbers(model.coef, f"{where}.coef")
    numbers(model.intercept, f"{where}.intercept")
    for j, values in enumerate(model.values):
        if values is not None:
            numbers(values, f"{where}.values[{j}]")


def _bayes_net(model: BayesNetModel, where: str) -> None:
    """Every table a distribution per context; the prior a distribution."""
    for j, table in enumerate(model.log_cpts):
        log_probabilities(table, -1, f"{where}.log_cpts[{j}]")
    check_class_prior(model.class_log_prior, f"{where}.class_log_prior")


def check_forest_parents(parents: Any, n_features: int, where: str) -> np.ndarray:
    """Per class, a forest over ``n_features``: parents in ``[-1, n)``, none its own,
    no cycle."""
    parents = np.asarray(parents)
    if (
        parents.ndim != 2
        or parents.shape[1] != n_features
        or parents.dtype.kind not in "iu"
        or ((parents < -1) | (parents >= n_features)).any()
    ):
        raise _fail(where, f"must be (classes, {n_features}) parents in [-1, {n_features})")
    for c, row in enumerate(parents):
        try:
            whole = len(topological_order(row)) == n_features
        except ValueError:  # (a cycle)
            whole = False
        if not whole:
            raise _fail(f"{where}[{c}]", "has a cycle: a forest has none")
    return parents


def _discrete_forest(model: DiscreteForestModel, where: str) -> None:
    """Every table row a distribution; the Dirichlet posteriors and concentrations
    finite and >= 0."""
    check_forest_parents(model.parents, len(model.n_categories), f"{where}.parents")
    for c, tables in enumerate(model.log_cpts):
        for j, table in enumerate(tables):
            log_probabilities(table, -1, f"{where}.log_cpts[{c}][{j}]")
    if model.posterior is not None:
        shapes = [[np.shape(t) for t in tables] for tables in model.log_cpts]
        if [[np.shape(t) for t in tables] for tables in model.posterior] != shapes:
            raise _fail(f"{where}.posterior", "needs the shapes of log_cpts")
        for c, tables in enumerate(model.posterior):
            for j, table in enumerate(tables):
                numbers(table, f"{where}.posterior[{c}][{j}]", low=0.0)
    for j, b in enumerate(model.concentrations or []):
        numbers(b, f"{where}.concentrations[{j}]", low=0.0)


def _gaussian_forest(model: GaussianForestModel, where: str) -> None:
    """Forests, finite means and coefficients, positive variances, all of one shape."""
    parents = np.asarray(model.parents)
    n_features = parents.shape[1] if parents.ndim == 2 else -1
    parents = check_forest_parents(parents, n_features, f"{where}.parents")
    for name in ("means", "coefs", "noise_var"):
        value = getattr(model, name)
        if np.shape(value) != parents.shape:
            raise _fail(f"{where}.{name}", f"needs the shape {parents.shape} of parents")
        positive = name == "noise_var"
        numbers(value, f"{where}.{name}", low=0.0 if positive else -MAX_MAGNITUDE, above=positive)


#: The numeric check of each model kind (the estimators' are in
#: :data:`discotree.io.estimator_numbers.CHECKS`).
MODEL_CHECKS: dict[type, Callable[[Any, str], None]] = {
    SparseFamilyTable: _sparse_table,
    KDependenceModel: _k_dependence,
    AveragedOneDependenceModel: _averaged_one,
    AveragedTwoDependenceModel: _averaged_two,
    KDBEnsembleModel: _ensemble,
    LogisticModel: _logistic,
    BayesNetModel: _bayes_net,
    DiscreteForestModel: _discrete_forest,
    GaussianForestModel: _gaussian_forest,
}
