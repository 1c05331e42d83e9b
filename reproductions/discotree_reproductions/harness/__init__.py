"""The reproductions' harness: protocols, metrics, the data folder, a cached runner and
reports, which the ``discotree reproduce`` and ``discotree bench`` commands run.

It is part of the reproductions' distribution, not of discotree: a plain
``pip install discotree`` carries none of it. The reproductions are listed through the
entry point ``discotree.reproductions`` (a mapping of name to experiment factory; this
distribution registers :data:`discotree_reproductions.catalog.EXPERIMENTS`), and the two
commands join ``discotree``'s command line through the entry point ``discotree.commands``
(:func:`discotree_reproductions.commands.add_commands`).
"""

from __future__ import annotations

from typing import Any

from .data_folder import dataset_split, load_dataset
from .metrics import accuracy, balanced_error_rate, error_rate, paired_t_test, wilcoxon_test
from .protocols import (
    Fold,
    cross_validation,
    fixed_split,
    learning_curve,
    repeated_cross_validation,
)
from .runner import DatasetSpec, Experiment, reproduction, run_experiment


def installed_experiments() -> dict[str, Any]:
    """The reproductions of the installed distributions (entry point group
    ``discotree.reproductions``), by name; empty when none is installed."""
    from importlib.metadata import entry_points

    found: dict[str, Any] = {}
    for point in entry_points(group="discotree.reproductions"):
        for name, factory in dict(point.load()).items():
            found.setdefault(name, factory)
    return found


def __getattr__(name: str) -> Any:
    if name == "EXPERIMENTS":  # read when asked: the reproductions load on use
        return installed_experiments()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "EXPERIMENTS",
    "DatasetSpec",
    "Experiment",
    "Fold",
    "accuracy",
    "balanced_error_rate",
    "cross_validation",
    "dataset_split",
    "error_rate",
    "fixed_split",
    "installed_experiments",
    "learning_curve",
    "load_dataset",
    "paired_t_test",
    "repeated_cross_validation",
    "reproduction",
    "run_experiment",
    "wilcoxon_test",
]
