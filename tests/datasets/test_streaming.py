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
