"""``partial_fit`` for the classifiers fitted from additive counts.

Naive Bayes, Chow-Liu, TAN-CMI and the discriminative tree pair learn everything from
per-class count tables (and the class weights), which are sums over rows: a batch at a
time, they are added, and the model learnt from the sum is the model ``fit`` learns
from all the rows at once. This module holds that accumulation, shared by the four
estimators (:class:`IncrementalFitMixin`).

The rules, in scikit-learn's terms (its glossary, ``partial_fit``):

* ``classes`` is required on the first call (every label that will ever appear).
* The first batch fixes the encoding of the numeric columns: a column with at most
  ``max_categories`` distinct values is categorical (later batches may add values up
  to that number), one with more is binned with edges learnt on that batch, or given
  for every batch by ``Discretizer(bin_edges=...)``, which bins every numeric column.
  Categorical columns may reveal new categories in any batch: the tables grow, and the
  categories keep the order ``fit`` gives them, so the result is the same.
* The model is usable after every call. Structure and parameters are learnt lazily,
  when a fitted attribute (``model_``, ``edges_``, ...) or a ``predict*`` method is
  first used after new data; ``partial_fit()`` with no data learns them now.
* Configurations that need the rows themselves keep them, encoded (one byte per cell
  while features have fewer than 128 categories): ``alpha="auto"`` (its cross-validation
  scores held-out rows) and TAN with ``k=2`` (the family counts of the parents it
  chooses). Give a number as ``alpha`` (and ``k <= 1``) for memory that does not grow
  with the rows. Other configurations have no ``partial_fit``; fit them on a sample.
"""

from __future__ import annotations

import copy
import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .. import missing_values
from ..fitting import available_if_explained, clear_fitted_state
from ..kernels.counts import class_totals, univariate_counts
from ..learners.fit_input import FitInput
from ..learners.parameter_rules import DISCRETE_STREAMS, Rule, first_reason
from ..learners.registry import get_learner
from ..migrations import legacy_attribute
from ..missing_values import MISSING
from ..stats.pair_statistics import PairStatistics, category_index_map
from ..stored_checks import CheckedState, integer, numbers
from ..stored_classes import stored
from ..validation import (
    check_sample_weight,
    check_table,
    check_targets,
    positive_rows,
    validate_data,
)

__all__ = ["IncrementalFitMixin"]

#: Private attributes of a streaming fit (removed by ``fit``).
STREAM_PREFIX = "_stream"
#: Attributes ``partial_fit`` sets itself (the rest is learnt lazily from its counts).
_KEPT_BY_STREAM = frozenset(
    ("classes_", "encoder_", "n_categories_", "n_features_in_", "feature_names_in_")
)


@stored
@dataclass
class StreamState(CheckedState):
    """What ``partial_fit`` has accumulated: class weights, count tables in the
    encoder's current layout, and (when needed) the encoded rows."""

    class_weight: NDArray[np.float64]
    counts: NDArray[np.float64]  # (n_classes, D) univariate or (n_classes, D, D) pairs
    n_categories: NDArray[np.intp]
    keep_rows: bool
    rows: list[tuple[NDArray[np.integer], NDArray[np.intp], NDArray[np.float64] | None]] = field(
        default_factory=list
    )
    n_rows: int = 0

    def check_numbers(self, where: str) -> None:
        """A loaded file's counts and class weights >= 0, and its row count."""
        numbers(self.class_weight, f"{where}.class_weight", low=0.0)
        numbers(self.counts, f"{where}.counts", low=0.0)
        integer(self.n_rows, f"{where}.n_rows", 0, 2**63)

    def realign(self, maps: dict[int, NDArray[np.intp]], n_categories: NDArray[np.intp]):
        """Move the counts and kept rows to the layout with more categories."""
        index, width = category_index_map(self.n_categories, maps, n_categories)
        if self.counts.ndim == 2:
            counts = np.zeros((self.counts.shape[0], width))
            counts[:, index] = self.counts
        else:
            counts = (
                PairStatistics(self.counts, self.n_categories).realigned(maps, n_categories).counts
            )
        self.counts, self.n_categories = counts, np.asarray(n_categories, np.intp)
        for codes, _, _ in self.rows:
            for j, new_code in maps.items():
                column = codes[:, j]
                codes[:, j] = np.where(
                    missing_values.observed(column), new_code[np.maximum(column, 0)], MISSING
                )


