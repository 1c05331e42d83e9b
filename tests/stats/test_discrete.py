"""Discrete information measures against references and textbook values."""

import itertools
import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from numpy.testing import assert_allclose

from discotree.stats.dirichlet import check_smoothing, smoothed_conditional
from discotree.stats.information import (
    conditional_mutual_information,
    entropy,
    j_divergence,
    kl_divergence,
    mutual_information,
)
from discotree.stats.pair_statistics import PairStatistics
from tests import reference
from tests.conftest import discrete_datasets


def _statistics(data) -> PairStatistics:
    codes, y, w, n_cat, n_classes = data
    return PairStatistics.from_codes(codes, y, n_cat, n_classes, w)


def _feature_pairs(data, ordered: bool):
    """``(i, j, tables)`` for every pair of features ``i != j`` (``i < j`` unless
    ``ordered``), ``tables`` the reference count table of ``i`` and ``j`` in each class."""
    codes, y, w, n_cat, n_classes = data
    for i, j in itertools.permutations(range(len(n_cat)), 2):
        if ordered or i < j:
            tables = [
                reference.pair_table(codes, y, w, i, j, n_cat[i], n_cat[j], c)
                for c in range(n_classes)
            ]
            yield i, j, tables


@settings(max_examples=50, deadline=None)
@given(discrete_datasets())
def test_pairwise_mutual_information_matches_reference(data):
    mi = _statistics(data).mutual_information()
    for i in range(len(data[3])):
        assert (mi[:, i, i] == 0.0).all()
    for i, j, tables in _feature_pairs(data, ordered=True):
        for c, table in enumerate(tables):
            assert mi[c, i, j] == pytest.approx(reference.mutual_information(table), abs=1e-10)


@settings(max_examples=50, deadline=None)
@given(discrete_datasets())
def test_conditional_mutual_information_matches_reference(data):
    cmi = _statistics(data).conditional_mutual_information()
    for i, j, tables in _feature_pairs(data, ordered=False):
        n_pair = sum(sum(map(sum, t)) for t in tables)
        expected = (
            sum(sum(map(sum, t)) / n_pair * reference.mutual_information(t) for t in tables)
            if n_pair > 0
            else 0.0
        )
        assert cmi[i, j] == pytest.approx(expected, abs=1e-10)
        assert conditional_mutual_information(np.array(tables)) == pytest.approx(
            expected, abs=1e-10
        )


def test_textbook_values():
    # A fair coin copied: I(X;Y) = H(X) = log 2.
    assert mutual_information(np.array([[5, 0], [0, 5]])) == pytest.approx(math.log(2))
    # Independent table: MI = 0.
    assert mutual_information(np.outer([1, 3], [2, 5])) == pytest.approx(0.0, abs=1e-15)
    assert entropy(np.array([0.5, 0.5])) == pytest.approx(math.log(2))
    assert entropy(np.array([1.0, 0.0])) == 0.0
    p, q = np.array([0.5, 0.5]), np.array([0.9, 0.1])
    kl = 0.5 * math.log(0.5 / 0.9) + 0.5 * math.log(0.5 / 0.1)
    assert kl_divergence(p, q) == pytest.approx(kl)
    reverse = 0.9 * math.log(0.9 / 0.5) + 0.1 * math.log(0.1 / 0.5)
    assert j_divergence(p, q) == pytest.approx(kl + reverse)
    assert kl_divergence(np.array([0.5, 0.5]), np.array([1.0, 0.0])) == math.inf
    # CMI: X = Y within each class, classes equally likely.
    table = np.array([[[2, 0], [0, 2]], [[1, 0], [0, 1]]])
    assert conditional_mutual_information(table) == pytest.approx(math.log(2))


def test_smoothed_conditional():
    counts = np.array([[3.0, 1.0, 0.0], [0.0, 0.0, 0.0]])
    assert_allclose(smoothed_conditional(counts, 1.0, 0.0), [[4 / 7, 2 / 7, 1 / 7], [1 / 3] * 3])
    floored = smoothed_conditional(counts, 0.0, 1e-5)
    expected = np.array([0.75, 0.25, 1e-5]) / (1 + 1e-5)
    assert_allclose(floored[0], expected)
    assert_allclose(floored.sum(axis=1), 1.0)
    assert (floored > 0).all()


def test_check_smoothing_errors_and_floor():
    with pytest.raises(ValueError, match="alpha must be >= 0"):
        check_smoothing(-1.0, 0.0, "X")
    with pytest.raises(ValueError, match="epsilon must be a finite number"):
        check_smoothing(1.0, np.nan, "X")
    with pytest.warns(UserWarning, match="alpha set to 1e-10"):
        assert check_smoothing(0.0, 0.0, "X") == (1e-10, 0.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert check_smoothing(0.0, 1e-5, "X") == (0.0, 1e-5)


def test_missing_values_restrict_each_table_to_observed_pairs():
    codes = np.array([[0, 0, -1], [1, 1, 0], [0, 0, 1], [1, -1, 1]], dtype=np.intp)
    stats = PairStatistics.from_codes(codes, np.zeros(4, np.intp), np.array([2, 2, 2]), 1)
    totals = stats.table_totals()[0]
    assert_allclose(totals, [[4, 3, 3], [3, 3, 2], [3, 2, 3]])
    assert_allclose(stats.marginal(1)[0], [2, 1])


@pytest.mark.parametrize("weighted", [False, True])
def test_univariate_statistics_answer_as_the_full_ones_in_linear_memory(rng, weighted):
    """pairs=False keeps the univariate counts only (a read-only view as ``counts``):
    marginals, own-feature tables, sums, differences, realignment, pooling and
    pickling agree with the full statistics; pair tables are refused."""
    import pickle

    n_categories = np.array([3, 2, 4])
    codes = np.column_stack([rng.integers(-1, r, 60) for r in n_categories])
    y = rng.integers(0, 2, 60)
    w = rng.random(60) if weighted else None
    half = slice(0, 25), slice(25, None)
    full = [PairStatistics.from_codes(codes[h], y[h], n_categories, 2, None if w is None else w[h])
            for h in half]  # fmt: skip
    uni = [
        PairStatistics.from_codes(
            codes[h], y[h], n_categories, 2, None if w is None else w[h], pairs=False
        )
        for h in half
    ]
    assert all(not u.pairs and u.counts.strides[-1] == 0 for u in uni)  # no D x D array
    for f, u in [(full[0], uni[0]), (full[0] + full[1], uni[0] + uni[1])]:
        for j in range(3):
            assert_allclose(u.marginal(j), f.marginal(j))
            assert_allclose(u.table(j, j), f.table(j, j))
        assert_allclose(u.diagonal, np.einsum("cii->ci", f.counts))
    total, part = uni[0] + uni[1], uni[1]
    assert_allclose((total - part).diagonal, uni[0].diagonal, atol=1e-12)
    assert_allclose(total.merged().marginal(2), (full[0] + full[1]).merged().marginal(2))
    grown = total.realigned({0: np.array([0, 2, 3])}, np.array([4, 2, 4]))
    assert_allclose(grown.marginal(0)[:, [0, 2, 3]], total.marginal(0))
    assert_allclose(grown.marginal(0)[:, 1], 0.0)
    again = pickle.loads(pickle.dumps(total))
    assert not again.pairs
    assert_allclose(again.diagonal, total.diagonal)
    with pytest.raises(ValueError, match="univariate"):
        total.table(0, 1)
    with pytest.raises(ValueError, match="univariate"):
        total.mutual_information()
