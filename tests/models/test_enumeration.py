"""The enumeration of missing parents (:mod:`discotree.models.enumeration`): every row's
copies over the joint values of the parents it sums out, scored together, give each
row its brute-force sum (the complete rows' likelihoods added), with weights, missing
values (barren parents and missing leaves left to the scoring's 0), the packed and the
per-node scoring, and any block size (the same numbers to the bit for every block)."""

import itertools

import numpy as np
import pytest
from numpy.testing import assert_allclose

from discotree.missing_values import is_missing
from discotree.models import k_dependence
from discotree.models.enumeration import enumerated_log_likelihood, joint_values
from tests.stats.test_backoff_prediction import _random_model, _test_rows


def _brute_force(model, row):
    """log sum over every missing attribute's values (of those in use: the others'
    factor is 1) of the complete rows' likelihoods."""
    missing = [j for j in np.flatnonzero(is_missing(row)) if j in model.attributes]
    arities = [range(int(model.n_categories[j])) for j in missing]
    filled = np.tile(row, (int(np.prod([len(a) for a in arities])), 1))
    filled[:, missing] = list(itertools.product(*arities))
    return np.log(np.exp(model.log_likelihood(filled)).sum(axis=0))


@pytest.mark.parametrize("packed", [False, True])
def test_enumerated_rows_equal_the_brute_force_sum_in_any_block(rng, packed):
    for n_classes in (2, 5):
        model, _ = _random_model(rng, n_classes)  # (weighted rows, missing values)
        if not packed:
            model.__dict__["_packed_backoff"] = None
        codes = _test_rows(rng, model, n_rows=40, missing=0.3)
        summed = model._summed_parents(codes)
        assert summed.any(axis=1).sum() > 5
        few = joint_values(summed, model.n_categories) <= 400
        codes, summed = codes[few], summed[few]
        whole = enumerated_log_likelihood(
            model._backed_off, codes, summed, model.n_categories, 1 << 16
        )
        for block in (1, 3, 50):
            got = enumerated_log_likelihood(
                model._backed_off, codes, summed, model.n_categories, block
            )
            assert np.array_equal(got, whole)
        expected = np.array([_brute_force(model, row) for row in codes])
        assert_allclose(whole, expected, rtol=1e-11, atol=1e-13)
        assert_allclose(model.log_likelihood(codes), expected, rtol=1e-11, atol=1e-13)


def test_barren_parents_are_not_enumerated(rng):
    # a missing parent every descendant of which is missing sums to 1 with them: left
    # to the scoring's 0; one with an observed descendant is enumerated
    model, _ = _random_model(rng, 3)
    children = model._shape().children
    parent = next(p for p, kids in children.items() if kids and p in model.attributes)
    row = _test_rows(rng, model, n_rows=1, missing=0.0)
    row[0, parent] = -1
    assert model._summed_parents(row)[0, parent]
    descendants, frontier = set(), [parent]
    while frontier:
        for child in children.get(frontier.pop(), []):
            if child not in descendants:
                descendants.add(child)
                frontier.append(child)
    row[0, sorted(descendants)] = -1
    assert not model._summed_parents(row)[0].any()
    expected = _brute_force(model, row[0])
    assert_allclose(model.log_likelihood(row)[0], expected, rtol=1e-11, atol=1e-13)


def test_rows_beyond_the_bound_are_eliminated_instead(rng, monkeypatch):
    model, _ = _random_model(rng, 2)
    codes = _test_rows(rng, model, n_rows=30, missing=0.3)
    unused = np.setdiff1d(np.arange(model.n_features), model.attributes)
    codes[:, unused] = np.maximum(codes[:, unused], 0)  # (a parent not in use: observed)
    assert model._summed_parents(codes).any(axis=1).sum() > 3  # (rows that sum parents)
    enumerated = model.log_likelihood(codes)
    monkeypatch.setattr(k_dependence, "MAX_ENUMERATED_VALUES", 1)
    assert_allclose(model.log_likelihood(codes), enumerated, rtol=1e-11, atol=1e-13)
