"""The logistic learner (:func:`discotree.learners.logistic.fit_logistic`) on a row
source (:mod:`discotree.engines.row_sources`): the same model from sums over the rows.

Every statistic the in-memory learner reads is a sum over rows, here computed part by
part: the weighted mean and standard deviation of each feature's values (from the
weight of each category: the values are a function of the category), the pair tables
and the weight observing both features of every pair (which pairs the model reads,
:func:`ranked_pairs_from_sums`), and at each L-BFGS step the objective and its gradient
(one pass over the rows each; a fit watched on held-out rows sums their log-loss at
the last iterate in the same pass: early stopping as in memory). Subsets of the rows
(a cross-validation fold, a content half, the rows in several of them) are named by a
:data:`RowMask`, evaluated on every part from the rows' codes
(:func:`~discotree.stats.folds.content_folds`), so they do not depend on the parts.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy.optimize import minimize
from scipy.stats import chi2

from .. import missing_values
from ..kernels.logistic import logistic_loss_gradient
from ..kernels.slot_groups import grouped_loss_gradient
from ..learners.logistic import (
    GRADIENT_TOLERANCE,
    PAIR_CELLS,
    PAIR_GRADIENT_TOLERANCE,
    HeldOutWatch,
    lbfgs_options,
)
from ..learners.registry import FittedModel, Rows
from ..models.category_maps import apply_maps, mapped_categories
from ..models.logistic import (
    NO_PAIRS,
    LogisticModel,
    input_groups,
    input_offsets,
    input_slots,
)
from ..numerics import CONSTANT_RTOL, order_with_ties
from ..stats.folds import content_folds
from ..stats.pair_statistics import PairStatistics
from ..threads import single_threaded_blas
from .row_sources import RowSource

__all__ = [
    "Fold",
    "InputLayout",
    "LogisticProblem",
    "PairRequest",
    "RowMask",
    "fit_logistic_in_passes",
    "fit_logistics_in_passes",
    "masked_rows",
    "ranked_pairs_from_sums",
    "row_mask",
    "selection_part",
    "standardised_from_weights",
]

#: A content fold's rows, or the others: ``(n_folds, seed, fold, inside)``, the rows of
#: content fold ``fold`` of ``n_folds`` (seed ``seed``) when ``inside``, the others
#: when not.
Fold = tuple[int, int, int, bool]
#: A subset of the rows: None (all), a :data:`Fold`, or a tuple of them (the rows in
#: all of them).
RowMask = Fold | tuple[Fold, ...] | None


def row_mask(codes: NDArray[np.integer], mask: RowMask) -> NDArray[np.bool_] | None:
    """The rows of ``codes`` in ``mask`` (None: all).

    Examples
    --------
    >>> codes = np.arange(8).reshape(8, 1)
    >>> half, quarter = (2, 1, 0, True), (4, 0, 0, False)
    >>> both = row_mask(codes, (half, quarter))
    >>> bool(np.array_equal(both, row_mask(codes, half) & row_mask(codes, quarter)))
    True
    """
    if mask is None:
        return None
    folds = mask if isinstance(mask[0], tuple) else (mask,)
    chosen = np.ones(len(codes), dtype=bool)
    for n_folds, seed, fold, inside in folds:
        here = content_folds(codes, int(n_folds), int(seed)) == int(fold)
        chosen &= here if inside else ~here
    return chosen


def masked_rows(rows: Rows, mask: RowMask) -> Rows:
    """The rows of a part in ``mask``."""
    kept = row_mask(rows.codes, mask)
    return rows if kept is None else rows.take(kept)


@dataclass(frozen=True, eq=False)
class PairRequest:
    """The statistics a logistic fit on the rows ``mask`` reads: their weight and
    number, each category's weight, and (``pairs``) the pair tables of ``features``
    (None: all) at the levels ``level_maps`` and the weight observing both of every
    pair; ``name`` says which (the key of its sums)."""

    name: str
    mask: RowMask
    level_maps: tuple[Any, ...] | None = None
    features: tuple[int, ...] | None = None
    pairs: bool = False


def selection_part(rows: Rows, requests: list[PairRequest]) -> list[dict[str, Any]] | None:
    """One part's :class:`PairRequest` sums (for :meth:`RowSource.total`)."""
    if not len(rows.codes):
        return None
    out = []
    for request in requests:
        part = masked_rows(rows, request.mask)
        w = part.weights
        category = []
        for j, r in enumerate(rows.n_categories):
            column = part.codes[:, j]
            seen = missing_values.observed(column)
            category.append(np.bincount(column[seen], w[seen], int(r)))
        sums: dict[str, Any] = {
            "n_rows": len(part.codes),
            "weight": float(w.sum()),
            "category": category,
        }
        if request.pairs:
            maps = list(request.level_maps or [None] * len(rows.n_categories))
            used = _used(request.features, len(rows.n_categories))
            levels = mapped_categories(rows.n_categories, maps)[used]
            codes = apply_maps(part.codes, maps)[:, used]
            stats = PairStatistics.from_codes(codes, part.class_index, levels, rows.n_classes, w)
            present = missing_values.observed(codes).astype(np.float64)
            sums["pairs"] = stats.counts
            sums["observed"] = (present.T * w) @ present
        out.append(sums)
    return out