def _why_no_partial_fit(estimator: Any) -> bool:
    reason = estimator._partial_fit_unsupported()
    if reason is not None:
        raise AttributeError(
            f"{type(estimator).__name__} has no partial_fit with these parameters: {reason} "
            "Fit on a sample of the data instead."
        )
    return True


class IncrementalFitMixin:
    """``partial_fit`` over the one counting path (see the module docstring).

    Subclasses say which configurations stream (:attr:`_streaming_rules`),
    whether they need pair tables or univariate ones (:attr:`_streams_pairs`), and
    whether they need the rows (:meth:`_stream_keeps_rows`).
    """

    _streams_pairs = True
    #: What ``partial_fit`` has accumulated (None before the first batch), and whether
    #: batches came since the model was last learnt (class defaults: set per estimator
    #: by ``_set_fitted``).
    _stream: StreamState | None = None
    _stream_stale: bool = False
    _stream_learnt: tuple[str, ...] = ()

    #: Why the parameters cannot be fitted from counts: the first broken rule's
    #: message (:meth:`_partial_fit_unsupported`).
    _streaming_rules: tuple[Rule, ...] = (DISCRETE_STREAMS,)

    def _partial_fit_unsupported(self) -> str | None:
        """Why these parameters cannot be fitted from counts, or None: the first broken
        rule of :attr:`_streaming_rules`."""
        return first_reason(self._streaming_rules, self)

    def _stream_keeps_rows(self, given: dict[str, Any] | None = None) -> bool:
        """Whether a fit from counts needs the rows too (``given``: what an engine
        counted and handed to ``fit_from_statistics``: ``families``, ``scores``,
        ``alpha_search``): for ``alpha="auto"``'s cross-validation, for parameters
        without a count learner, and for what the count learner reads beyond the pair
        tables (the families of its structure, a third pass's sums) that no engine
        gave."""
        given = given or {}
        auto = isinstance(self.alpha, str) and self.alpha == "auto"
        if auto and given.get("alpha_search") is None:
            return True
        name = self._count_learner()
        if name is None:
            return True
        learner = get_learner(name)
        if learner.reads == "pairs, then families" and given.get("families") is None:
            return True
        selective = bool(getattr(self._learner_options(), "selective", False))
        return learner.score_rows is not None and selective and given.get("scores") is None

    @available_if_explained(_why_no_partial_fit)
    def partial_fit(
        self, X: Any = None, y: Any = None, classes: Any = None, sample_weight: Any = None
    ):
        """Add a batch of rows to the statistics; the model is relearnt lazily.

        The result after any sequence of batches is the model ``fit`` learns from their
        concatenation (with the encoding rules of :mod:`discotree.classifiers.
        _incremental`: numeric columns are binned as the first batch says, or as a
        ``Discretizer(bin_edges=...)`` says for every batch).

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features), default=None
            A batch of rows, with the columns of the first batch. ``partial_fit()``
            with no data learns the structure and parameters now.
        y : array-like of shape (n_samples,)
            Labels, each one of ``classes``.
        classes : array-like of shape (n_classes,), default=None
            Every label that will appear; required on the first call only (and, if
            given later, the same).
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        self

        Raises
        ------
        ValueError
            On the first call without ``classes`` or with fewer than two; a label not
            in ``classes``; a batch whose columns differ from the first batch's; a
            numeric column taken as categorical that gets more than
            ``max_categories`` values.

        Examples
        --------
        >>> import numpy as np
        >>> from sklearn.datasets import load_breast_cancer
        >>> from discotree import Discretizer, TANClassifier
        >>> X, y = load_breast_cancer(return_X_y=True)
        >>> bins = Discretizer(bin_edges=Discretizer().fit(X).bin_edges_)  # fixed bins
        >>> clf = TANClassifier(alpha=1.0, discretizer=bins)
        >>> for part in range(3):
        ...     clf = clf.partial_fit(X[part::3], y[part::3], classes=[0, 1])
        >>> full = TANClassifier(alpha=1.0, discretizer=bins).fit(X, y)
        >>> bool(np.allclose(clf.predict_proba(X), full.predict_proba(X)))
        True
        """
        name = type(self).__name__
        stream = self._stream
        if X is None and y is None:
            if stream is None:
                raise ValueError(f"{name}: partial_fit() with no data before any batch.")
            self._stream_finish()
            return self
        if X is None or y is None:
            raise ValueError(f"{name}: partial_fit needs both X and y (or neither).")
        first = stream is None
        if first and hasattr(self, "classes_"):  # after fit, which keeps no counts
            warnings.warn(
                f"{name}: partial_fit after fit (or end_partial_fit) starts a new model "
                "from this batch (no counts are kept to continue from); the classes "
                "are the fitted ones unless given.",
                UserWarning,
                stacklevel=2,
            )
            classes = self.classes_ if classes is None else classes
            clear_fitted_state(self)
        all_classes = self._batch_classes(classes, first)
        table = check_table(X, name)
        validate_data(self, X, skip_check_array=True, reset=first)
        y = check_targets(y, table.n_samples, name)
        unknown = ~np.isin(y, all_classes)
        if unknown.any():
            raise ValueError(
                f"{name}: y holds labels not in classes: {np.unique(y[unknown]).tolist()!r} "
                f"(classes: {all_classes.tolist()!r})."
            )
        weights = check_sample_weight(sample_weight, table.n_samples, name)
        table, y, weights = positive_rows(table, y, weights)
        y_index = np.searchsorted(all_classes, y).astype(np.intp)
        if stream is None:
            encoder = self._make_encoder()
            codes = encoder.fit_transform(table, weights, y_index)
            stream = self._stream_start(encoder, len(all_classes))
        else:
            encoder = self.encoder_
            codes = self._encode_batch(encoder, stream, table)
        self._stream_add(stream, codes, y_index, weights)
        started = {"classes_": all_classes, "encoder_": encoder, "_stream": stream}
        self._set_fitted(
            {**(started if first else {}), "n_categories_": encoder.n_categories_,
             "_stream_stale": True},
            drop=self._stream_learnt,  # now stale
        )  # fmt: skip
        return self

    def _batch_classes(self, classes: Any, first: bool) -> NDArray[Any]:
        """Every label, checked: given on the first call (or kept from ``fit``, with a
        warning that a new model starts), the same if given later."""
        name = type(self).__name__
        if not first:
            if classes is not None and not np.array_equal(
                np.unique(np.asarray(classes)), self.classes_
            ):
                raise ValueError(
                    f"{name}: classes={classes!r} differs from the first call's "
                    f"{self.classes_.tolist()!r}."
                )
            return self.classes_
        self._validated_smoothing()
        if classes is None:
            raise ValueError(
                f"{name}: classes must be given on the first call to partial_fit "
                "(every label that will appear)."
            )
        classes = np.asarray(classes)
        all_classes = np.unique(check_targets(classes, len(classes), name))
        if len(all_classes) < 2:
            raise ValueError(f"{name}: classes must hold at least two labels.")
        return all_classes

    @staticmethod
    def _encode_batch(encoder, stream: StreamState, table) -> NDArray[np.integer]:
        """A later batch's codes; categories it reveals grow the encoding and the
        tables first (columns whose codes show unseen values are rescanned only)."""
        if len(table.columns) != len(encoder.columns_):
            encoder.extend(table, stream.n_rows)  # raises, naming the difference
        codes = encoder.transform(table)
        unseen = encoder.columns_with_unseen(table, codes)
        if unseen:  # new categories (rare): grow the tables, encode again
            maps = encoder.extend(table, stream.n_rows, unseen)
            if maps:
                stream.realign(maps, encoder.n_categories_)
                codes = encoder.transform(table)
        return codes

    @available_if_explained(_why_no_partial_fit)
    def end_partial_fit(self):
        """Learn the model from the batches now and drop what ``partial_fit`` kept to
        continue (the counts, and the encoded rows for ``alpha="auto"`` or ``k=2``):
        call it before saving a streamed model. A later ``partial_fit`` starts anew.

        Returns
        -------
        self : object
            Fitted as ``fit`` on the concatenated batches.

        Raises
        ------
        ValueError
            When no ``partial_fit`` is in progress.

        Examples
        --------
        >>> from sklearn.datasets import load_iris
        >>> from discotree import NaiveBayesClassifier
        >>> X, y = load_iris(return_X_y=True)
        >>> clf = NaiveBayesClassifier(alpha=1.0).partial_fit(X[::2], y[::2], classes=[0, 1, 2])
        >>> clf.partial_fit(X[1::2], y[1::2]).end_partial_fit().predict(X[[0, 50, 100]])
        array([0, 1, 2])
        """
        if self._stream is None:
            raise ValueError(f"{type(self).__name__}: no partial_fit to end.")
        if self._stream_stale:
            self._stream_finish()
        self._set_fitted({}, drop=("_stream", "_stream_stale", "_stream_learnt"))
        return self

    @available_if_explained(_why_no_partial_fit)
    def fit_from_statistics(
        self,
        statistics: PairStatistics,
        *,
        families: list[Any] | None = None,
        alpha_search: tuple[float, NDArray[np.float64]] | None = None,
        scores: NDArray[np.float64] | None = None,
    ):
        """Learn the model from statistics counted elsewhere and added.

        An engine that counts elsewhere (the Dask engine does) asks the estimator for
        its learner (:meth:`learner_spec`), counts what the learner reads, and hands
        the sums here: the learner and the rules that follow it (priors, the chosen
        alpha, the calibration) are then those of ``fit``.

        Parameters
        ----------
        statistics : PairStatistics
            With a schema and class weights: from
            :meth:`discotree.StatisticsSchema.count`, summed over the parts of the
            data (see :mod:`discotree.sufficient_statistics`).
        families : list of ndarray, optional
            For learners that read ``"pairs, then families"`` (TAN with ``k=2``): per
            feature, the family counts of the parents the learner's ``structure``
            chose from ``statistics`` (:func:`discotree.kernels.family_counts.
            family_counts` summed over the parts).
        alpha_search : (float, ndarray), optional
            With ``alpha="auto"``: the alpha a cross-validation over the parts chose,
            and its losses as :func:`discotree.stats.alpha_selection.select_alpha` returns
            them (rows 0-1: held-out errors and log-loss per alpha of the grid; then
            one row per calibration scale).
        scores : ndarray, optional
            For learners with a third pass (:attr:`Learner.score_rows`: selective kDB's
            leave-one-out losses), its sums over the parts.

        Returns
        -------
        self
            Fitted as ``fit`` on the rows those statistics were counted from (with the
            schema's encoding); ``partial_fit`` may continue it.

        Raises
        ------
        ValueError
            Without a schema, or when the parameters need the rows themselves
            (``alpha="auto"`` without ``alpha_search``, TAN with ``k=2`` without
            ``families``): give a number as ``alpha``.

        Examples
        --------
        >>> from sklearn.datasets import load_breast_cancer
        >>> from discotree import Discretizer, StatisticsSchema, TANClassifier
        >>> X, y = load_breast_cancer(return_X_y=True)
        >>> bins = Discretizer(bin_edges=Discretizer().fit(X).bin_edges_)
        >>> schema = StatisticsSchema.from_sample(X[:100], classes=[0, 1], discretizer=bins)
        >>> total = schema.count(X[:300], y[:300]) + schema.count(X[300:], y[300:])
        >>> clf = TANClassifier(alpha=1.0).fit_from_statistics(total)
        >>> clf.edges_[0] == TANClassifier(alpha=1.0, discretizer=bins).fit(X, y).edges_[0]
        True
        """
        name = type(self).__name__
        schema = getattr(statistics, "schema", None)
        if not isinstance(statistics, PairStatistics) or schema is None:
            raise ValueError(
                f"{name}: fit_from_statistics needs PairStatistics counted with a "
                "StatisticsSchema (schema.count(X, y)), got "
                f"{type(statistics).__name__} without a schema."
            )
        alpha, epsilon = self._validated_smoothing()
        given = {"families": families, "alpha_search": alpha_search, "scores": scores}
        if self._stream_keeps_rows(given):
            raise ValueError(
                f"{name}: these parameters need the rows, not only their counts "
                "(alpha='auto' scores held-out rows unless alpha_search is given; TAN k=2 "
                "counts its families unless families are given): give alpha a number "
                "(and k <= 1), or use partial_fit."
            )
        encoder = copy.deepcopy(schema.encoder)
        encoder.owner = name
        counts = statistics.counts
        if not self._streams_pairs:  # the univariate tables are the diagonals
            counts = np.einsum("cii->ci", counts).copy()
        stream = StreamState(
            class_weight=np.asarray(statistics.class_weight, dtype=np.float64).copy(),
            counts=counts.copy(),
            n_categories=encoder.n_categories_.copy(),
            keep_rows=False,
            n_rows=0,
        )
        data = self._stream_input(stream, alpha, epsilon, schema.classes, encoder)
        data = data.with_(feature_names=schema.feature_names, **given)
        attributes = self._fitted_attributes(data)
        clear_fitted_state(self)
        names = {} if schema.feature_names is None else {"feature_names_in_": schema.feature_names}
        self._set_fitted(
            {"n_features_in_": schema.n_features, **names, "_stream": stream, **attributes,
             **self._stream_learnt_now(attributes)}
        )  # fmt: skip
        return self

    def _stream_start(self, encoder, n_classes: int) -> StreamState:
        n_categories = encoder.n_categories_
        width = int(n_categories.sum())
        shape = (n_classes, width, width) if self._streams_pairs else (n_classes, width)
        return StreamState(
            class_weight=np.zeros(n_classes),
            counts=np.zeros(shape),
            n_categories=n_categories.copy(),
            keep_rows=self._stream_keeps_rows(),
        )

    def _stream_add(self, stream: StreamState, codes, class_index, weights) -> None:
        n_classes = len(stream.class_weight)
        w = np.ones(len(codes)) if weights is None else weights
        if self._streams_pairs:
            part = PairStatistics.from_codes(
                codes, class_index, stream.n_categories, n_classes, weights
            )
            stream.counts += part.counts
        else:
            stream.counts += univariate_counts(
                codes, class_index, w, stream.n_categories, n_classes
            )
        stream.class_weight += class_totals(class_index, w, n_classes)
        stream.n_rows += len(codes)
        if stream.keep_rows:
            stream.rows.append((codes, class_index, weights))

    def _stream_input(self, stream: StreamState, alpha: Any, epsilon: float, classes, encoder):
        """The fit input of the accumulated statistics (and the kept rows, if any)."""
        codes = class_index = weights = None
        if stream.keep_rows:
            codes = np.concatenate([c for c, _, _ in stream.rows])
            class_index = np.concatenate([i for _, i, _ in stream.rows])
            if any(w is not None for _, _, w in stream.rows):
                weights = np.concatenate(
                    [np.ones(len(c)) if w is None else w for c, _, w in stream.rows]
                )
        pairs = univariate = None
        if self._streams_pairs:
            pairs = PairStatistics(stream.counts.copy(), stream.n_categories)
        else:
            univariate = np.split(stream.counts.copy(), np.cumsum(stream.n_categories)[:-1], axis=1)
        return FitInput(
            classes,
            encoder,
            stream.class_weight.copy(),
            alpha,
            epsilon,
            codes=codes,
            class_index=class_index,
            weights=weights,
            pairs=pairs,
            univariate=univariate,
        )

    @staticmethod
    def _stream_learnt_now(attributes: dict[str, Any]) -> dict[str, Any]:
        """The streaming state after the model was learnt: not stale, and which
        attributes a new batch makes stale."""
        learnt = tuple(k for k in attributes if k not in _KEPT_BY_STREAM)
        return {"_stream_stale": False, "_stream_learnt": learnt}

    def _stream_finish(self) -> None:
        """Learn structure and parameters from the accumulated statistics."""
        stream = self._stream
        assert stream is not None
        alpha, epsilon = self._check_common_params()
        data = self._stream_input(stream, alpha, epsilon, self.classes_, self.encoder_)
        data = data.with_(feature_names=getattr(self, "feature_names_in_", None))
        attributes = self._fitted_attributes(data)
        self._set_fitted({**attributes, **self._stream_learnt_now(attributes)})

    def __getattr__(self, name: str) -> Any:
        # fitted attributes after new batches: learn the model first (lazily)
        learnt = name.endswith("_") and not name.startswith("__") and name not in _KEPT_BY_STREAM
        if learnt and self._stream_stale:
            self._stream_finish()
            return getattr(self, name)
        for klass in type(self).__mro__:  # a conditional method: its own reason
            if name in vars(klass) and hasattr(vars(klass)[name], "__get__"):
                return vars(klass)[name].__get__(self, type(self))
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")


def __getattr__(name: str) -> Any:
    """The classes of this module by the names pickles of earlier versions hold."""
    return legacy_attribute(__name__, name)
