"""The table counts of Chinese restaurant processes (the inner loop of the HDP sampler,
:mod:`discotree.stats.hdp`; Teh, Jordan, Beal & Blei, "Hierarchical Dirichlet
processes", JASA 2006, Section 5.3): customer i (counting from 0) of a restaurant of
concentration ``a`` opens a table with probability ``a / (a + i)``.
"""

from __future__ import annotations

import numba
import numpy as np
from numpy.typing import NDArray

__all__ = ["crp_tables"]


@numba.njit(cache=True, nogil=True)
def _tables(customers, strength, uniforms, out):  # pragma: no cover - numba
    k = 0
    for e in range(customers.shape[0]):
        a = strength[e]
        opened = 0.0
        for i in range(customers[e]):
            if uniforms[k] < a / (a + i):
                opened += 1.0
            k += 1
        out[e] = opened


def crp_tables(
    customers: NDArray[np.int64], strength: NDArray[np.float64], uniforms: NDArray[np.float64]
) -> NDArray[np.float64]:
    """The number of tables of each restaurant ``e`` seating ``customers[e]`` customers
    at concentration ``strength[e]``, customer i deciding with the next of ``uniforms``
    (restaurants in order, customers in order: ``customers.sum()`` uniforms in [0, 1)).

    Examples
    --------
    >>> crp_tables(np.array([0, 1, 3]), np.array([2.0, 2.0, 1e12]), np.full(4, 0.5))
    array([0., 1., 3.])
    """
    customers = np.ascontiguousarray(customers, dtype=np.int64)
    strength = np.ascontiguousarray(strength, dtype=np.float64)
    uniforms = np.ascontiguousarray(uniforms, dtype=np.float64)
    if uniforms.shape[0] < int(customers.sum()):
        raise ValueError(
            f"crp_tables: {uniforms.shape[0]} uniforms for {int(customers.sum())} customers."
        )
    out = np.empty(customers.shape[0])
    _tables(customers, strength, uniforms, out)
    return out
