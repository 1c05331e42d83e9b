"""The learner of ensembles of selective kDB (after Zhang, Petitjean & Buntine 2020),
registered as ``"kdb-ensemble"``: ``n_estimators`` members, each a selective kDB
(:func:`~discotree.learners.k_dependence.fit_selective_kdb`) on its own stochastic
coarsening of the binned columns (:func:`~discotree.models.ensemble.coarsening_maps`)
and its own sampled attribute order, all drawn from one seed; the members are fitted
on the cores (``n_jobs``, threads: the counting and lookups release the GIL).

Options: ``n_estimators``, ``n_bins`` (coarse bins per binned column), ``binned`` (the
columns binned by the encoder), ``seed``, ``n_jobs``, and the member's own (``k``,
``selective``, ``selection_loss``, ``smoothing``).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from joblib import Parallel, delayed

from ..kernels.counts import class_totals
from ..models.ensemble import KDBEnsembleModel, apply_maps, coarsening_maps, mapped_categories
from .k_dependence import fit_selective_kdb
from .registry import FittedModel, Learner, LearnerSpec, Rows, register_learner

__all__ = ["fit_kdb_ensemble"]


def _member(rows: Rows, spec: LearnerSpec, seed: int, maps) -> FittedModel:
    codes = apply_maps(rows.codes, maps)
    member_rows = Rows(
        codes,
        rows.class_index,
        rows.weights,
        rows.n_classes,
        mapped_categories(rows.n_categories, maps),
    )
    options = {**spec.options, "order_seed": seed}
    return fit_selective_kdb(member_rows, replace(spec, learner="selective-kdb", options=options))


def fit_kdb_ensemble(rows: Rows, spec: LearnerSpec) -> FittedModel:
    """Every member from the rows, and their averaged model."""
    n_members = int(spec.option("n_estimators", 10))
    rng = np.random.default_rng(int(spec.option("seed", 0)))
    seeds = rng.integers(0, 2**31 - 1, n_members)
    binned = list(spec.option("binned", []))
    maps = [
        coarsening_maps(
            rows.n_categories, binned, int(spec.option("n_bins", 5)), np.random.default_rng(s)
        )
        for s in seeds
    ]
    fitted = Parallel(n_jobs=spec.option("n_jobs"), prefer="threads")(
        delayed(_member)(rows, spec, int(s), m) for s, m in zip(seeds, maps, strict=True)
    )
    weight = class_totals(rows.class_index, rows.weights, rows.n_classes)
    with np.errstate(divide="ignore"):
        prior = np.log(weight / weight.sum())
    model = KDBEnsembleModel(maps, [f.model for f in fitted], prior)
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
        "posteriors averaged (after Zhang, Petitjean & Buntine 2020).",
        "rows",
        fit_kdb_ensemble,
        partial_fit=False,
        dask=False,
    )
)
