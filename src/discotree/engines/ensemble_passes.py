"""The ensemble of selective kDB (:func:`discotree.learners.ensemble.fit_kdb_ensemble`)
learnt from a row source (:mod:`discotree.engines.row_sources`): the rows of a file
read once per pass, or Dask partitions, never held together; the model of the
in-memory fit (tested: the same members and weights, probabilities within 1e-6).

Every statistic of the in-memory fit is a sum over rows, computed part by part:

1. the class weights, the rows and each category's weight (the sampled-MDL cuts, the
   linear members' standardisation);
2. the members' pair tables, and what the logistic members' inputs are chosen from
   (each category's weight, the pair tables at the pair member's levels, the weight
   observing both columns of every pair) on every subset of rows a logistic model is
   fitted on: all of them, the cross-validation folds' complements, the content half
   of the pair member's weight;
3. the members' families, concentrations (from the tables alone, or a pass per level
   when some weight lies strictly between 0 and 1) and leave-one-out losses
   (:mod:`discotree.engines.kdb_passes`);
4. each logistic model by L-BFGS, one pass per evaluation of its objective and
   gradient (:mod:`discotree.engines.logistic_passes`), all in lockstep: beyond
   :data:`~discotree.learners.ensemble.HELD_OUT_ROWS` rows, first the fits watched on
   the scored rows (early stopping, their held-out loss summed in the same passes),
   then, in a second lockstep round, the final fits capped at the iterations those
   found best;
5. with ``linear_weight="auto"`` or ``pair_weight="auto"``, one scoring pass: on the
   rows the in-memory fit scores (all, or one content fold beyond
   :data:`~discotree.learners.ensemble.HELD_OUT_ROWS` rows: the folds hash the rows,
   so the parts do not matter), the summed held-out log-loss of every linear weight
   and, for every linear weight that can be chosen, of every pair weight.

Not in passes (refused, with the reason): ``bootstrap=True`` (Poisson copies drawn
over the rows in order) and members with ``smoothing="hdp"`` (a sampler over the rows). With
``linear_pairs > 0`` every model of the linear member ranks its pairs from the pair
tables of its own rows (counted in the second pass), and with ``linear_weight="auto"``
the one without pairs is fitted and scored too, as in memory.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .. import missing_values
from ..config import get_config
from ..docstrings import fill_doc
from ..kernels.counts import class_totals, univariate_counts
from ..learners.ensemble import FINE_BINS, HELD_OUT_ROWS, member_maps
from ..learners.ensemble_members import (
    HELD_OUT_TOLERANCE,
    LEAVE_ONE_OUT_OPTIMISM,
    LINEAR_WEIGHTS,
    PAIR_SPLIT_SEED,
    PAIR_WEIGHT_FLOOR,
    PAIR_WEIGHTS,
    linear_pair_count,
    pair_level_maps,
    pair_limit,
)
from ..learners.options import COARSENINGS
from ..learners.registry import FittedModel, LearnerSpec, Rows
from ..models.ensemble import (
    KDBEnsembleModel,
    pooled_log_posterior,
)
from ..models.logistic import NO_PAIRS, LogisticModel
from ..numerics import best_index, class_log_prior, sign_with_ties
from ..stats.folds import content_folds
from ..sufficient_statistics import StatisticsSchema
from ..transformers.discretizer import Discretizer
from .kdb_passes import (
    MemberPlan,
    fit_members_in_passes,
    member_held_out,
    member_specs,
    plan_members,
    scoring_members,
)
from .logistic_passes import (
    Fold,
    InputLayout,
    LogisticProblem,
    PairRequest,
    RowMask,
    fit_logistics_in_passes,
    masked_rows,
    ranked_pairs_from_sums,
    row_mask,
    selection_part,
    standardised_from_weights,
)
from .row_sources import BatchSource, RowSource, SpilledSource
from .schema_summaries import merge_summaries, schema_from_summary, summarise_part

__all__ = [
    "LINEAR_FOLDS",
    "SINGLE",
    "fit_batches_in_passes",
    "fit_ensemble_in_passes",
    "passes_unsupported",
    "refuse_unsupported",
    "schema_of_batches",
]

#: The content folds of the linear member's held-out posteriors (as in memory).
LINEAR_FOLDS = 5


def passes_unsupported(options: Any) -> str | None:
    """Why the ensemble of ``options`` (its :class:`KDBEnsembleOptions`, or the
    estimator, whose parameters have the same names) cannot be learnt in passes, or
    None."""
    if options.bootstrap:
        return "bootstrap=True draws Poisson copies of the rows in their order"
    member = options.estimator  # (None: the default members, hierarchical smoothing)
    if member is not None and member.smoothing == "hdp":
        return "the members' smoothing='hdp' samples their tables from the rows"
    if options.coarsening not in COARSENINGS:
        return f"coarsening must be one of {COARSENINGS}"
    return None


def refuse_unsupported(estimator: Any) -> None:
    """Raise before any pass when ``estimator``'s options cannot be learnt in passes
    (:func:`passes_unsupported`, read from its parameters), so that a refusal costs no
    reading of the data.

    Examples
    --------
    >>> from discotree import KDBEnsembleClassifier
    >>> refuse_unsupported(KDBEnsembleClassifier())  # (nothing raised)
    """
    reason = passes_unsupported(estimator)
    if reason is not None:
        raise ValueError(
            f"{type(estimator).__name__}: the ensemble cannot be learnt in passes over the "
            f"data: {reason}."
        )


def _first_part(rows: Rows) -> dict[str, Any] | None:
    if not len(rows.codes):
        return None
    return {
        "n_rows": len(rows.codes),
        "n_missing": int(missing_values.is_missing(rows.codes).sum()),
        "class_weight": class_totals(rows.class_index, rows.weights, rows.n_classes),
        "univariate": univariate_counts(
            rows.codes, rows.class_index, rows.weights, rows.n_categories, rows.n_classes
        ),
    }


class _Plan:
    """The subsets of rows the logistic models are fitted on, and their sums."""

    def __init__(self, spec: LearnerSpec, n_rows: int, n_categories) -> None:
        self.linear = spec.options.linear_weight
        self.pair = spec.options.pair_weight
        self.chosen = "auto" in (self.linear, self.pair)
        self.has_linear = self.linear == "auto" or float(self.linear) > 0
        self.has_pair = self.pair == "auto" or float(self.pair) > 0
        n_held = -(-n_rows // HELD_OUT_ROWS)
        self.held: Fold | None = None if n_rows <= HELD_OUT_ROWS else (n_held, 0, 0, True)
        levels = tuple(pair_level_maps(n_categories, list(spec.options.binned)))
        binned = set(spec.options.binned)
        self.categorical = tuple(j for j in range(len(n_categories)) if j not in binned)
        self.linear_pairs = 0
        if self.has_linear:
            requested = spec.options.linear_pairs
            self.linear_pairs = linear_pair_count(requested, len(self.categorical))
        # the linear member's rows: with pairs, the pair tables of the categorical columns
        lin = (None, self.categorical, True) if self.linear_pairs > 0 else (None, None, False)
        self.all = PairRequest("all", None, *lin)
        self.pair_all = PairRequest("pair", None, levels, None, True)
        self.pair_half = PairRequest("half", (2, PAIR_SPLIT_SEED, 0, True), levels, None, True)
        self.requests = [self.all]
        if self.has_pair:
            self.requests += [self.pair_all, self.pair_half]
        if self.has_linear and self.chosen:
            if self.held is None:
                for k in range(LINEAR_FOLDS):
                    mask = (LINEAR_FOLDS, 0, k, False)
                    self.requests.append(PairRequest(f"train{k}", mask, *lin))
                    self.requests.append(PairRequest(f"fold{k}", (LINEAR_FOLDS, 0, k, True)))
            else:
                self.requests.append(PairRequest("others", (n_held, 0, 0, False), *lin))
        self.sums: dict[str, dict[str, Any]] = {}
        self.n_categories = n_categories

    def request(self, name: str) -> PairRequest:
        """The request called ``name``."""
        return next(r for r in self.requests if r.name == name)


def _problem(
    plan: _Plan,
    request: PairRequest,
    spec: LearnerSpec,
    tolerance=None,
    pairs=None,
    stopping_rows: RowMask = None,
):
    """The logistic fit of the rows of ``request`` (no pairs unless given), watched on
    the rows ``stopping_rows`` (None: not watched)."""
    sums = plan.sums[request.name]
    values = list(spec.options.values)
    layout = InputLayout(
        plan.n_categories,
        standardised_from_weights(sums["category"], values),
        NO_PAIRS.copy() if pairs is None else pairs,
        list(request.level_maps or []) if pairs is not None else [],
    )
    C = float(spec.options.linear_C)
    return LogisticProblem(
        request.mask, layout, sums["weight"], C, tolerance, stopping_rows=stopping_rows
    )


def _linear_problems(plan: _Plan, spec: LearnerSpec, n_classes: int) -> dict[str, LogisticProblem]:
    """The linear member's fit and those of its held-out posteriors: per content fold
    (its complement, or all the rows when that has no weight), or of the rows not
    scored; with pairs and ``linear_weight="auto"``, the same without pairs too (names
    ending in :data:`SINGLE`). Each model with pairs ranks them on its own rows."""
    problems: dict[str, LogisticProblem] = {}

    def variant(suffix: str, with_pairs: bool) -> None:
        def problem(request: PairRequest, tolerance=None, stopping_rows=None) -> LogisticProblem:
            pairs = None
            if with_pairs:
                sums = plan.sums[request.name]
                pairs = ranked_pairs_from_sums(
                    sums,
                    plan.n_categories,
                    n_classes,
                    request,
                    plan.linear_pairs,
                    significance=None,
                )
            return _problem(plan, request, spec, tolerance, pairs, stopping_rows)

        problems["linear" + suffix] = problem(plan.all)
        if not plan.chosen:
            return
        if plan.held is not None:
            if plan.sums["others"]["weight"] > 0:
                problems["others" + suffix] = problem(
                    plan.request("others"), HELD_OUT_TOLERANCE, plan.held
                )
            return
        for k in range(LINEAR_FOLDS):
            if plan.sums[f"fold{k}"]["n_rows"] == 0:
                continue
            if plan.sums[f"train{k}"]["weight"] > 0:
                problems[f"train{k}" + suffix] = problem(
                    plan.request(f"train{k}"), HELD_OUT_TOLERANCE
                )
            else:
                problems["whole" + suffix] = problem(plan.all, HELD_OUT_TOLERANCE)

    variant("", plan.linear_pairs > 0)
    if plan.chosen and plan.linear == "auto" and len(problems["linear"].layout.pairs):
        variant(SINGLE, False)  # the pairs only where they lower the held-out loss
    return problems


#: The suffix of the names of the linear member's models without pairs.
SINGLE = "|single"


def _held_linear_models(plan: _Plan, models: dict[str, LogisticModel]) -> dict | None:
    """Per variant of the linear member (with its pairs: ``""``; without:
    :data:`SINGLE`), the models of its held-out posteriors: one per content fold (None
    where the fold is empty), or the one of the rows not scored."""
    if not plan.chosen:
        return None
    out: dict[str, list] = {}
    for suffix in ("", SINGLE):
        if "linear" + suffix not in models:
            continue
        if plan.held is not None:
            out[suffix] = [models.get("others" + suffix, models["linear" + suffix])]
            continue
        folds: list[LogisticModel | None] = []
        for k in range(LINEAR_FOLDS):
            if plan.sums[f"fold{k}"]["n_rows"] == 0:
                folds.append(None)
            else:
                folds.append(models.get(f"train{k}" + suffix, models.get("whole" + suffix)))
        out[suffix] = folds
    return out


def _pair_problems(source, plan: _Plan, spec: LearnerSpec) -> dict[str, LogisticProblem]:
    """The pair member's fit and, with ``pair_weight="auto"``, the one of the first
    content half (none when that half has no weight)."""
    every = linear_pair_count("all", len(source.n_categories))
    significance = spec.options.pair_significance

    def problem(request: PairRequest, n_pairs: int) -> LogisticProblem:
        sums, n_classes = plan.sums[request.name], source.n_classes
        pairs = ranked_pairs_from_sums(
            sums, source.n_categories, n_classes, request, n_pairs, significance=significance
        )
        return _problem(plan, request, spec, pairs=pairs)

    limit = pair_limit(spec.options.pairs_per_column, len(source.n_categories))
    if limit is not None:  # (the in-memory learner's rule)
        every = min(every, limit)
    problems = {"pair": problem(plan.pair_all, every)}
    if plan.pair == "auto" and plan.sums["half"]["weight"] > 0:
        half = problem(plan.pair_half, len(problems["pair"].layout.pairs))
        if plan.held is not None:  # (early stopping on the held rows of the second half)
            tested = ((2, PAIR_SPLIT_SEED, 0, False), plan.held)
            half = replace(half, stopping_rows=tested)
        problems["half"] = half
    return problems


def _held_out_names(plan: _Plan, problems: dict[str, LogisticProblem], final: str) -> list[str]:
    """The fits whose iteration caps cap the final fit ``final``, as in memory: with
    held rows (early stopping), the pair member's first half's, the linear member's
    fit on the other rows (of its variant); else none."""
    if plan.held is None:
        return []
    names = ["half"] if final == "pair" else ["others" + final[len("linear") :]]
    return [name for name in names if name in problems]


def _logistic_models(source, plan: _Plan, spec: LearnerSpec) -> dict[str, LogisticModel]:
    """Every logistic model of the fit, by name, fitted together in two rounds (the
    passes of the longest L-BFGS run of each): first the held-out fits (each watched on
    the rows it holds out) and the final fits nothing caps, then the final fits with the
    iterations their held-out fit found best
    (:attr:`~discotree.learners.logistic.HeldOutWatch.cap`), as in memory."""
    problems: dict[str, LogisticProblem] = {}
    if plan.has_linear:
        problems.update(_linear_problems(plan, spec, source.n_classes))
    if plan.has_pair:
        problems.update(_pair_problems(source, plan, spec))
    finals = {name for name in problems if name.startswith("linear") or name == "pair"}
    capped = {name for name in finals if _held_out_names(plan, problems, name)}
    first = [name for name in problems if name not in capped]
    fitted = dict(
        zip(first, fit_logistics_in_passes(source, [problems[n] for n in first]), strict=True)
    )
    second = []
    for name in capped:
        (held,) = _held_out_names(plan, problems, name)
        cap = fitted[held].attributes["iteration_cap_"]
        second.append(replace(problems[name], lbfgs_iterations=cap))
    fitted.update(zip(capped, fit_logistics_in_passes(source, second), strict=True))
    return {name: fitted[name].model for name in problems}


def _candidates(plan: _Plan) -> NDArray[np.float64]:
    """The linear member's weights the fit can end with."""
    if not plan.has_linear:
        return np.zeros(1)
    if plan.linear == "auto":
        return np.minimum(LINEAR_WEIGHTS + LEAVE_ONE_OUT_OPTIMISM, 1.0)
    return np.array([float(plan.linear)])


