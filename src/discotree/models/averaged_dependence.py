"""Averaged one-dependence estimators, A1DE (Webb, Boughton & Wang, "Not so naive
Bayes: aggregating one-dependence estimators", Machine Learning 58, 2005, Section 3),
and averaged two-dependence estimators, A2DE (Webb, Boughton, Zheng, Ting & Salem,
"Learning by extrapolation from marginal to full-multivariate probability
distributions: decreasingly naive Bayesian classification", Machine Learning 86, 2012,
Section 3: :class:`AveragedTwoDependenceModel`).

Every attribute in turn is the super-parent of all the others:
``P(c, x) = (1/d) sum_i P(c, x_i) prod_{j != i} P(x_j | c, x_i)`` (eq. 5 of the paper,
with every attribute a parent: no frequency limit). Each one-dependence estimator is a
proper distribution, so their average is one, and missing values are handled exactly
by marginalisation: a missing child contributes the factor 1 (its conditional sums to
one), and the estimator whose super-parent is missing is summed over that parent's
values, ``sum_a P(c, a) prod_{j observed} P(x_j | c, a)``. (Webb et al. skip such an
estimator instead; that is not the marginal of the average.)

``log_likelihood`` is ``log P(x | c)``: the average's joint divided by the class
marginal it implies, ``P(c) = (1/d) sum_i sum_a P(c, x_i = a)``, so that the estimator's
class prior (the package's one rule: maximum likelihood) multiplies a proper
class-conditional distribution.

Every table comes from the pair tables of :class:`~discotree.stats.pair_statistics.PairStatistics`
(available-case), smoothed as all of the package's tables.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy.special import logsumexp

from .. import missing_values
from ..kernels.counts import triple_layout
from ..kernels.two_dependence import two_dependence_conditionals, two_dependence_joint
from ..stats.dirichlet import smoothed_conditional
from ..stats.hdp_counts import hdp_one_dependence_conditionals
from ..stats.hierarchical import hierarchical_forest_tables
from ..stats.pair_statistics import PairStatistics
from ..stored_checks import (
    NORMALISATION_TOLERANCE,
    check_class_prior,
    check_counts,
    check_shape,
    fail,
    normalised,
    numbers,
)
from ..stored_classes import stored
from .file_checks import StoredModel
from .protocol import JointScoring

__all__ = ["AveragedOneDependenceModel", "AveragedTwoDependenceModel"]

#: Rows scored at once (the one-hot rows and the per-class sums: bounded memory).
_CHUNK_ROWS = 4096


# ------------------------------------------------ checks of a loaded model
def _check_averaged(model: Any, where: str) -> int:
    """A1DE's tables against its categories and classes."""
    counts = check_counts(model.n_categories, f"{where}.n_categories")
    width = int(counts.sum())
    prior = np.asarray(model.class_log_prior)
    if prior.ndim != 1 or len(prior) < 1:
        raise fail(f"{where}.class_log_prior", "must be a 1-D array of the classes")
    check_shape(model.parent_log, (len(prior), width), f"{where}.parent_log")
    check_shape(model.child_log, (len(prior), width, width), f"{where}.child_log")
    for name in ("parent_log", "child_log"):
        if (np.asarray(getattr(model, name)) > 1e-9).any():
            raise fail(f"{where}.{name}", "holds a log-probability above 0")
    return len(prior)


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
            raise fail(f"{where}.child_log", f"feature {j}'s own block must hold 0")
    implied = logsumexp(np.column_stack(marginals), axis=1) - np.log(len(blocks))
    _same_prior(model.class_log_prior, implied, f"{where}.class_log_prior")


