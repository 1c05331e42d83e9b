"""The learner of ensembles of selective kDB (after Zhang, Petitjean & Buntine 2020),
registered as ``"kdb-ensemble"``: ``n_estimators`` members, each a selective kDB
(:func:`~discotree.learners.k_dependence.fit_selective_kdb`) on its own stochastic
coarsening of the binned columns (:func:`~discotree.models.ensemble.coarsening_maps`)
and its own sampled attribute order, all drawn from one seed; the members are fitted
on the cores (``n_jobs``, threads: the counting and lookups release the GIL).

Options (:class:`~discotree.learners.options.KDBEnsembleOptions`): ``n_estimators``,
``n_bins`` (coarse bins per binned column), ``binned`` (the columns binned by the
encoder), ``seed``, ``n_jobs``, the members' own as one value (``estimator``, their
:class:`~discotree.learners.options.KDependenceOptions`; the spec's ``alpha`` and
``epsilon`` are theirs too: only the members read them), and the linear member's:
``linear_weight`` (0: none; ``"auto"``: the weight of least held-out log-loss,
:func:`held_out_mixture_losses`, plus :data:`LEAVE_ONE_OUT_OPTIMISM`), ``values`` (the
value of every fine bin of the binned columns, None for the others), ``linear_C`` and
``linear_pairs`` (the number of pairs of categorical (not binned) columns with joint
inputs, at most, or ``"all"``; :mod:`discotree.learners.logistic`), and the pair
member's: ``pair_weight`` (0: none; ``"auto"``: the weight of least held-out log-loss,
:func:`held_out_pooled_losses`, at least :data:`PAIR_WEIGHT_FLOOR`; :func:`fit_pair_member`)
and ``pair_pooling`` (:func:`~discotree.models.ensemble.pooled_log_posterior`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import numpy as np
from joblib import Parallel, delayed
from numpy.typing import NDArray

from ..kernels.counts import class_totals, univariate_counts
from ..models.category_maps import apply_maps, mapped_categories
from ..models.ensemble import (
    KDBEnsembleModel,
    coarsening_maps,
    pooled_log_posterior,
    sampled_mdl_maps,
)
from ..numerics import best_index, class_log_prior, sign_with_ties
from ..stats.folds import content_folds
from ..stats.pair_statistics import PairStatistics
from ..threads import available_cores
from .k_dependence import fit_selective_kdb
from .logistic import cross_validated_log_posteriors, fit_logistic
from .options import COARSENINGS, KDBEnsembleOptions, LogisticOptions
from .registry import FittedModel, Learner, LearnerSpec, Rows, register_learner

__all__ = [
    "FINE_BINS",
    "HELD_OUT_ROWS",
    "HELD_OUT_TOLERANCE",
    "LEAVE_ONE_OUT_OPTIMISM",
    "LINEAR_WEIGHTS",
    "PAIR_LEVELS",
    "PAIR_SPLIT_SEED",
    "PAIR_WEIGHTS",
    "PAIR_WEIGHT_FLOOR",
    "fit_kdb_ensemble",
    "fit_pair_member",
    "held_out_mixture_losses",
    "held_out_pooled_losses",
    "held_out_rows",
    "linear_pair_count",
    "member_maps",
    "member_spec",
    "pair_level_maps",
    "pair_limit",
    "shared_pair_statistics",
]

#: The equal-frequency bins the ensemble encodes numeric columns into, before each
#: member coarsens them (in memory, on Dask and in passes over files).
FINE_BINS = 30


def _member(rows: Rows, spec: LearnerSpec, seed: int, maps) -> FittedModel:
    codes, class_index, weights = rows.codes, rows.class_index, rows.weights
    if spec.options.bootstrap:  # Poisson(1) copies of every row (bagging)
        copies = np.random.default_rng([seed, 1]).poisson(1.0, len(codes))
        kept = copies > 0
        codes, class_index = codes[kept], class_index[kept]
        weights = weights[kept] * copies[kept]
    member_rows = Rows(
        np.asfortranarray(apply_maps(codes, maps)),  # (its passes read columns)
        class_index,
        weights,
        rows.n_classes,
        mapped_categories(rows.n_categories, maps),
    )
    return fit_selective_kdb(member_rows, member_spec(spec, seed))


def member_spec(spec: LearnerSpec, seed: int) -> LearnerSpec:
    """The selective kDB specification of the member of ``seed``: the ensemble's
    ``estimator`` options with the member's order and HDP seeds, and the ensemble's
    pseudo-count and floor (what the members read; in memory and in passes)."""
    options = spec.options.estimator.replace(order_seed=seed, hdp_seed=seed)
    return replace(spec, learner="selective-kdb", options=options)


def _with_member_options(spec: LearnerSpec, **changes) -> LearnerSpec:
    """``spec`` with ``changes`` to every member's options (``estimator``)."""
    return spec.with_options(estimator=spec.options.estimator.replace(**changes))


