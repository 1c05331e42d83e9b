"""The learners of k-dependence classifiers with sparse family tables: kDB of any k
(Sahami 1996), registered as ``"k-dependence"``, and selective kDB (Martinez, Webb,
Chen & Zaidi, "Scalable learning of Bayesian network classifiers", JMLR 17(44), 2016),
registered as ``"selective-kdb"``.

Both rank the attributes by I(X; C) and give each the (at most) ``k`` earlier
attributes of largest positive I(X_i; X_j | C) as ranked parents (pass 1: the pair
tables), then count every attribute's family under each prefix of its parents (pass
2: :func:`~discotree.stats.family_tables.prefix_family_tables`). kDB uses every
attribute with all its parents. Selective kDB chooses, jointly, the number of leading
attributes ``s`` and the number of parents ``k' <= k`` of least leave-one-out loss
(pass 3, :func:`leave_one_out_losses`), each row's own weight taken out of the counts
it reads: no refit.

The selection loss is the root mean squared error of the class probabilities by
default, as Martinez et al. (2016, Section 3) use: it is bounded, so a row whose
configurations are unique (whose leave-one-out probability of its class falls to the
smoothing's) costs at most 1 instead of an unbounded log-loss that such a row alone can
make decide; ``selection_loss="log_loss"`` selects by the log-loss instead.

A row of weight ``w`` leaves ``min(w, 1)`` out: integer weights then select exactly as
repeated rows do (each copy leaves itself out and keeps its twins). A row with a
missing parent is scored by the back-off rule of
:mod:`~discotree.models.k_dependence` (exact elimination for every left-out model would
cost one elimination per row and model); the fitted model sums it out exactly.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy.special import log_softmax

from .. import missing_values
from ..kernels.counts import class_totals, configuration_ids
from ..kernels.hierarchical_terms import rows_of
from ..kernels.scaled_joint import add_batch_terms_and_score, scaled_joint, uniform_weight
from ..kernels.sparse_families import posterior_loss_sums
from ..models.k_dependence import KDependenceModel
from ..numerics import argmax_with_ties, class_log_prior
from ..stats.concentration_choice import concentrations_from_tables, tables_choose_concentrations
from ..stats.family_tables import (
    SparseFamilyTable,
    observed_prefix_lengths,
    prefix_family_tables,
)
from ..stats.hdp import check_customer_weights, hdp_tables
from ..stats.hierarchical import (
    choose_concentrations,
    distinct_backoff_terms,
    level_counts,
)
from ..stats.pair_statistics import PairStatistics
from ..structure.generative import kdb_ranked_structure
from ..validation import numpy_generator
from .options import SELECTION_LOSSES, SMOOTHINGS, KDependenceOptions
from .registry import Counts, FittedModel, Learner, LearnerSpec, Rows, register_learner
from .selection_snapshots import SelectionSnapshots

__all__ = [
    "SELECTION_LOSSES",
    "SMOOTHINGS",
    "check_kdb_options",
    "fit_k_dependence",
    "fit_selective_kdb",
    "hierarchical_concentrations",
    "leave_one_out_log_posteriors",
    "leave_one_out_losses",
    "score_kdb_rows",
    "selected_model",
]

#: Rows scored at once by the leave-one-out pass (memory: (k + 1) x rows x classes).
_CHUNK_ROWS = 1 << 16
#: The leave-one-out pass adds its nodes to the models' joints in batches
#: (:func:`~discotree.kernels.scaled_joint.add_batch_terms_and_score`: a block of rows
#: takes every node of a batch while it is in cache) where the joints and their scaled
#: copies exceed this many bytes; below, they stay in cache anyway and each node is
#: added alone, the selected model's held-out joint kept on the way
#: (:class:`~discotree.learners.selection_snapshots.SelectionSnapshots`). Binarised
#: MNIST's members (60,000 rows, 10 classes, k = 5) hold 58 MB; the digits' 1.8 MB.
BATCHED_ABOVE_BYTES = 1 << 23
#: The nodes of a batch, at most, and their terms' bytes, at most (with their
#: probabilities: twice the terms): the terms of a batch are read again for every
#: block of rows, so they must stay in cache too. Measured (one core, AMD EPYC): a
#: member on the 2-class synthetic set of ``benchmarks/bench_scale.py`` (200,000 rows,
#: 1 MB of terms a node) took 2.2 s one node at a time, 5.1 s in batches of 32 nodes
#: within 64 MB, as before within 2 MB; binarised MNIST's ensemble (0.25 MB a node)
#: gains most with two threads, whose members share the memory's bandwidth.
NODES_PER_BATCH = 32
BATCH_TERM_BYTES = 1 << 21


def check_kdb_options(owner: str, smoothing: Any, selection_loss: Any, alpha: Any) -> None:
    """Refuse a smoothing or selection loss this module does not know, and hierarchical
    smoothing without a positive ``alpha`` (it smooths the nodes' marginals); the
    message names ``owner``."""
    if smoothing not in SMOOTHINGS:
        raise ValueError(f"{owner}: smoothing must be one of {SMOOTHINGS}, got {smoothing!r}.")
    if smoothing in ("hierarchical", "hdp") and not alpha > 0:
        raise ValueError(
            f"{owner}: smoothing={smoothing!r} needs alpha > 0 (the hierarchical estimate "
            f"that selects smooths the nodes' marginals), got {alpha!r}."
        )
    if selection_loss not in SELECTION_LOSSES:
        raise ValueError(
            f"{owner}: selection_loss must be one of {SELECTION_LOSSES}, got {selection_loss!r}."
        )


def _ranked(stats: PairStatistics, spec: LearnerSpec) -> tuple[list[int], list[tuple[int, ...]]]:
    """The order (by I(X; C), or sampled from ``order_seed``) and ranked parents."""
    seed = spec.options.order_seed
    rng = None if seed is None else numpy_generator(seed)
    return kdb_ranked_structure(stats, int(spec.options.k), rng)


def _structure(stats: PairStatistics, spec: LearnerSpec) -> list[tuple[int, ...]]:
    return _ranked(stats, spec)[1]


def selected_model(
    tables: list[list[SparseFamilyTable]],
    order: list[int],
    parents: list[tuple[int, ...]],
    n_categories: NDArray[np.intp],
    n_attributes: int,
    *,
    k: int,
    spec: LearnerSpec,
    concentrations: list[NDArray[np.float64]] | None = None,
) -> FittedModel:
    """The model of the first ``n_attributes`` ranked attributes, each with its first
    ``k`` ranked parents (and, for hierarchical smoothing, the concentrations of those
    levels), and its fitted attributes."""
    used = [int(j) for j in order[:n_attributes]]
    in_use = [tuple(parents[j][:k]) if j in used else () for j in range(len(parents))]
    kept = None
    if concentrations is not None:
        kept = [c[: len(p) + 1].copy() for c, p in zip(concentrations, in_use, strict=True)]
    model = KDependenceModel(
        np.asarray(n_categories),
        used,
        in_use,
        tables,
        float(spec.alpha),
        spec.epsilon,
        kept,
    )
    n_classes = tables[0][0].n_classes
    edges = sorted({(min(p, j), max(p, j)) for j, pa in enumerate(in_use) for p in pa})
    attributes: dict[str, Any] = {
        "order_": [int(j) for j in order],
        "attributes_": used,
        "attribute_parents_": in_use,
        "edges_": [list(edges) for _ in range(n_classes)],
        "k_": int(k),
        "n_attributes_": int(n_attributes),
    }
    if kept is not None:
        attributes["concentrations_"] = kept
    return FittedModel(model, attributes)


def fit_k_dependence(counts: Counts, spec: LearnerSpec) -> FittedModel:
    """kDB (Dirichlet smoothing) from the pair tables (the order and parents), the
    prefix tables of the second pass (``counts.families``: per feature, the tables under
    each prefix of its ranked parents) and, for selective kDB (``selective``), the
    leave-one-out losses of the third pass (``counts.scores``,
    :func:`score_kdb_rows`): the least loss wins (ties: fewer attributes, then fewer
    parents)."""
    if counts.families is None or counts.n_categories is None:
        raise ValueError("k-dependence needs the prefix family tables (counts.families)")
    if spec.options.smoothing != "dirichlet":
        raise ValueError(
            "k-dependence from counts smooths by Dirichlet pseudo-counts; hierarchical "
            "smoothing chooses its concentrations from the rows (fit in memory)"
        )
    order, parents = _ranked(counts.pairs, spec)
    k = int(spec.options.k)
    if not spec.options.selective:
        return selected_model(
            counts.families, order, parents, counts.n_categories, len(order), k=k, spec=spec
        )
    losses = counts.scores
    if losses is None:
        raise ValueError(
            "selective kDB needs the third pass's leave-one-out losses (counts.scores)"
        )
    s, q = _least_loss(losses)
    fitted = selected_model(
        counts.families, order, parents, counts.n_categories, int(s), k=int(q), spec=spec
    )
    fitted.attributes["selection_losses_"] = _reported_losses(
        losses, float(counts.class_weight.sum()), counts.n_classes, spec
    )
    return fitted


def _least_loss(losses: NDArray[np.float64]) -> tuple[int, int]:
    """The (attributes, parents) of least loss, losses within the package's tie
    tolerance equal (ties: fewer attributes, then fewer parents)."""
    flat = int(argmax_with_ties(-np.asarray(losses, dtype=np.float64).reshape(1, -1))[0])
    s, q = np.unravel_index(flat, losses.shape)
    return int(s), int(q)


def _reported_losses(losses, total: float, n_classes: int, spec: LearnerSpec):
    """The RMSE (or the mean log-loss) of the summed losses."""
    if spec.options.selection_loss == "rmse":
        return np.sqrt(losses / (total * n_classes))
    return losses / total


def score_kdb_rows(
    counts: Counts,
    spec: LearnerSpec,
    codes: NDArray[np.integer],
    class_index: NDArray[np.intp],
    weights: NDArray[np.float64] | None,
) -> NDArray[np.float64]:
    """Selective kDB's third pass on some rows: their summed leave-one-out losses of
    every nested model (:func:`leave_one_out_losses`) under the counts of all the rows;
    the sums of the parts add."""
    order, parents = _ranked(counts.pairs, spec)
    w = np.ones(len(codes)) if weights is None else np.asarray(weights, dtype=np.float64)
    assert counts.n_categories is not None and counts.families is not None
    rows = Rows(codes, class_index, w, counts.n_classes, counts.n_categories)
    return leave_one_out_losses(
        counts.families, order, parents, counts.class_weight, rows, spec=spec
    )


def _prior_log(class_weight, class_index, unit) -> NDArray[np.float64]:
    """The Laplace class prior of the counts with each row's unit taken out (the
    package's held-out prior rule)."""
    weight = np.tile(class_weight, (len(class_index), 1))
    weight[np.arange(len(class_index)), class_index] -= unit
    weight = np.maximum(weight, 0.0)
    return class_log_prior(weight, pseudo_count=1.0)


def _node_terms(
    *arguments: Any, **keywords: Any
) -> tuple[list[NDArray[np.float64]], NDArray[np.float64] | None]:
    """:func:`_node_distinct_terms` of every row: one array (rows, classes) a level."""
    terms, picked, row_key = _node_distinct_terms(*arguments, **keywords)
    return list(rows_of(terms, row_key)), picked


def _node_distinct_terms(
    table_list: list[SparseFamilyTable],
    ranked: tuple[int, ...],
    codes: NDArray[np.integer],
    class_index: NDArray[np.intp],
    unit: NDArray[np.float64],
    *,
    n_categories: NDArray[np.intp],
    spec: LearnerSpec,
    concentrations: NDArray[np.float64] | None = None,
    weights: NDArray[np.float64] | None = None,
) -> tuple[NDArray[np.float64], NDArray[np.float64] | None, NDArray[np.int64]]:
    """The leave-one-out ``log P(x_j | c, first L parents)`` for L = 0..len(ranked)
    (a row with fewer observed leading parents backs off to them; 0 where x_j is
    missing), Dirichlet or, given the node's ``concentrations``, hierarchical; given
    ``weights`` instead, hierarchical with the concentrations chosen from these rows
    (returned; the same leave-one-out counts serve both). One array (levels, distinct
    rows, classes) and each row's distinct row (hierarchical: rows alike computed once,
    :func:`~discotree.stats.hierarchical.distinct_backoff_terms`; Dirichlet: every row
    its own)."""
    if concentrations is not None or weights is not None:
        return distinct_backoff_terms(
            table_list,
            codes,
            ranked,
            n_categories,
            class_index,
            unit=unit,
            alpha=float(spec.alpha),
            concentrations=concentrations,
            weights=weights if concentrations is None else None,
        )
    node = table_list[0].node
    values = codes[:, node]
    observed = observed_prefix_lengths(codes, ranked)
    terms = []
    previous = np.zeros((len(codes), table_list[0].n_classes))
    for length in range(len(ranked) + 1):
        term = previous.copy()  # rows observing fewer parents keep the shorter prefix's
        rows = np.flatnonzero(missing_values.observed(values) & (observed >= length))
        if len(rows):
            ids, _ = configuration_ids(codes[rows], ranked[:length], n_categories)
            term[rows] = table_list[length].log_probability(
                ids,
                values[rows],
                float(spec.alpha),
                spec.epsilon,
                leave_out=(class_index[rows], unit[rows]),
            )
        terms.append(term)
        previous = term
    return np.stack(terms), None, np.arange(len(codes))


def _chunks(rows: Rows) -> Iterator[tuple[int, tuple[NDArray[Any], ...]]]:
    """The rows by chunks of :data:`_CHUNK_ROWS`: each chunk's first row and its codes,
    classes, weights and the unit of weight each row leaves out (``min(w, 1)``)."""
    for start in range(0, len(rows.codes), _CHUNK_ROWS):
        part = slice(start, start + _CHUNK_ROWS)
        weights = rows.weights[part]
        yield start, (rows.codes[part], rows.class_index[part], weights, np.minimum(weights, 1.0))


def leave_one_out_losses(
    tables: list[list[SparseFamilyTable]],
    order: list[int],
    parents: list[tuple[int, ...]],
    class_weight: NDArray[np.float64],
    rows: Rows,
    *,
    spec: LearnerSpec,
    concentrations: list[NDArray[np.float64]] | None = None,
    chosen: list[NDArray[np.float64] | None] | None = None,
    snapshots: SelectionSnapshots | None = None,
) -> NDArray[np.float64]:
    """The summed leave-one-out loss (weighted by the rows' weights) of every nested
    model: entry ``[s, q]`` for the first ``s`` ranked attributes (0..d) with at most
    ``q`` parents each (0..k). The sums of two parts of the rows add (the third pass).

    ``spec``'s ``selection_loss``: ``"rmse"`` sums ``sum_c (P(c | x) - [c = y])**2``
    (the root mean squared error is the square root of the sum over ``n * C``),
    ``"log_loss"`` sums ``-log P(y | x)``.

    ``chosen``: a list of one None per feature, for hierarchical smoothing whose
    concentrations are chosen in the same pass (rows in one chunk): each node's choice
    is written there. ``snapshots``: offered every model's joint when the rows fit one
    chunk (:class:`~discotree.learners.selection_snapshots.SelectionSnapshots`) and the
    nodes are added one at a time (the joints within :data:`BATCHED_ABOVE_BYTES`);
    given up otherwise. The sums are the same, to the bit, in batches or not.
    """
    # an attribute has at most len(order) - 1 earlier ones: a larger k adds nothing
    k = min(int(spec.options.k), max(len(order) - 1, 0))
    loss = spec.options.selection_loss
    out = np.zeros((len(order) + 1, k + 1))
    if snapshots is not None and len(rows.codes) > _CHUNK_ROWS:
        snapshots.give_up()  # (the losses are known only after the last chunk)
    n_chunk = min(len(rows.codes), _CHUNK_ROWS)
    batched = 16 * (k + 1) * n_chunk * rows.n_classes > BATCHED_ABOVE_BYTES
    if snapshots is not None and batched:
        snapshots.give_up()  # (the joints after each node are not kept in batches)
    for start, (codes, truth, weights, unit) in _chunks(rows):
        state = scaled_joint(np.repeat(_prior_log(class_weight, truth, unit)[None], k + 1, axis=0))
        uniform = uniform_weight(weights)  # (the chunk's, for every node)
        joint = state.joint
        only = "log_loss" if loss == "log_loss" else "squares"
        which = 1 if loss == "log_loss" else 0  # (the one sum the loss reads, the same bits)
        out[0] += posterior_loss_sums(joint[0], truth, weights, only=only)[which]
        if snapshots is not None:
            for q in range(k + 1):
                snapshots.offer(0, q, float(out[0, q]), joint[q])
        # twin[q]: the smallest q' whose joint equals q's by construction (every
        # attribute so far read the same level for both): its score is q's
        twin = np.zeros(k + 1, dtype=np.intp)
        batch = _NodeBatch(k, which)
        for s, node in enumerate(order, start=1):
            ranked = parents[node]
            node_concentrations = None if concentrations is None else concentrations[node]
            terms, picked, row_key = _node_distinct_terms(
                tables[node],
                ranked,
                codes,
                truth,
                unit,
                n_categories=rows.n_categories,
                spec=spec,
                concentrations=node_concentrations,
                weights=weights if chosen is not None else None,
            )
            if chosen is not None:
                if start > 0:
                    raise ValueError("concentrations are chosen in one pass over one chunk")
                chosen[node] = picked
            levels = np.minimum(np.arange(k + 1), len(ranked))
            groups: dict[tuple[int, int], int] = {}  # (old twin, level) -> new twin
            for q in range(k + 1):
                twin[q] = groups.setdefault((int(twin[q]), int(levels[q])), q)
            batch.add(s, terms, row_key, levels, twin)
            if not batched or batch.full():
                batch.score(state, (truth, weights), uniform, out)
            if snapshots is not None and not batched:
                for q in range(k + 1):
                    snapshots.offer(s, q, float(out[s, q]), joint[q])
        batch.score(state, (truth, weights), uniform, out)
    return out


class _NodeBatch:
    """The nodes of :func:`leave_one_out_losses` waiting to be added and scored
    together (:func:`~discotree.kernels.scaled_joint.add_batch_terms_and_score`):
    every twin class of models scored once (by its first model), its sum given to every
    model of the class."""

    def __init__(self, k: int, which: int) -> None:
        self.k, self.which = k, which
        self.flags = (which == 0, which == 1)  # (squares, log-loss)
        self.nodes: list[tuple[int, Any, Any, Any, Any]] = []
        self.term_bytes = 0

    def add(self, s: int, terms, row_key, levels, twin) -> None:
        self.nodes.append((s, terms, row_key, levels, twin.copy()))
        self.term_bytes += 16 * terms.size

    def full(self) -> bool:
        return len(self.nodes) >= NODES_PER_BATCH or self.term_bytes >= BATCH_TERM_BYTES

    def score(self, state, rows, uniform: float, out: NDArray[np.float64]) -> None:
        """Add and score the waiting nodes; ``out[s]`` += each node's sums."""
        if not self.nodes:
            return
        positions, terms, keys, levels, twins = zip(*self.nodes, strict=True)
        scored = np.array([twin == np.arange(self.k + 1) for twin in twins])
        sums = np.zeros((len(self.nodes), self.k + 1, 2))
        add_batch_terms_and_score(
            state,
            list(terms),
            np.array(keys),
            np.array(levels),
            scored,
            rows,
            flags=self.flags,
            out=sums,
            uniform=uniform,
        )
        for b, (s, twin) in enumerate(zip(positions, twins, strict=True)):
            out[s] += sums[b, twin, self.which]
        self.nodes, self.term_bytes = [], 0


def leave_one_out_log_posteriors(
    tables: list[list[SparseFamilyTable]],
    order: list[int],
    parents: list[tuple[int, ...]],
    class_weight: NDArray[np.float64],
    rows: Rows,
    *,
    spec: LearnerSpec,
    n_attributes: int,
    k: int,
    concentrations: list[NDArray[np.float64]] | None = None,
) -> NDArray[np.float64]:
    """Every row's leave-one-out ``log P(c | x)`` under the model of the first
    ``n_attributes`` ranked attributes with at most ``k`` parents each: the terms of
    :func:`leave_one_out_losses` for that one model (each row's ``min(w, 1)`` taken out
    of the counts it reads, the same back-off for missing parents), normalised over the
    classes. With ``selection_loss="log_loss"``, ``-sum_i w_i out[i, y_i]`` is that
    function's entry ``[n_attributes, k]``.
    """
    out = np.empty((len(rows.codes), rows.n_classes))
    for start, (codes, truth, _, unit) in _chunks(rows):
        joint = _prior_log(class_weight, truth, unit)
        for node in order[:n_attributes]:
            ranked = tuple(parents[node][:k])
            node_concentrations = None
            if concentrations is not None:
                node_concentrations = concentrations[node][: len(ranked) + 1]
            terms, _ = _node_terms(
                tables[node],
                ranked,
                codes,
                truth,
                unit,
                n_categories=rows.n_categories,
                spec=spec,
                concentrations=node_concentrations,
            )
            joint += terms[len(ranked)]
        out[start : start + len(codes)] = log_softmax(joint, axis=1)
    return out


def hierarchical_concentrations(
    tables: list[list[SparseFamilyTable]],
    parents: list[tuple[int, ...]],
    rows: Rows,
    spec: LearnerSpec,
    nodes: list[int] | None = None,
) -> list[NDArray[np.float64]]:
    """Every node's (or ``nodes``') concentrations, level by level, of largest
    leave-one-out log-likelihood
    (:func:`~discotree.stats.hierarchical.choose_concentrations`): from the tables
    alone when the weights allow it
    (:func:`~discotree.stats.concentration_choice.concentrations_from_tables`, the same
    choice), else from the rows."""
    unit = np.minimum(rows.weights, 1.0)
    from_tables = tables_choose_concentrations(rows.weights)
    out = []
    for node in range(len(parents)) if nodes is None else nodes:
        ranked = parents[node]
        if from_tables:
            radices = np.asarray(rows.n_categories)[list(ranked)]
            out.append(
                concentrations_from_tables(
                    tables[node][: len(ranked) + 1], radices, float(spec.alpha)
                )
            )
            continue
        levels = level_counts(tables[node], rows.codes, ranked, rows.n_categories, len(ranked))
        left = levels.without(rows.class_index, unit)
        r = int(rows.n_categories[node])
        out.append(
            choose_concentrations(left, rows.class_index, rows.weights, float(spec.alpha), r)
        )
    return out


def _with_hdp_tables(fitted: FittedModel, rows: Rows, spec: LearnerSpec) -> FittedModel:
    """The model of ``fitted`` (its structure) with the HDP estimates of every table in
    use (:func:`~discotree.stats.hdp.hdp_tables`, seeded by ``hdp_seed``)."""
    model = fitted.model
    rng = numpy_generator(int(spec.options.hdp_seed))
    tables = list(model.tables)
    chosen: list[NDArray[np.float64]] = [np.empty(0) for _ in model.parents]
    families = [(node, tuple(model.parents[node])) for node in model.attributes]
    estimates = hdp_tables(
        rows.codes,
        rows.class_index,
        rows.weights,
        rows.n_classes,
        rows.n_categories,
        families=families,
        rng=rng,
    )
    for node, (node_tables, node_concentrations) in zip(model.attributes, estimates, strict=True):
        tables[node], chosen[node] = node_tables, node_concentrations
    hdp_model = replace(model, tables=tables, concentrations=None, hdp=True)
    return FittedModel(hdp_model, {**fitted.attributes, "concentrations_": chosen})


def fit_selective_kdb(rows: Rows, spec: LearnerSpec) -> FittedModel:
    """Selective kDB in three passes over the rows: the pair tables (order and ranked
    parents), the prefix family tables, the leave-one-out losses of every (s, k'); the
    least loss wins (ties: fewer attributes, then fewer parents). With
    ``selective=False`` the second pass's kDB (every attribute, k parents).
    ``smoothing="hdp"``: the structure chosen with hierarchical smoothing, then every
    table in use estimated by the HDP sampler. ``held_out=True`` (or an index of some
    rows): the rows' leave-one-out posteriors under the selected model too (attribute
    ``held_out_log_posterior_``; for HDP tables, those of the hierarchical estimate on
    the same structure)."""
    if spec.options.smoothing == "hdp":
        check_customer_weights(rows.weights)  # before any work
        hierarchical = spec.with_options(smoothing="hierarchical")
        return _with_hdp_tables(fit_selective_kdb(rows, hierarchical), rows, spec)
    k = int(spec.options.k)
    if spec.options.selection_loss not in SELECTION_LOSSES:
        raise ValueError(f"selection_loss must be one of {SELECTION_LOSSES}")
    n_classes, n_categories = rows.n_classes, rows.n_categories
    stats = spec.options.pairs  # counted already (partial_fit), or pass 1 here
    if stats is None:
        stats = PairStatistics.from_codes(
            rows.codes, rows.class_index, n_categories, n_classes, rows.weights
        )
    order, parents = _ranked(stats, spec)
    tables = prefix_family_tables(
        rows.codes, rows.class_index, rows.weights, n_classes, n_categories, parents
    )
    hierarchical = spec.options.smoothing == "hierarchical"
    selective = spec.options.selective
    class_weight = class_totals(rows.class_index, rows.weights, n_classes)
    if not hierarchical:  # the three passes of the count learner, here on the rows
        counts = Counts(n_categories, class_weight, stats, tables)
        scores = None
        if selective:
            scores = score_kdb_rows(counts, spec, rows.codes, rows.class_index, rows.weights)
        fitted = fit_k_dependence(
            replace(counts, scores=scores), spec.with_options(selective=bool(selective))
        )
        return _with_held_out(
            fitted, tables, order, parents, class_weight, rows=rows, spec=spec, concentrations=None
        )
    # one pass chooses the concentrations and scores the models when the rows fit one
    # chunk (the same leave-one-out counts); else a pass for the concentrations first
    fused = hierarchical and selective and len(rows.codes) <= _CHUNK_ROWS
    concentrations: list[Any] | None = None
    if hierarchical and not fused:
        concentrations = hierarchical_concentrations(tables, parents, rows, spec)
    if not selective:
        fitted = selected_model(
            tables,
            order,
            parents,
            n_categories,
            len(order),
            k=k,
            spec=spec,
            concentrations=concentrations,
        )
        return _with_held_out(
            fitted,
            tables,
            order,
            parents,
            class_weight,
            rows=rows,
            spec=spec,
            concentrations=concentrations,
        )
    chosen: list[Any] | None = [None] * len(parents) if fused else None
    snapshots = _held_out_snapshots(spec)
    losses = leave_one_out_losses(
        tables,
        order,
        parents,
        class_weight,
        rows,
        spec=spec,
        concentrations=concentrations,
        chosen=chosen,
        snapshots=snapshots,
    )
    if fused:  # the order holds every attribute: each chose its concentrations
        concentrations = chosen
    s, q = _least_loss(losses)
    fitted = selected_model(
        tables,
        order,
        parents,
        n_categories,
        int(s),
        k=int(q),
        spec=spec,
        concentrations=concentrations,
    )
    fitted.attributes["selection_losses_"] = _reported_losses(
        losses, float(rows.weights.sum()), n_classes, spec
    )
    joint = None if snapshots is None else snapshots.joint(int(s), int(q))
    if joint is not None:  # the selected model's, kept during the pass
        fitted.attributes["held_out_log_posterior_"] = log_softmax(joint, axis=1)
        return fitted
    return _with_held_out(
        fitted,
        tables,
        order,
        parents,
        class_weight,
        rows=rows,
        spec=spec,
        concentrations=concentrations,
    )


def _held_out_snapshots(spec: LearnerSpec) -> SelectionSnapshots | None:
    """The snapshots of the rows the ``held_out`` option asks for (None without)."""
    held = spec.options.held_out
    if held is False:
        return None
    return SelectionSnapshots(None if held is True else np.asarray(held, dtype=np.intp))


def _with_held_out(
    fitted: FittedModel,
    tables: list[list[SparseFamilyTable]],
    order: list[int],
    parents: list[tuple[int, ...]],
    class_weight: NDArray[np.float64],
    *,
    rows: Rows,
    spec: LearnerSpec,
    concentrations: list[Any] | None,
) -> FittedModel:
    """``fitted``, with the ``held_out`` option its rows' leave-one-out log posteriors
    under the selected model (:func:`leave_one_out_log_posteriors`) as the attribute
    ``held_out_log_posterior_``: of every row, or of the rows ``held_out`` indexes."""
    held = spec.options.held_out
    if held is not False:
        if held is not True:  # some of the rows (each still left out of the counts)
            rows = rows.take(np.asarray(held, dtype=np.intp))
        fitted.attributes["held_out_log_posterior_"] = leave_one_out_log_posteriors(
            tables,
            order,
            parents,
            class_weight,
            rows,
            spec=spec,
            n_attributes=int(fitted.attributes["n_attributes_"]),
            k=int(fitted.attributes["k_"]),
            concentrations=concentrations,
        )
    return fitted


register_learner(
    Learner(
        "k-dependence",
        "kDB of any k with sparse family tables (Sahami 1996).",
        "pairs, then families",
        fit_k_dependence,
        structure=_structure,
        count_families=prefix_family_tables,
        score_rows=score_kdb_rows,
        partial_fit=True,
        dask=True,
        options=KDependenceOptions,
    )
)
register_learner(
    Learner(
        "selective-kdb",
        "Selective kDB: attributes and k chosen by leave-one-out loss from counts "
        "(Martinez et al. 2016).",
        "rows",
        fit_selective_kdb,
        partial_fit=False,
        dask=False,
        options=KDependenceOptions,
    )
)
