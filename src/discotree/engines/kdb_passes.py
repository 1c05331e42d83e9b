"""Selective kDB members (:func:`discotree.learners.k_dependence.fit_selective_kdb`)
learnt together from a row source (:mod:`discotree.engines.row_sources`), each on its
own coarsening of the codes, in passes shared by all the members:

1. the pair tables (each member's, or one count shared when no member coarsens);
2. the prefix family tables of every member's ranked parents;
3. for hierarchical smoothing, each node's concentration of every level, the one of
   largest leave-one-out log-likelihood given the levels above
   (:func:`~discotree.stats.hierarchical.choose_concentrations`'s rule): from the tables
   alone when no row weighs more than 0 and less than 1
   (:func:`~discotree.stats.concentration_choice.concentrations_from_tables`), else in
   one pass per level of the parents, its sums over the rows added part by part;
4. the leave-one-out losses of every nested model
   (:func:`~discotree.learners.k_dependence.leave_one_out_losses`, whose sums add).

The members' leave-one-out posteriors of some rows (:func:`member_held_out`) are then
a function of each row and the tables, computed where the rows are.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..kernels.sparse_families import backoff_scores
from ..learners.ensemble import member_spec
from ..learners.k_dependence import (
    leave_one_out_log_posteriors,
    leave_one_out_losses,
    selected_model,
)
from ..learners.registry import FittedModel, LearnerSpec, Rows
from ..models.category_maps import apply_maps, mapped_categories
from ..numerics import argmax_with_ties
from ..stats.concentration_choice import concentrations_from_tables
from ..stats.family_tables import prefix_family_tables
from ..stats.hierarchical import CONCENTRATION_GRID, level_counts
from ..stats.pair_statistics import PairStatistics
from ..structure.generative import kdb_ranked_structure
from ..validation import numpy_generator
from .row_sources import RowSource

__all__ = [
    "MEMBERS_PER_PASS",
    "MemberPlan",
    "fit_members_in_passes",
    "member_groups",
    "member_held_out",
    "member_rows",
    "member_specs",
    "plan_members",
    "scoring_members",
]

#: The members whose family tables one pass counts, and whose leave-one-out losses one
#: pass computes (the members' tables being the largest sums and arguments of a pass,
#: a worker then holds those of this many members at once, not of all; each member's
#: work is the same, the passes over the codes a few more).
MEMBERS_PER_PASS = 2


@dataclass
class MemberPlan:
    """A member: its seed and coarsening maps, then what the passes learn of it."""

    seed: int
    maps: list[Any]
    n_categories: NDArray[np.intp]
    order: list[int] | None = None
    parents: list[tuple[int, ...]] | None = None
    tables: list[Any] | None = None
    concentrations: list[NDArray[np.float64]] | None = None
    fitted: FittedModel | None = None


def member_rows(rows: Rows, member: MemberPlan) -> Rows:
    """A part's rows as ``member`` reads them (its coarsened codes)."""
    coarsened = any(m is not None for m in member.maps)
    codes = apply_maps(rows.codes, member.maps) if coarsened else rows.codes
    return Rows(codes, rows.class_index, rows.weights, rows.n_classes, member.n_categories)


def _pairs_part(rows: Rows, members: list[MemberPlan], shared: bool) -> list[Any] | None:
    if not len(rows.codes):
        return None
    chosen = members[:1] if shared else members
    out = []
    for member in chosen:
        own = member_rows(rows, member)
        out.append(
            PairStatistics.from_codes(
                own.codes, own.class_index, own.n_categories, own.n_classes, own.weights
            ).counts
        )
    return out


def _families_part(rows: Rows, members: list[MemberPlan]) -> dict[str, Any] | None:
    """Every member's prefix family tables, and how many rows weigh more than 0 and
    less than 1 (none: the concentrations come from the tables alone)."""
    if not len(rows.codes):
        return None
    fractional = int(np.count_nonzero((rows.weights > 0.0) & (rows.weights < 1.0)))
    out = []
    for member in members:
        own = member_rows(rows, member)
        assert member.parents is not None
        out.append(
            prefix_family_tables(
                own.codes,
                own.class_index,
                own.weights,
                own.n_classes,
                own.n_categories,
                member.parents,
            )
        )
    return {"tables": out, "fractional": fractional}


