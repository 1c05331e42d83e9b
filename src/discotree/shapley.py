"""Shapley values of a classifier's log-odds: exact, by summing features out.

For a row ``x``, a class ``c`` and a set ``S`` of features, the value of ``S`` is the
log-odds of ``c`` given only those features,

    v_c(S) = log P(c | x_S) - log sum_{k != c} P(k | x_S),

and the Shapley value of feature ``j`` is its average marginal gain over the orders of
the features (Shapley 1953; Lundberg & Lee 2017 for its use on predictions). Three
value functions:

- ``kind="conditional"``: ``P(c | x_S)`` is the model's posterior with the features
  outside ``S`` missing, which every discotree classifier sums out exactly (for the
  Bayesian-network classifiers by marginalisation: the conditional expectation a
  tree-ensemble library can only approximate). No background data.
- ``kind="interventional"``: the features outside ``S`` take the values of background
  rows and ``v_c(S)`` is the mean over them of the log-odds of the completed rows
  (the "marginal" or interventional value function of SHAP's KernelExplainer).
- ``kind="available-case"`` (k-dependence models and kDB ensembles only): the
  posterior with the features outside ``S`` missing, each member scoring them by its
  available-case rule (:mod:`discotree.models.score_terms`): a k-dependence member
  drops a missing child's factor and backs a factor with missing parents off to the
  longest observed prefix of its parents, where ``"conditional"`` sums missing parents
  out exactly by variable elimination when that is affordable; the logistic members
  drop a missing feature's inputs (as they do under ``"conditional"``). The two kinds
  agree on every row's output and base value (nothing missing; everything missing)
  and differ between. Cheap: each member's score is a sum of small terms.

By masked predictions (``"conditional"``, ``"interventional"``): exact by enumeration
over the ``2^d`` subsets when ``d <= max_exact_features`` (``O(2^d)`` predictions per
row, times the background rows for the interventional kind); beyond, estimated by
``n_permutations`` random orders (with their antithetic reverses), each value with its
standard error. **By model structure** (``"available-case"``, and ``"conditional"``
where the model's sum over missing features is its available-case rule: naive-Bayes
members, or tables too large for elimination): each row's terms are tabulated under
every observed-pattern of their few features (one scoring of ``2^(k+1)`` masked
copies per family), then a subset's value is a sum of lookups and adding a feature
updates only the terms that read it. Exact by enumeration when ``d <=
max_exact_features``; exact term by term for two classes when the log-odds is a
weighted sum of the terms (one k-dependence model, or one member with the pair
member pooled logarithmically: each term is a game on its few features); otherwise
sampled with 512 random orders and their reverses by default, each order one pass
over the terms (see :data:`STRUCTURE_PERMUTATIONS` for the cost and the standard
errors on 200 columns). Either way the
values of a row add up to ``v_c(all) - v_c(none)``: its log-odds against the base
value.

Examples
--------
>>> from sklearn.datasets import load_iris
>>> from discotree import TANClassifier
>>> X, y = load_iris(return_X_y=True)
>>> clf = TANClassifier().fit(X, y)
>>> explanation = shapley_values(clf, X[:2])
>>> explanation.values.shape  # rows, features, classes
(2, 4, 3)
>>> total = explanation.base_values + explanation.values.sum(axis=1)
>>> bool(np.allclose(total, explanation.output))
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray
from scipy.special import logsumexp

from .config import check_memory
from .kernels.shapley_orders import order_gains, subset_values
from .models.score_terms import (
    RowTerms,
    backoff_only,
    score_terms,
    supports_score_terms,
)
from .validation import (
    arrow_to_frame,
    check_is_fitted,
    check_random_state,
    check_random_state_param,
    check_table,
    feature_names_of,
    is_count,
    validate_data,
)

__all__ = ["KINDS", "ShapleyExplanation", "log_odds", "shapley_values"]

KINDS = ("conditional", "interventional", "available-case")
_OWNER = "shapley_values"
#: At most this many rows are predicted at once (masked copies of the explained rows).
CHUNK_ROWS = 65_536
#: Random orders (each with its reverse) per row of the sampled values, by default:
#: by masked predictions, and by model structure, where an order costs one pass over
#: the row's terms: on the generated 200 binary columns and 3 classes of
#: ``benchmarks/bench_ensemble_cost.py`` and the default ensemble (10 members, about
#: 7,600 (term, feature) pairs a row), 512 orders and their reverses took 0.61-0.74 s a
#: row, the terms' tabulation included, with standard errors of at most 0.0068 nats
#: (median 0.0007) on values of up to about 0.9 (``benchmarks/results/ensemble_cost.md``).
MASKED_PERMUTATIONS = 64
STRUCTURE_PERMUTATIONS = 512
#: Rows whose terms are tabulated at once by the structure path.
STRUCTURE_CHUNK_ROWS = 64


@dataclass
class ShapleyExplanation:
    """Shapley values of the log-odds of every class.

    Attributes
    ----------
    values : ndarray of shape (n_rows, n_features, n_classes)
    base_values : ndarray of shape (n_rows, n_classes)
        ``v_c(none)``: the log-odds with no feature known (conditional) or averaged
        over the background (interventional).
    output : ndarray of shape (n_rows, n_classes)
        ``v_c(all)``: the row's log-odds; ``base_values + values.sum(axis=1)``.
    standard_errors : ndarray of shape (n_rows, n_features, n_classes) or None
        Of the sampled estimates; None when exact.
    feature_names : list of str
    classes : ndarray
    kind : {"conditional", "interventional"}
    exact : bool
    data : DataFrame or ndarray
        The explained rows.
    """

    values: NDArray[np.float64]
    base_values: NDArray[np.float64]
    output: NDArray[np.float64]
    standard_errors: NDArray[np.float64] | None
    feature_names: list[str]
    classes: NDArray[Any]
    kind: str
    exact: bool
    data: Any

    def to_shap(self, class_index: int = -1):
        """The values of one class as a ``shap.Explanation`` (for SHAP's plots; needs
        the ``shap`` package). ``class_index=-1``: the last class (the positive one of
        a binary problem)."""
        import shap

        data = self.data.to_numpy() if isinstance(self.data, pd.DataFrame) else self.data
        return shap.Explanation(
            values=self.values[:, :, class_index],
            base_values=self.base_values[:, class_index],
            data=data,
            feature_names=self.feature_names,
        )


def log_odds(log_proba: NDArray[np.float64]) -> NDArray[np.float64]:
    """``log P(c) - log sum_{k != c} P(k)`` of every row and class, from log
    probabilities, without cancellation (for two classes: ``+-(log P(1) - log P(0))``).

    Examples
    --------
    >>> log_odds(np.log([[0.2, 0.8]])).round(4)
    array([[-1.3863,  1.3863]])
    """
    log_proba = np.asarray(log_proba, dtype=np.float64)
    n_classes = log_proba.shape[1]
    others = np.empty_like(log_proba)
    for c in range(n_classes):
        rest = np.delete(log_proba, c, axis=1)
        others[:, c] = logsumexp(rest, axis=1)
    return log_proba - others


def _frame_of(estimator: Any, X: Any, what: str = "X") -> tuple[Any, list[str]]:
    """``what`` (X or background) as a DataFrame or array with the estimator's columns
    (by name when it was fitted with names, as its ``predict`` checks them), and the
    feature names."""
    X = arrow_to_frame(X)
    if not isinstance(X, pd.DataFrame):
        X = np.asarray(X)
        if X.ndim != 2:
            raise ValueError(f"{_OWNER}: {what} must be a 2-D table of rows; got {X.ndim} dims.")
    try:
        validate_data(estimator, X, skip_check_array=True, reset=False)
    except ValueError as err:
        raise ValueError(f"{_OWNER}: {what} does not have the estimator's columns: {err}") from err
    if isinstance(X, pd.DataFrame):
        return X.reset_index(drop=True), [str(c) for c in X.columns]
    return X, feature_names_of(estimator)


def _check_background(X: Any, background: Any) -> None:
    """Refuse background rows whose columns are not X's (by name when both have names)."""
    if background.shape[1] != X.shape[1] or len(background) == 0:
        raise ValueError(
            f"{_OWNER}: background needs rows with X's {X.shape[1]} columns; got shape "
            f"{background.shape}."
        )
    if isinstance(X, pd.DataFrame) and isinstance(background, pd.DataFrame):
        if list(background.columns) != list(X.columns):
            extra = [c for c in background.columns if c not in X.columns]
            missing = [c for c in X.columns if c not in background.columns]
            detail = (
                f"it has {extra} and lacks {missing}" if extra or missing else "in another order"
            )
            raise ValueError(
                f"{_OWNER}: background's columns are not X's ({list(X.columns)}): {detail}."
            )


