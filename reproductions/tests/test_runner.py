"""The cached runner: results are reused, an interrupted run resumes."""

import json
import shutil
from functools import partial
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from discotree import NaiveBayesClassifier
from discotree_reproductions.harness import (
    DatasetSpec,
    Experiment,
    cross_validation,
    run_experiment,
)
from discotree_reproductions.harness.report import summarise, write_json
from discotree_reproductions.harness.runner import committed_records


class CountingNB(NaiveBayesClassifier):
    """Naive Bayes that logs each fit to a file; it is "killed" at the fit whose number
    is written in the file ``<log>.kill``, if that file exists."""

    def __init__(self, log=None):
        super().__init__()
        self.log = log

    def fit(self, X, y, sample_weight=None):
        with open(self.log, "a") as handle:
            handle.write("fit\n")
        n_fits = len(Path(self.log).read_text().split())
        kill = Path(f"{self.log}.kill")
        if kill.exists() and n_fits == int(kill.read_text()):
            raise KeyboardInterrupt("simulated kill")
        return super().fit(X, y, sample_weight)


def _data(seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"a": rng.integers(0, 3, 60), "b": rng.integers(0, 2, 60)})
    return X, pd.Series((X["a"] > 0).astype(int))


def _write_report(records, out, experiment):
    write_json(records, out / "results.json")


def _no_report(records, out, experiment):
    return None


def _experiment(log, models=("nb",), datasets=(("toy", _data),), report=_write_report):
    """The experiment "toy": the models of ``CountingNB`` (logging to ``log``) of the
    names ``models`` on the sets ``datasets`` (name, load) under 5-fold CV."""
    folds = partial(cross_validation, n_splits=5, seed=0)
    return Experiment(
        name="toy",
        description="toy",
        datasets=[DatasetSpec(name, load, folds, "CV-5") for name, load in datasets],
        models={m: partial(CountingNB, log=str(log)) for m in models},
        report=report,
    )


def _n_fits(log):
    return len(log.read_text().split())


def test_interrupted_run_resumes_from_the_cache(tmp_path):
    log = tmp_path / "fits.log"
    Path(f"{log}.kill").write_text("4")
    with pytest.raises(KeyboardInterrupt):
        run_experiment(_experiment(log), tmp_path / "out", progress=False)
    Path(f"{log}.kill").unlink()
    assert _n_fits(log) == 4  # three folds finished, the fourth killed
    records = run_experiment(_experiment(log), tmp_path / "out", progress=False)
    assert _n_fits(log) == 4 + 2  # only the two missing folds are fitted
    assert sorted(r["fold"] for r in records) == [f"r0-f{k}" for k in range(5)]
    saved = json.loads((tmp_path / "out" / "results.json").read_text())
    assert len(saved["folds"]) == 5
    again = run_experiment(_experiment(log), tmp_path / "out", progress=False)
    assert _n_fits(log) == 6  # everything cached
    key = ["dataset", "model", "fold", "accuracy"]
    assert sorted(tuple(r[k] for k in key) for r in again) == sorted(
        tuple(r[k] for k in key) for r in records
    )


def test_parallel_run_equals_serial_run(tmp_path):
    log = tmp_path / "fits.log"
    serial = run_experiment(_experiment(log), tmp_path / "a", progress=False)
    parallel = run_experiment(_experiment(log), tmp_path / "b", n_jobs=2, progress=False)
    a = summarise(serial).sort_values(["dataset", "model"])["mean"].to_numpy()
    b = summarise(parallel).sort_values(["dataset", "model"])["mean"].to_numpy()
    assert a == pytest.approx(b)


def _assert_runs_in_parts(experiment, out, log, part, first, second):
    """A run of ``experiment`` on the ``part`` ("model" or "dataset") ``first`` alone
    fits its 5 folds; a run on ``second`` then fits 5 more and reports both, the
    first's folds read, not refitted."""
    done = run_experiment(experiment, out, progress=False, **{f"{part}s": [first]})
    assert {r[part] for r in done} == {first} and _n_fits(log) == 5
    both = run_experiment(experiment, out, progress=False, **{f"{part}s": [second]})
    assert sorted(r[part] for r in both) == sorted([first] * 5 + [second] * 5)
    assert _n_fits(log) == 10


def test_a_run_in_parts_reports_the_models_already_computed(tmp_path):
    log = tmp_path / "fits.log"
    experiment = _experiment(log, models=("first", "second"), report=_no_report)
    _assert_runs_in_parts(experiment, tmp_path / "out", log, "model", "first", "second")


