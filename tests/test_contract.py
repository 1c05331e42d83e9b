"""The estimator contract under bad and edge inputs, for every public estimator.

Each case ends in a fitted model with finite outputs, or in a ``ValueError`` /
``TypeError`` whose message names the problem (and leaves the estimator unfitted). Also:
refits replace every fitted attribute and a failed fit leaves none (the fit contract of
``FitContractMixin``, ``discotree.fitting``), ``hasattr`` is honest,
tags follow the parameters, concurrent prediction and pickling give the same answers.
"""

from __future__ import annotations

import pickle
import warnings
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.utils.validation import check_is_fitted

import discotree
from discotree import (
    AODEClassifier,
    BoostedGraphicalModelClassifier,
    ChowLiuClassifier,
    DiscriminativeTreeClassifier,
    EARTreeClassifier,
    ForestDensityClassifier,
    KDBClassifier,
    KDBEnsembleClassifier,
    KernelNaiveBayesClassifier,
    NaiveBayesClassifier,
    TANClassifier,
)
from discotree.numerics import argmax_with_ties, order_with_ties, sign_with_ties
from tests.estimators import hdp_smoothed

DISCRETE = [
    NaiveBayesClassifier(),
    NaiveBayesClassifier(alpha="auto"),
    ChowLiuClassifier(),
    TANClassifier(),
    TANClassifier(k=2, structure="omi-cr"),
    TANClassifier(k=2, alpha="auto"),
    TANClassifier(parameters="cl", cl_max_iter=3),
    DiscriminativeTreeClassifier(),
    DiscriminativeTreeClassifier(n_edges="cv"),
    BoostedGraphicalModelClassifier(n_estimators=2),
    BoostedGraphicalModelClassifier(base="chow-liu", algorithm="discrete", n_estimators=2),
    BoostedGraphicalModelClassifier(n_estimators=2, n_estimators_cv=2),
    EARTreeClassifier(),
    EARTreeClassifier(alpha="auto"),
    EARTreeClassifier(smoothing="hierarchical", alpha="auto"),
    BoostedGraphicalModelClassifier(n_estimators=3, smoothing="hierarchical"),
    KDBClassifier(),
    AODEClassifier(),
    AODEClassifier(2),
    KDBEnsembleClassifier(n_estimators=2),
    AODEClassifier(alpha="auto"),
    AODEClassifier(smoothing="hierarchical", alpha="auto"),
    AODEClassifier(2, smoothing="hierarchical"),
    KDBClassifier(k=1, selective=False, selection_loss="log_loss"),
    KDBClassifier(k=2, smoothing="hdp"),
    *hdp_smoothed(),
    TANClassifier(smoothing="hierarchical"),
    TANClassifier(structure="omi-cr", smoothing="hierarchical"),
    ChowLiuClassifier(smoothing="hierarchical"),
    DiscriminativeTreeClassifier(smoothing="hierarchical"),
]
CONTINUOUS = [
    DiscriminativeTreeClassifier(distribution="gaussian"),
    EARTreeClassifier(distribution="gaussian"),
    ForestDensityClassifier(),
    ForestDensityClassifier(probability=True),
    KernelNaiveBayesClassifier(),
]
ALL = DISCRETE + CONTINUOUS


def _id(estimator) -> str:
    return repr(estimator).replace("\n", "").replace(" ", "")


all_estimators = pytest.mark.parametrize("estimator", ALL, ids=_id)
discrete_estimators = pytest.mark.parametrize("estimator", DISCRETE, ids=_id)
continuous_estimators = pytest.mark.parametrize("estimator", CONTINUOUS, ids=_id)