def _check_options(max_exact_features: Any, n_permutations: Any, random_state: Any) -> None:
    if not is_count(max_exact_features, 0):
        raise ValueError(
            f"{_OWNER}: max_exact_features must be an integer >= 0, got {max_exact_features!r}."
        )
    if n_permutations is not None and not is_count(n_permutations, 2):
        raise ValueError(
            f"{_OWNER}: n_permutations must be None or an integer >= 2 (a standard error "
            f"needs two draws), got {n_permutations!r}."
        )
    check_random_state_param(random_state, _OWNER)


def _check_size(n_subsets: int, d: int, n_back: int, n_classes: int, exact: bool) -> None:
    """The memory guard, before anything is allocated: per explained row, the subsets'
    masks and masked (or completed) rows, and for the exact values the plan."""
    masks = d * (1.0 + n_back)  # a subset's mask, repeated per background row
    rows = 16.0 * d * n_back  # its rows (a copy, then the masked or completed one)
    per_subset = masks + rows + 8.0 * n_classes * (n_back + 2) + 16.0
    plan = 12.0 * d * n_subsets if exact else 8.0 * n_classes * n_subsets
    what = (
        f"exact Shapley values of {d} features (2**{d} subsets per row)"
        if exact
        else f"sampled Shapley values ({n_subsets // (d + 1)} orders of {d} features per row)"
    )
    try:
        check_memory(n_subsets * per_subset + plan, what, _OWNER)
    except ValueError as err:
        fix = (
            f"set max_exact_features below {d}: sampled values need far less"
            if exact
            else "lower n_permutations (or pass fewer background rows)"
        )
        raise ValueError(f"{err} Or {fix}.") from err


