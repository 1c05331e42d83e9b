"""Ad-hoc benchmarks: any registered models on any datasets under a named protocol."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from functools import partial
from pathlib import Path

from discotree.output_files import write_text
from discotree.registry import CLASSIFIERS, make_classifier

from .data_folder import load_dataset
from .protocols import PROTOCOLS, cross_validation
from .report import markdown_table, summarise, write_json
from .runner import DatasetSpec, Experiment

__all__ = ["bench_experiment", "protocol_folds"]


def protocol_folds(protocol: str):
    """The fold generator of a protocol name: ``cv5``, ``cv10``, ``cvK`` or ``10x10cv``.

    Raises
    ------
    ValueError
        For an unknown name.
    """
    if protocol in PROTOCOLS:
        return PROTOCOLS[protocol]
    match = re.fullmatch(r"cv(\d+)", protocol)
    if match and int(match.group(1)) >= 2:
        k = int(match.group(1))
        return lambda y, seed=0: cross_validation(y, k, seed)
    raise ValueError(f"unknown protocol {protocol!r}; use cvK (e.g. cv5) or 10x10cv")


def bench_experiment(
    datasets: list[str] | Mapping[str, Callable[[], tuple]],
    models: list[str],
    protocol: str = "cv5",
    data_dir: str | os.PathLike | None = None,
    seed: int = 0,
    name: str = "bench",
) -> Experiment:
    """An experiment comparing registered ``models`` on ``datasets`` under ``protocol``
    (``name``: what its progress bar and report call it).

    ``datasets`` are names for :func:`.data_folder.load_dataset`, or a dict of
    name -> loader returning (X, y) (e.g. for a CSV file).
    """
    unknown = [m for m in models if m not in CLASSIFIERS]
    if unknown:
        raise ValueError(
            f"unknown model {', '.join(unknown)}; choose from {', '.join(CLASSIFIERS)}"
        )
    folds = protocol_folds(protocol)
    loaders = (
        datasets
        if isinstance(datasets, dict)
        else {name: partial(load_dataset, name, data_dir) for name in datasets}
    )
    specs = [
        DatasetSpec(name=name, load=load, folds=partial(folds, seed=seed), protocol=protocol)
        for name, load in loaders.items()
    ]
    return Experiment(
        name=name,
        description=f"{', '.join(models)} on {', '.join(loaders)} ({protocol}, seed {seed})",
        datasets=specs,
        models={m: partial(make_classifier, m) for m in models},
        report=_report,
        settings={"protocol": protocol, "seed": seed},
    )


def _report(records: list[dict], out_dir: Path, experiment: Experiment) -> None:
    write_json(
        records, out_dir / "results.json", experiment=experiment.name, settings=experiment.settings
    )
    accuracy = summarise(records, "accuracy")
    ber = summarise(records, "balanced_error").set_index(["dataset", "model"])
    rows = [
        [
            r.dataset,
            r.model,
            f"{100 * r.mean:.2f} ± {100 * r.sd:.2f}",
            f"{100 * ber.loc[(r.dataset, r.model), 'mean']:.2f}",
            f"{r.fit_seconds:.3f}",
        ]
        for r in accuracy.itertuples()
    ]
    table = markdown_table(
        ["dataset", "model", "accuracy (%)", "balanced error (%)", "fit time (s)"], rows
    )
    text = f"# {experiment.name}\n\n{experiment.description}\n\n{table}\n"
    write_text(out_dir / "results.md", text)
