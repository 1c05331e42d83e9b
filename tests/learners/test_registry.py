"""The learners registry: names, capabilities, and each learner fitted from counts
against the estimator that uses it (the estimators are shells around the learners)."""

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from discotree import (
    ChowLiuClassifier,
    Discretizer,
    DiscriminativeTreeClassifier,
    NaiveBayesClassifier,
    StatisticsSchema,
    TANClassifier,
)
from discotree.kernels.family_counts import family_counts
from discotree.learners.registry import (
    LEARNERS,
    Counts,
    Learner,
    LearnerSpec,
    get_learner,
    register_learner,
)
from discotree.stats.pair_statistics import PairStatistics
from discotree.validation import check_table


def _data(rng, n=400, n_classes=3):
    y = rng.integers(0, n_classes, n)
    X = rng.integers(0, 3, (n, 5)).astype(float)
    X[:, 0] = np.where(rng.random(n) < 0.7, y % 3, X[:, 0])
    X[:, 1] = np.where(rng.random(n) < 0.6, X[:, 0], X[:, 1])
    X[rng.random(X.shape) < 0.05] = np.nan  # available-case tables
    return X, y


def test_the_registry_names_every_count_learner_and_what_it_reads():
    assert {
        name: learner.reads for name, learner in LEARNERS.items() if name in {
            "naive-bayes", "tan-cmi", "kdb", "chow-liu", "discriminative-tree"
        }
    } == {
        "naive-bayes": "univariate",
        "tan-cmi": "pairs",
        "kdb": "pairs, then families",
        "chow-liu": "pairs",
        "discriminative-tree": "pairs",
    }  # fmt: skip
    assert get_learner("kdb").models_by_alpha is None  # its alpha CV needs the rows
    rule = {name: learner.missing_values for name, learner in LEARNERS.items()}
    stated = {"forest-density", "discriminative-tree-altmax"}  # their stated exceptions
    assert all(rule[name] == "available-case" for name in set(rule) - stated)
    assert rule["forest-density"].startswith("refused")


def test_the_row_learners_are_registered_with_no_partial_fit():
    rows = {
        name: (learner.partial_fit, learner.dask)
        for name, learner in LEARNERS.items()
        if learner.reads == "rows"
    }
    assert rows == {
        "tan-search": (False, False),
        "boosting": (False, True),  # the Dask engine boosts with the same weak learners
        "ear-tree": (False, False),
        "discriminative-tree-altmax": (False, False),
        "forest-density": (False, False),
        "selective-kdb": (False, False),
        "kdb-ensemble": (False, False),
        "logistic": (False, False),
    }


def test_unknown_names_and_bad_entries_are_refused_clearly():
    with pytest.raises(ValueError, match="unknown learner 'tan-cm'; did you mean tan-cmi"):
        get_learner("tan-cm")
    learner = get_learner("naive-bayes")
    assert register_learner(learner) is learner  # the same entry again: nothing changes
    with pytest.raises(ValueError, match="already registered"):
        register_learner(Learner("naive-bayes", "another", "univariate", learner.fit))
    with pytest.raises(ValueError, match="reads must be one of"):
        Learner("x", "x", "columns", learner.fit)
    with pytest.raises(ValueError, match="second pass needs its structure"):
        Learner("x", "x", "pairs, then families", learner.fit)
    with pytest.raises(ValueError, match="chooses alpha from the rows only"):
        get_learner("kdb").model_for(LearnerSpec("kdb", "auto", 1e-5, options={"k": 2}), (1.0,))


