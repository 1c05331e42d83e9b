"""Issue 50, item 4: the public functions validate their arguments as the estimators
do (a ValueError or TypeError naming the parameter or column), and what grows with an
argument goes through the memory guard before it is allocated (a tiny
``memory_limit`` makes it refuse at once)."""

from __future__ import annotations

import os

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_iris

import discotree
import discotree.importance as importance
import discotree.uncertainty as uncertainty
from discotree import KDBClassifier, KDBEnsembleClassifier, NaiveBayesClassifier
from discotree.classifiers.baselines import AnyColumnsBaseline
from discotree.cli import main
from discotree.datasets import load_csv
from discotree.importance import summed_out_importances
from discotree.io.onnx import log_factors, onnx_codes, to_onnx
from discotree.shapley import shapley_values

#: A limit no estimate is under: the guard must refuse before allocating anything.
TINY = 1000


@pytest.fixture(scope="module")
def named():
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.integers(0, 3, (60, 3)), columns=["a", "b", "c"])
    y = (X["a"] + rng.integers(0, 2, 60) > 2).astype(int).to_numpy()
    return NaiveBayesClassifier(alpha=1.0).fit(X, y), X, y


# ------------------------------------------------------------ summed_out_importances
@pytest.mark.parametrize(
    "weights",
    [np.zeros(60), np.r_[np.nan, np.ones(59)], np.r_[-1.0, np.ones(59)], np.ones(3)],
    ids=["all-zero", "nan", "negative", "wrong-length"],
)
def test_importances_refuse_bad_sample_weight(named, weights):
    clf, X, y = named
    with pytest.raises(ValueError, match="summed_out_importances: sample_weight"):
        summed_out_importances(clf, X, y, sample_weight=weights)


def test_importances_refuse_renamed_columns(named):
    clf, X, y = named
    with pytest.raises(ValueError, match=r"(?s)summed_out_importances.*- z"):
        summed_out_importances(clf, X.rename(columns={"a": "z"}), y)


@pytest.mark.parametrize(
    "option", [{"n_permutations": 0}, {"random_state": "x"}, {"n_jobs": 10**6}]
)
def test_importances_take_no_sampling_options(named, option):
    """Summed-out importances are exact: nothing to permute, seed or parallelise;
    these options are refused by name."""
    clf, X, y = named
    with pytest.raises(TypeError, match=next(iter(option))):
        summed_out_importances(clf, X, y, **option)


def test_importances_memory_is_guarded_before_allocating(named):
    clf, X, y = named
    with discotree.config_context(memory_limit=TINY):
        with pytest.raises(ValueError, match="summed_out_importances: the importances"):
            summed_out_importances(clf, X, y)


def test_importances_in_small_blocks_are_the_same(named, monkeypatch):
    clf, X, y = named
    X, y = X[:8], y[:8]
    whole = summed_out_importances(clf, X, y)
    monkeypatch.setattr(importance, "BLOCK_CELLS", 7)  # 2 rows, then 1 feature per block
    blocked = summed_out_importances(clf, X, y)
    for key in ("evidence", "importances", "importances_std"):
        np.testing.assert_allclose(blocked[key], whole[key], rtol=1e-12, atol=1e-15)


# ------------------------------------------------------------------- shapley_values
def test_shapley_refuses_a_background_with_other_columns(named):
    clf, X, _ = named
    other = X.rename(columns={"c": "q"})
    with pytest.raises(ValueError, match=r"(?s)shapley_values: background .*- q"):
        shapley_values(clf, X[:2], kind="interventional", background=other)


def test_shapley_refuses_a_background_in_another_order():
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.integers(0, 3, (40, 2)), columns=["a", "b"])
    clf = NaiveBayesClassifier(alpha=1.0).fit(X.to_numpy(), rng.integers(0, 2, 40))
    with pytest.warns(UserWarning, match="feature names"):  # fitted without names
        with pytest.raises(ValueError, match=r"background's columns are not X's"):
            shapley_values(clf, X[:2], kind="interventional", background=X[["b", "a"]])