def _level_scores_part(
    rows: Rows,
    members: list[MemberPlan],
    chosen: NDArray[np.float64],
    level: int,
    alpha: float,
) -> NDArray[np.float64] | None:
    """The summed leave-one-out log-likelihood of every grid concentration of
    ``level`` for every member and node (0 for a node without that level), given the
    concentrations ``chosen`` of the levels above."""
    if not len(rows.codes):
        return None
    grid = np.asarray(CONCENTRATION_GRID, dtype=np.float64)
    out = np.zeros((len(members), len(rows.n_categories), len(grid)))
    unit = np.minimum(rows.weights, 1.0)
    index = np.arange(len(rows.codes))
    for m, member in enumerate(members):
        own = member_rows(rows, member)
        assert member.parents is not None and member.tables is not None
        for node, ranked in enumerate(member.parents):
            if len(ranked) < level:
                continue
            table_list = member.tables[node]
            levels = level_counts(  # the levels down to this one only
                table_list, own.codes, ranked, own.n_categories, level
            ).without(own.class_index, unit)
            w = np.where(levels.counted[0], own.weights, 0.0)
            r = int(own.n_categories[node])
            p = (levels.root_count + alpha) / (levels.root_total + alpha * r)
            for above in range(level):
                n = levels.counts[above][index, own.class_index]
                t = levels.totals[above][index, own.class_index]
                b = chosen[m, node, above]
                p = (n + b * p) / (t + b)
            n = levels.counts[level][index, own.class_index]
            t = levels.totals[level][index, own.class_index]
            out[m, node] = backoff_scores(n, t, p, w, grid)
    return out


def _losses_part(
    rows: Rows, members: list[MemberPlan], class_weight: NDArray[np.float64], specs: list
) -> list[NDArray[np.float64]] | None:
    if not len(rows.codes):
        return None
    return [
        _member_terms(leave_one_out_losses, member, rows, class_weight, spec)
        for member, spec in zip(members, specs, strict=True)
    ]


def _member_terms(
    function: Callable[..., NDArray[np.float64]],
    member: MemberPlan,
    rows: Rows,
    class_weight: NDArray[np.float64],
    spec: LearnerSpec,
    **options: Any,
) -> NDArray[np.float64]:
    """``function`` (:func:`leave_one_out_losses` or
    :func:`leave_one_out_log_posteriors`) of a member's tables, order, parents and
    concentrations on its view of ``rows``."""
    assert member.tables is not None and member.order is not None
    assert member.parents is not None
    return function(
        member.tables,
        member.order,
        member.parents,
        class_weight,
        member_rows(rows, member),
        spec=spec,
        concentrations=member.concentrations,
        **options,
    )


def member_held_out(
    rows: Rows, members: list[MemberPlan], class_weight: NDArray[np.float64], specs: list
) -> NDArray[np.float64]:
    """The members' mean leave-one-out posterior of ``rows`` (each row's ``min(w, 1)``
    out of the counts it reads), as the in-memory ensemble weighs them."""
    posteriors = []
    for member, spec in zip(members, specs, strict=True):
        assert member.fitted is not None
        attributes = member.fitted.attributes
        log_posterior = _member_terms(
            leave_one_out_log_posteriors,
            member,
            rows,
            class_weight,
            spec,
            n_attributes=int(attributes["n_attributes_"]),
            k=int(attributes["k_"]),
        )
        posteriors.append(np.exp(log_posterior))
    return np.mean(posteriors, axis=0)


def _choose_concentrations(source: RowSource, members: list[MemberPlan], alpha: float) -> None:
    """Every member's concentrations, one pass per level (see the module)."""
    grid = np.asarray(CONCENTRATION_GRID, dtype=np.float64)
    assert all(m.parents is not None for m in members)
    depth = max(len(p) for m in members for p in m.parents or [()])
    n_features = len(source.n_categories)
    chosen = np.zeros((len(members), n_features, depth + 1))
    for level in range(depth + 1):
        scores = source.total(_level_scores_part, members, chosen.copy(), level, alpha)
        chosen[:, :, level] = grid[np.argmax(scores, axis=2)]
    for m, member in enumerate(members):
        assert member.parents is not None
        member.concentrations = [
            chosen[m, node, : len(ranked) + 1].copy() for node, ranked in enumerate(member.parents)
        ]


