"""The kDB ensemble's linear and pair members
(:func:`~discotree.learners.ensemble.fit_kdb_ensemble`): their logistic fits and the
choice of their weights.

The linear member is the multinomial logistic model of the values of the binned
columns and the categories of the others (``values``, ``linear_C``), with up to
``linear_pairs`` pairs of the categorical ones; its weight (``linear_weight``) is given,
or ``"auto"``: the weight of least held-out log-loss (:func:`held_out_mixture_losses`)
plus :data:`LEAVE_ONE_OUT_OPTIMISM`. The pair member (:func:`fit_pair_member`) reads
every pair of columns; its weight (``pair_weight``) is given, or ``"auto"``: the weight
of least held-out log-loss (:func:`held_out_pooled_losses`, ``pair_pooling``), at least
:data:`PAIR_WEIGHT_FLOOR`.

Each member is made in two parts. Its **fits** (:func:`linear_member_fits`,
:func:`pair_member_fits`) read only the rows and the options: the final logistic
models and the held-out posteriors that choose the weights, as tasks
(:class:`Fits`) that read nothing of each other, so that they may run in any order on
any thread, in the same pool as the selective kDB members. Its **choice**
(:func:`chosen_linear_member`, :func:`chosen_pair_member`) then reads the members'
held-out posteriors and gives the weight.

**Early stopping.** Where the weights are chosen on the rows of one held-out content
fold (beyond :data:`~discotree.learners.ensemble.HELD_OUT_ROWS` rows: 5,000 held rows
or more), the linear member's fit on the other rows and the pair member's on the first
half stop early on the held rows (:class:`~discotree.learners.logistic.HeldOutWatch`),
and the members of all the rows then run the iterations found best there: those fits
come after, in the :class:`Fits` the first ones gather into. On binarised MNIST this
takes the logistic fits from about 137 to 25 s of a 230 s fit (one thread). Not below:
there the fits are cheap, and with early stopping on each of the 5 folds (the final fit
at the median of their best iterations) the 39 sets of ``benchmarks/bench_accuracy.py``
lost 0.17 points of mean accuracy (few held rows give a noisy best iteration:
parkinsons -2.6, sonar -2.4, heart +1.9) for no gain in the worst fit's ratio to the
forest's.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import partial
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..docstrings import fill_doc
from ..models.ensemble import pooled_log_posterior
from ..models.logistic import LogisticModel
from ..numerics import best_index, sign_with_ties
from ..stats.folds import content_folds
from ..stats.pair_statistics import PairStatistics
from .logistic import fit_logistic, fold_fits, joined_folds, model_pairs, pair_count
from .options import LogisticOptions
from .registry import FittedModel, LearnerSpec, Rows

__all__ = [
    "HELD_OUT_FOLDS",
    "HELD_OUT_TOLERANCE",
    "LEAVE_ONE_OUT_OPTIMISM",
    "LINEAR_WEIGHTS",
    "PAIR_LEVELS",
    "PAIR_SPLIT_SEED",
    "PAIR_WEIGHTS",
    "PAIR_WEIGHT_FLOOR",
    "Fits",
    "chosen_linear_member",
    "chosen_pair_member",
    "fit_pair_member",
    "held_out_mixture_losses",
    "held_out_pooled_losses",
    "linear_member_fits",
    "linear_pair_count",
    "pair_level_maps",
    "pair_limit",
    "pair_member_fits",
]


@dataclass(frozen=True)
class Fits:
    """Fits that read nothing of each other (``tasks``: callables of no argument, to
    run in any order, on any thread) and what makes their results (a list, in the
    tasks' order) what they fit (``gather``), or the :class:`Fits` that come next
    (fits that read theirs: the final logistic fits run as many iterations as the
    held-out fits found best; see
    :func:`~discotree.learners.ensemble.run_fits`).

    Examples
    --------
    >>> fits = Fits([lambda: 1, lambda: 2], sum)
    >>> fits.gather([task() for task in fits.tasks])
    3
    """

    tasks: Sequence[Callable[[], Any]]
    gather: Callable[[list[Any]], Any]


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
#: The folds of the linear member's cross-validated posteriors (on all the rows).
HELD_OUT_FOLDS = 5


def _linear_spec(rows: Rows, spec: LearnerSpec) -> LearnerSpec:
    """The logistic specification of the linear member: the values of the binned
    columns, ``linear_C``, and up to ``linear_pairs`` pairs of the categorical ones."""
    binned = set(spec.options.binned)
    categorical = [j for j in range(len(rows.n_categories)) if j not in binned]
    options = LogisticOptions(
        values=spec.options.values,
        C=spec.options.linear_C,
        n_pairs=linear_pair_count(spec.options.linear_pairs, len(categorical)),
        pair_features=categorical,
    )
    return replace(spec, learner="logistic", options=options)


@fill_doc
def linear_member_fits(
    rows: Rows, spec: LearnerSpec, held: NDArray[np.intp] | None, chosen: bool
) -> Fits:
    """The linear member's fits (none with ``linear_weight=0``), gathered into a list
    of (model, held-out posteriors) pairs: the model of the options, and with
    ``linear_weight="auto"``, where that model has pairs, the model without them; and
    with ``chosen`` (a weight chosen on held-out posteriors) each model's held-out
    posteriors of the rows ``held`` (None: all), else None: every row's from a
    cross-validation of :data:`HELD_OUT_FOLDS` folds
    (:func:`~discotree.learners.logistic.fold_fits`) or, of the ``held`` rows, from one
    fit on the others (the model's own where they have no weight), each fit from zeros
    (as the final model's: a start from the model of all the rows would keep what it
    learnt of the held-out ones) to the looser :data:`HELD_OUT_TOLERANCE` (the
    posteriors only choose a weight on a grid of 0.05). With ``held`` rows (beyond
    :data:`~discotree.learners.ensemble.HELD_OUT_ROWS` rows) the fit on the others
    stops early on them (:class:`~discotree.learners.logistic.HeldOutWatch`) and the
    model of all the rows then runs the iterations it found best
    (:attr:`~discotree.learners.logistic.HeldOutWatch.cap`): the final fits come next,
    in the :class:`Fits` its result gathers into (see the module: early stopping).

    Examples
    --------
    >>> from discotree.learners.options import KDBEnsembleOptions, KDependenceOptions
    >>> options = KDBEnsembleOptions(estimator=KDependenceOptions(k=1), pair_significance=None)
    {example_logistic_rows}
    >>> spec = LearnerSpec("kdb-ensemble", 1.0, 0.0, options=options)
    >>> fits = linear_member_fits(rows, spec, None, chosen=True)
    >>> [(model.pairs.shape, held_out.shape)
    ...  for model, held_out in fits.gather([task() for task in fits.tasks])]
    [((0, 2), (200, 2))]
    >>> fits = linear_member_fits(rows, spec, np.arange(50), chosen=True)  # (early stopping)
    >>> finals = fits.gather([task() for task in fits.tasks])
    >>> [held_out.shape for _, held_out in finals.gather([task() for task in finals.tasks])]
    [(50, 2)]
    """
    requested = spec.options.linear_weight
    if requested != "auto" and float(requested) <= 0:
        return Fits([], lambda results: [])
    linear_spec = _linear_spec(rows, spec)
    n_pairs = pair_count(
        linear_spec.options.n_pairs, len(linear_spec.options.pair_features), len(rows.codes)
    )
    variants = [linear_spec]
    if requested == "auto" and n_pairs > 0:  # (ranked_pairs takes them all: no test)
        variants.append(linear_spec.with_options(n_pairs=0))
    if not chosen:
        return Fits(
            [partial(_final_model, rows, variant) for variant in variants],
            lambda models: [(model, None) for model in models],
        )
    parts_of = [_held_out_fits(rows, variant, held) for variant in variants]
    sizes = [len(parts) for parts in parts_of]

    def with_posteriors(models: list[LogisticModel], parts_of: list[list[Any]]) -> list:
        return [
            (model, _held_out_posteriors(rows, held, model, parts))
            for model, parts in zip(models, parts_of, strict=True)
        ]

    if held is None:  # (no early stopping: the final fits run with their held-out ones)
        finals = [partial(_final_model, rows, variant) for variant in variants]
        n = len(finals)
        return Fits(
            [*finals, *(task for parts in parts_of for task in parts)],
            lambda results: with_posteriors(results[:n], _split(results[n:], sizes)),
        )

    def then(results: list[Any]) -> Fits:
        parts_of = _split(results, sizes)
        finals = [
            partial(_final_model, rows, variant.with_options(lbfgs_iterations=_cap(parts)))
            for variant, parts in zip(variants, parts_of, strict=True)
        ]
        return Fits(finals, lambda models: with_posteriors(models, parts_of))

    return Fits([task for parts in parts_of for task in parts], then)


def _split(results: list[Any], sizes: list[int]) -> list[list[Any]]:
    """``results`` cut into consecutive lists of ``sizes``."""
    out, at = [], 0
    for size in sizes:
        out.append(results[at : at + size])
        at += size
    return out


def _cap(parts: list[tuple[Any, ...]]) -> int | None:
    """The final fit's iterations at most: its held-out fit's cap (none: no cap)."""
    return parts[0][2] if parts else None


def _final_model(rows: Rows, spec: LearnerSpec) -> LogisticModel:
    return fit_logistic(rows, spec).model


def _held_out_fits(
    rows: Rows, spec: LearnerSpec, held: NDArray[np.intp] | None
) -> list[Callable[[], Any]]:
    """The fits whose held-out posteriors choose the linear member's weight (see
    :func:`linear_member_fits`): each gives the rows' mask and their log posteriors,
    and the fit on the rows not ``held``, watched on those, its iteration cap too."""
    start = spec.with_options(tolerance=HELD_OUT_TOLERANCE)
    if held is None:
        return list(fold_fits(rows, start, HELD_OUT_FOLDS))
    kept = np.ones(len(rows.codes), dtype=bool)
    kept[held] = False
    others = rows.take(kept)
    if others.weights.sum() <= 0:
        return []  # (the posteriors of the model of all the rows)
    return [partial(_watched_fit, others, start, rows.take(~kept), ~kept)]


def _watched_fit(
    others: Rows, spec: LearnerSpec, held_rows: Rows, mask: NDArray[np.bool_]
) -> tuple[NDArray[np.bool_], NDArray[np.float64], int | None]:
    fitted = fit_logistic(others, spec.with_options(stopping_rows=held_rows))
    cap = fitted.attributes["iteration_cap_"]
    return mask, fitted.model.log_posterior(held_rows.codes), cap


def _held_out_posteriors(
    rows: Rows, held: NDArray[np.intp] | None, model: LogisticModel, parts: list[Any]
) -> NDArray[np.float64]:
    """The held-out posteriors of the results of :func:`_held_out_fits`."""
    if held is None:
        return np.exp(joined_folds(parts, len(rows.codes), rows.n_classes))
    return np.exp(parts[0][1] if parts else model.log_posterior(rows.codes[held]))


def _least_loss(
    rows: Rows,
    members: NDArray[np.float64],
    held_linear: NDArray[np.float64],
    held: NDArray[np.intp] | None,
) -> tuple[float, float]:
    """The linear member's weight of least held-out log-loss
    (:func:`held_out_mixture_losses` over :data:`LINEAR_WEIGHTS`; ties: the smaller
    weight) and that loss: the members' mean leave-one-out posterior (``members``) of
    the rows ``held`` (None: all) against the linear member's (``held_linear``)."""
    truth, weights = rows.class_index, rows.weights
    if held is not None:
        truth, weights = truth[held], weights[held]
    losses = held_out_mixture_losses(members, held_linear, truth, weights)
    best = best_index(-losses)
    return float(LINEAR_WEIGHTS[best]), float(losses[best])


def chosen_linear_member(
    rows: Rows,
    spec: LearnerSpec,
    fitted: list[tuple[LogisticModel, Any]],
    members: NDArray[np.float64] | None,
    held: NDArray[np.intp] | None,
) -> tuple[LogisticModel | None, float, NDArray[np.float64] | None]:
    """The linear member (None without), its weight and, when the members' held-out
    posteriors of the rows ``held`` (None: all) are given (``members``), its own of
    those rows (else None), from what :func:`linear_member_fits` gathered
    (``fitted``): with ``linear_weight="auto"``, the weight of least held-out loss
    plus :data:`LEAVE_ONE_OUT_OPTIMISM`, and the model without pairs where it has no
    greater loss than the one with them; see
    :func:`~discotree.learners.ensemble.fit_kdb_ensemble`."""
    if not fitted:
        return None, 0.0, None
    requested = spec.options.linear_weight
    linear, held_linear = fitted[0]
    if members is None:
        return linear, float(requested), None
    if requested != "auto":  # (the pair member's weight is chosen against it)
        return linear, float(requested), held_linear
    weight, loss = _least_loss(rows, members, held_linear, held)
    if len(fitted) > 1 and len(linear.pairs):  # the pairs only where they lower the loss
        single, single_held = fitted[1]
        single_weight, single_loss = _least_loss(rows, members, single_held, held)
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
) -> LogisticModel:
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
    return _final_model(rows, _pair_spec(rows, spec, n_pairs, statistics))