@pytest.mark.parametrize(
    ("option", "name"),
    [
        ({"n_permutations": 0}, "n_permutations"),
        ({"n_permutations": 1}, "n_permutations"),
        ({"random_state": "x"}, "random_state"),
        ({"max_exact_features": -1}, "max_exact_features"),
    ],
)
def test_shapley_refuses_bad_options(named, option, name):
    clf, X, _ = named
    with pytest.raises(ValueError, match=f"shapley_values: {name}"):
        shapley_values(clf, X[:1], **option)


def test_exact_shapley_on_26_features_is_refused_before_allocating():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, (30, 26))
    clf = NaiveBayesClassifier(alpha=1.0).fit(X, rng.integers(0, 2, 30))
    with pytest.raises(ValueError, match="set max_exact_features below 26: sampled"):
        shapley_values(clf, X[:1], max_exact_features=26)


def test_sampled_shapley_is_guarded_too(named):
    clf, X, _ = named
    with discotree.config_context(memory_limit=TINY):
        with pytest.raises(ValueError, match="lower n_permutations"):
            shapley_values(clf, X[:1], max_exact_features=0)


# ----------------------------------------------------------------------- onnx_codes
def test_onnx_codes_refuse_other_columns(named):
    clf, X, _ = named
    with pytest.raises(ValueError, match=r"(?s)onnx_codes.*- z"):
        onnx_codes(clf, X.rename(columns={"b": "z"}))


def test_onnx_refuses_a_model_without_tables_and_a_name_not_a_string(named):
    from discotree import ForestDensityClassifier

    X, y = load_iris(return_X_y=True)
    density = ForestDensityClassifier().fit(X[::5], y[::5])
    with pytest.raises(ValueError, match="onnx_codes: ForestDensityClassifier has no category"):
        onnx_codes(density, X[:2])
    with pytest.raises(ValueError, match="not exported to ONNX"):
        log_factors(density)
    pytest.importorskip("onnx")
    with pytest.raises(TypeError, match="name must be a string"):
        to_onnx(named[0], name=123)


# -------------------------------------------------------------- predict_uncertainty
@pytest.mark.parametrize("n_draws", [10**9, "100", 1.5, True])
def test_uncertainty_refuses_bad_n_draws(named, n_draws):
    clf, X, _ = named
    with pytest.raises(ValueError, match="n_draws"):
        clf.predict_uncertainty(X[:2], n_draws=n_draws)


def test_uncertainty_refuses_a_bad_random_state(named):
    clf, X, _ = named
    with pytest.raises(ValueError, match="random_state"):
        clf.predict_uncertainty(X[:2], random_state="x")


def test_uncertainty_memory_is_guarded_before_drawing(named):
    clf, X, _ = named
    with discotree.config_context(memory_limit=TINY):
        with pytest.raises(ValueError, match="n_draws=100 posterior draws"):
            clf.predict_uncertainty(X)


def test_uncertainty_in_chunks_of_rows_is_the_same(named, monkeypatch):
    """Every chunk of rows draws the same tables: the memory is bounded by a chunk."""
    clf, X, _ = named
    whole = clf.predict_uncertainty(X[:5], n_draws=20)
    monkeypatch.setattr(uncertainty, "DRAW_BYTES", 1)  # one row at a time
    chunked = clf.predict_uncertainty(X[:5], n_draws=20)
    for key in whole:
        np.testing.assert_allclose(chunked[key], whole[key], rtol=1e-12, atol=1e-15)


# ------------------------------------------------------------- KDBEnsembleClassifier
def test_a_million_members_are_refused_before_fitting():
    X, y = load_iris(return_X_y=True)
    ensemble = KDBEnsembleClassifier(n_estimators=10**6, linear_weight=0.0, pair_weight=0.0)
    with pytest.raises(ValueError, match="n_estimators members"):
        ensemble.fit(X, y)
    assert not hasattr(ensemble, "model_")


