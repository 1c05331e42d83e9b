"""The ensemble learnt in passes over batches, without holding the rows
(discotree.engines.ensemble_passes, issue #49 item 2), equals the in-memory fit: the
same members, linear and pair weights, probabilities within 1e-6; and through the
command line from CSV, gzip CSV, Parquet and a folder of them."""

from __future__ import annotations

import itertools
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose, assert_array_equal

import discotree.engines.ensemble_passes as ensemble_passes
import discotree.learners.ensemble as learners_ensemble
from discotree import KDBClassifier, KDBEnsembleClassifier
from discotree.cli import main
from discotree.engines.ensemble_passes import fit_batches_in_passes, schema_of_batches
from discotree.engines.kdb_passes import fit_members_in_passes, member_specs, plan_members
from discotree.engines.logistic_passes import (
    InputLayout,
    LogisticProblem,
    fit_logistic_in_passes,
    fit_logistics_in_passes,
    row_mask,
)
from discotree.engines.row_sources import BatchSource, MemorySource, SpilledSource
from discotree.engines.schema_summaries import SKETCH_POINTS
from discotree.io import load_json
from discotree.learners.k_dependence import fit_selective_kdb
from discotree.learners.logistic import HeldOutWatch, fit_logistic
from discotree.learners.options import KDependenceOptions
from discotree.learners.registry import LearnerSpec, Rows
from discotree.models.logistic import NO_PAIRS

N = 400


def _data(seed: int = 0, n: int = N):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(
        {
            "shop": rng.choice(["north", "south", "east"], n).astype(object),
            "items": rng.integers(0, 4, n),
            "spend": rng.gamma(2.0, 30.0, n).round(1),  # binned: fewer than 2048 values
            "age": rng.integers(18, 80, n).astype(float),
        }
    )
    y = np.where((X["items"] > 1) ^ (X["age"] > 50) ^ (rng.random(n) < 0.2), "yes", "no")
    X.loc[rng.random(n) < 0.08, "spend"] = np.nan
    X.loc[rng.random(n) < 0.05, "shop"] = None
    X.loc[n - 3 :, "shop"] = "west"  # in the last batch only
    return X, y, rng.random(n) + 0.5


def assert_same_ensemble(lazy, eager, X):
    assert_array_equal(lazy.classes_, eager.classes_)
    assert_array_equal(lazy.n_categories_, eager.n_categories_)
    edges = zip(
        lazy.encoder_.discretizer_.bin_edges_, eager.encoder_.discretizer_.bin_edges_, strict=True
    )
    for a, b in edges:  # the sketch is exact: the in-memory quantiles
        assert_array_equal(a, b)
    assert_array_equal(lazy.members_k_, eager.members_k_)
    assert_array_equal(lazy.members_n_attributes_, eager.members_n_attributes_)
    assert lazy.members_order_ == eager.members_order_
    assert lazy.linear_weight_ == eager.linear_weight_
    if eager.model_.linear is not None:  # the same linear pairs, or none
        assert_array_equal(lazy.model_.linear.pairs, eager.model_.linear.pairs)
    assert lazy.pair_weight_ == eager.pair_weight_
    if eager.pair_weight_losses_ is not None:
        assert_allclose(lazy.pair_weight_losses_, eager.pair_weight_losses_, atol=1e-9)
    assert_allclose(lazy.predict_proba(X), eager.predict_proba(X), rtol=0, atol=1e-6)


def _uneven_batches(X, y, w):
    cuts = [0, 137, 137, 290, 291, len(y)]  # an empty batch, a batch of one row
    return lambda: [(X.iloc[a:b], y[a:b], w[a:b]) for a, b in itertools.pairwise(cuts)]


