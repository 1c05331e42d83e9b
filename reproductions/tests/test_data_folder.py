"""Loading the shared data folder's formats (on a generated folder)."""

import os
from pathlib import Path

import pandas as pd
import pytest

from discotree_reproductions.harness.data_folder import (
    data_dir,
    dataset_split,
    load_dataset,
    manifest,
)


def test_csv_set_keeps_types_and_missing_values(fake_data_dir):
    X, y = load_dataset("toy", fake_data_dir)
    assert X.shape == (40, 3) and y.name == "class"
    assert X["num"].isna().sum() == 2
    assert not pd.api.types.is_numeric_dtype(X["colour"].dtype)


def test_nominal_coded_columns_become_categorical(fake_data_dir):
    X, _ = load_dataset("lymphography", fake_data_dir)
    assert all(isinstance(X[c].dtype, pd.CategoricalDtype) for c in X.columns)


def test_image_set_and_its_split(fake_data_dir):
    X, y = load_dataset("pix", fake_data_dir)
    assert X.shape == (30, 4) and len(y) == 30
    train, test = dataset_split("pix", fake_data_dir)
    assert (train, test) == (range(0, 20), range(20, 30))
    assert dataset_split("toy", fake_data_dir) is None


def test_manifest_entries(fake_data_dir):
    entries = manifest(fake_data_dir)
    assert entries["toy"].rows == 40 and entries["toy"].missing_cells == 2


def test_builtin_sets_need_no_folder():
    X, y = load_dataset("iris", "/nonexistent")
    assert X.shape == (150, 4) and y.nunique() == 3


def test_errors_name_the_problem(fake_data_dir, tmp_path, monkeypatch):
    with pytest.raises(ValueError, match="unknown dataset 'nope'"):
        load_dataset("nope", fake_data_dir)
    with pytest.raises(FileNotFoundError, match=str(tmp_path / "empty")):
        load_dataset("toy", tmp_path / "empty")
    monkeypatch.setenv("DISCOTREE_DATA", str(fake_data_dir))
    assert data_dir() == Path(fake_data_dir)


SHARED = Path(os.environ.get("DISCOTREE_DATA", Path(__file__).parents[3] / "shared" / "data"))


@pytest.mark.skipif(not (SHARED / "MANIFEST.tsv").is_file(), reason="no shared data folder")
def test_every_real_set_matches_its_manifest_row():
    for name, entry in manifest(SHARED).items():
        if entry.source.startswith("bundled"):
            continue
        X, y = load_dataset(name, SHARED)
        assert X.shape == (entry.rows, entry.features), name
        assert y.nunique() == entry.classes, name
        assert int(X.isna().sum().sum()) == entry.missing_cells, name
        non_numeric = sum(
            not pd.api.types.is_numeric_dtype(X[c].dtype)
            or isinstance(X[c].dtype, pd.CategoricalDtype)
            for c in X.columns
        )
        assert non_numeric == entry.n_categorical, name