def test_a_run_on_some_datasets_fits_only_there_and_reports_the_cache(tmp_path):
    log = tmp_path / "fits.log"
    datasets = (("one", _data), ("two", partial(_data, 1)))
    experiment = _experiment(log, datasets=datasets, report=_no_report)
    _assert_runs_in_parts(experiment, tmp_path / "out", log, "dataset", "two", "one")


def test_a_clone_without_the_cache_resumes_from_the_committed_report(tmp_path):
    log = tmp_path / "fits.log"
    out = tmp_path / "out"
    first = run_experiment(_experiment(log), out, progress=False)
    saved = json.loads((out / "results.json").read_text())
    assert saved["fingerprint"] == _experiment(log).fingerprint()
    shutil.rmtree(out / "cache")  # the cache is not committed
    again = run_experiment(_experiment(log), out, progress=False)
    assert _n_fits(log) == 5  # nothing refitted
    key = ["dataset", "model", "fold", "accuracy", "fit_seconds"]
    assert sorted(tuple(r[k] for k in key) for r in again) == sorted(
        tuple(r[k] for k in key) for r in first
    )
    assert len(list((out / "cache").rglob("*.json"))) == 5  # the cache is restored


def test_a_report_of_another_configuration_is_not_reused(tmp_path):
    log = tmp_path / "fits.log"
    out = tmp_path / "out"
    run_experiment(_experiment(log), out, progress=False)
    shutil.rmtree(out / "cache")
    changed = _experiment(log)
    changed.settings = {"alpha": 2}  # a different fingerprint
    run_experiment(changed, out, progress=False)
    assert _n_fits(log) == 10  # every fold fitted again


def test_a_change_of_the_code_refits_instead_of_reusing_the_report(tmp_path, monkeypatch):
    """The fingerprint holds a hash of the code (issue 33): after a change of the
    package, the committed report's folds are fitted again, not re-rendered."""
    from discotree_reproductions.harness import runner

    log = tmp_path / "fits.log"
    out = tmp_path / "out"
    run_experiment(_experiment(log), out, progress=False)
    shutil.rmtree(out / "cache")
    run_experiment(_experiment(log), out, progress=False)
    assert _n_fits(log) == 5  # the same code: every fold reused from the report
    shutil.rmtree(out / "cache")
    monkeypatch.setattr(runner, "code_hash", lambda defined_by=None: "another-code")
    run_experiment(_experiment(log), out, progress=False)
    assert _n_fits(log) == 10  # every fold fitted again


def test_the_code_hash_covers_the_package_that_defines_an_experiment(monkeypatch):
    from discotree_reproductions.harness import runner

    seen = []
    monkeypatch.setattr(runner, "_package_hash", lambda package: seen.append(package) or package)
    runner.code_hash()
    runner.code_hash(pd.DataFrame)  # an experiment defined in another package
    assert seen == ["discotree", "discotree", "pandas"]
    assert runner.code_hash() != runner.code_hash(pd.DataFrame)