def _score_part(rows: Rows, context: dict[str, Any]) -> dict[str, Any] | None:
    """A part's held-out sums: the linear mixture's log-loss of every linear weight and
    the pooled log-loss of every (linear, pair) weight, and the weights scored."""
    plan = context["plan"]
    part = masked_rows(rows, plan.held)
    if not len(part.codes):
        return None
    members = member_held_out(part, context["members"], context["class_weight"], context["specs"])
    index = np.arange(len(part.codes))
    w, truth = part.weights, part.class_index
    tiny = np.finfo(np.float64).tiny
    out: dict[str, Any] = {"weight": float(w.sum())}
    held_linear: dict[str, NDArray[np.float64] | None] = {"": None}
    if context["linear_models"] is not None:
        held_linear = {
            suffix: _held_linear(part.codes, models, members)
            for suffix, models in context["linear_models"].items()
        }
        if plan.linear == "auto":
            out["linear"] = {}
            for suffix, posterior in held_linear.items():
                assert posterior is not None
                own_m, own_l = members[index, truth][:, None], posterior[index, truth][:, None]
                mixed = (1.0 - LINEAR_WEIGHTS[None, :]) * own_m + LINEAR_WEIGHTS[None, :] * own_l
                out["linear"][suffix] = -(w @ np.log(np.maximum(mixed, tiny)))
    half = context["half"]
    if half is not None:
        tested = row_mask(part.codes, (2, PAIR_SPLIT_SEED, 0, False))
        assert tested is not None
        out["tested"] = float(w[tested].sum())
        shape = (len(context["candidates"]), len(PAIR_WEIGHTS))
        out["pair"] = {suffix: np.zeros(shape) for suffix in held_linear}
        if not tested.any():
            return out
        log_q = half.log_posterior(part.codes[tested])
        at = np.arange(int(tested.sum()))
        for suffix, posterior in held_linear.items():
            for c, weight in enumerate(context["candidates"]):
                rest = members if posterior is None else (1 - weight) * members + weight * posterior
                log_p = np.log(np.maximum(rest[tested], tiny))
                for g, v in enumerate(PAIR_WEIGHTS):
                    pooled = pooled_log_posterior(log_p, log_q, float(v), context["pooling"])
                    out["pair"][suffix][c, g] = -float(w[tested] @ pooled[at, truth[tested]])
    return out


