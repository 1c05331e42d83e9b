"""The kDB ensemble's linear and pair members: their fits are tasks that read nothing of
each other, so the ensemble fitted with its logistic fits in the members' thread pool
(n_jobs > 1) is the one fitted on one thread, to the bit; and the choice of their
weights reads only what the fits gathered."""

import dataclasses

import numpy as np
import pytest

from discotree import KDBEnsembleClassifier
from discotree.learners.ensemble import logistic_fit_counts, pool_threads, run_fits
from discotree.learners.ensemble_members import (
    Fits,
    chosen_linear_member,
    chosen_pair_member,
    linear_member_fits,
    pair_member_fits,
)
from discotree.learners.options import KDBEnsembleOptions, KDependenceOptions
from discotree.learners.registry import LearnerSpec, Rows


def _mixed_problem(rng, n=400):
    """Two categorical columns whose exclusive or is the class, a numeric column (binned)
    that shifts it, a noise column, and missing values in both kinds."""
    X = np.column_stack(
        [
            rng.integers(0, 3, n),
            rng.integers(0, 4, n),
            rng.normal(size=n),
            rng.integers(0, 2, n),
        ]
    ).astype(float)
    y = ((X[:, 0] == 1) ^ (X[:, 1] > 1)).astype(int) + (X[:, 2] > 1)
    X[rng.random(n) < 0.05, 2] = np.nan
    X[rng.random(n) < 0.05, 0] = np.nan
    return X, y, rng.random(n) + 0.2


def _assert_identical(a, b, where="model"):
    """Every array, number and string of two fitted objects equal to the bit
    (``np.array_equal``), walking their attributes, lists and dictionaries."""
    assert type(a) is type(b), where
    if isinstance(a, np.ndarray):
        assert a.dtype == b.dtype and np.array_equal(a, b, equal_nan=a.dtype.kind == "f"), where
    elif isinstance(a, list | tuple):
        assert len(a) == len(b), where
        for i, (x, z) in enumerate(zip(a, b, strict=True)):
            _assert_identical(x, z, f"{where}[{i}]")
    elif isinstance(a, dict):
        assert a.keys() == b.keys(), where
        for key in a:
            _assert_identical(a[key], b[key], f"{where}[{key!r}]")
    elif dataclasses.is_dataclass(a) or hasattr(a, "__dict__"):
        _assert_identical(vars(a), vars(b), where)
    else:
        assert a == b or (a != a and b != b), where  # (NaN is NaN)


@pytest.mark.parametrize("rows_scored", [None, 150])  # all rows; or some (one held-out fit)
@pytest.mark.parametrize(
    "linear_weight, pair_weight, linear_pairs",
    [("auto", "auto", "all"), ("auto", "auto", 0), (0.3, "auto", 0), ("auto", 0.2, "all"),
     (0.3, 0.2, 0), (0.0, 0.0, 0)],
)  # fmt: skip
def test_the_logistic_fits_in_the_members_pool_give_the_same_ensemble(
    rng, monkeypatch, linear_weight, pair_weight, linear_pairs, rows_scored
):
    """n_jobs=2 and -1 (the linear and pair members' fits in the members' pool, the
    members' own splitting over the cores off) fit the ensemble of n_jobs=1 to the
    bit: every member, the linear and pair models, the weights and the posteriors."""
    monkeypatch.setattr("discotree.learners.ensemble.available_cores", lambda: 3)
    if rows_scored is not None:
        monkeypatch.setattr("discotree.learners.ensemble.HELD_OUT_ROWS", rows_scored)
    X, y, w = _mixed_problem(rng)
    fitted = {}
    for n_jobs in (1, 2, -1):
        clf = KDBEnsembleClassifier(
            n_estimators=3,
            linear_weight=linear_weight,
            pair_weight=pair_weight,
            linear_pairs=linear_pairs,
            n_jobs=n_jobs,
        )
        fitted[n_jobs] = clf.fit(X, y, sample_weight=w)
    one = fitted[1]
    assert one.encoder_.binned_columns_.tolist() == [2]  # (the numeric column)
    for n_jobs in (2, -1):  # (before predicting: that fills the members' caches)
        many = fitted[n_jobs]
        _assert_identical(one.model_, many.model_)
        for name in ("linear_weight_", "pair_weight_", "pair_weight_losses_", "members_k_"):
            _assert_identical(getattr(one, name), getattr(many, name), name)
    proba = one.predict_proba(X)
    assert all(np.array_equal(proba, fitted[n].predict_proba(X)) for n in (2, -1))