def _masked(rows: Any, keep: NDArray[np.bool_]) -> Any:
    """``rows`` (one per mask) with the cells where ``keep`` is False missing."""
    if isinstance(rows, pd.DataFrame):
        return rows.mask(~keep)
    if rows.dtype.kind in "iufb":
        out = rows.astype(np.float64)
        out[~keep] = np.nan
        return out
    out = rows.astype(object)
    out[~keep] = None
    return out


def _take(X: Any, index: NDArray[np.intp]) -> Any:
    return X.iloc[index].reset_index(drop=True) if isinstance(X, pd.DataFrame) else X[index]


def _mixed(X: Any, background: Any, i: int, b_index: NDArray, keep: NDArray) -> Any:
    """Row i of X where ``keep``, the background rows ``b_index`` elsewhere."""
    base = _take(background, b_index)
    row = _take(X, np.full(len(b_index), i, dtype=np.intp))
    if isinstance(X, pd.DataFrame):
        return row.where(keep, base)
    return np.where(keep, row, base)


def _values(estimator: Any, rows: Any) -> NDArray[np.float64]:
    out = []
    n = len(rows)
    for start in range(0, n, CHUNK_ROWS):
        part = (
            rows.iloc[start : start + CHUNK_ROWS]
            if isinstance(rows, pd.DataFrame)
            else (rows[start : start + CHUNK_ROWS])
        )
        if hasattr(estimator, "predict_log_proba"):
            log_proba = estimator.predict_log_proba(part)
        else:  # (the forest density classifier gives probabilities only)
            with np.errstate(divide="ignore"):
                log_proba = np.log(np.clip(estimator.predict_proba(part), 1e-300, None))
        out.append(log_odds(log_proba))
    return np.concatenate(out)


def _subset_weights(d: int) -> NDArray[np.float64]:
    """``|S|! (d - |S| - 1)! / d!`` for |S| = 0..d-1."""
    return np.array(
        [math.factorial(s) * math.factorial(d - s - 1) / math.factorial(d) for s in range(d)]
    )