def _pair_spec(
    rows: Rows, spec: LearnerSpec, n_pairs: int | None, statistics: PairStatistics | None
) -> LearnerSpec:
    """The logistic specification of :func:`fit_pair_member`."""
    every = linear_pair_count("all", len(rows.n_categories))
    options = LogisticOptions(
        values=spec.options.values,
        C=spec.options.linear_C,
        n_pairs=every if n_pairs is None else min(int(n_pairs), every),
        pair_levels=pair_level_maps(rows.n_categories, list(spec.options.binned)),
        pair_significance=spec.options.pair_significance,
        pair_statistics=statistics,
    )
    return replace(spec, learner="logistic", options=options)


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
#: and of the rows scored on more than
#: :data:`~discotree.learners.ensemble.HELD_OUT_ROWS` rows.
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


@fill_doc
def pair_member_fits(rows: Rows, spec: LearnerSpec, held: NDArray[np.intp] | None) -> Fits:
    """The pair member's fits, gathered into (member, half, tested): the member (None
    with ``pair_weight=0``, :func:`fit_pair_member`); with ``pair_weight="auto"``, the
    member fitted on the first half of the rows (two content folds of seed
    :data:`PAIR_SPLIT_SEED`; as many pairs at most as the member has, ranked on that
    half: the member's own ranking is done here, before any fit) and the rows that
    score it (those of the second half among the rows ``held``, None: all); those two
    None with a weight given or where either half has no weight. With ``held`` rows
    (beyond :data:`~discotree.learners.ensemble.HELD_OUT_ROWS` rows) the half's fit
    stops early on the rows that score it
    (:class:`~discotree.learners.logistic.HeldOutWatch`), and the member's, which comes
    next (the :class:`Fits` the half's result gathers into), runs the iterations it
    found best (see the module: early stopping). See :func:`chosen_pair_member`.

    Examples
    --------
    >>> from discotree.learners.options import KDBEnsembleOptions, KDependenceOptions
    >>> options = KDBEnsembleOptions(estimator=KDependenceOptions(k=1), pair_significance=None)
    {example_logistic_rows}
    >>> spec = LearnerSpec("kdb-ensemble", 1.0, 0.0, options=options)
    >>> fits = pair_member_fits(rows, spec, None)
    >>> member, half, tested = fits.gather([task() for task in fits.tasks])
    >>> len(fits.tasks), member.pairs.tolist(), half.pairs.tolist(), 0 < len(tested) < 200
    (2, [[0, 1]], [[0, 1]], True)
    >>> fits = pair_member_fits(rows, spec, np.arange(100))  # (early stopping)
    >>> final = fits.gather([task() for task in fits.tasks])
    >>> member, half, tested = final.gather([task() for task in final.tasks])
    >>> len(fits.tasks), len(final.tasks), member.pairs.tolist(), bool(np.all(tested < 100))
    (1, 1, [[0, 1]], True)
    """
    requested = spec.options.pair_weight
    # the members' shared pair statistics are the pair member's when no column is binned
    statistics = None if spec.options.binned else spec.options.estimator.pairs
    n_pairs = pair_limit(spec.options.pairs_per_column, len(rows.n_categories))
    if requested != "auto":
        if float(requested) <= 0:
            return Fits([], lambda results: (None, None, None))
        member = partial(fit_pair_member, rows, spec, n_pairs, statistics=statistics)
        return Fits([member], lambda results: (results[0], None, None))
    whole_spec = _pair_spec(rows, spec, n_pairs, statistics)
    pairs = model_pairs(rows, whole_spec)  # (ranked here: the half fit reads their number)
    whole_spec = whole_spec.with_options(pairs=pairs)
    scored = np.zeros(len(rows.codes), dtype=bool)
    scored[slice(None) if held is None else held] = True
    first = content_folds(rows.codes, 2, PAIR_SPLIT_SEED) == 0
    tested = np.flatnonzero(scored & ~first)
    if rows.weights[first].sum() <= 0 or rows.weights[tested].sum() <= 0:
        member = partial(_final_model, rows, whole_spec)
        return Fits([member], lambda results: (results[0], None, None))  # (nothing to score)
    first_half = rows.take(first)
    half_spec = _pair_spec(first_half, spec, len(pairs), None)
    if held is None:  # (no early stopping: the member's fit runs with the half's)
        half = partial(fit_logistic, first_half, half_spec)
        member = partial(_final_model, rows, whole_spec)
        return Fits([member, half], lambda results: (results[0], results[1].model, tested))
    half = partial(
        fit_logistic, first_half, half_spec.with_options(stopping_rows=rows.take(tested))
    )

    def then(results: list[FittedModel]) -> Fits:
        cap = results[0].attributes["iteration_cap_"]
        member = partial(_final_model, rows, whole_spec.with_options(lbfgs_iterations=cap))
        return Fits([member], lambda models: (models[0], results[0].model, tested))

    return Fits([half], then)