@pytest.mark.parametrize(
    "params",
    [
        {},
        {
            "estimator": KDBClassifier(smoothing="dirichlet", selection_loss="log_loss"),
            "coarsening": "sampled-mdl",
        },
        {"linear_weight": 0.3, "n_bins": (3, 5), "pair_pooling": "linear"},
        {"pairs_per_column": 0.5, "pair_significance": None},
        {"linear_pairs": 3},  # fitted with and without pairs, scored: the pairs dropped
        {"linear_pairs": "all", "linear_weight": 0.3},  # a fixed weight: the pairs kept
    ],
    ids=[
        "default",
        "dirichlet-mdl",
        "fixed-linear",
        "pairs-per-column",
        "linear-pairs-auto",
        "linear-pairs-fixed",
    ],
)
def test_batches_in_passes_equal_the_in_memory_fit(params):
    X, y, w = _data()
    eager = KDBEnsembleClassifier(n_estimators=3, **params).fit(X, y, sample_weight=w)
    lazy = fit_batches_in_passes(
        KDBEnsembleClassifier(n_estimators=3, **params), _uneven_batches(X, y, w)
    )
    assert_same_ensemble(lazy, eager, X)


@pytest.mark.parametrize("patience", [None, 2])
def test_the_weights_from_one_content_fold_of_many_rows_equal_the_in_memory_fit(
    monkeypatch, patience
):
    """Beyond HELD_OUT_ROWS rows the weights are chosen on one content fold, with the
    linear member fitted once on the others (lowered here to reach it on small data),
    and the logistic fits stop early on the held rows: with the default patience, and
    with a patience of 2, where the fits on the held-out rows do stop before their
    tolerance and cap the final fits."""
    monkeypatch.setattr(learners_ensemble, "HELD_OUT_ROWS", 150)
    monkeypatch.setattr(ensemble_passes, "HELD_OUT_ROWS", 150)
    if patience is not None:
        monkeypatch.setattr(HeldOutWatch.__init__, "__defaults__", (patience,))
    caps = []

    def watched_fit(rows, spec):
        fitted = fit_logistic(rows, spec)
        caps.append(fitted.attributes["iteration_cap_"])
        return fitted

    monkeypatch.setattr("discotree.learners.ensemble_members.fit_logistic", watched_fit)
    X, y, w = _data(1)
    eager = KDBEnsembleClassifier(n_estimators=2).fit(X, y, sample_weight=w)
    lazy = fit_batches_in_passes(
        KDBEnsembleClassifier(n_estimators=2), _uneven_batches(X, y, w), spill=False
    )
    assert_same_ensemble(lazy, eager, X)
    if patience is not None:
        assert sum(cap is not None for cap in caps) == 2  # (the linear and pair members)


def test_what_the_passes_cannot_learn_is_refused_clearly():
    X, y, w = _data()
    batches = _uneven_batches(X, y, w)
    for params, reason in [
        ({"bootstrap": True, "linear_weight": 0.2, "pair_weight": 0.1}, "bootstrap=True"),
        ({"estimator": KDBClassifier(smoothing="hdp")}, "smoothing='hdp'"),
    ]:
        with pytest.raises(ValueError, match=f"cannot be learnt in passes.*{reason}"):
            fit_batches_in_passes(KDBEnsembleClassifier(n_estimators=2, **params), batches)

    def unread():  # (refused before any pass)
        raise AssertionError("the batches were read")

    with pytest.raises(ValueError, match=r"cannot be learnt in passes.*bootstrap=True"):
        fit_batches_in_passes(
            KDBEnsembleClassifier(bootstrap=True, linear_weight=0.2, pair_weight=0.1), unread
        )


def test_a_pass_that_reads_other_rows_is_named():
    X, y, w = _data()
    calls = []

    def batches():  # the data changes after the schema pass and the first pass
        calls.append(1)
        n = N if len(calls) <= 2 else N - 10
        return [(X.iloc[:n], y[:n], w[:n])]

    fitted = fit_batches_in_passes(KDBEnsembleClassifier(n_estimators=2), _uneven_batches(X, y, w))
    with pytest.raises(ValueError, match="pass 2 read 390 rows, the first 400"):
        fit_batches_in_passes(fitted, batches, spill=False)
    assert not hasattr(fitted, "model_")  # a failed fit leaves the estimator unfitted


