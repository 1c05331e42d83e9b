"""Every ``predict*`` method of the package's classifiers, defined once.

An estimator gives its scores and their kind (:mod:`discotree.models.protocol`:
``"joint"``, ``"posterior"`` or ``"margin"``) through one hook, ``_class_scores(X)``;
:class:`ScoredPredictionMixin` turns them into every prediction:

* ``predict_joint_log_proba``: the scores, for the joint kind only (elsewhere the
  method does not exist, and ``hasattr`` says so, with the estimator's reason);
* ``predict_log_proba``: the scores times the estimator's calibration scale (1 where
  there is none), normalised once (:func:`~discotree.numerics.normalise_log`);
* ``predict_proba``: its exponential, renormalised so that every row sums to 1 to
  rounding;
* ``predict``: the class of largest score, ties (``SCORE_TIE_RTOL`` relative to the
  joint, or to the log posterior of margins) to the first class; two-class margins:
  the sign of the decision function, a tie to ``classes_[0]``;
* ``decision_function``: joints and posteriors give the log posterior odds (two
  classes) or the log posteriors; margins the margin (two classes) or the scores.

Two-class margins are given symmetric, ``[-f, f]``, so that ``f`` is the decision
function (a boosted ensemble's ``F``, an SVM's margin) and ``softmax(s [-f, f])`` the
probability of a calibration scale ``s``.

A fitted model is small, so predicting on a dask DataFrame or Array is a
``map_partitions`` / ``map_blocks`` of the model's own method: the result is a lazy
dask array and no row reaches the client (:func:`discotree.engines.dask_engine.
predict_dask`; the extra ``discotree[dask]``, imported only when dask input arrives).
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..docstrings import fill_doc
from ..engine_registry import engine_function
from ..fitting import available_if_explained
from ..models.protocol import check_score_kind
from ..numerics import argmax_with_ties, normalise_log, sign_with_ties
from ..validation import check_is_fitted

__all__ = ["PREDICTION_METHODS", "ScoredPredictionMixin"]

#: Prediction methods that return a lazy dask array on dask input.
PREDICTION_METHODS = (
    "predict",
    "predict_proba",
    "predict_log_proba",
    "predict_joint_log_proba",
    "decision_function",
)


def _dask_aware(method: Any) -> Any:
    @functools.wraps(method)
    def wrapper(self, X, *args, **kwargs):
        predict_elsewhere = engine_function(X, "predict")
        if predict_elsewhere is not None:  # Dask collections: a lazy array back
            check_is_fitted(self)
            return predict_elsewhere(self, method.__name__, X)
        return method(self, X, *args, **kwargs)

    return wrapper


@fill_doc
class ScoredPredictionMixin:
    """The ``predict*`` methods from ``_class_scores`` (see the module notes).

    Hooks (each reads the parameters, and where needed the fitted classes only):

    ``_class_scores(X) -> (scores, kind)``
        The validated rows' scores, ``(n_samples, n_classes)``, and their kind.
    ``_joint_unavailable() -> str | None``
        Why there is no ``predict_joint_log_proba`` (None: there is one).
    ``_probabilities_unavailable() -> str | None``
        Why there are no ``predict_proba`` / ``predict_log_proba`` (None: there are).
    ``_score_scale() -> float``
        The calibration scale of the scores in the probabilities (default 1).
    """

    classes_: NDArray[Any]

    def _class_scores(self, X: Any) -> tuple[NDArray[np.float64], str]:
        raise NotImplementedError  # pragma: no cover - every base defines it

    def _joint_unavailable(self) -> str | None:
        return None

    def _probabilities_unavailable(self) -> str | None:
        return None

    def _score_scale(self) -> float:
        return 1.0

    def _has_joint(self) -> bool:
        reason = self._joint_unavailable()
        if reason is not None:
            raise AttributeError(reason)
        return True

    def _has_probabilities(self) -> bool:
        reason = self._probabilities_unavailable()
        if reason is not None:
            raise AttributeError(reason)
        return True

    def _scores_of(self, X: Any) -> tuple[NDArray[np.float64], str]:
        check_is_fitted(self)
        scores, kind = self._class_scores(X)
        return scores, check_score_kind(kind)

    @available_if_explained(_has_joint)
    @_dask_aware
    def predict_joint_log_proba(self, X: Any) -> NDArray[np.float64]:
        """``log P(x, c)`` for every sample and class, missing features summed out.

        Only for the models whose scores are a joint distribution (kind ``"joint"``:
        naive Bayes, Chow-Liu, TAN, kDB, AnDE, the EAR tree, the discriminative tree
        with two classes, kernel naive Bayes); elsewhere the method does not exist
        (``hasattr`` is False) and accessing it raises ``AttributeError`` with the
        reason.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Columns as at fit time; NaN/None (and categories not seen at fit time)
            are missing.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Columns in the order of ``classes_``.

        Examples
        --------
        >>> from sklearn.datasets import load_iris
        >>> from discotree import NaiveBayesClassifier
        >>> X, y = load_iris(return_X_y=True)
        >>> clf = NaiveBayesClassifier(alpha=1.0).fit(X, y)
        >>> clf.predict_joint_log_proba(X[:1]).round(2)
        array([[ -3.8 , -14.49, -15.05]])
        """
        scores, kind = self._scores_of(X)
        if kind != "joint":
            raise AttributeError(f"{type(self).__name__} has no joint distribution.")
        return scores

    @available_if_explained(_has_probabilities)
    @_dask_aware
    def predict_log_proba(self, X: Any) -> NDArray[np.float64]:
        """Log posterior ``log P(c | x)`` of every class, missing features summed out.

        Parameters
        ----------
        {X_predict}

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Columns in the order of ``classes_``; ``logsumexp`` of each row is 0. The
            log softmax of the scores times the calibration scale (joints: the
            posterior; margins and composite scores: consistent with :meth:`predict`).

        Examples
        --------
        >>> from sklearn.datasets import load_iris
        >>> from discotree import NaiveBayesClassifier
        >>> X, y = load_iris(return_X_y=True)
        >>> clf = NaiveBayesClassifier(alpha=1.0).fit(X, y)
        >>> clf.predict_log_proba(X[:1]).round(2)
        array([[ -0.  , -10.69, -11.24]])
        """
        scores, _ = self._scores_of(X)
        return normalise_log(scores * self._score_scale())

    @available_if_explained(_has_probabilities)
    @_dask_aware
    def predict_proba(self, X: Any) -> NDArray[np.float64]:
        """Posterior ``P(c | x)`` of every class, missing features summed out.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Columns as at fit time; NaN/None (and categories not seen at fit time)
            are missing: the posterior is then that of the observed features.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Columns in the order of ``classes_``; rows sum to 1.

        Examples
        --------
        >>> import numpy as np
        >>> from sklearn.datasets import load_iris
        >>> from discotree import NaiveBayesClassifier
        >>> X, y = load_iris(return_X_y=True)
        >>> clf = NaiveBayesClassifier(alpha=1.0).fit(X, y)
        >>> clf.predict_proba(X[[0, 50]]).round(3)
        array([[1.   , 0.   , 0.   ],
               [0.   , 0.535, 0.464]])
        >>> clf.predict_proba([[5.1, 3.5, np.nan, np.nan]]).round(3)  # petals missing
        array([[0.954, 0.029, 0.017]])
        """
        probabilities = np.exp(self.predict_log_proba(X))
        # scores of large magnitude lose digits in ``log P - logsumexp``: renormalise,
        # so that every row sums to 1 to rounding
        return probabilities / probabilities.sum(axis=1, keepdims=True)

    @_dask_aware
    def predict(self, X: Any) -> NDArray[Any]:
        """Most probable class of each sample (largest score), missing features summed
        out.

        Classes whose scores agree to rounding (1e-9 relative) tie, and a tie goes to
        the first of them in ``classes_``.

        Parameters
        ----------
        {X_predict}

        Returns
        -------
        ndarray of shape (n_samples,)
            Labels from ``classes_``.

        Examples
        --------
        >>> from sklearn.datasets import load_iris
        >>> from discotree import NaiveBayesClassifier
        >>> X, y = load_iris(return_X_y=True)
        >>> NaiveBayesClassifier(alpha=1.0).fit(X, y).predict(X[[0, 50, 100]])
        array([0, 1, 2])
        """
        scores, kind = self._scores_of(X)
        if kind == "margin" and scores.shape[1] == 2:  # [-f, f]: the sign of f
            margin = (scores[:, 1] - scores[:, 0]) / 2
            return self.classes_[(sign_with_ties(margin) > 0).astype(np.intp)]
        if kind == "margin":  # ties relative to the posterior, not to huge margins
            scores = normalise_log(scores)
        return self.classes_[argmax_with_ties(scores)]

    @_dask_aware
    def decision_function(self, X: Any) -> NDArray[np.float64]:
        """Log posterior odds (joints and posteriors) or margins.

        Parameters
        ----------
        {X_predict}

        Returns
        -------
        ndarray of shape (n_samples,) or (n_samples, n_classes)
            Two classes: ``log P(c1 | x) - log P(c0 | x)``, or the margin (positive
            favours ``classes_[1]``); more classes: the log posteriors, or the scores.
            Never calibrated.

        Examples
        --------
        >>> from sklearn.datasets import load_breast_cancer
        >>> from discotree import TANClassifier
        >>> X, y = load_breast_cancer(return_X_y=True)
        >>> TANClassifier(alpha=1.0).fit(X, y).decision_function(X[:3]).round(2)
        array([-21.73, -17.99, -29.14])
        """
        scores, kind = self._scores_of(X)
        if kind == "margin":
            return (scores[:, 1] - scores[:, 0]) / 2 if scores.shape[1] == 2 else scores
        log_proba = normalise_log(scores)
        if scores.shape[1] == 2:
            return log_proba[:, 1] - log_proba[:, 0]
        return log_proba