def member_maps(
    spec: LearnerSpec,
    seeds: NDArray[np.integer],
    n_categories: NDArray[np.intp],
    univariate: Callable[[], NDArray[np.float64]],
) -> list:
    """Every member's coarsening maps (in memory and in passes): ``"jittered"``
    equal-width levels of the fine bins (:func:`coarsening_maps`, ``n_bins`` each) or
    ``"sampled-mdl"`` supervised cuts drawn by their MDL margins
    (:func:`sampled_mdl_maps`, from the class counts of every category that
    ``univariate()`` gives, :func:`~discotree.kernels.counts.univariate_counts`), the
    member of seed ``s`` drawn by ``numpy.random.default_rng(s)``.

    Examples
    --------
    >>> from discotree.learners.options import KDependenceOptions
    >>> options = KDBEnsembleOptions(estimator=KDependenceOptions(k=2), pair_significance=0.001,
    ...                              binned=(0,), n_bins=2, coarsening="jittered")
    >>> spec = LearnerSpec("kdb-ensemble", 1.0, 0.0, options=options)
    >>> maps = member_maps(spec, np.array([0, 1]), np.array([4, 3]), lambda: None)
    >>> [m[0].tolist() for m in maps]
    [[0, 0, 1, 1], [0, 0, 1, 1]]
    """
    binned = list(spec.options.binned)
    coarsening = spec.options.coarsening
    if coarsening == "jittered":
        n_bins = spec.options.n_bins
        low, high = (n_bins, n_bins) if np.ndim(n_bins) == 0 else n_bins
        maps = []
        for s in seeds:
            rng = np.random.default_rng(s)
            size = int(low) if low == high else int(rng.integers(int(low), int(high) + 1))
            maps.append(coarsening_maps(n_categories, binned, size, rng))
        return maps
    if coarsening != "sampled-mdl":
        raise ValueError(f"coarsening must be one of {COARSENINGS}, got {coarsening!r}.")
    counts = univariate()
    offsets = np.concatenate([[0], np.cumsum(n_categories)])
    per_column = [counts[:, offsets[j] : offsets[j + 1]].T for j in binned]
    return [
        sampled_mdl_maps(n_categories, binned, per_column, np.random.default_rng(s)) for s in seeds
    ]


#: The linear member's weights ``linear_weight="auto"`` chooses among.
LINEAR_WEIGHTS = np.linspace(0.0, 1.0, 21)
#: Added to the weight of least held-out loss: the members' leave-one-out posteriors are
#: optimistic (their attribute order, parents, k and concentrations were chosen on the
#: same rows), so that choice gives the linear member too little weight. Measured on
#: ``benchmarks/tune_ensemble.py``'s folds (39 sets, 5 folds, none of the accuracy
#: benchmark's): the weight chosen with an honest 5-fold cross-validation of the whole
#: ensemble instead exceeds it by 0.17 on average (median 0.10; more on small sets);
#: the nearest step of :data:`LINEAR_WEIGHTS` below that mean.
LEAVE_ONE_OUT_OPTIMISM = 0.15


def held_out_mixture_losses(
    members: NDArray[np.float64],
    linear: NDArray[np.float64],
    class_index: NDArray[np.intp],
    weights: NDArray[np.float64],
    grid: NDArray[np.float64] = LINEAR_WEIGHTS,
) -> NDArray[np.float64]:
    """The weighted mean log-loss of ``(1 - w) members + w linear`` for every ``w`` of
    ``grid``, from the held-out probabilities of each row's class (``members`` and
    ``linear``: (rows, classes) posteriors).

    Examples
    --------
    >>> members = np.array([[0.9, 0.1], [0.4, 0.6]])
    >>> linear = np.array([[0.6, 0.4], [0.2, 0.8]])
    >>> held_out_mixture_losses(members, linear, np.array([0, 1]), np.ones(2), np.array([0, 1.0]))
    ... # doctest: +ELLIPSIS
    array([0.30809..., 0.36698...])
    """
    index = np.arange(len(class_index))
    own_members = members[index, class_index][:, None]
    own_linear = linear[index, class_index][:, None]
    mixed = (1.0 - grid[None, :]) * own_members + grid[None, :] * own_linear
    log_mixed = np.log(np.maximum(mixed, np.finfo(np.float64).tiny))  # (never log 0)
    return -(weights @ log_mixed) / float(weights.sum())