def _exact_plan(d: int) -> list[tuple[NDArray[np.intp], NDArray[np.intp], NDArray]]:
    """Per feature j: the subsets without j, the same with j (bit masks) and their
    Shapley weights; made once for all rows."""
    masks = np.arange(2**d)
    sizes = np.array([bin(m).count("1") for m in masks])
    weights = _subset_weights(d)
    plan = []
    for j in range(d):
        without = masks[(masks >> j) & 1 == 0]
        plan.append((without, without | (1 << j), weights[sizes[without]]))
    return plan


def _exact(v: NDArray[np.float64], plan: list) -> NDArray[np.float64]:
    """Shapley values (d, C) from ``v`` (2^d, C), subsets as bit masks."""
    return np.stack([w @ (v[with_j] - v[without]) for without, with_j, w in plan])


def shapley_values(
    estimator: Any,
    X: Any,
    *,
    kind: str = "conditional",
    background: Any = None,
    max_exact_features: int = 12,
    n_permutations: int | None = None,
    random_state: Any = None,
) -> ShapleyExplanation:
    """Shapley values of the log-odds of every class for the rows of ``X``.

    Parameters
    ----------
    estimator : fitted classifier with ``predict_log_proba`` or ``predict_proba``
        For ``kind="conditional"`` it must sum missing features out (the discrete
        models do; the kernel and forest-density models refuse missing values: use
        ``kind="interventional"`` for them).
    X : array-like, DataFrame or Arrow table of shape (n_rows, n_features)
        The rows to explain.
    kind : {"conditional", "interventional", "available-case"}, default="conditional"
        See the module docstring.
    background : array-like or DataFrame, optional
        ``kind="interventional"`` only (required there): the rows whose values stand
        in for the features outside a subset (a sample of the training data).
    max_exact_features : int, default=12
        Enumerate the ``2^d`` subsets up to this many features; sample beyond.
    n_permutations : int or None, default=None
        Sampled estimates: random orders per row (each with its reverse), at least 2.
        None: :data:`MASKED_PERMUTATIONS` (64) by masked predictions,
        :data:`STRUCTURE_PERMUTATIONS` (512) by model structure, where an order
        costs a pass over the row's terms (standard errors about 3 times smaller).
    random_state : int, RandomState or None
        The orders of sampled estimates.

    Returns
    -------
    ShapleyExplanation

    Raises
    ------
    ValueError
        For bad arguments, columns (of X or the background) other than the
        estimator's, or when one row's subsets would need more memory than the
        ``memory_limit`` configuration key (checked before allocating; exact values
        of ``d`` features take about ``2^d * 30 d`` bytes, 0.6 GiB at ``d = 20``: lower
        ``max_exact_features`` to sample instead).
    """
    check_is_fitted(estimator)
    if kind not in KINDS:
        raise ValueError(f"{_OWNER}: kind must be one of {KINDS}, got {kind!r}.")
    _check_options(max_exact_features, n_permutations, random_state)
    X, names = _frame_of(estimator, X)
    n, d = X.shape
    if d == 0 or n == 0:
        raise ValueError(f"{_OWNER}: X has no rows or no features to explain.")
    if kind == "interventional":
        if background is None:
            raise ValueError(f"{_OWNER}: kind='interventional' needs background rows.")
        background, _ = _frame_of(estimator, background, "background")
        _check_background(X, background)
    elif background is not None:
        raise ValueError(f"{_OWNER}: background is for kind='interventional' only.")
    model = _structure_model(estimator, kind)
    if model is not None:
        return _structure_explanation(
            estimator,
            model,
            X,
            names,
            kind,
            max_exact_features=max_exact_features,
            n_permutations=n_permutations,
            random_state=random_state,
        )
    if kind == "available-case":
        raise ValueError(
            f"{_OWNER}: kind='available-case' needs a k-dependence model or a kDB "
            f"ensemble (scores made of small terms); {type(estimator).__name__} is "
            "neither: use kind='conditional'."
        )
    n_permutations = MASKED_PERMUTATIONS if n_permutations is None else n_permutations
    exact = d <= max_exact_features
    n_classes = len(estimator.classes_)
    n_subsets = 2**d if exact else 2 * n_permutations * (d + 1)
    n_back = 1 if background is None else len(background)
    _check_size(n_subsets, d, n_back, n_classes, exact)
    values = np.empty((n, d, n_classes))
    errors = None if exact else np.empty((n, d, n_classes))
    base = np.empty((n, n_classes))
    output = np.empty((n, n_classes))
    rng = check_random_state(random_state)
    if exact:
        masks = np.arange(2**d)
        keep_all = ((masks[:, None] >> np.arange(d)) & 1).astype(bool)  # (2^d, d)
        plan = _exact_plan(d)
    for i in range(n):
        if exact:
            v = _subset_value(estimator, X, background, i, keep_all, kind=kind)
            values[i] = _exact(v, plan)
            base[i], output[i] = v[0], v[-1]
            continue
        orders = [rng.permutation(d) for _ in range(n_permutations)]
        orders += [order[::-1] for order in orders]
        keep = np.zeros((len(orders), d + 1, d), dtype=bool)
        for o, order in enumerate(orders):
            for step in range(1, d + 1):
                keep[o, step, order[:step]] = True
        v = _subset_value(estimator, X, background, i, keep.reshape(-1, d), kind=kind)
        v = v.reshape(len(orders), d + 1, n_classes)
        gains = np.empty((len(orders), d, n_classes))
        for o, order in enumerate(orders):
            gains[o, order] = np.diff(v[o], axis=0)
        values[i] = gains.mean(axis=0)
        # a pair (order, reverse) is one draw: the standard error over the pairs
        pairs = (gains[:n_permutations] + gains[n_permutations:]) / 2
        errors[i] = pairs.std(axis=0, ddof=1) / np.sqrt(n_permutations)  # type: ignore[index]
        base[i], output[i] = v[0, 0], v[0, -1]
    return ShapleyExplanation(
        values, base, output, errors, names, np.asarray(estimator.classes_), kind, exact, X
    )


