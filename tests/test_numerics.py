"""The one home of the numerical rules (``discotree.numerics``) gives the numbers of
the copies it replaced, to the bit."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import logsumexp

from discotree.numerics import (
    class_log_prior,
    classification_rate,
    log_shares,
    log_sum_exp,
    normalise_log,
    weighted_accuracy,
    weighted_error_rate,
)


@pytest.fixture
def rng():
    return np.random.default_rng(0)


def test_class_prior_is_the_old_formulas_to_the_bit(rng):
    w = rng.random(5) * 7
    assert np.array_equal(class_log_prior(w), np.log(w / w.sum()))
    counts = rng.integers(0, 9, 4).astype(np.float64)
    laplace = np.log((counts + 1.0) / (counts.sum() + len(counts)))
    assert np.array_equal(class_log_prior(counts, pseudo_count=1.0), laplace)
    rows = rng.random((6, 3)) * 4
    old = np.log((rows + 1.0) / (rows.sum(axis=1, keepdims=True) + rows.shape[1]))
    assert np.array_equal(class_log_prior(rows, pseudo_count=1.0), old)
    total = w.sum() * (1 + 1e-15)
    assert np.array_equal(class_log_prior(w, total=total), np.log(w / total))


def test_a_class_without_weight_gets_minus_infinity_without_a_warning():
    with np.errstate(all="raise"):
        prior = class_log_prior(np.array([2.0, 0.0]))
    assert prior[1] == -np.inf and prior[0] == 0.0
    assert np.array_equal(log_shares(np.array([1.0, 3.0])), np.log([0.25, 0.75]))


def test_log_sum_exp_is_scipys_and_normalise_log_uses_it(rng):
    # scipy's logsumexp is the reference (its arithmetic differs in the last bits:
    # log1p of the others' share, where this one takes log of the whole sum)
    for shape, axis in (((7, 3), 1), ((2, 4, 3), 2), ((2, 4, 3), 0), ((9,), 0)):
        values = rng.normal(size=shape) * 50
        expected = logsumexp(values, axis=axis, keepdims=True)
        got = log_sum_exp(values, axis=axis, keepdims=True)
        np.testing.assert_allclose(got, expected, rtol=1e-14, atol=1e-14)
        assert np.array_equal(log_sum_exp(values, axis=axis), np.squeeze(got, axis=axis))
        assert np.array_equal(normalise_log(values, axis=axis), values - got)
    huge = np.array([[1000.0, 1000.0], [-1000.0, -1001.0]])  # no overflow, no underflow
    np.testing.assert_allclose(log_sum_exp(huge), logsumexp(huge, axis=-1), rtol=1e-15)
    edges = np.array([[-np.inf, -np.inf], [-np.inf, 0.0], [np.inf, 0.0], [np.nan, 0.0]])
    with np.errstate(all="raise"):
        got = log_sum_exp(edges[:2])
    assert got.tolist() == [-np.inf, 0.0]
    with np.errstate(invalid="ignore"):
        assert log_sum_exp(edges[2:3])[0] == np.inf
        assert np.isnan(log_sum_exp(edges[3:]))[0]


def test_rates_are_the_old_formulas_to_the_bit(rng):
    truth, pred = rng.integers(0, 3, 50), rng.integers(0, 3, 50)
    w = rng.random(50)
    assert weighted_accuracy(truth, pred) == float(np.mean(pred == truth))
    assert weighted_accuracy(truth, pred, w) == float(w[pred == truth].sum()) / float(w.sum())
    wrong = pred != truth
    assert weighted_error_rate(truth, pred, w) == float(w @ wrong) / max(float(w.sum()), 1e-300)
    assert weighted_error_rate(truth, pred) == float(np.mean(pred != truth))
    assert weighted_accuracy(truth[:0], pred[:0]) == 0.0
    assert weighted_accuracy(truth, pred, np.zeros(50)) == 0.0
    scores = np.eye(3)[pred]
    assert classification_rate(scores, truth, w) == weighted_accuracy(truth, pred, w)


def _tie_rule_rows(seed: int, n_rows: int = 2000):
    """Short rows of scores with exact ties, ties below the tolerance, infinities and
    NaN."""
    rng = np.random.default_rng(seed)
    for _ in range(n_rows):
        n = int(rng.integers(1, 10))
        values = rng.integers(-3, 3, n) * rng.choice([1.0, 1e6], n)
        values = values + rng.choice([0.0, 1e-14, 1e-9, 1e-3], n)
        special = rng.random(n)
        values[special < 0.05] = np.inf
        values[(special >= 0.05) & (special < 0.1)] = -np.inf
        values[(special >= 0.1) & (special < 0.13)] = np.nan
        yield values


@pytest.mark.parametrize("name", ["best_index", "compiled_best_index"])
def test_one_row_s_best_index_is_the_row_argmax_with_ties(name):
    # the Python and the compiled index of one row: the index of the 2-D rule
    from discotree import numerics

    one_row = getattr(numerics, name)
    for values in _tie_rule_rows(0):
        assert int(one_row(values)) == int(numerics.argmax_with_ties(values[None])[0]), values