def _held_linear(codes, models: list, members: NDArray[np.float64]) -> NDArray[np.float64]:
    """The linear member's held-out posterior of every row: its content fold's model's
    (one model: the model of the rows not scored)."""
    posterior = np.empty_like(members)
    fold = np.zeros(len(codes), dtype=np.intp)
    if len(models) > 1:  # each row's content fold's model
        fold = content_folds(codes, LINEAR_FOLDS, 0)
    for k, model in enumerate(models):
        here = fold == k
        if here.any():
            posterior[here] = np.exp(model.log_posterior(codes[here]))
    return posterior


def _best(losses: NDArray[np.float64]) -> int:
    return best_index(-np.asarray(losses, dtype=np.float64))


def fit_ensemble_in_passes(source: RowSource, spec: LearnerSpec) -> FittedModel:
    """The ``"kdb-ensemble"`` learner's model (see the module) from ``source``.

    Raises
    ------
    ValueError
        For the options the passes cannot learn (:func:`passes_unsupported`), or rows
        of no weight.
    """
    reason = passes_unsupported(spec.options)
    if reason is not None:
        raise ValueError(f"the ensemble cannot be learnt in passes over the data: {reason}.")
    first = source.total(_first_part)
    if first is None:
        raise ValueError("the data holds no rows of positive weight.")
    class_weight = np.asarray(first["class_weight"], dtype=np.float64)
    n_members = int(spec.options.n_estimators)
    seeds = np.random.default_rng(int(spec.options.seed)).integers(0, 2**31 - 1, n_members)
    maps = member_maps(spec, seeds, source.n_categories, lambda: first["univariate"])
    plan = _Plan(spec, int(first["n_rows"]), source.n_categories)
    members = plan_members(seeds, maps, source.n_categories)
    specs = member_specs(spec, members)
    fit_members_in_passes(source, members, specs, class_weight)
    sums = source.total(selection_part, plan.requests)
    plan.sums = {r.name: part for r, part in zip(plan.requests, sums, strict=True)}
    models = _logistic_models(source, plan, spec)
    linear = models.get("linear")
    linear_models = _held_linear_models(plan, models) if plan.has_linear else None
    pair_member, half = models.get("pair"), models.get("half")
    weight_of_linear = 0.0 if not plan.has_linear else _candidates(plan)[0]
    pair_weight = 0.0 if not plan.has_pair else float(plan.pair if plan.pair != "auto" else 0.0)
    pair_losses = None
    if plan.chosen:
        context = {
            "plan": plan,
            "members": scoring_members(members),
            "specs": specs,
            "class_weight": class_weight,
            "linear_models": linear_models,
            "half": half if plan.pair == "auto" else None,
            "candidates": _candidates(plan),
            "pooling": spec.options.pair_pooling,
        }
        scored = source.total(_score_part, context)
        choice, suffix = 0, ""
        if plan.linear == "auto":
            choice, suffix = _linear_choice(scored["linear"], scored["weight"])
            weight_of_linear = float(_candidates(plan)[choice])
            linear = models["linear" + suffix]
        if plan.pair == "auto":
            pair_weight, pair_losses = _pair_weight(scored, half, choice, suffix)
    prior = _log_prior(class_weight)
    kept = linear if weight_of_linear > 0 else None
    model = KDBEnsembleModel(
        maps,
        [m.fitted.model for m in members if m.fitted is not None],
        prior,
        kept,
        float(weight_of_linear),
        pair_member,
        pair_weight,
        spec.options.pair_pooling,
    )
    model.prepare_prediction(first["n_missing"] > 0)
    attributes = _attributes(members, weight_of_linear, pair_weight, pair_losses)
    return FittedModel(model, {**attributes, "class_count_": class_weight})