N = 60
Y = np.array([0, 1] * (N // 2))


def _numbers(seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).normal(size=(N, 3)) + Y[:, None] * 0.5


def _frame(seed: int = 0) -> pd.DataFrame:
    return pd.DataFrame(_numbers(seed), columns=["a", "b", "c"])


def _outputs(model, X) -> np.ndarray:
    if hasattr(model, "predict_proba"):
        return model.predict_proba(X)
    return np.asarray(model.decision_function(X), dtype=np.float64)


def assert_fits_finite(estimator, X, y, sample_weight=None):
    """The fit succeeds and every output is finite."""
    model = clone(estimator)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(X, y, sample_weight=sample_weight)
    assert np.isfinite(_outputs(model, X)).all()
    assert len(model.predict(X)) == len(y)
    return model


def assert_fails_clearly(estimator, X, y, match, sample_weight=None):
    """The fit raises ValueError/TypeError naming the problem, and leaves no fitted
    attribute."""
    model = clone(estimator)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises((ValueError, TypeError), match=match):
            model.fit(X, y, sample_weight=sample_weight)
    with pytest.raises(NotFittedError):
        check_is_fitted(model)


# ------------------------------------------------------------ silent wrong answers
@discrete_estimators
@pytest.mark.parametrize("dtype", ["int64", "uint64"])
def test_integers_beyond_float_precision_keep_their_values(estimator, dtype):
    """2**60 and 2**60 + 1 are one float64; as categories they stay two."""
    X = _frame()
    base = np.uint64(2**63 + 5) if dtype == "uint64" else np.int64(2**60)
    X["id"] = (base + Y.astype(dtype)).astype(dtype)
    array = np.column_stack([(base + Y.astype(dtype)).astype(dtype)] * 2)
    for data in (X[["id"]], array):
        model = assert_fits_finite(estimator, data, Y)
        assert model.score(data, Y) == 1.0


@continuous_estimators
def test_integers_beyond_float_precision_are_refused_by_continuous_models(estimator):
    X = _frame()
    X["id"] = np.int64(2**60) + Y
    assert_fails_clearly(estimator, X, Y, r"X\['id'\] holds integers beyond 2\*\*53")


@all_estimators
def test_inf_in_an_object_column_is_refused_like_inf_in_a_number_column(estimator):
    X = _frame()
    column = np.array(["u", "v"] * (N // 2), dtype=object)
    column[3] = np.inf
    X["s"] = column
    match = r"X\['s'\] contains inf at rows \[3\]" if estimator in DISCRETE else "X\\['s'\\]"
    assert_fails_clearly(estimator, X, Y, match)
    numeric = _numbers()
    numeric[7, 1] = -np.inf
    assert_fails_clearly(estimator, numeric, Y, r"X\[:, 1\] contains inf at rows \[7\]")


@all_estimators
def test_huge_values_give_finite_answers(estimator):
    X = _numbers()
    X[:, 0] *= 1e300
    assert_fits_finite(estimator, X, Y)


@all_estimators
@pytest.mark.parametrize("weight", [1e-300, 1e200, 1e300])
def test_tiny_and_huge_weights_give_finite_answers(estimator, weight):
    """Weights are frequencies, so their scale is the amount of data (it changes the
    smoothing, the SVM's C, the bandwidths): any finite scale gives a finite model
    (weights of 1e300 made ForestDensityClassifier predict NaN, issue 50)."""
    if getattr(estimator, "smoothing", None) == "hdp":  # rows are customers: refused
        with pytest.raises(ValueError, match=r"whole-number sample weights|at most|would seat"):
            clone(estimator).fit(_numbers(), Y, sample_weight=np.full(N, weight))
        return
    model = assert_fits_finite(estimator, _numbers(), Y, sample_weight=np.full(N, weight))
    if hasattr(model, "predict_log_proba"):
        assert np.isfinite(model.predict_log_proba(_numbers())).all()
    else:
        assert np.isfinite(model.decision_function(_numbers())).all()


@pytest.mark.parametrize(
    "estimator",
    [
        KDBClassifier(smoothing="hierarchical"),
        KDBClassifier(k=3, selective=False, smoothing="hierarchical"),
    ],
    ids=_id,
)
def test_hierarchical_kdb_keeps_finite_logs_under_huge_weights(estimator):
    """Counts of 1e200 made a value unseen under its parents' configuration underflow
    to probability 0 through the back-off levels (log-probabilities -inf, issue 50):
    the back-off is computed in logs. Tiny weights give the prior-dominated limit."""
    X = _numbers().round()
    logs = {}
    for weight in (1.0, 1e200, 1e300, 1e-200, 1e-300):
        model = clone(estimator).fit(X, Y, sample_weight=np.full(N, weight))
        logs[weight] = model.predict_log_proba(X + 1.0)  # shifted: unseen values too
        assert np.isfinite(logs[weight]).all()
        np.testing.assert_allclose(np.exp(logs[weight]).sum(axis=1), 1.0, atol=1e-12)
    assert logs[1e300].min() < logs[1e200].min() < logs[1.0].min()  # sharper with data
    np.testing.assert_allclose(logs[1e-200], logs[1e-300], rtol=0, atol=1e-12)


@pytest.mark.parametrize(
    "estimator",
    [DiscriminativeTreeClassifier(distribution="gaussian"), EARTreeClassifier("gaussian")],
    ids=_id,
)
def test_models_without_counts_ignore_the_scale_of_uniform_weights(estimator):
    """Where weights only enter weighted means and covariances, uniform weights of any
    finite scale give the model of unit weights."""
    X = _numbers()
    unit = clone(estimator).fit(X, Y).predict_proba(X)
    for weight in (1e300, 1e-300):
        scaled = clone(estimator).fit(X, Y, sample_weight=np.full(N, weight))
        np.testing.assert_allclose(scaled.predict_proba(X), unit, rtol=0, atol=1e-12)


@pytest.mark.parametrize(
    "estimator",
    [DiscriminativeTreeClassifier(distribution="gaussian"), EARTreeClassifier("gaussian")],
    ids=_id,
)
def test_gaussian_models_do_not_depend_on_units(estimator):
    """One feature in large units (dollars, not thousands) changes no decision."""
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 400)
    X = rng.normal(size=(400, 4)) + y[:, None] * [0.8, 0.3, 0.0, 0.5]
    scaled = X * [1e6, 1.0, 1e-3, 1.0]
    a = clone(estimator).fit(X, y)
    b = clone(estimator).fit(scaled, y)
    np.testing.assert_array_equal(a.predict(X), b.predict(scaled))
    np.testing.assert_allclose(a.predict_proba(X), b.predict_proba(scaled), atol=1e-8)


@pytest.mark.parametrize("multiclass", ["pairwise", "ovr"])
def test_a_class_with_one_row_does_not_drag_the_others(multiclass):
    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, 1000)
    X = rng.normal(size=(1000, 5)) + y[:, None] * 0.8
    test_y = rng.integers(0, 3, 1000)
    test_X = rng.normal(size=(1000, 5)) + test_y[:, None] * 0.8
    model = DiscriminativeTreeClassifier(distribution="gaussian", multiclass=multiclass)
    alone = clone(model).fit(X, y).score(test_X, test_y)
    with_single = clone(model).fit(np.vstack([X, rng.normal(size=(1, 5))]), np.r_[y, 3])
    assert with_single.score(test_X, test_y) >= alone - 0.02


@all_estimators
def test_probability_rows_sum_to_one_to_rounding(estimator):
    """Also where the scores are huge (a class of one row, far-away test points):
    ``exp(log P - logsumexp)`` alone was 1.5e-6 off for the Gaussian discriminative tree."""
    rng = np.random.default_rng(0)
    X = _numbers() if estimator in CONTINUOUS else _numbers().round()
    y = np.r_[Y[:-1], 2]  # the third class has one row
    model = clone(estimator).fit(X, y)
    if not hasattr(model, "predict_proba"):  # ForestDensity without probability=True
        return
    for test in (X, X * 50):
        probabilities = model.predict_proba(test + rng.normal(size=test.shape) * 0.01)
        np.testing.assert_allclose(probabilities.sum(axis=1), 1.0, rtol=0, atol=1e-12)


def test_constant_columns_are_neutral_in_kernel_naive_bayes():
    rng = np.random.default_rng(0)
    y = (rng.random(600) < 0.2).astype(int)
    X = rng.normal(size=(600, 4)) + y[:, None]
    padded = np.hstack([X, np.ones((600, 30))])
    a = KernelNaiveBayesClassifier().fit(X, y)
    b = KernelNaiveBayesClassifier().fit(padded, y)
    np.testing.assert_allclose(a.predict_proba(X), b.predict_proba(padded), atol=1e-12)


def test_boosting_accounts_for_the_class_prior_by_default():
    rng = np.random.default_rng(0)

    def sample(n):
        y = (rng.random(n) < 0.01).astype(int)
        X = rng.integers(0, 3, (n, 6))
        X[:, 0] = np.where(rng.random(n) < 0.3, 2 * y, X[:, 0])
        return X, y

    X, y = sample(4000)
    test_X, test_y = sample(20000)
    majority = 1 - test_y.mean()
    default = BoostedGraphicalModelClassifier().fit(X, y)
    assert default.init == "prior"
    assert default.score(test_X, test_y) >= majority - 0.005
    paper = BoostedGraphicalModelClassifier(init="zero").fit(X, y)  # eq. 26 as written
    assert paper.score(test_X, test_y) < default.score(test_X, test_y)


def test_tie_rules():
    np.testing.assert_array_equal(sign_with_ties(np.array([1e-15, -1e-15, 0.1])), [0, 0, 1])
    scores = np.array([[-40.0, -40.0 + 1e-13, -41.0], [-1e10, -3.0, -2.0]])
    np.testing.assert_array_equal(argmax_with_ties(scores), [0, 2])


# ------------------------------------------------------------ clear errors
@all_estimators
def test_labels_of_mixed_types_are_named(estimator):
    assert_fails_clearly(
        estimator, _numbers(), np.array([1, "a"] * (N // 2), dtype=object), "mixes"
    )


@all_estimators
@pytest.mark.parametrize("cell", [[1, 2], {"a": 1}, {1, 2}])
def test_cells_that_are_not_scalars_are_named(estimator, cell):
    X = _frame()
    X["l"] = [cell] * N
    assert_fails_clearly(estimator, X, Y, r"X\['l'\] (holds a|is not numeric)")


@all_estimators
def test_duplicate_column_names_and_no_columns_are_named(estimator):
    assert_fails_clearly(
        estimator, pd.DataFrame(_numbers(), columns=["a", "a", "b"]), Y, "duplicate"
    )
    assert_fails_clearly(estimator, pd.DataFrame(index=range(N)), Y, "0 columns")


@continuous_estimators
def test_strings_given_to_continuous_models_are_named(estimator):
    X = _frame()
    X["colour"] = ["red", "blue"] * (N // 2)
    assert_fails_clearly(estimator, X, Y, r"X\['colour'\] is not numeric")


@pytest.mark.parametrize(
    "estimator",
    [
        DiscriminativeTreeClassifier(n_edges="cv"),
        BoostedGraphicalModelClassifier(n_estimators_cv=2),
    ],
    ids=_id,
)
def test_inf_is_reported_at_the_users_row_not_a_folds(estimator):
    X = _numbers()
    X[57, 1] = np.inf
    assert_fails_clearly(estimator, X, Y, r"rows \[57\]")


@pytest.mark.parametrize(
    "estimator, params, match",
    [
        (NaiveBayesClassifier(), {"alpha": "x"}, "alpha must be a finite number"),
        (NaiveBayesClassifier(), {"epsilon": "x"}, "epsilon must be a finite number"),
        (TANClassifier(), {"random_state": -3}, "random_state must be"),
        (TANClassifier(), {"early_abandon": "x"}, "early_abandon must be True or False"),
        (EARTreeClassifier(), {"random_state": "x"}, "random_state must be"),
        (DiscriminativeTreeClassifier(), {"random_state": 1.5}, "random_state must be"),
        (DiscriminativeTreeClassifier(), {"edge_cost": "x"}, "edge_cost must be"),
        (BoostedGraphicalModelClassifier(), {"init": "mean"}, "init must be one of"),
        (ForestDensityClassifier(), {"C": np.inf}, "C must be a positive finite"),
        (ForestDensityClassifier(), {"probability": "yes"}, "probability must be True"),
        (ForestDensityClassifier(), {"random_state": -1}, "random_state must be"),
        (ForestDensityClassifier(), {"max_iter": 0}, "max_iter must be an integer"),
        (TANClassifier(), {"k": 1.0}, "k must be 0, 1 or 2"),
        (TANClassifier(), {"k": np.float64(2)}, "k must be 0, 1 or 2"),
    ],
    ids=lambda v: str(v) if isinstance(v, dict) else "",
)
def test_bad_hyper_parameters_are_named(estimator, params, match):
    assert_fails_clearly(estimator.set_params(**params), _numbers(), Y, match)


# ------------------------------------------------------------ resources
@discrete_estimators
def test_identifier_columns_warn_and_past_the_limit_fail(estimator):
    X = _frame()
    X["id"] = [f"row{i}" for i in range(N)]
    with discotree.config_context(category_limit=40):
        assert_fails_clearly(estimator, X, Y, r"X\['id'\] has 60 distinct categories")
    big = pd.concat([X] * 4, ignore_index=True)
    big["id"] = [f"row{i}" for i in range(len(big))]
    with pytest.warns(UserWarning, match="looks like an identifier"):
        clone(estimator).fit(big, np.tile(Y, 4))


@pytest.mark.parametrize(
    "estimator", [ChowLiuClassifier(), TANClassifier(), ForestDensityClassifier()], ids=_id
)
def test_memory_is_estimated_before_allocating(estimator):
    with discotree.config_context(memory_limit=1000):
        assert_fails_clearly(estimator, _numbers(), Y, "more than the memory limit")


def test_ear_trees_refuse_or_warn_about_many_features():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, (40, 1000))
    y = np.array([0, 1] * 20)
    assert_fails_clearly(EARTreeClassifier(), X, y, "1000 features is more than the limit")
    with pytest.warns(UserWarning, match="may take minutes"):
        EARTreeClassifier().fit(X[:, :21], y)


def test_many_classes_warn_about_pairwise_cost():
    rng = np.random.default_rng(0)
    X, y = rng.integers(0, 3, (80, 3)), np.arange(80) % 4
    with discotree.config_context(pairwise_class_limit=3):
        with pytest.warns(UserWarning, match="multiclass='ovr'"):
            DiscriminativeTreeClassifier().fit(X, y)


@pytest.mark.parametrize("backend", ["loky", "threading"])
def test_config_reaches_joblib_workers(backend):
    """Limits set around cross_val_score(n_jobs=2) apply in its workers (processes and
    threads), both ways: raised (the fits pass) and lowered (they fail)."""
    import joblib
    from sklearn.model_selection import cross_val_score

    rng = np.random.default_rng(0)
    n = 1500
    X = pd.DataFrame({"id": [f"u{i}" for i in range(n)], "a": rng.integers(0, 3, n)})
    y = rng.integers(0, 2, n)
    model = NaiveBayesClassifier(alpha=1.0)
    with joblib.parallel_backend(backend, n_jobs=2), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the identifier column warns
        with discotree.config_context(category_limit=5000):
            scores = cross_val_score(model, X, y, cv=2, n_jobs=2, error_score="raise")
        assert np.isfinite(scores).all()
        with (
            discotree.config_context(category_limit=50),
            pytest.raises(ValueError, match="limit of 50"),
        ):
            cross_val_score(model, X[["a"]].assign(b=X["id"].str[:3]), y, cv=2, n_jobs=2,
                            error_score="raise")  # fmt: skip
    clone_outside = clone(model)
    assert "_config_of_clone" not in vars(clone_outside)  # defaults are not carried


def test_config_is_validated_and_scoped():
    before = discotree.get_config()
    with discotree.config_context(category_limit=7, verbose=True):
        assert discotree.get_config()["category_limit"] == 7
    assert discotree.get_config() == before
    with pytest.raises(ValueError, match="unknown configuration key"):
        discotree.set_config(colour=1)
    with pytest.raises(ValueError, match="positive integer"):
        discotree.set_config(memory_limit=-1)


# ------------------------------------------------------------ the fit contract
@pytest.mark.parametrize(
    "first, second, attribute",
    [
        (TANClassifier(structure="omi-cr"), {"structure": "cmi"}, "order_"),
        (TANClassifier(k=1), {"k": 2}, "parents_"),
        (ForestDensityClassifier(probability=True), {"probability": False}, "calibration_slope_"),
        (BoostedGraphicalModelClassifier(), {"base": "tan"}, None),
    ],
    ids=_id,
)
def test_a_refit_replaces_every_fitted_attribute(first, second, attribute):
    model = clone(first).fit(_numbers(), Y)
    old = set(vars(model))
    if attribute is not None:
        assert hasattr(model, attribute)
    model.set_params(**second).fit(_numbers(1), Y)
    if attribute is not None:
        assert not hasattr(model, attribute)
    fresh = clone(model).fit(_numbers(1), Y)
    assert set(vars(model)) == set(vars(fresh))
    assert old >= set(model.get_params()) and set(vars(model)) >= set(model.get_params())
    np.testing.assert_array_equal(model.predict(_numbers(2)), fresh.predict(_numbers(2)))


def test_a_multiclass_refit_drops_binary_only_attributes():
    model = DiscriminativeTreeClassifier().fit(_numbers(), Y)
    assert hasattr(model, "j_divergence_path_") and hasattr(model, "predict_joint_log_proba")
    model.fit(_numbers(), np.arange(N) % 3)
    assert not hasattr(model, "j_divergence_path_")
    assert not hasattr(model, "predict_joint_log_proba")  # hidden, with its reason
    with pytest.raises(AttributeError, match="two classes only"):
        model.predict_joint_log_proba(_numbers())


@all_estimators
def test_a_failed_fit_leaves_no_fitted_attribute(estimator):
    model = clone(estimator).fit(_numbers(), Y)
    with pytest.raises(ValueError):
        model.fit(_numbers(), Y[:10])
    assert [k for k in vars(model) if k.endswith("_")] == []
    with pytest.raises(NotFittedError):
        model.predict(_numbers())


def test_hasattr_is_honest():
    boosted = BoostedGraphicalModelClassifier(n_estimators=1).fit(_numbers(), Y)
    assert not hasattr(boosted, "predict_joint_log_proba")
    with pytest.raises(AttributeError, match="unnormalised"):
        boosted.predict_joint_log_proba(_numbers())
    assert not hasattr(ForestDensityClassifier(), "predict_proba")
    assert hasattr(ForestDensityClassifier(probability=True), "predict_proba")


@all_estimators
def test_hasattr_predict_uncertainty_agrees_with_the_call(estimator):
    """``predict_uncertainty`` exists exactly where it works, and its existence follows
    the parameters: the same before and after a (two-class) fit."""
    before = hasattr(estimator, "predict_uncertainty")
    model = clone(estimator)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(_numbers(), Y)
    assert hasattr(model, "predict_uncertainty") == before
    if before:
        u = model.predict_uncertainty(_numbers(1)[:4], n_draws=5)
        assert u.mean.shape == (4, 2) and np.isfinite(u.total).all()
    else:
        with pytest.raises(AttributeError, match="predict_uncertainty"):
            model.predict_uncertainty(_numbers(1)[:4], n_draws=5)


def test_predict_uncertainty_of_a_multiclass_discriminative_tree_is_hidden():
    model = DiscriminativeTreeClassifier(alpha=1.0)
    assert hasattr(model, "predict_uncertainty")
    model.fit(_numbers(), np.arange(N) % 3)  # composite scores, no joint posterior
    assert not hasattr(model, "predict_uncertainty")
    with pytest.raises(AttributeError, match="more than two classes"):
        model.predict_uncertainty(_numbers())
    model.fit(_numbers(), Y)
    assert hasattr(model, "predict_uncertainty")


@pytest.mark.parametrize("estimator", [DiscriminativeTreeClassifier, EARTreeClassifier])
def test_tags_follow_the_distribution(estimator):
    assert estimator().__sklearn_tags__().input_tags.string
    gaussian = estimator(distribution="gaussian").__sklearn_tags__().input_tags
    assert not gaussian.string and not gaussian.categorical


@all_estimators
def test_randomness_is_a_parameter_with_one_default(estimator):
    params = estimator.get_params()
    if isinstance(estimator, KernelNaiveBayesClassifier):
        assert "random_state" not in params  # nothing random in it
    else:  # (naive Bayes, Chow-Liu and AnDE: the seed of smoothing="hdp")
        assert params["random_state"] == 0


@all_estimators
def test_concurrent_prediction_and_pickles_give_the_same_answers(estimator):
    model = assert_fits_finite(estimator, _numbers(), Y)
    X = _numbers(3)
    expected = _outputs(model, X)
    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(lambda _: _outputs(model, X), range(16)))
    for result in results:
        np.testing.assert_array_equal(result, expected)
    again = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(_outputs(again, X), expected)


@pytest.mark.parametrize(
    "estimator",
    [KDBEnsembleClassifier(n_estimators=2, linear_weight=0.0, pair_weight=0.0), TANClassifier()],
    ids=_id,
)
def test_predicting_while_another_thread_refits_sees_a_whole_model(estimator):
    """A refit swaps the fitted state in one assignment: a predict meanwhile gets the
    old model's or the new one's probabilities, never a half-cleared model
    (AttributeError) or "dictionary changed size during iteration" (issue 50)."""
    import threading

    X = _numbers().round()
    model = clone(estimator).fit(X, Y)
    done = threading.Event()
    failures: list[BaseException] = []
    answers = []

    def refit():
        try:
            for seed in (1, 2, 3):
                model.fit(_numbers(seed).round(), Y)
        finally:
            done.set()

    thread = threading.Thread(target=refit)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        thread.start()
        for _ in range(200):  # a bounded number of predictions, during the refits
            if done.is_set() and answers:
                break
            try:
                answers.append(model.predict_proba(X))
            except NotFittedError:
                answers.append(None)
            except Exception as err:  # the failure under test
                failures.append(err)
                break
        thread.join()
    assert not failures, failures
    for proba in answers:
        if proba is not None:
            assert proba.shape == (N, 2) and np.isfinite(proba).all()
            np.testing.assert_allclose(proba.sum(axis=1), 1.0, atol=1e-12)
    np.testing.assert_array_equal(
        model.predict_proba(X), clone(estimator).fit(_numbers(3).round(), Y).predict_proba(X)
    )


def test_long_fits_report_progress(caplog):
    import logging

    X = np.random.default_rng(0).integers(0, 2, (60, 5))
    with caplog.at_level(logging.INFO, logger="discotree"):
        EARTreeClassifier().fit(X, Y)
        BoostedGraphicalModelClassifier(n_estimators=2).fit(X, Y)
        TANClassifier(structure="cr").fit(X, Y)
    text = caplog.text
    assert "EAR split 1" in text and "round 1 of 2" in text and "greedy search" in text


# ------------------------------------------------------------ any dataframe
def _mixed_frame(seed: int = 0) -> pd.DataFrame:
    """Numbers, strings with missing cells and a categorical: what Arrow carries."""
    rng = np.random.default_rng(seed)
    frame = _frame(seed)
    frame["s"] = pd.Series(rng.choice(["low", "mid", "high"], N), dtype="str")
    frame.loc[::7, "s"] = None
    frame["k"] = pd.Categorical(rng.choice(["u", "v"], N))
    return frame


@pytest.mark.parametrize("kind", ["pyarrow", "polars"])
@all_estimators
def test_arrow_tables_give_bitwise_the_pandas_answers(estimator, kind):
    """A pyarrow Table or a polars DataFrame (the Arrow PyCapsule interface) gives
    bitwise the outputs of the same pandas frame, and its column names."""
    import pyarrow as pa

    frame = _mixed_frame() if estimator in DISCRETE else _frame()
    if kind == "polars":
        polars = pytest.importorskip("polars")
        table = polars.from_pandas(frame)
    else:
        table = pa.Table.from_pandas(frame, preserve_index=False)
    expected = clone(estimator)
    arrow = clone(estimator)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected.fit(frame, Y)
        arrow.fit(table, Y)
    assert np.array_equal(_outputs(arrow, table), _outputs(expected, frame))
    assert np.array_equal(_outputs(expected, table), _outputs(expected, frame))
    assert list(arrow.feature_names_in_) == list(frame.columns)


@discrete_estimators
def test_edges_by_name(estimator):
    """``edge_names_`` is ``edges_`` through the column names (x0, x1, ... without)."""
    frame = _mixed_frame()
    for X, names in ((frame, list(frame.columns)), (frame.to_numpy(), None)):
        model = clone(estimator)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model.fit(X, Y)
        if not hasattr(model, "edges_"):
            continue
        names = names or [f"x{j}" for j in range(frame.shape[1])]
        expected = [[(names[i], names[j]) for i, j in edges] for edges in model.edges_]
        assert model.edge_names_ == expected


def test_order_with_ties_is_argmax_with_ties_again_and_again():
    """The ranking's fast walk equals taking the tie-rule argmax of what is left, on
    values with exact ties and ties below the tolerance; with a limit, its first picks."""
    rng = np.random.default_rng(0)
    for _ in range(500):
        n = int(rng.integers(1, 12))
        values = rng.integers(0, 4, n).astype(float) + rng.choice([0.0, 1e-14, 1e-3], n)
        left, expected = values.copy(), []
        for _ in range(n):
            pick = int(argmax_with_ties(left[None])[0])
            expected.append(pick)
            left[pick] = -np.inf
        assert order_with_ties(values) == expected
        for limit in range(n + 2):  # the first ``limit`` picks are the ranking's
            assert order_with_ties(values, limit) == expected[:limit]
