"""Datasets: the real sets of the data folder, the sets bundled with scikit-learn, and
generators of the papers' synthetic problems."""

from __future__ import annotations

import os

import pandas as pd

from .builtin import BUILTIN_DATASETS, load_builtin, load_csv
from .real import KNOWN_SPLITS, data_dir, load_real, manifest, npz_split

__all__ = [
    "BUILTIN_DATASETS",
    "KNOWN_SPLITS",
    "data_dir",
    "dataset_split",
    "load_builtin",
    "load_csv",
    "load_dataset",
    "manifest",
]


def load_dataset(
    name: str, data_dir: str | os.PathLike | None = None
) -> tuple[pd.DataFrame, pd.Series]:
    """Load a dataset by name as (X DataFrame with the original column types, y Series).

    Parameters
    ----------
    name : str
        A set bundled with scikit-learn (``breast_cancer``, ``digits``, ``iris``,
        ``wine``) or one listed in the data folder's MANIFEST.tsv.
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
    return load_real(name, data_dir)


def dataset_split(
    name: str, data_dir: str | os.PathLike | None = None
) -> tuple[range, range] | None:
    """The known train/test split of a dataset as row ranges, or None (use CV)."""
    if name in KNOWN_SPLITS:
        return KNOWN_SPLITS[name]
    if name in BUILTIN_DATASETS:
        return None
    return npz_split(name, data_dir)
