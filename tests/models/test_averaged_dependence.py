"""A1DE (Webb, Boughton & Wang 2005): the joint against a slow reference computed from
the rows, with weights and missing values; missing values summed out exactly (checked by
enumerating their completions); P(x | c) sums to one."""

import itertools

import numpy as np
from numpy.testing import assert_allclose

from discotree.models.averaged_dependence import AveragedOneDependenceModel
from discotree.stats.pair_statistics import PairStatistics
from tests.data import coded_rows

N_CATEGORIES = np.array([2, 3, 2, 2])


def _fit(rng, alpha=0.7, n=120):
    codes, y, w = coded_rows(rng, N_CATEGORIES, n, missing=0.15, weight_floor=0.2)
    stats = PairStatistics.from_codes(codes, y, N_CATEGORIES, 3, w)
    return codes, y, w, AveragedOneDependenceModel.from_statistics(stats, alpha, 0.0)


def _reference_joint(codes, y, w, row, alpha):
    """(1/d) sum_i P(c, x_i) prod_{j != i observed} P(x_j | c, x_i), the estimator of a
    missing super-parent summed over its values; counts from the rows (available-case)."""
    d, n_classes = len(N_CATEGORIES), 3
    out = np.zeros(n_classes)
    for c in range(n_classes):
        total = 0.0
        for i in range(d):
            values = [row[i]] if row[i] >= 0 else range(N_CATEGORIES[i])
            for a in values:
                seen_i = codes[:, i] >= 0
                n_ca = w[seen_i & (y == c) & (codes[:, i] == a)].sum()
                p = (n_ca + alpha) / (w[seen_i].sum() + alpha * n_classes * N_CATEGORIES[i])
                for j in range(d):
                    if j == i or row[j] < 0:
                        continue
                    both = seen_i & (codes[:, j] >= 0) & (y == c) & (codes[:, i] == a)
                    hit = w[both & (codes[:, j] == row[j])].sum()
                    p *= (hit + alpha) / (w[both].sum() + alpha * N_CATEGORIES[j])
                total += p
        out[c] = total / d
    return np.log(out)


def assert_joint_is_the_reference(fit, reference_joint, rng):
    """The joint log-likelihood of the model ``fit(rng)`` fits (alpha 0.7) of the first
    15 of its rows is ``reference_joint(codes, y, w, row, 0.7)`` of each."""
    codes, y, w, model = fit(rng)
    rows = codes[:15]
    expected = np.array([reference_joint(codes, y, w, row, 0.7) for row in rows])
    assert_allclose(model.joint_log_likelihood(rows), expected, rtol=1e-10)


def test_the_joint_equals_the_reference(rng):
    assert_joint_is_the_reference(_fit, _reference_joint, rng)


def test_missing_values_are_summed_out_exactly(rng):
    _, _, _, model = _fit(rng)
    row = np.array([1, -1, 0, -1])
    completions = np.array([[1, b, 0, d] for b, d in itertools.product(range(3), range(2))])
    brute = np.log(np.exp(model.joint_log_likelihood(completions)).sum(axis=0))
    assert_allclose(model.joint_log_likelihood(row[None])[0], brute, rtol=1e-12)


def test_the_class_conditional_sums_to_one(rng):
    _, _, _, model = _fit(rng)
    every = np.array(list(itertools.product(*[range(r) for r in N_CATEGORIES])))
    assert_allclose(np.exp(model.log_likelihood(every)).sum(axis=0), 1.0)
    # and the chunked scoring of many rows equals row-by-row scoring
    many = np.tile(every, (200, 1))
    assert_allclose(model.joint_log_likelihood(many)[-5:], model.joint_log_likelihood(many[-5:]))
