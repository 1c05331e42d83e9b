"""The learner of ensembles of selective kDB (after Zhang, Petitjean & Buntine 2020),
registered as ``"kdb-ensemble"``: ``n_estimators`` members, each a selective kDB
(:func:`~discotree.learners.k_dependence.fit_selective_kdb`) on its own stochastic
coarsening of the binned columns (:func:`~discotree.models.ensemble.coarsening_maps`)
and its own sampled attribute order, all drawn from one seed; the members are fitted
on the cores (``n_jobs``, threads: the counting and lookups release the GIL).

Options: ``n_estimators``, ``n_bins`` (coarse bins per binned column), ``binned`` (the
columns binned by the encoder), ``seed``, ``n_jobs``, the member's own (``k``,
``selective``, ``selection_loss``, ``smoothing``), and the linear member's:
``linear_weight`` (0: none), ``values`` (the value of every fine bin of the binned
columns, None for the others) and ``linear_C`` (:mod:`discotree.learners.logistic`).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from joblib import Parallel, delayed
from numpy.typing import NDArray

from ..kernels.counts import class_totals, univariate_counts
from ..models.ensemble import (
    KDBEnsembleModel,
    apply_maps,
    coarsening_maps,
    mapped_categories,
    sampled_mdl_maps,
)
from .k_dependence import fit_selective_kdb
from .logistic import fit_logistic
from .registry import FittedModel, Learner, LearnerSpec, Rows, register_learner

__all__ = ["fit_kdb_ensemble"]


def _member(rows: Rows, spec: LearnerSpec, seed: int, maps) -> FittedModel:
    codes, class_index, weights = rows.codes, rows.class_index, rows.weights
    if spec.option("bootstrap", False):  # Poisson(1) copies of every row (bagging)
        copies = np.random.default_rng([seed, 1]).poisson(1.0, len(codes))
        kept = copies > 0
        codes, class_index = codes[kept], class_index[kept]
        weights = weights[kept] * copies[kept]
    member_rows = Rows(
        apply_maps(codes, maps),
        class_index,
        weights,
        rows.n_classes,
        mapped_categories(rows.n_categories, maps),
    )
    options = {**spec.options, "order_seed": seed, "hdp_seed": seed}
    return fit_selective_kdb(member_rows, replace(spec, learner="selective-kdb", options=options))


#: How the members coarsen the binned columns (``coarsening`` option).
COARSENINGS = ("jittered", "sampled-mdl")


def _member_maps(rows: Rows, spec: LearnerSpec, seeds: NDArray[np.integer]) -> list:
    """Every member's coarsening maps: ``"jittered"`` equal-width levels of the fine
    bins (:func:`coarsening_maps`, ``n_bins`` each) or ``"sampled-mdl"`` supervised
    cuts drawn by their MDL margins (:func:`sampled_mdl_maps`)."""
    binned = list(spec.option("binned", []))
    coarsening = spec.option("coarsening", "jittered")
    if coarsening == "jittered":
        n_bins = spec.option("n_bins", 4)
        low, high = (n_bins, n_bins) if np.ndim(n_bins) == 0 else n_bins
        maps = []
        for s in seeds:
            rng = np.random.default_rng(s)
            size = int(low) if low == high else int(rng.integers(int(low), int(high) + 1))
            maps.append(coarsening_maps(rows.n_categories, binned, size, rng))
        return maps
    if coarsening != "sampled-mdl":
        raise ValueError(f"coarsening must be one of {COARSENINGS}, got {coarsening!r}.")
    counts = univariate_counts(
        rows.codes, rows.class_index, rows.weights, rows.n_categories, rows.n_classes
    )
    offsets = np.concatenate([[0], np.cumsum(rows.n_categories)])
    per_column = [counts[:, offsets[j] : offsets[j + 1]].T for j in binned]
    return [
        sampled_mdl_maps(rows.n_categories, binned, per_column, np.random.default_rng(s))
        for s in seeds
    ]


def fit_kdb_ensemble(rows: Rows, spec: LearnerSpec) -> FittedModel:
    """Every member from the rows, and their averaged model."""
    n_members = int(spec.option("n_estimators", 10))
    rng = np.random.default_rng(int(spec.option("seed", 0)))
    seeds = rng.integers(0, 2**31 - 1, n_members)
    maps = _member_maps(rows, spec, seeds)
    fitted = Parallel(n_jobs=spec.option("n_jobs"), prefer="threads")(
        delayed(_member)(rows, spec, int(s), m) for s, m in zip(seeds, maps, strict=True)
    )
    weight = class_totals(rows.class_index, rows.weights, rows.n_classes)
    with np.errstate(divide="ignore"):
        prior = np.log(weight / weight.sum())
    weight_of_linear = float(spec.option("linear_weight", 0.0))
    linear = None
    if weight_of_linear > 0:
        options = {"values": spec.option("values"), "C": spec.option("linear_C", 1.0)}
        linear = fit_logistic(rows, replace(spec, learner="logistic", options=options)).model
    model = KDBEnsembleModel(
        maps, [f.model for f in fitted], prior, linear, weight_of_linear if linear else 0.0
    )
    attributes = {
        "members_k_": np.array([f.attributes["k_"] for f in fitted]),
        "members_n_attributes_": np.array([f.attributes["n_attributes_"] for f in fitted]),
        "members_order_": [f.attributes["order_"] for f in fitted],
    }
    return FittedModel(model, attributes)


register_learner(
    Learner(
        "kdb-ensemble",
        "Selective kDB members over stochastic discretisations and sampled orders, "
        "posteriors averaged (after Zhang, Petitjean & Buntine 2020), mixed with a linear "
        "member on the numeric values.",
        "rows",
        fit_kdb_ensemble,
        partial_fit=False,
        dask=False,
    )
)