def _subset_value(
    estimator: Any, X: Any, background: Any, i: int, keep: NDArray[np.bool_], *, kind: str
) -> NDArray[np.float64]:
    """``v_c(S)`` of row i for every subset (row of ``keep``), shape (len(keep), C)."""
    if kind == "conditional":
        rows = _take(X, np.full(len(keep), i, dtype=np.intp))
        try:
            return _values(estimator, _masked(rows, keep))
        except ValueError as err:
            if "missing" not in str(err).lower() and "nan" not in str(err).lower():
                raise
            raise ValueError(
                f"shapley_values: kind='conditional' needs a model that sums missing "
                f"features out, and {type(estimator).__name__} refuses them ({err}); use "
                "kind='interventional' with background rows."
            ) from err
    n_back = len(background)
    b_index = np.tile(np.arange(n_back), len(keep))
    mixed = _mixed(X, background, i, b_index, np.repeat(keep, n_back, axis=0))
    return _values(estimator, mixed).reshape(len(keep), n_back, -1).mean(axis=1)


def _structure_model(estimator: Any, kind: str) -> Any:
    """The fitted model whose score terms give the values (None: masked predictions).
    ``kind="available-case"``: any model :func:`supports_score_terms` decomposes;
    ``"conditional"``: only where that equals the model's own sum over missing
    features (every k-dependence member scores them by its back-off rule, which
    :func:`~discotree.models.score_terms.backoff_only` says)."""
    model = getattr(estimator, "model_", None)
    if kind == "interventional" or not supports_score_terms(model):
        return None
    if kind == "available-case":
        return model
    members = getattr(model, "members", [model])
    return model if all(backoff_only(m) for m in members) else None


def _term_game_matrix(size: int) -> NDArray[np.float64]:
    """(2^size, size): the Shapley value of player b of a game on ``size`` players is
    ``table @ M[:, b]``, ``table`` its value per pattern (bit b: player b in)."""
    patterns = np.arange(1 << size)
    inside = ((patterns[:, None] >> np.arange(size)) & 1).astype(bool)
    count = inside.sum(axis=1)
    weights = np.append(_subset_weights(size), 0.0)  # (a pattern of every player: unused)
    return np.where(inside, weights[np.maximum(count - 1, 0)][:, None], -weights[count][:, None])


