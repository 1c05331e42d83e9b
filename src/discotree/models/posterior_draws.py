"""Posterior draws of the tables of kDB, A1DE and kDB ensembles (what
:func:`discotree.uncertainty.posterior_uncertainty` samples for their
``predict_uncertainty``).

Each fitted table is the mean of a Dirichlet posterior; a draw replaces every table by
one draw of that posterior, and the models then score rows exactly as the fitted ones
do (missing values summed out by the same rules).

**kDB** (:class:`KDependencePosterior`), per attribute in use and per level ``L`` of its
ranked parents (``L = 0``: the class only):

* ``smoothing="dirichlet"``: each (parent configuration, class) seen in training is
  drawn from ``Dirichlet(counts + alpha)`` (the fitted ``(n + alpha) / (N + r alpha)``
  is its mean);
* ``smoothing="hierarchical"``: top-down, the node's marginal from
  ``Dirichlet(N(x) + alpha)``, the class level from ``Dirichlet(N(x, c) + b_0
  theta_root)`` and each seen configuration of level ``L`` from ``Dirichlet(counts +
  b_L theta_(L-1))``, ``theta_(L-1)`` the *drawn* table of its prefix (its back-off).
  By the tower rule the draws' mean is the fitted hierarchical estimate
  (:mod:`discotree.stats.hierarchical`) at every level.

A (configuration, class) never seen in training has the posterior ``Dirichlet(alpha)``
(Dirichlet smoothing) or ``Dirichlet(b_L theta_(L-1))`` (hierarchical); it is **not**
drawn: it takes that posterior's mean, the uniform distribution or its back-off's draw
(recursively, down to the deepest seen prefix). Drawing it would need one draw per
configuration a query meets, the same in every call (the exact marginalisation of
missing values scores rows several times); so the knowledge uncertainty of rows whose
configurations were never seen is that of their back-off only (an under-statement for
Dirichlet smoothing, where it is nil). The tables of a configuration are drawn whole
(``r`` values by the classes seen there): one draw holds about ``r`` numbers per stored
cell of the model. HDP tables hold estimates, not counts: they have no posterior here.

**A1DE** (:class:`AveragedOneDependencePosterior`): ``P(c, x_i)`` from
``Dirichlet(n(c, x_i) + alpha)`` over the (class, value) cells of each attribute, each
conditional row ``P(x_j | c, x_i = a)`` from ``Dirichlet(n + alpha)`` (Dirichlet
smoothing) or ``Dirichlet(n + b P_0(x_j | c))`` with the fitted class level
(hierarchical smoothing, as the forests' :func:`~discotree.stats.hierarchical.
hierarchical_forest_tables` posterior); the average's class marginal is recomputed
from the drawn ``P(c, x_i)``. A2DE keeps no triple counts: no posterior.

**kDB ensembles** (:class:`KDBEnsemblePosterior`): one draw is one draw of every
member's tables and of the class prior, combined as the ensemble combines its members
(the mean of the members' posteriors, each normalised with the drawn prior, mixed with
the linear member and pooled with the pair member). The linear and pair members are
logistic models, fitted by conditional likelihood: they have no Dirichlet posterior
and stay at their fitted parameters in every draw, so the spread is that of the kDB
members' tables (over the members and over the draws: each draw draws them all).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, ClassVar, cast

import numpy as np
from numpy.typing import NDArray
from scipy.special import logsumexp

from .. import missing_values
from ..docstrings import fill_doc
from ..stats.dirichlet import smoothed_conditional
from ..stats.family_tables import observed_prefix_lengths
from ..stats.hierarchical import hierarchical_forest_tables
from ..stats.pair_statistics import PairStatistics
from .averaged_dependence import AveragedOneDependenceModel
from .ensemble import KDBEnsembleModel
from .k_dependence import KDependenceModel

__all__ = [
    "AveragedOneDependencePosterior",
    "DrawnKDBEnsemble",
    "DrawnKDependenceModel",
    "KDBEnsemblePosterior",
    "KDependencePosterior",
    "LevelPosterior",
]


@dataclass(frozen=True)
class LevelPosterior:
    """The counts of one level of a kDB node's back-off, under each (parent
    configuration, class) seen in training.

    Parameters
    ----------
    pairs : ndarray of shape (n_pairs,), int64
        Sorted ids ``configuration * n_classes + class`` of the pairs with weight (the
        configuration's id as in :class:`~discotree.stats.family_tables.SparseFamilyTable`).
    counts : ndarray of shape (n_pairs, r)
        The weight of each of the node's values there.
    """

    pairs: NDArray[np.int64]
    counts: NDArray[np.float64]

    @classmethod
    def from_table(cls, table: Any) -> LevelPosterior:
        """The seen pairs of a :class:`~discotree.stats.family_tables.SparseFamilyTable`.

        Examples
        --------
        >>> from discotree.stats.family_tables import SparseFamilyTable
        >>> codes = np.array([[0, 1], [0, 1], [1, 0]])
        >>> table = SparseFamilyTable.from_codes(
        ...     codes, np.array([0, 1, 1]), None, 2, np.array([2, 2]), 1, (0,))
        >>> level = LevelPosterior.from_table(table)
        >>> level.pairs.tolist(), level.counts.tolist()
        ([0, 1, 3], [[0.0, 1.0], [0.0, 1.0], [1.0, 0.0]])
        """
        r = int(table.r_node)
        held = table.masses > 0
        cells, masses = table.cells[held], table.masses[held]
        pairs, inverse = np.unique(cells // r, return_inverse=True)
        counts = np.zeros((len(pairs), r))
        np.add.at(counts, (inverse.reshape(-1), cells % r), masses)
        return cls(pairs.astype(np.int64), counts)

    def find(self, wanted: NDArray[np.int64]) -> NDArray[np.intp]:
        """The row of each wanted pair id, -1 where it was not seen."""
        if len(self.pairs) == 0:
            return np.full(np.shape(wanted), -1, dtype=np.intp)
        at = np.minimum(np.searchsorted(self.pairs, wanted), len(self.pairs) - 1)
        return np.where(self.pairs[at] == wanted, at, -1).astype(np.intp)


def _dirichlet(rng: np.random.Generator, concentration: NDArray, floor: float) -> NDArray:
    """One draw of ``Dirichlet(concentration)`` per row (along the last axis), zeros
    floored at ``floor`` and renormalised (a row of zero concentration: uniform)."""
    return smoothed_conditional(rng.gamma(np.asarray(concentration, dtype=np.float64)), 0.0, floor)


def _floor(epsilon: float) -> float:
    """The floor of a drawn probability: ``epsilon``, or the smallest normal float
    (a gamma draw of a tiny shape underflows to 0, whose log would be -inf)."""
    return float(epsilon) if epsilon > 0 else float(np.finfo(np.float64).tiny)


@fill_doc
class KDependencePosterior:
    """The Dirichlet posteriors of a :class:`~discotree.models.k_dependence.
    KDependenceModel`'s tables (module notes), for ``posterior_draw``.

    Parameters
    ----------
    model : KDependenceModel
        Fitted with Dirichlet or hierarchical smoothing (not HDP).

    Attributes
    ----------
    posterior : list
        Per feature, None when it is not in use, else its :class:`LevelPosterior` of
        each level 0..len(parents).

    Raises
    ------
    ValueError
        For HDP tables (estimates, not counts).

    Examples
    --------
    {example_kdb_model}
    >>> drawn = KDependencePosterior(model).posterior_draw(np.random.default_rng(0), 1e-5)
    >>> drawn.log_likelihood(codes).shape
    (4, 2)
    """

    def __init__(self, model: KDependenceModel) -> None:
        if model.hdp:
            raise ValueError(
                "HDP tables hold estimates, not counts: no Dirichlet posterior to draw from"
            )
        self.model = model
        used = set(model.attributes)
        self.posterior: list[list[LevelPosterior] | None] = [
            [
                LevelPosterior.from_table(model.tables[j][length])
                for length in range(len(ranked) + 1)
            ]
            if j in used
            else None
            for j, ranked in enumerate(model.parents)
        ]

    def _prefix_ids(self, node: int, length: int, pairs: NDArray[np.int64]) -> NDArray[np.int64]:
        """The pair ids, at level ``length``, of the prefixes of level ``length + 1``'s
        ``pairs`` (the configuration's last digit dropped)."""
        n_classes = self.model.n_classes
        parent = self.model.parents[node][length]
        configuration, c = pairs // n_classes, pairs % n_classes
        return (configuration // int(self.model.n_categories[parent])) * n_classes + c

    def posterior_draw(self, rng: np.random.Generator, epsilon: float) -> DrawnKDependenceModel:
        """The model with every seen table row drawn from its posterior (module notes),
        floored at ``epsilon``.

        Parameters
        ----------
        rng : numpy Generator
        epsilon : float
            Floor of a drawn probability (the smallest float when 0).

        Returns
        -------
        DrawnKDependenceModel

        Examples
        --------
        See :class:`KDependencePosterior`.
        """
        model, floor = self.model, _floor(epsilon)
        hierarchical = model.concentrations is not None
        roots: list[NDArray[np.float64] | None] = [None] * model.n_features
        drawn: list[list[NDArray[np.float64]] | None] = [None] * model.n_features
        for node, levels in enumerate(self.posterior):
            if levels is None:
                continue
            r = int(model.n_categories[node])
            tables: list[NDArray[np.float64]] = []
            if not hierarchical:
                for level in levels:
                    tables.append(_dirichlet(rng, level.counts + model.alpha, floor))
                drawn[node] = tables
                continue
            b = np.asarray(model.concentrations[node], dtype=np.float64)  # type: ignore[index]
            marginal = levels[0].counts.sum(axis=0) if len(levels[0].pairs) else np.zeros(r)
            root = _dirichlet(rng, marginal + model.alpha, floor)
            roots[node] = root
            for length, level in enumerate(levels):
                chain = [level.pairs]
                for shorter in range(length - 1, -1, -1):
                    chain.insert(0, self._prefix_ids(node, shorter, chain[0]))
                base = _deepest(levels[:length], tables, chain[:length], root, len(level.pairs))
                tables.append(_dirichlet(rng, level.counts + b[length] * base, floor))
            drawn[node] = tables
        return DrawnKDependenceModel(
            model.n_categories,
            model.attributes,
            model.parents,
            model.tables,
            model.alpha,
            model.epsilon,
            model.concentrations,
            False,
            drawn_levels=self.posterior,
            drawn_tables=drawn,
            drawn_roots=roots,
        )


def _deepest(
    levels: list[LevelPosterior],
    tables: list[NDArray[np.float64]],
    ids: list[NDArray[np.int64]],
    root: NDArray[np.float64],
    n: int,
    *,
    valid: list[NDArray[np.bool_]] | None = None,
    values: NDArray[np.intp] | None = None,
) -> NDArray[np.float64]:
    """The drawn distribution (rows of ``r``; with ``values``, only the probability of
    each item's value) of the deepest seen level of each of ``n`` items: ``ids[L]``
    the items' pair ids at level ``L`` (where ``valid[L]``), the node's marginal
    ``root`` where no level has them. A configuration seen at a level is seen at every
    shorter prefix, so the last hit going down is the deepest."""
    if values is None:
        out = np.array(np.broadcast_to(root, (n, len(root))))
    else:
        out = root[values]
    for length, (level, table) in enumerate(zip(levels, tables, strict=False)):
        at = level.find(ids[length])
        hit = at >= 0 if valid is None else (at >= 0) & valid[length]
        out[hit] = table[at[hit]] if values is None else table[at[hit], values[hit]]
    return out


@dataclass
class DrawnKDependenceModel(KDependenceModel):
    """A :class:`~discotree.models.k_dependence.KDependenceModel` whose tables are one
    posterior draw (:meth:`KDependencePosterior.posterior_draw`): it scores rows, and
    sums missing values out, as the fitted model does.

    Parameters
    ----------
    drawn_levels : list
        :attr:`KDependencePosterior.posterior`.
    drawn_tables : list
        Per feature in use, the drawn rows of each level (aligned with
        ``drawn_levels``), None for the others.
    drawn_roots : list
        Hierarchical smoothing: per feature in use, the drawn marginal; else None.
    (the other parameters: the fitted model's)

    Examples
    --------
    See :class:`KDependencePosterior`.
    """

    drawn_levels: list[list[LevelPosterior] | None] | None = None
    drawn_tables: list[list[NDArray[np.float64]] | None] | None = None
    drawn_roots: list[NDArray[np.float64] | None] | None = None

    def node_log_probability(self, node: int, codes: NDArray[np.integer]) -> NDArray[np.float64]:
        """``log P(x_node | c, pa)`` of every row and class under the drawn tables (0
        where x_node is missing; a missing parent backed off to the observed prefix, as
        the fitted model does).

        Parameters
        ----------
        node : int
        codes : ndarray of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_classes)

        Examples
        --------
        See :class:`KDependencePosterior`.
        """
        assert self.drawn_levels is not None and self.drawn_tables is not None
        codes = np.asarray(codes)
        ranked, n_classes = self.parents[node], self.n_classes
        levels, tables = self.drawn_levels[node], self.drawn_tables[node]
        r = int(self.n_categories[node])
        hierarchical = self.concentrations is not None
        root = self.drawn_roots[node] if hierarchical and self.drawn_roots else None
        if root is None:
            root = np.full(r, 1.0 / r)
        values = codes[:, node]
        seen = missing_values.observed(values)
        usable = observed_prefix_lengths(codes, ranked)
        configuration = np.zeros(len(codes), dtype=np.int64)
        ids, valid = [], []
        classes = np.arange(n_classes, dtype=np.int64)
        for length in range(len(ranked) + 1):
            if length:
                parent = ranked[length - 1]
                configuration = configuration * int(self.n_categories[parent])
                configuration += np.maximum(codes[:, parent], 0)
            ids.append((configuration[:, None] * n_classes + classes).reshape(-1))
            here = usable >= length if hierarchical else usable == length
            valid.append(np.repeat(seen & here, n_classes))
        assert levels is not None and tables is not None
        picked = np.repeat(np.maximum(values, 0), n_classes)
        p = _deepest(levels, tables, ids, root, len(picked), valid=valid, values=picked)
        out = np.log(p).reshape(len(codes), n_classes)
        out[~seen] = 0.0
        return out


class AveragedOneDependencePosterior:
    """The Dirichlet posteriors of an A1DE's tables (module notes), for
    ``posterior_draw``.

    Parameters
    ----------
    stats : PairStatistics
        The pair tables the model was learnt from.
    alpha : float
        Its pseudo-count (of ``P(c, x_i)``, and of every conditional with Dirichlet
        smoothing; of the marginals with hierarchical smoothing).
    epsilon : float
        Its zero-probability floor (hierarchical smoothing's tables).
    smoothing : {"dirichlet", "hierarchical"}, default="dirichlet"

    Attributes
    ----------
    posterior : tuple of ndarray
        The Dirichlet parameters of ``P(c, x_i)``, shaped (n_classes, D) as
        ``parent_log``, and of the conditionals, (n_classes, D, D) as ``child_log``
        (the diagonal blocks unused).

    Examples
    --------
    >>> codes = np.array([[0, 1], [1, 1], [1, 0], [0, 0]])
    >>> stats = PairStatistics.from_codes(codes, np.array([0, 1, 1, 0]), np.array([2, 2]), 2)
    >>> posterior = AveragedOneDependencePosterior(stats, 1.0, 0.0)
    >>> drawn = posterior.posterior_draw(np.random.default_rng(0), 1e-5)
    >>> every = np.array([[0, 0], [0, 1], [1, 0], [1, 1]])
    >>> np.exp(drawn.log_likelihood(every)).sum(axis=0).round(12)  # still proper
    array([1., 1.])
    """

    def __init__(
        self, stats: PairStatistics, alpha: float, epsilon: float, smoothing: str = "dirichlet"
    ) -> None:
        if smoothing not in ("dirichlet", "hierarchical"):
            raise ValueError(
                f"smoothing={smoothing!r}: the tables are not counted Dirichlet posteriors"
            )
        self.n_categories = np.asarray(stats.n_categories)
        self.offsets = np.asarray(stats.offsets)
        n_classes, width = stats.n_classes, int(self.offsets[-1])
        parent = np.asarray(stats.diagonal, dtype=np.float64) + alpha
        if smoothing == "dirichlet":
            child = np.asarray(stats.counts, dtype=np.float64) + alpha
        else:
            child = np.ones((n_classes, width, width))
            d = len(self.n_categories)
            for i in range(d):
                parents = np.full((n_classes, d), i, dtype=np.intp)
                parents[:, i] = -1
                _, masses, _ = hierarchical_forest_tables(stats, parents, alpha, epsilon)
                rows = slice(self.offsets[i], self.offsets[i + 1])
                for j in range(d):
                    if j != i:
                        for c in range(n_classes):
                            child[c, rows, self.offsets[j] : self.offsets[j + 1]] = masses[c][j]
        self.posterior = (parent, child)

    def posterior_draw(
        self, rng: np.random.Generator, epsilon: float
    ) -> AveragedOneDependenceModel:
        """An A1DE with every table drawn from its posterior, floored at ``epsilon``.

        Parameters
        ----------
        rng : numpy Generator
        epsilon : float

        Returns
        -------
        AveragedOneDependenceModel

        Examples
        --------
        See :class:`AveragedOneDependencePosterior`.
        """
        parent, child = self.posterior
        floor, offsets = _floor(epsilon), self.offsets
        n_classes = parent.shape[0]
        parent_log = np.empty_like(parent)
        child_log = np.zeros_like(child)
        gammas = rng.gamma(child)
        marginals = []
        for j in range(len(self.n_categories)):
            block = slice(offsets[j], offsets[j + 1])
            joint = _dirichlet(rng, parent[:, block].reshape(-1), floor)
            parent_log[:, block] = np.log(joint).reshape(n_classes, -1)
            marginals.append(logsumexp(parent_log[:, block], axis=1))
            table = np.log(smoothed_conditional(gammas[:, :, block], 0.0, floor))
            table[:, block, :] = 0.0  # no factor of a feature given itself
            child_log[:, :, block] = table
        prior = logsumexp(np.column_stack(marginals), axis=1) - np.log(len(marginals))
        return AveragedOneDependenceModel(self.n_categories, parent_log, child_log, prior)


@fill_doc
class KDBEnsemblePosterior:
    """The Dirichlet posteriors of a kDB ensemble's members (module notes), for
    ``posterior_draw``; the linear and pair members stay fitted.

    Parameters
    ----------
    model : KDBEnsembleModel

    Attributes
    ----------
    members : list of KDependencePosterior
    posterior : list
        Each member's :attr:`KDependencePosterior.posterior`.

    Examples
    --------
    {example_kdb_model}
    >>> ensemble = KDBEnsembleModel([[None, None]] * 2, [model] * 2, np.log([0.5, 0.5]))
    >>> drawn = KDBEnsemblePosterior(ensemble).posterior_draw(np.random.default_rng(0), 1e-5)
    >>> drawn.class_scores(codes, np.log([0.5, 0.5])).shape
    (4, 2)
    """

    def __init__(self, model: KDBEnsembleModel) -> None:
        self.model = model
        self.members = [KDependencePosterior(member) for member in model.members]
        self.posterior = [member.posterior for member in self.members]

    def posterior_draw(self, rng: np.random.Generator, epsilon: float) -> DrawnKDBEnsemble:
        """One draw of every member's tables.

        Parameters
        ----------
        rng : numpy Generator
        epsilon : float

        Returns
        -------
        DrawnKDBEnsemble

        Examples
        --------
        See :class:`KDBEnsemblePosterior`.
        """
        return DrawnKDBEnsemble(
            self.model, [member.posterior_draw(rng, epsilon) for member in self.members]
        )


@dataclass(frozen=True)
class DrawnKDBEnsemble:
    """A kDB ensemble whose members' tables are one posterior draw.

    Parameters
    ----------
    model : KDBEnsembleModel
        The fitted ensemble (its maps, linear and pair members, weights).
    members : list of DrawnKDependenceModel

    Examples
    --------
    See :class:`KDBEnsemblePosterior`.
    """

    model: KDBEnsembleModel
    members: list[DrawnKDependenceModel]

    score_kind: ClassVar[str] = "posterior"

    def class_scores(
        self, codes: NDArray[np.integer], log_prior: NDArray[np.float64]
    ) -> NDArray[np.float64]:
        """The ensemble's log posterior (the kind ``"posterior"``) with every member
        normalised under the class prior ``log_prior`` (a drawn one): what
        :func:`discotree.uncertainty.posterior_uncertainty` normalises.

        Parameters
        ----------
        codes : ndarray of shape (n_samples, n_features)
        log_prior : ndarray of shape (n_classes,)

        Returns
        -------
        ndarray of shape (n_samples, n_classes)

        Examples
        --------
        See :class:`KDBEnsemblePosterior`.
        """
        log_prior = np.asarray(log_prior, dtype=np.float64)
        drawn = dataclasses.replace(
            self.model, members=self._as_members(), class_log_prior=log_prior
        )
        return drawn.class_scores(codes, log_prior)

    def _as_members(self) -> list[KDependenceModel]:
        """The drawn members where the ensemble holds its fitted ones (they answer the
        same ``log_likelihood``)."""
        return cast(list[KDependenceModel], self.members)
