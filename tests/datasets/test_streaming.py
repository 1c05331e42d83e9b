"""Batches read one ahead in a background thread: the same rows in the same order,
errors raised in the caller, and a caller that stops early stops the reader."""

import threading

import numpy as np
import pandas as pd
import pytest

from discotree.datasets.streaming import TableSource, _prefetched


def _threads():
    return [t for t in threading.enumerate() if t.name == "discotree-prefetch"]


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_prefetched_batches_equal_the_plain_ones(suffix, tmp_path, rng):
    frame = pd.DataFrame(rng.integers(0, 5, (1003, 4)), columns=list("abcd"))
    frame["s"] = np.where(rng.random(1003) < 0.1, None, "x")
    path = tmp_path / f"table{suffix}"
    frame.to_csv(path, index=False) if suffix == ".csv" else frame.to_parquet(path)
    source = TableSource(path)
    ahead = list(source.batches(100))
    plain = list(source.batches(100, prefetch=False))
    assert [len(b) for b in ahead] == [100] * 10 + [3]
    for a, b in zip(ahead, plain, strict=True):
        pd.testing.assert_frame_equal(a, b)
    assert not _threads()


@pytest.mark.parametrize("whole_group_rows", [10, 1 << 20])
@pytest.mark.parametrize("row_group_size", [64, 5000])
def test_batches_split_off_the_target_and_cross_row_groups(
    tmp_path, rng, monkeypatch, row_group_size, whole_group_rows
):
    """With target=, each batch is (the other columns, that column); Parquet row groups
    read whole or in batches give the same rows in order."""
    frame = pd.DataFrame(rng.integers(0, 5, (1003, 3)), columns=list("abc"))
    frame["y"] = rng.choice(["u", "v"], 1003)
    path = tmp_path / "t.parquet"
    frame.to_parquet(path, row_group_size=row_group_size)
    monkeypatch.setattr("discotree.datasets.streaming._WHOLE_GROUP_ROWS", whole_group_rows)
    pairs = list(TableSource(path).batches(100, target="y"))
    assert [len(X) for X, _ in pairs] == [100] * 10 + [3]
    pd.testing.assert_frame_equal(
        pd.concat([X for X, _ in pairs], ignore_index=True), frame[list("abc")]
    )
    assert pd.concat([y for _, y in pairs]).tolist() == frame["y"].tolist()
    with pytest.raises(ValueError, match="no column named 'z'"):
        TableSource(path).batches(100, target="z")


def test_an_error_in_the_reader_is_raised_in_the_caller():
    def failing():
        yield 1
        raise ValueError("bad batch 2")

    seen = []
    with pytest.raises(ValueError, match="bad batch 2"):
        for item in _prefetched(failing()):
            seen.append(item)
    assert seen == [1]
    assert not _threads()


def test_a_caller_that_stops_early_stops_the_reader():
    produced = []

    def endless():
        k = 0
        while True:
            produced.append(k)
            yield k
            k += 1

    batches = _prefetched(endless(), depth=1)
    assert [next(batches) for _ in range(3)] == [0, 1, 2]
    batches.close()  # what a `break` out of a for loop does
    assert not _threads()
    assert len(produced) <= 5  # at most the queue and the item being put