def _linear_choice(losses: dict[str, NDArray[np.float64]], weight: float) -> tuple[int, str]:
    """The linear member's weight (its index) of least held-out loss, and its variant:
    without pairs (:data:`SINGLE`) unless the pairs lower that loss (ties: without)."""
    mean = losses[""] / weight
    best = _best(mean)
    if SINGLE not in losses:
        return best, ""
    single = losses[SINGLE] / weight
    single_best = _best(single)
    loss, single_loss = float(mean[best]), float(single[single_best])
    if sign_with_ties(np.array(loss - single_loss), max(loss, single_loss)) >= 0:
        return single_best, SINGLE
    return best, ""


def _pair_weight(scored: dict[str, Any], half, choice: int, suffix: str):
    """The pair member's weight from the scoring pass, and its losses (or None)."""
    if half is None or scored.get("tested", 0.0) <= 0:
        return PAIR_WEIGHT_FLOOR, None
    losses = scored["pair"][suffix][choice] / scored["tested"]
    return max(float(PAIR_WEIGHTS[_best(losses)]), PAIR_WEIGHT_FLOOR), losses


def _log_prior(class_weight: NDArray[np.float64]) -> NDArray[np.float64]:
    return class_log_prior(class_weight)


def _attributes(members: list[MemberPlan], linear: float, pair: float, losses) -> dict:
    fitted = [m.fitted for m in members if m.fitted is not None]
    return {
        "linear_weight_": float(linear),
        "pair_weight_": float(pair),
        "pair_weight_losses_": losses,
        "members_k_": np.array([f.attributes["k_"] for f in fitted]),
        "members_n_attributes_": np.array([f.attributes["n_attributes_"] for f in fitted]),
        "members_order_": [f.attributes["order_"] for f in fitted],
    }


