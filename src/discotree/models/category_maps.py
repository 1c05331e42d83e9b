"""Maps of a column's categories onto coarser ones (the ensemble's coarsened bins, the
levels the linear member's pairs read): the mapped codes and category counts.

A map is an integer array with one entry per category; None leaves a column as it is.
Missing codes (-1) stay missing.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from .. import missing_values
from ..kernels.encode import SMALL_DATA_CELLS, map_columns
from ..missing_values import MISSING

__all__ = ["apply_maps", "looked_up", "mapped_categories", "packed_maps", "unpacked_maps"]


def apply_maps(codes: NDArray[np.integer], maps: list[NDArray[np.intp] | None]) -> NDArray[np.intp]:
    """The codes with each mapped column coarsened (missing stays -1): the codes
    themselves (as integers of numpy's index type) where no column is mapped.

    Examples
    --------
    >>> apply_maps(np.array([[2, 1], [-1, 0]]), [np.array([0, 0, 1]), None]).tolist()
    [[1, 1], [-1, 0]]
    """
    given: NDArray[np.intp] = np.asarray(codes, dtype=np.intp)
    if given.ndim != 2 or len(maps) > given.shape[1]:
        raise ValueError(
            f"apply_maps: {len(maps)} maps for codes of shape {given.shape} (one map or "
            "None a column at most)"
        )
    maps = [*maps, *[None] * (given.shape[1] - len(maps))]  # (the columns after: as they are)
    mapped = [j for j, table in enumerate(maps) if table is not None]
    if not mapped:  # (nothing to coarsen: no copy)
        return given
    tables = [table for table in maps if table is not None]
    out: NDArray[np.intp] = np.empty(given.shape, dtype=np.intp)
    if given.size <= SMALL_DATA_CELLS:  # (numpy: no kernel to load for a few cells)
        out[...] = given
        if mapped:  # (every mapped column at once)
            out[:, mapped] = looked_up(given[:, mapped], tables, MISSING, mapped)
        return out
    lengths = np.array([0 if table is None else len(table) for table in maps], dtype=np.intp)
    starts = np.where([table is None for table in maps], -1, np.cumsum(lengths) - lengths)
    entries = np.concatenate([np.zeros(0, dtype=np.intp), *tables]).astype(np.intp)
    column = map_columns(np.ascontiguousarray(given), starts.astype(np.intp), lengths, entries,
                         MISSING, out)  # fmt: skip
    if column < given.shape[1]:  # (a column holds a code past its map)
        raise ValueError(
            f"looked_up: column {column} holds a code past its table's {lengths[column]} entries"
        )
    return out


def looked_up(
    codes: NDArray[np.integer],
    tables: list[NDArray],
    fill: float,
    columns: list[int] | None = None,
) -> NDArray:
    """Each column ``j`` of ``codes`` read in ``tables[j]`` (``fill`` where missing), every
    column in one lookup; a code past its table is refused, the column named by its
    index in ``columns`` (default: in ``codes``).

    Examples
    --------
    >>> looked_up(np.array([[2, 0], [-1, 1]]), [np.array([5, 6, 7]), np.array([8, 9])], -1)
    array([[ 7,  8],
           [-1,  9]])
    """
    codes = np.asarray(codes)
    lengths = np.array([len(table) for table in tables], dtype=np.intp)
    if codes.size and (codes >= lengths).any():
        at = int(np.flatnonzero((codes >= lengths).any(axis=0))[0])
        column = at if columns is None else columns[at]
        raise ValueError(
            f"looked_up: column {column} holds a code past its table's {lengths[at]} entries"
        )
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.intp)
    flat = np.concatenate(tables)
    seen = np.asarray(missing_values.observed(codes))
    return np.where(seen, flat[starts + np.maximum(codes, 0)], fill)


def mapped_categories(
    n_categories: NDArray[np.intp], maps: list[NDArray[np.intp] | None]
) -> NDArray[np.intp]:
    """The number of categories of every column after ``maps``.

    Examples
    --------
    >>> maps = [None, np.array([0, 0, 1, 1, 2, 2, 3, 3])]
    >>> mapped_categories(np.array([3, 8]), maps).tolist()
    [3, 4]
    """
    return np.array(
        [
            int(n) if m is None else int(m.max()) + 1
            for n, m in zip(n_categories, maps, strict=True)
        ],
        dtype=np.intp,
    )


def packed_maps(maps: list[list[NDArray[np.intp] | None]]) -> dict[str, NDArray[np.int64]]:
    """Several lists of maps (an ensemble's, one list per member) as two flat arrays, for
    a compact pickle: each map's length (-1 for None) and their entries one after the
    other (:func:`unpacked_maps` gives them back).

    Examples
    --------
    >>> packed = packed_maps([[None, np.array([0, 0, 1])], [np.array([0, 1]), None]])
    >>> packed["lengths"].tolist(), packed["entries"].tolist()
    ([[-1, 3], [2, -1]], [0, 0, 1, 0, 1])
    >>> [[m if m is None else m.tolist() for m in member] for member in unpacked_maps(packed)]
    [[None, [0, 0, 1]], [[0, 1], None]]
    """
    lengths = np.array(
        [[-1 if m is None else len(m) for m in member] for member in maps], dtype=np.int64
    ).reshape(len(maps), -1)
    entries = np.concatenate(
        [np.zeros(0, dtype=np.int64)]
        + [np.asarray(m, dtype=np.int64) for member in maps for m in member if m is not None]
    )
    if 0 <= entries.min(initial=0) and entries.max(initial=0) < 256:  # (the usual: few bins)
        entries = entries.astype(np.uint8)
    return {"lengths": lengths, "entries": entries}


def unpacked_maps(packed: dict[str, NDArray[np.int64]]) -> list[list[NDArray[np.intp] | None]]:
    """The maps of :func:`packed_maps`."""
    entries, at = packed["entries"], 0
    out: list[list[NDArray[np.intp] | None]] = []
    for member in np.asarray(packed["lengths"]).tolist():
        maps: list[NDArray[np.intp] | None] = []
        for length in member:
            maps.append(None if length < 0 else entries[at : at + length].astype(np.intp))
            at += max(length, 0)
        out.append(maps)
    return out
