"""Dask as the engine of the counting classifiers (the optional extra ``discotree[dask]``).

``fit`` on a ``dask.dataframe`` or ``dask.array`` (naive Bayes, Chow-Liu, TAN-CMI, the
discriminative tree pair) runs two passes over the partitions, wherever they live:

1. the *schema pass*: each partition reports its labels, its columns' distinct values
   (capped) and, for numeric columns, a weighted quantile sketch; the client merges
   them into the classes, the categories and the bins (the same rules as ``fit``:
   a numeric column with at most ``max_categories`` values is categorical, else
   binned; fixed ``Discretizer(bin_edges=...)`` bins every numeric column);
2. the *counting pass*: each partition is encoded and counted
   (:meth:`~discotree.StatisticsSchema.count`), and the statistics are added by a tree
   reduction. Structure and parameters are learnt once, on the client, from the sum.

With ``alpha="auto"`` the counting pass also counts each cross-validation fold (folds
hash the rows' codes, as in memory) and a *scoring pass* scores each partition's
held-out rows for every alpha; only sums come back. Nothing ever brings the rows to
the client. ``predict*`` and ``decision_function`` on dask input return lazy dask
arrays (``map_blocks`` / ``map_partitions``).

Dask's current scheduler is used: the local threaded one by default, a
``distributed.Client`` (``LocalCluster`` or a real cluster) when one is active.
"""

from __future__ import annotations

import itertools
import operator
from typing import Any

import dask
import dask.array as da
import dask.dataframe as dd
import numpy as np
import pandas as pd

from ..config import get_config
from ..learners.registry import Counts, get_learner
from ..numerics import class_log_prior
from ..stats.alpha_selection import (
    choose_alpha,
    content_folds,
    distinct_row_hashes,
    held_out_losses,
    row_hashes,
)
from ..stats.pair_statistics import PairStatistics
from ..sufficient_statistics import StatisticsSchema, add_statistics
from .schema_summaries import merge_summaries, schema_from_summary, summarise_part

__all__ = [
    "fit_dask",
    "predict_dask",
    "row_partitions",
    "schema_pass",
    "tree_sum",
]

#: Methods whose predictions keep one value per row.
_ROW_METHODS = ("predict",)


# ----------------------------------------------------------------------- partitions
def row_partitions(X: Any, y: Any = None, sample_weight: Any = None) -> list[tuple]:
    """Aligned delayed row partitions ``(X_part, y_part, weight_part)``.

    ``X`` is a dask DataFrame or a 2-D dask Array; ``y`` and ``sample_weight`` are
    dask Series/Arrays partitioned like it, or in-memory arrays (split by the
    partition lengths, one small pass).
    """
    if isinstance(X, da.Array):
        if X.ndim != 2:
            raise ValueError(f"X must be 2-D, got a dask array of shape {X.shape}.")
        X = X.rechunk({1: -1})
        parts = list(X.to_delayed().ravel())
        lengths = X.chunks[0]
        if any(np.isnan(n) for n in lengths):
            lengths = tuple(
                X.map_blocks(lambda b: np.array([len(b)]), chunks=(1,), drop_axis=1).compute()
            )
    elif isinstance(X, dd.DataFrame):
        given = {n: v for n, v in ((_TARGET, y), (_WEIGHT, sample_weight)) if v is not None}
        for name, v in given.items():
            what = "y" if name == _TARGET else "sample_weight"
            if isinstance(v, dd.Series) and X.known_divisions and v.known_divisions:
                if (v.divisions[0], v.divisions[-1]) != (X.divisions[0], X.divisions[-1]):
                    raise ValueError(
                        f"X's index runs from {X.divisions[0]} to {X.divisions[-1]} but "
                        f"{what}'s from {v.divisions[0]} to {v.divisions[-1]}: they must "
                        "have one entry for each row of X (the same index)."
                    )
        if given and all(isinstance(v, dd.Series) for v in given.values()):
            combined = X.assign(**given)  # one frame: each partition holds its labels
            return [
                dask.delayed(_split_columns, nout=3)(part, list(given))
                for part in combined.to_delayed()
            ]
        parts = list(X.to_delayed())
        lengths = None
    else:
        raise TypeError(f"X must be a dask DataFrame or Array, got {type(X).__name__}.")

    def split(v: Any) -> list:
        nonlocal lengths
        if v is None:
            return [None] * len(parts)
        if lengths is None:
            lengths = tuple(X.map_partitions(len).compute())
        if isinstance(v, da.Array):
            return list(v.rechunk((tuple(lengths),)).to_delayed().ravel())
        if isinstance(v, dd.Series | dd.DataFrame):
            v = v.to_dask_array(lengths=True)
            return list(v.rechunk((tuple(lengths),)).to_delayed().ravel())
        values = np.asarray(v)
        cuts = np.cumsum((0, *lengths))
        if cuts[-1] != len(values):
            raise ValueError(f"X has {cuts[-1]} rows but y has {len(values)} labels.")
        return [values[a:b] for a, b in itertools.pairwise(cuts)]

    return list(zip(parts, split(y), split(sample_weight), strict=True))


