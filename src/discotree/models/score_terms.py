"""A row's available-case scores as sums of small terms: what Shapley values by model
structure read (:mod:`discotree.shapley`).

Under the **available-case rule** every member of a kDB ensemble scores a row with
some features missing from the features it sees, each missing feature leaving out
exactly the parts of the score that read it:

- a k-dependence member (:class:`~discotree.models.k_dependence.KDependenceModel`)
  drops the factor of a missing child and backs a factor with missing parents off to
  the longest observed prefix of its ranked parents (its back-off rule; the model sums
  missing parents out exactly by variable elimination instead where that is
  affordable, which this rule is not);
- a logistic member (:class:`~discotree.models.logistic.LogisticModel`) drops the input
  of a missing feature and of every pair that reads it, and gives the class prior for
  a row with no feature observed (:class:`~discotree.models.ensemble.KDBEnsembleModel`).

So for a row ``x`` and a set ``S`` of observed features, each member's per-class score
is a constant plus a sum of **terms**, one per family (a child and its parents in
use), single feature or pair, each depending only on which features of its small set
are in ``S``. :func:`score_terms` tabulates, for explained rows, every term's
contribution under every observed-pattern of its set (``2^|set|`` patterns), computed
by the members' own scoring code on masked copies of the rows, so that any ``v(S)``
is a sum of table lookups; :class:`ScorePooling` says how the members' scores become
the posterior.

Examples
--------
>>> from discotree import KDBClassifier
>>> X = np.array([[0, 1, 1], [1, 0, 1], [1, 1, 0], [0, 0, 0]] * 5)
>>> clf = KDBClassifier(k=1).fit(X, [0, 1, 1, 0] * 5)
>>> codes = clf.encoder_.transform(X[:1])
>>> terms, pooling = score_terms(clf.model_, clf.class_log_prior_, codes)
>>> terms[0].features.shape[1], pooling.n_members
(2, 1)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from .. import missing_values
from . import k_dependence
from .category_maps import apply_maps
from .ensemble import KDBEnsembleModel
from .k_dependence import KDependenceModel
from .logistic import LogisticModel

__all__ = [
    "MAX_TERM_FEATURES",
    "RowTerms",
    "ScorePooling",
    "backoff_only",
    "score_terms",
    "supports_score_terms",
]

#: The most features one term reads (a child and at most this many minus one parents).
MAX_TERM_FEATURES = 12
#: Rows of masked copies scored by one call of a member's node (per term variant).
_VARIANT_ROWS = 65_536


@dataclass
class ScorePooling:
    """How the groups' scores become the posterior: groups ``0..n_members-1`` are the
    k-dependence members (each normalised, then averaged as probabilities), then the
    linear member (group ``linear_group``, mixed linearly with weight
    ``linear_weight``) and the pair member (group ``pair_group``, pooled with weight
    ``pair_weight``, logarithmically when ``log_pool``); -1: no such group. The
    logistic groups give ``prior`` for a row with no feature observed."""

    n_members: int
    linear_group: int
    linear_weight: float
    pair_group: int
    pair_weight: float
    log_pool: bool
    prior: NDArray[np.float64]

    @property
    def n_groups(self) -> int:
        return self.n_members + (self.linear_group >= 0) + (self.pair_group >= 0)

    def additive_weights(self) -> NDArray[np.float64] | None:
        """Per group, its weight in the posterior's log-odds when, for two classes, the
        log-odds is a weighted sum of the groups' score differences (one component of
        the linear mixtures in use, and a logarithmic pair pool); None otherwise."""
        alpha = np.zeros(self.n_groups)
        w = self.linear_weight if self.linear_group >= 0 else 0.0
        if w >= 1:
            alpha[self.linear_group] = 1.0
        elif w <= 0 and self.n_members == 1:
            alpha[0] = 1.0
        else:
            return None
        v = self.pair_weight if self.pair_group >= 0 else 0.0
        if v >= 1:
            alpha[:] = 0.0
            alpha[self.pair_group] = 1.0
        elif v > 0:
            if not self.log_pool:
                return None
            alpha *= 1.0 - v
            alpha[self.pair_group] = v
        return alpha


@dataclass
class RowTerms:
    """One row's terms: term ``t`` reads ``features[t, :sizes[t]]`` (bit ``b`` of a
    pattern: feature ``features[t, b]`` observed), adds ``tables[offsets[t] + p]``
    (per class) to group ``groups[t]`` under pattern ``p``; ``base`` (groups,
    classes) is each group's constant; ``observed`` the features the row has."""

    features: NDArray[np.int64]
    sizes: NDArray[np.int64]
    groups: NDArray[np.int64]
    offsets: NDArray[np.int64]
    tables: NDArray[np.float64]
    base: NDArray[np.float64]
    observed: NDArray[np.bool_]


