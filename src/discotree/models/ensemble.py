"""Ensembles of k-dependence classifiers over stochastic discretisations and sampled
attribute orders (after Zhang, Petitjean & Buntine, "Bayesian network classifiers
using ensembles and smoothing", Knowledge and Information Systems, 2020).

Each member sees the ensemble's codes through its own map of every binned column's
fine bins to coarser ones (:func:`coarsening_maps`), and the ensemble's posterior is the
mean of the members' posteriors, mixed, when the ensemble has one, with the posterior of
a linear member (:class:`~discotree.models.logistic.LogisticModel`: naive Bayes with
conditional-likelihood parameters and Gaussian numeric leaves, which reads the fine
bins' values instead of coarse bins):

``P(c | x) = (1 - w) mean_m P_m(c | x) + w P_linear(c | x)``,

and that, when the ensemble has a pair member (a logistic model that also reads every
pair of columns jointly: the second-order model "ALR2" of Zaidi, Webb, Carman,
Petitjean & Cerquides, Machine Learning 104, 2016), pooled with its posterior
(:func:`pooled_log_posterior`): logarithmically,
``P'(c | x) ∝ P(c | x)^(1 - v) P_pairs(c | x)^v`` (the default), or linearly,
``(1 - v) P(c | x) + v P_pairs(c | x)`` (the pooling of files written before the
logarithmic one existed).

Missing features are summed out (the package's rule): a kDB member's posterior of a
row with every feature missing is the class prior, and so is the linear and the pair
member's for such a row (their intercept-only posterior is not the prior: the
intercepts are fitted with the features' weights), so the ensemble gives the prior.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from numpy.typing import NDArray

from .. import missing_values
from ..numerics import log_sum_exp, normalise_log
from ..stored_checks import check_class_prior, fail
from ..stored_classes import stored
from ..threads import map_on_cores
from ..transformers.mdl import sampled_mdl_partition
from .category_maps import apply_maps, packed_maps, unpacked_maps
from .file_checks import StoredModel
from .k_dependence import KDependenceModel
from .logistic import LogisticModel

__all__ = [
    "POOLINGS",
    "KDBEnsembleModel",
    "coarsening_maps",
    "pooled_log_posterior",
    "sampled_mdl_maps",
]

#: How the pair member's posterior joins the rest's: ``"log"``, the logarithmic opinion
#: pool (a weighted geometric mean, renormalised), or ``"linear"``, the weighted mean.
POOLINGS = ("log", "linear")


def coarsening_maps(
    n_categories: NDArray[np.intp],
    binned: list[int],
    n_bins: int,
    rng: np.random.Generator,
) -> list[NDArray[np.intp] | None]:
    """For every binned column, a map of its fine (equal-frequency) bins to ``n_bins``
    coarse ones cut at the jittered levels ``(k + u_k) / n_bins`` of the fine bins'
    range (``u_k`` uniform on (-1/2, 1/2): a stochastic discretisation); None for the
    other columns (kept as they are).

    Examples
    --------
    >>> maps = coarsening_maps(np.array([3, 8]), [1], 2, np.random.default_rng(0))
    >>> maps[0] is None, maps[1].tolist()
    (True, [0, 0, 0, 0, 0, 1, 1, 1])
    """
    maps: list[NDArray[np.intp] | None] = [None] * len(n_categories)
    for j in binned:
        fine = int(n_categories[j])
        if fine <= n_bins:
            continue
        levels = (np.arange(1, n_bins) + rng.uniform(-0.5, 0.5, n_bins - 1)) / n_bins
        cuts = np.unique(np.clip(np.rint(levels * fine), 1, fine - 1).astype(np.intp))
        maps[j] = np.searchsorted(cuts, np.arange(fine), side="right").astype(np.intp)
    return maps


def sampled_mdl_maps(
    n_categories: NDArray[np.intp],
    binned: list[int],
    class_counts: list[NDArray[np.float64]],
    rng: np.random.Generator,
) -> list[NDArray[np.intp] | None]:
    """For every binned column, a supervised stochastic map of its fine bins to coarser
    ones: the cuts drawn by :func:`~discotree.transformers.mdl.sampled_mdl_partition`
    from the column's class weights per fine bin (``class_counts[i]`` of shape
    (fine bins, classes) for ``binned[i]``); None for the other columns.

    Examples
    --------
    >>> counts = [np.array([[9.0, 0], [8, 1], [1, 8], [0, 9]])]
    >>> maps = sampled_mdl_maps(np.array([2, 4]), [1], counts, np.random.default_rng(0))
    >>> maps[0] is None, maps[1].tolist()
    (True, [0, 0, 1, 1])
    """
    maps: list[NDArray[np.intp] | None] = [None] * len(n_categories)
    for j, counts in zip(binned, class_counts, strict=True):
        maps[j] = sampled_mdl_partition(counts, rng)
    return maps


@stored
@dataclass
class KDBEnsembleModel(StoredModel):
    """Members (k-dependence models over coarsened codes) whose posteriors are averaged,
    and an optional linear member mixed in with weight ``linear_weight``.

    Parameters
    ----------
    maps : list of list
        Per member, :func:`coarsening_maps`.
    members : list of KDependenceModel
    class_log_prior : ndarray of shape (n_classes,)
        The prior each member's posterior uses.
    linear : LogisticModel or None
        The linear member, on the ensemble's own (fine) codes.
    linear_weight : float
        Its weight ``w`` in the posterior (0 when there is none).
    pair_member : LogisticModel or None
        The pair member, on the fine codes (its ``pairs`` and ``pair_levels`` say which
        pairs it reads and through which levels).
    pair_weight : float
        Its weight ``v`` in the posterior, pooled last (0 when there is none).
    pair_pooling : {"log", "linear"}
        How it is pooled (:func:`pooled_log_posterior`).
    """

    maps: list[list[NDArray[np.intp] | None]]
    members: list[KDependenceModel]
    class_log_prior: NDArray[np.float64]
    linear: LogisticModel | None = None
    linear_weight: float = 0.0
    pair_member: LogisticModel | None = None
    pair_weight: float = 0.0
    pair_pooling: str = "linear"

    score_kind: ClassVar[str] = "posterior"

    @property
    def n_classes(self) -> int:
        return len(self.class_log_prior)

    def member_log_posteriors(self, codes: NDArray[np.integer]) -> list[NDArray[np.float64]]:
        """``log P_m(c | x)`` of every member (the members on the cores at once: each
        one's numbers are its own, whatever the number of cores)."""

        # (as the members read them, once: a member without maps reads them as they
        # are; and the rows missing a value, which maps keep missing, found once)
        missing_rows = np.flatnonzero(~missing_values.complete_rows(codes))
        given = np.ascontiguousarray(codes, dtype=np.intp)

        def posterior(pair: tuple[list[NDArray[np.intp] | None], KDependenceModel]):
            maps, member = pair
            mapped = apply_maps(given, maps)
            joint = member.log_likelihood(mapped, missing_rows) + self.class_log_prior
            return normalise_log(joint)

        return map_on_cores(posterior, list(zip(self.maps, self.members, strict=True)))

    def prepare_prediction(self, missing_features: bool = False) -> None:
        """Build every member's prediction tables now
        (:meth:`~discotree.models.k_dependence.KDependenceModel.prepare_prediction`;
        with ``missing_features``, those that sum missing features out too), so that
        a first prediction costs what the next ones do: the fits in passes call it at
        their end (the fit in memory prepares each member in its own thread as it is
        fitted). The same numbers with or without it."""
        for member in self.members:
            member.prepare_prediction(missing_features)

    def class_scores(
        self, codes: NDArray[np.integer], log_prior: NDArray[np.float64] | None = None
    ) -> NDArray[np.float64]:
        """``log P(c | x)`` of the mixture above (the kind ``"posterior"``: each member
        normalised under ``class_log_prior``; ``log_prior`` is not used). A row with
        every feature missing gets the prior (see the module notes)."""
        posteriors = np.stack(self.member_log_posteriors(codes))
        mean = log_sum_exp(posteriors, axis=0) - np.log(len(self.members))
        if self.linear is not None and self.linear_weight > 0:
            linear = self._summed_out(self.linear.log_posterior(codes), codes)
            mean = pooled_log_posterior(mean, linear, float(self.linear_weight), "linear")
        if self.pair_member is not None and self.pair_weight > 0:
            pairs = self._summed_out(self.pair_member.log_posterior(codes), codes)
            mean = pooled_log_posterior(mean, pairs, float(self.pair_weight), self.pair_pooling)
        return mean

    def _summed_out(
        self, log_posterior: NDArray[np.float64], codes: NDArray[np.integer]
    ) -> NDArray[np.float64]:
        """A logistic member's log posterior with the class prior for the rows whose
        features are all missing (every feature summed out)."""
        blank = np.all(missing_values.is_missing(codes), axis=1)
        if blank.any():
            log_posterior = log_posterior.copy()
            log_posterior[blank] = self.class_log_prior
        return log_posterior

    def check_numbers(self, where: str) -> None:
        """The numbers of a loaded model (finite, normalised, in range)."""
        _ensemble(self, where)

    def __reduce__(self) -> tuple:
        """Pickled with the members' maps packed
        (:func:`~discotree.models.category_maps.packed_maps`: two arrays, not one per
        column and member), loaded as the same model (:func:`unpickled_ensemble`)."""
        state = dict(self.__dict__)
        state["maps"] = packed_maps(self.maps)
        return (unpickled_ensemble, (type(self), state))


def pooled_log_posterior(
    log_p: NDArray[np.float64], log_q: NDArray[np.float64], weight: float, pooling: str
) -> NDArray[np.float64]:
    """The log posterior of two posteriors pooled with ``weight`` on the second (rows,
    classes; both normalised): ``"linear"``, ``log((1 - w) p + w q)``; ``"log"``, the
    logarithmic opinion pool ``(1 - w) log p + w log q`` renormalised over the classes
    (Genest & Zidek, "Combining probability distributions", Statistical Science 1(1),
    1986, Section 3), which lets a confident posterior outweigh a hesitant one where the
    mean would average them.

    Examples
    --------
    >>> log_p, log_q = np.log([[0.5, 0.5]]), np.log([[0.9, 0.1]])
    >>> np.exp(pooled_log_posterior(log_p, log_q, 0.5, "linear")).round(3).tolist()
    [[0.7, 0.3]]
    >>> np.exp(pooled_log_posterior(log_p, log_q, 0.5, "log")).round(3).tolist()
    [[0.75, 0.25]]
    """
    if pooling not in POOLINGS:
        raise ValueError(f"pooling must be one of {POOLINGS}, got {pooling!r}.")
    if weight >= 1:
        return log_q
    if weight <= 0:
        return log_p
    if pooling == "linear":
        return np.logaddexp(log_p + np.log1p(-weight), log_q + np.log(weight))
    joint = (1.0 - weight) * log_p + weight * log_q
    return normalise_log(joint)


# ------------------------------------------------ checks of a loaded model
def _ensemble(model: KDBEnsembleModel, where: str) -> None:
    """A prior, at least one member, every member of the ensemble's classes."""
    prior = check_class_prior(model.class_log_prior, f"{where}.class_log_prior")
    if not model.members:
        raise fail(f"{where}.members", "an ensemble needs at least one member")
    for m, member in enumerate(model.members):
        if member.n_classes != len(prior):
            raise fail(f"{where}.members[{m}]",
                        f"has {member.n_classes} classes, the ensemble {len(prior)}")  # fmt: skip


def unpickled_ensemble(cls: type, state: dict) -> KDBEnsembleModel:
    """The model of a pickled ``state`` (:meth:`KDBEnsembleModel.__reduce__`)."""
    if isinstance(state.get("maps"), dict):
        state = {**state, "maps": unpacked_maps(state["maps"])}
    model: KDBEnsembleModel = object.__new__(cls)
    model.__dict__.update(state)
    return model