def _write(frame: pd.DataFrame, path, form: str):
    if form == "csv":
        frame.to_csv(path / "train.csv", index=False)
        return path / "train.csv"
    if form == "csv.gz":
        frame.to_csv(path / "train.csv.gz", index=False, compression="gzip")
        return path / "train.csv.gz"
    if form == "parquet":
        frame.to_parquet(path / "train.parquet", index=False, row_group_size=150)
        return path / "train.parquet"
    folder = path / "parts"
    folder.mkdir()
    for k, start in enumerate(range(0, len(frame), 170)):
        frame.iloc[start : start + 170].to_csv(folder / f"part{k}.csv", index=False)
    return folder


@pytest.mark.parametrize("form", ["csv", "csv.gz", "parquet", "folder"])
def test_the_command_line_fits_the_ensemble_in_passes(tmp_path, form, capsys):
    X, y, _ = _data(2, n=300)
    frame = X.assign(label=y)
    data = _write(frame, tmp_path, form)
    model = tmp_path / "m.json"
    argv = ["fit", "--data", str(data), "--target", "label", "--model", "eskdb"]
    assert main([*argv, "-o", str(model), "--batch-rows", "80", "-q"]) == 0
    assert "300 rows, 4 features in passes" in capsys.readouterr().out
    fitted = load_json(model)["model"]
    eager = KDBEnsembleClassifier().fit(X, y)  # the command's model: the defaults
    assert_same_ensemble(fitted, eager, X)


def _schema_and_rows(seed=3, n=300):
    X, y, w = _data(seed, n)
    schema = schema_of_batches(KDBEnsembleClassifier(), lambda: [(X, y, w)])
    codes, class_index, weights = schema.encode(X, y, w)
    return (X, y, w), schema, Rows(codes, class_index, weights, 2, schema.n_categories)


def test_the_schema_pass_bins_as_fit_does_when_the_sketch_is_exact():
    (X, y, w), schema, _ = _schema_and_rows()
    assert X["spend"].nunique() <= SKETCH_POINTS  # (the sketch keeps every value)
    eager = KDBEnsembleClassifier(n_estimators=1).fit(X, y, sample_weight=w)
    assert_array_equal(schema.n_categories, eager.n_categories_)
    for a, b in zip(
        schema.encoder.discretizer_.bin_edges_, eager.encoder_.discretizer_.bin_edges_, strict=True
    ):
        assert_array_equal(a, b)


def test_logistic_fits_in_lockstep_equal_each_alone_and_the_in_memory_learner():
    """fit_logistics_in_passes runs several L-BFGS at once, one pass per round of
    evaluations: each model is the in-memory learner's, and the passes are those of
    the longest run."""
    _, _, rows = _schema_and_rows()
    values = [None] * len(rows.n_categories)
    problems, parts = [], []
    for mask in [None, (5, 0, 2, False), (2, 1, 0, True)]:
        part = rows if mask is None else rows.take(row_mask(rows.codes, mask))
        layout = InputLayout(rows.n_categories, values, NO_PAIRS, [])
        problems.append(LogisticProblem(mask, layout, float(part.weights.sum()), 1.0))
        parts.append(part)
    source = MemorySource(rows, part_rows=70)
    together = fit_logistics_in_passes(source, problems)
    alone_passes = []
    for problem, part, fitted in zip(problems, parts, together, strict=True):
        model = fitted.model
        alone_source = MemorySource(rows, part_rows=70)
        alone = fit_logistic_in_passes(
            alone_source, problem.mask, problem.layout, problem.total, problem.C
        )
        alone_passes.append(alone_source.n_passes)
        assert_array_equal(model.coef, alone.coef)  # the same steps, together or alone
        in_memory = fit_logistic(part, LearnerSpec("logistic", 1.0, 0.0)).model
        assert_allclose(
            model.log_posterior(rows.codes), in_memory.log_posterior(rows.codes), atol=1e-6
        )
    assert source.n_passes == max(alone_passes) < sum(alone_passes)


