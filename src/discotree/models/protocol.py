"""The scoring protocol every fitted model follows.

A model scores rows with ``class_scores(codes, log_prior) -> (n_samples, n_classes)``
and declares what those scores are in ``score_kind``:

``"joint"``
    ``log P(x, c) = log P(x | c) + log P(c)`` under the class prior ``log_prior`` it is
    given (the estimator's ``class_log_prior_``, or a fold's in the alpha
    cross-validation): naive Bayes, Chow-Liu, TAN, kDB, AnDE, the EAR tree, the
    discriminative tree's forest pair (two classes). The only kind with a
    ``predict_joint_log_proba``: it is these scores.
``"posterior"``
    ``log P(c | x)``, normalised over the classes, with the model's own prior inside
    (``log_prior`` is not used): the kDB ensemble (an average of its members'
    posteriors) and the logistic models. There is no joint distribution of ``x``:
    ``predict_joint_log_proba`` is not available.
``"margin"``
    Unnormalised scores whose softmax the estimator reports as probabilities: the
    composite scores of eq. 32 (the discriminative tree with more than two classes),
    boosted ensembles (eq. 26-27), SVM margins. No ``predict_joint_log_proba``.

The estimators' bases normalise once (:func:`discotree.numerics.normalise_log`, after
the estimator's calibration scale), so every ``predict*`` method is defined once, in the bases
(:mod:`discotree.classifiers._prediction`); the alpha cross-validation and the
engines call ``class_scores`` of whatever model a learner gives them.

Examples
--------
>>> import numpy as np
>>> class Uniform(JointScoring):
...     def log_likelihood(self, codes):
...         return np.zeros((len(codes), 2))
>>> model = Uniform()
>>> isinstance(model, ScoringModel), model.score_kind
(True, 'joint')
>>> model.class_scores(np.zeros((1, 3), np.intp), np.log([0.25, 0.75])).round(3)
array([[-1.386, -0.288]])
"""

from __future__ import annotations

from typing import ClassVar, Protocol, runtime_checkable

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "SCORE_KINDS",
    "JointScoring",
    "ScoringModel",
    "check_score_kind",
    "declared_sizes",
]

#: What a model's ``class_scores`` are (see the module notes).
SCORE_KINDS = ("joint", "posterior", "margin")
#: What a model declares of itself for the estimator's cross-check
#: (:func:`declared_sizes`): its number of classes, and the categories of each feature
#: it reads (None where it reads no categories).
DeclaredSizes = tuple[int, NDArray[np.intp] | None]


@runtime_checkable
class ScoringModel(Protocol):
    """What every fitted model provides to the estimators, the alpha
    cross-validation and the engines."""

    score_kind: ClassVar[str]

    def class_scores(
        self, codes: NDArray[np.integer], log_prior: NDArray[np.float64]
    ) -> NDArray[np.float64]:
        """Scores of every row and class (``(n_samples, n_classes)``), of the kind
        ``score_kind``; ``log_prior`` is the class prior a joint adds."""
        ...  # pragma: no cover

    # Optional: ``declared_sizes() -> DeclaredSizes | None``, what the estimator's
    # file check compares with its ``classes_`` and its encoder's categories (a
    # default in :class:`~discotree.models.file_checks.StoredModel`); read through
    # :func:`declared_sizes`. Not a member here, so that ``isinstance`` stays as it is.


class JointScoring:
    """The joint kind for models with a ``log_likelihood(codes)`` (``log P(x | c)``,
    missing features summed out): ``class_scores`` adds the class prior."""

    score_kind: ClassVar[str] = "joint"

    def class_scores(
        self, codes: NDArray[np.integer], log_prior: NDArray[np.float64]
    ) -> NDArray[np.float64]:
        """``log P(x, c) = log P(x | c) + log P(c)`` of every row and class.

        Parameters
        ----------
        codes : ndarray of shape (n_samples, n_features)
            Category codes (values for Gaussian models), ``-1`` (NaN) for missing.
        log_prior : ndarray of shape (n_classes,)

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
        """
        return self.log_likelihood(codes) + log_prior  # type: ignore[attr-defined]


def declared_sizes(model: object) -> DeclaredSizes | None:
    """The number of classes and the categories per feature ``model`` declares
    (its ``declared_sizes()``), or None where it declares none or cannot say: read
    defensively, as the estimator's checks may run before the model's own structure
    check, which then refuses a malformed model with its own message.

    Examples
    --------
    >>> import numpy as np
    >>> from discotree.models.discrete_forest import DiscreteForestModel
    >>> model = DiscreteForestModel(
    ...     np.array([[-1], [-1]]), np.array([3]), [[np.log([[0.5, 0.25, 0.25]])]] * 2)
    >>> n_classes, n_categories = declared_sizes(model)
    >>> n_classes, n_categories.tolist()
    (2, [3])
    >>> broken = DiscreteForestModel.from_state({**model.state(), "parents": None})
    >>> declared_sizes(broken) is None  # malformed: its own check says so, not this one
    True
    >>> declared_sizes(object()) is None
    True
    """
    declare = getattr(model, "declared_sizes", None)
    if not callable(declare):
        return None
    try:
        sizes = declare()
        if sizes is None:
            return None
        n_classes, n_categories = sizes
        return int(n_classes), n_categories
    except (AttributeError, TypeError, ValueError, IndexError, KeyError):
        return None


def check_score_kind(kind: str) -> str:
    """``kind`` if it is one of :data:`SCORE_KINDS`, else a ``ValueError``.

    Examples
    --------
    >>> check_score_kind("margin")
    'margin'
    """
    if kind not in SCORE_KINDS:
        raise ValueError(f"score_kind must be one of {SCORE_KINDS}, got {kind!r}.")
    return kind
