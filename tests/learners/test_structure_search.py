"""The row learner "tan-search" (Pernkopf & Bilmes 2010, Section 4.4): what
TANClassifier's searches fit is this learner's result, and a structure found before is
kept (what alpha="auto" does)."""

import numpy as np
import pytest
from numpy.testing import assert_allclose

from discotree import TANClassifier
from discotree.learners.registry import get_learner
from discotree.learners.structure_search import Rows, searched_structure
from discotree.validation import check_table


def _data(rng, n=300):
    y = rng.integers(0, 3, n)
    X = rng.integers(0, 3, (n, 6)).astype(float)
    X[:, 0] = np.where(rng.random(n) < 0.7, y % 3, X[:, 0])
    X[:, 1] = np.where(rng.random(n) < 0.6, X[:, 0], X[:, 1])
    X[rng.random(X.shape) < 0.05] = np.nan
    return X, y


@pytest.mark.parametrize(
    "params",
    [
        {"structure": "cr"},
        {"structure": "superparent", "k": 2},
        {"structure": "omi-cr", "k": 2, "structure_folds": 3},
        {"structure": "ro-cr", "parameters": "cl", "cl_max_iter": 5},
        {"k": 0, "parameters": "cl", "cl_max_iter": 5},
    ],
    ids=str,
)
def test_the_learner_is_what_the_estimator_fits(rng, params):
    X, y = _data(rng)
    fitted = TANClassifier(alpha=1.0, **params).fit(X, y)
    codes = fitted.encoder_.transform(check_table(X, "test"))
    rows = Rows(codes, y.astype(np.intp), np.ones(len(y)), 3, fitted.n_categories_)
    spec = fitted._search_spec(1.0)
    result = get_learner("tan-search").fit(rows, spec)
    assert result.attributes["attribute_parents_"] == fitted.attribute_parents_
    assert_allclose(result.model.log_likelihood(codes), fitted.model_.log_likelihood(codes))
    if params.get("structure_folds"):
        assert result.attributes["n_structure_steps_"] == fitted.n_structure_steps_


def test_a_structure_found_before_is_kept(rng):
    X, y = _data(rng)
    clf = TANClassifier(structure="cr", alpha=1.0).fit(X, y)
    codes = clf.encoder_.transform(check_table(X, "test"))
    rows = Rows(codes, y.astype(np.intp), np.ones(len(y)), 3, clf.n_categories_)
    found = searched_structure(rows, clf._search_spec(1.0))
    found.parents = [()] * 6  # a structure the search would not give: it is kept
    kept = get_learner("tan-search").fit(rows, clf._search_spec(0.5, found))
    assert kept.attributes["attribute_parents_"] == [()] * 6
    assert kept.attributes["n_score_evaluations_"] == found.n_evaluations