@pytest.mark.parametrize(
    "mask, held_out",
    [((5, 0, 2, False), (5, 0, 2, True)), ((2, 1, 0, True), ((2, 1, 0, False), (3, 0, 0, True)))],
)
def test_a_logistic_fit_watched_on_held_out_rows_stops_where_it_does_in_memory(
    mask, held_out, monkeypatch
):
    """Early stopping in passes (each iterate's held-out loss summed in the next pass):
    the iterate kept and the iteration cap are the in-memory learner's, watched on the
    same rows (a content fold; the rows in two masks at once)."""
    monkeypatch.setattr("discotree.learners.logistic.HeldOutWatch.__init__.__defaults__", (3,))
    _, _, rows = _schema_and_rows()
    values = [None] * len(rows.n_categories)
    layout = InputLayout(rows.n_categories, values, NO_PAIRS, [])
    train = rows.take(row_mask(rows.codes, mask))
    held = rows.take(row_mask(rows.codes, held_out))
    problem = LogisticProblem(
        mask, layout, float(train.weights.sum()), 100.0, stopping_rows=held_out
    )
    (in_passes,) = fit_logistics_in_passes(MemorySource(rows, part_rows=70), [problem])
    spec = LearnerSpec("logistic", 1.0, 0.0, options={"C": 100.0, "stopping_rows": held})
    in_memory = fit_logistic(train, spec)
    cap = in_memory.attributes["iteration_cap_"]
    assert cap is not None and cap < in_memory.attributes["n_iter_"]  # (it did stop early)
    assert in_passes.attributes["iteration_cap_"] == cap
    assert_allclose(in_passes.model.coef, in_memory.model.coef, atol=1e-8)
    capped = fit_logistics_in_passes(
        MemorySource(rows, part_rows=70),
        [replace(problem, stopping_rows=None, lbfgs_iterations=cap)],
    )[0]
    in_memory_capped = fit_logistic(
        train, LearnerSpec("logistic", 1.0, 0.0, options={"C": 100.0, "lbfgs_iterations": cap})
    )
    assert_allclose(capped.model.coef, in_memory_capped.model.coef, atol=1e-8)


def test_a_pass_that_fails_during_the_logistic_fits_is_raised_not_waited_for():
    """A pass that raises (a file changed, a worker died) stops every L-BFGS run waiting
    on it and reaches the caller (it used to leave the runs waiting for ever)."""
    _, _, rows = _schema_and_rows()

    class Failing(MemorySource):
        def total(self, part_sum, *args):
            if self.n_passes >= 2:
                raise OSError("the file changed between passes")
            return super().total(part_sum, *args)

    values = [None] * len(rows.n_categories)
    layout = InputLayout(rows.n_categories, values, NO_PAIRS, [])
    problems = [
        LogisticProblem(mask, layout, float(rows.weights.sum()), 1.0)
        for mask in (None, (5, 0, 2, False))
    ]
    with pytest.raises(OSError, match="the file changed between passes"):
        fit_logistics_in_passes(Failing(rows, part_rows=70), problems)


def test_a_spilled_source_reads_the_batches_once_and_its_parts_back():
    (X, y, w), schema, rows = _schema_and_rows()
    batches = BatchSource(
        lambda: [(X.iloc[a : a + 64], y[a : a + 64], w[a : a + 64]) for a in range(0, 300, 64)],
        schema,
        "test",
    )
    spilled = SpilledSource(batches, keep_bytes=2000)  # some parts in memory, some on disk
    expected = MemorySource(rows, part_rows=64).total(lambda part: part.codes.sum(axis=0))
    for _ in range(3):
        assert_array_equal(spilled.total(lambda part: part.codes.sum(axis=0)), expected)
    assert (batches.n_passes, spilled.n_passes) == (1, 3)
    spilled.close()


class _CountedSource(MemorySource):
    """A memory source that records the name of every pass's part function."""

    def __init__(self, rows, part_rows):
        super().__init__(rows, part_rows)
        self.names = []

    def total(self, part_sum, *args):
        self.names.append(part_sum.__name__)
        return super().total(part_sum, *args)


