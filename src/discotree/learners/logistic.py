"""The learner of naive Bayes with conditional-likelihood parameters and Gaussian
numeric leaves (:class:`~discotree.models.logistic.LogisticModel`), registered as
``"logistic"``: the multinomial logistic model fitted by L-BFGS.

It minimises the weighted mean conditional log-loss plus ``||W||^2 / (2 C N)`` (``N``
the total weight; the intercepts are not penalised), the objective of scikit-learn's
``LogisticRegression(C=C)`` divided by ``N``. Options: ``values`` (per feature, the raw
value each category stands for, or None for one-hot), ``C`` (default 1.0), ``start``
(a :class:`~discotree.models.logistic.LogisticModel` of the same inputs whose
parameters L-BFGS starts from; zeros without it; its pairs are kept), ``n_pairs`` (the
number of feature pairs with joint inputs, at most; default 0: :func:`ranked_pairs`),
``pairs`` (those pairs, when already ranked: an array of pairs),
``pair_levels`` (per feature, a map of its categories to the levels its pairs read,
or None), ``pair_features`` (the features pairs may join; None: all) and
``pair_significance`` (None, or the level of the test a pair must pass:
:func:`ranked_pairs`). L-BFGS stops at :data:`GRADIENT_TOLERANCE`, or at
:data:`PAIR_GRADIENT_TOLERANCE` for a model with pairs, or at the ``tolerance`` option
when given. Each feature with values is standardised by the weighted mean and standard
deviation of its values over the rows where it is present. The objective and its
gradient come from the rows' input slots, no design matrix
(:func:`discotree.kernels.logistic.logistic_loss_gradient`), the slots grouped once a
fit where groups of several slots pay
(:func:`discotree.kernels.slot_groups.grouped_loss_gradient`).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import numpy as np
from numpy.typing import NDArray
from scipy.optimize import minimize
from scipy.stats import chi2

from .. import missing_values
from ..docstrings import fill_doc
from ..kernels.logistic import MAX_BLOCKS, logistic_loss_gradient
from ..kernels.slot_groups import group_slots, grouped_loss_gradient
from ..missing_values import MissingValueRule
from ..models.category_maps import apply_maps, mapped_categories
from ..models.logistic import NO_PAIRS, LogisticModel, input_offsets, input_slots
from ..numerics import CONSTANT_RTOL, ROOT_RTOL, SCORE_TIE_RTOL, order_with_ties
from ..stats.folds import content_folds
from ..stats.pair_statistics import PairStatistics
from ..threads import single_threaded_blas
from .options import LogisticOptions
from .registry import FittedModel, Learner, LearnerSpec, Rows, register_learner

__all__ = [
    "EARLY_STOPPING_PATIENCE",
    "HeldOutWatch",
    "cross_validated_log_posteriors",
    "fit_logistic",
    "fold_fits",
    "joined_folds",
    "largest_pair_cells",
    "lbfgs_options",
    "logistic_fit_bytes",
    "logistic_parameter_bytes",
    "model_pairs",
    "pair_count",
    "ranked_pairs",
    "standardised_values",
]

#: L-BFGS stops when every gradient component is below this (the objective is a mean),
#: or when a step lowers it by less than ``VALUE_TOLERANCE`` relative to its value.
GRADIENT_TOLERANCE = 1e-6
VALUE_TOLERANCE = ROOT_RTOL
#: The gradient tolerance of a model with pairs: scikit-learn's default ``tol`` for
#: L-BFGS. Its many more weights take L-BFGS many more iterations to the tighter one
#: for no gain on held-out rows (letter, one tuning fold: 362 iterations and 41 s to
#: 91.28 % at 1e-6, 86 and 10 s to 91.18 % at 1e-4).
PAIR_GRADIENT_TOLERANCE = 1e-4
#: L-BFGS iterations at most.
MAX_ITER = 1000
#: The corrections L-BFGS keeps (scipy's ``maxcor``, whose default is 10). The pairs'
#: one-hot inputs are collinear with the single columns' (only the penalty tells them
#: apart) and the inputs' frequencies differ by orders of magnitude, so the curvature
#: spans many scales, and a longer memory reaches the same tolerance in far fewer steps.
#: Measured (one core, the first of 5 folds; 10 -> 40): satimage's pair member 302 ->
#: 124 objective evaluations (8.2 -> 3.1 s), its linear member 474 -> 266, optdigits'
#: linear member 508 -> 358, the generated wide set's 90 -> 45; 60 and 100 take about
#: as many as 40. (Scaling each input by its curvature instead, a Jacobi
#: preconditioning, took more steps on satimage: 302 -> 498.)
LBFGS_HISTORY = 40


def lbfgs_options(gtol: float, max_iter: int | None = None) -> dict[str, float]:
    """scipy's L-BFGS-B options of the logistic fits (in memory and in passes): at
    most ``max_iter`` iterations (None: :data:`MAX_ITER`), :data:`LBFGS_HISTORY`
    corrections, the gradient tolerance ``gtol`` and :data:`VALUE_TOLERANCE`.

    Examples
    --------
    >>> lbfgs_options(1e-4)["maxcor"], lbfgs_options(1e-4, 70)["maxiter"]
    (40, 70)
    """
    return {
        "maxiter": MAX_ITER if max_iter is None else int(max_iter),
        "maxcor": LBFGS_HISTORY,
        "gtol": float(gtol),
        "ftol": VALUE_TOLERANCE,
    }


#: A fit watched on held-out rows (early stopping) stops once their log-loss has not
#: fallen for this many L-BFGS iterations, and keeps the iterate where it was least
#: (:class:`HeldOutWatch`). With C = 1 the linear member of binarised MNIST's 60,000
#: rows overfits long before it converges: its held-out log-loss is least at iteration
#: 70 (0.308) and 0.333 at iteration 543, where the fit stops at its tolerance; the
#: loss wanders by a few thousandths between iterations, hence a patience of 20
#: rather than a few.
EARLY_STOPPING_PATIENCE = 20


class HeldOutWatch:
    """The held-out log-loss of each L-BFGS iterate (:meth:`record`), the iterate where
    it was least (``best_theta``, iteration ``best_iteration``, counted from 1) and
    whether to stop: when it has not fallen for :data:`EARLY_STOPPING_PATIENCE`
    iterations. A fall counts when it exceeds :data:`~discotree.numerics.SCORE_TIE_RTOL`
    of the loss (the package's tie rule), so that sums in another order stop at the
    same iterate.

    Examples
    --------
    >>> watch = HeldOutWatch(patience=2)
    >>> [watch.record(np.array([float(i)]), loss) for i, loss in enumerate([3, 2, 2.5, 2.4])]
    [False, False, False, True]
    >>> watch.best_iteration, watch.best_theta.tolist(), watch.cap
    (2, [1.0], 2)
    """

    def __init__(self, patience: int = EARLY_STOPPING_PATIENCE) -> None:
        self.patience = int(patience)
        self.best_loss = np.inf
        self.best_iteration = 0
        self.best_theta: NDArray[np.float64] | None = None
        self.iteration = 0

    def record(self, theta: NDArray[np.float64], loss: float) -> bool:
        """Record the next iterate ``theta`` and its held-out ``loss``; True: stop."""
        self.iteration += 1
        if loss < self.best_loss - SCORE_TIE_RTOL * abs(loss):
            self.best_loss = float(loss)
            self.best_iteration = self.iteration
            self.best_theta = np.array(theta, dtype=np.float64, copy=True)
        return self.iteration - self.best_iteration >= self.patience

    @property
    def cap(self) -> int | None:
        """The iterations a fit of all the rows runs at most: the best iteration when the
        held-out loss rose after it, else None (no cap: it was still falling)."""
        if 0 < self.best_iteration < self.iteration:
            return self.best_iteration
        return None


#: The pairs' inputs of all rows together, at most (rows x pairs, one input each): the
#: ``pairs`` option is lowered to ``PAIR_CELLS // rows`` beyond (on MNIST's 60,000 rows,
#: 333 of its 306,936 pairs), so that a fit costs about as much as one on 20 million
#: one-hot cells.
PAIR_CELLS = 20_000_000


def standardised_values(
    codes: NDArray[np.integer],
    weights: NDArray[np.float64],
    values: list[NDArray[np.float64] | None],
) -> list[NDArray[np.float64] | None]:
    """Every value table centred and scaled by the weighted mean and standard deviation
    of its values over the rows where the feature is present (scale 1 when they do
    not vary).

    Examples
    --------
    >>> codes = np.array([[0], [1], [1], [-1]])
    >>> standardised_values(codes, np.ones(4), [np.array([0.0, 3.0])])[0].round(3).tolist()
    [-1.414, 0.707]
    """
    out: list[NDArray[np.float64] | None] = []
    for j, table in enumerate(values):
        if table is None:
            out.append(None)
            continue
        table = np.asarray(table, dtype=np.float64)
        code = np.asarray(codes[:, j], dtype=np.intp)
        present = missing_values.observed(code)
        w = weights[present]
        if w.sum() <= 0:
            out.append(np.zeros_like(table))
            continue
        seen = table[code[present]]
        mean = float(np.average(seen, weights=w))
        sd = float(np.sqrt(np.average((seen - mean) ** 2, weights=w)))
        out.append((table - mean) / (sd if sd > CONSTANT_RTOL * max(1.0, abs(mean)) else 1.0))
    return out


def logistic_fit_bytes(n_rows: int, n_features: int, n_classes: int) -> float:
    """Peak memory of :func:`fit_logistic`, in bytes, at most: the sparse inputs (a
    float64 value and an int32 column index per cell, twice while missing cells are
    left out) and four (rows, classes) work arrays.

    Examples
    --------
    >>> round(logistic_fit_bytes(60_000, 784, 10) / 1e9, 2)
    1.15
    """
    cells = float(n_rows) * float(n_features)
    return 24.0 * cells + 4 * 8.0 * float(n_rows) * n_classes


#: The grouped slots' tables and code sums (:mod:`discotree.kernels.slot_groups`), in
#: parameters' sizes: at most 16/3 codes per input (six binary slots: 12 inputs, 64
#: codes), one table and one sum per block of rows.
GROUPED_COPIES = (1 + MAX_BLOCKS) * 16 / 3
#: float64 vectors of the parameters' size alive while L-BFGS runs: its history (two
#: per correction, :data:`LBFGS_HISTORY`) and work vectors (5), the objective's point,
#: gradient and their copies, a gradient per block of rows and the grouped slots'
#: tables (:data:`GROUPED_COPIES`).
PARAMETER_COPIES = 2 * LBFGS_HISTORY + 12 + MAX_BLOCKS + GROUPED_COPIES


def logistic_parameter_bytes(n_inputs: float, n_classes: int) -> float:
    """Peak memory of the parameters of :func:`fit_logistic`, in bytes:
    :data:`PARAMETER_COPIES` float64 vectors of ``(n_inputs + 1) x n_classes`` (a
    weight per input and class, and the intercepts); what grows with the pairs' joint
    cells, where :func:`logistic_fit_bytes` grows with the rows.

    Examples
    --------
    >>> logistic_parameter_bytes(99, 2) / 2**10
    231.25
    """
    return 8.0 * PARAMETER_COPIES * (float(n_inputs) + 1.0) * n_classes


def largest_pair_cells(levels: NDArray[np.number], n_pairs: int) -> float:
    """At most how many joint cells (inputs) ``n_pairs`` pairs of columns with
    ``levels`` levels each have: exactly the sum over all pairs when ``n_pairs`` takes
    them all, else at most ``n_pairs`` times the product of the two largest.

    Examples
    --------
    >>> largest_pair_cells(np.array([2, 3, 4]), 3), largest_pair_cells(np.array([2, 3, 4]), 1)
    (26.0, 12.0)
    """
    r = np.sort(np.asarray(levels, dtype=np.float64))[::-1]
    n_pairs = min(int(n_pairs), len(r) * (len(r) - 1) // 2)
    if n_pairs <= 0:
        return 0.0
    every = (r.sum() ** 2 - float(np.sum(r * r))) / 2
    return float(min(every, n_pairs * r[0] * r[1]))


def pair_count(n_pairs: int, n_features: int, n_rows: int) -> int:
    """The pairs :func:`ranked_pairs` takes (before its test, when it has one) of
    ``n_features`` features and ``n_rows`` rows when asked for ``n_pairs``: as many,
    at most every pair and ``PAIR_CELLS // rows``.

    Examples
    --------
    >>> pair_count(5, 4, 100), pair_count(99, 4, 100), pair_count(5, 4, PAIR_CELLS + 1)
    (5, 6, 0)
    """
    every = n_features * (n_features - 1) // 2
    return max(0, min(int(n_pairs), every, PAIR_CELLS // max(int(n_rows), 1)))


def ranked_pairs(
    rows: Rows,
    pair_levels: list[NDArray[np.intp] | None],
    n_pairs: int,
    *,
    features: list[int] | None = None,
    significance: float | None = None,
    statistics: PairStatistics | None = None,
) -> NDArray[np.intp]:
    """The ``n_pairs`` feature pairs ``(i, j)``, ``i < j``, both among ``features``
    (None: all of them), of largest conditional mutual
    information ``I(X_i; X_j | C)`` between their levels (the weighted counts of the
    rows; :meth:`~discotree.stats.pair_statistics.PairStatistics.conditional_mutual_information`),
    lowered to ``PAIR_CELLS // rows``; ties go to the first pair in ``(i, j)`` order
    (:func:`~discotree.numerics.order_with_ties`). Given a ``significance`` level, only
    the pairs whose G statistic ``2 N_ij I(X_i; X_j | C)`` (``N_ij`` the weight of the
    rows observing both) exceeds the chi-squared quantile of ``(r_i - 1)(r_j - 1) C``
    degrees of freedom at that level: the pairs the counts show to depend on each other
    given the class, which a model of single features cannot represent. ``statistics``:
    the rows' :class:`~discotree.stats.pair_statistics.PairStatistics` at the pairs'
    levels, of every feature, when already counted. The pairs that
    tell most about each other given the class are those whose joint cells a model of
    single features misses most (Friedman, Geiger & Goldszmidt 1997, Section 4.1: TAN's edges by the
    same measure).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> codes = rng.integers(0, 2, size=(400, 3))
    >>> y = codes[:, 0] ^ codes[:, 1]  # the class is their exclusive or
    >>> rows = Rows(codes, y, np.ones(400), 2, np.array([2, 2, 2]))
    >>> ranked_pairs(rows, [], 1).tolist()
    [[0, 1]]
    >>> ranked_pairs(rows, [], 3, features=[1, 2]).tolist()
    [[1, 2]]
    """
    n_features = len(rows.n_categories)
    used = np.arange(n_features) if features is None else np.unique(np.asarray(features, int))
    first, second = np.triu_indices(len(used), 1)  # positions in ``used``, (i, j) order
    n_pairs = pair_count(n_pairs, len(used), len(rows.codes))
    if n_pairs <= 0:
        return NO_PAIRS.copy()
    maps = pair_levels or [None] * n_features
    levels = mapped_categories(rows.n_categories, maps)[used]
    codes = apply_maps(rows.codes, maps)[:, used]
    if statistics is None:
        stats = PairStatistics.from_codes(
            codes, rows.class_index, levels, rows.n_classes, rows.weights
        )
        information = stats.conditional_mutual_information()[first, second]
    else:  # of every feature: the used ones' rows and columns
        information = statistics.conditional_mutual_information()[np.ix_(used, used)]
        information = information[first, second]
    taken = np.asarray(order_with_ties(information, n_pairs), dtype=np.intp)
    if significance is not None:
        present = missing_values.observed(codes).astype(np.float64)
        observed = (present.T * rows.weights) @ present  # weight observing both
        freedom = (levels[first] - 1) * (levels[second] - 1) * rows.n_classes
        statistic = 2.0 * observed[first, second] * information
        threshold = chi2.isf(float(significance), np.maximum(freedom, 1))
        taken = taken[(statistic[taken] > threshold[taken]) & (freedom[taken] > 0)]
    first, second = used[first], used[second]
    return np.stack([first[taken], second[taken]], axis=1).astype(np.intp)


@fill_doc
def model_pairs(rows: Rows, spec: LearnerSpec) -> NDArray[np.intp]:
    """The pairs :func:`fit_logistic` gives joint inputs: those of the ``start`` model,
    else the ``pairs`` option, else :func:`ranked_pairs` by the options (``n_pairs``,
    ``pair_levels``, ``pair_features``, ``pair_significance``, ``pair_statistics``).

    Examples
    --------
    {example_logistic_rows}
    >>> spec = LearnerSpec("logistic", 1.0, 0.0, options=LogisticOptions(n_pairs=1))
    >>> model_pairs(rows, spec).tolist()
    [[0, 1]]
    """
    if spec.options.start is not None:  # the same inputs as the model it starts from
        return spec.options.start.pairs
    if spec.options.pairs is not None:  # ranked already
        return np.asarray(spec.options.pairs, dtype=np.intp).reshape(-1, 2)
    return ranked_pairs(
        rows,
        list(spec.options.pair_levels or []),
        int(spec.options.n_pairs),
        features=spec.options.pair_features,
        significance=spec.options.pair_significance,
        statistics=spec.options.pair_statistics,
    )


def _minimize(
    objective,
    theta0: NDArray[np.float64],
    spec: LearnerSpec,
    with_pairs: bool,
    watched: Callable[[NDArray[np.float64]], bool] | None = None,
):
    """L-BFGS from ``theta0`` to the learner's tolerances (see the module), at most
    the ``lbfgs_iterations`` option's iterations; ``watched(theta)`` after each iteration, when
    given, stops it by returning True."""

    def callback(intermediate_result) -> None:
        if watched is not None and watched(intermediate_result.x):
            raise StopIteration

    return minimize(
        objective,
        theta0,
        jac=True,
        method="L-BFGS-B",
        callback=callback,
        options=lbfgs_options(
            spec.options.tolerance
            or (PAIR_GRADIENT_TOLERANCE if with_pairs else GRADIENT_TOLERANCE),
            spec.options.lbfgs_iterations,
        ),
    )


def _loss_gradient_of(
    rows: Rows, values: list, pairs: NDArray[np.intp], pair_levels: list
) -> Callable[..., tuple[float, NDArray[np.float64], NDArray[np.float64]]]:
    """The weighted mean log-loss of ``rows`` and its gradient, a function of the
    coefficients and intercepts: the rows' slots grouped once, where groups of several
    slots pay (every evaluation then reads one code per row and group), else read one
    by one."""
    inputs = input_slots(rows.codes, rows.n_categories, values, pairs, pair_levels)
    scale = np.asarray(rows.weights, dtype=np.float64) / float(np.sum(rows.weights))
    groups = group_slots(inputs.slots)
    loss_gradient = (
        partial(grouped_loss_gradient, groups)
        if groups.several
        else partial(logistic_loss_gradient, inputs.slots)
    )
    return partial(loss_gradient, inputs.numeric, inputs.numeric_inputs, rows.class_index, scale)


@fill_doc
def fit_logistic(rows: Rows, spec: LearnerSpec) -> FittedModel:
    """The weighted multinomial logistic model of the rows (see the module docstring).
    With the ``stopping_rows`` option (rows of the same columns), L-BFGS is watched on them
    (:class:`HeldOutWatch`): it stops once their log-loss has not fallen for
    :data:`EARLY_STOPPING_PATIENCE` iterations and the model is the iterate where it
    was least; the attribute ``iteration_cap_`` is then :attr:`HeldOutWatch.cap` (the
    iterations a fit of all the rows should run), else None.

    Examples
    --------
    {example_logistic_rows}
    >>> fitted = fit_logistic(rows, LearnerSpec("logistic", 1.0, 0.0))
    >>> np.exp(fitted.model.log_posterior(np.array([[2, 0], [0, 0]])))[:, 1].round(2)
    array([0.97, 0.02])
    >>> first = np.arange(200) < 100
    >>> watched = fit_logistic(rows.take(first), LearnerSpec(
    ...     "logistic", 1.0, 0.0, options=LogisticOptions(stopping_rows=rows.take(~first))))
    >>> watched.attributes["n_iter_"] >= (watched.attributes["iteration_cap_"] or 0)
    True
    """
    raw = spec.options.values or [None] * len(rows.n_categories)
    C = float(spec.options.C)
    values = standardised_values(rows.codes, rows.weights, list(raw))
    start = spec.options.start
    pairs = model_pairs(rows, spec)
    pair_levels = list(spec.options.pair_levels or [])
    if start is not None:  # the same inputs as the model it starts from
        pair_levels = list(start.pair_levels)
    if not len(pairs):
        pair_levels = []
    n_inputs = int(input_offsets(rows.n_categories, values, pairs, pair_levels)[-1])
    n_classes = rows.n_classes
    total = float(np.sum(rows.weights))
    if total <= 0:
        raise ValueError("the logistic learner needs rows of positive total weight.")
    penalty = 1.0 / (C * total)
    loss_gradient = _loss_gradient_of(rows, values, pairs, pair_levels)

    def parameters(theta: NDArray[np.float64]) -> tuple[NDArray[np.float64], ...]:
        return theta[: n_inputs * n_classes].reshape(n_inputs, n_classes), theta[
            n_inputs * n_classes :
        ]

    def objective(theta: NDArray[np.float64]) -> tuple[float, NDArray[np.float64]]:
        coef, intercept = parameters(theta)
        loss, grad_coef, grad_intercept = loss_gradient(coef, intercept)
        grad_coef += penalty * coef
        loss += 0.5 * penalty * float(np.sum(coef * coef))
        return loss, np.concatenate([grad_coef.ravel(), grad_intercept])

    watch, watched = _watch(spec.options.stopping_rows, values, pairs, pair_levels, parameters)
    theta0 = np.zeros(n_inputs * n_classes + n_classes)
    if start is not None and start.coef.shape == (n_inputs, n_classes):
        theta0 = np.concatenate([start.coef.ravel(), start.intercept])
    with single_threaded_blas():  # scipy's L-BFGS-B (C, since 1.15) crawls on BLAS threads
        result = _minimize(objective, theta0, spec, len(pairs) > 0, watched)
    theta = result.x if watch is None or watch.best_theta is None else watch.best_theta
    coef, intercept = parameters(theta)
    model = LogisticModel(
        coef=coef.copy(),
        intercept=intercept.copy(),
        n_categories=np.asarray(rows.n_categories, dtype=np.intp),
        values=values,
        pairs=pairs,
        pair_levels=pair_levels,
    )
    attributes = {
        "n_iter_": int(result.nit) if watch is None else watch.iteration,
        "iteration_cap_": None if watch is None else watch.cap,
    }
    return FittedModel(model, attributes)


def _watch(held_out: Rows | None, values: list, pairs, pair_levels: list, parameters):
    """The :class:`HeldOutWatch` of ``held_out`` (None without rows of positive weight)
    and the function that records an iterate in it (see :func:`fit_logistic`)."""
    if held_out is None or not len(held_out.codes) or float(np.sum(held_out.weights)) <= 0:
        return None, None
    held_loss = _loss_gradient_of(held_out, values, pairs, pair_levels)
    watch = HeldOutWatch()

    def watched(theta: NDArray[np.float64]) -> bool:
        return watch.record(theta, float(held_loss(*parameters(theta))[0]))

    return watch, watched


@fill_doc
def cross_validated_log_posteriors(
    rows: Rows, spec: LearnerSpec, n_folds: int = 5, seed: int = 0
) -> NDArray[np.float64]:
    """Every row's ``log P(c | x)`` from the logistic model fitted without its fold
    (:func:`~discotree.stats.folds.content_folds`: identical rows share a fold, so whole
    weights and repeated rows see the same folds), each fit starting from ``spec``'s
    ``start`` when given. A fold whose complement has no weight (every row identical)
    takes the posteriors of the model of all the rows. The fits of
    :func:`fold_fits`, one after the other, put together by :func:`joined_folds`.

    Examples
    --------
    {example_logistic_rows}
    >>> held_out = cross_validated_log_posteriors(rows, LearnerSpec("logistic", 1.0, 0.0))
    >>> held_out.shape, bool(np.allclose(np.exp(held_out).sum(axis=1), 1.0))
    ((200, 2), True)
    """
    parts = [fit() for fit in fold_fits(rows, spec, n_folds, seed)]
    return joined_folds(parts, len(rows.codes), rows.n_classes)


@fill_doc
def fold_fits(
    rows: Rows, spec: LearnerSpec, n_folds: int = 5, seed: int = 0
) -> list[Callable[[], tuple[NDArray[np.bool_], NDArray[np.float64]]]]:
    """The fits of :func:`cross_validated_log_posteriors`, one per fold that holds
    rows: each gives the fold's rows (a mask) and their ``log P(c | x)`` from the model
    fitted without them (of all the rows where the others have no weight: at most one
    fold). They read nothing of each other, so they may run in any order, on any
    thread.

    Examples
    --------
    {example_logistic_rows}
    >>> fits = fold_fits(rows, LearnerSpec("logistic", 1.0, 0.0), n_folds=2)
    >>> held, log_posterior = fits[0]()
    >>> len(fits), log_posterior.shape == (int(held.sum()), 2)
    (2, True)
    """
    folds = content_folds(rows.codes, n_folds, seed)
    held = [folds == fold for fold in range(n_folds)]
    return [partial(_fold_fit, rows, spec, mask) for mask in held if mask.any()]


def _fold_fit(
    rows: Rows, spec: LearnerSpec, held: NDArray[np.bool_]
) -> tuple[NDArray[np.bool_], NDArray[np.float64]]:
    kept = ~held
    fitted_on = rows.take(kept) if rows.weights[kept].sum() > 0 else rows
    return held, fit_logistic(fitted_on, spec).model.log_posterior(rows.codes[held])


def joined_folds(
    parts: list[tuple[NDArray[np.bool_], NDArray[np.float64]]], n_rows: int, n_classes: int
) -> NDArray[np.float64]:
    """The (rows, classes) held-out log posteriors of the ``parts`` of
    :func:`fold_fits` (results in their order), each row's from its fold's.

    Examples
    --------
    >>> parts = [(np.array([True, False]), np.zeros((1, 2))),
    ...          (np.array([False, True]), np.ones((1, 2)))]
    >>> joined_folds(parts, 2, 2).tolist()
    [[0.0, 0.0], [1.0, 1.0]]
    """
    out = np.empty((n_rows, n_classes))
    for held, log_posterior in parts:
        out[held] = log_posterior
    return out


register_learner(
    Learner(
        "logistic",
        "Naive Bayes with conditional-likelihood parameters and Gaussian numeric leaves: "
        "the multinomial logistic model (Roos et al. 2005), by L-BFGS.",
        "rows",
        fit_logistic,
        partial_fit=False,
        dask=False,
        missing_at_prediction=MissingValueRule.INPUTS_DROPPED,
        options=LogisticOptions,
    )
)