#: The gradient tolerance of the logistic fits whose held-out posteriors choose a
#: member's weight (the final fits stop at the learner's own): on the generated
#: 3,000 x 200 set of ``benchmarks/bench_ensemble_cost.py``, 1e-4 instead of 1e-6
#: changed no posterior by more than 0.007 and the held-out log-loss by 5e-5, at a
#: fifth of the cost.
HELD_OUT_TOLERANCE = 1e-4
#: Rows whose held-out posteriors choose the weight, at most (about): beyond, the rows
#: of one content fold of ``ceil(n / HELD_OUT_ROWS)``, so that the choice costs the
#: members a leave-one-out pass over those rows only and the linear member one fit.
HELD_OUT_ROWS = 10_000


def held_out_rows(codes: NDArray[np.integer]) -> NDArray[np.intp] | None:
    """The rows ``linear_weight="auto"`` scores (None: all of them): up to
    :data:`HELD_OUT_ROWS` rows, all; beyond, the rows of content fold 0 of
    ``ceil(n / HELD_OUT_ROWS)`` (:func:`~discotree.stats.folds.content_folds`:
    identical rows together).

    Examples
    --------
    >>> held_out_rows(np.zeros((10, 2), dtype=int)) is None
    True
    """
    n = len(codes)
    if n <= HELD_OUT_ROWS:
        return None
    folds = content_folds(codes, -(-n // HELD_OUT_ROWS))
    return np.flatnonzero(folds == 0)


def _held_out_linear_weight(
    rows: Rows,
    members: NDArray[np.float64],
    linear_spec: LearnerSpec,
    linear,
    held: NDArray[np.intp] | None,
) -> tuple[float, float, NDArray[np.float64]]:
    """The linear member's weight of least held-out log-loss
    (:func:`held_out_mixture_losses` over :data:`LINEAR_WEIGHTS`; ties: the smaller
    weight), that loss and the linear member's held-out posteriors: the members' mean
    leave-one-out posterior of every row (``members``) against the linear member's
    5-fold cross-validated one (each fold's fit from zeros, to
    :data:`HELD_OUT_TOLERANCE`); on more than :data:`HELD_OUT_ROWS` rows,
    of the ``held`` rows only, the linear member fitted once on the others."""
    # each fold's fit from zeros, as the final model's (a start from the model of all
    # the rows would keep what it learnt of the held-out ones), stopped at the looser
    # HELD_OUT_TOLERANCE: the posteriors only choose a weight on a grid of 0.05
    start = linear_spec.with_options(tolerance=HELD_OUT_TOLERANCE)
    if held is None:
        held_linear = np.exp(cross_validated_log_posteriors(rows, start))
        truth, weights = rows.class_index, rows.weights
    else:
        kept = np.ones(len(rows.codes), dtype=bool)
        kept[held] = False
        others = rows.take(kept)
        model = fit_logistic(others, start).model if others.weights.sum() > 0 else linear
        held_linear = np.exp(model.log_posterior(rows.codes[held]))
        truth, weights = rows.class_index[held], rows.weights[held]
    losses = held_out_mixture_losses(members, held_linear, truth, weights)
    best = best_index(-losses)
    return float(LINEAR_WEIGHTS[best]), float(losses[best]), held_linear


def _linear_member(
    rows: Rows,
    spec: LearnerSpec,
    members: NDArray[np.float64] | None,
    held: NDArray[np.intp] | None,
):
    """The linear member, its weight and, when the members' held-out posteriors of the
    rows ``held`` (None: all) are given (``members``), its own of those rows (else None);
    see :func:`fit_kdb_ensemble`."""
    requested = spec.options.linear_weight
    binned = set(spec.options.binned)
    categorical = [j for j in range(len(rows.n_categories)) if j not in binned]
    options = LogisticOptions(
        values=spec.options.values,
        C=spec.options.linear_C,
        n_pairs=linear_pair_count(spec.options.linear_pairs, len(categorical)),
        pair_features=categorical,
    )
    linear_spec = replace(spec, learner="logistic", options=options)
    linear = fit_logistic(rows, linear_spec).model
    if members is None:
        return linear, float(requested), None
    if requested != "auto":  # (the pair member's weight is chosen against it)
        return (
            linear,
            float(requested),
            _held_out_linear_weight(rows, members, linear_spec, linear, held)[2],
        )
    weight, loss, held_linear = _held_out_linear_weight(rows, members, linear_spec, linear, held)
    if len(linear.pairs):  # the pairs only where they lower the held-out loss
        single_spec = linear_spec.with_options(n_pairs=0)
        single = fit_logistic(rows, single_spec).model
        single_weight, single_loss, single_held = _held_out_linear_weight(
            rows, members, single_spec, single, held
        )
        if sign_with_ties(np.array(loss - single_loss), max(loss, single_loss)) >= 0:
            linear, weight, held_linear = single, single_weight, single_held
    return linear, min(weight + LEAVE_ONE_OUT_OPTIMISM, 1.0), held_linear


def linear_pair_count(requested: int | str, n_features: int) -> int:
    """The ``pairs`` option of the linear member: ``"all"`` is every pair of the
    features, a number is itself (checked non-negative).

    Examples
    --------
    >>> linear_pair_count("all", 4), linear_pair_count(2, 4)
    (6, 2)
    """
    if requested == "all":
        return n_features * (n_features - 1) // 2
    if isinstance(requested, str) or int(requested) < 0:
        raise ValueError(f"linear_pairs must be 'all' or a count >= 0, got {requested!r}.")
    return int(requested)


#: The levels a binned column's pairs read in the pair member: equal-width groups of its
#: fine (equal-frequency) bins, as many as the members' default ``n_bins``.
PAIR_LEVELS = 4


def pair_level_maps(
    n_categories: NDArray[np.integer], binned: list[int], levels: int = PAIR_LEVELS
) -> list[NDArray[np.intp] | None]:
    """Per column, the map of its categories to the levels its pairs read: for a binned
    column of more than ``levels`` fine bins, ``levels`` equal-width groups of them (bin
    ``b`` of ``r`` to ``b * levels // r``); None (every category its own level) for the
    others.

    Examples
    --------
    >>> [m if m is None else m.tolist() for m in pair_level_maps(np.array([3, 8]), [1], 4)]
    [None, [0, 0, 1, 1, 2, 2, 3, 3]]
    """
    maps: list[NDArray[np.intp] | None] = [None] * len(n_categories)
    for j in binned:
        r = int(n_categories[j])
        if r > levels:
            maps[j] = (np.arange(r, dtype=np.intp) * levels) // r
    return maps


def fit_pair_member(
    rows: Rows,
    spec: LearnerSpec,
    n_pairs: int | None = None,
    statistics: PairStatistics | None = None,
):
    """The pair member: the multinomial logistic model of the linear member's inputs
    (``values``, ``linear_C``) and of every pair of columns jointly, a binned column
    through :data:`PAIR_LEVELS` levels of its fine bins (:func:`pair_level_maps`), the
    pairs of largest ``I(X_i; X_j | C)`` first, fewer beyond
    :data:`~discotree.learners.logistic.PAIR_CELLS` (rows x pairs) inputs
    (:func:`~discotree.learners.logistic.ranked_pairs`): the second-order logistic model
    ("ALR2") of Zaidi, Webb, Carman, Petitjean & Cerquides (Machine Learning 104, 2016,
    Section 3), which reads the interactions of two columns whatever their order, where
    each member reads only those its attribute order and parents give it. ``n_pairs``
    (None: all) caps the pairs; ``statistics``: the rows' pair statistics at the pairs'
    levels, when already counted."""
    every = linear_pair_count("all", len(rows.n_categories))
    options = LogisticOptions(
        values=spec.options.values,
        C=spec.options.linear_C,
        n_pairs=every if n_pairs is None else min(int(n_pairs), every),
        pair_levels=pair_level_maps(rows.n_categories, list(spec.options.binned)),
        pair_significance=spec.options.pair_significance,
        pair_statistics=statistics,
    )
    return fit_logistic(rows, replace(spec, learner="logistic", options=options)).model


#: The pair member's weights ``pair_weight="auto"`` chooses among.
PAIR_WEIGHTS = np.linspace(0.0, 1.0, 21)
#: The least weight ``pair_weight="auto"`` gives the pair member: the fixed weight of
#: best mean accuracy on ``benchmarks/tune_ensemble.py``'s folds (39 sets). The held-out
#: log-loss alone, which tracks the test log-loss, chooses less on small sets (heart,
#: spectf: 0) where 0.1 is more accurate, and more on the sets where the pair member is
#: much the better model (chess: 0.86, test accuracy 99.4 % against 98.1 at 0.1).
PAIR_WEIGHT_FLOOR = 0.1
#: The seed of the two content folds (:func:`~discotree.stats.folds.content_folds`)
#: whose first half fits the pair member that ``pair_weight="auto"`` scores on the
#: second: not 0, so that the halves fall independently of the linear member's folds
#: and of the rows scored on more than :data:`HELD_OUT_ROWS` rows.
PAIR_SPLIT_SEED = 1


def held_out_pooled_losses(
    log_p: NDArray[np.float64],
    log_q: NDArray[np.float64],
    class_index: NDArray[np.intp],
    weights: NDArray[np.float64],
    grid: NDArray[np.float64],
    *,
    pooling: str,
) -> NDArray[np.float64]:
    """The weighted mean log-loss of two held-out log posteriors pooled
    (:func:`~discotree.models.ensemble.pooled_log_posterior`) with every weight of
    ``grid`` on the second.

    Examples
    --------
    >>> log_p = np.log([[0.6, 0.4], [0.6, 0.4]])
    >>> log_q = np.log([[0.9, 0.1], [0.2, 0.8]])
    >>> grid = np.array([0.0, 1.0])
    >>> held_out_pooled_losses(log_p, log_q, np.array([0, 1]), np.ones(2), grid, pooling="log")
    ... # doctest: +ELLIPSIS
    array([0.71355..., 0.16425...])
    """
    index = np.arange(len(class_index))
    losses = [
        -float(weights @ pooled_log_posterior(log_p, log_q, float(w), pooling)[index, class_index])
        for w in grid
    ]
    return np.asarray(losses) / float(weights.sum())


def _pair_member(
    rows: Rows,
    spec: LearnerSpec,
    held: NDArray[np.intp] | None,
    held_out: NDArray[np.float64] | None,
):
    """The pair member (None without), its weight and, with ``pair_weight="auto"``, the
    held-out losses of :data:`PAIR_WEIGHTS` (else None) against ``held_out``, the
    held-out posteriors of the rest of the ensemble (of the rows ``held``, None: all);
    see :func:`fit_kdb_ensemble`."""
    requested = spec.options.pair_weight
    # the members' shared pair statistics are the pair member's when no column is binned
    binned = spec.options.binned
    statistics = None if binned else spec.options.estimator.pairs
    n_pairs = pair_limit(spec.options.pairs_per_column, len(rows.n_categories))
    if requested != "auto":
        weight = float(requested)
        member = None
        if weight > 0:
            member = fit_pair_member(rows, spec, n_pairs, statistics=statistics)
        return member, weight, None
    assert held_out is not None  # (fit_kdb_ensemble computes it for "auto")
    member = fit_pair_member(rows, spec, n_pairs, statistics=statistics)
    scored = np.zeros(len(rows.codes), dtype=bool)
    scored[slice(None) if held is None else held] = True
    mixture = np.full((len(rows.codes), rows.n_classes), np.nan)
    mixture[scored] = held_out
    first = content_folds(rows.codes, 2, PAIR_SPLIT_SEED) == 0
    tested = np.flatnonzero(scored & ~first)
    if rows.weights[first].sum() <= 0 or rows.weights[tested].sum() <= 0:
        return member, PAIR_WEIGHT_FLOOR, None  # (no rows to fit it on or score it on)
    half = fit_pair_member(rows.take(first), spec, n_pairs=len(member.pairs))
    tiny = np.finfo(np.float64).tiny
    losses = held_out_pooled_losses(
        np.log(np.maximum(mixture[tested], tiny)),
        half.log_posterior(rows.codes[tested]),
        rows.class_index[tested],
        rows.weights[tested],
        PAIR_WEIGHTS,
        pooling=spec.options.pair_pooling,
    )
    weight = float(PAIR_WEIGHTS[best_index(-losses)])
    return member, max(weight, PAIR_WEIGHT_FLOOR), losses


def pair_limit(per_column: float | None, n_columns: int) -> int | None:
    """The most pairs the pair member reads: ``round(per_column * n_columns)``, at
    least 1 (None: no limit).

    Examples
    --------
    >>> pair_limit(None, 36), pair_limit(5.0, 36), pair_limit(0.01, 3)
    (None, 180, 1)
    """
    if per_column is None:
        return None
    return max(1, round(float(per_column) * n_columns))


def shared_pair_statistics(rows: Rows, spec: LearnerSpec, maps: list) -> PairStatistics | None:
    """The pair statistics every member reads, counted once, when every member reads the
    rows' own codes (no column coarsened, no bagging; the pair member too then); None
    otherwise (each member counts its own)."""
    if spec.options.bootstrap or any(m is not None for ms in maps for m in ms):
        return None
    return PairStatistics.from_codes(
        rows.codes, rows.class_index, rows.n_categories, rows.n_classes, rows.weights
    )


def fit_kdb_ensemble(rows: Rows, spec: LearnerSpec) -> FittedModel:
    """Every member from the rows, and their averaged model."""
    n_members = int(spec.options.n_estimators)
    rng = np.random.default_rng(int(spec.options.seed))
    seeds = rng.integers(0, 2**31 - 1, n_members)
    maps = member_maps(
        spec,
        seeds,
        rows.n_categories,
        lambda: univariate_counts(
            rows.codes, rows.class_index, rows.weights, rows.n_categories, rows.n_classes
        ),
    )
    held = None
    requested = spec.options.linear_weight
    chosen = requested == "auto" or spec.options.pair_weight == "auto"
    if chosen:
        if spec.options.bootstrap:
            raise ValueError(
                "linear_weight='auto' and pair_weight='auto' read the members' "
                "leave-one-out posteriors of every row, which bagged members "
                "(bootstrap=True) do not have; give both weights as numbers."
            )
        held = held_out_rows(rows.codes)
        spec = _with_member_options(spec, held_out=True if held is None else held)
    n_jobs = spec.options.n_jobs
    if n_jobs is not None and n_jobs > 0:  # more threads than cores (or members) buy nothing
        n_jobs = min(int(n_jobs), available_cores(), n_members)
    shared = shared_pair_statistics(rows, spec, maps)
    if shared is not None:
        spec = _with_member_options(spec, pairs=shared)
    fitted = Parallel(n_jobs=n_jobs, prefer="threads")(
        delayed(_member)(rows, spec, int(s), m) for s, m in zip(seeds, maps, strict=True)
    )
    weight = class_totals(rows.class_index, rows.weights, rows.n_classes)
    prior = class_log_prior(weight)
    members = None  # their mean held-out posterior of the rows ``held`` (None: all)
    if chosen:
        posteriors = [np.exp(f.attributes.pop("held_out_log_posterior_")) for f in fitted]
        members = np.mean(posteriors, axis=0)
    linear, weight_of_linear, held_linear = None, 0.0, None
    if requested == "auto" or float(requested) > 0:
        linear, weight_of_linear, held_linear = _linear_member(rows, spec, members, held)
    rest = members  # the held-out posterior of the ensemble without its pair member
    if members is not None and held_linear is not None:
        rest = (1.0 - weight_of_linear) * members + weight_of_linear * held_linear
    kept = linear if weight_of_linear > 0 else None  # (a weight of 0 predicts without it)
    pair_member, pair_weight, pair_losses = _pair_member(rows, spec, held, rest)
    model = KDBEnsembleModel(
        maps,
        [f.model for f in fitted],
        prior,
        kept,
        weight_of_linear,
        pair_member,
        pair_weight,
        spec.options.pair_pooling,
    )
    attributes = {
        "linear_weight_": weight_of_linear,
        "pair_weight_": pair_weight,
        "pair_weight_losses_": pair_losses,
        "members_k_": np.array([f.attributes["k_"] for f in fitted]),
        "members_n_attributes_": np.array([f.attributes["n_attributes_"] for f in fitted]),
        "members_order_": [f.attributes["order_"] for f in fitted],
    }
    return FittedModel(model, attributes)


register_learner(
    Learner(
        "kdb-ensemble",
        "Selective kDB members over stochastic discretisations and sampled orders, "
        "posteriors averaged (after Zhang, Petitjean & Buntine 2020), mixed with a linear "
        "member on the numeric values and a logistic member on every pair of columns.",
        "rows",
        fit_kdb_ensemble,
        partial_fit=False,
        dask=False,
        options=KDBEnsembleOptions,
    )
)