def _run_rounds(fits, backwards):
    """What ``fits`` gather, round after round (a gather may give the fits that come
    next), each round's tasks run in order or backwards; and how many tasks ran."""
    n_tasks = 0
    while isinstance(fits, Fits):
        tasks = list(fits.tasks)
        n_tasks += len(tasks)
        if backwards:
            results = [task() for task in tasks[::-1]][::-1]
        else:
            results = [task() for task in tasks]
        fits = fits.gather(results)
    return fits, n_tasks


def test_the_fits_may_run_in_any_order(rng):
    """The linear and pair members' tasks of each round read nothing of each other:
    run backwards, they gather what they gather in order, and the weights chosen from
    them are the same."""
    X, y, w = _mixed_problem(rng, 300)
    codes = np.where(np.isnan(X), -1, np.nan_to_num(X)).astype(np.intp)
    codes[:, 2] = np.clip(np.nan_to_num(X[:, 2]) + 2, 0, 4).astype(np.intp)
    rows = Rows(codes, y, w, 3, np.array([3, 4, 5, 2]))
    options = KDBEnsembleOptions(
        estimator=KDependenceOptions(k=1), pair_significance=0.001, binned=(2,), linear_pairs="all"
    )
    spec = LearnerSpec("kdb-ensemble", 1.0, 0.0, options=options)
    members = np.full((len(y), 3), 1 / 3)  # (the members' held-out posteriors)
    for make, choose in (
        (
            lambda: linear_member_fits(rows, spec, None, True),
            lambda fitted: chosen_linear_member(rows, spec, fitted, members, None),
        ),
        (
            lambda: pair_member_fits(rows, spec, None),
            lambda fitted: chosen_pair_member(rows, spec, fitted, None, members),
        ),
    ):
        in_order, n_tasks = _run_rounds(make(), backwards=False)
        gathered, _ = _run_rounds(make(), backwards=True)
        assert n_tasks > 1
        _assert_identical(in_order, gathered, "gathered")
        _assert_identical(choose(in_order), choose(gathered), "chosen")


def test_the_stages_run_one_after_the_other_on_one_thread():
    """On one thread each stage is made once the previous one has run (the order of the
    work without a pool); on more, all are made first; the results are the same."""
    made = []

    def stage(name, value):
        def make():
            made.append(f"make {name}")
            return Fits([lambda: made.append(f"run {name}") or value], lambda r: r[0])

        return make

    stages = [stage("members", 1), stage("linear", 2)]
    assert run_fits(stages, 1) == [1, 2]
    assert made == ["make members", "run members", "make linear", "run linear"]
    made.clear()
    assert run_fits(stages, 2) == [1, 2]
    assert made[:2] == ["make members", "make linear"]


def test_pool_threads_and_fit_counts(monkeypatch):
    monkeypatch.setattr("discotree.learners.ensemble.available_cores", lambda: 4)
    assert [pool_threads(n, 10) for n in (None, 1, 2, -1, 10**9)] == [1, 1, 2, 4, 4]
    assert pool_threads(-1, 3) == 3  # (no more threads than members)
    # the final fit and 5 folds, twice with pairs (again without them); the pair
    # member on all rows and on half; beyond HELD_OUT_ROWS one held-out fit
    assert logistic_fit_counts("auto", "auto", 2, 500) == (12, 2)
    assert logistic_fit_counts(0.5, "auto", 2, 500) == (6, 2)
    assert logistic_fit_counts(0.5, 0.5, 2, 500) == (1, 1)
    assert logistic_fit_counts("auto", 0.0, 0, 50_000) == (2, 0)