def schema_of_batches(
    estimator: Any, batches: Callable[[], Iterable[tuple[Any, ...]]]
) -> StatisticsSchema:
    """The schema of the ensemble's fine encoding of the whole data, from one pass over
    its ``(X, y)`` or ``(X, y, sample_weight)`` batches
    (:mod:`~discotree.engines.schema_summaries`: the labels, the categories, and the
    fine bins from the merged quantile sketch, exact for a column of at most
    ``SKETCH_POINTS`` distinct values)."""
    owner = type(estimator).__name__
    max_categories = int(estimator.max_categories)
    limit = get_config()["category_limit"]
    summary: dict[str, Any] | None = None
    names = None
    for batch in batches():
        X, y, w = (*batch, None)[:3]
        if names is None and hasattr(X, "columns"):
            names = list(X.columns) if all(isinstance(c, str) for c in X.columns) else None
        part = summarise_part(X, y, w, max_categories, limit, owner)
        summary = part if summary is None else merge_summaries(summary, part)
    if summary is None:
        raise ValueError(f"{owner}: the data holds no data rows; nothing to fit.")
    discretizer = estimator.discretizer
    if discretizer is None:
        discretizer = Discretizer(n_bins=FINE_BINS)
    return schema_from_summary(summary, names, max_categories, discretizer, owner)