def _check_two_dependence(model: Any, where: str) -> int:
    """A2DE's tables against its categories and classes."""
    from ..kernels.counts import triple_layout

    counts = check_counts(model.n_categories, f"{where}.n_categories")
    prior = np.asarray(model.class_log_prior)
    if prior.ndim != 1 or len(prior) < 1:
        raise fail(f"{where}.class_log_prior", "must be a 1-D array of the classes")
    if len(counts) < 2:
        raise fail(f"{where}.n_categories", "needs at least two features")
    r = counts.astype(np.float64)
    pairs = int(len(prior) * (r.sum() ** 2 - (r**2).sum()) / 2)
    check_shape(model.pair_log, (pairs,), f"{where}.pair_log")
    triples = int(triple_layout(counts, len(prior))[-1])
    check_shape(model.cond_log, (3, triples), f"{where}.cond_log")
    for name in ("pair_log", "cond_log"):
        if (np.asarray(getattr(model, name)) > 1e-9).any():
            raise fail(f"{where}.{name}", "holds a log-probability above 0")
    return len(prior)


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


def _blocks(n_categories: np.ndarray) -> list[slice]:
    offsets = np.concatenate([[0], np.cumsum(n_categories)])
    return [slice(int(a), int(b)) for a, b in itertools.pairwise(offsets)]


def _same_prior(prior: np.ndarray, implied: np.ndarray, where: str) -> None:
    check_class_prior(prior, where)
    gap = np.abs(np.exp(prior) - np.exp(implied))
    if not (gap <= NORMALISATION_TOLERANCE).all():
        c = int(np.argmax(gap))
        raise fail(where, f"P(class {c}) is {np.exp(prior[c]):.6g}, the tables give "
                   f"{np.exp(implied[c]):.6g}")  # fmt: skip