def backoff_only(model: KDependenceModel) -> bool:
    """Whether the model scores every row with missing features by the available-case
    rule (no parent in use, or dense tables too large for exact elimination)."""
    has_parents = any(len(model.parents[j]) for j in model.attributes)
    return not has_parents or model.dense_cells() > k_dependence.MAX_DENSE_CELLS


def supports_score_terms(model: object) -> bool:
    """Whether :func:`score_terms` decomposes this fitted model."""
    if isinstance(model, KDBEnsembleModel):
        return all(_small_families(m) for m in model.members)
    return isinstance(model, KDependenceModel) and _small_families(model)


def _small_families(model: KDependenceModel) -> bool:
    return all(len(model.parents[j]) < MAX_TERM_FEATURES for j in model.attributes)


class _TermCollector:
    """The terms of several rows, gathered group by group."""

    def __init__(self, n_rows: int, n_classes: int):
        self.features: list[tuple[int, ...]] = []
        self.groups: list[int] = []
        self.tables: list[NDArray[np.float64]] = []  # each (rows, 2^size, classes)
        self.n_rows, self.n_classes = n_rows, n_classes

    def add(self, features: tuple[int, ...], group: int, table: NDArray[np.float64]) -> None:
        self.features.append(features)
        self.groups.append(group)
        self.tables.append(table)

    def rows(self, base: NDArray[np.float64], observed: NDArray[np.bool_]) -> list[RowTerms]:
        n_terms = len(self.features)
        width = max([len(f) for f in self.features] + [1])
        features = np.full((n_terms, width), -1, dtype=np.int64)
        for t, f in enumerate(self.features):
            features[t, : len(f)] = f
        sizes = np.array([len(f) for f in self.features], dtype=np.int64)
        offsets = np.concatenate([[0], np.cumsum(1 << sizes)]).astype(np.int64)
        stacked = (
            np.concatenate(self.tables, axis=1)
            if n_terms
            else np.zeros((self.n_rows, 0, self.n_classes))
        )
        groups = np.array(self.groups, dtype=np.int64)
        return [
            RowTerms(
                features,
                sizes,
                groups,
                offsets,
                np.ascontiguousarray(stacked[i]),
                base[i],
                observed[i],
            )
            for i in range(self.n_rows)
        ]


def _pattern_masks(size: int) -> NDArray[np.bool_]:
    """(2^size, size): bit b of each pattern."""
    patterns = np.arange(1 << size)
    return ((patterns[:, None] >> np.arange(size)) & 1).astype(bool)


def _kdb_terms(
    model: KDependenceModel, codes: NDArray[np.integer], group: int, out: _TermCollector
) -> None:
    """Every used node's factor under each observed-pattern of its family, scored by
    the model's own :meth:`~KDependenceModel.node_log_probability` (its back-off rule)
    on masked copies of the rows."""
    n_rows, d = codes.shape
    for node in model.attributes:
        family = (int(node), *(int(p) for p in model.parents[node]))
        keep = _pattern_masks(len(family))  # (P, size)
        n_patterns = len(keep)
        variants = np.full((n_rows, n_patterns, d), -1, dtype=codes.dtype)
        values = codes[:, list(family)]  # (rows, size)
        variants[:, :, list(family)] = np.where(keep[None], values[:, None, :], -1)
        flat = variants.reshape(-1, d)
        scored = np.concatenate(
            [
                model.node_log_probability(node, flat[s : s + _VARIANT_ROWS])
                for s in range(0, len(flat), _VARIANT_ROWS)
            ]
        )
        out.add(family, group, scored.reshape(n_rows, n_patterns, -1))


