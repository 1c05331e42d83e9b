"""The joint ``log P(c, x)`` of every sample under a Bayesian network classifier's
tables, and the scatter of per-sample, per-class weights back onto those tables: the
two halves of the conditional log-likelihood and its gradient (002, Section 4.2,
Cases A and B), fused over nodes and classes so that no (samples, nodes) array per
class is formed.

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

__all__ = ["family_cll_gradient", "family_gradient", "family_log_joint"]


@numba.njit(cache=True, nogil=True)
def _family_log_joint(log_theta, base, class_stride, out):  # pragma: no cover - numba
    n_rows, n_nodes = base.shape
    n_classes = out.shape[1]
    for s in range(np.uint64(n_rows)):
        for c in range(np.uint64(n_classes)):
            out[s, c] = 0.0
        for j in range(np.uint64(n_nodes)):
            b = base[s, j]
            if b < 0:
                continue
            stride = class_stride[j]
            for c in range(np.uint64(n_classes)):
                out[s, c] += log_theta[b + c * stride]


@numba.njit(cache=True, nogil=True)
def _family_gradient(weights, base, class_stride, out):  # pragma: no cover - numba
    n_rows, n_nodes = base.shape
    n_classes = weights.shape[1]
    for s in range(np.uint64(n_rows)):
        for j in range(np.uint64(n_nodes)):
            b = base[s, j]
            if b < 0:
                continue
            stride = class_stride[j]
            for c in range(np.uint64(n_classes)):
                out[b + c * stride] += weights[s, c]


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
        As :func:`family_gradient` of ``A``.

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


def family_log_joint(
    log_theta: NDArray[np.float64],
    base: NDArray[np.intp],
    class_stride: NDArray[np.intp],
    n_classes: int,
) -> NDArray[np.float64]:
    """``sum_j log_theta[base[s, j] + c * class_stride[j]]`` over the nodes j with
    ``base[s, j] >= 0``, for every sample s and class c.

    Parameters
    ----------
    log_theta : ndarray of shape (n_params,)
        Every node's log table, flat (module notes).
    base : ndarray of int, shape (n_samples, n_nodes)
        Entry of each sample's family value for class 0, -1 where it misses a value.
    class_stride : ndarray of int, shape (n_nodes,)
        Distance between the entries of consecutive classes in each node's table.
    n_classes : int

    Returns
    -------
    joint : ndarray of shape (n_samples, n_classes)

    Examples
    --------
    >>> import numpy as np
    >>> log_theta = np.log([0.9, 0.1, 0.2, 0.8])  # one node, 2 values, 2 classes
    >>> family_log_joint(log_theta, np.array([[0], [1], [-1]]), np.array([2]), 2).round(3)
    array([[-0.105, -1.609],
           [-2.303, -0.223],
           [ 0.   ,  0.   ]])
    """
    out = np.empty((len(base), n_classes))
    _family_log_joint(
        np.ascontiguousarray(log_theta, dtype=np.float64),
        np.ascontiguousarray(base, dtype=np.intp),
        np.ascontiguousarray(class_stride, dtype=np.intp),
        out,
    )
    return out


def family_gradient(
    weights: NDArray[np.float64],
    base: NDArray[np.intp],
    class_stride: NDArray[np.intp],
    n_params: int,
) -> NDArray[np.float64]:
    """The sum of ``weights[s, c]`` over the samples that read each entry: entry
    ``base[s, j] + c * class_stride[j]`` receives ``weights[s, c]`` for every node j
    with ``base[s, j] >= 0`` (the first term of Case B of Section 4.2).

    Parameters
    ----------
    weights : ndarray of shape (n_samples, n_classes)
    base : ndarray of int, shape (n_samples, n_nodes)
    class_stride : ndarray of int, shape (n_nodes,)
    n_params : int
        Length of the flat table vector.

    Returns
    -------
    sums : ndarray of shape (n_params,)

    Examples
    --------
    >>> import numpy as np
    >>> weights = np.array([[1.0, -1.0], [0.5, 0.5], [7.0, 7.0]])
    >>> family_gradient(weights, np.array([[0], [0], [-1]]), np.array([2]), 4)
    array([ 1.5,  0. , -0.5,  0. ])
    """
    out = np.zeros(n_params)
    _family_gradient(
        np.ascontiguousarray(weights, dtype=np.float64),
        np.ascontiguousarray(base, dtype=np.intp),
        np.ascontiguousarray(class_stride, dtype=np.intp),
        out,
    )
    return out
