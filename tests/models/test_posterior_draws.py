"""Posterior draws of kDB, A1DE and kDB ensembles (discotree.models.posterior_draws)
and their ``predict_uncertainty``: the draws are centred on the fitted tables, the
posterior predictive approaches ``predict_proba`` as the counts grow, knowledge
uncertainty falls with ten times the rows, intervals hold the mean, missing values are
summed out as ``predict_proba`` does, and the draws are seeded."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose

from discotree import AODEClassifier, KDBClassifier, KDBEnsembleClassifier
from discotree.classifiers.ensemble import default_members
from discotree.models.posterior_draws import (
    AveragedOneDependencePosterior,
    KDBEnsemblePosterior,
    KDependencePosterior,
    LevelPosterior,
)

ESTIMATORS = {
    "kdb-dirichlet": lambda: KDBClassifier(k=2, selective=False),
    "kdb-hierarchical": lambda: KDBClassifier(k=2, selective=False, smoothing="hierarchical"),
    "aode": lambda: AODEClassifier(),
    "aode-hierarchical": lambda: AODEClassifier(smoothing="hierarchical"),
    "ensemble": lambda: KDBEnsembleClassifier(n_estimators=3, random_state=0),
}


def _data(n, seed=0, d=5):
    """A chain x0 -> x1 -> ... with the class a parent of all: kDB's dependencies."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    X = np.empty((n, d), dtype=np.int64)
    X[:, 0] = (rng.random(n) < 0.3 + 0.4 * y).astype(int)
    for j in range(1, d):
        flip = rng.random(n) < 0.2 + 0.1 * y
        X[:, j] = np.where(flip, 1 - X[:, j - 1], X[:, j - 1])
    return X.astype(float), y


@pytest.mark.parametrize("smoothing", ["dirichlet", "hierarchical"])
def test_kdb_draws_are_centred_on_the_fitted_tables(smoothing):
    """Every node's probability of every row, averaged over draws, is the fitted one:
    the hierarchical draws (each level backed off to its prefix's draw) included, and
    rows whose configuration was never seen or whose parent is missing. 3000 draws: a
    cell of a Dirichlet of total weight >= 20 has a standard error below 0.002."""
    X, y = _data(300, seed=1)
    clf = KDBClassifier(k=3, selective=False, smoothing=smoothing).fit(X, y)
    model, posterior = clf.model_, KDependencePosterior(clf.model_)
    codes = clf.encoder_.transform(X)[:40].copy()
    codes[::5, 1] = -1  # a missing parent: backed off
    codes[1] = 1 - codes[1]  # a rare configuration
    rng = np.random.default_rng(0)
    draws = [posterior.posterior_draw(rng, clf.epsilon) for _ in range(3000)]
    for node in model.attributes:
        fitted = np.exp(model.node_log_probability(node, codes))
        mean = np.mean([np.exp(d.node_log_probability(node, codes)) for d in draws], axis=0)
        assert_allclose(mean, fitted, atol=0.01)


def test_level_posteriors_keep_the_seen_pairs():
    from discotree.stats.family_tables import SparseFamilyTable

    codes = np.array([[0, 1], [0, 1], [1, 0]])
    table = SparseFamilyTable.from_codes(
        codes, np.array([0, 1, 1]), None, 2, np.array([2, 2]), 1, (0,)
    )
    level = LevelPosterior.from_table(table)
    assert level.pairs.tolist() == [0, 1, 3]  # (configuration 0, both classes), (1, class 1)
    assert level.find(np.array([3, 2, 0])).tolist() == [2, -1, 0]


def test_a1de_draws_are_centred_and_proper():
    X, y = _data(200, seed=2)
    clf = AODEClassifier(alpha=1.0).fit(X, y)
    posterior = AveragedOneDependencePosterior(clf.statistics_, 1.0, clf.epsilon)
    rng = np.random.default_rng(0)
    draws = [posterior.posterior_draw(rng, clf.epsilon) for _ in range(2000)]
    mean_child = np.mean([np.exp(d.child_log) for d in draws], axis=0)
    mean_parent = np.mean([np.exp(d.parent_log) for d in draws], axis=0)
    assert_allclose(mean_child, np.exp(clf.model_.child_log), atol=0.01)
    assert_allclose(mean_parent, np.exp(clf.model_.parent_log), atol=0.005)
    every = np.array(np.meshgrid(*[range(2)] * 5)).reshape(5, -1).T
    assert_allclose(np.exp(draws[0].log_likelihood(every)).sum(axis=0), 1.0)


