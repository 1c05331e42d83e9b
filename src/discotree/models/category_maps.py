"""Maps of a column's categories onto coarser ones (the ensemble's coarsened bins, the
levels the linear member's pairs read): the mapped codes and category counts.

A map is an integer array with one entry per category; None leaves a column as it is.
Missing codes (-1) stay missing.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from .. import missing_values
from ..missing_values import MISSING

__all__ = ["apply_maps", "mapped_categories"]


def apply_maps(codes: NDArray[np.integer], maps: list[NDArray[np.intp] | None]) -> NDArray[np.intp]:
    """The codes with each mapped column coarsened (missing stays -1).

    Examples
    --------
    >>> apply_maps(np.array([[2, 1], [-1, 0]]), [np.array([0, 0, 1]), None]).tolist()
    [[1, 1], [-1, 0]]
    """
    out = np.asarray(codes, dtype=np.intp).copy()
    for j, table in enumerate(maps):
        if table is not None:
            column = out[:, j]
            out[:, j] = np.where(
                missing_values.observed(column), table[np.maximum(column, 0)], MISSING
            )
    return out


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
