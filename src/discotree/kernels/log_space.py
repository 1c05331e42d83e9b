"""Sums in log space inside the compiled kernels (small ``njit`` functions, which numba
inlines into their callers)."""

from __future__ import annotations

import numba
import numpy as np

__all__ = ["log_sum_exp"]


@numba.njit(cache=True, nogil=True)
def log_sum_exp(values, n, skip):  # pragma: no cover - numba
    """``log(sum(exp(values[:n])))`` without entry ``skip`` (-1: none), as scipy's
    ``logsumexp``: the largest value plus the log of the sum of the exponentials of the
    differences to it (``-inf`` when every value is ``-inf``, or there is none).

    Examples
    --------
    >>> import numpy as np
    >>> round(log_sum_exp(np.log(np.array([1.0, 2.0, 3.0])), 3, -1), 12)
    1.791759469228
    >>> round(log_sum_exp(np.log(np.array([1.0, 2.0, 3.0])), 3, 2), 12)
    1.098612288668
    """
    top = -np.inf
    for t in range(n):
        if t != skip and values[t] > top:
            top = values[t]
    if top == -np.inf:
        return top
    total = 0.0
    for t in range(n):
        if t != skip:
            total += np.exp(values[t] - top)
    return top + np.log(total)
