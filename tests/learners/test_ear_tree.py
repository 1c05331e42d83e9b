"""The row learner "ear-tree" (Narasimhan & Bilmes 2005, Algorithm 3): the estimator's
tree and parameters are the learner's, and a tree learnt before is kept."""

import numpy as np
import pytest
from numpy.testing import assert_allclose

from discotree import EARTreeClassifier
from discotree.learners.ear_tree import fit_ear_tree, learn_ear_tree
from discotree.learners.registry import LearnerSpec, Rows
from discotree.validation import check_table
from tests.data import chained_codes


def _data(rng, n=200):
    return chained_codes(rng, n, n_classes=2, n_values=2, follow=(0.8, 0.7), missing=0.05)


def _spec(**options):
    return LearnerSpec("ear-tree", 1.0, 1e-5, options={"random_state": 0, **options})


@pytest.mark.parametrize("distribution", ["discrete", "gaussian"])
def test_the_learner_is_what_the_estimator_fits(rng, distribution):
    X, y = _data(rng)
    if distribution == "gaussian":
        X = np.nan_to_num(X) + rng.normal(0, 0.3, X.shape)
    fitted = EARTreeClassifier(alpha=1.0, random_state=0, distribution=distribution).fit(X, y)
    values = fitted._encode(X) if distribution == "gaussian" else None
    codes = values if values is not None else fitted.encoder_.transform(check_table(X, "t"))
    rows = Rows(codes, y.astype(np.intp), np.ones(len(y)), 2, fitted.n_categories_)
    result = fit_ear_tree(rows, _spec(distribution=distribution))
    assert result.attributes["edges_"] == fitted.edges_
    assert_allclose(result.attributes["parents_"], fitted.parents_)
    assert_allclose(result.model.log_likelihood(codes), fitted.model_.log_likelihood(codes))


def test_a_tree_learnt_before_is_kept_and_not_searched_again(rng):
    X, y = _data(rng)
    codes = np.where(np.isnan(X), -1, X).astype(np.intp)
    rows = Rows(codes, y.astype(np.intp), np.ones(len(y)), 2, np.full(5, 2))
    tree, seconds = learn_ear_tree(rows, _spec())
    assert seconds >= 0 and len(tree.edges) == 4  # a spanning tree of 5 attributes
    kept = fit_ear_tree(rows, _spec(searched=tree))
    assert kept.attributes["edges_"][0] == list(tree.edges)
    assert "structure_seconds_" not in kept.attributes  # no search ran
    # missing values: available-case statistics, finite scores for incomplete rows
    assert np.isfinite(kept.model.log_likelihood(codes)).all()


def test_hierarchical_tables_on_the_ear_tree(rng):
    from discotree.models.discrete_forest import DiscreteForestModel
    from discotree.stats.hierarchical import hierarchical_forest_tables
    from discotree.stats.pair_statistics import PairStatistics

    X, y = _data(rng, 300)
    clf = EARTreeClassifier(smoothing="hierarchical").fit(X, y)
    plain = EARTreeClassifier().fit(X, y)
    assert clf.edges_ == plain.edges_  # the tree does not change
    codes = clf.encoder_.transform(X)
    stats = PairStatistics.from_codes(codes, y, clf.n_categories_, 2)
    logs, _, concentrations = hierarchical_forest_tables(stats, clf.parents_, 1.0, 1e-5)
    for c in range(2):
        for j in range(5):
            assert_allclose(clf.model_.log_cpts[c][j], logs[c][j], rtol=1e-12)
    assert len(clf.concentrations_) == 5
    for mine, theirs in zip(clf.concentrations_, concentrations, strict=True):
        assert_allclose(mine, theirs)
    assert not np.allclose(clf.predict_proba(X), plain.predict_proba(X))
    auto = EARTreeClassifier(smoothing="hierarchical", alpha="auto").fit(X, y)
    assert auto.edges_ == plain.edges_ and auto.alpha_ > 0
    assert isinstance(auto.model_, DiscreteForestModel)
    assert not hasattr(clf.set_params(smoothing="dirichlet").fit(X, y), "concentrations_")
    with pytest.raises(ValueError, match="discrete tables only"):
        EARTreeClassifier(distribution="gaussian", smoothing="hierarchical").fit(X, y)
