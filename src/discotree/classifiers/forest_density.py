"""The forest density classifier of Dorn et al. 2018 and a kernel
naive Bayes baseline (in :mod:`.kernel_naive_bayes`, re-exported here).

If both classes are forest-structured (eq. 2), the log-likelihood ratio is linear in
the log univariate and bivariate densities with integer coefficients (Lemma 3, eq. 3):
``log f_1(x)/f_0(x) = sum_(i,j) in E_1 log f_1(x_i, x_j) - sum_i (d_i^1 - 1) log
f_1(x_i) - (the same for class 0)``. The forest density classifier estimates every one-
and two-dimensional class-conditional density with kernels, maps each sample to the
vector of their logs (eq. 4) and lets a linear SVM find the coefficients (eq. 6), so the
forests are never estimated.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..config import check_memory
from ..docstrings import fill_doc
from ..learners.forest_density import (
    GRAM_LIMIT,
    class_weight_multipliers,
    density_features,
    informative_pairs,
    linear_svm,
)
from ..learners.options import ForestDensityOptions
from ..learners.registry import LearnerSpec, Rows, get_learner
from ..validation import (
    check_bool_param,
    check_random_state_param,
    is_count,
)
from ._kernel_density import KernelDensityBase
from .kernel_naive_bayes import KernelNaiveBayesClassifier

__all__ = [
    "ForestDensityClassifier",
    "KernelNaiveBayesClassifier",
    "informative_pairs",
    "linear_svm",
]

#: The most iterations libsvm and liblinear take (a C int).
_MAX_ITER = 2**31 - 1


@fill_doc
class ForestDensityClassifier(KernelDensityBase):
    """Linear SVM on class-conditional log kernel densities (Dorn et al. 2018, Section 3).

    Parameters
    ----------
    bandwidth : {"scott", "silverman"}, float or array of shape (n_features,), default="scott"
        Kernel bandwidths: a normal-reference rule applied per class and feature with
        the class's standard deviation (``n^(-1/5)`` in 1-D, ``n^(-1/6)`` per axis in
        2-D for Scott's), or bandwidths in the units of X for every class.
    {density_floor}
    C : float, default=1.0
        SVM penalty (eq. 6, hinge loss, on the standardised feature map). Up to
        ``_GRAM_LIMIT`` samples the exact dual is solved by libsvm on the Gram matrix of
        the features (fast: the map has many more columns than rows); beyond it,
        liblinear's dual coordinate descent (which also penalises the intercept).
    keep_original : bool, default=False
        Also give the SVM the standardised raw features (the variant of Fan et al.
        mentioned in Sections 2.2 and 6).
    pairs : "all", int or list of (i, j), default="all"
        Bivariate terms: every pair, the ``pairs`` most informative ones
        (:func:`informative_pairs`), or the given pairs.
    {kde}
    grid_size : (int, int), default=(1024, 128)
        Grid nodes per axis for the 1-D and 2-D binned estimates.
    probability : bool, default=False
        Calibrate the SVM margins into probabilities on 3-fold cross-validated margins,
        enabling ``predict_proba`` (a Platt scaling with one shared slope and no
        offset, so that probabilities, margins and predictions agree).
    class_weight : dict, "balanced" or None, default=None
        Multipliers of the samples' weights in the SVM per class (``{label: w}``), or
        ``n_samples / (n_classes * n_c)`` for class c with "balanced".
    max_iter : int, default=20000
        Iterations of liblinear (above 6000 samples); the exact dual (libsvm, up to
        6000 samples) runs at most ``max(max_iter, 100 * n_samples)`` iterations, so a
        large ``C`` cannot make a fit run for minutes (a ``ConvergenceWarning`` says when
        the cap was reached). At most ``2**31 - 1`` (a C int of both).
    random_state : int, RandomState instance or None, default=0
        Seeds the calibration folds of ``probability=True`` and the dual coordinate
        descent of the linear SVM used above 6000 rows. The default makes every fit on
        the same data give the same model.

    Attributes
    ----------
    {classes_}
    pairs_ : ndarray of shape (n_pairs, 2)
    {standardisation_}
    {n_features_in_}
    densities_ : PairwiseKernelDensities
        The fitted estimates (on standardised features).
    feature_terms_ : list of (class or None, i, j)
        What each column of the feature map is: ``(c, i, -1)`` is ``log f_c(x_i)``,
        ``(c, i, j)`` is ``log f_c(x_i, x_j)``, ``(None, i, -1)`` the raw feature i.
    coef_ : ndarray of shape (1 or n_classes, n_terms)
        SVM coefficients of the (unstandardised) feature map: with exact densities and
        forest-structured classes they are proportional to the integers of Lemma 3.
    intercept_ : ndarray
    calibration_slope_ : float
        Slope of the probability calibration (with ``probability=True``).
    n_iter_ : int
        Largest number of solver iterations of the SVM fits.

    Notes
    -----
    Training samples are mapped with *leave-one-out* estimates: each sample's own
    kernel is removed from its class's density, so its features are not inflated by
    itself (Section 4 analyses a split instead; leave-one-out keeps every sample for
    both the densities and the SVM). Multiclass problems use one feature block per
    class and a one-vs-rest linear SVM. Zero-weight samples are ignored; weights
    enter the densities and the SVM.
    """

    _options_class = ForestDensityOptions

    def __init__(
        self,
        bandwidth="scott",
        *,
        density_floor=1e-3,
        C=1.0,
        keep_original=False,
        pairs="all",
        kde="auto",
        grid_size=(1024, 128),
        probability=False,
        class_weight=None,
        max_iter=20000,
        random_state=0,
    ) -> None:
        self.bandwidth = bandwidth
        self.density_floor = density_floor
        self.C = C
        self.keep_original = keep_original
        self.pairs = pairs
        self.kde = kde
        self.grid_size = grid_size
        self.probability = probability
        self.class_weight = class_weight
        self.max_iter = max_iter
        self.random_state = random_state

    def _resolve_pairs(self, Z, class_index, w) -> NDArray[np.intp]:
        name = type(self).__name__
        n = self.n_features_in_
        spec = self.pairs
        if isinstance(spec, str):
            if spec != "all":
                raise ValueError(f"{name}: pairs must be 'all', an int or a list of pairs.")
            i, j = np.triu_indices(n, 1)
            return np.column_stack([i, j]).astype(np.intp)
        if isinstance(spec, numbers.Integral) and not isinstance(spec, bool):
            if spec < 0:
                raise ValueError(f"{name}: pairs must be >= 0, got {spec}.")
            budget = min(int(spec), n * (n - 1) // 2)
            if budget == 0:
                return np.empty((0, 2), np.intp)
            return informative_pairs(Z, class_index, len(self.classes_), w, budget)
        arr = np.asarray(spec)
        if arr.size == 0:
            return np.empty((0, 2), np.intp)
        if arr.ndim != 2 or arr.shape[1] != 2 or arr.dtype.kind not in "iu":
            raise ValueError(f"{name}: pairs must be a list of (i, j) feature index pairs.")
        if arr.min() < 0 or arr.max() >= n or (arr[:, 0] == arr[:, 1]).any():
            raise ValueError(f"{name}: pairs must hold two distinct feature indices in 0..{n - 1}.")
        arr = np.sort(arr, axis=1)
        _, first = np.unique(arr, axis=0, return_index=True)
        return arr[np.sort(first)].astype(np.intp)

    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> ForestDensityClassifier:
        """Estimate the densities, map the training samples (leave-one-out), fit the SVM.

        Parameters
        ----------
        {X_fit_numeric}
        {y_fit}
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights: they enter the densities and the SVM; zero-weight
            samples are ignored.

        Returns
        -------
        self : object
            The fitted estimator (``densities_``, ``coef_``, ``pairs_``, ...).

        Raises
        ------
        ValueError
            For missing or non-numeric values, bad weights or hyper-parameters; the
            message names them.

        Examples
        --------
        >>> from sklearn.datasets import load_wine
        >>> from discotree import ForestDensityClassifier
        >>> X, y = load_wine(return_X_y=True)
        >>> clf = ForestDensityClassifier().fit(X, y)
        >>> clf.coef_.shape  # 3 one-vs-rest SVMs on 3 x (13 + 78) log densities
        (3, 273)
        """
        self._check_common()
        name = type(self).__name__
        if not (
            isinstance(self.C, numbers.Real)
            and not isinstance(self.C, bool)
            and 0 < float(self.C) < np.inf
        ):
            raise ValueError(f"{name}: C must be a positive finite float, got {self.C!r}.")
        if not is_count(self.max_iter, 1) or self.max_iter > _MAX_ITER:
            raise ValueError(
                f"{name}: max_iter must be an integer in [1, 2**31 - 1] (libsvm and "
                f"liblinear count in C ints), got {self.max_iter!r}."
            )
        Z, class_index, w = self._validate(X, y, sample_weight)
        pairs = self._resolve_pairs(Z, class_index, w)
        n_map = len(self.classes_) * (Z.shape[1] + len(pairs)) + Z.shape[1]
        gram = min(len(Z), GRAM_LIMIT) ** 2
        # the feature map, its standardised copy and the SVM's, plus the Gram matrix
        check_memory(8.0 * (3 * len(Z) * n_map + gram), "the feature map", name)
        check_random_state_param(self.random_state, name)
        check_bool_param(self.probability, "probability", name)
        check_bool_param(self.keep_original, "keep_original", name)
        multipliers = class_weight_multipliers(
            self.class_weight, self.classes_, class_index, name, w
        )
        options = ForestDensityOptions(
            pairs=pairs,
            bandwidth=self._bandwidth(),
            grid_size=tuple(self.grid_size),
            kde=self.kde,
            density_floor=self.density_floor,
            C=float(self.C),
            max_iter=int(self.max_iter),
            random_state=self.random_state,
            probability=self.probability,
            keep_original=self.keep_original,
            svm_weights=w * multipliers,
            classes=self.classes_,
        )
        rows = Rows(Z, class_index, w, len(self.classes_), np.zeros(Z.shape[1], np.intp))
        spec = LearnerSpec("forest-density", 0.0, 0.0, options=options)
        self._set_fitted(get_learner("forest-density").fit(rows, spec).attributes)
        return self

    def _feature_contributions(self, Z: NDArray[np.float64]) -> NDArray[np.float64]:
        """Each feature's share of each SVM margin: the coefficient times the value of
        every term of the feature map that involves it, a pair's term split equally
        between its two features (the shares add up to the margin minus the
        intercept)."""
        features = self._features(Z)  # (n_rows, n_terms)
        share = np.zeros((len(self.feature_terms_), Z.shape[1]))
        for t, (_, i, j) in enumerate(self.feature_terms_):
            if j < 0:
                share[t, i] = 1.0
            else:
                share[t, i] = share[t, j] = 0.5
        return np.einsum("nt,kt,tf->nkf", features, self.coef_, share)

    def _features(self, Z) -> NDArray[np.float64]:
        return density_features(self.densities_, Z, bool(self.keep_original))

    def log_density_features(self, X: Any) -> NDArray[np.float64]:
        """The feature map of eq. 4 (plus raw features with ``keep_original``).

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Numeric columns as at fit time, complete (no missing values).

        Returns
        -------
        ndarray of shape (n_samples, n_map)
            For each class, the log univariate densities of every feature, then the
            log bivariate densities of every pair in ``pairs_`` (``feature_terms_``
            names each column).

        Examples
        --------
        >>> from sklearn.datasets import load_wine
        >>> from discotree import ForestDensityClassifier
        >>> X, y = load_wine(return_X_y=True)
        >>> clf = ForestDensityClassifier().fit(X, y)
        >>> clf.log_density_features(X[:2]).shape
        (2, 273)
        """
        return self._features(self._standardised(X))

    def _class_scores(self, X: Any) -> tuple[NDArray[np.float64], str]:
        """The SVM margins (:mod:`discotree.models.protocol`): two classes ``[-m, m]``
        (the decision function is ``m``, positive means ``classes_[1]``), more classes
        one column per class (one-vs-rest); their probabilities (``probability=True``)
        are ``sigmoid(a m)`` for two classes and ``softmax(a m)`` otherwise, with the
        slope ``a`` fitted on cross-validated margins (``calibration_slope_``)."""
        margin = self.log_density_features(X) @ self.coef_.T + self.intercept_
        if margin.shape[1] == 1:
            return np.column_stack([-margin[:, 0], margin[:, 0]]), "margin"
        return margin, "margin"

    def _score_scale(self) -> float:
        slope = float(self.calibration_slope_)
        return slope / 2 if len(self.classes_) == 2 else slope  # [-m, m]: sigmoid(a m)

    def _joint_unavailable(self) -> str | None:
        return (
            "predict_joint_log_proba is not defined for ForestDensityClassifier, whose "
            "scores are SVM margins; use decision_function"
        )

    def _probabilities_unavailable(self) -> str | None:
        if not self.probability:
            return (
                f"This {type(self).__name__!r} has no attribute 'predict_proba': "
                "probabilities need probability=True (a calibrated slope)"
            )
        return None
