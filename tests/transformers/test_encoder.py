"""TableEncoder codes against a plain-Python mapping."""

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_array_equal

from discotree import Discretizer, TableEncoder
from discotree.validation import check_codes, check_table


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


def _batch_frame(rng, n, colours, counts):
    frame = pd.DataFrame(
        {
            "colour": rng.choice(colours, n).astype(object),
            "count": rng.choice(counts, n).astype(float),
            "big": rng.choice([2**60, 2**60 + 1, -(2**61)], n),
        }
    )
    frame.loc[rng.random(n) < 0.2, "colour"] = None
    frame.loc[rng.random(n) < 0.2, "count"] = np.nan
    return frame


def test_extend_gives_the_codes_fit_gives_on_all_batches(rng):
    """Categories added batch by batch end in fit's order, and the maps move every old
    code to the code of the same category."""
    first = _batch_frame(rng, 50, ["pear", "fig"], [3.0, 1.0])
    later = _batch_frame(rng, 50, ["apple", "pear", "zucchini"], [0.0, 1.0, 5.0])
    streamed = TableEncoder(10, Discretizer(), "T")
    old_codes = streamed.fit_transform(check_table(first, "T"), None)
    old_categories = [spec.categories for spec in streamed.columns_]
    maps = streamed.extend(check_table(later, "T"), 50)
    assert sorted(maps) == [0, 1]  # "big" brought nothing new
    whole = pd.concat([first, later], ignore_index=True)
    fitted = TableEncoder(10, Discretizer(), "T")
    expected = fitted.fit_transform(check_table(whole, "T"), None)
    assert_array_equal(streamed.n_categories_, fitted.n_categories_)
    assert_array_equal(streamed.transform(check_table(whole, "T")), expected)
    for j, new_code in maps.items():  # the same category before and after
        new_categories = streamed.columns_[j].categories
        for old, category in enumerate(old_categories[j]):
            assert new_categories[new_code[old]] == category
    moved = old_codes.astype(np.intp).copy()
    for j, new_code in maps.items():
        moved[:, j] = np.where(moved[:, j] >= 0, new_code[np.maximum(moved[:, j], 0)], -1)
    assert_array_equal(moved, expected[:50])


def test_extend_refuses_and_keeps_the_encoding(rng):
    first = _batch_frame(rng, 40, ["pear"], [1.0, 2.0])
    encoder = TableEncoder(3, Discretizer(), "T")
    encoder.fit_transform(check_table(first, "T"), None)
    before = [spec.categories.copy() for spec in encoder.columns_]
    bad = _batch_frame(rng, 40, ["fig", "kiwi"], [1.0, 2.0, 3.0, 4.0])
    with pytest.raises(ValueError, match=r"had at most 3 distinct values in the first batch"):
        encoder.extend(check_table(bad, "T"), 40)
    for spec, old in zip(encoder.columns_, before, strict=True):
        assert_array_equal(spec.categories, old)
    with pytest.raises(ValueError, match="this batch has 2 columns, the first had 3"):
        encoder.extend(check_table(first.iloc[:, :2], "T"), 40)


def test_threaded_encoding_equals_one_thread(rng, monkeypatch):
    """Numeric category columns are encoded on row blocks (one per core) above a
    million cells: the same codes, by lookup (small integers) and by search (floats)."""
    from discotree.transformers import encoder as encoder_module

    small = rng.integers(0, 6, (4000, 5))
    floats = rng.integers(0, 6, (4000, 5)) * 0.5
    floats[rng.random(floats.shape) < 0.1] = np.nan
    for X in (small, floats):
        single = TableEncoder(max_categories=50)
        expected = single.fit_transform(X)
        monkeypatch.setattr(encoder_module, "_THREAD_CELLS", 1)
        monkeypatch.setattr("discotree.threads.available_cores", lambda: 3)
        np.testing.assert_array_equal(single.transform(X), expected)
        monkeypatch.undo()


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("threads", [1, 3])
def test_integer_columns_coded_by_their_values_equal_the_lookup(rng, monkeypatch, order, threads):
    """Integer columns whose categories are 0..r-1 are encoded by a copy (their codes
    are their values): the same codes as the category lookup, -1 for values never seen,
    in either memory order, on one thread or several, beside other columns; a numeric
    column with other categories sends the block to the lookup, with the same codes."""
    from discotree.transformers import encoder as encoder_module

    train = pd.DataFrame(rng.integers(0, 4, (500, 4)).astype(np.int8), columns=list("abcd"))
    train["s"] = rng.choice(["x", "y"], 500)
    train["e"] = rng.choice([0, 2, 5], 500)
    test = train.iloc[:300].copy()
    values = np.array(test[list("abcd")])
    values[rng.random(values.shape) < 0.1] = 4  # never seen
    values[rng.random(values.shape) < 0.05] = -2  # never seen, negative
    values = np.asfortranarray(values) if order == "F" else np.ascontiguousarray(values)
    test[list("abcd")] = values
    expected = np.column_stack(
        [
            np.where((values >= 0) & (values < 4), values, -1),
            pd.Index(["x", "y"]).get_indexer(test["s"]),
            pd.Index([0, 2, 5]).get_indexer(test["e"]),
        ]
    )
    monkeypatch.setattr(encoder_module, "_THREAD_CELLS", 1 if threads > 1 else 10**9)
    monkeypatch.setattr("discotree.threads.available_cores", lambda: threads)
    copies = []
    original = encoder_module.TableEncoder._encode_identity
    monkeypatch.setattr(
        encoder_module.TableEncoder,
        "_encode_identity",
        staticmethod(lambda *a: copies.append(original(*a)) or copies[-1]),
    )
    for columns, n_out in ((list("abcds"), 5), (list("abcdse"), 6), (list("abcd"), 4)):
        encoder = TableEncoder()
        encoder.fit_transform(train[columns])
        frame = encoder.transform(test[columns])
        np.testing.assert_array_equal(frame, expected[:, :n_out])
        block = encoder.transform(values.astype(np.int16, order=order)) if n_out == 4 else None
        if block is not None:
            np.testing.assert_array_equal(block, expected[:, :4])
    assert copies == [True, True, False, False, True, True, True]  # fits and transforms


def test_strings_are_categories_even_when_they_read_as_numbers():
    """The API takes text columns as categories by design: numbers with a typo are
    reported only where a file is parsed (discotree.datasets.reading)."""
    X = pd.DataFrame({"s": ["1.5", "2.5", "1.2O", "2.5"]})
    enc = TableEncoder(10, Discretizer(), "T")
    assert_array_equal(enc.fit_transform(check_table(X, "T"), None)[:, 0], [1, 2, 0, 2])
    assert enc.columns_[0].values.tolist() == ["1.2O", "1.5", "2.5"]
