"""The scoring side of the ONNX graphs (:func:`discotree.io.onnx.to_onnx`): from the
int64 category codes to ``log P(x, c)`` as ``predict_joint_log_proba`` computes it on
complete rows, for three kinds of models.

- **Sums of table factors** (naive Bayes, TAN, k-trees, Chow-Liu, kDB):
  ``log P(c) + sum_f log theta_f[c, x_f]``, one ``Gather`` per factor
  (:func:`log_factors`).
- **A1DE** (:class:`~discotree.AODEClassifier`, ``n_super_parents=1``): with ``g_i``
  the row's column in the tables of feature i, each super-parent's estimator
  ``log P(c, x_i) + sum_{j != i} log P(x_j | c, x_i)`` is one ``Gather`` from the
  parent table and one from the (C, D, D) table of the conditionals (summed over j),
  and the average is a ``logsumexp`` over the super-parents less ``log d``; the class
  marginal of the average is replaced by the estimator's prior, as
  ``predict_joint_log_proba`` does. A2DE is refused.
- **The kDB ensemble** (:class:`~discotree.KDBEnsembleClassifier`): each member's codes
  are the ensemble's through its coarsening maps (one ``Gather`` from the maps of every
  column, concatenated), its joint a sum of its dense factors, its posterior a
  log-softmax; their mean a ``logsumexp`` less ``log M``. The linear member (a logistic
  model: one weight per category and class, a value times a weight per class for a
  numeric column, a weight per joint cell of a pair's levels and class) is again a sum
  of factors plus its intercept, log-softmaxed, mixed linearly with weight
  ``linear_weight``; the pair member likewise, pooled with weight ``pair_weight``
  logarithmically (a weighted sum of log posteriors, log-softmaxed) or linearly
  (:func:`~discotree.models.ensemble.pooled_log_posterior`).

Every table is checked at export against the model it came from on random complete
rows (:func:`check_factors`), so a model whose scoring changed is refused rather than
exported wrongly.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..docstrings import fill_doc
from ..models.averaged_dependence import AveragedOneDependenceModel, AveragedTwoDependenceModel
from ..models.bayes_net import BayesNetModel
from ..models.discrete_forest import DiscreteForestModel
from ..models.ensemble import KDBEnsembleModel
from ..models.k_dependence import KDependenceModel
from ..models.logistic import LogisticModel
from ..validation import check_is_fitted
from .onnx_graph import GraphBuilder

__all__ = [
    "MAX_ONNX_CELLS",
    "check_exportable",
    "check_factors",
    "joint_log_proba",
    "log_factors",
    "logistic_factors",
]

#: The largest number of table cells the graph may hold (all tables together).
MAX_ONNX_CELLS = 50_000_000
#: Random complete rows on which every exported table is checked against its model.
PROBE_ROWS = 64

Factors = list[tuple[list[int], NDArray[np.float64]]]


def check_exportable(estimator: Any) -> str:
    """The estimator's name; raises ValueError for those whose probabilities are not
    computed from category codes by the generic ``predict_joint_log_proba`` (the
    models :func:`joint_log_proba` exports may still refuse their tables).

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from discotree import DiscriminativeTreeClassifier
    >>> check_exportable(DiscriminativeTreeClassifier().fit(*load_iris(return_X_y=True)))
    Traceback (most recent call last):
    ...
    ValueError: DiscriminativeTreeClassifier's probabilities are not the softmax of its joint ...
    """
    check_is_fitted(estimator)
    name = type(estimator).__name__
    if getattr(estimator, "distribution", "discrete") != "discrete":
        raise ValueError(f"{name} with distribution='gaussian' has no tables to export.")
    # the graph is softmax(joint): only where predict_proba is exactly that, the
    # fitted model's class_scores normalised without a calibration scale
    # (discriminative trees, boosting and the kernel models score otherwise)
    redefined = [
        hook
        for hook in ("_class_scores", "_score_scale")
        if getattr(getattr(type(estimator), hook, None), "__qualname__", "").split(".")[0]
        not in ("DiscreteForestClassifierBase", "ScoredPredictionMixin")
    ]
    if redefined:
        raise ValueError(
            f"{name}'s probabilities are not the softmax of its joint ({redefined[0]} is "
            "its own), so they are not exported to ONNX; naive Bayes, TAN, k-trees, "
            "Chow-Liu, kDB, A1DE and the kDB ensemble are."
        )
    return name


def _k_dependence_factors(model: KDependenceModel, name: str) -> Factors:
    if model.dense_cells() > MAX_ONNX_CELLS:
        raise ValueError(
            f"{name}: its dense tables hold {model.dense_cells()} cells, more than "
            f"MAX_ONNX_CELLS = {MAX_ONNX_CELLS}; fit it with a smaller k."
        )
    return [([*model.parents[j], j], model.dense_log_table(j)) for j in model.attributes]


def log_factors(estimator: Any) -> tuple[Factors, NDArray[np.float64]]:
    """The fitted model as factors: ``(columns, log_table)`` with ``log_table`` of shape
    (n_classes, r_columns...), ``log P(x, c) = log_prior[c] + sum over factors of
    log_table[c, x[columns]]`` on complete rows; and the class log prior.

    A structure that differs between classes (Chow-Liu, discriminative trees) gives a
    factor per class and node whose other classes' rows are 0 (a log of 1).

    Raises
    ------
    ValueError
        For models that are not one sum of table factors (averaged, ensemble, boosted,
        kernel or Gaussian models) and for tables too large to export.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from discotree import NaiveBayesClassifier
    >>> factors, log_prior = log_factors(NaiveBayesClassifier().fit(*load_iris(return_X_y=True)))
    >>> [columns for columns, _ in factors], factors[0][1].shape, log_prior.shape
    ([[0], [1], [2], [3]], (3, 5), (3,))
    """
    name = check_exportable(estimator)
    model = getattr(estimator, "model_", None)
    n_classes = len(estimator.classes_)
    factors: Factors = []
    if isinstance(model, DiscreteForestModel):
        for j in range(len(model.n_categories)):
            parents = model.parents[:, j]
            if (parents == parents[0]).all():
                p = int(parents[0])
                table = np.stack([model.log_cpts[c][j] for c in range(n_classes)])
                factors.append(([j], table[:, 0, :]) if p < 0 else ([p, j], table))
                continue
            for c in range(n_classes):  # a structure of its own: only class c's row
                p = int(parents[c])
                own = model.log_cpts[c][j]
                table = np.zeros((n_classes, *own.shape))
                table[c] = own
                factors.append(([j], table[:, 0, :]) if p < 0 else ([p, j], table))
    elif isinstance(model, BayesNetModel):
        for j, family in enumerate(model.parents):
            factors.append(([*family, j], np.asarray(model.log_cpts[j], dtype=np.float64)))
    elif isinstance(model, KDependenceModel):
        factors = _k_dependence_factors(model, name)
    else:
        raise ValueError(
            f"{name} is not one sum of table factors (averaged, ensemble, boosted or "
            "kernel models); naive Bayes, TAN, k-trees, Chow-Liu and kDB are."
        )
    _check_cells(name, sum(t.size for _, t in factors))
    return factors, np.asarray(estimator.class_log_prior_, dtype=np.float64)


def _check_cells(name: str, cells: int) -> None:
    if cells > MAX_ONNX_CELLS:
        raise ValueError(f"{name}: {cells} table cells, more than MAX_ONNX_CELLS.")


@fill_doc
def logistic_factors(model: LogisticModel) -> Factors:
    """A logistic model's scores as factors: ``scores = intercept + sum of
    log_table[c, x[columns]]`` on complete rows, one (n_classes, r_j) table per feature
    (a one-hot feature's weights, or a numeric feature's value times its weight) and
    one (n_classes, r_i, r_j) table per pair (the weight of the pair's joint cell of
    levels).

    Examples
    --------
    {example_logistic_model}
    >>> [(columns, table.tolist()) for columns, table in logistic_factors(model)]
    [([0], [[1.0, 0.0], [0.0, 2.0]]), ([1], [[1.0, -0.0, -1.0], [-1.0, 0.0, 1.0]])]
    """
    coef = np.asarray(model.coef, dtype=np.float64)
    r = np.asarray(model.n_categories, dtype=np.int64)
    n_features = len(r)
    pairs = np.asarray(model.pairs, dtype=np.int64).reshape(-1, 2)
    level_maps = model.pair_levels or [None] * n_features
    levels = [
        np.arange(int(n), dtype=np.int64) if m is None else np.asarray(m, dtype=np.int64)
        for n, m in zip(r, level_maps, strict=True)
    ]
    sizes = [1 if v is not None else int(n) for n, v in zip(r, model.values, strict=True)]
    sizes += [(int(levels[i].max()) + 1) * (int(levels[j].max()) + 1) for i, j in pairs]
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    if offsets[-1] != len(coef):
        raise ValueError(
            f"a logistic member with {len(coef)} weight rows, where its features and pairs "
            f"need {offsets[-1]}: it cannot be exported."
        )
    factors: Factors = []
    for j, values in enumerate(model.values):
        if values is None:
            table = coef[offsets[j] : offsets[j] + r[j]].T
        else:
            table = np.asarray(values, dtype=np.float64)[None, :] * coef[offsets[j]][:, None]
        factors.append(([j], np.ascontiguousarray(table)))
    for p, (i, j) in enumerate(pairs.tolist()):
        width = int(levels[j].max()) + 1
        cells = levels[i][:, None] * width + levels[j][None, :]  # (r_i, r_j)
        table = coef[offsets[n_features + p] + cells].transpose(2, 0, 1)
        factors.append(([i, j], np.ascontiguousarray(table)))
    return factors


def check_factors(
    factors: Factors,
    bias: NDArray[np.float64],
    reference: Any,
    n_categories: NDArray[np.intp],
    what: str,
) -> None:
    """Refuse an export whose factors do not give ``reference(codes)`` (the model's own
    scores) on :data:`PROBE_ROWS` random complete rows, to 1e-9 relative.

    Examples
    --------
    >>> table = np.log([[0.5, 0.5], [0.2, 0.8]])
    >>> check_factors([([0], table)], np.zeros(2), lambda c: table[:, c[:, 0]].T, [2], "a")
    >>> check_factors([([0], table)], np.ones(2), lambda c: table[:, c[:, 0]].T, [2], "a")
    Traceback (most recent call last):
    ...
    ValueError: the exported tables of a do not give its scores (by 0.818 at most) ...
    """
    codes = _probe_codes(n_categories)
    ours = np.tile(np.asarray(bias, dtype=np.float64), (PROBE_ROWS, 1))
    for columns, table in factors:
        for c in range(ours.shape[1]):
            ours[:, c] += table[(c, *codes[:, columns].T)]
    _compare(ours, reference(codes), what)


def _probe_codes(n_categories: Any) -> NDArray[np.int64]:
    rng = np.random.default_rng(0)
    return np.column_stack([rng.integers(0, max(int(r), 1), PROBE_ROWS) for r in n_categories])


def _compare(ours: NDArray[np.float64], theirs: Any, what: str) -> None:
    theirs = np.asarray(theirs, dtype=np.float64)
    scale = 1.0 + np.abs(theirs)
    with np.errstate(invalid="ignore"):
        gap = np.where(ours == theirs, 0.0, np.abs(ours - theirs) / scale)
    if not (gap <= 1e-9).all():
        raise ValueError(
            f"the exported tables of {what} do not give its scores (by {np.nanmax(gap):.3g} "
            "at most) on complete rows: its scoring is not what the ONNX export writes, so "
            "it is not exported."
        )


def _check_averaged(model: AveragedOneDependenceModel, what: str) -> None:
    """The graph's A1DE formula, in numpy, against the model's joint on random rows."""
    codes = _probe_codes(model.n_categories)
    offsets = np.concatenate([[0], np.cumsum(model.n_categories)[:-1]]).astype(np.int64)
    g = codes + offsets
    parent = model.parent_log[:, g].transpose(1, 0, 2)  # (n, C, d)
    children = model.child_log[:, g[:, :, None], g[:, None, :]].sum(axis=3)  # (C, n, d)
    estimators = parent + children.transpose(1, 0, 2)
    top = estimators.max(axis=2, keepdims=True)
    ours = (np.log(np.exp(estimators - top).sum(axis=2, keepdims=True)) + top)[:, :, 0]
    _compare(ours - np.log(model.n_features), model.joint_log_likelihood(codes), what)


def joint_log_proba(builder: GraphBuilder, estimator: Any, codes: str) -> str:
    """Add the scoring of ``estimator`` to ``builder``, from the int64 ``codes`` tensor
    (within range); returns the name of the (n, n_classes) tensor of ``log P(x, c)``.

    Raises
    ------
    ValueError
        For estimators that are not exported (see :func:`log_factors`), A2DE, and
        tables beyond :data:`MAX_ONNX_CELLS`.
    """
    name = check_exportable(estimator)
    model = getattr(estimator, "model_", None)
    prior = np.asarray(estimator.class_log_prior_, dtype=np.float64)
    if isinstance(model, AveragedTwoDependenceModel):
        raise ValueError(
            f"{name} with n_super_parents=2 (A2DE) is not exported to ONNX (its "
            "conditionals are indexed by triples of features); A1DE is."
        )
    if isinstance(model, AveragedOneDependenceModel):
        _check_cells(name, model.child_log.size + model.parent_log.size)
        _check_averaged(model, name)
        average = _averaged_one_dependence(builder, model, codes)
        shift = builder.constant((prior - model.class_log_prior)[None, :], "prior_shift")
        return builder.op("Add", average, shift)
    if isinstance(model, KDBEnsembleModel):
        fine = np.asarray(estimator.n_categories_, dtype=np.intp)
        pooled = _ensemble(builder, model, codes, fine, name)
        shift = builder.constant((prior - model.class_log_prior)[None, :], "prior_shift")
        return builder.op("Add", pooled, shift)
    factors, log_prior = log_factors(estimator)
    terms = builder.factor_terms(codes, factors, len(log_prior))
    return builder.total([builder.constant(log_prior[None, :], "log_prior"), *terms])


def _averaged_one_dependence(
    builder: GraphBuilder, model: AveragedOneDependenceModel, codes: str
) -> str:
    """``log P(c, x)`` of the average on complete rows (see the module notes)."""
    n_classes, width = model.parent_log.shape
    d = model.n_features
    offsets = np.concatenate([[0], np.cumsum(model.n_categories)[:-1]]).astype(np.int64)
    g = builder.op("Add", codes, builder.constant(offsets[None, :], "feature_offsets"))
    classes = np.arange(n_classes, dtype=np.int64)
    # parent[n, c, i] = parent_log[c, g_i]
    g_nci = builder.op("Unsqueeze", g, builder.axes(1))  # (n, 1, d)
    parent_index = builder.op(
        "Add", g_nci, builder.constant((classes * width)[None, :, None], "class_offsets")
    )
    parent_flat = builder.constant(model.parent_log.ravel(), "parent_log")
    parent = builder.op("Gather", parent_flat, parent_index, axis=0)
    # child[n, c, i, j] = child_log[c, g_i, g_j] (0 for j == i), summed over j
    rows = builder.op(
        "Mul",
        builder.op("Unsqueeze", g, builder.axes(1, 3)),  # (n, 1, d, 1)
        builder.constant(np.array(width, dtype=np.int64), "width"),
    )
    child_index = builder.op(
        "Add",
        builder.op("Add", rows, builder.op("Unsqueeze", g, builder.axes(1, 2))),  # (n,1,d,d)
        builder.constant((classes * width * width)[None, :, None, None], "class_offsets"),
    )
    child_flat = builder.constant(model.child_log.ravel(), "child_log")
    children = builder.op(
        "ReduceSum",
        builder.op("Gather", child_flat, child_index, axis=0),
        builder.axes(3),
        keepdims=0,
    )
    estimators = builder.op("Add", parent, children)  # (n, C, d)
    average = builder.op(
        "Sub",
        builder.logsumexp(estimators, 2),
        builder.constant(np.array([[[np.log(d)]]]), "log_d"),
    )
    return builder.op("Squeeze", average, builder.axes(2))


def _mapped_codes(
    builder: GraphBuilder, codes: str, maps: list[NDArray[np.intp] | None], fine: NDArray
) -> str:
    """The codes through a member's coarsening maps (one ``Gather`` from all columns'
    maps, the identity for unmapped columns), or ``codes`` when nothing is mapped."""
    if all(m is None for m in maps):
        return codes
    tables = [
        np.arange(int(r), dtype=np.int64) if m is None else np.asarray(m, dtype=np.int64)
        for r, m in zip(fine, maps, strict=True)
    ]
    offsets = np.concatenate([[0], np.cumsum([len(t) for t in tables])[:-1]]).astype(np.int64)
    index = builder.op("Add", codes, builder.constant(offsets[None, :], "map_offsets"))
    return builder.op("Gather", builder.constant(np.concatenate(tables), "maps"), index, axis=0)


def _ensemble(
    builder: GraphBuilder, model: KDBEnsembleModel, codes: str, fine: NDArray, name: str
) -> str:
    """The ensemble's pooled ``log P(c | x)`` on complete rows (see the module notes),
    from the codes of its own (fine) categories ``fine``."""
    n_classes = model.n_classes
    prior = np.asarray(model.class_log_prior, dtype=np.float64)
    cells = 0
    posteriors = []
    for m, (maps, member) in enumerate(zip(model.maps, model.members, strict=True)):
        factors = _k_dependence_factors(member, name)
        check_factors(
            factors,
            np.zeros(n_classes),
            member.log_likelihood,
            member.n_categories,
            f"{name}'s member {m}",
        )
        cells += sum(t.size for _, t in factors)
        mapped = _mapped_codes(builder, codes, maps, fine)
        terms = builder.factor_terms(mapped, factors, n_classes)
        joint = builder.total([builder.constant(prior[None, :], "log_prior"), *terms])
        posteriors.append(builder.op("Unsqueeze", builder.log_softmax(joint), builder.axes(0)))
    stacked = posteriors[0] if len(posteriors) == 1 else builder.op("Concat", *posteriors, axis=0)
    mean = builder.op(
        "Sub",
        builder.op("Squeeze", builder.logsumexp(stacked, 0), builder.axes(0)),
        builder.constant(np.array([[np.log(len(posteriors))]]), "log_members"),
    )
    logistic_members: list[tuple[LogisticModel | None, float, str, str]] = [
        (model.linear, float(model.linear_weight), "linear", "linear member"),
        (model.pair_member, float(model.pair_weight), model.pair_pooling, "pair member"),
    ]
    for logistic, weight, pooling, what in logistic_members:
        if logistic is None or weight <= 0:
            continue
        factors = logistic_factors(logistic)
        check_factors(
            factors, logistic.intercept, logistic.scores, logistic.n_categories, f"{name}'s {what}"
        )
        cells += sum(t.size for _, t in factors)
        terms = builder.factor_terms(codes, factors, n_classes)
        intercept = builder.constant(np.asarray(logistic.intercept, np.float64)[None, :], "bias")
        other = builder.log_softmax(builder.total([intercept, *terms]))
        mean = _pooled(builder, mean, other, weight, pooling)
    _check_cells(name, cells)
    return mean


def _pooled(builder: GraphBuilder, log_p: str, log_q: str, weight: float, pooling: str) -> str:
    """:func:`~discotree.models.ensemble.pooled_log_posterior` as graph operations."""
    if pooling not in ("log", "linear"):
        raise ValueError(f"pooling must be 'log' or 'linear', got {pooling!r}.")
    if weight >= 1:
        return log_q
    if pooling == "linear":  # log((1 - w) p + w q), as logaddexp
        a = builder.op("Add", log_p, builder.constant(np.array(np.log1p(-weight)), "log_1mw"))
        b = builder.op("Add", log_q, builder.constant(np.array(np.log(weight)), "log_w"))
        both = builder.op(
            "Concat",
            builder.op("Unsqueeze", a, builder.axes(0)),
            builder.op("Unsqueeze", b, builder.axes(0)),
            axis=0,
        )
        return builder.op("Squeeze", builder.logsumexp(both, 0), builder.axes(0))
    joint = builder.op(
        "Add",
        builder.op("Mul", log_p, builder.constant(np.array(1.0 - weight), "one_minus_w")),
        builder.op("Mul", log_q, builder.constant(np.array(weight), "w")),
    )
    return builder.log_softmax(joint)