def _used(features: Any, n_features: int) -> NDArray[np.intp]:
    return np.arange(n_features) if features is None else np.unique(np.asarray(features, int))


def standardised_from_weights(
    category: list[NDArray[np.float64]], values: list[NDArray[np.float64] | None]
) -> list[NDArray[np.float64] | None]:
    """:func:`~discotree.learners.logistic.standardised_values` from each feature's
    category weights: the weighted mean and standard deviation of the values over the
    rows where the feature is present.

    Examples
    --------
    >>> standardised_from_weights([np.array([1.0, 2.0])], [np.array([0.0, 3.0])])[0].round(3)
    array([-1.414,  0.707])
    """
    out: list[NDArray[np.float64] | None] = []
    for weight, table in zip(category, values, strict=True):
        if table is None:
            out.append(None)
            continue
        table = np.asarray(table, dtype=np.float64)
        total = float(weight.sum())
        if total <= 0:
            out.append(np.zeros_like(table))
            continue
        mean = float(weight @ table) / total
        sd = float(np.sqrt(float(weight @ (table - mean) ** 2) / total))
        out.append((table - mean) / (sd if sd > CONSTANT_RTOL * max(1.0, abs(mean)) else 1.0))
    return out


def ranked_pairs_from_sums(
    sums: dict[str, Any],
    n_categories: NDArray[np.intp],
    n_classes: int,
    request: PairRequest,
    n_pairs: int,
    *,
    significance: float | None,
) -> NDArray[np.intp]:
    """:func:`~discotree.learners.logistic.ranked_pairs` from the sums of ``request``
    (:func:`selection_part`): the ``n_pairs`` pairs of largest ``I(X_i; X_j | C)``
    (ties: the first), lowered to ``PAIR_CELLS // rows``, those a G-test at
    ``significance`` keeps."""
    used = _used(request.features, len(n_categories))
    first, second = np.triu_indices(len(used), 1)
    n_pairs = min(int(n_pairs), len(first), PAIR_CELLS // max(int(sums["n_rows"]), 1))
    if n_pairs <= 0:
        return NO_PAIRS.copy()
    maps = list(request.level_maps or [None] * len(n_categories))
    levels = mapped_categories(n_categories, maps)[used]
    stats = PairStatistics(sums["pairs"], levels)
    information = stats.conditional_mutual_information()[first, second]
    taken = np.asarray(order_with_ties(information, n_pairs), dtype=np.intp)
    if significance is not None:
        freedom = (levels[first] - 1) * (levels[second] - 1) * n_classes
        statistic = 2.0 * sums["observed"][first, second] * information
        threshold = chi2.isf(float(significance), np.maximum(freedom, 1))
        taken = taken[(statistic[taken] > threshold[taken]) & (freedom[taken] > 0)]
    first, second = used[first], used[second]
    return np.stack([first[taken], second[taken]], axis=1).astype(np.intp)


@dataclass(frozen=True)
class InputLayout:
    """The inputs of a logistic model: each feature's standardised values (None:
    one-hot), the pairs and the levels they read."""

    n_categories: NDArray[np.intp]
    values: list[NDArray[np.float64] | None]
    pairs: NDArray[np.intp]
    pair_levels: list[NDArray[np.intp] | None]


@dataclass(frozen=True)
class LogisticProblem:
    """A logistic fit: the rows ``mask`` (total weight ``total``), their inputs, the
    inverse penalty ``C``, the gradient tolerance (None: the learner's), the
    iterations at most (None: the learner's) and the rows whose log-loss stops it
    early (``stopping_rows``, a mask other than None, of positive weight; None: not
    watched), as the in-memory learner's ``stopping_rows`` option
    (:func:`~discotree.learners.logistic.fit_logistic`)."""

    mask: RowMask
    layout: InputLayout
    total: float
    C: float
    tolerance: float | None = None
    lbfgs_iterations: int | None = None
    stopping_rows: RowMask = None


def _loss_gradient_parts(
    rows: Rows, asked: list[tuple[RowMask, InputLayout, Any, Any, float | None]]
) -> list[Any] | None:
    """A part's share of the scaled log-loss and its gradient, for every model asked
    (its rows, inputs, coefficients, intercepts and total weight); where the total is
    None (held-out rows), the rows' weighted log-loss, unscaled, and their weight."""
    if not len(rows.codes):
        return None
    out: list[Any] = []
    for mask, layout, coef, intercept, total in asked:
        part = masked_rows(rows, mask)
        if not len(part.codes):
            out.append(None)
        elif total is None:
            loss = _part_loss_gradient(part, layout, coef, intercept, 1.0)[0]
            out.append((float(loss), float(part.weights.sum())))
        else:
            out.append(_part_loss_gradient(part, layout, coef, intercept, total))
    return out


def _part_loss_gradient(part: Rows, layout: InputLayout, coef, intercept, total: float):
    """A part's share of the loss and gradient: its slots grouped from the codes where
    groups of several slots pay (as in memory), else slot by slot."""
    inputs = input_groups(
        part.codes, layout.n_categories, layout.values, layout.pairs, layout.pair_levels
    )
    scale = part.weights / total
    if inputs.groups.several:
        return grouped_loss_gradient(
            inputs.groups, inputs.numeric, inputs.numeric_inputs, part.class_index, scale,
            coef, intercept,
        )  # fmt: skip
    slots = input_slots(
        part.codes, layout.n_categories, layout.values, layout.pairs, layout.pair_levels
    )
    return logistic_loss_gradient(
        slots.slots, slots.numeric, slots.numeric_inputs, part.class_index, scale, coef, intercept
    )


class _Lockstep:
    """L-BFGS runs in threads whose objective evaluations wait for one shared pass:
    each pass over the rows evaluates every run still going (see
    :func:`fit_logistics_in_passes`)."""

    def __init__(self, source: RowSource, n_runs: int) -> None:
        self.source = source
        self.condition = threading.Condition()
        self.pending: dict[int, list[tuple]] = {}
        self.results: dict[int, Any] = {}
        self.running = n_runs
        self.failure: BaseException | None = None  # (a pass that raised)

    def evaluate(self, run: int, asked: list[tuple]) -> list[Any]:
        with self.condition:
            if self.failure is None:
                self.pending[run] = asked
                self.condition.notify_all()
            while run not in self.results and self.failure is None:
                self.condition.wait()
            if self.failure is not None:  # (every run stops; the pass's error is raised)
                raise RuntimeError("a pass over the rows failed") from self.failure
            return self.results.pop(run)

    def finished(self) -> None:
        with self.condition:
            self.running -= 1
            self.condition.notify_all()

    def serve(self) -> None:
        """Run passes until every run has finished."""
        while True:
            with self.condition:
                while self.running > 0 and len(self.pending) < self.running:
                    self.condition.wait()
                if self.running == 0:
                    return
                batch, self.pending = self.pending, {}
            try:
                flat = [item for asked in batch.values() for item in asked]
                sums = self.source.total(_loss_gradient_parts, flat)
            except BaseException as err:  # (the runs waiting on it stop, then it is raised)
                with self.condition:
                    self.failure = err
                    self.condition.notify_all()
                raise
            with self.condition:
                for run, asked in batch.items():
                    self.results[run], sums = sums[: len(asked)], sums[len(asked) :]
                self.condition.notify_all()


class _Stopped(Exception):
    """The held-out log-loss has not fallen for the watch's patience."""


def _minimise(problem: LogisticProblem, n_classes: int, evaluate) -> FittedModel:
    """L-BFGS on ``problem`` with the in-memory learner's objective and stopping rules,
    from zeros; ``evaluate(items)`` sums a pass of each item ``(mask, layout, coef,
    intercept, total)``. Watched on held-out rows, each iterate's held-out loss is
    summed in the pass of the next evaluation (one more pass after the last), and
    recorded in the order of the iterates, as in memory, so the fit stops at the same
    iterate."""
    layout, total = problem.layout, problem.total
    pairs = layout.pairs
    n_inputs = int(input_offsets(layout.n_categories, layout.values, pairs, layout.pair_levels)[-1])
    penalty = 1.0 / (problem.C * total)
    watches = [HeldOutWatch()] if problem.stopping_rows is not None else []  # (none: unwatched)
    waiting: list[NDArray[np.float64]] = []  # (the iterate whose held-out loss is next)

    def parameters(theta: NDArray[np.float64]) -> tuple[Any, Any]:
        return theta[: n_inputs * n_classes].reshape(n_inputs, n_classes), theta[
            n_inputs * n_classes :
        ]

    def recorded(asked: list[tuple]) -> list[Any]:
        if waiting:
            asked = [*asked, (problem.stopping_rows, layout, *parameters(waiting[0]), None)]
        sums = evaluate(asked)
        if waiting:
            theta, held = waiting.pop(), sums[-1]
            if held is None or held[1] <= 0:  # (no held rows of weight: not watched)
                watches.clear()
            elif watches[0].record(theta, held[0] / held[1]):
                raise _Stopped
        return sums

    def objective(theta: NDArray[np.float64]) -> tuple[float, NDArray[np.float64]]:
        coef, intercept = parameters(theta)
        loss, grad_coef, grad_intercept = recorded(
            [(problem.mask, layout, coef, intercept, total)]
        )[0]
        grad_coef = grad_coef + penalty * coef
        loss += 0.5 * penalty * float(np.sum(coef * coef))
        return float(loss), np.concatenate([grad_coef.ravel(), grad_intercept])

    def callback(intermediate_result) -> None:
        if watches:
            waiting.append(np.array(intermediate_result.x, copy=True))

    default = PAIR_GRADIENT_TOLERANCE if len(pairs) else GRADIENT_TOLERANCE
    theta = None
    try:
        theta = minimize(
            objective,
            np.zeros(n_inputs * n_classes + n_classes),
            jac=True,
            method="L-BFGS-B",
            callback=callback,
            options=lbfgs_options(problem.tolerance or default, problem.lbfgs_iterations),
        ).x
        if waiting:  # (the last iterate's held-out loss)
            recorded([])
    except _Stopped:
        pass
    watch = watches[0] if watches else None
    if watch is not None and watch.best_theta is not None:
        theta = watch.best_theta
    assert theta is not None
    coef, intercept = parameters(theta)
    model = LogisticModel(
        coef=coef.copy(),
        intercept=intercept.copy(),
        n_categories=np.asarray(layout.n_categories, dtype=np.intp),
        values=layout.values,
        pairs=pairs,
        pair_levels=layout.pair_levels,
    )
    return FittedModel(model, {"iteration_cap_": None if watch is None else watch.cap})


def fit_logistics_in_passes(
    source: RowSource, problems: list[LogisticProblem]
) -> list[FittedModel]:
    """The weighted multinomial logistic model of every problem (the in-memory
    learner's), all fitted at once: each L-BFGS runs in a thread, and one pass over the
    rows evaluates the objective and gradient of every run still going, so the passes
    are those of the longest run, not the sum (each model's sums, and so its steps, are
    those it would have alone, BLAS on one thread as in memory:
    :func:`~discotree.threads.single_threaded_blas`). Each is given with its
    ``iteration_cap_`` attribute (that of the in-memory learner: None unless watched
    on held-out rows).

    Raises
    ------
    ValueError
        If a problem's rows have no weight.
    """
    for problem in problems:
        if problem.total <= 0:
            raise ValueError("the logistic learner needs rows of positive total weight.")
    problems = [
        replace(p, layout=replace(p.layout, pair_levels=[])) if not len(p.layout.pairs) else p
        for p in problems
    ]
    lockstep = _Lockstep(source, len(problems))
    models: list[Any] = [None] * len(problems)
    errors: list[BaseException] = []

    def run(index: int) -> None:
        try:
            models[index] = _minimise(
                problems[index], source.n_classes, lambda asked: lockstep.evaluate(index, asked)
            )
        except BaseException as err:  # (re-raised by the caller's thread)
            errors.append(err)
        finally:
            lockstep.finished()

    threads = [threading.Thread(target=run, args=(i,), daemon=True) for i in range(len(problems))]
    # BLAS on one thread, process-wide, as the in-memory learner runs L-BFGS-B: its
    # steps are then the same to the bit in the runs' threads (OpenBLAS's threads
    # would round its dot products otherwise, and a loose tolerance ends elsewhere)
    with single_threaded_blas():
        for thread in threads:
            thread.start()
        try:
            lockstep.serve()
        finally:
            for thread in threads:
                thread.join()
    if errors:
        raise errors[0]
    return models


def fit_logistic_in_passes(
    source: RowSource,
    mask: RowMask,
    layout: InputLayout,
    total: float,
    C: float,
    *,
    tolerance: float | None = None,
) -> LogisticModel:
    """The weighted multinomial logistic model of the rows ``mask`` of ``source``
    (total weight ``total``), by L-BFGS from zeros with the in-memory learner's
    objective and stopping rules; one pass over the rows per evaluation."""
    problem = LogisticProblem(mask, layout, total, C, tolerance)
    return fit_logistics_in_passes(source, [problem])[0].model
