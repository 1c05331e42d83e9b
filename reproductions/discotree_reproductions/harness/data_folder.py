"""The public datasets of the shared data folder (listed in its MANIFEST.tsv), and
:func:`load_dataset`, which reads them, discotree's built-in sets and its named synthetic
problems by one name."""

from __future__ import annotations

import csv
import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd

from discotree.datasets import BUILTIN_DATASETS, SYNTHETIC_DATASETS
from discotree.datasets import load_dataset as load_library_dataset

__all__ = [
    "KNOWN_SPLITS",
    "ManifestEntry",
    "data_dir",
    "dataset_split",
    "load_dataset",
    "load_real",
    "manifest",
    "npz_split",
]

#: Nominal attributes that the files store as integer codes (the manifest's notes say
#: which); they are loaded as pandas categoricals so that no learner treats the codes
#: as ordered numbers.
NOMINAL_CODED: dict[str, list[str]] = {
    "australian": ["A1", "A4", "A5", "A6", "A8", "A9", "A11", "A12"],
    "heart": ["sex", "chest_pain", "fbs", "restecg", "exang", "slope", "thal"],
    "hepatitis": [
        "SEX",
        "STEROID",
        "ANTIVIRALS",
        "FATIGUE",
        "MALAISE",
        "ANOREXIA",
        "LIVER_BIG",
        "LIVER_FIRM",
        "SPLEEN_PALPABLE",
        "SPIDERS",
        "ASCITES",
        "VARICES",
        "HISTOLOGY",
    ],
    "lymphography": ["*"],
    "soybean": ["*"],
    "corral": ["*"],
    "mofn-3-7-10": ["*"],
    "flare": ["*"],
}

#: Train/test splits by row range (train rows, test rows) that the manifest records as
#: reproducible, or as the natural stand-in it names.
KNOWN_SPLITS: dict[str, tuple[range, range]] = {
    "mofn-3-7-10": (range(0, 300), range(300, 1324)),
    "satimage": (range(0, 4435), range(4435, 6435)),
    "shuttle": (range(0, 43500), range(43500, 58000)),
    "spectf": (range(0, 80), range(80, 267)),
    "optdigits": (range(0, 3823), range(3823, 5620)),
    "pendigits": (range(0, 7494), range(7494, 10992)),
    "letter": (range(0, 16000), range(16000, 20000)),
    "waveform-21": (range(0, 300), range(300, 5000)),
}


@dataclass(frozen=True)
class ManifestEntry:
    """One row of MANIFEST.tsv."""

    name: str
    rows: int
    features: int
    classes: int
    n_numeric: int
    n_categorical: int
    missing_cells: int
    source: str
    note: str


def data_dir(path: str | os.PathLike | None = None) -> Path:
    """The data folder: ``path``, else ``$DISCOTREE_DATA``, else ``../shared/data``.

    ``../shared/data`` is looked up relative to the repository holding this package and
    to the working directory.

    Raises
    ------
    FileNotFoundError
        Naming every folder tried.
    """
    if path is not None:
        candidates = [Path(path)]
    elif os.environ.get("DISCOTREE_DATA"):
        candidates = [Path(os.environ["DISCOTREE_DATA"])]
    else:
        repo = Path(__file__).resolve().parents[3]
        candidates = [repo.parent / "shared" / "data", Path.cwd().parent / "shared" / "data"]
    for candidate in candidates:
        if (candidate / "MANIFEST.tsv").is_file():
            return candidate
    tried = ", ".join(str(c) for c in candidates)
    raise FileNotFoundError(
        f"no data folder with a MANIFEST.tsv found (tried {tried}); pass data_dir= or "
        "--data-dir, or set DISCOTREE_DATA"
    )


@lru_cache(maxsize=8)
def _read_manifest(folder: Path) -> dict[str, ManifestEntry]:
    entries = {}
    with open(folder / "MANIFEST.tsv", newline="") as handle:
        for row in csv.DictReader(handle, delimiter="\t"):
            entries[row["name"]] = ManifestEntry(
                name=row["name"],
                rows=int(row["rows"]),
                features=int(row["features"]),
                classes=int(row["classes"]),
                n_numeric=int(row["n_numeric_features"]),
                n_categorical=int(row["n_categorical_features"]),
                missing_cells=int(row["missing_cells"]),
                source=row["source"],
                note=row["note"],
            )
    return entries


def manifest(path: str | os.PathLike | None = None) -> dict[str, ManifestEntry]:
    """The manifest of the data folder, by dataset name."""
    return _read_manifest(data_dir(path))


def load_real(name: str, path: str | os.PathLike | None = None) -> tuple[pd.DataFrame, pd.Series]:
    """Load a dataset of the data folder as (X DataFrame, y Series named 'class').

    CSV files keep their column types (strings as object columns); the nominal
    attributes stored as integer codes (``NOMINAL_CODED``) become categoricals. Image
    sets (``.npz``) are returned with the training rows first, then the test rows.

    Raises
    ------
    ValueError
        If ``name`` is not in the manifest or has no file.
    """
    folder = data_dir(path)
    entries = _read_manifest(folder)
    if name not in entries:
        raise ValueError(
            f"unknown dataset {name!r}; {folder}/MANIFEST.tsv lists {', '.join(entries)}"
        )
    csv_path, npz_path = folder / f"{name}.csv.gz", folder / f"{name}.npz"
    if csv_path.is_file():
        frame = pd.read_csv(csv_path, na_values=[""], keep_default_na=False)
        y = frame.pop("class")
        nominal = NOMINAL_CODED.get(name, [])
        columns = list(frame.columns) if nominal == ["*"] else nominal
        for column in columns:
            frame[column] = frame[column].astype("category")
        return frame, y
    if npz_path.is_file():
        with np.load(npz_path) as arrays:
            if "X_train" in arrays:
                X = np.vstack([arrays["X_train"], arrays["X_test"]])
                y = np.concatenate([arrays["y_train"], arrays["y_test"]])
            else:
                X, y = arrays["X"], arrays["y"]
        columns = [f"px{j}" for j in range(X.shape[1])]
        return pd.DataFrame(X, columns=columns), pd.Series(y, name="class")
    raise ValueError(f"dataset {name!r} has no file in {folder} (bundled with scikit-learn?)")


def npz_split(name: str, path: str | os.PathLike | None = None) -> tuple[range, range] | None:
    """Train/test row ranges of an image set stored with X_train/X_test, else None."""
    npz_path = data_dir(path) / f"{name}.npz"
    if not npz_path.is_file():
        return None
    with np.load(npz_path) as arrays:
        if "X_train" not in arrays:
            return None
        n_train, n_test = len(arrays["y_train"]), len(arrays["y_test"])
    return range(0, n_train), range(n_train, n_train + n_test)


def load_dataset(
    name: str, data_dir: str | os.PathLike | None = None
) -> tuple[pd.DataFrame, pd.Series]:
    """Load a dataset by name as (X DataFrame with the original column types, y Series).

    Parameters
    ----------
    name : str
        A set bundled with scikit-learn (``breast_cancer``, ``digits``, ``iris``,
        ``wine``), a named synthetic problem (``discotree.datasets.SYNTHETIC_DATASETS``,
        default sizes, seed 0) or one listed in the data folder's MANIFEST.tsv.
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
    if name in BUILTIN_DATASETS or name in SYNTHETIC_DATASETS:
        return load_library_dataset(name)
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
