"""The losses of nested models' joint scores, node after node, without an exponential
per class: the scoring loop of selective kDB's leave-one-out pass (Martinez, Webb,
Chen & Zaidi 2016, Section 3: every nested model ``(s, k')`` scored after each
attribute ``s``).

Each model keeps, besides its joint ``log P(c, x_1..x_s)`` of every row and class, the
same joint as probabilities scaled by a per-row shift, ``scaled[c] = exp(joint[c] -
shift)``. Adding a node multiplies ``scaled`` by the node's probabilities (``exp`` of
its terms, one array per node) where
:func:`~discotree.kernels.sparse_families.posterior_loss_sums` takes ``exp`` of every
class's joint for every row and model; the posterior is then ``scaled /
sum(scaled)`` and the log-loss ``-(joint[y] - shift - log(sum(scaled)))``: one
logarithm per row and model, or, when every row of weight has the same weight
(:func:`uniform_weight`), one per model: the logarithm of the product of the rows'
sums, kept within :data:`PRODUCT_RANGE` by exact powers of two. A row whose scaled
sum falls below :data:`RESYNC_BELOW` (or underflows) is recomputed from its joint
(``shift`` its largest class), so the scaled numbers never lose their range; between
recomputations each node's multiplication rounds once, so the sums agree with
:func:`~discotree.kernels.sparse_families.posterior_loss_sums` of the joint to about
1e-13 relative (a class below ``exp(-50)`` of the row's largest adds nothing there and
less than 1e-21 here; a product of n sums rounds n times), far inside the selection's
tie tolerance.
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np
from numpy.typing import NDArray

from .sparse_families import squared_error

__all__ = [
    "BLOCK_BYTES",
    "PRODUCT_RANGE",
    "RESYNC_BELOW",
    "ScaledJoint",
    "add_batch_terms_and_score",
    "block_rows",
    "scaled_joint",
    "uniform_weight",
]

#: A row's scaled class probabilities are recomputed from its joint when their sum falls
#: below this (``2**-512``): far above the smallest double, so that one node's
#: multiplication (its probabilities above ``1e-13`` each with weights up to
#: :data:`~discotree.kernels.hierarchical_terms.LINEAR_WEIGHT`) cannot underflow a row,
#: and rare enough (every 355 nats of the row's largest joint) to cost nothing.
RESYNC_BELOW = 2.0**-512


#: The range a product of the rows' scaled sums is kept in (``2**-500``, ``2**500``):
#: outside, it is multiplied by the other end, an exact power of two.
PRODUCT_RANGE = (2.0**-500, 2.0**500)
PRODUCT_HALVINGS = 500
LOG_2 = float(np.log(2.0))


def uniform_weight(weights: NDArray[np.float64]) -> float:
    """The one weight of every row of positive weight, or 0 when they differ (or none
    has weight): with one weight, the log-loss sums the logarithm of a product.

    Examples
    --------
    >>> uniform_weight(np.array([2.0, 0.0, 2.0])), uniform_weight(np.array([1.0, 2.0]))
    (2.0, 0.0)
    """
    positive = weights[weights > 0.0]
    if not len(positive) or positive.min() != positive.max():
        return 0.0
    return float(positive[0])


class ScaledJoint(NamedTuple):
    """Every nested model's joint of every row: ``joint`` (models, rows, classes) the
    logarithms, ``scaled`` the same shape, ``exp(joint - shift)``, and ``shift``
    (models, rows)."""

    joint: NDArray[np.float64]
    scaled: NDArray[np.float64]
    shift: NDArray[np.float64]


@numba.njit(cache=True, nogil=True)
def _resync(joint, scaled, shift, q, i):  # pragma: no cover - numba
    # row i of model q: scaled from the joint, shifted by its largest class; its sum
    n_classes = joint.shape[2]
    top = joint[q, i, 0]
    for c in range(1, n_classes):
        top = max(top, joint[q, i, c])
    total = 0.0
    for c in range(n_classes):
        e = np.exp(joint[q, i, c] - top)
        scaled[q, i, c] = e
        total += e
    shift[q, i] = top
    return total


def scaled_joint(joint: NDArray[np.float64]) -> ScaledJoint:
    """``joint`` (models, rows, classes; taken, not copied) with its scaled
    probabilities and shifts (each row shifted by its largest class).

    Examples
    --------
    >>> state = scaled_joint(np.log([[[0.2, 0.6], [0.5, 0.5]]]))
    >>> state.scaled.round(4).tolist(), np.exp(state.shift).round(4).tolist()
    ([[[0.3333, 1.0], [1.0, 1.0]]], [[0.6, 0.5]])
    """
    joint = np.ascontiguousarray(joint, dtype=np.float64)
    shift = joint.max(axis=2) if joint.shape[2] else np.zeros(joint.shape[:2])
    scaled = np.exp(joint - shift[:, :, None])
    return ScaledJoint(joint, scaled, shift)


#: The rows a block of the batched scoring holds, at most, in bytes of the models'
#: joints and scaled joints (2 x 8 bytes x models x classes a row): a block stays in
#: the core's cache while every node of a batch is added to it, so that the joints are
#: read from memory once a batch, not once a node.
BLOCK_BYTES = 1 << 18


def block_rows(n_models: int, n_classes: int) -> int:
    """The rows of a block of :data:`BLOCK_BYTES` (at least 16).

    Examples
    --------
    >>> block_rows(6, 10)
    273
    """
    return max(16, BLOCK_BYTES // (16 * max(1, n_models) * max(1, n_classes)))


@numba.njit(cache=True, nogil=True)
def _add_and_score(
    state,
    terms,
    probabilities,
    offsets,
    n_distinct,
    row_keys,
    levels,
    scored,
    truth,
    weights,
    flags,
    out,
    n_block,
):  # pragma: no cover - numba
    # node b of the batch, model q: its terms at level levels[b, q] start at offsets[b]
    # + level * n_distinct[b] * classes (flat, (levels, distinct, classes) a node);
    # every (b, q) adds and scores its rows in row order, block after block, so its
    # sums are those of the nodes one at a time
    joint, scaled, shift = state
    with_squares, with_log_loss, uniform = flags
    n_models, n_rows, n_classes = joint.shape
    n_nodes = row_keys.shape[0]
    squares = np.zeros((n_nodes, n_models))
    losses = np.zeros((n_nodes, n_models))
    # with one weight for every row of weight: the sums' logarithms as one logarithm
    # of their product, kept in range by exact powers of two (counted in ``halvings``)
    products = np.ones((n_nodes, n_models))
    halvings = np.zeros((n_nodes, n_models), dtype=np.int64)
    for first in range(0, n_rows, n_block):
        last = min(first + n_block, n_rows)
        for b in range(n_nodes):
            for q in range(n_models):
                base = offsets[b] + levels[b, q] * n_distinct[b] * n_classes
                squares_sum, log_loss_sum = squares[b, q], losses[b, q]
                product, halving = products[b, q], halvings[b, q]
                for i in range(first, last):
                    at = base + row_keys[b, i] * n_classes
                    total = 0.0
                    for c in range(n_classes):
                        joint[q, i, c] += terms[at + c]
                        e = scaled[q, i, c] * probabilities[at + c]
                        scaled[q, i, c] = e
                        total += e
                    if not total >= RESYNC_BELOW:  # (NaN too)
                        total = _resync(joint, scaled, shift, q, i)
                    if not scored[b, q] or weights[i] == 0.0:  # (weight 0 adds nothing)
                        continue
                    y = truth[i]
                    if with_squares:
                        squares_sum += weights[i] * squared_error(scaled[q, i], total, y)
                    if with_log_loss:
                        if uniform > 0.0:
                            log_loss_sum += shift[q, i] - joint[q, i, y]
                            product *= total
                            if product < PRODUCT_RANGE[0]:
                                product *= PRODUCT_RANGE[1]
                                halving += PRODUCT_HALVINGS
                            elif product > PRODUCT_RANGE[1]:
                                product *= PRODUCT_RANGE[0]
                                halving -= PRODUCT_HALVINGS
                        else:
                            log_loss_sum -= weights[i] * (
                                joint[q, i, y] - shift[q, i] - np.log(total)
                            )
                squares[b, q], losses[b, q] = squares_sum, log_loss_sum
                products[b, q], halvings[b, q] = product, halving
    for b in range(n_nodes):
        for q in range(n_models):
            log_loss_sum = losses[b, q]
            if uniform > 0.0:
                log_loss_sum = uniform * (
                    log_loss_sum + np.log(products[b, q]) - halvings[b, q] * LOG_2
                )
            out[b, q, 0] += squares[b, q]
            out[b, q, 1] += log_loss_sum


def add_batch_terms_and_score(
    state: ScaledJoint,
    terms: list[NDArray[np.float64]],
    row_keys: NDArray[np.int64],
    levels: NDArray[np.intp],
    scored: NDArray[np.bool_],
    rows: tuple[NDArray[np.intp], NDArray[np.float64]],
    *,
    flags: tuple[bool, bool],
    out: NDArray[np.float64],
    uniform: float | None = None,
) -> None:
    """Nodes added to the models' joints one after the other and scored: for node
    ``b`` and every model q, ``joint[q] += terms[b][levels[b, q]][row_keys[b]]``
    (``state``, in place), then, where ``scored[b, q]``, ``out[b, q]`` += the weighted
    sums over ``rows`` (their classes and weights) of ``sum_c (P(c | x) - [c = y])**2``
    and of ``-log P(y | x)``, the posterior being ``softmax(joint[q])`` of each row
    (``flags``: (with the squares, with the log-loss); a sum not taken adds 0).
    ``terms[b]``: (levels, distinct rows, classes), its probabilities ``exp`` once per
    distinct row (``row_keys[b]``: each row's) and level; ``out``: (nodes, models, 2).
    ``uniform``: the rows' :func:`uniform_weight`, when the caller has it (computed here
    otherwise). One compiled call adds every node to a block of rows
    (:func:`block_rows`) while the block is in cache: the same numbers, to the bit, as
    the nodes one call each.

    Examples
    --------
    >>> state = scaled_joint(np.zeros((1, 2, 2)))
    >>> out = np.zeros((2, 1, 2))
    >>> terms = [np.log([[[0.2, 0.8], [0.5, 0.5]]]), np.log([[[0.9, 0.1]]])]
    >>> add_batch_terms_and_score(state, terms, np.array([[0, 1], [0, 0]]),
    ...     np.zeros((2, 1), dtype=np.intp), np.ones((2, 1), dtype=bool),
    ...     (np.array([1, 0]), np.ones(2)), flags=(False, True), out=out)
    >>> out[:, 0, 1].round(4).tolist()
    [0.9163, 1.284]
    """
    flat = [np.ascontiguousarray(t, dtype=np.float64) for t in terms]
    sizes = np.array([t.size for t in flat], dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    n_distinct = np.array([t.shape[1] for t in flat], dtype=np.int64)
    joined = np.concatenate([t.ravel() for t in flat]) if flat else np.zeros(0)
    truth, weights = rows
    weights = np.ascontiguousarray(weights, dtype=np.float64)
    joint = state.joint
    _add_and_score(
        state,
        joined,
        np.exp(joined),
        offsets,
        n_distinct,
        np.ascontiguousarray(row_keys, dtype=np.int64),
        np.ascontiguousarray(levels, dtype=np.intp),
        np.ascontiguousarray(scored, dtype=np.bool_),
        np.ascontiguousarray(truth, dtype=np.intp),
        weights,
        (bool(flags[0]), bool(flags[1]), uniform_weight(weights) if uniform is None else uniform),
        out,
        block_rows(joint.shape[0], joint.shape[2]),
    )
