"""Every row's posterior with each feature summed out in turn, from the model's
structure: what ``feature_importances_`` of the kDB models and ensembles reads
(:mod:`discotree.importance`), without a prediction of ``features x rows`` masked
copies.

For a row with nothing missing and a feature ``m`` left out, a k-dependence model's
``log P(x_{-m} | c)`` differs from the full row's only in ``m``'s own factor and its
children's: as the model's prediction does (:mod:`discotree.models.k_dependence`),
``m``'s factor is dropped and, when ``m`` is a parent, its children's factors are
replaced by ``m`` summed out exactly over its values,
``log sum_v P(m = v | c, pa_m) prod_{k in ch(m)} P(x_k | c, pa_k, m = v)``, where the
model's prediction sums it out (:data:`~discotree.models.k_dependence.MAX_DENSE_CELLS`,
and at most :data:`~discotree.models.k_dependence.MAX_ENUMERATED_VALUES` values or an
affordable elimination: :data:`~discotree.models.k_dependence.MAX_ELIMINATION_CELLS`),
or by their back-off factors (``m`` missing) where it does not. Each factor is scored by
the model's own
:meth:`~discotree.models.k_dependence.KDependenceModel.node_log_probability` on copies
of the rows with one column changed (every node in one call). A logistic member's
score less feature ``m``'s inputs (its own and its pairs') is its score without
``m``. The members are pooled as :class:`~discotree.models.ensemble.KDBEnsembleModel`
pools them.

Examples
--------
>>> from discotree import KDBClassifier
>>> X = np.array([[0, 1, 1], [1, 0, 1], [1, 1, 0], [0, 0, 0]] * 5)
>>> clf = KDBClassifier(k=1).fit(X, [0, 1, 1, 0] * 5)
>>> codes = clf.encoder_.transform(X[:2])
>>> log_posteriors = summed_out_log_posteriors(clf.model_, clf.class_log_prior_, codes)
>>> log_posteriors.shape  # features, rows, classes
(3, 2, 2)
>>> masked = np.array([[np.nan, 1, 1]])
>>> bool(np.allclose(log_posteriors[0, :1], clf.predict_log_proba(masked)))
True
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray
from scipy.special import log_softmax, logsumexp

from .. import missing_values
from ..numerics import normalise_log
from . import k_dependence
from .category_maps import apply_maps
from .ensemble import KDBEnsembleModel, pooled_log_posterior
from .k_dependence import KDependenceModel
from .logistic import LogisticModel

__all__ = ["summed_out_log_posteriors", "supports_summed_out"]


def supports_summed_out(model: object) -> bool:
    """Whether :func:`summed_out_log_posteriors` computes this model's (every parent
    in use is itself a used attribute, as selective kDB's are)."""
    members = model.members if isinstance(model, KDBEnsembleModel) else [model]
    return all(
        isinstance(m, KDependenceModel)
        and {p for j in m.attributes for p in m.parents[j]} <= set(m.attributes)
        for m in members
    )


def _variants(
    member: KDependenceModel, node: int, codes: NDArray[np.integer]
) -> tuple[list[tuple[int, int]], NDArray[np.float64]]:
    """Node ``node``'s factor (rows, classes) with one column of its family changed:
    for each column of the family, missing (-1) then each of its values; the list of
    (column, value) and the factors, shape (variants, rows, classes)."""
    family = (node, *member.parents[node])
    changes = [(v, value) for v in family for value in range(-1, int(member.n_categories[v]))]
    n = len(codes)
    copies: NDArray[np.integer] = np.tile(
        codes.astype(_narrow(member.n_categories)), (len(changes), 1)
    )
    for i, (column, value) in enumerate(changes):
        copies[i * n : (i + 1) * n, column] = value
    factors = member.node_log_probability(node, copies)
    return changes, factors.reshape(len(changes), n, -1)


def _narrow(n_categories: NDArray[np.intp]) -> type:
    """The smallest signed integer type holding every code and -1 (the copies' type)."""
    largest = int(np.max(n_categories, initial=1))
    return np.int8 if largest < 127 else np.int16 if largest < 32767 else np.intp