@pytest.mark.parametrize("name", list(ESTIMATORS))
def test_the_posterior_predictive_approaches_predict_proba(name):
    """The draws' mean is the posterior predictive, not the plug-in ``predict_proba``
    (they differ by a Jensen gap of order 1 / n); with 4000 rows of 5 binary features
    and 1000 draws they agree within 0.02 (measured: below 0.004 for all five; the
    Monte Carlo error of a mean of 1000 probabilities is below 0.004, the gap on iris'
    150 rows is 0.07 for kDB). A1DE and the ensemble average many tables, whose draws'
    means vary less: 400 draws (measured: 0.0010, 0.0010 and 0.0014 with 400 draws,
    0.0005, 0.0010 and 0.0012 with 1000; kDB's 0.0100 with 400)."""
    X, y = _data(4000, seed=3)
    clf = ESTIMATORS[name]().fit(X, y)
    test, _ = _data(30, seed=4)
    n_draws = 1000 if name.startswith("kdb") else 400
    u = clf.predict_uncertainty(test, n_draws=n_draws, random_state=0)
    assert_allclose(u.mean, clf.predict_proba(test), atol=0.02)


@pytest.mark.parametrize("name", list(ESTIMATORS))
def test_knowledge_uncertainty_falls_with_ten_times_the_rows(name):
    """Measured ratios (3000 rows against 300): 0.09-0.11 for kDB and A1DE (the 1 / n
    of a posterior's variance), 0.28 for the ensemble, whose logistic members are not
    drawn."""
    test, _ = _data(100, seed=5)
    knowledge = []
    for n in (300, 3000):
        X, y = _data(n, seed=6)
        clf = ESTIMATORS[name]().fit(X, y)
        knowledge.append(clf.predict_uncertainty(test, n_draws=100).knowledge.mean())
    assert 0 < knowledge[1] < 0.4 * knowledge[0]


@pytest.mark.parametrize("name", list(ESTIMATORS))
def test_intervals_missing_values_and_seeds(name):
    X, y = _data(300, seed=7)
    clf = ESTIMATORS[name]().fit(X, y)
    rows = X[:12].copy()
    rows[0, 1] = np.nan  # a missing parent (summed out exactly)
    rows[1, [0, 2]] = np.nan
    rows[2, :] = np.nan  # every feature missing: the class prior
    a = clf.predict_uncertainty(rows, n_draws=200, random_state=3)
    b = clf.predict_uncertainty(rows, n_draws=200, random_state=3)
    c = clf.predict_uncertainty(rows, n_draws=200, random_state=4)
    assert_allclose(a.total, b.total)
    assert_allclose(a.mean, b.mean)
    assert not np.allclose(a.mean, c.mean)
    assert a.mean.shape == (12, 2) and np.allclose(a.mean.sum(axis=1), 1.0)
    assert np.all(a.lower <= a.mean) and np.all(a.mean <= a.upper)
    assert np.all((a.knowledge >= 0) & (a.knowledge <= a.total + 1e-12))
    # missing values are summed out in every draw as predict_proba sums them out: the
    # rows with missing values are as close to predict_proba as the complete ones
    gap = np.abs(a.mean - clf.predict_proba(rows)).max(axis=1)
    assert gap[:3].max() < max(3 * gap[3:].max(), 0.03)
    prior = clf.class_count_ / clf.class_count_.sum()
    assert_allclose(a.mean[2], prior, atol=0.03)  # Dirichlet(class counts) draws


def test_the_ensemble_draws_every_member_and_keeps_its_logistic_members():
    X, y = _data(300, seed=8)
    clf = KDBEnsembleClassifier(n_estimators=3, random_state=0).fit(X, y)
    posterior = KDBEnsemblePosterior(clf.model_)
    assert len(posterior.members) == 3
    drawn = posterior.posterior_draw(np.random.default_rng(0), default_members().epsilon)
    assert drawn.model.linear is clf.model_.linear
    assert drawn.model.pair_member is clf.model_.pair_member
    codes = clf.encoder_.transform(X[:5])
    fitted = clf.model_.member_log_posteriors(codes)
    replaced = drawn.class_scores(codes, clf.class_log_prior_)
    assert replaced.shape == (5, 2) and not np.allclose(replaced, fitted[0])


@pytest.mark.parametrize(
    "estimator",
    [
        KDBClassifier(smoothing="hdp"),
        AODEClassifier(n_super_parents=2),
        AODEClassifier(smoothing="hdp"),
        KDBEnsembleClassifier(estimator=KDBClassifier(smoothing="hdp")),
    ],
    ids=["kdb-hdp", "a2de", "aode-hdp", "ensemble-hdp"],
)
def test_no_method_where_the_tables_are_not_counted(estimator):
    assert not hasattr(estimator, "predict_uncertainty")
    with pytest.raises(AttributeError, match="no Dirichlet posterior"):
        getattr(estimator, "predict_uncertainty")  # noqa: B009


def test_hdp_tables_are_refused_by_the_posterior():
    X, y = _data(100)
    clf = KDBClassifier(k=1, selective=False, smoothing="hdp").fit(X.astype(int), y)
    with pytest.raises(ValueError, match="HDP tables"):
        KDependencePosterior(clf.model_)
