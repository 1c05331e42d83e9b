"""Averaged n-dependence estimators: A1DE (AODE; Webb, Boughton & Wang 2005) and A2DE
(Webb, Boughton, Zheng, Ting & Salem 2012)."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..docstrings import fill_doc
from ..learners.parameter_rules import Rule
from ..models.averaged_dependence import two_dependence_bytes
from ..models.posterior_draws import AveragedOneDependencePosterior
from ..stored_classes import stored
from ..validation import is_count
from ._base import DiscreteForestClassifierBase
from ._incremental import IncrementalFitMixin
from .parameter_checks import check_forest_smoothing, check_random_state_parameter

__all__ = ["AODEClassifier"]


def check_super_parents(estimator: Any) -> None:
    """``n_super_parents`` is 1 or 2, and ``alpha="auto"`` needs 1."""
    name = type(estimator).__name__
    if not is_count(estimator.n_super_parents, 1) or estimator.n_super_parents > 2:
        raise ValueError(
            f"{name}: n_super_parents must be 1 (A1DE) or 2 (A2DE), got "
            f"{estimator.n_super_parents!r}."
        )
    if estimator.n_super_parents == 2 and isinstance(estimator.alpha, str):
        raise ValueError(
            f"{name}: alpha='auto' is available for n_super_parents=1 only (its "
            "cross-validation reads fold pair tables; A2DE's need triple tables): "
            "give alpha a number."
        )


@stored
@fill_doc
class AODEClassifier(IncrementalFitMixin, DiscreteForestClassifierBase):
    """AnDE: the average over attributes (A1DE) or pairs of attributes (A2DE) of the
    estimator in which they are the super-parents of every other attribute.

    A1DE (``n_super_parents=1``, the default):
    ``P(c, x) = (1/d) sum_i P(c, x_i) prod_{j != i} P(x_j | c, x_i)``, every table from
    the pair tables of one counting pass. A2DE (``n_super_parents=2``):
    ``P(c, x) = (1/C(d, 2)) sum_{i<j} P(c, x_i, x_j) prod_{k != i, j} P(x_k | c, x_i, x_j)``,
    the conditionals from the triple tables (``n(c, x_i, x_j, x_k)`` of every triple:
    :func:`discotree.kernels.counts.triple_counts`). No structure search and no model
    selection, so ``partial_fit`` over batches and the Dask engine give exactly the
    model of ``fit``. Missing values are summed out exactly (a missing child
    contributes 1, the estimator of a missing super-parent is summed over its values).

    Parameters
    ----------
    n_super_parents : {1, 2}, default=1
        The n of AnDE: 1 for A1DE, 2 for A2DE (with a single attribute, A1DE).
    alpha : float or "auto", default=1.0
        Dirichlet pseudo-count per cell of every table (of P(c, x_i) and of each
        conditional), or ``"auto"`` (A1DE only): chosen on a grid by 5-fold
        cross-validation from fold counts (``docs/design/smoothing.md``).
    {epsilon}
    {encoding}
    smoothing : {"dirichlet", "hierarchical", "hdp"}, default="dirichlet"
        ``"hierarchical"`` backs each conditional off along its parents, after
        Petitjean et al. 2018 (the back-off of :class:`~discotree.TANClassifier`'s and
        :class:`~discotree.KDBClassifier`'s ``smoothing="hierarchical"``): in A1DE
        ``P(x_j | c, x_i)`` to ``P(x_j | c)`` and the marginal of x_j, one concentration
        per level, super-parent and child; in A2DE ``P(x_k | c, x_i, x_j)`` to
        ``P(x_k | c, x_p)``, where ``x_p`` is the super-parent of larger ``I(x_k; x_p |
        C)``, then as A1DE, the two-parent level's concentration per triple and child
        (:func:`discotree.stats.hierarchical.hierarchical_two_dependence_conditionals`).
        All chosen by leave-one-out from the pair (and triple) tables
        (``concentrations_``); ``alpha`` then smooths ``P(c, x_i)`` (``P(c, x_i, x_j)``)
        and the marginals.
        {smoothing_hdp}
        One tree per (super-parent, child), in A2DE per triple and member: 3 C(d, 3)
        trees of n customers, 200 sweeps (A2DE on 455 rows and 30 attributes: 73 s).
    {random_state_hdp}

    Attributes
    ----------
    {discrete_fit_attributes}
    {fit_memory_estimate_}
    {alpha_}
    model_ : AveragedOneDependenceModel or AveragedTwoDependenceModel
        The tables of every super-parent's (or pair's) estimator.
    statistics_ : PairStatistics
        The pair tables learnt from.
    edges_ : list of list
        Per class, every pair of attributes (each is a parent of the other in one of
        the averaged estimators; in A2DE, co-parents).
    {edge_names_}

    Notes
    -----
    ``log P(x | c)`` is the average's joint divided by the class marginal it implies;
    the class prior is the package's maximum-likelihood one (Webb et al. take the
    smoothed ``P(c, x_i)`` of each estimator: the same up to the smoothing of the
    prior). No frequency limit: every attribute is a super-parent (Webb et al.'s m = 1
    limit only drops values never seen, which the smoothing covers). Prediction costs
    O(n * D**2 * C) with D the total number of categories (a matrix product per class);
    the model holds C * D**2 numbers.

    A2DE holds 4 numbers per cell of every triple table (its counts, then three
    conditionals: about ``4 C D**3 / 6`` for D categories in all), refused by the
    memory guard (:func:`discotree.set_config`'s ``memory_limit``) beyond it;
    counting costs O(n d**3 / 6) and prediction O(n C d**3 / 2) lookups (r or r**2
    times more for a pair whose super-parents are missing). ``partial_fit`` keeps the
    encoded rows (one byte per cell) and counts the triple tables when the model is
    learnt; the Dask engine and ``discotree fit --data`` count them in a second pass
    over the data instead, without keeping rows. ``alpha="auto"`` is A1DE's only.

    References
    ----------
    Webb, Boughton & Wang, "Not so naive Bayes: aggregating one-dependence estimators",
    Machine Learning 58 (2005), Section 3, eq. 5. Webb, Boughton, Zheng, Ting & Salem,
    "Learning by extrapolation from marginal to full-multivariate probability
    distributions: decreasingly naive Bayesian classification", Machine Learning 86
    (2012), Section 3 (AnDE).

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from discotree import AODEClassifier
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> clf = AODEClassifier().fit(X, y)
    >>> clf.predict_proba(X[:2]).shape
    (2, 2)
    """

    def __init__(
        self,
        n_super_parents: int = 1,
        *,
        alpha: float | str = 1.0,
        epsilon: float = 1e-5,
        max_categories: int = 10,
        discretizer=None,
        smoothing: str = "dirichlet",
        random_state: Any = 0,
    ) -> None:
        super().__init__(
            alpha=alpha, epsilon=epsilon, max_categories=max_categories, discretizer=discretizer
        )
        self.n_super_parents = n_super_parents
        self.smoothing = smoothing
        self.random_state = random_state

    _checks = (check_super_parents, check_forest_smoothing, check_random_state_parameter)
    _uncertainty_rules = (
        Rule(
            lambda e: e.n_super_parents == 2,
            "A2DE keeps no triple counts to draw its conditionals from",
        ),
        Rule(
            lambda e: e.smoothing == "hdp",
            "smoothing='hdp': its tables hold estimates, not counts",
        ),
    )

    def _uncertainty_model(self) -> AveragedOneDependencePosterior:
        """The tables' Dirichlet posteriors from the pair tables learnt from
        (:mod:`discotree.models.posterior_draws`)."""
        alpha = float(getattr(self, "alpha_", self._alpha))
        return AveragedOneDependencePosterior(
            self.statistics_, alpha, self._epsilon, self.smoothing
        )

    def _count_learner(self) -> str:
        return "aode" if self.n_super_parents == 1 else "a2de"

    def _model_memory_bytes(self, n_categories: NDArray[np.intp], n_classes: int) -> float:
        """A1DE: the (C, D, D) log tables of the conditionals; A2DE: the triple tables
        and their conditionals."""
        if self.n_super_parents == 2:
            return two_dependence_bytes(n_categories, n_classes)
        return 8.0 * n_classes * float(np.sum(n_categories)) ** 2