def chosen_pair_member(
    rows: Rows,
    spec: LearnerSpec,
    fitted: tuple[LogisticModel | None, LogisticModel | None, NDArray[np.intp] | None],
    held: NDArray[np.intp] | None,
    held_out: NDArray[np.float64] | None,
) -> tuple[LogisticModel | None, float, NDArray[np.float64] | None]:
    """The pair member (None without), its weight and, with ``pair_weight="auto"``, the
    held-out losses of :data:`PAIR_WEIGHTS` (else None), from what
    :func:`pair_member_fits` gathered (``fitted``): the half's posteriors of the second
    half's rows against ``held_out``, the held-out posteriors of the rest of the
    ensemble (of the rows ``held``, None: all); the weight of least loss, at least
    :data:`PAIR_WEIGHT_FLOOR` (the floor where a half has no weight); see
    :func:`~discotree.learners.ensemble.fit_kdb_ensemble`."""
    member, half, tested = fitted
    requested = spec.options.pair_weight
    if requested != "auto":
        return member, float(requested), None
    if half is None or tested is None:
        return member, PAIR_WEIGHT_FLOOR, None  # (no rows to fit it on or score it on)
    assert held_out is not None  # (fit_kdb_ensemble computes it for "auto")
    mixture = np.full((len(rows.codes), rows.n_classes), np.nan)
    mixture[slice(None) if held is None else held] = held_out
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
