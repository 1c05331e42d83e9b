"""The program of a variable elimination (Koller & Friedman 2009, Section 9.3): what
:func:`~discotree.kernels.elimination.eliminated_log_marginals` computes for rows that
miss the same features of a class-rooted network, made once per set of missing features.

:class:`FlatTables` holds a network's dense log tables in one array with each node's
offset and strides; :func:`elimination_plan` turns the families, the missing features
and an elimination order (:mod:`~discotree.models.elimination_order`) into the
program's integer arrays: every node's family read at the observed values (a number per
row and class where nothing is missing, else a factor over its missing members), then
one step per eliminated variable joining the factors that hold it. The same sums and
products as the einsum of the tests' reference, in another order: the same marginal up
to rounding.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from ..kernels.elimination import SAFE_LOG_PROBABILITY, eliminated_log_marginals

__all__ = ["MAX_BLOCK_CELLS", "EliminationPlan", "FlatTables", "elimination_plan"]

#: Cells (rows x classes x configurations) of all the factors that one call holds for
#: a block of rows at once (32 MiB): the rows are summed out in blocks beyond.
MAX_BLOCK_CELLS = 1 << 22


@dataclass(frozen=True)
class FlatTables:
    """Dense log tables ``(class, family values...)`` of shape (n_classes, r_pa..., r_j)
    one after the other: ``values``, where each node's starts (``at``), its class axis's
    stride, the stride of each family member (parents in order, then the node), and
    ``exp(values)`` where every log is finite and above
    :data:`~discotree.kernels.elimination.SAFE_LOG_PROBABILITY` (else None)."""

    values: NDArray[np.float64]
    at: list[int]
    class_stride: list[int]
    family_strides: list[dict[int, int]]
    probabilities: NDArray[np.float64] | None = None

    @classmethod
    def of(cls, log_tables: Sequence[NDArray[np.float64]], parents: Sequence[Iterable[int]],
           nodes: Iterable[int]) -> FlatTables:  # fmt: skip
        """The tables of ``nodes`` (the others' left out: offset -1).

        Examples
        --------
        >>> flat = FlatTables.of([np.zeros((2, 3)), np.zeros((2, 3, 4))], [(), (0,)], [1])
        >>> flat.at, flat.class_stride, sorted(flat.family_strides[1].items())
        ([-1, 0], [0, 12], [(0, 4), (1, 1)])
        """
        nodes = sorted(set(nodes))
        at, class_stride = [-1] * len(log_tables), [0] * len(log_tables)
        strides: list[dict[int, int]] = [{} for _ in log_tables]
        chunks, total = [], 0
        for j in nodes:
            table = np.asarray(log_tables[j], dtype=np.float64)
            family = (*parents[j], j)
            at[j], class_stride[j] = total, int(math.prod(table.shape[1:]))
            stride = 1
            for axis in range(len(family) - 1, -1, -1):
                strides[j][int(family[axis])] = stride
                stride *= int(table.shape[1 + axis])
            chunks.append(table.ravel())
            total += table.size
        values = np.concatenate(chunks) if chunks else np.zeros(0)
        # (exponentiated once where no probability is near the float's range's end)
        safe = len(values) and np.isfinite(values).all() and values.min() > SAFE_LOG_PROBABILITY
        probabilities = np.exp(values) if safe else None
        return cls(values, at, class_stride, strides, probabilities)


@dataclass(frozen=True)
class EliminationPlan:
    """The program of :func:`elimination_plan` (its arrays in the kernel's order) and the
    cells of all its factors per row and class."""

    arrays: tuple[NDArray[np.int64], ...]
    cells: int

    def log_marginals(
        self, codes: NDArray[np.integer], tables: FlatTables, n_classes: int
    ) -> NDArray[np.float64]:
        """``log P(x_observed | c)`` of rows missing the plan's features (rows x
        classes), in blocks of at most :data:`MAX_BLOCK_CELLS` cells."""
        rows = np.ascontiguousarray(codes, dtype=np.int64)
        out = np.empty((len(rows), n_classes))
        block = max(1, MAX_BLOCK_CELLS // (max(1, self.cells) * n_classes))
        for start in range(0, len(rows), block):
            out[start : start + block] = eliminated_log_marginals(
                rows[start : start + block],
                tables.values,
                self.arrays,
                n_classes,
                tables.probabilities,
            )
        return out


def _ints(values: list[int]) -> NDArray[np.int64]:
    return np.asarray(values, dtype=np.int64).reshape(-1)


def elimination_plan(
    parents: Sequence[Iterable[int]],
    n_categories: NDArray[np.integer],
    nodes: Iterable[int],
    missing: set[int],
    order: Sequence[int],
    tables: FlatTables,
) -> EliminationPlan:
    """The program summing the features ``missing`` out of the product of the families
    of ``nodes`` (the others' factors taken as 1), eliminated in ``order`` (every missing
    member of those families, once).

    Examples
    --------
    >>> tables = FlatTables.of([np.log(np.full((2, 2), 0.5)),
    ...                         np.log(np.full((2, 2, 3), 1 / 3))], [(), (0,)], [0, 1])
    >>> plan = elimination_plan([(), (0,)], np.array([2, 3]), [0, 1], {0}, [0], tables)
    >>> np.exp(plan.log_marginals(np.array([[-1, 2]]), tables, 2)).round(6)
    array([[0.333333, 0.333333]])
    """
    # (plain integers: the loops below index them once per variable and factor)
    n_categories = np.asarray(n_categories).tolist()
    source_at, class_stride = [], []
    observed_start, observed_vars, observed_strides = [0], [], []
    kept_start, kept_strides, kept_cards = [0], [], []
    scopes: list[tuple[int, ...]] = []
    for j in sorted(set(nodes)):
        family = (*parents[j], j)
        strides = tables.family_strides[j]
        source_at.append(tables.at[j])
        class_stride.append(tables.class_stride[j])
        kept = tuple(sorted({int(v) for v in family if v in missing}))
        for v in sorted({int(v) for v in family} - set(kept)):
            observed_vars.append(v)
            observed_strides.append(strides[v])
        for v in kept:
            kept_strides.append(strides[v])
            kept_cards.append(int(n_categories[v]))
        observed_start.append(len(observed_vars))
        kept_start.append(len(kept_strides))
        scopes.append(kept)
    cells = [math.prod(int(n_categories[v]) for v in scope) for scope in scopes]
    live = [f for f, scope in enumerate(scopes) if scope]
    steps = _Steps(n_categories)
    for variable in order:
        joined = [f for f in live if variable in scopes[f]]
        live = [f for f in live if variable not in scopes[f]]
        if not joined:
            raise ValueError(f"elimination_plan: no factor holds variable {variable}")
        # the factors joined two at a time, the one adding the fewest cells next, the
        # variable summed out by the last product
        current = min(joined, key=lambda f: (cells[f], f))
        rest = [f for f in joined if f != current]
        while True:
            if rest:
                held = set(scopes[current])
                other = min(rest, key=lambda f: (_cells(held.union(scopes[f]), n_categories), f))
                rest.remove(other)
                pair = [current, other]
            else:
                pair = [current]
            union = {v for f in pair for v in scopes[f]}
            closing = not rest
            scope = tuple(sorted(union - {variable} if closing else union))
            steps.add(pair, [scopes[f] for f in pair], scope, variable if closing else None)
            scopes.append(scope)
            cells.append(_cells(scope, n_categories))
            current = len(scopes) - 1
            if closing:
                break
        if scopes[current]:
            live.append(current)
    if live:
        left = sorted({v for f in live for v in scopes[f]})
        raise ValueError(f"elimination_plan: the order leaves variables {left} summed")
    factor_at = _ints(_placed(cells, len(source_at), steps))
    arrays = (
        _ints(source_at),
        _ints(class_stride),
        _ints(observed_start),
        _ints(observed_vars),
        _ints(observed_strides),
        _ints(kept_start),
        _ints(kept_strides),
        _ints(kept_cards),
        factor_at,
        *steps.arrays(),
    )
    return EliminationPlan(arrays, int(factor_at[-1]))


def _placed(cells: list[int], n_sources: int, steps: _Steps) -> list[int]:
    """Where each factor starts in the buffer (in configurations), then the buffer's
    size: the sources one after the other, each step's factor in the first gap that
    holds it (first fit) outside the factors it reads, which are freed after it (each
    is read once): the buffer holds the factors alive at once, not all of them."""
    at = [0] * len(cells)
    extent = 0
    for f in range(n_sources):
        at[f], extent = extent, extent + cells[f]
    gaps: list[tuple[int, int]] = []  # (start, stop), sorted, disjoint
    for s in range(len(steps.closing)):
        f = n_sources + s
        place = next((a for a, b in gaps if b - a >= cells[f]), None)
        if place is None:
            place, extent = extent, extent + cells[f]
        else:
            gaps = _taken(gaps, place, place + cells[f])  # (still sorted and apart)
        at[f] = place
        read = steps.involved[steps.step_start[s] : steps.step_start[s + 1]]
        gaps = _freed(gaps, [(at[g], at[g] + cells[g]) for g in read])
    return [*at, extent]


def _taken(gaps: list[tuple[int, int]], start: int, stop: int) -> list[tuple[int, int]]:
    out = []
    for a, b in gaps:
        if b <= start or a >= stop:
            out.append((a, b))
            continue
        if a < start:
            out.append((a, start))
        if stop < b:
            out.append((stop, b))
    return out


def _freed(gaps: list[tuple[int, int]], spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for a, b in sorted(gaps + [span for span in spans if span[1] > span[0]]):
        if merged and a <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], b))
        else:
            merged.append((a, b))
    return merged


def _cells(scope: Iterable[int], n_categories: NDArray[np.integer]) -> int:
    return math.prod(int(n_categories[v]) for v in scope)


class _Steps:
    """The steps' arrays of a program (see :mod:`~discotree.kernels.elimination`)."""

    def __init__(self, n_categories: NDArray[np.integer]) -> None:
        self.n_categories = n_categories
        self.step_start, self.out_start, self.stride_start = [0], [0], [0]
        self.involved: list[int] = []
        self.out_cards: list[int] = []
        self.strides: list[int] = []
        self.var_strides: list[int] = []
        self.var_cards: list[int] = []
        self.closing: list[int] = []

    def add(self, factors: list[int], scopes: list[tuple[int, ...]], scope: tuple[int, ...],
            summed: int | None) -> None:  # fmt: skip
        """A step multiplying ``factors`` (over ``scopes``) into a factor over ``scope``,
        summing ``summed`` out (None: a product on the way)."""
        for f, within_scope in zip(factors, scopes, strict=True):
            within = _strides_within(within_scope, self.n_categories)
            self.involved.append(f)
            self.var_strides.append(0 if summed is None else within[summed])
            self.strides.extend(within.get(v, 0) for v in scope)
        self.var_cards.append(1 if summed is None else int(self.n_categories[summed]))
        self.closing.append(int(summed is not None))
        self.out_cards.extend(int(self.n_categories[v]) for v in scope)
        self.step_start.append(len(self.involved))
        self.out_start.append(len(self.out_cards))
        self.stride_start.append(len(self.strides))

    def arrays(self) -> tuple[NDArray[np.int64], ...]:
        return tuple(
            _ints(a)
            for a in (
                self.step_start,
                self.involved,
                self.out_start,
                self.out_cards,
                self.stride_start,
                self.strides,
                self.var_strides,
                self.var_cards,
                self.closing,
            )
        )


def _strides_within(scope: tuple[int, ...], n_categories: NDArray[np.integer]) -> dict[int, int]:
    """Each variable's stride in a factor over ``scope`` (C order, the last fastest)."""
    out, stride = {}, 1
    for v in reversed(scope):
        out[v] = stride
        stride *= int(n_categories[v])
    return out