@stored
@dataclass
class AveragedOneDependenceModel(JointScoring, StoredModel):
    """A fitted A1DE.

    Parameters
    ----------
    n_categories : ndarray of shape (n_features,)
    parent_log : ndarray of shape (n_classes, D)
        ``log P(c, x_i = a)`` at column ``offset_i + a`` (D = sum of n_categories).
    child_log : ndarray of shape (n_classes, D, D)
        ``log P(x_j = b | c, x_i = a)`` at ``[c, offset_i + a, offset_j + b]``; 0 in a
        feature's own block.
    class_log_prior : ndarray of shape (n_classes,)
        The class marginal of the average (subtracted by ``log_likelihood``).

    Examples
    --------
    >>> import numpy as np
    >>> codes = np.array([[0, 1], [1, 1], [1, 0], [0, 0]])
    >>> stats = PairStatistics.from_codes(codes, np.array([0, 1, 1, 0]), np.array([2, 2]), 2)
    >>> model = AveragedOneDependenceModel.from_statistics(stats, 1.0, 0.0)
    >>> every = np.array([[0, 0], [0, 1], [1, 0], [1, 1]])
    >>> np.exp(model.log_likelihood(every)).sum(axis=0).round(12)  # P(x | c) sums to 1
    array([1., 1.])
    """

    n_categories: NDArray[np.intp]
    parent_log: NDArray[np.float64]
    child_log: NDArray[np.float64]
    class_log_prior: NDArray[np.float64]

    _FILE_CHECKS = (_check_averaged, _averaged_one)

    @classmethod
    def from_statistics(
        cls,
        stats: PairStatistics,
        alpha: float,
        epsilon: float,
        smoothing: str = "dirichlet",
        seed: int = 0,
    ) -> AveragedOneDependenceModel:
        """The tables from the pair statistics: ``P(c, x_i)`` with ``alpha`` per cell of
        the (class, value) table of the rows observing x_i, ``P(x_j | c, x_i)`` with
        ``alpha`` per cell of each conditional (both floored at ``epsilon``); with
        ``smoothing="hierarchical"`` each conditional is backed off to ``P(x_j | c)``
        and the marginal of x_j instead (:meth:`hierarchical_children`); with
        ``"hdp"`` the same back-off sampled, seeded by ``seed``
        (:func:`~discotree.stats.hdp_counts.hdp_one_dependence_conditionals`)."""
        n_categories = np.asarray(stats.n_categories)
        offsets = stats.offsets
        n_classes, width = stats.n_classes, int(offsets[-1])
        diagonal = stats.diagonal
        parent_log = np.empty((n_classes, width))
        child_log = np.zeros((n_classes, width, width))
        for j in range(len(n_categories)):
            block = slice(offsets[j], offsets[j + 1])
            joint = smoothed_conditional(diagonal[:, block].reshape(-1), alpha, epsilon)
            parent_log[:, block] = np.log(joint).reshape(n_classes, -1)
            if smoothing == "dirichlet":
                child = np.log(smoothed_conditional(stats.counts[:, :, block], alpha, epsilon))
                child[:, block, :] = 0.0  # no factor of a feature given itself
                child_log[:, :, block] = child
        if smoothing == "hierarchical":
            child_log = cls.hierarchical_children(stats, alpha, epsilon)[0]
        elif smoothing == "hdp":
            rng = np.random.default_rng(seed)
            child_log = hdp_one_dependence_conditionals(stats, epsilon, rng)[0]
        # the class marginal of the average: (1/d) sum_i sum_a P(c, x_i = a)
        marginals = [
            logsumexp(parent_log[:, offsets[j] : offsets[j + 1]], axis=1)
            for j in range(len(n_categories))
        ]
        prior = logsumexp(np.column_stack(marginals), axis=1) - np.log(len(n_categories))
        return cls(n_categories, parent_log, child_log, prior)

    @staticmethod
    def hierarchical_children(
        stats: PairStatistics, alpha: float, epsilon: float
    ) -> tuple[NDArray[np.float64], list[list[NDArray[np.float64]]]]:
        """The conditionals ``log P(x_j | c, x_i)`` backed off to ``P(x_j | c)`` and the
        marginal of ``x_j`` (each super-parent i the parent of every other feature in
        :func:`~discotree.stats.hierarchical.hierarchical_forest_tables`: concentrations
        chosen by leave-one-out from the counts, per super-parent and child), in
        ``child_log``'s layout, and the concentrations (per super-parent, per feature)."""
        offsets = stats.offsets
        n_features, n_classes, width = stats.n_features, stats.n_classes, int(offsets[-1])
        child_log = np.zeros((n_classes, width, width))
        concentrations = []
        for i in range(n_features):
            parents = np.full((n_classes, n_features), i, dtype=np.intp)
            parents[:, i] = -1
            logs, _, chosen = hierarchical_forest_tables(stats, parents, alpha, epsilon)
            concentrations.append(chosen)
            rows = slice(offsets[i], offsets[i + 1])
            for j in range(n_features):
                if j == i:
                    continue
                for c in range(n_classes):
                    child_log[c, rows, offsets[j] : offsets[j + 1]] = logs[c][j]
        return child_log, concentrations

    @property
    def n_classes(self) -> int:
        return int(self.parent_log.shape[0])

    @property
    def n_features(self) -> int:
        return len(self.n_categories)

    def joint_log_likelihood(self, codes: NDArray[np.integer]) -> NDArray[np.float64]:
        """``log P(c, x)`` of the average, missing values summed out exactly."""
        codes = np.asarray(codes)
        out = np.empty((len(codes), self.n_classes))
        for start in range(0, len(codes), _CHUNK_ROWS):
            part = codes[start : start + _CHUNK_ROWS]
            out[start : start + len(part)] = self._joint(part)
        return out

    def _joint(self, codes: NDArray[np.integer]) -> NDArray[np.float64]:
        offsets = np.zeros(self.n_features + 1, dtype=np.intp)
        np.cumsum(self.n_categories, out=offsets[1:])
        n, width = len(codes), int(offsets[-1])
        observed = missing_values.observed(codes)
        one_hot = np.zeros((n, width))
        rows, features = np.nonzero(observed)
        one_hot[rows, offsets[features] + codes[rows, features]] = 1.0
        out = np.empty((n, self.n_classes))
        for c in range(self.n_classes):
            # value[s, offset_i + a] = log P(c, a) + sum_{j observed} log P(x_j | c, a)
            value = self.parent_log[c] + one_hot @ self.child_log[c].T
            estimators = np.empty((n, self.n_features))
            for i in range(self.n_features):
                block = value[:, offsets[i] : offsets[i + 1]]
                summed = logsumexp(block, axis=1)  # the super-parent summed out
                at = np.where(observed[:, i], codes[:, i], 0)
                estimators[:, i] = np.where(observed[:, i], block[np.arange(n), at], summed)
            out[:, c] = logsumexp(estimators, axis=1) - np.log(self.n_features)
        return out

    def log_likelihood(self, codes: NDArray[np.integer]) -> NDArray[np.float64]:
        """``log P(x | c)``: the average's joint less its class marginal."""
        return self.joint_log_likelihood(codes) - self.class_log_prior


