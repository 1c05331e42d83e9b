"""Maps of categories: every column looked up at once (numpy, and the compiled kernel
beyond a few cells) against a column-by-column reference, missing codes kept, and codes
past a table refused."""

import numpy as np
import pytest

from discotree.models.category_maps import apply_maps, looked_up


def _column_by_column(codes, tables, fill):
    out = np.empty(codes.shape, dtype=np.result_type(*tables, np.asarray(fill)))
    for j, table in enumerate(tables):
        for i, code in enumerate(codes[:, j]):
            out[i, j] = fill if code < 0 else table[code]
    return out


@pytest.mark.parametrize("compiled", [False, True])
@pytest.mark.parametrize("seed", range(6))
def test_lookups_equal_the_column_by_column_reference(seed, compiled, monkeypatch):
    # (apply_maps: numpy on few cells, the compiled kernels.encode.map_columns beyond)
    monkeypatch.setattr(
        "discotree.models.category_maps.SMALL_DATA_CELLS", -1 if compiled else 10**9
    )
    rng = np.random.default_rng(seed)
    lengths = rng.integers(1, 6, int(rng.integers(1, 7)))
    codes = np.column_stack([rng.integers(-1, n, 11) for n in lengths])
    ints = [rng.integers(0, 4, n) for n in lengths]
    floats = [rng.normal(size=n) for n in lengths]
    assert np.array_equal(looked_up(codes, ints, -1), _column_by_column(codes, ints, -1))
    assert np.array_equal(looked_up(codes, floats, 0.0), _column_by_column(codes, floats, 0.0))
    maps = [None if rng.random() < 0.4 else table for table in ints]
    expected = codes.copy()
    for j, table in enumerate(maps):
        if table is not None:
            expected[:, j] = _column_by_column(codes[:, [j]], [table], -1)[:, 0]
    assert np.array_equal(apply_maps(codes, maps), expected)


@pytest.mark.parametrize("compiled", [False, True])
def test_a_code_past_its_table_is_refused(compiled, monkeypatch):
    monkeypatch.setattr(
        "discotree.models.category_maps.SMALL_DATA_CELLS", -1 if compiled else 10**9
    )
    codes = np.array([[0, 1], [1, 3]])
    with pytest.raises(ValueError, match="column 1 holds a code past its table's 3 entries"):
        looked_up(codes, [np.arange(2), np.arange(3)], -1)
    with pytest.raises(ValueError, match="column 1 holds a code past"):
        apply_maps(codes, [None, np.arange(3)])


@pytest.mark.parametrize("compiled", [False, True])
def test_fewer_maps_than_columns_leave_the_others_as_they_are(compiled, monkeypatch):
    monkeypatch.setattr(
        "discotree.models.category_maps.SMALL_DATA_CELLS", -1 if compiled else 10**9
    )
    codes = np.array([[2, 1, 0], [-1, 0, 1]])
    assert apply_maps(codes, [np.array([0, 0, 1])]).tolist() == [[1, 1, 0], [-1, 0, 1]]
    assert apply_maps(codes, []).tolist() == codes.tolist()
    with pytest.raises(ValueError, match=r"apply_maps: 4 maps for codes of shape \(2, 3\)"):
        apply_maps(codes, [None] * 4)
