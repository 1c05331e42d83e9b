"""Every bad input gets a ValueError that names the problem."""

import numpy as np
import pandas as pd
import pytest

from discotree import ChowLiuClassifier, Discretizer, NaiveBayesClassifier, TANClassifier

ALL = [NaiveBayesClassifier, ChowLiuClassifier, TANClassifier]


@pytest.fixture
def data(rng):
    return rng.integers(0, 3, (30, 3)).astype(float), rng.integers(0, 2, 30)


@pytest.mark.parametrize("Estimator", ALL)
class TestBadInput:
    def test_single_class(self, Estimator, data):
        X, _ = data
        with pytest.raises(ValueError, match="only 1 class"):
            Estimator().fit(X, np.zeros(30))

    def test_single_class_with_positive_weight(self, Estimator, data):
        X, y = data
        w = (y == 1).astype(float)
        with pytest.raises(ValueError, match="only 1 class"):
            Estimator().fit(X, y, sample_weight=w)

    def test_length_mismatch(self, Estimator, data):
        X, y = data
        with pytest.raises(ValueError, match="X has 30 rows but y has 29 labels"):
            Estimator().fit(X, y[:-1])

    def test_zero_rows(self, Estimator):
        with pytest.raises(ValueError, match="0 sample"):
            Estimator().fit(np.empty((0, 3)), np.empty(0))
        with pytest.raises(ValueError, match="0 rows"):
            Estimator().fit(pd.DataFrame({"a": []}), np.empty(0))

    def test_wrong_number_of_columns_at_predict(self, Estimator, data):
        X, y = data
        clf = Estimator().fit(X, y)
        with pytest.raises(ValueError, match=r"X has 2 features, but .* is expecting 3"):
            clf.predict(X[:, :2])

    def test_wrong_column_names_at_predict(self, Estimator, data):
        X, y = data
        df = pd.DataFrame(X, columns=["a", "b", "c"])
        clf = Estimator().fit(df, y)
        with pytest.raises(ValueError, match="feature names should match"):
            clf.predict(df.rename(columns={"c": "z"}))

    def test_inf_in_x(self, Estimator, data):
        X, y = data
        X[4, 1] = np.inf
        with pytest.raises(ValueError, match=r"X\[:, 1\] contains inf at rows \[4\]"):
            Estimator().fit(X, y)
        df = pd.DataFrame(X, columns=["a", "b", "c"])
        with pytest.raises(ValueError, match=r"X\['b'\] contains inf"):
            Estimator().fit(df, y)

    def test_inf_in_x_at_predict(self, Estimator, data):
        X, y = data
        clf = Estimator().fit(X, y)
        X[2, 0] = -np.inf
        with pytest.raises(ValueError, match=r"X\[:, 0\] contains inf at rows \[2\]"):
            clf.predict(X)

    @pytest.mark.parametrize(
        "weights, message",
        [
            (-np.ones(30), "sample_weight is negative at rows"),
            (np.full(30, np.nan), "sample_weight is not finite"),
            (np.full(30, np.inf), "sample_weight is not finite"),
            (np.zeros(30), "sample_weight is zero for every sample"),
            (np.ones(29), "sample_weight has 29 entries but X has 30 rows"),
            (np.ones((30, 2)), "sample_weight must be 1-D"),
        ],
    )
    def test_bad_sample_weight(self, Estimator, data, weights, message):
        X, y = data
        with pytest.raises(ValueError, match=message):
            Estimator().fit(X, y, sample_weight=weights)

    def test_bad_parameters(self, Estimator, data):
        X, y = data
        with pytest.raises(ValueError, match="alpha must be >= 0"):
            Estimator(alpha=-1).fit(X, y)
        with pytest.raises(ValueError, match="max_categories must be an integer"):
            Estimator(max_categories=0).fit(X, y)

    def test_missing_labels(self, Estimator, data):
        X, _ = data
        y = np.array(["a", "b"] * 15, dtype=object)
        y[3] = None
        with pytest.raises(ValueError, match="y contains missing labels"):
            Estimator().fit(X, y)

    def test_non_numeric_value_in_numeric_column(self, Estimator, data):
        X, y = data
        clf = Estimator().fit(X, y)
        bad = X.astype(object)
        bad[0, 0] = "oops"
        with pytest.raises(ValueError, match=r"X\[:, 0\] was numeric at fit time"):
            clf.predict(bad)


