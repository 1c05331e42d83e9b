"""Summing the missing parents of rows out of a k-dependence model by enumeration, the
rows of many patterns of missing parents at once
(:meth:`~discotree.models.k_dependence.KDependenceModel.log_likelihood`): each row's
factors that its missing parents touch replaced by their sum over every joint value
of those parents, the node terms of every pattern scored together in a few calls of
the model's ``node_log_probabilities`` (one per batch of rows), each row's arithmetic
that of its pattern alone (the same numbers); and the size of the largest factor that
summing them out by variable elimination forms instead (:func:`elimination_cells`).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Protocol

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "Enumeration",
    "NodeScorer",
    "elimination_cells",
    "enumerate_groups",
    "terms_in_batches",
]


@dataclass(frozen=True)
class Enumeration:
    """What rows missing the same parents sum over: the ``missing`` parents enumerated,
    the nodes ``touched`` (theirs and their children's factors, in the model's order)
    and every joint value of the missing parents (``values``, one a row)."""

    missing: list[int]
    touched: list[int]
    values: NDArray[np.intp]


class NodeScorer(Protocol):
    """A model whose nodes' log-probabilities are summed: its classes, the attributes
    in use and ``node_log_probabilities(nodes, codes)``, a list of (rows, classes)."""

    @property
    def n_classes(self) -> int: ...

    attributes: list[int]

    def node_log_probabilities(
        self, nodes: list[int], codes: NDArray[np.integer]
    ) -> list[NDArray[np.float64]]: ...


def enumerate_groups(
    model: NodeScorer,
    codes: NDArray[np.integer],
    out: NDArray[np.float64],
    groups: list[tuple[NDArray[np.intp], Enumeration]],
    *,
    block_rows: int,
    batch_cells: int,
) -> None:
    """Replace ``out[rows]`` (the back-off log-likelihoods of ``codes[rows]``) of each
    group by the sum over its :class:`Enumeration`: the touched factors taken out, and
    ``log sum_values exp(sum of the touched factors)`` added, each row filled once per
    joint value (at most ``block_rows`` filled rows of a group at once), the terms of
    the groups scored in batches of ``batch_cells`` (:func:`terms_in_batches`).

    Examples
    --------
    >>> class Uniform:  # every node: log 1/2 for both classes
    ...     n_classes, attributes = 2, [0, 1]
    ...     def node_log_probabilities(self, nodes, codes):
    ...         return [np.full((len(codes), 2), np.log(0.5)) for _ in nodes]
    >>> out = np.zeros((1, 2))
    >>> plan = Enumeration([0], [0, 1], np.array([[0], [1]]))
    >>> enumerate_groups(Uniform(), np.array([[-1, 0]]), out, [(np.array([0]), plan)],
    ...                  block_rows=8, batch_cells=64)
    >>> np.exp(out).round(3).tolist()  # (1/4 + 1/4) / (1/4) times the back-off's 1
    [[2.0, 2.0]]
    """
    results = []
    pieces = [(codes[rows], plan.touched) for rows, plan in groups]
    for (rows, _), terms in zip(groups, terms_in_batches(model, pieces, batch_cells), strict=True):
        result = out[rows]
        for touched_term in terms:
            result -= touched_term
        results.append(result)
    blocks = []  # (group, its rows start:stop, each row once per joint value)
    for g, (rows, plan) in enumerate(groups):
        n_values = len(plan.values)
        block = max(1, block_rows // n_values)
        for start in range(0, len(rows), block):
            part = codes[rows[start : start + block]]
            filled = np.repeat(part, n_values, axis=0)
            filled[:, plan.missing] = np.tile(plan.values, (len(part), 1))
            blocks.append((g, start, start + len(part), filled))
    pieces = [(filled, groups[g][1].touched) for g, _, _, filled in blocks]
    batched = terms_in_batches(model, pieces, batch_cells)
    for (g, start, stop, filled), terms in zip(blocks, batched, strict=True):
        term: NDArray[np.float64] = np.zeros((len(filled), model.n_classes))
        for node_term in terms:
            term += node_term
        by_value = term.reshape(stop - start, -1, model.n_classes)
        top = by_value.max(axis=1)
        part_out = results[g][start:stop]
        results[g][start:stop] = (
            part_out + top + np.log(np.exp(by_value - top[:, None]).sum(axis=1))
        )
    for (rows, _), result in zip(groups, results, strict=True):
        out[rows] = result


def terms_in_batches(
    model: NodeScorer, pieces: list[tuple[NDArray[np.integer], list[int]]], batch_cells: int
) -> Iterator[list[NDArray[np.float64]]]:
    """For each piece (rows, nodes), ``model.node_log_probabilities`` of its nodes on
    its rows: the pieces' rows together, in batches of at most ``batch_cells`` terms
    (rows x the model's nodes x classes; a larger piece alone), each batch's nodes in
    one call."""
    batch: list[tuple[NDArray[np.integer], list[int]]] = []
    cells = 0
    for piece in pieces:
        size = len(piece[0]) * len(model.attributes) * model.n_classes
        if batch and cells + size > batch_cells:
            yield from _batch_terms(model, batch)
            batch, cells = [], 0
        batch.append(piece)
        cells += size
    if batch:
        yield from _batch_terms(model, batch)


def _batch_terms(
    model: NodeScorer, batch: list[tuple[NDArray[np.integer], list[int]]]
) -> Iterator[list[NDArray[np.float64]]]:
    nodes = sorted({k for _, touched in batch for k in touched})
    at = {k: s for s, k in enumerate(nodes)}
    terms = model.node_log_probabilities(nodes, np.concatenate([rows for rows, _ in batch]))
    start = 0
    for rows, touched in batch:
        yield [terms[at[k]][start : start + len(rows)] for k in touched]
        start += len(rows)


def elimination_cells(
    parents: list[tuple[int, ...]],
    used: list[int],
    missing: set[int],
    n_categories: NDArray[np.intp],
) -> int:
    """The largest factor (configurations of its variables) that summing ``missing``
    out of the network by min-degree variable elimination forms (1: nothing to sum).

    Examples
    --------
    >>> elimination_cells([(), (0,), (0, 1)], [0, 1, 2], {0, 1}, np.array([2, 3, 4]))
    6
    """
    scopes = [frozenset(v for v in (*parents[j], j) if v in missing) for j in used]
    scopes = [s for s in scopes if s]
    largest = 1
    while scopes:
        neighbours: dict[int, set[int]] = {}
        for scope in scopes:
            for v in scope:
                neighbours.setdefault(v, set()).update(scope)
        variable = min(neighbours, key=lambda v: (len(neighbours[v]), v))
        joined = frozenset().union(*(s for s in scopes if variable in s))
        largest = max(largest, math.prod(int(n_categories[v]) for v in joined))
        scopes = [s for s in scopes if variable not in s]
        if len(joined) > 1:
            scopes.append(joined - {variable})
    return largest