def _additive_values(
    terms: RowTerms, alpha: NDArray[np.float64], ends: NDArray[np.float64]
) -> NDArray[np.float64]:
    """Exact values of class 1 of a two-class model whose log-odds is ``sum_g alpha_g
    (score_g[1] - score_g[0])``: each term's small game's values, plus the share of
    the one non-additive rule (the logistic members' prior when no feature is
    observed: ``-delta / |observed|`` for each observed feature, where ``delta`` is
    the value of no feature less the terms' sum)."""
    d = len(terms.observed)
    phi = np.zeros(d)
    scale = alpha[terms.groups]
    diff = terms.tables[:, 1] - terms.tables[:, 0]
    empty = float(alpha @ (terms.base[:, 1] - terms.base[:, 0]))
    empty += float(scale @ diff[terms.offsets[:-1]])
    for size in np.unique(terms.sizes):
        chosen = np.flatnonzero(terms.sizes == size)
        rows = terms.offsets[chosen][:, None] + np.arange(1 << size)
        games = diff[rows] * scale[chosen][:, None]  # (terms, 2^size)
        np.add.at(phi, terms.features[chosen, :size], games @ _term_game_matrix(int(size)))
    observed = np.flatnonzero(terms.observed)
    if len(observed):
        phi[observed] -= (ends[0] - empty) / len(observed)
    return phi


def _structure_explanation(
    estimator: Any,
    model: Any,
    X: Any,
    names: list[str],
    kind: str,
    *,
    max_exact_features: int,
    n_permutations: int | None,
    random_state: Any,
) -> ShapleyExplanation:
    """:func:`shapley_values` from the model's score terms
    (:mod:`discotree.models.score_terms`): exact by every subset's value (``d <=
    max_exact_features``), exact term by term (two classes, log-odds additive over the
    terms: :meth:`~discotree.models.score_terms.ScorePooling.additive_weights`), or
    sampled over random orders (each with its reverse), each order one pass over the
    terms (:func:`~discotree.kernels.shapley_orders.order_gains`)."""
    codes = estimator.encoder_.transform(check_table(X, type(estimator).__name__))
    n, d = codes.shape
    n_classes = len(estimator.classes_)
    prior = np.asarray(getattr(estimator, "class_log_prior_", np.zeros(n_classes)))
    n_orders = STRUCTURE_PERMUTATIONS if n_permutations is None else n_permutations
    rng = check_random_state(random_state)
    values = np.empty((n, d, n_classes))
    base, output = np.empty((n, n_classes)), np.empty((n, n_classes))
    errors: NDArray[np.float64] | None = None
    by_subsets = d <= max_exact_features
    plan = _exact_plan(d) if by_subsets else []
    check_memory(
        8.0 * n_classes * (2**d if by_subsets else 2 * n_orders * d), "the values of a row", _OWNER
    )
    for start in range(0, n, STRUCTURE_CHUNK_ROWS):
        rows, pooling = score_terms(model, prior, codes[start : start + STRUCTURE_CHUNK_ROWS])
        alpha = pooling.additive_weights() if n_classes == 2 else None
        for i, terms in enumerate(rows, start):
            if by_subsets:
                v = subset_values(terms, pooling, np.arange(2**d))
                values[i] = _exact(v, plan)
                base[i], output[i] = v[0], v[-1]
                continue
            identity = np.arange(d)[None]
            if alpha is not None:
                _, base[i], output[i] = order_gains(terms, pooling, identity)
                phi = _additive_values(terms, alpha, np.stack([base[i, 1], output[i, 1]]))
                values[i] = np.stack([-phi, phi], axis=1)
                continue
            if errors is None:
                errors = np.empty((n, d, n_classes))
            orders = np.array([rng.permutation(d) for _ in range(n_orders)])
            gains, base[i], output[i] = order_gains(
                terms, pooling, np.concatenate([orders, orders[:, ::-1]])
            )
            values[i] = gains.mean(axis=0)
            pairs = (gains[:n_orders] + gains[n_orders:]) / 2
            errors[i] = pairs.std(axis=0, ddof=1) / np.sqrt(n_orders)
    exact = errors is None
    return ShapleyExplanation(
        values, base, output, errors, names, np.asarray(estimator.classes_), kind, exact, X
    )
