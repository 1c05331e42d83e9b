"""TableEncoder codes against a plain-Python mapping."""

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_array_equal

from discotree import Discretizer, TableEncoder
from discotree._validation import check_codes, check_table


def _reference_codes(train, test, max_categories):
    """Per column: sorted distinct training values -> index; NaN/unseen -> -1."""
    out = np.full(test.shape, -1)
    for j in range(train.shape[1]):
        values = sorted({float(v) for v in train[:, j] if not np.isnan(v)})
        assert len(values) <= max_categories
        for r, v in enumerate(test[:, j]):
            if not np.isnan(v) and float(v) in values:
                out[r, j] = values.index(float(v))
    return out


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.uint8])
def test_numeric_categories_match_reference(rng, dtype):
    train = rng.integers(0, 6, size=(200, 5)).astype(dtype)
    test = rng.integers(0, 8, size=(50, 5)).astype(dtype)  # 6, 7 unseen
    if np.dtype(dtype).kind == "f":
        train[rng.random(train.shape) < 0.2] = np.nan
        test[rng.random(test.shape) < 0.2] = np.nan
        train = train * 0.5  # non-integer categories
        test = test * 0.5
    enc = TableEncoder(10, Discretizer(), "T")
    enc.fit_transform(check_table(train, "T"), None)
    codes = enc.transform(check_table(test, "T"))
    ref = _reference_codes(train.astype(float), test.astype(float), 10)
    assert_array_equal(codes, ref)


def test_wide_integer_range_and_negative_values(rng):
    train = rng.choice([-5000, 3, 7000], size=(100, 2))
    enc = TableEncoder(10, Discretizer(), "T")
    codes = enc.fit_transform(check_table(train, "T"), None)
    assert_array_equal(codes, _reference_codes(train.astype(float), train.astype(float), 10))


def test_binned_columns_use_the_discretizer(rng):
    x = rng.normal(size=(300, 2))
    enc = TableEncoder(10, Discretizer(n_bins=4), "T")
    codes = enc.fit_transform(check_table(x, "T"), None)
    assert enc.n_categories_.tolist() == [4, 4]
    assert_array_equal(codes, Discretizer(n_bins=4).fit_transform(x).astype(int))


def test_object_and_categorical_columns():
    X = pd.DataFrame({"s": ["b", "a", None, "c"], "c": pd.Categorical(["x", "y", "x", None])})
    enc = TableEncoder(10, Discretizer(), "T")
    codes = enc.fit_transform(check_table(X, "T"), None)
    assert_array_equal(codes, [[1, 0], [0, 1], [-1, 0], [2, -1]])
    new = pd.DataFrame({"s": ["c", "zzz"], "c": pd.Categorical(["y", "w"])})
    assert_array_equal(enc.transform(check_table(new, "T")), [[2, 1], [-1, -1]])


def test_check_codes_names_the_bad_column():
    with pytest.raises(ValueError, match=r"codes\[:, 1\] out of range"):
        check_codes(np.array([[0, 3]]), np.array([2, 2]))
    with pytest.raises(ValueError, match=r"codes\[:, 0\] out of range"):
        check_codes(np.array([[-2, 0]]), np.array([2, 2]))
