"""discotree.scaling_tags: what each estimator declares it supports beyond a fit in
memory follows its parameters and what its engines do, and the user guide's scaling
page shows the table generated from them (issue #49's acceptance)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

import discotree
from discotree import (
    BoostedGraphicalModelClassifier,
    KDBClassifier,
    KDBEnsembleClassifier,
    NaiveBayesClassifier,
)
from discotree.scaling_tags import ScalingTags, scaling_tags

DOCS = Path(__file__).resolve().parents[1] / "docs"


@pytest.mark.parametrize(
    ("estimator", "expected"),
    [
        (NaiveBayesClassifier(), ScalingTags(True, "batches", True)),
        (KDBClassifier(), ScalingTags(True, "passes", True)),  # three passes of counts
        (KDBClassifier(smoothing="hierarchical"), ScalingTags(True, "batches", False)),
        (KDBEnsembleClassifier(), ScalingTags(False, "passes", True)),
        (
            KDBEnsembleClassifier(estimator=KDBClassifier(smoothing="hdp")),
            ScalingTags(False, "memory", False),
        ),
        (KDBEnsembleClassifier(linear_pairs=2), ScalingTags(False, "passes", True)),
        (KDBEnsembleClassifier(bootstrap=True), ScalingTags(False, "memory", False)),
        (BoostedGraphicalModelClassifier(), ScalingTags(False, "memory", True)),
        (BoostedGraphicalModelClassifier(n_estimators_cv=3), ScalingTags(False, "memory", False)),
    ],
    ids=repr,
)
def test_the_tags_follow_the_parameters(estimator, expected):
    assert scaling_tags(estimator) == expected
    assert scaling_tags(estimator).partial_fit == hasattr(estimator, "partial_fit")


def test_every_public_classifier_has_tags_declared_or_found_from_its_methods():
    for name in discotree.__all__:
        if name.endswith("Classifier"):
            estimator = getattr(discotree, name)()
            tags = scaling_tags(estimator)
            if not hasattr(estimator, "__discotree_tags__"):  # the kernel densities
                assert tags == ScalingTags(False, "memory", False), name


def test_a_bad_file_reading_is_refused():
    with pytest.raises(ValueError, match="files must be one of"):
        ScalingTags(files="stream")


def test_the_scaling_page_includes_the_table_generated_from_the_tags():
    spec = importlib.util.spec_from_file_location("scaling_table", DOCS / "_scaling_table.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    table = module.scaling_table()
    rows = [line for line in table.splitlines()[2:] if line]
    public = [n for n in discotree.__all__ if n.endswith("Classifier")]
    assert len(rows) == len(public)
    ensemble = next(r for r in rows if "KDBEnsembleClassifier" in r)
    assert ensemble.split(" | ")[1:] == ["yes", "no", "yes, in passes", "yes |"]
    page = (DOCS / "user_guide" / "scaling.md").read_text()
    assert "```{include} _figures/scaling_support.md" in page
    assert "write_scaling_table" in (DOCS / "conf.py").read_text()