def _logistic_terms(
    model: LogisticModel, codes: NDArray[np.integer], group: int, out: _TermCollector
) -> None:
    """Each input's weight per class, as the term of its feature (a single feature's
    input, pattern 1) or pair (pattern 3): what the model adds for it when it is read."""
    inputs = model.inputs(codes)
    one_hot = [j for j, v in enumerate(model.values) if v is None]
    with_values = [j for j, v in enumerate(model.values) if v is not None]
    n_rows, n_classes = len(codes), model.n_classes
    for s in range(inputs.slots.shape[0]):
        slot = inputs.slots[s]
        features: tuple[int, ...]
        if s < len(one_hot):
            features = (one_hot[s],)
        else:
            pair = model.pairs[s - len(one_hot)]
            features = (int(pair[0]), int(pair[1]))
        table = np.zeros((n_rows, 1 << len(features), n_classes))
        seen = slot >= 0
        table[seen, -1] = model.coef[slot[seen]]
        out.add(features, group, table)
    for q, j in enumerate(with_values):
        table = np.zeros((n_rows, 2, n_classes))
        x = inputs.numeric[q]
        table[:, 1] = x[:, None] * model.coef[inputs.numeric_inputs[q]][None, :]
        table[x == 0.0, 1] = 0.0  # (as the scores kernel: a zero value adds nothing)
        out.add((j,), group, table)


def score_terms(
    model: KDBEnsembleModel | KDependenceModel,
    class_log_prior: NDArray[np.float64],
    codes: NDArray[np.integer],
) -> tuple[list[RowTerms], ScorePooling]:
    """The terms of every row of ``codes`` (the estimator's encoded rows, -1: missing)
    and the model's pooling (see the module).

    Parameters
    ----------
    model : KDBEnsembleModel or KDependenceModel
    class_log_prior : ndarray of shape (n_classes,)
        The prior the estimator adds to a plain k-dependence model's log-likelihood
        (the ensemble carries its own).
    codes : ndarray of shape (n_rows, n_features)

    Returns
    -------
    list of RowTerms, ScorePooling
    """
    codes = np.asarray(codes, dtype=np.intp)
    n_rows = len(codes)
    if isinstance(model, KDependenceModel):
        prior = np.asarray(class_log_prior, dtype=np.float64)
        out = _TermCollector(n_rows, len(prior))
        _kdb_terms(model, codes, 0, out)
        pooling = ScorePooling(1, -1, 0.0, -1, 0.0, False, prior)
        base = np.broadcast_to(prior, (n_rows, 1, len(prior)))
        return out.rows(np.array(base), missing_values.observed(codes)), pooling
    prior = np.asarray(model.class_log_prior, dtype=np.float64)
    out = _TermCollector(n_rows, len(prior))
    bases = []
    for g, (maps, member) in enumerate(zip(model.maps, model.members, strict=True)):
        _kdb_terms(member, apply_maps(codes, maps), g, out)
        bases.append(prior)
    n_members = len(model.members)
    linear_group = pair_group = -1
    if model.linear is not None and model.linear_weight > 0:
        linear_group = len(bases)
        _logistic_terms(model.linear, codes, linear_group, out)
        bases.append(np.asarray(model.linear.intercept, dtype=np.float64))
    if model.pair_member is not None and model.pair_weight > 0:
        pair_group = len(bases)
        _logistic_terms(model.pair_member, codes, pair_group, out)
        bases.append(np.asarray(model.pair_member.intercept, dtype=np.float64))
    pooling = ScorePooling(
        n_members,
        linear_group,
        float(model.linear_weight),
        pair_group,
        float(model.pair_weight),
        model.pair_pooling == "log",
        prior,
    )
    base = np.broadcast_to(np.stack(bases), (n_rows, len(bases), len(prior)))
    return out.rows(np.array(base), missing_values.observed(codes)), pooling