def _pair_starts(n_categories: NDArray[np.intp], n_classes: int) -> NDArray[np.int64]:
    """Where the (C, r_i, r_j) table of each pair ``i < j`` starts (pairs in
    lexicographic order); the entry ``[d - 1, d - 1]`` holds the total size."""
    d = len(n_categories)
    starts = np.zeros((d, d), dtype=np.int64)
    position = 0
    for i in range(d):
        for j in range(i + 1, d):
            starts[i, j] = position
            position += n_classes * int(n_categories[i]) * int(n_categories[j])
    starts[d - 1, d - 1] = position
    return starts


def _triple_ranks(d: int) -> NDArray[np.int64]:
    """The rank of every sorted triple ``i < j < k`` (lexicographic), -1 elsewhere."""
    ranks = np.full((d, d, d), -1, dtype=np.int64)
    t = 0
    for i in range(d):
        for j in range(i + 1, d):
            for k in range(j + 1, d):
                ranks[i, j, k] = t
                t += 1
    return ranks


def two_dependence_bytes(n_categories: NDArray[np.intp], n_classes: int) -> float:
    """Bytes of an A2DE's tables: the triple counts and their three conditionals, and
    the pair tables (what ``fit`` holds at once)."""
    r = np.asarray(n_categories, dtype=np.float64)
    if len(r) < 3:
        return 8.0 * n_classes * float(r.sum()) ** 2
    total = (r.sum() ** 3 - 3 * r.sum() * (r**2).sum() + 2 * (r**3).sum()) / 6
    pairs = (r.sum() ** 2 - (r**2).sum()) / 2
    return 8.0 * n_classes * (4 * total + pairs)