@pytest.mark.parametrize(
    "estimator",
    [
        NaiveBayesClassifier(alpha=1.0),
        TANClassifier(k=0, alpha=0.5),
        TANClassifier(alpha=1.0),
        TANClassifier(k=2, alpha=1.0),
        ChowLiuClassifier(alpha=1.0, n_edges="bic"),
        DiscriminativeTreeClassifier(alpha=1.0),
        DiscriminativeTreeClassifier(alpha=1.0, multiclass="ovr", n_edges=2),
    ],
    ids=repr,
)
def test_each_learner_from_counts_is_the_estimators_fit(rng, estimator):
    """The learner called with the counts of the encoded rows gives the model the
    estimator fitted (the estimator adds nothing but validation and encoding)."""
    X, y = _data(rng)
    fitted = estimator.fit(X, y)
    spec = estimator.learner_spec()
    learner = get_learner(spec.learner)
    codes = fitted.encoder_.transform(check_table(X, "test"))
    pairs = PairStatistics.from_codes(codes, y, fitted.n_categories_, 3)
    families = None
    if learner.reads == "pairs, then families":
        parents = learner.structure(pairs, spec)
        families = [
            family_counts(codes, y, np.ones(len(y)), 3, fitted.n_categories_, node=j, parents=pa)
            for j, pa in enumerate(parents)
        ]
    counts = Counts(fitted.n_categories_, fitted.class_count_, pairs, families)
    result = learner.fit(counts, spec)
    mine = [sorted(map(tuple, e)) for e in result.attributes["edges_"]]
    assert mine == [sorted(map(tuple, e)) for e in fitted.edges_]
    if result.model is not None:
        expected = fitted.model_.log_likelihood(codes)
        assert_allclose(result.model.log_likelihood(codes), expected, rtol=1e-10, atol=1e-10)
    else:  # several binary problems: their pairs of forests
        for mine, theirs in zip(
            result.attributes["forest_pairs_"], fitted.forest_pairs_, strict=True
        ):
            assert_allclose(mine.log_ratio(codes), theirs.log_ratio(codes), rtol=1e-10)


def test_naive_bayes_is_one_learner(rng):
    X, y = _data(rng)
    naive = NaiveBayesClassifier(alpha=0.5).fit(X, y)
    tan0 = TANClassifier(k=0, alpha=0.5).fit(X, y)
    assert naive.learner_spec().learner == tan0.learner_spec().learner == "naive-bayes"
    assert type(naive.model_) is type(tan0.model_)
    assert_allclose(naive.predict_proba(X), tan0.predict_proba(X), rtol=1e-12)
    assert naive.attribute_parents_ == tan0.attribute_parents_ == [()] * 5
    auto = [NaiveBayesClassifier().fit(X, y), TANClassifier(k=0, alpha="auto").fit(X, y)]
    assert auto[0].alpha_ == auto[1].alpha_
    assert_allclose(auto[0].alpha_cv_losses_, auto[1].alpha_cv_losses_, rtol=1e-9)


def test_learner_spec_names_the_learner_or_refuses_row_learners():
    assert TANClassifier(k=2, alpha=1.0).learner_spec().options.k == 2
    assert DiscriminativeTreeClassifier().learner_spec().alpha == "auto"
    with pytest.raises(ValueError, match="only structure='cmi' with parameters='ml'"):
        TANClassifier(structure="cr").learner_spec()
    with pytest.raises(ValueError, match="n_edges='cv' refits on folds"):
        DiscriminativeTreeClassifier(n_edges="cv").learner_spec()
    with pytest.raises(ValueError, match="alpha must be"):
        NaiveBayesClassifier(alpha=-1.0).learner_spec()


def test_fit_from_statistics_takes_an_engines_families_and_alpha_search(rng):
    """What the Dask engine hands over: kDB's family counts of a second pass, and the
    alpha a distributed cross-validation chose with its losses."""
    X, y = _data(rng)
    bins = Discretizer(bin_edges=Discretizer().fit(X).bin_edges_)
    schema = StatisticsSchema.from_sample(X, classes=[0, 1, 2], discretizer=bins)
    total = schema.count(X[:150], y[:150]) + schema.count(X[150:], y[150:])
    with pytest.raises(ValueError, match="need the rows"):
        TANClassifier(k=2, alpha=1.0).fit_from_statistics(total)
    kdb = TANClassifier(k=2, alpha=1.0, discretizer=bins)
    parents = get_learner("kdb").structure(total, kdb.learner_spec())
    codes = schema.encoder.transform(check_table(X, "test"))
    families = [
        family_counts(codes, y, np.ones(len(y)), 3, schema.n_categories, node=j, parents=pa)
        for j, pa in enumerate(parents)
    ]
    streamed = TANClassifier(k=2, alpha=1.0).fit_from_statistics(total, families=families)
    assert_allclose(streamed.predict_proba(X), kdb.fit(X, y).predict_proba(X), rtol=1e-10)
    with pytest.raises(ValueError, match="need the rows"):
        TANClassifier(alpha="auto").fit_from_statistics(total)
    losses = np.arange(16.0).reshape(2, 8)
    searched = TANClassifier(alpha="auto").fit_from_statistics(total, alpha_search=(0.5, losses))
    fixed = TANClassifier(alpha=0.5).fit_from_statistics(total)
    assert searched.alpha_ == 0.5 and searched.alpha == "auto"
    assert_array_equal(searched.alpha_cv_losses_, losses)
    assert_allclose(searched.predict_proba(X), fixed.predict_proba(X), rtol=1e-12)