_TARGET, _WEIGHT = "__discotree_target__", "__discotree_weight__"


def _split_columns(part: Any, added: list[str]) -> tuple:
    """(X, y, weights) of a partition of X with the label and weight columns added.

    The columns were aligned to X by index: a row of X without a label means ``y`` is
    shorter than ``X`` (or indexed otherwise), or has missing labels."""
    y = part[_TARGET].to_numpy() if _TARGET in added else None
    if y is not None and pd.isna(y).any():
        rows = part.index[pd.isna(y)][:5].tolist()
        raise ValueError(
            f"y has no label for the rows of X with index {rows}: y is shorter than X or "
            "not indexed like it (dask aligns y to X by index), or has missing labels."
        )
    w = part[_WEIGHT].to_numpy() if _WEIGHT in added else None
    return part.drop(columns=added), y, w


def tree_sum(items: list, combine=operator.add) -> Any:
    """Combine delayed values pairwise, a tree of depth log2 of their number."""
    if not items:
        raise ValueError("no partitions to combine")
    while len(items) > 1:
        pairs = [dask.delayed(combine)(items[k], items[k + 1]) for k in range(0, len(items) - 1, 2)]
        items = pairs + ([items[-1]] if len(items) % 2 else [])
    return items[0]


# ---------------------------------------------------------------------- schema pass
def schema_pass(estimator: Any, parts: list[tuple], names: Any) -> StatisticsSchema:
    """The schema of the whole collection, from one pass over its partitions
    (:mod:`discotree.engines.schema_summaries`)."""
    owner = type(estimator).__name__
    max_categories = int(estimator.max_categories)
    limit = get_config()["category_limit"]
    summaries = [
        dask.delayed(summarise_part)(x, y, w, max_categories, limit, owner) for x, y, w in parts
    ]
    summary = tree_sum(summaries, merge_summaries).compute()
    return schema_from_summary(summary, names, max_categories, estimator.discretizer, owner)


# -------------------------------------------------------------------- counting pass
def encode_partition(schema: StatisticsSchema, x: Any, y: Any, w: Any):
    """A partition as (codes, class index, weights), rows of weight zero left out."""
    return schema.encode(x, y, w)


def _count_partition(schema, encoded, n_folds: int):
    """The partition's statistics, and with ``n_folds`` those of each fold's rows."""
    codes, class_index, weights = encoded
    total = schema.count_codes(codes, class_index, weights)
    if n_folds == 0:
        return total
    folds = content_folds(codes, n_folds)
    per_fold = []
    for k in range(n_folds):
        rows = folds == k
        part_weights = None if weights is None else weights[rows]
        per_fold.append(schema.count_codes(codes[rows], class_index[rows], part_weights))
    return [total, *per_fold]


def _family_partition(schema, encoded, parents: list[tuple[int, ...]], learner) -> list:
    """The learner's second pass on a partition (:meth:`Learner.families`: the family
    counts of every attribute, or kDB's sparse prefix tables)."""
    codes, class_index, weights = encoded
    w = np.ones(len(codes)) if weights is None else weights
    n_classes = len(schema.classes)
    return learner.families(codes, class_index, w, n_classes, schema.n_categories, parents)


