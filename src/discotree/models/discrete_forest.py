"""Class-conditional discrete forest distributions (Tan et al. 2010, eq. 6-7).

A forest-structured distribution factorises as ``p(x) = prod_i p_i(x_i) prod_(i,j)
p_ij / (p_i p_j)`` (eq. 6); rooting every tree turns this into the directed form
``p(x) = prod_j p(x_j | x_parent(j))``, which is what is stored here. With unsmoothed
parameters from the data, it is exactly the projection of eq. 7; with Dirichlet
smoothing it stays a normalised distribution. Naive Bayes (no edges), per-class
Chow-Liu forests and TAN (one forest shared by all classes, CPTs per class) are all
instances of :class:`DiscreteForestModel`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..kernels.forest import forest_log_likelihood
from ..stats.dirichlet import cell_pseudo_count, smoothed_conditional
from ..stats.hdp_counts import hdp_forest_tables
from ..stats.hierarchical import hierarchical_forest_tables
from ..stats.pair_statistics import PairStatistics
from ..stored_checks import check_counts, check_shape, fail, log_probabilities, numbers
from ..stored_classes import stored
from ..structure.spanning import topological_order
from ..validation import check_codes
from .file_checks import StoredModel, check_forest_parents
from .protocol import DeclaredSizes, JointScoring

__all__ = ["DiscreteForestModel"]


# ------------------------------------------------ checks of a loaded model
def _check_forest(model: Any, where: str) -> int:
    counts = check_counts(model.n_categories, f"{where}.n_categories")
    parents = np.asarray(model.parents)
    n = len(counts)
    if parents.ndim != 2 or parents.shape[1] != n or parents.dtype.kind not in "iu":
        raise fail(f"{where}.parents", f"must have shape (n_classes, {n})")
    if ((parents < -1) | (parents >= n)).any():
        raise fail(f"{where}.parents", "names a feature that does not exist")
    if len(model.log_cpts) != len(parents):
        raise fail(f"{where}.log_cpts", f"needs {len(parents)} classes of tables")
    for c, tables in enumerate(model.log_cpts):
        if len(tables) != n:
            raise fail(f"{where}.log_cpts[{c}]", f"needs {n} tables")
        for j, table in enumerate(tables):
            parent = parents[c, j]
            shape = (1 if parent < 0 else int(counts[parent]), int(counts[j]))
            check_shape(table, shape, f"{where}.log_cpts[{c}][{j}]")
    return len(parents)


def _discrete_forest(model: DiscreteForestModel, where: str) -> None:
    """Every table row a distribution; the Dirichlet posteriors and concentrations
    finite and >= 0."""
    check_forest_parents(model.parents, len(model.n_categories), f"{where}.parents")
    for c, tables in enumerate(model.log_cpts):
        for j, table in enumerate(tables):
            log_probabilities(table, -1, f"{where}.log_cpts[{c}][{j}]")
    if model.posterior is not None:
        shapes = [[np.shape(t) for t in tables] for tables in model.log_cpts]
        if [[np.shape(t) for t in tables] for tables in model.posterior] != shapes:
            raise fail(f"{where}.posterior", "needs the shapes of log_cpts")
        for c, tables in enumerate(model.posterior):
            for j, table in enumerate(tables):
                numbers(table, f"{where}.posterior[{c}][{j}]", low=0.0)
    for j, b in enumerate(model.concentrations or []):
        numbers(b, f"{where}.concentrations[{j}]", low=0.0)


@stored
@dataclass(frozen=True)
class DiscreteForestModel(JointScoring, StoredModel):
    """One directed forest with conditional probability tables per class.

    Attributes
    ----------
    parents : ndarray of shape (n_classes, n_features), intp
        Parent of each feature in each class's forest, ``-1`` for a root.
    n_categories : ndarray of shape (n_features,), intp
    log_cpts : list of list of ndarray
        ``log_cpts[c][j]`` has shape (r_parent, r_j) (``r_parent = 1`` for roots):
        ``log P(X_j = v | X_parent = u, class c)``.
    posterior : list of list of ndarray or None
        For smoothed maximum-likelihood tables (:meth:`from_statistics`), the
        parameters of each table row's Dirichlet posterior, ``counts + pseudo-count``,
        shaped as ``log_cpts`` (:meth:`posterior_draw`); None for tables from elsewhere
        (conditional-likelihood training, a file).
    concentrations : list of ndarray or None
        ``smoothing="hierarchical"``: per feature, the concentration of the class level
        and (when a class gives the feature a parent) of the parent level
        (:func:`discotree.stats.hierarchical.hierarchical_forest_tables`);
        ``smoothing="hdp"``: per feature the sampled concentrations' means, the root
        (the feature's marginal) first (:func:`discotree.stats.hdp_counts.hdp_forest_tables`).
    """

    parents: NDArray[np.intp]
    n_categories: NDArray[np.intp]
    log_cpts: list[list[NDArray[np.float64]]]
    posterior: list[list[NDArray[np.float64]]] | None = None
    concentrations: list[NDArray[np.float64]] | None = None

    _FILE_CHECKS = (_check_forest, _discrete_forest)

    @classmethod
    def from_statistics(
        cls,
        stats: PairStatistics | None,
        parents: NDArray[np.intp],
        *,
        alpha: float,
        epsilon: float,
        univariate: list[NDArray[np.float64]] | None = None,
        prior: str = "dirichlet",
        smoothing: str = "dirichlet",
        seed: int = 0,
    ) -> DiscreteForestModel:
        """Smoothed maximum-likelihood CPTs for given per-class forests.

        Parameters
        ----------
        stats : PairStatistics or None
            Pair tables; a feature with a parent reads the (parent, feature) table of
            its class, i.e. the samples where both are observed.
        parents : ndarray of shape (n_classes, n_features)
        alpha, epsilon : float
            Dirichlet pseudo-count and zero-probability floor (see
            :func:`discotree.stats.discrete.smoothed_conditional`).
        prior : {"dirichlet", "bdeu"}, default="dirichlet"
            ``"dirichlet"``: ``alpha`` per cell. ``"bdeu"``: ``alpha`` is an equivalent
            sample size spread over the cells of each family (the class, the parent and
            the feature), ``alpha / (n_classes * r_parent * r_j)`` per cell (BDeu,
            Heckerman et al., 1995), so large tables are not over-smoothed.
        univariate : list of ndarray, optional
            Per-feature (n_classes, r_j) counts for the roots; taken from the diagonal
            blocks of ``stats`` when omitted.
        smoothing : {"dirichlet", "hierarchical", "hdp"}, default="dirichlet"
            ``"hierarchical"``: each table backs off to its class level and the node's
            marginal, with concentrations chosen by leave-one-out from the counts
            (:func:`~discotree.stats.hierarchical.hierarchical_forest_tables`; ``alpha``
            then smooths the marginals, ``prior`` is not used). ``"hdp"``: the same
            back-off estimated by Petitjean et al.'s hierarchical Dirichlet process,
            concentrations sampled (:func:`~discotree.stats.hdp_counts.hdp_forest_tables`;
            ``alpha`` and ``prior`` are not used; the counts must be whole numbers).
        seed : int, default=0
            The sampler's seed (``smoothing="hdp"``).
        """
        parents = np.asarray(parents, dtype=np.intp)
        if smoothing in ("hierarchical", "hdp"):
            if smoothing == "hdp":
                rng = np.random.default_rng(seed)
                log_h, posterior_h, chosen = hdp_forest_tables(
                    stats, parents, epsilon, rng, univariate=univariate
                )
            else:
                log_h, posterior_h, chosen = hierarchical_forest_tables(
                    stats, parents, alpha, epsilon, univariate=univariate
                )
            n_categories_h = (
                stats.n_categories
                if stats is not None
                else np.array([u.shape[1] for u in univariate or []], dtype=np.intp)
            )
            return cls(parents, np.asarray(n_categories_h), log_h, posterior_h, chosen)
        n_classes, n_features = parents.shape
        log_cpts: list[list[NDArray[np.float64]]] = []
        posterior: list[list[NDArray[np.float64]]] = []
        for c in range(n_classes):
            tables = []
            dirichlet = []
            for j in range(n_features):
                p = int(parents[c, j])
                if p < 0 and univariate is not None:
                    counts = univariate[j][c][None, :]
                elif stats is None:
                    raise ValueError("pair statistics are needed for a forest with edges")
                elif p < 0:
                    counts = stats.marginal(j)[c][None, :]
                else:
                    counts = stats.table(p, j)[c]
                cell = cell_pseudo_count(alpha, prior, n_classes, counts.shape)
                tables.append(np.log(smoothed_conditional(counts, cell, epsilon)))
                dirichlet.append(np.asarray(counts, dtype=np.float64) + cell)
            log_cpts.append(tables)
            posterior.append(dirichlet)
        if stats is not None:
            n_categories = stats.n_categories
        elif univariate is not None:
            n_categories = np.array([u.shape[1] for u in univariate], dtype=np.intp)
        else:
            raise ValueError("pair statistics or univariate counts are needed")
        return cls(
            parents=parents,
            n_categories=np.asarray(n_categories),
            log_cpts=log_cpts,
            posterior=posterior,
        )

    def without_posterior(self) -> DiscreteForestModel:
        """The same model without its Dirichlet posteriors (``posterior``: None), for the
        models whose estimator draws no uncertainty from them (boosted rounds, the
        problems of more than two classes): they would double the tables held.

        Examples
        --------
        >>> import numpy as np
        >>> codes = np.array([[0, 1], [1, 1], [1, 0], [0, 0]])
        >>> stats = PairStatistics.from_codes(codes, np.array([0, 1, 1, 0]), np.array([2, 2]), 2)
        >>> model = DiscreteForestModel.from_statistics(
        ...     stats, np.array([[-1, 0], [-1, 0]]), alpha=1.0, epsilon=1e-5
        ... )
        >>> model.posterior is None, model.without_posterior().posterior is None
        (False, True)
        """
        return self if self.posterior is None else replace(self, posterior=None)

    def posterior_draw(self, rng: np.random.Generator, epsilon: float) -> DiscreteForestModel:
        """The same forests with every table row drawn from its Dirichlet posterior
        (``posterior``), floored at ``epsilon`` as the fitted tables are; a row with no
        count and no pseudo-count stays uniform.

        Raises
        ------
        ValueError
            When the model has no posterior (its tables were not counted).
        """
        if self.posterior is None:
            raise ValueError(
                "this model's tables have no Dirichlet posterior (conditional-likelihood "
                "parameters, or a model file written before posteriors were kept)"
            )
        log_cpts = [
            [np.log(smoothed_conditional(rng.gamma(table), 0.0, epsilon)) for table in tables]
            for tables in self.posterior
        ]
        return DiscreteForestModel(self.parents, self.n_categories, log_cpts)

    @property
    def n_classes(self) -> int:
        return int(self.parents.shape[0])

    def declared_sizes(self) -> DeclaredSizes:
        """Its classes (a forest each) and the categories it reads."""
        return len(self.parents), self.n_categories

    def edges(self) -> list[list[tuple[int, int]]]:
        """Undirected edges ``(min, max)`` of each class's forest."""
        return [
            [(min(int(p), j), max(int(p), j)) for j, p in enumerate(row) if p >= 0]
            for row in self.parents
        ]

    @cached_property
    def _packed(self) -> tuple[NDArray[np.float64], NDArray[np.intp], NDArray[np.intp]]:
        sizes = np.array([[t.size for t in tables] for tables in self.log_cpts], dtype=np.intp)
        offsets = np.zeros(sizes.size, dtype=np.intp)
        np.cumsum(sizes.ravel()[:-1], out=offsets[1:])
        flat = np.concatenate([t.ravel() for tables in self.log_cpts for t in tables])
        order = np.stack([topological_order(row) for row in self.parents])
        return flat, offsets.reshape(sizes.shape), order

    def sample(
        self, n_samples: int, class_index: int, rng: np.random.Generator
    ) -> NDArray[np.intp]:
        """Draw ``n_samples`` exact samples from class ``class_index``'s forest.

        Ancestral sampling in a topological order: each feature is drawn from its CPT
        row given its parent's sampled value. O(n_samples * sum of r_j).
        """
        parents = self.parents[class_index]
        out = np.empty((n_samples, len(parents)), dtype=np.intp)
        for j in topological_order(parents):
            prob = np.exp(self.log_cpts[class_index][j])
            rows = prob[np.zeros(n_samples, np.intp) if parents[j] < 0 else out[:, parents[j]]]
            cumulative = np.cumsum(rows, axis=1)
            u = rng.random(n_samples)[:, None] * cumulative[:, -1:]
            out[:, j] = np.minimum((u >= cumulative).sum(axis=1), rows.shape[1] - 1)
        return out

    def log_likelihood(self, codes: NDArray[np.integer]) -> NDArray[np.float64]:
        """``log P(x | c)`` for every sample and class, missing features summed out.

        Parameters
        ----------
        codes : ndarray of shape (n_samples, n_features), intp
            Category codes, ``-1`` for missing.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
        """
        codes = check_codes(codes, self.n_categories)
        flat, offsets, order = self._packed
        out = np.empty((codes.shape[0], self.n_classes))
        forest_log_likelihood(
            codes,
            self.parents,
            order,
            np.asarray(self.n_categories, dtype=np.intp),
            flat,
            offsets,
            out,
        )
        return out