def test_the_estimate_counts_the_linear_members_pair_parameters():
    """linear_pairs="all" on many string columns: a weight per joint cell and class."""
    rng = np.random.default_rng(0)
    X = pd.DataFrame({f"s{j}": rng.choice(list("abcdefghijkl"), 40) for j in range(20)})
    y = rng.integers(0, 2, 40)
    members = discotree.KDBClassifier(1, smoothing="hierarchical")
    options = {"n_estimators": 1, "estimator": members, "linear_weight": 0.5, "pair_weight": 0.0}
    with discotree.config_context(memory_limit=8 * 2**20):
        with pytest.raises(ValueError, match="pair members' inputs and parameters"):
            KDBEnsembleClassifier(linear_pairs="all", **options).fit(X, y)
        fitted = KDBEnsembleClassifier(linear_pairs=0, **options).fit(X, y)
    assert fitted.fit_memory_estimate_ < 8 * 2**20


# -------------------------------------------------------------------- the CLI compare
@pytest.fixture
def no_compare(monkeypatch):
    """compare_models replaced: the argument checks only (no processes started)."""
    import discotree.evaluation.compare as compare

    calls = []

    def fake(loaders, models, **kwargs):
        calls.append({"datasets": list(loaders), **kwargs})
        return []

    monkeypatch.setattr(compare, "compare_models", fake)
    return calls


def test_compare_caps_n_jobs_at_the_cpus(no_compare):
    assert main(["compare", "--dataset", "iris", "--models", "nb", "--n-jobs", "100000"]) == 0
    assert no_compare[0]["n_jobs"] == (os.cpu_count() or 1)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--n-jobs", "0"], "--n-jobs must be -1"),
        (["--n-jobs", "-5"], "--n-jobs must be -1"),
        (["--dataset", ""], "no dataset given"),
        (["--dataset", " , "], "no dataset given"),
        (["--dataset", "iris", "--csv", "x.csv", "--target", "y"], "--dataset or --data/--csv"),
        (["--dataset", "iris", "--data", "x.csv", "--target", "y"], "--dataset or --data/--csv"),
    ],
)
def test_compare_refuses_bad_arguments(no_compare, capsys, argv, message):
    assert main(["compare", "--models", "nb", *argv]) == 2
    assert message in capsys.readouterr().err
    assert not no_compare


# ------------------------------------------------------------------- reading CSV files
@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"a,b,y\n1,2,0\n2,3\n1,2,0\n", "Expected 3 columns, got 2: 2,3"),
        (b"a,b,y\n1,2,0\n2,3,1,5,6\n1,2,0\n", "Expected 3 fields in line 3, saw 5"),
        (b"a,b,y\n1,2,0,9\n2,3,1\n", "Expected 3 columns, got 4"),
        (b"a,b,y\n1,2,\n2,3,1\n", r"missing labels at rows \[0\]"),
        (b"\x89PNG\r\n\x1a\n" + bytes(range(128, 256)) * 4, "not UTF-8 text"),
        (b"", "empty file"),
        (b"a,a,y\n1,2,0\n2,3,1\n", r"repeats the column names \['a'\]"),
    ],
    ids=["short-row", "long-row", "long-first-row", "no-label", "binary", "empty", "repeated"],
)
def test_load_csv_refuses_malformed_files(tmp_path, content, message):
    path = tmp_path / "data.csv"
    path.write_bytes(content)
    with pytest.raises(ValueError, match=message):
        load_csv(path, "y")


def test_fit_and_compare_refuse_a_repeated_header(tmp_path, capsys, no_compare):
    path = tmp_path / "data.csv"
    path.write_text("a,a,y\n1,2,0\n2,3,1\n1,2,0\n2,3,1\n")
    argv = ["fit", "--csv", str(path), "--target", "y", "--model", "eskdb"]
    assert main([*argv, "-o", str(tmp_path / "m.json")]) == 1
    assert "repeats the column names ['a']" in capsys.readouterr().err
    assert not (tmp_path / "m.json").exists()


# --------------------------------------------------------------------- Dask, baselines
def test_dask_fit_names_the_smoothing_that_needs_rows():
    dd = pytest.importorskip("dask.dataframe")
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.integers(0, 3, (40, 3)), columns=["a", "b", "c"])
    y = pd.Series(rng.integers(0, 2, 40))
    clf = KDBClassifier(smoothing="hierarchical", alpha=1.0)
    with pytest.raises(ValueError, match=r"smoothing='hierarchical'.*Dask"):
        clf.fit(dd.from_pandas(X, npartitions=2), dd.from_pandas(y, npartitions=2))


