"""KDBEnsembleClassifier.fit on dask collections runs the ensemble's passes on the
partitions (discotree.engines.ensemble_dask, issue #49 item 1) and equals the
in-memory fit: the same members and weights, probabilities within 1e-6; on a
2-worker LocalCluster and on the threaded scheduler."""

from __future__ import annotations

import dask
import dask.array as da
import dask.dataframe as dd
import numpy as np
import pandas as pd

import discotree.engines.ensemble_dask as ensemble_dask
import discotree.engines.ensemble_passes as ensemble_passes
import discotree.learners.ensemble as learners_ensemble
from discotree import KDBClassifier, KDBEnsembleClassifier
from discotree.engines.ensemble_dask import DaskSource
from tests.engines.test_ensemble_passes import _data, assert_same_ensemble


def _partitioned(X, y, w):
    """X, y and the weights as dask collections of 5 partitions, one of them empty
    (the rows of the category only the last rows hold all in the last one)."""
    frame = X.assign(label=y, weight=w)
    parts = [
        dd.from_pandas(frame.iloc[:150], npartitions=2),
        dd.from_pandas(frame.iloc[:0], npartitions=1),
        dd.from_pandas(frame.iloc[150:], npartitions=2),
    ]
    data = dd.concat(parts)
    assert 0 in data.map_partitions(len).compute().tolist()
    return data.drop(columns=["label", "weight"]), data["label"], data["weight"]


def test_dataframe_on_a_local_cluster_equals_the_in_memory_fit(client, monkeypatch):
    X, y, w = _data()
    X_dask, y_dask, w_dask = _partitioned(X, y, w)
    on_workers = []  # (each pass's partitions summed on the workers that hold them)
    original = DaskSource._total_on_workers

    def counted(self, *args):
        on_workers.append(len(self.encoded))
        return original(self, *args)

    monkeypatch.setattr(DaskSource, "_total_on_workers", counted)
    lazy = KDBEnsembleClassifier(n_estimators=2).fit(X_dask, y_dask, sample_weight=w_dask)
    assert on_workers and set(on_workers) == {5}
    eager = KDBEnsembleClassifier(n_estimators=2).fit(X, y, sample_weight=w)
    assert_same_ensemble(lazy, eager, X)
    proba = lazy.predict_proba(X_dask)
    assert isinstance(proba, da.Array)  # lazy
    np.testing.assert_allclose(proba.compute(), eager.predict_proba(X), rtol=0, atol=1e-6)


def test_arrays_on_the_threaded_scheduler_with_the_weights_of_one_content_fold(monkeypatch):
    """Numeric arrays; beyond HELD_OUT_ROWS rows (lowered to reach it on small data)
    the weights are chosen on one content fold, whatever the partitions."""
    monkeypatch.setattr(learners_ensemble, "HELD_OUT_ROWS", 150)
    monkeypatch.setattr(ensemble_passes, "HELD_OUT_ROWS", 150)
    X, y, w = _data(1)
    X = X.drop(columns="shop").to_numpy(dtype=float)
    with dask.config.set(scheduler="threads"):  # (not the module's cluster)
        lazy = KDBEnsembleClassifier(
            n_estimators=2, estimator=KDBClassifier(smoothing="dirichlet")
        ).fit(da.from_array(X, chunks=(90, -1)), da.from_array(y, chunks=90), sample_weight=w)
    eager = KDBEnsembleClassifier(
        n_estimators=2, estimator=KDBClassifier(smoothing="dirichlet")
    ).fit(X, y, sample_weight=w)
    assert_same_ensemble(lazy, eager, X)


def test_no_collection_reaches_the_client(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("a dask collection was converted to numpy on the client")

    X, y, _ = _data(2, n=200)
    X_dask = dd.from_pandas(X, npartitions=3)
    y_dask = dd.from_pandas(pd.Series(y), npartitions=3)
    for cls in (da.Array, type(X_dask), type(y_dask)):
        monkeypatch.setattr(cls, "__array__", refuse, raising=False)
    passes = []
    original = DaskSource.total

    def counted(self, part_sum, *args):
        passes.append(part_sum.__name__)
        return original(self, part_sum, *args)

    monkeypatch.setattr(DaskSource, "total", counted)
    with dask.config.set(scheduler="threads"):
        model = KDBEnsembleClassifier(n_estimators=2, pair_weight=0.0).fit(X_dask, y_dask)
        assert isinstance(model.predict_proba(X_dask), da.Array)
    assert passes[:3] == ["_first_part", "_pairs_part", "_families_part"]


def test_a_pass_reads_a_large_partition_by_slices(monkeypatch):
    """Each pass reads a partition by slices of PASS_SLICE_ROWS rows (lowered here to 60):
    a worker's working memory does not grow with the partitions, and the model is still
    the in-memory fit's."""
    monkeypatch.setattr(ensemble_dask, "PASS_SLICE_ROWS", 60)
    sizes = []
    original = ensemble_dask._apply_onto

    def recorded(total, encoded, *args):
        sizes.append(len(encoded[0]))
        return original(total, encoded, *args)

    monkeypatch.setattr(ensemble_dask, "_apply_onto", recorded)
    seen = []
    first_part = ensemble_passes._first_part

    def slice_rows(rows, *args):
        seen.append(len(rows.codes))
        return first_part(rows, *args)

    monkeypatch.setattr(ensemble_passes, "_first_part", slice_rows)
    X, y, w = _data(2)
    frame = X.assign(label=y, weight=w)
    data = dd.from_pandas(frame, npartitions=2)  # two partitions of 200 rows
    with dask.config.set(scheduler="threads"):
        lazy = KDBEnsembleClassifier(n_estimators=2).fit(
            data.drop(columns=["label", "weight"]), data["label"], sample_weight=data["weight"]
        )
    eager = KDBEnsembleClassifier(n_estimators=2).fit(X, y, sample_weight=w)
    assert_same_ensemble(lazy, eager, X)
    assert sizes and max(sizes) == 200  # whole partitions handed to the slicing
    assert seen and max(seen) <= 60 and sum(seen) == len(y)


def test_partitions_are_summarised_and_encoded_by_slices_as_whole(monkeypatch):
    # a partition read by slices of a few rows (PASS_SLICE_ROWS lowered): the same
    # schema (categories and bins) and the same codes, classes and weights as at once
    from discotree.engines.schema_summaries import schema_from_summary, summarise_part
    from discotree.transformers.discretizer import Discretizer

    X, y, w = _data()
    monkeypatch.setattr(ensemble_dask, "PASS_SLICE_ROWS", 37)
    whole = summarise_part(X, y, w, 255, 1 << 20, "test")
    sliced = ensemble_dask.sliced_summary(X, y, w, 255, 1 << 20, "test")
    schemas = [
        schema_from_summary(summary, list(X.columns), 255, Discretizer(n_bins=30), "test")
        for summary in (whole, sliced)
    ]
    at_once = schemas[0].encode(X, y, w)
    for schema in schemas:
        got = ensemble_dask.sliced_encoding(schema, X, y, w)
        for a, b in zip(got, at_once, strict=True):
            assert np.array_equal(a, b)
    got = ensemble_dask.sliced_encoding(schemas[0], X, y, None)
    assert got[2] is None or np.array_equal(got[2], schemas[0].encode(X, y, None)[2])
