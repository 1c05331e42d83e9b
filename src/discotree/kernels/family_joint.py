"""The conditional log-likelihood of a Bayesian network classifier's tables and the
sums of its gradient (Pernkopf & Bilmes 2010, Section 4.2, Cases A and B) in one pass over the
samples:
each sample's joint ``log P(c, x)``, its posterior, and the scatter of its weights back
onto the entries it read, with no (samples, nodes) or (samples, classes) array formed.

The tables sit in one flat vector: node j's entry for class c and family value v is
``theta[base[s, j] + c * class_stride[j]]`` where ``base[s, j]`` is the entry of
sample s's family value for class 0, or -1 where the sample misses a value of node j's
family (that node then adds nothing: the available-case rule of
:mod:`discotree.models.conditional_likelihood`).
"""

from __future__ import annotations

import numba
import numpy as np
from numpy.typing import NDArray

__all__ = ["family_cll_gradient"]


@numba.njit(cache=True, nogil=True)
def _family_cll_gradient(
    log_theta, log_prior, base, class_stride, class_index, weights, prior_grad, out
):  # pragma: no cover - numba
    n_rows, n_nodes = base.shape
    n_classes = log_prior.shape[0]
    joint = np.empty(n_classes)
    shifted = np.empty(n_classes)
    cll = 0.0
    for s in range(np.uint64(n_rows)):
        for c in range(np.uint64(n_classes)):
            joint[c] = log_prior[c]
        for j in range(np.uint64(n_nodes)):
            b = base[s, j]
            if b >= 0:
                stride = class_stride[j]
                for c in range(np.uint64(n_classes)):
                    joint[c] += log_theta[b + c * stride]
        top = joint[0]
        for c in range(1, n_classes):
            top = max(top, joint[c])
        if not np.isfinite(top):
            top = 0.0
        total = 0.0
        for c in range(np.uint64(n_classes)):
            shifted[c] = np.exp(joint[c] - top)
            total += shifted[c]
        w, truth = weights[s], class_index[s]
        cll += w * (joint[truth] - (np.log(total) + top))
        for c in range(np.uint64(n_classes)):
            joint[c] = -w * (shifted[c] / total)  # now A[s, c]
        joint[truth] += w
        for c in range(np.uint64(n_classes)):
            prior_grad[c] += joint[c]
        for j in range(np.uint64(n_nodes)):
            b = base[s, j]
            if b >= 0:
                stride = class_stride[j]
                for c in range(np.uint64(n_classes)):
                    out[b + c * stride] += joint[c]
    return cll


def family_cll_gradient(
    log_theta: NDArray[np.float64],
    log_prior: NDArray[np.float64],
    base: NDArray[np.intp],
    class_stride: NDArray[np.intp],
    class_index: NDArray[np.intp],
    weights: NDArray[np.float64],
) -> tuple[float, NDArray[np.float64], NDArray[np.float64]]:
    """The conditional log-likelihood ``sum_s w_s [log P(c_s, x_s) - log sum_c P(c,
    x_s)]`` and its two sums of Section 4.2 in one pass over the samples: ``A[s, c] =
    w_s ([c = c_s] - P(c | x_s))`` summed over the samples (Case A, the class prior)
    and scattered onto every entry the sample reads (the first term of Case B).

    Parameters
    ----------
    log_theta : ndarray of shape (n_params,)
        Every node's log table, flat (module notes).
    log_prior : ndarray of shape (n_classes,)
    base : ndarray of int, shape (n_samples, n_nodes)
        Entry of each sample's family value for class 0, -1 where it misses a value.
    class_stride : ndarray of int, shape (n_nodes,)
    class_index : ndarray of int, shape (n_samples,)
    weights : ndarray of shape (n_samples,)

    Returns
    -------
    cll : float
    prior_sums : ndarray of shape (n_classes,)
        ``sum_s A[s, c]``.
    entry_sums : ndarray of shape (n_params,)
        ``sum_s A[s, c]`` over the samples s that read each entry (entry ``base[s, j]
        + c * class_stride[j]`` for every node j with ``base[s, j] >= 0``).

    Examples
    --------
    >>> import numpy as np
    >>> log_theta = np.log([0.9, 0.1, 0.2, 0.8])  # one node, 2 values, 2 classes
    >>> cll, prior, entries = family_cll_gradient(
    ...     log_theta, np.log([0.5, 0.5]), np.array([[0], [1]]), np.array([2]),
    ...     np.array([0, 1]), np.ones(2))
    >>> round(cll, 4), prior.round(4), entries.round(4)
    (-0.3185, array([ 0.0707, -0.0707]), array([ 0.1818, -0.1111, -0.1818,  0.1111]))
    """
    out = np.zeros(len(log_theta))
    prior_sums = np.zeros(len(log_prior))
    cll = _family_cll_gradient(
        np.ascontiguousarray(log_theta, dtype=np.float64),
        np.ascontiguousarray(log_prior, dtype=np.float64),
        np.ascontiguousarray(base, dtype=np.intp),
        np.ascontiguousarray(class_stride, dtype=np.intp),
        np.ascontiguousarray(class_index, dtype=np.intp),
        np.ascontiguousarray(weights, dtype=np.float64),
        prior_sums,
        out,
    )
    return float(cll), prior_sums, out