def _tables_concentrations(members: list[MemberPlan], alpha: float) -> None:
    """Every member's concentrations from its tables alone, the choice of the passes of
    :func:`_choose_concentrations` when no row weighs more than 0 and less than 1
    (:func:`~discotree.stats.concentration_choice.concentrations_from_tables`)."""
    for member in members:
        assert member.parents is not None and member.tables is not None
        member.concentrations = [
            concentrations_from_tables(
                member.tables[node][: len(ranked) + 1], member.n_categories[list(ranked)], alpha
            )
            for node, ranked in enumerate(member.parents)
        ]


def fit_members_in_passes(
    source: RowSource,
    members: list[MemberPlan],
    specs: list[LearnerSpec],
    class_weight: NDArray[np.float64],
) -> None:
    """Fit every member of ``members`` (their ``order``, ``parents``, ``tables``,
    ``concentrations`` and ``fitted`` set) with ``specs`` (each a selective kDB's, the
    member's ``order_seed``): the passes of the module, each shared by all."""
    shared = not any(m is not None for member in members for m in member.maps)
    pairs = source.total(_pairs_part, members, shared)
    for index, (member, spec) in enumerate(zip(members, specs, strict=True)):
        stats = PairStatistics(pairs[0 if shared else index], member.n_categories)
        rng = numpy_generator(int(spec.options.order_seed))
        member.order, member.parents = kdb_ranked_structure(stats, int(spec.options.k), rng)
    fractional = 0
    for group in member_groups(len(members)):
        families = source.total(_families_part, [members[m] for m in group])
        for m, tables in zip(group, families["tables"], strict=True):
            members[m].tables = tables
        fractional = families["fractional"]
    if specs[0].options.smoothing == "hierarchical" and fractional:
        _choose_concentrations(source, members, float(specs[0].alpha))
    elif specs[0].options.smoothing == "hierarchical":  # (the same choice, no pass)
        _tables_concentrations(members, float(specs[0].alpha))
    losses = []
    for group in member_groups(len(members)):
        group_members, group_specs = [members[m] for m in group], [specs[m] for m in group]
        losses += source.total(_losses_part, group_members, class_weight, group_specs)
    for member, spec, loss in zip(members, specs, losses, strict=True):
        flat = int(argmax_with_ties(-np.asarray(loss, dtype=np.float64).reshape(1, -1))[0])
        s, q = np.unravel_index(flat, loss.shape)
        assert member.tables is not None and member.order is not None
        assert member.parents is not None
        member.fitted = selected_model(
            member.tables,
            member.order,
            member.parents,
            member.n_categories,
            int(s),
            k=int(q),
            spec=spec,
            concentrations=member.concentrations,
        )


def member_groups(n_members: int) -> list[list[int]]:
    """The members of each pass that reads or sums their tables, in order
    (:data:`MEMBERS_PER_PASS` a pass).

    Examples
    --------
    >>> member_groups(5)
    [[0, 1], [2, 3], [4]]
    """
    return [
        list(range(start, min(n_members, start + MEMBERS_PER_PASS)))
        for start in range(0, n_members, MEMBERS_PER_PASS)
    ]


def scoring_members(members: list[MemberPlan]) -> list[MemberPlan]:
    """The fitted ``members`` with what :func:`member_held_out` reads only: the tables of
    their selected attributes up to their selected number of parents (the others'
    empty), and their fitted attributes without the model (a pass that scores rows
    sends these to every worker, not every prefix table of every attribute)."""
    out = []
    for member in members:
        assert member.fitted is not None and member.tables is not None
        assert member.order is not None and member.parents is not None
        attributes = member.fitted.attributes
        k, selected = int(attributes["k_"]), member.order[: int(attributes["n_attributes_"])]
        tables: list[Any] = [[] for _ in member.tables]
        for node in selected:
            tables[node] = member.tables[node][: len(member.parents[node][:k]) + 1]
        out.append(replace(member, tables=tables, fitted=FittedModel(None, dict(attributes))))
    return out


def member_specs(spec: LearnerSpec, members: list[MemberPlan]) -> list[LearnerSpec]:
    """Each member's selective kDB specification (as the in-memory ensemble gives it)."""
    return [member_spec(spec, m.seed) for m in members]


def plan_members(
    seeds: NDArray[np.integer], maps: list[Any], n_categories: NDArray[np.intp]
) -> list[MemberPlan]:
    """The members of ``seeds`` and their maps, nothing learnt yet."""
    return [
        MemberPlan(int(s), m, mapped_categories(n_categories, m).astype(np.intp))
        for s, m in zip(seeds, maps, strict=True)
    ]
