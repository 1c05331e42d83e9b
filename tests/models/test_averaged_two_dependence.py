"""A2DE (Webb et al. 2012): the triple counts against a loop over rows, the joint
against a slow reference computed from the rows with weights and missing values,
missing values summed out exactly (checked by enumerating their completions), and
P(x | c) sums to one."""

import itertools

import numpy as np
import pytest
from numpy.testing import assert_allclose

from discotree.kernels.counts import triple_counts, triple_layout
from discotree.models.averaged_dependence import AveragedTwoDependenceModel
from discotree.stats.pair_statistics import PairStatistics
from tests import reference
from tests.data import coded_rows
from tests.models.test_averaged_dependence import assert_joint_is_the_reference

N_CATEGORIES = np.array([2, 3, 2, 2])


def _data(rng, n=120, missing=0.15):
    return coded_rows(rng, N_CATEGORIES, n, missing=missing, weight_floor=0.2)


def _fit(rng, alpha=0.7, epsilon=0.0):
    codes, y, w = _data(rng)
    stats = PairStatistics.from_codes(codes, y, N_CATEGORIES, 3, w)
    triples = triple_counts(codes, y, w, N_CATEGORIES, 3)
    return codes, y, w, AveragedTwoDependenceModel.from_statistics(stats, triples, alpha, epsilon)


@pytest.mark.parametrize("n_categories", [[2, 3, 2, 2], [3, 1, 4, 2, 2], [2, 2, 2]])
def test_triple_counts_equal_the_reference(rng, n_categories):
    r = np.array(n_categories)
    codes, y, w = coded_rows(rng, r, 90, missing=0.2)
    fast = triple_counts(codes, y, w, r, 3)
    layout = triple_layout(r, 3)
    tables = reference.triple_counts(codes, y, w, r, 3)
    assert len(tables) == len(layout) - 1
    for t, table in enumerate(tables):
        part = fast[layout[t] : layout[t + 1]].reshape((*table.shape[1:], 3))
        assert_allclose(np.moveaxis(part, -1, 0), table, rtol=1e-12)


def _reference_joint(codes, y, w, row, alpha):
    """(1/P) sum_{i<j} sum over the missing super-parents' values of P(c, a, b)
    prod_{k observed} P(x_k | c, a, b); counts from the rows (available-case)."""
    d, n_classes = len(N_CATEGORIES), 3
    pairs = list(itertools.combinations(range(d), 2))
    out = np.zeros(n_classes)
    for c in range(n_classes):
        total = 0.0
        for i, j in pairs:
            seen = (codes[:, i] >= 0) & (codes[:, j] >= 0)
            cells = n_classes * N_CATEGORIES[i] * N_CATEGORIES[j]
            for a in [row[i]] if row[i] >= 0 else range(N_CATEGORIES[i]):
                for b in [row[j]] if row[j] >= 0 else range(N_CATEGORIES[j]):
                    at = seen & (codes[:, i] == a) & (codes[:, j] == b) & (y == c)
                    p = (w[at].sum() + alpha) / (w[seen].sum() + alpha * cells)
                    for k in range(d):
                        if k in (i, j) or row[k] < 0:
                            continue
                        context = at & (codes[:, k] >= 0)
                        hit = w[context & (codes[:, k] == row[k])].sum()
                        p *= (hit + alpha) / (w[context].sum() + alpha * N_CATEGORIES[k])
                    total += p
        out[c] = total / len(pairs)
    return np.log(out)


def test_the_joint_equals_the_reference(rng):
    assert_joint_is_the_reference(_fit, _reference_joint, rng)


@pytest.mark.parametrize("row", [[1, -1, 0, -1], [-1, -1, 1, 0], [-1, 2, -1, -1]])
def test_missing_values_are_summed_out_exactly(rng, row):
    _, _, _, model = _fit(rng)
    row = np.array(row)
    missing = np.flatnonzero(row < 0)
    completions = []
    for values in itertools.product(*[range(N_CATEGORIES[m]) for m in missing]):
        full = row.copy()
        full[missing] = values
        completions.append(full)
    brute = np.log(np.exp(model.joint_log_likelihood(np.array(completions))).sum(axis=0))
    assert_allclose(model.joint_log_likelihood(row[None])[0], brute, rtol=1e-12)


@pytest.mark.parametrize(("alpha", "epsilon"), [(0.7, 0.0), (0.0, 1e-5)])
def test_the_class_conditional_sums_to_one(rng, alpha, epsilon):
    _, _, _, model = _fit(rng, alpha, epsilon)
    every = np.array(list(itertools.product(*[range(r) for r in N_CATEGORIES])))
    assert_allclose(np.exp(model.log_likelihood(every)).sum(axis=0), 1.0)
    assert np.isfinite(model.cond_log).all() and (model.cond_log <= 1e-12).all()


def test_the_triple_tables_must_fit_the_categories(rng):
    codes, y, w = _data(rng)
    stats = PairStatistics.from_codes(codes, y, N_CATEGORIES, 3, w)
    with pytest.raises(ValueError, match="triple tables hold 5 cells"):
        AveragedTwoDependenceModel.from_statistics(stats, np.ones(5), 1.0, 0.0)
