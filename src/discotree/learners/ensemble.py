"""The learner of ensembles of selective kDB (after Zhang, Petitjean & Buntine 2020),
registered as ``"kdb-ensemble"``: ``n_estimators`` members, each a selective kDB
(:func:`~discotree.learners.k_dependence.fit_selective_kdb`) on its own stochastic
coarsening of the binned columns (:func:`~discotree.models.ensemble.coarsening_maps`)
and its own sampled attribute order, all drawn from one seed; the members are fitted
on the cores (``n_jobs``, threads: the counting and lookups release the GIL), and the
linear and pair members' logistic fits with them.

Options (:class:`~discotree.learners.options.KDBEnsembleOptions`): ``n_estimators``,
``n_bins`` (coarse bins per binned column), ``binned`` (the columns binned by the
encoder), ``seed``, ``n_jobs``, the members' own as one value (``estimator``, their
:class:`~discotree.learners.options.KDependenceOptions`; the spec's ``alpha`` and
``epsilon`` are theirs too: only the members read them), and the linear member's:
``linear_weight``, ``values`` (the value of every fine bin of the binned columns, None
for the others), ``linear_C`` and ``linear_pairs``, and the pair member's:
``pair_weight`` and ``pair_pooling``
(:mod:`~discotree.learners.ensemble_members`: the linear member reads the values and
the pairs of the categorical (not binned) columns, the pair member every pair of
columns; each weight is given or ``"auto"``, chosen on held-out posteriors).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from functools import partial
from typing import Any

import numpy as np
from joblib import Parallel, delayed
from numpy.typing import NDArray

from .. import missing_values
from ..kernels.counts import class_totals, univariate_counts
from ..models.category_maps import apply_maps, mapped_categories
from ..models.ensemble import KDBEnsembleModel, coarsening_maps, sampled_mdl_maps
from ..numerics import class_log_prior
from ..stats.folds import content_folds
from ..stats.pair_statistics import PairStatistics
from ..threads import available_cores, one_task_of_a_pool, single_threaded_blas
from .ensemble_members import (
    HELD_OUT_FOLDS,
    Fits,
    chosen_linear_member,
    chosen_pair_member,
    linear_member_fits,
    pair_member_fits,
)
from .k_dependence import fit_selective_kdb
from .options import COARSENINGS, KDBEnsembleOptions
from .registry import FittedModel, Learner, LearnerSpec, Rows, register_learner

__all__ = [
    "FINE_BINS",
    "HELD_OUT_ROWS",
    "fit_kdb_ensemble",
    "held_out_rows",
    "logistic_fit_counts",
    "member_maps",
    "member_spec",
    "pool_threads",
    "run_fits",
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
    fitted = fit_selective_kdb(member_rows, member_spec(spec, seed))
    # (its prediction tables built here, in the member's thread: not after all of them)
    missing = bool(missing_values.is_missing(codes).any())
    fitted.model.prepare_prediction(missing, member_rows.codes if missing else None)
    return fitted


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


def shared_pair_statistics(rows: Rows, spec: LearnerSpec, maps: list) -> PairStatistics | None:
    """The pair statistics every member reads, counted once, when every member reads the
    rows' own codes (no column coarsened, no bagging; the pair member too then); None
    otherwise (each member counts its own)."""
    if spec.options.bootstrap or any(m is not None for ms in maps for m in ms):
        return None
    return PairStatistics.from_codes(
        rows.codes, rows.class_index, rows.n_categories, rows.n_classes, rows.weights
    )


def pool_threads(n_jobs: int | None, n_members: int) -> int:
    """The threads of the ensemble's pool for its ``n_jobs`` option (None: one; -1: one
    per core): more than the cores or the members buy nothing.

    Examples
    --------
    >>> pool_threads(None, 10), pool_threads(1, 10), pool_threads(2, 1)
    (1, 1, 1)
    """
    cores = available_cores()
    wanted = 1 if n_jobs is None else cores if n_jobs < 0 else int(n_jobs)
    return max(1, min(wanted, cores, int(n_members)))


def logistic_fit_counts(
    linear_weight: float | str, pair_weight: float | str, linear_pairs: int, n_rows: int
) -> tuple[int, int]:
    """How many logistic fits the linear and the pair members make
    (:func:`~discotree.learners.ensemble_members.linear_member_fits`,
    :func:`~discotree.learners.ensemble_members.pair_member_fits`), at most, with
    those options (``linear_pairs``: the pairs the linear member reads) on ``n_rows``
    rows.

    Examples
    --------
    >>> logistic_fit_counts("auto", "auto", 0, 100), logistic_fit_counts("auto", 0.1, 3, 100)
    ((6, 2), (12, 1))
    >>> logistic_fit_counts(0.2, 0.1, 3, 100), logistic_fit_counts(0.0, "auto", 0, 20_000)
    ((1, 1), (0, 2))
    """
    chosen = "auto" in (linear_weight, pair_weight)
    n_linear = 0
    if linear_weight == "auto" or float(linear_weight) > 0:
        held_out = (HELD_OUT_FOLDS if n_rows <= HELD_OUT_ROWS else 1) if chosen else 0
        variants = 2 if linear_weight == "auto" and linear_pairs > 0 else 1
        n_linear = variants * (1 + held_out)
    n_pair = 2 if pair_weight == "auto" else int(float(pair_weight) > 0)
    return n_linear, n_pair


def run_fits(stages: list[Callable[[], Fits]], threads: int) -> list[Any]:
    """What the :class:`~discotree.learners.ensemble_members.Fits` of every stage
    (a callable making them) gather, in the stages' order; where a gather gives
    :class:`~discotree.learners.ensemble_members.Fits` (fits that read the results),
    what those gather in turn. On one thread, each stage is made and run after the
    previous one. On more, every stage is made first and all their fits run in one
    joblib pool of ``threads`` threads, the last stage's first (the members' many
    short fits come last and even out the threads' ends); the fits that come next then
    run in the next pool, and so on.

    No threads within threads: each fit runs as a task of a pool
    (:func:`~discotree.threads.one_task_of_a_pool`), so what it would split over the
    cores (the logistic kernels' row blocks, :func:`~discotree.threads.map_on_cores`;
    the members' chunks, :func:`~discotree.threads.in_chunks`) runs on its own thread,
    and BLAS runs on one thread while the pool does
    (:func:`~discotree.threads.single_threaded_blas`, held by the calling thread): at
    most ``threads`` threads compute, and no task waits for another (nor for the shared
    pool), so none can deadlock. Every fit gives the same result on any thread and any
    number of threads (the kernels' blocks depend on the rows only), so what they
    gather does too.

    Examples
    --------
    >>> stages = [lambda: Fits([lambda: 1, lambda: 2], sum), lambda: Fits([], len)]
    >>> run_fits(stages, 1), run_fits(stages, 2)
    ([3, 0], [3, 0])
    >>> later = [lambda: Fits([lambda: 1], lambda r: Fits([lambda: r[0] + 1], sum))]
    >>> run_fits(later, 1), run_fits(later, 2)
    ([2], [2])
    """
    if threads <= 1:  # (each stage made once the previous one has run)
        return [_run_here(build()) for build in stages]
    made: dict[int, Fits] = {i: build() for i, build in enumerate(stages)}
    gathered: list[Any] = [None] * len(stages)
    while made:
        order = sorted(made, reverse=True)
        # made tasks of a pool here: joblib takes the later ones from its workers'
        # threads, whose configuration is not the caller's
        tasks = [one_task_of_a_pool(task) for i in order for task in made[i].tasks]
        with single_threaded_blas():
            results = Parallel(n_jobs=threads, prefer="threads")(delayed(t)() for t in tasks)
        following: dict[int, Fits] = {}
        for i in order:
            n = len(made[i].tasks)
            out = made[i].gather(results[:n])
            results = results[n:]
            if isinstance(out, Fits):
                following[i] = out
            else:
                gathered[i] = out
        made = following
    return gathered


def _run_here(fits: Fits) -> Any:
    out = fits.gather([task() for task in fits.tasks])
    while isinstance(out, Fits):
        out = out.gather([task() for task in out.tasks])
    return out


def _scored_rows(rows: Rows, spec: LearnerSpec) -> tuple[LearnerSpec, NDArray[np.intp] | None]:
    """For weights chosen on held-out posteriors: the rows scored
    (:func:`held_out_rows`, None: all) and ``spec`` with members that give their
    leave-one-out posteriors of them."""
    if spec.options.bootstrap:
        raise ValueError(
            "linear_weight='auto' and pair_weight='auto' read the members' "
            "leave-one-out posteriors of every row, which bagged members "
            "(bootstrap=True) do not have; give both weights as numbers."
        )
    held = held_out_rows(rows.codes)
    return _with_member_options(spec, held_out=True if held is None else held), held


def _chosen(
    rows: Rows,
    spec: LearnerSpec,
    fitted: list[FittedModel] | None,
    linear_fits: Any,
    pair_fits: Any,
    held: NDArray[np.intp] | None,
) -> tuple[Any, float, Any, float, NDArray[np.float64] | None]:
    """The linear member (None at weight 0: the model predicts without it), its weight,
    the pair member, its weight and its held-out losses, chosen on the held-out
    posteriors of the members ``fitted`` (None: no weight chosen) of the rows ``held``
    (None: all)."""
    members = None  # their mean held-out posterior of the rows ``held`` (None: all)
    if fitted is not None:
        posteriors = [np.exp(f.attributes.pop("held_out_log_posterior_")) for f in fitted]
        members = np.mean(posteriors, axis=0)
    linear, weight_of_linear, held_linear = chosen_linear_member(
        rows, spec, linear_fits, members, held
    )
    rest = members  # the held-out posterior of the ensemble without its pair member
    if members is not None and held_linear is not None:
        rest = (1.0 - weight_of_linear) * members + weight_of_linear * held_linear
    pair = chosen_pair_member(rows, spec, pair_fits, held, rest)
    return (linear if weight_of_linear > 0 else None), weight_of_linear, *pair


def fit_kdb_ensemble(rows: Rows, spec: LearnerSpec) -> FittedModel:
    """Every member from the rows, the linear and pair members
    (:mod:`~discotree.learners.ensemble_members`), and their averaged model. With
    several threads (``n_jobs``, :func:`pool_threads`), the linear and pair members'
    logistic fits run in the same pool as the members (:func:`run_fits`); their
    weights are chosen once all have run."""
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
    chosen = spec.options.linear_weight == "auto" or spec.options.pair_weight == "auto"
    spec, held = _scored_rows(rows, spec) if chosen else (spec, None)
    shared = shared_pair_statistics(rows, spec, maps)
    if shared is not None:
        spec = _with_member_options(spec, pairs=shared)
    member_tasks = [
        partial(_member, rows, spec, int(s), m) for s, m in zip(seeds, maps, strict=True)
    ]
    fitted, linear_fits, pair_fits = run_fits(
        [
            lambda: Fits(member_tasks, list),
            lambda: linear_member_fits(rows, spec, held, chosen),
            lambda: pair_member_fits(rows, spec, held),
        ],
        pool_threads(spec.options.n_jobs, n_members),
    )
    kept, weight_of_linear, pair_member, pair_weight, pair_losses = _chosen(
        rows, spec, fitted if chosen else None, linear_fits, pair_fits, held
    )
    model = KDBEnsembleModel(
        maps,
        [f.model for f in fitted],
        class_log_prior(class_totals(rows.class_index, rows.weights, rows.n_classes)),
        kept,
        weight_of_linear,
        pair_member,
        pair_weight,
        spec.options.pair_pooling,
    )
    return FittedModel(
        model,
        {
            "linear_weight_": weight_of_linear,
            "pair_weight_": pair_weight,
            "pair_weight_losses_": pair_losses,
            "members_k_": np.array([f.attributes["k_"] for f in fitted]),
            "members_n_attributes_": np.array([f.attributes["n_attributes_"] for f in fitted]),
            "members_order_": [f.attributes["order_"] for f in fitted],
        },
    )


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
