"""The learner of the tree-augmented classifier whose tree is chosen by recursive EAR
separators (Narasimhan & Bilmes 2005, Algorithm 3), registered as ``"ear-tree"``: it
reads the rows (the search evaluates entropies of attribute sets, which no fixed table
holds).

Options of the :class:`~discotree.learners.registry.LearnerSpec`: ``distribution``
("discrete" or "gaussian": the rows are then the standardised values), ``minimizer``,
``split_search``, ``n_permutations``, ``random_state``, ``searched`` (an
:class:`~discotree.structure.ear.EARTree` learnt before, e.g. once on every row for
``alpha="auto"``: the search is then not run again), ``pairs`` (the pair statistics
of the rows when already counted) and ``smoothing`` ("dirichlet" or "hierarchical").
"""

from __future__ import annotations

import time

import numpy as np

from ..kernels.counts import class_totals
from ..models.discrete_forest import DiscreteForestModel
from ..models.gaussian_forest import GaussianForestModel
from ..stats.gaussian import GaussianStatistics
from ..stats.pair_statistics import PairStatistics
from ..stats.set_information import DiscreteSetEntropy, GaussianSetEntropy
from ..structure.chow_liu import forest_parents
from ..structure.ear import EARTree, ear_tree
from ..validation import numpy_generator
from .options import EARTreeOptions
from .registry import FittedModel, Learner, LearnerSpec, Rows, register_learner

__all__ = ["fit_ear_tree", "learn_ear_tree"]

_MOMENTS = ("weight", "sum_x", "sum_xx", "sum_xy")


def learn_ear_tree(rows: Rows, spec: LearnerSpec) -> tuple[EARTree, float]:
    """The EAR tree of the rows (Algorithm 3) and the seconds its search took: the set
    entropies of the codes (available-case, :mod:`discotree.stats.set_information`) or,
    with ``distribution="gaussian"``, of the per-class and pooled covariances.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> codes = rng.integers(0, 2, size=(60, 4))
    >>> rows = Rows(codes, codes[:, 0].copy(), np.ones(60), 2, np.full(4, 2))
    >>> tree, seconds = learn_ear_tree(rows, LearnerSpec("ear-tree", 1.0, 1e-5))
    >>> len(tree.edges)
    3
    """
    start = time.perf_counter()
    n_features = rows.codes.shape[1]
    if spec.options.distribution == "gaussian":
        stats = GaussianStatistics.from_data(
            rows.codes, rows.class_index, rows.n_classes, rows.weights
        )
        pooled = GaussianStatistics(
            *(getattr(stats, f).sum(axis=0, keepdims=True) for f in _MOMENTS)
        )
        shares = class_totals(rows.class_index, rows.weights, rows.n_classes)
        oracle: DiscreteSetEntropy | GaussianSetEntropy = GaussianSetEntropy(
            stats.covariances(), pooled.covariances()[0], shares / shares.sum()
        )
    else:
        oracle = DiscreteSetEntropy(rows.codes, rows.class_index, rows.weights)
    tree = ear_tree(
        oracle,
        n_features,
        spec.options.minimizer,
        numpy_generator(spec.options.random_state),
        search=spec.options.split_search,
        n_permutations=int(spec.options.n_permutations),
        single_moves=True,
    )
    return tree, time.perf_counter() - start


def fit_ear_tree(rows: Rows, spec: LearnerSpec) -> FittedModel:
    """The EAR tree (or the one in ``spec``'s ``searched``) shared by every class, with
    ML parameters from the rows' pair statistics (or Gaussian moments)."""
    n_classes, n_features = rows.n_classes, rows.codes.shape[1]
    tree = spec.options.searched
    seconds = 0.0
    if tree is None:
        tree, seconds = learn_ear_tree(rows, spec)
    parents = np.tile(forest_parents(n_features, tree.edges), (n_classes, 1))
    attributes = {
        "splits_": tree.splits,
        "sub_sup_iterations_": tree.iterations,
        "edges_": [list(tree.edges) for _ in range(n_classes)],
        "parents_": parents,
    }
    if spec.options.searched is None:
        attributes["structure_seconds_"] = seconds
    if spec.options.distribution == "gaussian":
        moments = GaussianStatistics.from_data(
            rows.codes, rows.class_index, n_classes, rows.weights
        )
        return FittedModel(GaussianForestModel.from_statistics(moments, parents), attributes)
    stats = spec.options.pairs
    if stats is None:
        stats = PairStatistics.from_codes(
            rows.codes, rows.class_index, rows.n_categories, n_classes, rows.weights
        )
    model = DiscreteForestModel.from_statistics(
        stats,
        parents,
        alpha=float(spec.alpha),
        epsilon=spec.epsilon,
        **spec.table_smoothing(),
    )
    if model.concentrations is not None:
        attributes["concentrations_"] = model.concentrations
    return FittedModel(model, attributes)


register_learner(
    Learner(
        "ear-tree",
        "A tree of recursive EAR separators shared by the classes (Narasimhan & Bilmes 2005).",
        "rows",
        fit_ear_tree,
        partial_fit=False,
        dask=False,
        options=EARTreeOptions,
    )
)