@pytest.mark.parametrize(
    "estimator, message",
    [
        (TANClassifier(structure="nope"), "structure must be one of"),
        (TANClassifier(k=3), "k must be 0, 1 or 2"),
        (ChowLiuClassifier(n_edges=-1), "n_edges must be None"),
        (Discretizer(method="mdl?"), "method must be one of"),
        (Discretizer(n_bins=1), "n_bins must be >= 2"),
    ],
)
def test_estimator_specific_parameters(rng, estimator, message):
    X, y = rng.integers(0, 3, (20, 3)), rng.integers(0, 2, 20)
    with pytest.raises(ValueError, match=message):
        estimator.fit(X) if isinstance(estimator, Discretizer) else estimator.fit(X, y)


def test_nan_is_missing_not_an_error(rng):
    X = rng.normal(size=(40, 3))
    X[::5, 1] = np.nan
    y = rng.integers(0, 2, 40)
    proba = TANClassifier().fit(X, y).predict_proba(X)
    assert np.isfinite(proba).all()


def test_string_and_categorical_columns_stay_codes_until_read():
    """check_table keeps pandas string and categorical columns as codes into their
    values; reading cells builds the object array, selecting rows keeps the codes."""
    from discotree.validation import FactorizedColumn, check_table

    frame = pd.DataFrame(
        {
            "s": pd.array(["b", None, "a", "b"], dtype="string"),
            "c": pd.Categorical(["x", "y", None, "x"], categories=["y", "x", "unused"]),
        }
    )
    table = check_table(frame, "T")
    for j, expected in enumerate([["b", None, "a", "b"], ["x", "y", None, "x"]]):
        column = table.columns[j]
        assert isinstance(column, FactorizedColumn) and column.dtype.kind == "O"
        assert column.tolist() == expected and list(column) == expected
        assert np.asarray(column).tolist() == expected
        assert column[[0, 3]].tolist() == [expected[0], expected[3]]
        assert isinstance(column[1:], FactorizedColumn) and column[2] == expected[2]
    taken = table.take(np.array([2, 0]))
    assert taken.columns[0].tolist() == ["a", "b"]
    assert taken.factorized[1][0].tolist() == [-1, 1]  # codes into the categories


def test_categoricals_of_numbers_are_codes_checked_once_per_category():
    """A categorical of numbers is held as codes into its categories too (its checks
    read each category once, not every cell): inf among them is refused with its rows,
    and a model reads the same categories as from the column's objects."""
    from discotree import KDBEnsembleClassifier, NaiveBayesClassifier
    from discotree.validation import FactorizedColumn, check_table

    numbers = pd.Categorical([5.0, 6.0, None, 5.0, 0.0] * 8)
    table = check_table(pd.DataFrame({"n": numbers}), "T")
    assert isinstance(table.columns[0], FactorizedColumn)
    assert table.columns[0].tolist()[:5] == [5.0, 6.0, None, 5.0, 0.0]
    bad = pd.DataFrame({"n": pd.Categorical([1.0, np.inf, 2.0, np.inf])})
    with pytest.raises(ValueError, match=r"X\['n'\] contains inf at rows \[1, 3\]"):
        NaiveBayesClassifier().fit(bad, [0, 1, 0, 1])
    unused = pd.Categorical([1.0, 2.0, 1.0, 2.0], categories=[1.0, 2.0, np.inf])
    NaiveBayesClassifier().fit(pd.DataFrame({"n": unused}), [0, 1, 0, 1])  # (no inf cell)
    rng = np.random.default_rng(0)
    X = pd.DataFrame(
        {
            "n": pd.Categorical(rng.choice([5.0, 6.0, 0.0, np.nan], 80)),
            "m": pd.Categorical(rng.choice([1, 2, 3], 80)),
        }
    )
    y = (X["n"].astype(float).fillna(0) > 4).astype(int).to_numpy()
    as_objects = X.astype(object).where(X.notna(), None)
    for Estimator in (NaiveBayesClassifier, lambda: KDBEnsembleClassifier(n_estimators=2)):
        codes = Estimator().fit(X, y)
        objects = Estimator().fit(as_objects, y)
        assert np.array_equal(codes.predict_proba(X), objects.predict_proba(as_objects))
        assert np.array_equal(codes.predict_proba(as_objects), codes.predict_proba(X))