def test_boosting_baseline_leaves_out_an_all_missing_column():
    X = pd.DataFrame({"a": [1.0, 2, 3, 4, 5, 6] * 4, "b": np.nan})
    y = np.array([0, 1] * 12)
    proba = AnyColumnsBaseline("gradient-boosting").fit(X, y).predict_proba(X)
    assert np.isfinite(proba).all()
    with pytest.raises(ValueError, match=r"every column \(\['b'\]\) is missing"):
        AnyColumnsBaseline("gradient-boosting").fit(X[["b"]], y)


# ------------------------------------------------------- constructor parameters (campaign)
#: The campaign's estimators (tools/bad_input_campaign.py) and their small settings.
_ESTIMATORS = {
    "NB": ("NaiveBayesClassifier", {}),
    "CL": ("ChowLiuClassifier", {}),
    "TAN": ("TANClassifier", {}),
    "KDB": ("KDBClassifier", {"k": 2}),
    "AODE": ("AODEClassifier", {}),
    "ENS": (
        "KDBEnsembleClassifier",
        {"n_estimators": 2, "estimator": discotree.KDBClassifier(2, smoothing="hierarchical")},
    ),
    "BOOST": ("BoostedGraphicalModelClassifier", {"n_estimators": 2}),
    "DT": ("DiscriminativeTreeClassifier", {}),
    "EAR": ("EARTreeClassifier", {"n_permutations": 1}),
    "FD": ("ForestDensityClassifier", {"probability": True, "max_iter": 500}),
    "SFS": ("SubmodularFeatureSelector", {"n_restarts": 1, "n_permutations": 1}),
}


def _make(short, **params):
    name, defaults = _ESTIMATORS[short]
    return getattr(discotree, name)(**{**defaults, **params})


@pytest.fixture(scope="module")
def numeric_rows():
    rng = np.random.default_rng(0)  # floats of few values (the path that sized by them)
    return rng.integers(0, 4, (40, 4)).astype(float), rng.integers(0, 3, 40)


def _answer(model, X):
    if hasattr(model, "predict_proba"):
        return model.predict_proba(X)
    return model.transform(X)


@pytest.mark.parametrize("value", [10**9, 2**63], ids=["1e9", "2**63"])
@pytest.mark.parametrize(
    "short", ["NB", "CL", "TAN", "KDB", "AODE", "ENS", "BOOST", "DT", "EAR", "SFS"]
)
def test_huge_max_categories_is_every_row_a_category(numeric_rows, short, value):
    """max_categories sizes nothing beyond the rows: a column has at most one distinct
    value per row, so any max_categories >= n_rows is the same model (was an array of
    (n_features, max_categories + 1) floats)."""
    X, y = numeric_rows
    huge = _make(short, max_categories=value).fit(X, y)
    rows = _make(short, max_categories=len(X)).fit(X, y)
    np.testing.assert_allclose(_answer(huge, X), _answer(rows, X))


@pytest.mark.parametrize("value", [10**9, 2**63], ids=["1e9", "2**63"])
@pytest.mark.parametrize("short", ["KDB", "ENS"])
def test_k_beyond_the_features_acts_as_n_features_minus_one(numeric_rows, short, value):
    """An attribute has at most n_features - 1 earlier ones (was a (d + 1, k + 1)
    table of leave-one-out losses)."""
    X, y = numeric_rows

    def with_k(k):  # (the ensemble's members: its template's k)
        if short == "ENS":
            return _make(short, estimator=discotree.KDBClassifier(k, smoothing="hierarchical"))
        return _make(short, k=k)

    huge = with_k(value).fit(X, y)
    most = with_k(X.shape[1] - 1).fit(X, y)
    np.testing.assert_allclose(huge.predict_proba(X), most.predict_proba(X))


@pytest.mark.parametrize("value", [10**9, 2**63], ids=["1e9", "2**63"])
def test_ensemble_n_jobs_beyond_the_cores_is_capped(numeric_rows, value):
    """More threads than cores or members buy nothing (joblib refused 10**9)."""
    X, y = numeric_rows
    many = _make("ENS", n_jobs=value).fit(X, y)
    np.testing.assert_allclose(many.predict_proba(X), _make("ENS").fit(X, y).predict_proba(X))


