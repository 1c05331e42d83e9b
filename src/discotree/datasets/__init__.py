"""Datasets: the real sets of the data folder, the sets bundled with scikit-learn, and
generators of the papers' synthetic problems."""

from __future__ import annotations

import os

import numpy as np
import pandas as pd

from .builtin import BUILTIN_DATASETS, load_builtin, load_csv
from .real import KNOWN_SPLITS, data_dir, load_real, manifest, npz_split
from .synthetic import (
    ear_gaussian_example,
    forest_classes,
    gaussian_example,
    random_binary_trees,
    random_grid_model,
    random_ktree_classes,
    sample_forest_classes,
    sample_grid_pair,
    sample_joint_table,
    three_variable_example,
)


def _grid_pair(n_samples: int = 1200, seed: int = 0):
    p, q = random_grid_model(random_state=seed), random_grid_model(random_state=seed + 1)
    return sample_grid_pair(q, p, n_samples, np.random.default_rng(seed))


#: Named synthetic problems with default sizes (seed 0), loadable by load_dataset.
SYNTHETIC_DATASETS = {
    "synthetic-binary-trees": lambda: random_binary_trees(20, 500, random_state=0)[:2],
    "synthetic-grid": _grid_pair,
    "synthetic-gaussian": lambda: gaussian_example(20, random_state=0).sample(1000, 0),
    "synthetic-3var": lambda: sample_joint_table(three_variable_example()[0], 1000, 0),
    "synthetic-1tree": lambda: random_ktree_classes(10, random_state=0)[:2],
    "synthetic-forest": lambda: sample_forest_classes(
        forest_classes(10, marginal="t3", random_state=0), 1000, random_state=0
    ),
}

__all__ = [
    "BUILTIN_DATASETS",
    "KNOWN_SPLITS",
    "SYNTHETIC_DATASETS",
    "data_dir",
    "dataset_split",
    "ear_gaussian_example",
    "forest_classes",
    "gaussian_example",
    "load_builtin",
    "load_csv",
    "load_dataset",
    "manifest",
    "random_binary_trees",
    "random_grid_model",
    "random_ktree_classes",
    "sample_forest_classes",
    "sample_grid_pair",
    "sample_joint_table",
    "three_variable_example",
]


def load_dataset(
    name: str, data_dir: str | os.PathLike | None = None
) -> tuple[pd.DataFrame, pd.Series]:
    """Load a dataset by name as (X DataFrame with the original column types, y Series).

    Parameters
    ----------
    name : str
        A set bundled with scikit-learn (``breast_cancer``, ``digits``, ``iris``,
        ``wine``), a named synthetic problem (``SYNTHETIC_DATASETS``, default sizes,
        seed 0) or one listed in the data folder's MANIFEST.tsv.
    data_dir : path, optional
        The data folder; default ``$DISCOTREE_DATA``, else ``../shared/data``.

    Raises
    ------
    ValueError
        For an unknown name.
    FileNotFoundError
        When a real set is asked for and no data folder is found (the message names
        the folders tried).
    """
    if name in BUILTIN_DATASETS:
        return load_builtin(name)
    if name in SYNTHETIC_DATASETS:
        return SYNTHETIC_DATASETS[name]()
    return load_real(name, data_dir)


def dataset_split(
    name: str, data_dir: str | os.PathLike | None = None
) -> tuple[range, range] | None:
    """The known train/test split of a dataset as row ranges, or None (use CV)."""
    if name in KNOWN_SPLITS:
        return KNOWN_SPLITS[name]
    if name in BUILTIN_DATASETS or name in SYNTHETIC_DATASETS:
        return None
    return npz_split(name, data_dir)
