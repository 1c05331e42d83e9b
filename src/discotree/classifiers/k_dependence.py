"""k-dependence Bayesian network classifiers of any k with sparse family tables, and
selective kDB (Martinez, Webb, Chen & Zaidi 2016)."""

from __future__ import annotations

from typing import Any

from ..docstrings import fill_doc
from ..learners.fit_input import FitInput
from ..learners.options import RANDOM_STATE, KDependenceOptions, one_of
from ..learners.parameter_rules import Rule
from ..learners.registry import FittedModel, LearnerSpec, get_learner
from ..models.k_dependence import KDependenceModel
from ..models.posterior_draws import KDependencePosterior
from ..stored_classes import stored
from ..validation import integer_seed
from ._base import DiscreteForestClassifierBase
from ._incremental import IncrementalFitMixin
from .parameter_checks import check_kdb_parameters, check_parameter_table

__all__ = ["KDBClassifier"]


@stored
@fill_doc
class KDBClassifier(IncrementalFitMixin, DiscreteForestClassifierBase):
    """kDB of any k (Sahami 1996) and selective kDB (Martinez et al. 2016).

    The attributes are ranked by I(X; C); each takes as parents the (at most) ``k``
    earlier attributes of largest positive I(X_i; X_j | C), ranked. Every family's
    counts are stored sparsely, under the parent configurations actually observed, so
    memory grows with the data and never with arity**k. With ``selective=True`` (the
    default) the number of leading attributes and the number of parents ``k' <= k``
    are chosen jointly by the leave-one-out loss of every nested model, computed from
    the counts with each row taken out (Martinez et al. 2016, Section 3): three passes
    over the data, no refit.

    Parameters
    ----------
    k : int, default=5
        The largest number of attribute parents (0 is naive Bayes). An attribute has
        at most ``n_features - 1`` earlier ones, so a larger ``k`` acts as that.
    selective : bool, default=True
        Choose the attributes and k by leave-one-out loss (selective kDB); ``False``:
        every attribute with (at most) ``k`` parents (kDB).
    smoothing : {"dirichlet", "hierarchical", "hdp"}, default="dirichlet"
        ``"dirichlet"``: ``alpha`` per cell of every table (a configuration never seen
        is uniform). ``"hierarchical"``: each table backs off along the prefixes of its
        ranked parents to the class level and the node's marginal, with one
        concentration per level chosen by leave-one-out log-likelihood
        (:mod:`discotree.stats.hierarchical`; the structure of Petitjean et al.'s HDP
        estimate with fixed concentrations). ``"hdp"``: Petitjean et al.'s hierarchical
        Dirichlet process estimate itself, by Gibbs sampling with the concentrations
        sampled per level (:mod:`discotree.stats.hdp`, 200 sweeps, seeded by
        ``random_state``), on the structure chosen with ``"hierarchical"``; whole-number
        sample weights only.
    attribute_order : {"mutual-information", "sampled"}, default="mutual-information"
        The order of the attributes: by decreasing I(X; C), or sampled with
        probabilities proportional to it (``random_state``; the members of
        :class:`~discotree.KDBEnsembleClassifier`).
    random_state : int, RandomState, Generator or None, default=0
        The draws of ``attribute_order="sampled"`` (unused otherwise).
    selection_loss : {"rmse", "log_loss"}, default="rmse"
        The leave-one-out loss that selects (RMSE of the class probabilities, as
        Martinez et al. use: bounded, so rows whose configurations are unique do not
        decide alone; see :mod:`discotree.learners.k_dependence`).
    alpha : float, default=1.0
        Dirichlet pseudo-count per cell of every table.
    {epsilon}
    {encoding}

    Attributes
    ----------
    {discrete_fit_attributes}
    {fit_memory_estimate_}
    alpha_ : float
        The pseudo-count used (``alpha``).
    model_ : KDependenceModel
        The sparse family tables and the structure in use.
    order_ : list of int
        The attributes by decreasing I(X; C).
    attributes_ : list of int
        The attributes in use (a prefix of ``order_``).
    attribute_parents_ : list of tuple
        Per feature, its parents in use, ranked (``()`` for unused features).
    edges_ : list of list
        Per class, the undirected attribute edges.
    {edge_names_}
    k_ : int
        The number of parents in use (``k``, or the one selected).
    n_attributes_ : int
        How many attributes are in use.
    concentrations_ : list of ndarray
        ``smoothing="hierarchical"``: per feature, the concentration of each level in
        use (class level first); ``"hdp"``: the sampled concentrations' means (root,
        class level, then each parent), empty for the features not in use.
    selection_losses_ : ndarray of shape (n_features + 1, k + 1)
        ``selective=True``: the leave-one-out RMSE (or mean log-loss) of the first ``s``
        attributes with at most ``q`` parents, at ``[s, q]``.

    Notes
    -----
    ``partial_fit`` adds batches (the first fixes the numeric bins, as for every
    estimator) and keeps their encoded rows, which the family tables and the
    leave-one-out pass read: the model after any batches is the model ``fit`` learns
    from all of them (tested); memory grows with the rows (one byte per cell). With
    Dirichlet smoothing it is the count learner ``"k-dependence"`` in three passes (pair
    tables, sparse prefix tables, leave-one-out losses, each a sum over the rows), which
    the Dask engine runs over partitions: equal to ``fit`` (tested); hierarchical
    smoothing chooses its concentrations from the rows in memory.
    Missing values are summed out exactly by variable elimination where affordable (a
    guard on the dense tables and on each row's largest factor), else a missing parent
    is backed off to the observed prefix of the ranked parents
    (:mod:`discotree.models.k_dependence`; pyAgrum's exact inference on the exported
    network agrees, tested). The selection's leave-one-out pass scores rows with a
    missing parent by the back-off rule. Fitting counts the pair tables
    once and every family under each prefix of its parents once; the leave-one-out pass
    costs O(n * d * (k + 1) * C) lookups.

    References
    ----------
    Sahami, "Learning limited dependence Bayesian classifiers", KDD 1996; Martinez,
    Webb, Chen & Zaidi, "Scalable learning of Bayesian network classifiers", JMLR
    17(44), 2016, Sections 3-4.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from discotree import KDBClassifier
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> clf = KDBClassifier(k=2).fit(X, y)
    >>> clf.k_ <= 2, clf.n_attributes_ <= 30
    (True, True)
    """

    def __init__(
        self,
        k: int = 5,
        *,
        selective: bool = True,
        selection_loss: str = "rmse",
        smoothing: str = "dirichlet",
        attribute_order: str = "mutual-information",
        random_state=0,
        alpha: float = 1.0,
        epsilon: float = 1e-5,
        max_categories: int = 10,
        discretizer=None,
    ) -> None:
        super().__init__(
            alpha=alpha, epsilon=epsilon, max_categories=max_categories, discretizer=discretizer
        )
        self.k = k
        self.selective = selective
        self.selection_loss = selection_loss
        self.smoothing = smoothing
        self.attribute_order = attribute_order
        self.random_state = random_state

    _parameter_checks = (
        (
            "attribute_order",
            one_of(("mutual-information", "sampled"), "'mutual-information' or 'sampled'"),
        ),
        ("random_state", RANDOM_STATE),
    )

    _checks = (check_parameter_table, check_kdb_parameters)

    _auto_alpha = False

    _uncertainty_rules = (
        Rule(
            lambda e: e.smoothing == "hdp",
            "smoothing='hdp': its tables hold estimates, not counts",
        ),
    )

    def _uncertainty_model(self) -> KDependencePosterior:
        """Every seen table row's Dirichlet posterior (hierarchical: drawn top-down,
        each level backed off to its prefix's draw; :mod:`discotree.models.posterior_draws`)."""
        model = self.model_
        assert isinstance(model, KDependenceModel)  # (what this estimator fits)
        return KDependencePosterior(model)

    def _count_learner(self) -> str | None:
        """``"k-dependence"`` (three passes of counts, what engines run) with Dirichlet
        smoothing; hierarchical smoothing chooses its concentrations from the rows."""
        return "k-dependence" if self.smoothing == "dirichlet" else None

    def _rows_needed(self) -> str:
        return (
            f"smoothing={self.smoothing!r} chooses its concentrations from the rows (only "
            "smoothing='dirichlet' is learnt from counts)"
        )

    _options_class = KDependenceOptions

    def _derived_options(self) -> dict[str, Any]:
        seed = integer_seed(self.random_state)
        order_seed = None if self.attribute_order != "sampled" else integer_seed(self.random_state)
        return {"hdp_seed": seed, "order_seed": order_seed}

    def _fit_model(self, data: FitInput) -> FittedModel:
        if data.families is not None:  # an engine's passes: the count learner
            return super()._fit_model(data)
        rows = data.rows(f"{type(self).__name__} learns from rows (three passes)")
        options = self._learner_options(pairs=data.pairs)  # (counted by a stream)
        spec = LearnerSpec("selective-kdb", data.alpha, data.epsilon, options=options)
        return get_learner(spec.learner).fit(rows, spec)