def test_editing_a_models_source_changes_the_fingerprint(tmp_path, monkeypatch):
    """No monkeypatched hash: a package on disk defines the experiment's model; one
    changed line of its source changes the fingerprint, so its folds are refitted."""
    import importlib
    import sys

    from discotree_reproductions.harness import runner

    package = tmp_path / "toy_models"
    package.mkdir()
    (package / "__init__.py").write_text("")
    source = package / "model.py"
    source.write_text("ALPHA = 1.0\n\ndef make():\n    return ALPHA\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module("toy_models.model")
    log = tmp_path / "fits.log"

    def fingerprint() -> str:
        experiment = _experiment(log)
        experiment.report = module.make  # defined in toy_models: its code is hashed
        return experiment.fingerprint()

    before = fingerprint()
    runner._package_hash.cache_clear()
    assert fingerprint() == before  # the same code, the same fingerprint
    source.write_text("ALPHA = 2.0\n\ndef make():\n    return ALPHA\n")
    runner._package_hash.cache_clear()  # a new process computes it afresh
    assert fingerprint() != before
    sys.modules.pop("toy_models.model")
    sys.modules.pop("toy_models")
    runner._package_hash.cache_clear()


def test_records_read_from_another_reproduction_or_a_bad_report_are_not_reused(tmp_path):
    log = tmp_path / "fits.log"
    out = tmp_path / "out"
    run_experiment(_experiment(log), out, progress=False)
    shutil.rmtree(out / "cache")
    saved = json.loads((out / "results.json").read_text())
    for record in saved["folds"][:2]:
        record["source"] = "another-reproduction"
    (out / "results.json").write_text(json.dumps(saved))
    assert len(committed_records(out, _experiment(log).fingerprint())) == 3
    run_experiment(_experiment(log), out, progress=False)
    assert _n_fits(log) == 5 + 2  # the two marked folds are fitted here
    shutil.rmtree(out / "cache")
    (out / "results.json").write_text("{not json")
    assert committed_records(out, _experiment(log).fingerprint()) == {}
    run_experiment(_experiment(log), out, progress=False)
    assert _n_fits(log) == 7 + 5


def test_each_fold_records_the_commit_that_fitted_it(tmp_path, monkeypatch):
    from discotree_reproductions.harness import report

    log = tmp_path / "fits.log"
    out = tmp_path / "out"
    monkeypatch.setattr(report, "source_state", lambda: ("a" * 40, []))
    first = run_experiment(_experiment(log), out, progress=False)
    assert {r["fit_commit"] for r in first} == {"a" * 40}
    assert all(r["fit_uncommitted_changes"] is False and r["fit_date"] for r in first)
    saved = json.loads((out / "results.json").read_text())
    assert saved["provenance"]["fold_commits"] == {"a" * 40: 5}
    # a later commit refits two folds and keeps the other three: the report says so
    shutil.rmtree(out / "cache")
    for record in saved["folds"][:2]:
        record["source"] = "another-reproduction"
    del saved["folds"][2]["fit_commit"]  # a fold fitted before commits were stored
    (out / "results.json").write_text(json.dumps(saved))
    monkeypatch.setattr(report, "source_state", lambda: ("b" * 40, ["src/x.py"]))
    run_experiment(_experiment(log), out, progress=False)
    counts = json.loads((out / "results.json").read_text())["provenance"]["fold_commits"]
    assert counts == {"a" * 40: 2, "b" * 40 + "+changes": 2, "not recorded": 1}


def test_provenance_counts_only_changes_to_the_code(tmp_path, monkeypatch):
    """A changed README or result is not a change to what produced a result; a
    changed or new source file is."""
    import subprocess

    from discotree_reproductions.harness import report

    root = tmp_path / "repo"
    (root / "src" / "discotree" / "experiments").mkdir(parents=True)
    module = root / "src" / "discotree" / "experiments" / "report.py"
    module.write_text("# stand-in\n")
    (root / "README.md").write_text("readme\n")

    def git(*args):
        subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)

    git("init", "-q")
    git("add", ".")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "start")
    monkeypatch.setattr(report, "__file__", str(module))
    assert report.source_state()[1] == []
    (root / "README.md").write_text("changed\n")
    assert report.provenance()["uncommitted_changes"] is False
    (root / "src" / "discotree" / "new.py").write_text("x = 1\n")
    stamp = report.provenance()
    assert stamp["uncommitted_changes"] is True
    assert stamp["uncommitted_files"] == ["src/discotree/new.py"]


def test_render_only_rewrites_the_report_without_fitting_and_says_so(tmp_path):
    from discotree_reproductions.harness.runner import render_committed

    log = tmp_path / "fits.log"
    out = tmp_path / "out"
    run_experiment(_experiment(log), out, progress=False)
    before = json.loads((out / "results.json").read_text())
    experiment = _experiment(log)
    texts = []
    original = experiment.report

    def new_text(records, out_dir, exp):
        original(records, out_dir, exp)
        texts.append(len(records))

    experiment.report = new_text
    render_committed(experiment, out)
    assert _n_fits(log) == 5  # nothing fitted again
    assert texts == [5]
    after = json.loads((out / "results.json").read_text())
    assert after["provenance"]["rendered_only"] is True
    assert after["provenance"]["fitted_report"] == before["provenance"]
    assert after["fingerprint"] == before["fingerprint"]
    assert [f["fit_commit"] for f in after["folds"]] == [f["fit_commit"] for f in before["folds"]]


def test_render_only_needs_a_committed_report(tmp_path):
    from discotree_reproductions.harness.runner import render_committed

    with pytest.raises(FileNotFoundError, match="nothing to render"):
        render_committed(_experiment(tmp_path / "fits.log"), tmp_path / "none")


def test_fold_commits_name_the_first_commit_that_held_an_unrecorded_fold():
    from discotree_reproductions.harness.report import fold_commits

    folds = [
        {"fit_commit": "a" * 40, "fit_uncommitted_changes": False},
        {"fit_commit": "b" * 40, "fit_uncommitted_changes": True},
        {"committed_in": "c" * 12},
        {},
    ]
    assert fold_commits(folds) == {
        "a" * 40: 1,
        "b" * 40 + "+changes": 1,
        "not recorded, first committed in " + "c" * 12: 1,
        "not recorded": 1,
    }


def test_render_only_of_a_callable_reproduction_uses_its_render(tmp_path, capsys):
    from discotree.cli import main

    assert main(["reproduce", "narasimhan-example", "--render-only"]) == 2
    assert "--render-only does not apply" in capsys.readouterr().err
