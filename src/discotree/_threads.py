"""Splitting a compiled kernel's work over the cores with plain threads.

The numba kernels release the GIL (``nogil=True``), so a few Python threads each
running one on its own slice of the rows (or columns) use every core, with no
dependence on numba's threading layers (which may not be safe to call from several
threads at once, as Dask's threaded scheduler or a thread-pool grid search do).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import numpy as np

__all__ = ["available_cores", "in_chunks"]


def available_cores() -> int:
    """The cores this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def in_chunks(run: Callable[[int, int], None], n_items: int, work: int, min_work: int) -> None:
    """``run(start, stop)`` over ``0..n_items`` in one contiguous chunk per core, or in
    one call when the total ``work`` (any unit) is below ``2 * min_work``: threads only
    pay when each has at least ``min_work`` to do.

    Examples
    --------
    >>> seen = []
    >>> in_chunks(lambda a, b: seen.append((a, b)), 10, work=10, min_work=100)
    >>> seen
    [(0, 10)]
    """
    n_threads = min(available_cores(), n_items, work // max(min_work, 1))
    if n_threads < 2:
        run(0, n_items)
        return
    bounds = np.linspace(0, n_items, n_threads + 1).astype(np.intp).tolist()
    with ThreadPoolExecutor(n_threads) as pool:
        list(pool.map(run, bounds[:-1], bounds[1:]))