@fill_doc
def fit_batches_in_passes(
    estimator: Any,
    batches: Callable[[], Iterable[tuple[Any, ...]]],
    spill: bool = True,
    spill_folder: str | None = None,
    keep_bytes: int = 64 << 20,
) -> Any:
    """Fit ``estimator`` (a :class:`~discotree.KDBEnsembleClassifier`) from batches read
    again at every pass (``batches()`` returns a new iterator over the whole data each
    time): a schema pass, then the passes of the module; memory is one batch and the
    tables. What ``discotree fit --data FILE --model eskdb`` runs.

    With ``spill`` (the default) the batches are read twice (the schema, then the
    encoding) and their codes kept, ``keep_bytes`` of them in memory and the rest in a
    temporary folder (``spill_folder``, None: the system's), which the other passes
    read (:class:`~discotree.engines.row_sources.SpilledSource`: about a byte per cell,
    removed at the end); without, every pass reads the batches again (each L-BFGS step
    of the logistic members is one).

    Examples
    --------
    {example_batch_halves}
    >>> from discotree import KDBEnsembleClassifier
    >>> clf = fit_batches_in_passes(KDBEnsembleClassifier(n_estimators=2), halves)
    >>> bool(clf.score(X, y) > 0.9)
    True
    """
    refuse_unsupported(estimator)  # (before reading anything)
    schema = schema_of_batches(estimator, batches)
    read = BatchSource(batches, schema, type(estimator).__name__)
    source: RowSource = SpilledSource(read, spill_folder, keep_bytes) if spill else read
    try:
        return estimator.fit_from_passes(schema, lambda spec: fit_ensemble_in_passes(source, spec))
    finally:
        if isinstance(source, SpilledSource):
            source.close()
