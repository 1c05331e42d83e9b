"""Datasets: the sets bundled with scikit-learn, a CSV reader, and generators of the
papers' synthetic problems.

The real sets of the repository's data folder are read by the reproductions'
distribution (``reproductions/`` in the repository), not by the library."""

from __future__ import annotations

import numpy as np
import pandas as pd

from . import synthetic
from .builtin import BUILTIN_DATASETS, load_builtin, load_csv
from .synthetic import ear_gaussian_example as ear_gaussian_example  # (re-exported)
from .synthetic import (
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
    "SYNTHETIC_DATASETS",
    "load_builtin",
    "load_csv",
    "load_dataset",
    # the generators of the synthetic problems, as synthetic lists them (not its classes)
    *(name for name in synthetic.__all__ if name[:1].islower()),
]


def load_dataset(name: str) -> tuple[pd.DataFrame, pd.Series]:
    """Load a dataset by name as (X DataFrame with the original column types, y Series).

    Parameters
    ----------
    name : str
        A set bundled with scikit-learn (``breast_cancer``, ``digits``, ``iris``,
        ``wine``) or a named synthetic problem (``SYNTHETIC_DATASETS``, default sizes,
        seed 0).

    Raises
    ------
    ValueError
        For an unknown name.

    Examples
    --------
    >>> X, y = load_dataset("iris")
    >>> X.shape
    (150, 4)
    """
    if name in BUILTIN_DATASETS:
        return load_builtin(name)
    if name in SYNTHETIC_DATASETS:
        return SYNTHETIC_DATASETS[name]()
    raise ValueError(
        f"unknown dataset {name!r}: the built-in ones are {', '.join(BUILTIN_DATASETS)}, "
        f"the synthetic ones {', '.join(SYNTHETIC_DATASETS)} (a file of your own: "
        "load_csv, or --data FILE --target COLUMN on the command line)"
    )