def _score_rows_partition(score, counts, spec, encoded):
    """A learner's third pass on a partition (its sums add over partitions)."""
    codes, class_index, weights = encoded
    return score(counts, spec, codes, class_index, weights)


# ---------------------------------------------------------------------- alpha="auto"
def _distinct_rows(schema, encoded, cap: int) -> list[set]:
    """Up to ``cap`` distinct row hashes per class (the number of folds needs them; the
    rule of :func:`~discotree.stats.alpha_selection.select_alpha`)."""
    codes, class_index, _ = encoded
    return distinct_row_hashes(row_hashes(codes), class_index, len(schema.classes), cap)


def _merge_distinct(a: list[set], b: list[set]) -> list[set]:
    return [p | q for p, q in zip(a, b, strict=True)]


def _score_partition(
    schema, encoded, n_folds: int, fold_models: list, log_priors: list, scales: tuple
):
    """Held-out weight of errors and log-loss of every (fold, alpha) on a partition,
    then the log-loss of each calibration scale (the rule of
    :func:`~discotree.stats.alpha_selection.held_out_losses`, as in memory)."""
    n_alphas = len(fold_models[0])
    losses = np.zeros((n_folds, 2 + len(scales), n_alphas))  # per fold, for the rule
    codes, class_index, weights = encoded
    if len(codes) == 0:
        return losses
    w_all = np.ones(len(codes)) if weights is None else weights
    folds = content_folds(codes, n_folds)
    n_classes = len(schema.classes)
    for k in range(n_folds):
        held = np.flatnonzero(folds == k)
        if len(held) == 0:
            continue
        held_codes = codes[held]
        joints = np.empty((len(held), n_classes, n_alphas))
        for a, model in enumerate(fold_models[k]):  # any kind: the losses softmax them
            joints[:, :, a] = model.class_scores(held_codes, log_priors[k])
        losses[k] += held_out_losses(joints, class_index[held], w_all[held], scales)
    return losses


def _alpha_by_distributed_cv(spec, schema, encoded, stats_per_fold, total, *, n_folds):
    """The alpha choice of :func:`~discotree.stats.alpha_selection.select_alpha`, from fold
    statistics (the learner's models for every alpha) and a scoring pass over the
    partitions: ``(alpha, losses)`` as ``fit_from_statistics(alpha_search=...)`` takes."""
    grid = spec.alpha_grid
    model_for = get_learner(spec.learner).model_for(spec, grid)
    fold_models, log_priors = [], []
    for k in range(n_folds):
        part = stats_per_fold[k]
        train = PairStatistics(total.counts, total.n_categories) - PairStatistics(
            part.counts, part.n_categories
        )
        prior_counts = np.maximum(total.class_weight - part.class_weight, 0)
        log_priors.append(class_log_prior(prior_counts, pseudo_count=1.0))
        fit = model_for(train, None)
        fold_models.append([fit(alpha) for alpha in grid])
    scales = spec.calibration_scales
    scored = [
        dask.delayed(_score_partition)(schema, part, n_folds, fold_models, log_priors, scales)
        for part in encoded
    ]
    per_fold = tree_sum(scored, operator.add).compute()
    best = choose_alpha(per_fold[:, :2], grid)  # the rule of select_alpha
    return float(grid[best]), per_fold.sum(axis=0)


# --------------------------------------------------------------------------- fitting
def _third_pass(learner, spec, schema, total, families, *, encoded) -> Any:
    """The learner's sums over the rows under the counts of all of them (selective
    kDB's leave-one-out losses), or None when it has no third pass."""
    if learner.score_rows is None or not spec.options.selective:
        return None
    counts = Counts(schema.n_categories, np.asarray(total.class_weight), total, families)
    scored = [
        dask.delayed(_score_rows_partition)(learner.score_rows, counts, spec, part)
        for part in encoded
    ]
    return tree_sum(scored).compute()


