"""The library's datasets by name: those bundled with scikit-learn and the named
synthetic problems (the data folder's are the reproductions' distribution's)."""

import pytest

from discotree.datasets import BUILTIN_DATASETS, SYNTHETIC_DATASETS, load_builtin, load_dataset


def test_builtin_sets_load_as_frames():
    X, y = load_dataset("iris")
    assert X.shape == (150, 4) and y.nunique() == 3 and y.name == "class"
    assert set(BUILTIN_DATASETS) == {"iris", "wine", "breast_cancer", "digits"}


def test_synthetic_problems_load_by_name():
    X, y = load_dataset("synthetic-3var")
    assert len(X) == len(y) == 1000
    assert "synthetic-forest" in SYNTHETIC_DATASETS


def test_an_unknown_name_says_what_is_known():
    with pytest.raises(ValueError, match=r"unknown dataset 'vote'.*iris.*synthetic-grid.*--data"):
        load_dataset("vote")
    with pytest.raises(ValueError, match="unknown dataset 'nope'; choose from iris"):
        load_builtin("nope")