def test_boosting_folds_beyond_the_rows_split_only_those_holding_rows(numeric_rows):
    """n_estimators_cv=10**9 splits only the folds that hold rows (an empty fold
    scores nothing), instead of 10**9 index arrays."""
    X, y = numeric_rows
    model = _make("BOOST", n_estimators_cv=10**9).fit(X, y)
    assert model.predict_proba(X).shape == (len(X), 3)


@pytest.mark.parametrize(
    "params, match",
    [
        ({"n_estimators": 2**63}, "n_estimators must be at most"),
        ({"n_estimators_cv": 2**63}, "n_estimators_cv must be at most"),
        ({"n_estimators": 10**9}, "n_estimators=1000000000"),
        ({"n_estimators": 10**9, "n_estimators_cv": 3}, "n_estimators=1000000000"),
    ],
    ids=["n_estimators=2**63", "n_estimators_cv=2**63", "n_estimators=1e9", "n_estimators=1e9-cv"],
)
def test_boosting_refuses_counts_out_of_range_by_name(numeric_rows, params, match):
    X, y = numeric_rows
    with pytest.raises((ValueError, TypeError), match=match):
        _make("BOOST", **params).fit(X, y)


@pytest.mark.parametrize(
    "short, params, match",
    [
        ("DT", {"edge_cost": None}, "edge_cost.*None"),
        ("DT", {"edge_cost": "1.0"}, "edge_cost.*'1.0'"),
        ("DT", {"edge_cost": [["1"] * 4] * 4}, "edge_cost"),
        ("FD", {"max_iter": 2**63}, "max_iter.*9223372036854775808"),
        ("SFS", {"cost": "x"}, "cost.*'x'"),
        ("SFS", {"discretizer": "x"}, "discretizer.*'x'"),
        ("SFS", {"discretizer": -1}, "discretizer.*-1"),
        ("SFS", {"discretizer": 0}, "discretizer.*0"),
        ("SFS", {"discretizer": 10**9}, "discretizer.*1000000000"),
        ("SFS", {"discretizer": 2.5}, "discretizer.*2.5"),
        ("SFS", {"discretizer": float("nan")}, "discretizer.*nan"),
        ("SFS", {"discretizer": []}, r"discretizer.*\[\]"),
        ("SFS", {"single_moves": "x"}, "single_moves.*'x'"),
        ("SFS", {"single_moves": "False"}, "single_moves.*'False'"),
        ("SFS", {"single_moves": []}, r"single_moves.*\[\]"),
        ("SFS", {"check_cost": "x"}, "check_cost.*'x'"),
        ("SFS", {"check_cost": "False"}, "check_cost.*'False'"),
        ("SFS", {"check_cost": []}, r"check_cost.*\[\]"),
        ("SFS", {"n_restarts": 10**9}, "n_restarts.*1000000000"),
        ("SFS", {"n_restarts": 2**63}, "n_restarts.*9223372036854775808"),
        ("SFS", {"cost_weight": 1e308}, "cost_weight=1e\\+308"),
    ],
    ids=lambda v: repr(v) if not isinstance(v, str) or len(v) < 12 else None,
)
def test_bad_constructor_parameters_are_refused_by_name(numeric_rows, short, params, match):
    """Refused at fit, naming the parameter and the value, before any work."""
    X, y = numeric_rows
    with pytest.raises((ValueError, TypeError), match=match):
        _make(short, **params).fit(X, y)


@pytest.mark.parametrize("minimizer", ["min-norm", "queyranne"])
def test_huge_cost_weight_finishes_with_one_feature(numeric_rows, minimizer):
    """cost_weight=1e300 made the min-norm point's norms inf - inf = nan, its stopping
    test never held and lstsq ran on nan (a hang): now one feature (the cost of any
    more dwarfs every information)."""
    X, y = numeric_rows
    model = _make("SFS", cost_weight=1e300, minimizer=minimizer).fit(X, y)
    assert model.support_.sum() == 1