def fit_dask(estimator: Any, X: Any, y: Any, sample_weight: Any = None) -> Any:
    """``estimator.fit`` on dask collections (see the module docstring): the
    estimator's learner (:meth:`learner_spec`) from the statistics summed over the
    partitions, handed to its public ``fit_from_statistics``."""
    name = type(estimator).__name__
    if not hasattr(estimator, "fit_from_statistics"):
        raise TypeError(
            f"{name} with these parameters does not fit from dask collections (only the "
            "models learnt from counts do: naive Bayes, Chow-Liu, TAN-CMI, discriminative "
            "trees); fit it on a sample computed to memory."
        )
    if y is None:
        raise ValueError(f"{name} requires y to be passed, but the target y is None.")
    spec = estimator.learner_spec()  # validates the parameters; refuses row learners
    learner = get_learner(spec.learner)
    auto = spec.alpha == "auto"
    second_pass = learner.reads == "pairs, then families"
    if auto and learner.models_by_alpha is None:
        raise ValueError(
            f"{name}: alpha='auto' with these parameters (learner {learner.name!r}) would "
            "need the family counts of every fold's parents on dask input; give alpha a "
            "number (supported), or fit on a sample."
        )
    names = list(X.columns) if isinstance(X, dd.DataFrame) else None
    if names is not None and not all(isinstance(n, str) for n in names):
        names = None
    parts = row_partitions(X, y, sample_weight)
    schema = schema_pass(estimator, parts, names)
    if len(schema.classes) < 2:
        raise ValueError(f"{name}: y contains only 1 class; at least two are needed.")
    encoded = [dask.delayed(encode_partition)(schema, x, y_, w) for x, y_, w in parts]
    if auto or second_pass:  # several passes: the codes (a byte per cell) stay there
        encoded = list(dask.persist(*encoded))
    n_folds = 0
    if auto:
        distinct = tree_sum(
            [dask.delayed(_distinct_rows)(schema, part, 5) for part in encoded], _merge_distinct
        ).compute()
        n_folds = min(5, min(len(s) for s in distinct))
    counted = [dask.delayed(_count_partition)(schema, part, n_folds) for part in encoded]
    combined = tree_sum(counted, add_statistics if n_folds else operator.add).compute()
    total = combined[0] if n_folds else combined
    families = None
    if second_pass:  # the family counts of the parents chosen from the pair statistics
        assert learner.structure is not None
        parents = learner.structure(total, spec)
        counted_families = [
            dask.delayed(_family_partition)(schema, part, parents, learner) for part in encoded
        ]
        families = tree_sum(counted_families, add_statistics).compute()
    scores = _third_pass(learner, spec, schema, total, families, encoded=encoded)
    search = None
    if auto:
        if n_folds < 2:
            search = (1.0, np.zeros((2, len(spec.alpha_grid))))
        else:
            search = _alpha_by_distributed_cv(
                spec, schema, encoded, combined[1:], total, n_folds=n_folds
            )
    return estimator.fit_from_statistics(
        total, families=families, alpha_search=search, scores=scores
    )


# ------------------------------------------------------------------------ prediction
def predict_dask(estimator: Any, method: str, X: Any) -> Any:
    """``estimator.<method>(X)`` on a dask collection, as a lazy dask array."""
    # a fitted attribute learns a partial_fit's model now (the lazy rule of
    # partial_fit): the learnt model is shipped, not the counts
    getattr(estimator, "model_", None)
    n_classes = len(estimator.classes_)
    if method in _ROW_METHODS or (method == "decision_function" and n_classes == 2):
        dtype = estimator.classes_.dtype if method == "predict" else np.float64
        width = None
    else:
        dtype, width = np.float64, n_classes

    def apply(block: Any) -> np.ndarray:
        if len(block) == 0:
            return np.empty((0,) if width is None else (0, width), dtype=dtype)
        return getattr(estimator, method)(block)

    if isinstance(X, da.Array):
        X = X.rechunk({1: -1})
        if width is None:
            return X.map_blocks(apply, drop_axis=1, dtype=dtype)
        return X.map_blocks(apply, chunks=(X.chunks[0], (width,)), dtype=dtype)
    meta = np.empty((0,) if width is None else (0, width), dtype=dtype)
    return X.map_partitions(apply, meta=meta)
