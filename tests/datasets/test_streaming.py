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


def _gzip_cut(text: str) -> bytes:
    import gzip

    data = gzip.compress(text.encode())
    return data[: len(data) // 2]


UNREADABLE = {
    "empty": ("t.csv", b"", r"t\.csv: empty file \(no header row\)"),
    "binary": ("t.csv", bytes(range(256)) * 8, r"t\.csv: not text \(a NUL byte at byte 0\)"),
    "not-utf8": (
        "t.csv",
        b"\x89PNG\r\n\x1a\n" + bytes(range(128, 256)) * 4,
        r"t\.csv: not UTF-8 text \(invalid start byte at byte 0\)",
    ),
    "duplicate-header": ("t.csv", b"a,a\n1,2\n", r"t\.csv: the header repeats .* \['a'\]"),
    "short-row": (
        "t.csv",
        b"a,b\n1,2\n3\n",
        r"row 2 \(line 3\) has 1 field where the header has 2",
    ),
    "long-row": ("t.csv", b"a,b\n1,2\n3,4,5\n", r"row 2 \(line 3\) has 3 fields where .* has 2"),
    "late-short-row": (
        "t.csv",
        ("a,b\n" + "1,2\n" * 120_000 + "3\n").encode(),
        r"row 120001 \(line 120002\) has 1 field where the header has 2",
    ),
    "corrupt-gz": ("t.csv.gz", b"\x1f\x8b\x08\x00garbage", r"t\.csv\.gz: not a complete gzip"),
    "truncated-gz": ("t.csv.gz", _gzip_cut("a,b\n" + "1,2\n" * 50_000), "not a complete gzip"),
    "corrupt-parquet": ("t.parquet", b"PAR1garbagePAR1", r"t\.parquet: a damaged Parquet file"),
    "not-parquet": ("t.parquet", b"a,b\n1,2\n", r"t\.parquet: not a Parquet file"),
    "empty-parquet": ("t.parquet", b"", r"t\.parquet: empty file"),
    "folder-duplicate-header": ("d/b.csv", b"a,a\n1,2\n", r"b\.csv: the header repeats"),
    "folder-short-row": ("d/b.csv", b"a,b\n1,2\n3\n", r"b\.csv: row 2 \(line 3\) has 1 field"),
}


@pytest.mark.parametrize("case", list(UNREADABLE))
def test_an_unreadable_file_is_named_in_plain_words(tmp_path, case):
    """What pyarrow cannot read (opening the source or reading its batches) is a
    ValueError naming the file and the problem, as load_csv says it."""
    name, content, message = UNREADABLE[case]
    path = tmp_path / name
    path.parent.mkdir(exist_ok=True)
    if name.startswith("d/"):
        (path.parent / "a.csv").write_text("a,b\n1,2\n")
    path.write_bytes(content)
    with pytest.raises(ValueError, match=message):
        list(TableSource(path.parent if name.startswith("d/") else path).batches(1000))