def _member_summed_out(member: KDependenceModel, codes: NDArray[np.integer]) -> NDArray[np.float64]:
    """``log P(x_{-m} | c)`` of every feature ``m`` and row (features, rows, classes)."""
    n, d = codes.shape
    n_classes = member.n_classes
    changed: dict[int, dict[tuple[int, int], NDArray[np.float64]]] = {}
    factors = {}
    rows = np.arange(n)
    for node in member.attributes:
        changes, values = _variants(member, node, codes)
        changed[node] = dict(zip(changes, values, strict=True))
        own = np.stack([changed[node][(node, v)] for v in range(int(member.n_categories[node]))])
        factors[node] = own[codes[:, node], rows]  # (the row's own value: its factor)
    total = sum(factors.values(), np.zeros((n, n_classes)))
    out = np.broadcast_to(total, (d, n, n_classes)).copy()
    children: dict[int, list[int]] = {}
    for k in member.attributes:
        for p in member.parents[k]:
            children.setdefault(p, []).append(k)
    dense = member.dense_cells() <= k_dependence.MAX_DENSE_CELLS
    for node in member.attributes:
        out[node] += changed[node][(node, -1)] - factors[node]  # its own factor, missing
    for m, kids in children.items():
        out[m] -= sum(factors[k] for k in kids)
        # (the guard of {m} alone: the one factor its elimination forms holds m)
        cells = int(member.n_categories[m])
        enumerated = cells <= k_dependence.MAX_ENUMERATED_VALUES
        if dense and (enumerated or cells * n_classes <= k_dependence.MAX_ELIMINATION_CELLS):
            stacked = np.stack(
                [changed[m][(m, v)] + sum(changed[k][(m, v)] for k in kids) for v in range(cells)]
            )
            out[m] += logsumexp(stacked, axis=0)
        else:  # the back-off rule: the children's factors with m missing
            out[m] += sum(changed[k][(m, -1)] for k in kids)
    return out


def _logistic_summed_out(
    model: LogisticModel, codes: NDArray[np.integer], prior: NDArray[np.float64]
) -> NDArray[np.float64]:
    """The logistic model's log posterior without each feature (features, rows,
    classes): its score less the feature's inputs; the prior for a row with nothing
    else observed."""
    n, d = codes.shape
    inputs = model.inputs(codes)
    scores = model.scores(codes)
    by_feature = np.zeros((d, n, model.n_classes))
    one_hot = [j for j, v in enumerate(model.values) if v is None]
    with_values = [j for j, v in enumerate(model.values) if v is not None]
    for s in range(inputs.slots.shape[0]):
        slot = inputs.slots[s]
        seen = slot >= 0
        weight = np.zeros((n, model.n_classes))
        weight[seen] = model.coef[slot[seen]]
        pair = [one_hot[s]] if s < len(one_hot) else model.pairs[s - len(one_hot)].tolist()
        for j in pair:
            by_feature[j] += weight
    for q, j in enumerate(with_values):
        by_feature[j] += inputs.numeric[q][:, None] * model.coef[inputs.numeric_inputs[q]]
    out = log_softmax(scores[None] - by_feature, axis=2)
    observed = missing_values.observed(codes)
    alone = observed.sum(axis=1)[None, :] - observed.T <= 0  # (features, rows)
    out[alone] = prior
    return out


def summed_out_log_posteriors(
    model: KDBEnsembleModel | KDependenceModel,
    class_log_prior: NDArray[np.float64],
    codes: NDArray[np.integer],
) -> NDArray[np.float64]:
    """``log P(c | x_{-j})`` of every feature ``j``, row and class, as the estimator
    predicts it for the row with ``j`` missing (see the module).

    Parameters
    ----------
    model : KDBEnsembleModel or KDependenceModel
        One that :func:`supports_summed_out`.
    class_log_prior : ndarray of shape (n_classes,)
        The prior the estimator adds to the model's log-likelihood.
    codes : ndarray of shape (n_rows, n_features)
        Encoded rows with **no** missing value.

    Returns
    -------
    ndarray of shape (n_features, n_rows, n_classes)
    """
    codes = np.asarray(codes, dtype=np.intp)
    if missing_values.has_missing(codes):
        raise ValueError("summed_out_log_posteriors: the rows must have no missing value.")
    prior = np.asarray(class_log_prior, dtype=np.float64)
    if isinstance(model, KDependenceModel):
        joint = _member_summed_out(model, codes) + prior
        return normalise_log(joint, axis=2)
    own = np.asarray(model.class_log_prior, dtype=np.float64)
    posteriors = []
    for maps, member in zip(model.maps, model.members, strict=True):
        joint = _member_summed_out(member, apply_maps(codes, maps)) + own
        posteriors.append(normalise_log(joint, axis=2))
    d, n, n_classes = posteriors[0].shape
    mean = (logsumexp(np.stack(posteriors), axis=0) - np.log(len(posteriors))).reshape(
        -1, n_classes
    )
    for other, weight, pooling in (
        (model.linear, model.linear_weight, "linear"),
        (model.pair_member, model.pair_weight, model.pair_pooling),
    ):
        if other is not None and weight > 0:
            log_q = _logistic_summed_out(other, codes, own).reshape(-1, n_classes)
            mean = pooled_log_posterior(mean, log_q, float(weight), pooling)
    joint = mean.reshape(d, n, n_classes) - own + prior
    return normalise_log(joint, axis=2)
