"""The subset values of :mod:`discotree.kernels.shapley_orders` against a slow
reference written here: the groups' scores summed from the terms, pooled with
:func:`discotree.models.ensemble.pooled_log_posterior`, as log-odds."""

import numpy as np
import pytest
from scipy.special import logsumexp

from discotree.kernels.shapley_orders import incidence, order_gains, subset_values
from discotree.models.ensemble import pooled_log_posterior
from discotree.models.score_terms import RowTerms, ScorePooling
from discotree.shapley import log_odds


def _random_terms(rng, d=5, n_classes=3, n_groups=4):
    features = [tuple(rng.choice(d, size, replace=False)) for size in (1, 2, 3, 2, 1, 3)]
    sizes = np.array([len(f) for f in features])
    padded = np.full((len(features), 3), -1)
    for t, f in enumerate(features):
        padded[t, : len(f)] = f
    offsets = np.concatenate([[0], np.cumsum(1 << sizes)])
    observed = np.ones(d, dtype=bool)
    observed[1] = False
    return RowTerms(
        padded,
        sizes,
        rng.integers(0, n_groups, len(features)),
        offsets,
        rng.normal(size=(offsets[-1], n_classes)) * 3,
        rng.normal(size=(n_groups, n_classes)),
        observed,
    )


def _slow_value(terms, pooling, kept):
    scores = terms.base.copy()
    for t in range(len(terms.sizes)):
        pattern = sum(1 << b for b in range(terms.sizes[t]) if terms.features[t, b] in kept)
        scores[terms.groups[t]] += terms.tables[terms.offsets[t] + pattern]
    posteriors = scores - logsumexp(scores, axis=1, keepdims=True)
    mean = logsumexp(posteriors[: pooling.n_members], axis=0) - np.log(pooling.n_members)
    blank = not any(terms.observed[j] for j in kept)
    for group, weight, kind in (
        (pooling.linear_group, pooling.linear_weight, "linear"),
        (pooling.pair_group, pooling.pair_weight, "log" if pooling.log_pool else "linear"),
    ):
        if group >= 0 and weight > 0:
            other = pooling.prior if blank else posteriors[group]
            mean = pooled_log_posterior(mean[None], other[None], weight, kind)[0]
    return log_odds(mean[None] - logsumexp(mean))[0]


@pytest.mark.parametrize("scale", [1.0, 100.0])  # 100: classes below 1e-280 (the log path)
@pytest.mark.parametrize("log_pool", [True, False])
def test_subset_values_and_orders_against_the_slow_reference(log_pool, scale):
    rng = np.random.default_rng(0)
    terms = _random_terms(rng)
    terms.tables *= scale
    pooling = ScorePooling(2, 2, 0.3, 3, 0.4, log_pool, np.log([0.2, 0.3, 0.5]))
    masks = np.arange(32)
    values = subset_values(terms, pooling, masks)
    for m in masks:
        kept = {j for j in range(5) if (m >> j) & 1}
        assert np.allclose(values[m], _slow_value(terms, pooling, kept), rtol=0, atol=1e-12)
    orders = np.array([rng.permutation(5) for _ in range(4)])
    gains, empty, full = order_gains(terms, pooling, orders)
    assert np.allclose(empty, values[0]) and np.allclose(full, values[-1])
    assert np.allclose(gains.sum(axis=1), full - empty, atol=1e-12)
    first = orders[0, 0]
    assert np.allclose(gains[0, first], values[1 << first] - values[0], atol=1e-12)


def test_incidence():
    start, term, bit = incidence(np.array([[2, 0], [0, -1]]), np.array([2, 1]), 3)
    assert start.tolist() == [0, 2, 2, 3]
    assert term.tolist() == [0, 1, 0] and bit.tolist() == [1, 0, 0]
