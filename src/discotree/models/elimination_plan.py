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

from ..kernels.compiled_cache import at_hand
from ..kernels.elimination import SAFE_LOG_PROBABILITY, compiled_at_hand, eliminated_log_marginals
from ..kernels.elimination_program import PROGRAM_FAULTS, elimination_program
from .elimination_order import elimination_order

__all__ = [
    "MAX_BLOCK_CELLS",
    "EliminationPlan",
    "FlatTables",
    "elimination_plan",
    "kernels_at_hand",
    "load_kernels",
]

#: Cells (rows x classes x configurations) of all the factors that one call holds for
#: a block of rows at once (32 MiB): the rows are summed out in blocks beyond.
MAX_BLOCK_CELLS = 1 << 22


@dataclass(frozen=True)
class FlatTables:
    """Dense log tables ``(class, family values...)`` of shape (n_classes, r_pa..., r_j)
    one after the other: ``values``; where each node's starts (``table_at``, -1 for a
    node left out) and its class axis's stride; each node's family (parents in order,
    then the node) as CSR (``family_start``, ``family_members``) with each member's
    stride in the node's table (``member_strides``); and ``exp(values)`` where every
    log is finite and above :data:`~discotree.kernels.elimination.SAFE_LOG_PROBABILITY`
    (else None)."""

    values: NDArray[np.float64]
    table_at: NDArray[np.int64]
    class_strides: NDArray[np.int64]
    family_start: NDArray[np.int64]
    family_members: NDArray[np.int64]
    member_strides: NDArray[np.int64]
    probabilities: NDArray[np.float64] | None = None

    @classmethod
    def of(cls, log_tables: Sequence[NDArray[np.float64]], parents: Sequence[Iterable[int]],
           nodes: Iterable[int]) -> FlatTables:  # fmt: skip
        """The tables of ``nodes`` (the others' left out: offset -1, no family).

        Examples
        --------
        >>> flat = FlatTables.of([np.zeros((2, 3)), np.zeros((2, 3, 4))], [(), (0,)], [1])
        >>> flat.table_at.tolist(), flat.class_strides.tolist(), flat.strides(1)
        ([-1, 0], [0, 12], {0: 4, 1: 1})
        """
        nodes = set(nodes)
        n = len(log_tables)
        at, class_stride = np.full(n, -1, dtype=np.int64), np.zeros(n, dtype=np.int64)
        family_start = np.zeros(n + 1, dtype=np.int64)
        members: list[int] = []
        member_strides: list[int] = []
        chunks, total = [], 0
        for j in range(n):
            if j in nodes:
                table = np.asarray(log_tables[j], dtype=np.float64)
                family = [int(v) for v in (*parents[j], j)]
                at[j], class_stride[j] = total, int(math.prod(table.shape[1:]))
                within = [int(math.prod(table.shape[2 + axis :])) for axis in range(len(family))]
                members += family
                member_strides += within
                chunks.append(table.ravel())
                total += table.size
            family_start[j + 1] = len(members)
        values = np.concatenate(chunks) if chunks else np.zeros(0)
        # (exponentiated once where no probability is near the float's range's end)
        safe = len(values) and np.isfinite(values).all() and values.min() > SAFE_LOG_PROBABILITY
        probabilities = np.exp(values) if safe else None
        as_ints = np.asarray
        return cls(values, at, class_stride, family_start, as_ints(members, dtype=np.int64),
                   as_ints(member_strides, dtype=np.int64), probabilities)  # fmt: skip

    def family(self, node: int) -> list[int]:
        """The family of ``node`` (parents in order, then the node; empty if left out)."""
        return self.family_members[self.family_start[node] : self.family_start[node + 1]].tolist()

    def strides(self, node: int) -> dict[int, int]:
        """Each family member's stride in the table of ``node``."""
        at = slice(self.family_start[node], self.family_start[node + 1])
        members, strides = self.family_members[at].tolist(), self.member_strides[at].tolist()
        return dict(zip(members, strides, strict=True))


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


def elimination_plan(
    n_categories: NDArray[np.integer],
    nodes: Iterable[int],
    missing: set[int],
    order: Sequence[int],
    tables: FlatTables,
) -> EliminationPlan:
    """The program summing the features ``missing`` out of the product of the families
    of ``nodes`` (as ``tables`` holds them; the others' factors taken as 1), eliminated
    in ``order`` (every missing member of those families, once), made in one compiled
    call (:func:`~discotree.kernels.elimination_program.elimination_program`).

    Examples
    --------
    >>> tables = FlatTables.of([np.log(np.full((2, 2), 0.5)),
    ...                         np.log(np.full((2, 2, 3), 1 / 3))], [(), (0,)], [0, 1])
    >>> plan = elimination_plan(np.array([2, 3]), [0, 1], {0}, [0], tables)
    >>> np.exp(plan.log_marginals(np.array([[-1, 2]]), tables, 2)).round(6)
    array([[0.333333, 0.333333]])
    """
    n_categories = np.asarray(n_categories, dtype=np.int64)
    summed = np.zeros(len(n_categories), dtype=bool)
    summed[sorted(missing)] = True
    node_list = sorted({int(j) for j in nodes})
    left_out = [j for j in node_list if tables.table_at[j] < 0]
    if left_out:
        raise ValueError(f"elimination_plan: the tables leave out nodes {left_out}")
    *arrays, fault, culprit = elimination_program(
        tables.family_start,
        tables.family_members,
        tables.member_strides,
        tables.table_at,
        tables.class_strides,
        np.asarray(node_list, dtype=np.int64),
        summed,
        n_categories,
        np.asarray(order, dtype=np.int64).reshape(-1),
    )
    if fault == 2:  # (every summed family member not in the order)
        held = {int(v) for j in node_list for v in tables.family(j) if summed[v]}
        left = sorted(held - {int(v) for v in order})
        raise ValueError(f"elimination_plan: the order leaves variables {left} summed")
    if fault:
        raise ValueError("elimination_plan: " + PROGRAM_FAULTS[fault].format(culprit))
    return EliminationPlan(tuple(arrays), int(arrays[8][-1]))


_loaded = False


def kernels_at_hand() -> bool:
    """Whether the elimination's compiled functions (its order, program and sums) load
    without compiling (:func:`~discotree.kernels.compiled_cache.at_hand`)."""
    return _loaded or (compiled_at_hand() and at_hand(elimination_program))


def load_kernels() -> None:
    """Load the compiled functions of an elimination (its order, program and sums, from
    numba's cache or compiled) with the types predictions pass them, once a process: a
    fit that will predict rows with missing values calls it, so that its first
    prediction does not (about 20-30 ms in a fresh process).

    Examples
    --------
    >>> load_kernels()
    """
    global _loaded
    if _loaded:
        return
    tables = FlatTables.of([np.zeros((1, 2)), np.zeros((1, 2, 2))], [(), (0,)], [0, 1])
    order = elimination_order([[0], [0]], {0: 2})
    plan = elimination_plan(np.array([2, 2]), [0, 1], {0}, order.order, tables)
    plan.log_marginals(np.array([[-1, 1]]), tables, 1)
    _loaded = True