@pytest.mark.parametrize("weights", ["fractional", "whole"])
@pytest.mark.parametrize("smoothing", ["hierarchical", "dirichlet"])
def test_selective_kdb_members_in_passes_equal_the_in_memory_learner(smoothing, weights):
    """The members' passes (pairs, families, for hierarchical smoothing a pass per level
    of concentrations when some weight lies in (0, 1), else none: the tables choose
    them; the leave-one-out losses) over parts choose what fit_selective_kdb chooses at
    once."""
    _, _, rows = _schema_and_rows()
    if weights == "whole":  # 0, 1 and 2: the concentrations from the tables alone
        rows = Rows(
            rows.codes,
            rows.class_index,
            np.round(rows.weights * 2.0 - 1.0),
            rows.n_classes,
            rows.n_categories,
        )
        assert set(rows.weights.tolist()) == {0.0, 1.0, 2.0}
    members_options = KDependenceOptions(k=3, smoothing=smoothing, selection_loss="rmse")
    options = {"estimator": members_options, "pair_significance": None}
    members = plan_members(np.array([7, 8]), [[None] * 4, [None] * 4], rows.n_categories)
    specs = member_specs(LearnerSpec("kdb-ensemble", 1.0, 1e-5, options=options), members)
    class_weight = np.bincount(rows.class_index, rows.weights, 2)
    source = _CountedSource(rows, part_rows=70)
    fit_members_in_passes(source, members, specs, class_weight)
    level_passes = source.names.count("_level_scores_part")
    depth = max(len(p) for m in members for p in m.parents)
    by_levels = smoothing == "hierarchical" and weights == "fractional"
    assert level_passes == (depth + 1 if by_levels else 0)
    for member, spec in zip(members, specs, strict=True):
        eager = fit_selective_kdb(rows, spec)
        assert member.fitted is not None
        for name in ("order_", "k_", "n_attributes_"):
            assert member.fitted.attributes[name] == eager.attributes[name]
        if smoothing == "hierarchical":
            for a, b in zip(
                member.fitted.attributes["concentrations_"],
                eager.attributes["concentrations_"],
                strict=True,
            ):
                assert_array_equal(a, b)
        assert_allclose(
            member.fitted.model.log_likelihood(rows.codes),
            eager.model.log_likelihood(rows.codes),
            atol=1e-9,
        )


@pytest.mark.parametrize("per_pass", [1, 2, 5])
def test_members_by_groups_in_passes_equal_the_in_memory_learner(per_pass, monkeypatch):
    """The family tables and the leave-one-out losses counted for a few members a pass
    (MEMBERS_PER_PASS): as many passes as groups, each member what fit_selective_kdb
    gives; and the members trimmed for scoring (their selected attributes and levels)
    give the same held-out posteriors as whole."""
    import discotree.engines.kdb_passes as kdb_passes

    monkeypatch.setattr(kdb_passes, "MEMBERS_PER_PASS", per_pass)
    _, _, rows = _schema_and_rows()
    options = {
        "estimator": KDependenceOptions(k=2, selection_loss="rmse"),
        "pair_significance": None,
    }
    seeds = np.array([3, 4, 5])
    members = plan_members(seeds, [[None] * 4] * 3, rows.n_categories)
    specs = member_specs(LearnerSpec("kdb-ensemble", 1.0, 1e-5, options=options), members)
    class_weight = np.bincount(rows.class_index, rows.weights, 2)
    source = _CountedSource(rows, part_rows=70)
    fit_members_in_passes(source, members, specs, class_weight)
    groups = -(-len(members) // per_pass)
    assert source.names.count("_families_part") == groups
    assert source.names.count("_losses_part") == groups
    for member, spec in zip(members, specs, strict=True):
        eager = fit_selective_kdb(rows, spec)
        for name in ("order_", "k_", "n_attributes_"):
            assert member.fitted.attributes[name] == eager.attributes[name]
    trimmed = kdb_passes.scoring_members(members)
    assert all(t.fitted.model is None for t in trimmed)
    held = kdb_passes.member_held_out(rows, members, class_weight, specs)
    assert_array_equal(kdb_passes.member_held_out(rows, trimmed, class_weight, specs), held)
    for t in trimmed:  # (what member_held_out reads, nothing more)
        k, n = t.fitted.attributes["k_"], t.fitted.attributes["n_attributes_"]
        selected = set(t.order[:n])
        for node, levels in enumerate(t.tables):
            wanted = len(t.parents[node][:k]) + 1 if node in selected else 0
            assert len(levels) == wanted
