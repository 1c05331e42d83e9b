"""The one input of an estimator's fit, and the alpha cross-validation that reads it.

Every way of fitting a classifier of :mod:`discotree.classifiers` (``fit`` on rows in
memory, ``partial_fit``'s accumulated counts, ``fit_from_statistics`` with what an
engine counted elsewhere) builds one :class:`FitInput`: the classes, the encoder, the
class weights, the validated pseudo-count and floor, and whatever the data gave (the
encoded rows, or the counts, the families and scores of an engine's later passes, an
alpha an engine's cross-validation chose). The estimator then computes every fitted
attribute from it into locals and assigns them at one point
(``docs/design/architecture.md``, "The fit pipeline").

:func:`cross_validate_alpha` is ``alpha="auto"``'s cross-validation over a fit input:
the estimator hands it the learner's ``model_for`` (the models of every alpha of the grid
from a fold's counts) and gets the chosen alpha, its losses and the input with the
totals counted on the way (so that the final fit does not count them again).

Examples
--------
>>> import numpy as np
>>> from discotree.transformers.encoder import TableEncoder
>>> from discotree.validation import check_table
>>> codes = np.array([[0, 1], [1, 1], [1, 0], [0, 0]])
>>> encoder = TableEncoder(10, None, "doc")
>>> _ = encoder.fit_transform(check_table(codes, "doc"), None, np.array([0, 0, 1, 1]))
>>> data = FitInput(np.array([0, 1]), encoder, np.array([2.0, 2.0]), 1.0, 1e-5,
...                 codes=codes, class_index=np.array([0, 0, 1, 1]))
>>> data.n_classes, data.n_categories.tolist(), data.row_weights().tolist()
(2, [2, 2], [1.0, 1.0, 1.0, 1.0])
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..stats.alpha_selection import select_alpha
from ..stats.pair_statistics import PairStatistics
from .registry import Rows

__all__ = ["FitInput", "cross_validate_alpha"]


@dataclass(frozen=True)
class FitInput:
    """What one fit learns from (immutable: a step that adds to it returns a copy).

    Parameters
    ----------
    classes : ndarray of shape (n_classes,)
        The class labels, sorted.
    encoder : TableEncoder or NumericEncoder
        The fitted encoding of the columns.
    class_weight : ndarray of shape (n_classes,)
        The weight of each class.
    alpha : float, "auto" or None
        The validated pseudo-count (``"auto"``: chosen by cross-validation).
    epsilon : float
        The validated zero-probability floor.
    codes, class_index, weights : ndarray, optional
        The encoded training rows (None when only their counts were kept); ``weights``
        None for unit weights.
    pairs : PairStatistics, optional
        The pair tables counted already (by ``partial_fit``, an engine, or the alpha
        cross-validation).
    univariate : list of ndarray, optional
        The per-class univariate tables counted already (naive Bayes' streams).
    families, scores : optional
        An engine's second and third passes (see
        :meth:`discotree.TANClassifier.fit_from_statistics`).
    alpha_search : (float, ndarray), optional
        The alpha an engine's cross-validation chose, and its losses.
    searched : optional
        A structure found once before the alpha cross-validation, kept by the final fit
        (TAN's discriminative searches at alpha 1, the EAR tree).
    feature_names : ndarray of str, optional
        The columns' names, for the names of the learnt edges.
    """

    classes: NDArray[Any]
    encoder: Any
    class_weight: NDArray[np.float64]
    alpha: Any  # float, "auto" or None
    epsilon: float
    codes: NDArray[Any] | None = None
    class_index: NDArray[np.intp] | None = None
    weights: NDArray[np.float64] | None = None
    pairs: PairStatistics | None = None
    univariate: list[NDArray[np.float64]] | None = None
    families: list[Any] | None = None
    scores: Any = None
    alpha_search: tuple[float, NDArray[np.float64]] | None = None
    searched: Any = None
    feature_names: NDArray[Any] | None = None

    @property
    def n_classes(self) -> int:
        return len(self.classes)

    @property
    def n_categories(self) -> NDArray[np.intp]:
        return self.encoder.n_categories_

    @property
    def n_features(self) -> int:
        if self.n_categories is not None:
            return len(self.n_categories)
        assert self.codes is not None  # (Gaussian models: the values themselves)
        return int(self.codes.shape[1])

    @property
    def has_rows(self) -> bool:
        """Whether the encoded rows are here (not only their counts)."""
        return self.codes is not None and self.class_index is not None

    def row_weights(self) -> NDArray[np.float64]:
        """The rows' weights, ones when they are unweighted."""
        if self.codes is None:
            raise ValueError("this fit input holds counts, not rows")
        return np.ones(len(self.codes)) if self.weights is None else self.weights

    def rows(self, owner: str = "this estimator") -> Rows:
        """The rows as a row learner reads them; a ``ValueError`` naming ``owner``
        when only counts are here."""
        if self.codes is None or self.class_index is None:
            raise ValueError(f"{owner}: these parameters need the rows, not only counts.")
        return Rows(
            self.codes, self.class_index, self.row_weights(), self.n_classes, self.n_categories
        )

    def pair_statistics(self) -> PairStatistics:
        """The pair tables: those counted already, else one counting pass over the rows."""
        if self.pairs is not None:
            return self.pairs
        if self.codes is None or self.class_index is None:
            raise ValueError("no rows and no pair tables to learn from")
        return PairStatistics.from_codes(
            self.codes, self.class_index, self.n_categories, self.n_classes, self.weights
        )

    def with_(self, **changes: Any) -> FitInput:
        """A copy with ``changes`` (:func:`dataclasses.replace`)."""
        return replace(self, **changes)


def cross_validate_alpha(
    data: FitInput,
    model_for: Callable[..., Any],
    grid: tuple[float, ...],
    *,
    pairs: bool = True,
    scales: tuple[float, ...] = (),
) -> tuple[float, NDArray[np.float64], FitInput]:
    """``alpha="auto"``'s choice on ``grid`` by 5-fold cross-validation of the rows of
    ``data`` (:func:`~discotree.stats.alpha_selection.select_alpha`).

    Parameters
    ----------
    data : FitInput
        With the rows.
    model_for : callable
        ``model_for(stats, rows) -> fit(alpha) -> model`` from a training fold (the
        learner's :meth:`~discotree.learners.registry.Learner.model_for`).
    grid : tuple of float
    pairs : bool, default=True
        False for the learners that read the univariate tables only.
    scales : tuple of float, optional
        The calibration temperatures also scored (rows ``2 + k`` of the losses).

    Returns
    -------
    alpha : float
    losses : ndarray of shape (2 + len(scales), len(grid))
    data : FitInput
        ``data`` with the pair tables of all its rows when the cross-validation counted
        them (the final fit reads them instead of counting again).
    """
    if data.codes is None or data.class_index is None:
        raise ValueError("alpha='auto' cross-validates held-out rows: no rows here")
    counted: list[PairStatistics] = []
    alpha, losses = select_alpha(
        data.codes,
        data.class_index.astype(np.intp),
        data.weights,
        data.n_categories,
        data.n_classes,
        model_for=model_for,
        grid=grid,
        total=data.pairs,
        pairs=pairs,
        on_total=counted.append,
        scales=scales,
    )
    if counted and pairs:
        data = data.with_(pairs=counted[0])
    return alpha, losses, data
