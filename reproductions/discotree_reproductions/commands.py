"""The ``discotree reproduce`` and ``discotree bench`` commands.

They join discotree's command line through the entry point ``discotree.commands``
(:func:`add_commands`), so a plain ``pip install discotree`` has neither; this module
imports nothing heavy, so that ``discotree --help`` stays quick.
"""

from __future__ import annotations

import argparse
import sys
from functools import partial
from pathlib import Path

from discotree.cli import UsageError, split_names

__all__ = ["BENCH_DEFAULT", "add_commands"]

#: ``bench``'s default: the fast models.
BENCH_DEFAULT = ("nb", "nb-auto", "chow-liu", "tan-cmi", "tan-cmi-auto", "dt", "dt-auto")


def _first_paragraph(doc: str) -> str:
    """A docstring's first paragraph on one line (``--list``): never cut mid-sentence."""
    return " ".join(doc.strip().split("\n\n")[0].split())


def _reproduce(args: argparse.Namespace) -> None:
    from .harness import Experiment, installed_experiments, run_experiment

    experiments_by_name = installed_experiments()
    if args.list or args.experiment is None:
        if args.experiment is None and not args.list:
            raise UsageError("name an experiment, or use --list")
        for name, factory in experiments_by_name.items():
            print(f"{name}: {_first_paragraph(factory.__doc__ or name)}")
        return
    if args.experiment not in experiments_by_name:
        raise UsageError(
            f"unknown experiment {args.experiment!r}; choose from {', '.join(experiments_by_name)}"
        )
    experiment = experiments_by_name[args.experiment](args.data_dir)
    out = args.out / args.experiment
    if args.render_only:
        from .harness.runner import render_committed

        render = (
            partial(render_committed, experiment)
            if isinstance(experiment, Experiment)
            else getattr(experiment, "render", None)
        )
        if render is None:
            raise UsageError(
                f"{args.experiment} writes its report as it runs; --render-only does not apply"
            )
        try:
            render(out)
        except (FileNotFoundError, ValueError) as err:
            raise UsageError(str(err)) from err
        return
    if isinstance(experiment, Experiment):
        models = datasets = None
        if args.models is not None:
            models = split_names(args.models, experiment.models, "model")
        if args.datasets is not None:
            known = {spec.name: spec for spec in experiment.datasets}
            datasets = split_names(args.datasets, known, "dataset")
        run_experiment(
            experiment,
            out,
            n_jobs=args.n_jobs,
            progress=not args.quiet,
            models=models,
            datasets=datasets,
        )
    else:
        for option in ("models", "datasets"):
            if getattr(args, option) is not None:
                raise UsageError(
                    f"{args.experiment} runs all its {option}; --{option} does not apply"
                )
        experiment(out, n_jobs=args.n_jobs, progress=not args.quiet)
    print(f"{args.experiment}: report written to {out}/results.md")


def _bench(args: argparse.Namespace) -> None:
    from discotree.registry import CLASSIFIERS

    from .harness import run_experiment
    from .harness.adhoc import bench_experiment

    datasets = [v.strip() for v in args.datasets.split(",") if v.strip()]
    models = split_names(args.models, CLASSIFIERS, "model", listed_by="discotree models")
    experiment = bench_experiment(datasets, models, args.protocol, args.data_dir, args.random_state)
    run_experiment(experiment, args.out, n_jobs=args.n_jobs, progress=not args.quiet)
    sys.stdout.write((args.out / "results.md").read_text())


def add_commands(subparsers, **parser_options) -> None:
    """Add ``reproduce`` and ``bench`` to discotree's command line (the entry point
    ``discotree.commands``); ``parser_options`` are those of discotree's own
    subcommands (formatter, common options)."""
    p = subparsers.add_parser(
        "reproduce",
        **parser_options,
        help="reproduce a paper's experiment",
        description="Run a reproduction; results (JSON, markdown, figures) go "
        "to OUT/<experiment>/, and finished folds are cached "
        "there so an interrupted run resumes. A fold is reused (from that cache, or "
        "from the committed results.json) only under the same fingerprint: the same "
        "datasets, protocols, models and settings and the same code (a hash of the "
        "discotree package and of the reproductions' package), so a rerun after any "
        "change of the code refits every fold instead of re-rendering old ones. "
        "--render-only is the one exception, asked for by name: it rewrites the "
        "report's text from the committed folds and marks it rendered_only.",
    )
    p.add_argument("experiment", nargs="?", help="experiment name (see --list)")
    p.add_argument("--list", action="store_true", help="list the experiments")
    p.add_argument(
        "--data-dir", type=Path, help="data folder (default $DISCOTREE_DATA, else ../shared/data)"
    )
    p.add_argument("--out", type=Path, default=Path("results"), help="results folder")
    p.add_argument("--n-jobs", type=int, default=-1, help="parallel workers (joblib)")
    p.add_argument(
        "--models",
        help="comma-separated models to compute now; the report also shows the models "
        "already in the cache (a long reproduction in parts)",
    )
    p.add_argument(
        "--datasets",
        help="comma-separated datasets to compute now; on the others, the report shows "
        "what the cache holds",
    )
    p.add_argument(
        "--render-only",
        action="store_true",
        help="fit nothing: write the report again from the folds of the committed "
        "results.json, whatever code fitted them (each keeps its fit_commit; the "
        "provenance says rendered_only and keeps the fitting run's)",
    )
    p.set_defaults(run=_reproduce)

    p = subparsers.add_parser(
        "bench",
        **parser_options,
        help="compare models on datasets under a protocol",
        description="Evaluate registered models on datasets (built-in, synthetic or "
        "from the data folder) with the reproductions' harness.",
    )
    p.add_argument("--datasets", required=True, help="comma-separated dataset names")
    p.add_argument(
        "--models",
        default=",".join(BENCH_DEFAULT),
        help="comma-separated registry names ('discotree models' lists them)",
    )
    p.add_argument("--protocol", default="cv5", help="cvK (e.g. cv5) or 10x10cv")
    p.add_argument("--random-state", type=int, default=0, help="seed of the folds")
    p.add_argument(
        "--data-dir", type=Path, help="data folder (default $DISCOTREE_DATA, else ../shared/data)"
    )
    p.add_argument("--out", type=Path, default=Path("results/bench"), help="results folder")
    p.add_argument("--n-jobs", type=int, default=1, help="parallel workers (joblib)")
    p.set_defaults(run=_bench)