@stored
@dataclass
class AveragedTwoDependenceModel(JointScoring, StoredModel):
    """A fitted A2DE: the average over every pair of super-parents ``i < j`` of
    ``P(c, x_i, x_j) prod_{k != i, j} P(x_k | c, x_i, x_j)``.

    Missing values are summed out exactly, as in A1DE (a missing child contributes 1,
    the estimator of a missing super-parent is summed over its values:
    :func:`~discotree.kernels.two_dependence.two_dependence_joint`).

    Parameters
    ----------
    n_categories : ndarray of shape (n_features,), at least 2 features
    pair_log : ndarray
        ``log P(c, x_i, x_j)`` of every pair ``i < j``, each a flat (r_i, r_j, C) table
        in lexicographic order of the pairs.
    cond_log : ndarray of shape (3, T)
        For every sorted triple (``T`` cells: :func:`~discotree.kernels.counts.
        triple_layout`), row ``m`` holds ``log P(x_m-th | c, the other two)`` in the
        triple's (r_i, r_j, r_k, C) layout
        (:func:`~discotree.kernels.two_dependence.two_dependence_conditionals`).
    class_log_prior : ndarray of shape (n_classes,)
        The class marginal of the average (subtracted by ``log_likelihood``).

    Examples
    --------
    >>> import itertools
    >>> from discotree.kernels.counts import triple_counts
    >>> codes = np.array([[0, 1, 1], [1, 1, 0], [1, 0, 0], [0, 0, 1]])
    >>> y, r = np.array([0, 1, 1, 0]), np.array([2, 2, 2])
    >>> stats = PairStatistics.from_codes(codes, y, r, 2)
    >>> triples = triple_counts(codes, y, np.ones(4), r, 2)
    >>> model = AveragedTwoDependenceModel.from_statistics(stats, triples, 1.0, 0.0)
    >>> every = np.array(list(itertools.product(range(2), repeat=3)))
    >>> np.exp(model.log_likelihood(every)).sum(axis=0).round(12)  # P(x | c) sums to 1
    array([1., 1.])
    """

    n_categories: NDArray[np.intp]
    pair_log: NDArray[np.float64]
    cond_log: NDArray[np.float64]
    class_log_prior: NDArray[np.float64]

    _FILE_CHECKS = (_check_two_dependence, _averaged_two)

    @classmethod
    def from_statistics(
        cls,
        stats: PairStatistics,
        triples: NDArray[np.float64],
        alpha: float,
        epsilon: float,
    ) -> AveragedTwoDependenceModel:
        """The tables from the pair and triple counts (:func:`~discotree.kernels.
        counts.triple_counts`): ``P(c, x_i, x_j)`` with ``alpha`` per cell of the (class,
        x_i, x_j) table of the rows observing both, each ``P(x_k | c, x_i, x_j)`` with
        ``alpha`` per cell of the conditional over the rows observing the three (both
        floored at ``epsilon``)."""
        r = np.asarray(stats.n_categories, dtype=np.intp)
        d, n_classes, offsets = len(r), stats.n_classes, stats.offsets
        pair_tables, marginals = [], []
        for i in range(d):
            for j in range(i + 1, d):
                block = stats.counts[:, offsets[i] : offsets[i + 1], offsets[j] : offsets[j + 1]]
                joint = np.log(smoothed_conditional(block.reshape(-1), alpha, epsilon))
                marginals.append(logsumexp(joint.reshape(n_classes, -1), axis=1))
                pair_tables.append(joint.reshape(block.shape).transpose(1, 2, 0).reshape(-1))
        layout = triple_layout(r, n_classes)
        triples = np.asarray(triples, dtype=np.float64)
        if triples.shape != (int(layout[-1]),):
            raise ValueError(
                f"A2DE: the triple tables hold {triples.size} cells, the categories "
                f"{r.tolist()} and {n_classes} classes need {int(layout[-1])}."
            )
        cond_log = two_dependence_conditionals(
            triples, r, n_classes, layout, alpha, epsilon=epsilon
        )
        pair_log = np.concatenate(pair_tables) if pair_tables else np.empty(0)
        prior = logsumexp(np.column_stack(marginals), axis=1) - np.log(len(marginals))
        return cls(r, pair_log, cond_log, prior)

    @property
    def n_classes(self) -> int:
        return len(self.class_log_prior)

    @property
    def n_features(self) -> int:
        return len(self.n_categories)

    def joint_log_likelihood(self, codes: NDArray[np.integer]) -> NDArray[np.float64]:
        """``log P(c, x)`` of the average, missing values summed out exactly."""
        r = np.asarray(self.n_categories, dtype=np.int64)
        return two_dependence_joint(
            np.asarray(codes),
            r,
            _pair_starts(r, self.n_classes),
            np.ascontiguousarray(self.pair_log, dtype=np.float64),
            _triple_ranks(len(r)),
            layout=triple_layout(r, self.n_classes),
            cond_log=np.ascontiguousarray(self.cond_log, dtype=np.float64),
            n_classes=self.n_classes,
        )

    def log_likelihood(self, codes: NDArray[np.integer]) -> NDArray[np.float64]:
        """``log P(x | c)``: the average's joint less its class marginal."""
        return self.joint_log_likelihood(codes) - self.class_log_prior
