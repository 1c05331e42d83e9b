"""The learner of the forest density classifier (Dorn et al. 2018), registered as
``"forest-density"``: it reads the rows (standardised values: kernel densities are
estimated from the points themselves).

The one- and two-dimensional class-conditional densities (Section 3, eq. 4), the
leave-one-out feature map of the training rows, the soft-margin linear SVM of eq. 6
(:func:`linear_svm`), and with ``probability`` the slope of the margins' sigmoid fitted
on held-out margins (:func:`fit_calibration`). :func:`informative_pairs` chooses the
pairs when only their number is given.

Options of the :class:`~discotree.learners.registry.LearnerSpec`: ``pairs`` (an array
of feature index pairs), ``bandwidth``, ``grid_size``, ``kde``, ``density_floor``,
``C``, ``max_iter``, ``random_state``, ``probability``, ``keep_original`` and
``svm_weights`` (the rows' weights times their ``class_weight`` multipliers,
:func:`class_weight_multipliers`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy import stats as scipy_stats
from scipy.optimize import minimize_scalar
from sklearn.svm import SVC, LinearSVC

from ..kernels.counts import class_totals
from ..missing_values import MissingValueRule
from ..models.kernel_density import PairwiseKernelDensities
from ..stats.discriminative import gaussian_discriminative_weights
from ..stats.folds import content_folds, fold_splits
from ..validation import int_seed, integer_seed
from .options import ForestDensityOptions
from .registry import FittedModel, Learner, LearnerSpec, Rows, register_learner

__all__ = [
    "GRAM_LIMIT",
    "class_weight_multipliers",
    "density_features",
    "fit_calibration",
    "fit_forest_density",
    "informative_pairs",
    "linear_svm",
    "margin_probabilities",
]

#: Largest training set whose n x n Gram matrix the SVM stage forms (8 * n^2 bytes).
GRAM_LIMIT = 6000


def _sigmoid(z):
    return 0.5 * (1 + np.tanh(0.5 * z))


def class_weight_multipliers(
    class_weight, classes, class_index, owner, weights
) -> NDArray[np.float64]:
    """Per-sample multipliers for scikit-learn's ``class_weight`` conventions
    ("balanced" uses the weighted class totals, so weights act as repeated rows)."""
    if class_weight is None:
        return np.ones(len(class_index))
    if isinstance(class_weight, str) and class_weight == "balanced":
        totals = class_totals(class_index, weights, len(classes))
        per_class = weights.sum() / (len(classes) * totals)
        return per_class[class_index]
    if isinstance(class_weight, dict):
        unknown = set(class_weight) - set(classes.tolist())
        if unknown:
            raise ValueError(f"{owner}: class_weight names unknown classes {sorted(unknown)}.")
        per_class = np.array([float(class_weight.get(c, 1.0)) for c in classes])
        if not (np.isfinite(per_class).all() and (per_class >= 0).all()):
            raise ValueError(f"{owner}: class weights must be finite and >= 0.")
        return per_class[class_index]
    raise ValueError(
        f"{owner}: class_weight must be None, 'balanced' or a dict, got {class_weight!r}."
    )


def _fit_hinge_svm(features, class_index, n_classes, weights, C, *, max_iter, random_state=0):
    """Soft-margin linear SVM (eq. 6): coefficients (K, d) and intercepts (K,), with
    K = 1 for two classes (positive = class 1) and one-vs-rest otherwise."""
    targets = [class_index == 1] if n_classes == 2 else [class_index == k for k in range(n_classes)]
    coef = np.zeros((len(targets), features.shape[1]))
    intercept = np.zeros(len(targets))
    gram = features @ features.T if len(features) <= GRAM_LIMIT else None
    n_iter = 0
    for k, positive in enumerate(targets):
        labels = positive.astype(np.intp)
        if not 0 < labels.sum() < len(labels):  # a one-vs-rest split without both sides
            intercept[k] = 1.0 if labels.all() else -1.0
            continue
        if gram is not None:
            # the exact dual can take very long for a large C: its iterations are capped
            # (scikit-learn then warns that it did not converge)
            svm = SVC(
                kernel="precomputed", C=C, tol=1e-10, max_iter=max(max_iter, 100 * len(labels))
            )
            svm.fit(gram, labels, sample_weight=weights)
            # decision = sum_s dual_coef_s <x_s, x> + intercept; positive means label 1
            coef[k] = svm.dual_coef_[0] @ features[svm.support_]
            intercept[k] = svm.intercept_[0]
        else:
            svm = LinearSVC(
                C=C, loss="hinge", dual=True, max_iter=max_iter, random_state=random_state
            )
            svm.fit(features, labels, sample_weight=weights)
            coef[k], intercept[k] = svm.coef_[0], svm.intercept_[0]
        n_iter = max(n_iter, int(np.max(svm.n_iter_)))
    return coef, intercept, n_iter


def margin_probabilities(margins: NDArray[np.float64], slope: float) -> NDArray[np.float64]:
    """``sigmoid(slope m)`` for one margin column, else ``softmax(slope m)``."""
    if margins.shape[1] == 1:
        p1 = _sigmoid(slope * margins[:, 0])
        return np.column_stack([1 - p1, p1])
    z = slope * margins
    z -= z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def linear_svm(
    features: NDArray[np.float64],
    class_index: NDArray[np.intp],
    n_classes: int,
    weights: NDArray[np.float64],
    C: float = 1.0,
    max_iter: int = 20000,
    random_state: Any = 0,
) -> tuple[NDArray[np.float64], NDArray[np.float64], int]:
    """The SVM stage of the forest density classifier (eq. 6).

    Standardises the columns of ``features`` (weighted mean and standard deviation),
    fits the soft-margin hinge-loss SVM and returns the coefficients and intercepts of
    the *unstandardised* features, so ``features @ coef.T + intercept`` is the margin,
    plus the solver's iteration count. Two classes give one row (positive margin means
    class 1), more give one-vs-rest rows.
    """
    relative = weights / weights.max()  # the moments need the weights' ratios only
    total = relative.sum()
    mean = relative @ features / total
    scale = np.sqrt(np.maximum(relative @ (features - mean) ** 2 / total, 0.0))
    # a feature constant on the training rows up to rounding (a column constant there
    # gives log densities equal to the last bits) carries nothing: standardising its
    # rounding noise to unit scale would let the SVM fit the noise with huge weights
    constant = ~(scale > 1e-8 * np.maximum(1.0, np.abs(mean)))
    scale[constant] = 1.0
    standardised = (features - mean) / scale
    standardised[:, constant] = 0.0
    coef, intercept, n_iter = _fit_hinge_svm(
        standardised,
        class_index,
        n_classes,
        weights,
        C,
        max_iter=max_iter,
        random_state=random_state,
    )
    coef = coef / scale
    coef[:, constant] = 0.0
    return coef, intercept - coef @ mean, n_iter


def fit_calibration(
    features, class_index, n_classes, weights, C, max_iter, random_state=0, rows_of=None
) -> float:
    """Slope of the margins' sigmoid (softmax), fitted on cross-validated margins.

    A one-parameter Platt scaling: no offset and one slope shared by the classes, so the
    probabilities rank the classes as the margins do and ``predict``,
    ``decision_function`` and ``predict_proba`` agree. Margins are from 3-fold
    cross-validation on the package's weight-equivalent folds
    (:func:`~discotree.stats.folds.content_folds` of the rows' values, ``rows_of``, by
    default the features: a row of weight k and its k copies are held out together);
    rows of a fold whose training rows miss a class get their training margins. The
    learner passes the standardised input rows, so the folds do not follow the last
    bits of the density estimates.
    """
    n_outputs = 1 if n_classes == 2 else n_classes
    margins = np.zeros((len(class_index), n_outputs))
    held_out = np.zeros(len(class_index), dtype=bool)
    # the package's weight-equivalent folds, from the features' bits (identical rows,
    # identical folds); a fold whose training rows miss a class is not held out
    source = features if rows_of is None else rows_of
    bits = np.ascontiguousarray(source, dtype=np.float64).view(np.int64)
    folds = content_folds(bits, 3, integer_seed(random_state))
    for train, test in fold_splits(folds, 3):
        present = class_totals(class_index[train], weights[train], n_classes)
        if len(test) == 0 or np.any(present <= 0):
            continue
        coef, intercept = linear_svm(
            features[train],
            class_index[train],
            n_classes,
            weights[train],
            C,
            max_iter,
            random_state,
        )[:2]
        margins[test] = features[test] @ coef.T + intercept
        held_out[test] = True
    if not held_out.all():  # those rows' training margins
        coef, intercept = _fit_hinge_svm(
            features,
            class_index,
            n_classes,
            weights,
            C,
            max_iter=max_iter,
            random_state=random_state,
        )[:2]
        margins[~held_out] = features[~held_out] @ coef.T + intercept
    rows = np.arange(len(class_index))

    def loss(log_slope: float) -> float:
        proba = margin_probabilities(margins, float(np.exp(log_slope)))
        return -float(weights @ np.log(np.maximum(proba[rows, class_index], 1e-300)))

    result = minimize_scalar(loss, bounds=(-10.0, 10.0), method="bounded")
    return float(np.exp(result.x))


def informative_pairs(
    values: NDArray[np.float64],
    class_index: NDArray[np.intp],
    n_classes: int,
    weights: NDArray[np.float64],
    n_pairs: int,
) -> NDArray[np.intp]:
    """The ``n_pairs`` pairs of features whose dependence differs most between classes.

    Each feature is replaced by its normal scores (``Phi^-1`` of its pooled rank), which
    makes any continuous marginal Gaussian while keeping the pair's copula; a pair's
    score is the Gaussian tree-approximate J-divergence gain of the edge,
    ``psi(+) + psi(-)`` of Tan et al. 2010, eq. 21 in closed form, summed over
    pairs of classes. Returns pairs ``(i, j)``, ``i < j``, best first.
    """
    n_features = values.shape[1]
    ranks = scipy_stats.rankdata(values, axis=0)
    scores_z = scipy_stats.norm.ppf(ranks / (len(values) + 1))
    means, covs = [], []
    for c in range(n_classes):
        rows = class_index == c
        w = weights[rows] / weights[rows].sum()
        mean = w @ scores_z[rows]
        centred = scores_z[rows] - mean
        means.append(mean)
        covs.append((centred * w[:, None]).T @ centred + 1e-9 * np.eye(n_features))
    score = np.zeros((n_features, n_features))
    for a in range(n_classes):
        for b in range(a + 1, n_classes):
            psi_pos, psi_neg = gaussian_discriminative_weights(means[a], covs[a], means[b], covs[b])
            score += psi_pos + psi_neg
    i, j = np.triu_indices(n_features, 1)
    order = np.argsort(-score[i, j], kind="stable")[:n_pairs]
    return np.column_stack([i[order], j[order]]).astype(np.intp)


def density_features(
    densities: PairwiseKernelDensities,
    values: NDArray[np.float64],
    keep_original: bool,
    leave_one_out: bool = False,
) -> NDArray[np.float64]:
    """The feature map of eq. 4: the log densities of every class, feature and pair
    (``leave_one_out``: each training row left out of its own estimates), followed by
    the values themselves with ``keep_original``."""
    features = densities.log_densities(values, leave_one_out)
    if keep_original:
        features = np.hstack([features, values])
    return features


def fit_forest_density(rows: Rows, spec: LearnerSpec) -> FittedModel:
    """The densities, the SVM of eq. 6 on the leave-one-out feature map, the optional
    probability slope, and the labels of the feature map's columns
    (``feature_terms_``: (class, i, j), j = -1 for one feature; class None for the
    kept original values)."""
    values, class_index, n_classes = rows.codes, rows.class_index, rows.n_classes
    pairs = np.asarray(spec.options.pairs, dtype=np.intp).reshape(-1, 2)
    keep_original = bool(spec.options.keep_original)
    densities = PairwiseKernelDensities.fit(
        values,
        class_index,
        n_classes,
        rows.weights,
        pairs,
        bandwidth=spec.options.bandwidth,
        grid_size=tuple(spec.options.grid_size),
        method=spec.options.kde,
        density_floor=spec.options.density_floor,
    )
    features = density_features(densities, values, keep_original, leave_one_out=True)
    svm_weights = spec.options.svm_weights
    weights = rows.weights if svm_weights is None else svm_weights
    svm_args = (
        float(spec.options.C),
        int(spec.options.max_iter),
        int_seed(spec.options.random_state),
    )
    coef, intercept, n_iter = linear_svm(features, class_index, n_classes, weights, *svm_args)
    attributes: dict[str, Any] = {
        "pairs_": pairs,
        "densities_": densities,
        "coef_": coef,
        "intercept_": intercept,
        "n_iter_": n_iter,
    }
    if spec.options.probability:
        attributes["calibration_slope_"] = fit_calibration(
            features, class_index, n_classes, weights, *svm_args, rows_of=values
        )
    classes = np.arange(n_classes) if spec.options.classes is None else spec.options.classes
    terms: list[tuple[Any, int, int]] = []
    for label in classes:
        terms += [(label, i, -1) for i in range(values.shape[1])]
        terms += [(label, int(a), int(b)) for a, b in pairs]
    if keep_original:
        terms += [(None, int(i), -1) for i in range(values.shape[1])]
    attributes["feature_terms_"] = terms
    return FittedModel(None, attributes)


register_learner(
    Learner(
        "forest-density",
        "A linear SVM on log kernel densities of features and pairs (Dorn et al. 2018).",
        "rows",
        fit_forest_density,
        partial_fit=False,
        dask=False,
        missing_values=MissingValueRule.REFUSED,  # kernel densities need every value
        missing_at_prediction=MissingValueRule.REFUSED,
        options=ForestDensityOptions,
    )
)
