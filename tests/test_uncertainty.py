"""discotree.uncertainty: the entropy decomposition against its definition, knowledge
uncertainty falling with the training size, credible intervals covering the generating
class probability at about their nominal rate, and the refusals."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from numpy.testing import assert_allclose
from sklearn.datasets import load_iris

from discotree import ChowLiuClassifier, NaiveBayesClassifier, TANClassifier
from discotree.uncertainty import entropy_decomposition


def _entropy(p):
    return -sum(q * np.log(q) for q in p if q > 0)


def test_decomposition_equals_its_definition(rng):
    draws = rng.dirichlet(np.ones(3), size=(7, 5))  # 7 draws, 5 rows, 3 classes
    got = entropy_decomposition(draws)
    for i in range(5):
        mean = [np.mean([draws[s, i, c] for s in range(7)]) for c in range(3)]
        total = _entropy(mean)
        data = np.mean([_entropy(draws[s, i]) for s in range(7)])
        assert got.total[i] == pytest.approx(total, rel=1e-12)
        assert got.data[i] == pytest.approx(data, rel=1e-12)
        assert got.knowledge[i] == pytest.approx(total - data, rel=1e-9, abs=1e-15)


def _generate(rng, n, prior, cpt):
    y = (rng.random(n) < prior[1]).astype(int)
    X = (rng.random((n, cpt.shape[1])) < cpt[y]).astype(int)
    return X, y


def _true_posterior(X, prior, cpt):
    joint = np.log(prior)[None] + X @ np.log(cpt).T + (1 - X) @ np.log(1 - cpt).T
    joint -= joint.max(axis=1, keepdims=True)
    p = np.exp(joint)
    return p / p.sum(axis=1, keepdims=True)


def test_knowledge_uncertainty_falls_as_the_training_set_grows():
    rng = np.random.default_rng(4)
    prior, cpt = np.array([0.5, 0.5]), rng.uniform(0.2, 0.8, (2, 6))
    test, _ = _generate(rng, 300, prior, cpt)
    knowledge, data = [], []
    for n in (50, 500, 5000):
        X, y = _generate(rng, n, prior, cpt)
        u = NaiveBayesClassifier(alpha=1.0).fit(X, y).predict_uncertainty(test, n_draws=200)
        knowledge.append(u.knowledge.mean())
        data.append(u.data.mean())
    assert knowledge[0] > 3 * knowledge[1] > 9 * knowledge[2] > 0
    assert data[2] == pytest.approx(data[1], rel=0.15)  # the classes overlap as much


@pytest.mark.parametrize("level", [0.5, 0.9])
def test_intervals_cover_the_true_probability_near_their_nominal_rate(level):
    rng = np.random.default_rng(1)
    prior, cpt = np.array([0.4, 0.6]), rng.uniform(0.15, 0.85, (2, 6))
    covered = []
    for replicate in range(40):  # the rows of one replicate share its fitted tables
        X, y = _generate(rng, 300, prior, cpt)
        test, _ = _generate(rng, 100, prior, cpt)
        clf = NaiveBayesClassifier(alpha=1.0).fit(X, y)
        u = clf.predict_uncertainty(test, n_draws=200, interval=level, random_state=replicate)
        p = _true_posterior(test, prior, cpt)[:, 1]
        covered.append(np.mean((u.lower[:, 1] <= p) & (p <= u.upper[:, 1])))
    # measured with seeds 1, 2, 3: 0.520, 0.464, 0.475 at 0.5; 0.895, 0.864, 0.904 at 0.9
    assert abs(np.mean(covered) - level) < 0.06


def test_draws_are_centred_on_the_fitted_tables():
    X, y = load_iris(return_X_y=True)
    clf = TANClassifier(alpha=1.0).fit(X, y)
    draws = [clf.model_.posterior_draw(np.random.default_rng(s), 1e-5) for s in range(400)]
    for c in range(3):
        for j in range(4):
            mean = np.mean([np.exp(m.log_cpts[c][j]) for m in draws], axis=0)
            assert_allclose(mean, np.exp(clf.model_.log_cpts[c][j]), atol=0.03)


def test_missing_values_seeds_and_classes():
    X, y = load_iris(return_X_y=True)
    clf = ChowLiuClassifier().fit(X, y)
    rows = X[:5].copy()
    rows[0, 2] = np.nan
    a = clf.predict_uncertainty(rows, n_draws=30, random_state=3)
    b = clf.predict_uncertainty(rows, n_draws=30, random_state=3)
    assert_allclose(a.total, b.total)
    assert a.mean.shape == (5, 3) and np.allclose(a.mean.sum(axis=1), 1.0)
    assert np.all(a.lower <= a.mean) and np.all(a.mean <= a.upper)
    assert np.all((a.knowledge >= 0) & (a.knowledge <= a.total))


@pytest.mark.parametrize(
    "estimator",
    [
        TANClassifier(k=2),
        TANClassifier(parameters="cl", cl_max_iter=3),
        TANClassifier(distribution="gaussian"),
    ],
    ids=["k2", "cl", "gaussian"],
)
def test_models_without_a_dirichlet_posterior_have_no_method(estimator):
    """``predict_uncertainty`` does not exist there, before and after fit, and the
    AttributeError says why."""
    X, y = load_iris(return_X_y=True)
    assert not hasattr(estimator, "predict_uncertainty")
    estimator.fit(X, y)
    assert not hasattr(estimator, "predict_uncertainty")
    with pytest.raises(AttributeError, match="no Dirichlet posterior"):
        estimator.predict_uncertainty(X[:2])


def test_a_model_without_posterior_tables_still_says_so():
    """The guard behind the attribute: a fitted model whose tables have no posterior
    (saved before the posteriors were kept) is refused with a ValueError."""
    X, y = load_iris(return_X_y=True)
    clf = NaiveBayesClassifier(alpha=1.0).fit(X, y)
    clf.model_ = dataclasses.replace(clf.model_, posterior=None)
    with pytest.raises(ValueError, match="no Dirichlet posterior"):
        clf.predict_uncertainty(X[:2])


def test_bad_arguments_are_named():
    X, y = load_iris(return_X_y=True)
    clf = NaiveBayesClassifier().fit(X, y)
    with pytest.raises(ValueError, match="n_draws must be an integer >= 2"):
        clf.predict_uncertainty(X[:2], n_draws=1)
    with pytest.raises(ValueError, match=r"interval must be in \(0, 1\)"):
        clf.predict_uncertainty(X[:2], interval=1.0)


def _exported_classifiers():
    import inspect

    from sklearn.base import ClassifierMixin

    import discotree

    for name in discotree.__all__:
        value = getattr(discotree, name)
        if inspect.isclass(value) and issubclass(value, ClassifierMixin):
            yield value


def _small_configurations():
    """Every exported classifier with its defaults (cheap settings where the defaults
    fit many models), and the configurations whose availability differs."""
    from discotree import (
        AODEClassifier,
        BoostedGraphicalModelClassifier,
        DiscriminativeTreeClassifier,
        EARTreeClassifier,
        ForestDensityClassifier,
        KDBClassifier,
        KDBEnsembleClassifier,
    )

    cheap = {
        BoostedGraphicalModelClassifier: {"n_estimators": 2},
        KDBEnsembleClassifier: {"n_estimators": 2},
        EARTreeClassifier: {"n_permutations": 2},
    }
    for cls in _exported_classifiers():
        yield cls(**cheap.get(cls, {}))
    yield ForestDensityClassifier(probability=True)
    yield DiscriminativeTreeClassifier(parameters="altmax", max_alternations=2)
    yield KDBClassifier(k=1, smoothing="hierarchical")
    yield AODEClassifier(n_super_parents=2)
    yield AODEClassifier(smoothing="hierarchical")
    yield KDBEnsembleClassifier(n_estimators=2, estimator=KDBClassifier(smoothing="dirichlet"))


@pytest.mark.parametrize("estimator", list(_small_configurations()), ids=repr)
@pytest.mark.parametrize("n_classes", [2, 3])
def test_the_attribute_exists_exactly_where_the_call_works(estimator, n_classes):
    """For every exported classifier: ``hasattr(predict_uncertainty)`` before fit
    agrees with it after fit unless the fitted classes decide (the discriminative
    tree: two classes), and after fit it is True exactly where the call returns."""
    from sklearn.base import clone

    X, y = load_iris(return_X_y=True)
    if n_classes == 2:
        X, y = X[50:], y[50:]
    estimator = clone(estimator)
    before = hasattr(estimator, "predict_uncertainty")
    estimator.fit(X, y)
    after = hasattr(estimator, "predict_uncertainty")
    if after:
        u = estimator.predict_uncertainty(X[:4], n_draws=5)
        assert u.mean.shape == (4, n_classes)
        assert np.allclose(u.mean.sum(axis=1), 1.0)
        assert before  # the parameters allowed it
    else:
        with pytest.raises(AttributeError, match=r"no Dirichlet posterior|predict_uncertainty"):
            getattr(estimator, "predict_uncertainty")  # noqa: B009
        assert "predict_uncertainty" not in dir(estimator)
    if before != after:  # only the classes may take it away
        assert n_classes > 2 and type(estimator).__name__ == "DiscriminativeTreeClassifier"
