"""Tree-augmented naive Bayes with a generative (CMI) structure."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from .._validation import is_count
from ..models.discrete_forest import DiscreteForestModel
from ..stats.discrete import PairStatistics
from ..structure.chow_liu import chow_liu_forest, forest_parents
from ._base import DiscreteForestClassifierBase

__all__ = ["TANClassifier"]


def _cmi_structure(stats: PairStatistics) -> tuple[list[tuple[int, int]], NDArray[np.float64]]:
    """Maximum spanning tree of I(X_i; X_j | C) (Section 4.3 of 002)."""
    weights = stats.conditional_mutual_information()
    return chow_liu_forest(weights), weights


#: Structure learners by name; later issues register discriminative ones here.
STRUCTURES = {"cmi": _cmi_structure}
#: Supported numbers of attribute parents.
_SUPPORTED_K = (1,)


class TANClassifier(DiscreteForestClassifierBase):
    """Tree-augmented naive Bayes: the class is a parent of every attribute, and the
    attributes form one tree shared by all classes.

    Parameters
    ----------
    k : int, default=1
        Largest number of attribute parents per attribute. Only ``k=1`` (a tree) is
        available in this version.
    structure : {"cmi"}, default="cmi"
        How the tree is chosen. ``"cmi"``: the maximum spanning tree of the
        conditional mutual informations I(X_i; X_j | C) (Friedman et al., 1997).
    n_edges : int or None, default=None
        Keep only the first ``n_edges`` edges Kruskal adds (the optimal forest of that
        size); ``None`` keeps the spanning tree.
    alpha : float, default=1.0
        Dirichlet pseudo-count added to every cell of every table.
    epsilon : float, default=1e-5
        Floor for probabilities still zero after smoothing (Section 6.1 of
        002_4035af8a3a458042.txt); only matters when ``alpha=0``.
    max_categories : int, default=10
        Numeric columns with more distinct values are discretised.
    discretizer : Discretizer or None, default=None
        Used for those columns, fitted on the training data only; ``None`` means
        ``Discretizer()``.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    class_count_ : ndarray of shape (n_classes,)
    class_log_prior_ : ndarray of shape (n_classes,)
    n_categories_ : ndarray of shape (n_features,)
    encoder_ : TableEncoder
    model_ : DiscreteForestModel
    edges_ : list of list of (int, int)
        The tree's edges (i < j) in the order they were added, repeated once per class.
    edge_weights_ : ndarray of shape (n_features, n_features)
        The conditional mutual informations (nats) used as edge weights.
    parents_ : ndarray of shape (n_classes, n_features)
        The tree rooted at feature 0 (the same row for every class).
    n_features_in_ : int
    feature_names_in_ : ndarray of str

    Notes
    -----
    Cost as :class:`ChowLiuClassifier`: one counting pass for all pair tables, then a
    spanning tree. The TAN tree maximises the training log-likelihood among all
    tree-augmented structures (Friedman et al., 1997).

    References
    ----------
    N. Friedman, D. Geiger and M. Goldszmidt, Machine Learning 29, 1997.
    Section 4.3 of 002_4035af8a3a458042.txt (Pernkopf and Bilmes, 2010).

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from discotree import TANClassifier
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> clf = TANClassifier().fit(X, y)
    >>> len(clf.edges_[0]) == X.shape[1] - 1
    True
    """

    def __init__(
        self,
        k: int = 1,
        structure: str = "cmi",
        n_edges: int | None = None,
        *,
        alpha: float = 1.0,
        epsilon: float = 1e-5,
        max_categories: int = 10,
        discretizer=None,
    ) -> None:
        super().__init__(
            alpha=alpha, epsilon=epsilon, max_categories=max_categories, discretizer=discretizer
        )
        self.k = k
        self.structure = structure
        self.n_edges = n_edges

    def _check_params(self) -> None:
        n = self.n_edges
        if not (n is None or is_count(n)):
            raise ValueError(f"TANClassifier: n_edges must be None or an integer >= 0, got {n!r}.")
        if self.structure not in STRUCTURES:
            raise ValueError(
                f"TANClassifier: structure must be one of {sorted(STRUCTURES)}, "
                f"got {self.structure!r}."
            )
        if isinstance(self.k, bool) or self.k not in _SUPPORTED_K:
            raise ValueError(
                f"TANClassifier: k={self.k!r} is not supported; this version implements k=1."
            )

    def _fit_model(
        self,
        codes: NDArray[np.intp],
        class_index: NDArray[np.intp],
        sample_weight: NDArray[np.float64] | None,
    ) -> DiscreteForestModel:
        n_classes, n_features = len(self.classes_), codes.shape[1]
        stats = PairStatistics.from_codes(
            codes, class_index, self.n_categories_, n_classes, sample_weight
        )
        edges, self.edge_weights_ = STRUCTURES[self.structure](stats)
        edges = edges if self.n_edges is None else edges[: self.n_edges]
        self.edges_ = [list(edges) for _ in range(n_classes)]
        self.parents_ = np.tile(forest_parents(n_features, edges), (n_classes, 1))
        return DiscreteForestModel.from_statistics(
            stats, self.parents_, alpha=self._alpha, epsilon=self._epsilon
        )
