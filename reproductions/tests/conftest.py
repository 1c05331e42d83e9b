"""Fixtures of the reproductions' tests (the library's own are in tests/conftest.py)."""

from __future__ import annotations

import numpy as np
import pytest


@pytest.fixture(params=[0, 1, 2])
def rng(request) -> np.random.Generator:
    """Every seeded test runs for several seeds; none may depend on one."""
    return np.random.default_rng(request.param)


@pytest.fixture
def fake_data_dir(tmp_path):
    """A data folder with a manifest, one CSV set (with a coded nominal column) and one
    image set, in the shared folder's formats."""
    import pandas as pd

    folder = tmp_path / "data"
    folder.mkdir()
    header = (
        "name\trows\tfeatures\tclasses\tn_numeric_features\tn_categorical_features\t"
        "missing_cells\tsource\tnote\n"
    )
    rows = [
        "toy\t40\t3\t2\t1\t2\t2\tgenerated\tCV-5\n",
        "lymphography\t40\t2\t2\t0\t2\t0\tgenerated\tall nominal, integer-coded\n",
        "pix\t30\t4\t3\t4\t0\t0\tgenerated\tsplit 20/10\n",
    ]
    (folder / "MANIFEST.tsv").write_text(header + "".join(rows))
    rng = np.random.default_rng(0)
    toy = pd.DataFrame(
        {
            "num": rng.normal(size=40),
            "colour": rng.choice(["red", "blue"], 40),
            "flag": rng.choice(["y", "n"], 40),
            "class": rng.choice(["a", "b"], 40),
        }
    )
    toy.loc[[3, 7], "num"] = np.nan
    toy.to_csv(folder / "toy.csv.gz", index=False)
    lymph = pd.DataFrame(
        {
            "lymphatics": rng.integers(1, 5, 40),
            "by_pass": rng.integers(1, 3, 40),
            "class": rng.integers(1, 3, 40),
        }
    )
    lymph.to_csv(folder / "lymphography.csv.gz", index=False)
    np.savez(
        folder / "pix.npz",
        X_train=rng.integers(0, 5, (20, 4)),
        y_train=rng.integers(0, 3, 20),
        X_test=rng.integers(0, 5, (10, 4)),
        y_test=rng.integers(0, 3, 10),
    )
    return folder
