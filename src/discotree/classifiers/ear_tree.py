"""Tree-augmented classifier whose tree is chosen by recursive EAR separators
(Narasimhan & Bilmes 2005, Algorithm 3)."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from ..config import get_config
from ..docstrings import fill_doc
from ..learners.ear_tree import learn_ear_tree
from ..learners.fit_input import FitInput
from ..learners.generative import smoothed_forest_models
from ..learners.options import EARTreeOptions
from ..learners.parameter_rules import DISCRETE_TABLES
from ..learners.registry import FittedModel, LearnerSpec, Rows, get_learner
from ..stored_classes import stored
from ..structure.chow_liu import forest_parents
from ._base import DiscreteForestClassifierBase
from .parameter_checks import check_distribution, check_forest_smoothing, check_parameter_table

__all__ = ["EARTreeClassifier"]

_SEARCHES = ("sub-sup", "exhaustive")


@stored
@fill_doc
class EARTreeClassifier(DiscreteForestClassifierBase):
    """Class-conditional tree models sharing one tree chosen for discrimination by the
    EAR measure (Narasimhan & Bilmes 2005, Algorithm 3).

    The tree is built top-down: each step picks the separator feature x and the split
    of the remaining features into S and T that minimise the EAR across the cut,
    ``I(S; T | x, C) - I(S; T | x)``, so that dependencies which differ between the
    classes stay inside a part; each split is found by the submodular-supermodular
    procedure (Algorithms 1-2) on this difference of two submodular functions. Every
    class then gets its own parameters on that tree (its projection, Tan et al. 2010, eq. 7), and
    prediction is ``argmax_c log P(c) + log P(x | c)``.

    Parameters
    ----------
    distribution : {"discrete", "gaussian"}, default="discrete"
        ``"discrete"``: category codes (numeric columns with many values are
        discretised), plug-in entropies of the configurations present;
        ``"gaussian"``: numeric features, Gaussian entropies of the class covariances
        and of the pooled covariance, and Gaussian tree models (Narasimhan & Bilmes 2005, Section
        5).
    minimizer : {"min-norm", "queyranne", "exhaustive"}, default="min-norm"
        Submodular minimiser inside each iteration of Algorithm 1: the exact
        Fujishige-Wolfe minimum-norm-point algorithm; Queyranne's O(n^3) algorithm
        (exact for posimodular functions, a heuristic here, as Section 3.1 discusses);
        or every subset (small problems only).
    n_permutations : int, default=3
        Algorithm 1 stops after this many bounds in a row (each from a new random
        permutation starting with the current split) fail to improve it, and the result
        is then also polished by single-element moves: the stronger local minima the
        paper suggests at the end of Section 3 (``1`` without moves would be Algorithm 1
        as listed; on random 5-feature splits it finds the best split about 60 % of the
        time, the default about 80 %).
    split_search : {"sub-sup", "exhaustive"}, default="sub-sup"
        How each split is found: the submodular-supermodular procedure (a local
        minimum of the EAR across the cut), or every split (exact, 2^(m-1) splits of m
        features: small problems only).
    random_state : int, Generator or None, default=0
        Seeds the random permutations of Algorithm 1. The default makes every fit on
        the same data give the same tree; ``None`` draws fresh permutations.
    alpha, epsilon, max_categories, discretizer
        As in :class:`~discotree.ChowLiuClassifier` (discrete data).
    smoothing : {"dirichlet", "hierarchical", "hdp"}, default="dirichlet"
        The tables of the tree (discrete data): ``"hierarchical"`` backs each off to the
        feature's class-level table and its marginal, concentrations by leave-one-out
        from the counts (as :class:`~discotree.ChowLiuClassifier`'s); ``alpha`` then
        smooths the marginals. The tree does not change.
        {smoothing_hdp}

    Attributes
    ----------
    {classes_}
    {class_count_}
    {class_log_prior_}
    {n_features_in_}
    {feature_names_in_}
    {alpha_}
    fit_memory_estimate_ : float
        The peak memory of counting the pair tables in bytes (and holding the encoded
        rows), estimated before counting and checked against ``memory_limit``; what
        the tree learns from them is not included.
    encoder_ : TableEncoder or NumericEncoder
        The encoding of the columns learnt at fit time (categories, bins); for
        ``"gaussian"``, a ``NumericEncoder`` (the columns standardised).
    n_categories_ : ndarray of shape (n_features,) or None
        None for ``"gaussian"``.
    edges_ : list of list of (int, int)
        The tree's edges (one identical list per class, as the other classifiers).
    {edge_names_}
    parents_ : ndarray of shape (n_classes, n_features)
        The tree rooted at feature 0 (-1 for the root), the same row for every class.
    splits_ : list of EARSplit
        Separator, the two parts and the EAR value of every split, top-down.
    sub_sup_iterations_ : int
        Iterations of Algorithm 1 over all splits and candidate separators.
    structure_seconds_ : float
    model_ : DiscreteForestModel or GaussianForestModel

    Notes
    -----
    A step over m features solves m submodular-supermodular problems on m - 1
    elements, each iteration a submodular minimisation (O(m^2) to O(m^3) entropy
    evaluations with "queyranne", usually a few times more with "min-norm"); the
    entropies are cached. Suited to tens of features, not hundreds: the whole search
    grows like n**5 entropy evaluations in the number of features n (on 2 cores:
    about 2 s at 15 Gaussian features, 15 s on breast_cancer's 30, and it can take
    minutes at 20-30 features on harder data). Above 20 features a warning says so;
    above ``discotree.get_config()["ear_feature_limit"]`` (40) the fit is refused
    unless the limit is raised; each split is logged (``set_config(verbose=True)``)
    so a long fit shows its progress. Missing values follow the available-case rule:
    each split's informations I(part; rest | separator) use the rows where every
    feature of the split is observed, parameters the samples where a family is
    observed, and prediction sums missing features out.

    References
    ----------
    M. Narasimhan and J. Bilmes, "A submodular-supermodular procedure with applications
    to discriminative structure learning", UAI 2005.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from discotree import EARTreeClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> clf = EARTreeClassifier(distribution="gaussian", random_state=0).fit(X, y)
    >>> len(clf.edges_[0])
    3
    """

    def __init__(
        self,
        distribution: str = "discrete",
        *,
        minimizer: str = "min-norm",
        n_permutations: int = 3,
        split_search: str = "sub-sup",
        random_state=0,
        alpha: float = 1.0,
        epsilon: float = 1e-5,
        max_categories: int = 10,
        discretizer=None,
        smoothing: str = "dirichlet",
    ) -> None:
        super().__init__(
            alpha=alpha, epsilon=epsilon, max_categories=max_categories, discretizer=discretizer
        )
        self.smoothing = smoothing
        self.distribution = distribution
        self.minimizer = minimizer
        self.n_permutations = n_permutations
        self.split_search = split_search
        self.random_state = random_state

    _uncertainty_rules = (DISCRETE_TABLES,)
    _checks = (check_distribution, check_parameter_table, check_forest_smoothing)
    # -------------------------------------------------------------- alpha="auto"
    _auto_alpha = True  # (Gaussian models have no pseudo-counts: "auto" is ignored)

    def _search_once(self, data: FitInput) -> FitInput:
        """The tree does not depend on alpha (plug-in entropies): it is learnt once, on
        all the training rows, and the cross-validation compares the alphas of its
        parameters (the tree has seen the held-out rows; the search is the costly part
        and refitting it on every fold would cost five more)."""
        alpha, epsilon = self._check_common_params()
        return data.with_(searched=learn_ear_tree(self._rows(data), self._ear_spec(alpha, epsilon)))

    def _alpha_model_for(self, data: FitInput, grid: tuple[float, ...]):
        """Every fold's parameters for every alpha of ``grid`` on the tree learnt once
        (:meth:`_search_once`), from the fold's counts."""
        tree = data.searched[0]
        epsilon, prior = data.epsilon, getattr(self, "prior", "dirichlet")

        def model_for(stats, rows):
            parents = np.tile(forest_parents(stats.n_features, tree.edges), (stats.n_classes, 1))
            return smoothed_forest_models(
                stats, parents, epsilon, prior, grid, smoothing=self.smoothing
            )

        return model_for

    def _rows(self, data: FitInput) -> Rows:
        rows = data.rows(type(self).__name__)
        _check_feature_count(rows.codes.shape[1], type(self).__name__)
        return rows

    _options_class = EARTreeOptions

    def _ear_spec(self, alpha: Any, epsilon: float, **options: Any) -> LearnerSpec:
        """The specification of the row learner ``"ear-tree"``."""
        settings = self._learner_options(**options)
        return LearnerSpec("ear-tree", alpha, epsilon, options=settings)

    def _fit_model(self, data: FitInput) -> FittedModel:
        if not data.has_rows:
            raise ValueError(f"{type(self).__name__} learns from rows, not from counts.")
        rows = self._rows(data)
        options: dict[str, Any] = {"pairs": data.pairs}
        if data.searched is not None:  # alpha="auto": learnt once
            options["searched"] = data.searched[0]
        spec = self._ear_spec(data.alpha, data.epsilon, **options)
        fitted = get_learner("ear-tree").fit(rows, spec)
        if data.searched is not None:
            fitted.attributes["structure_seconds_"] = data.searched[1]
        return fitted


def _check_feature_count(n_features: int, owner: str) -> None:
    """Refuse more features than ``ear_feature_limit``; warn above 20 (the search costs
    about n**5 set-entropy evaluations: seconds at 15 features, minutes at 30)."""
    limit = get_config()["ear_feature_limit"]
    if n_features > limit:
        raise ValueError(
            f"{owner}: {n_features} features is more than the limit of {limit} for EAR "
            "trees, whose search grows like n**5 (hours at a few dozen features); select "
            "features first, use DiscriminativeTreeClassifier, or raise the limit with "
            "discotree.set_config(ear_feature_limit=...)."
        )
    if n_features > 20:
        warnings.warn(
            f"{owner}: an EAR tree on {n_features} features may take minutes (the search "
            "grows like n**5); progress is logged with discotree.set_config(verbose=True).",
            UserWarning,
            stacklevel=6,
        )
