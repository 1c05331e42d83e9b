"""The tests mirror the package: every source module has its test module
(``tests/<package>/test_<module>.py``), or ``TESTED_IN`` names the test modules that
exercise it under another name (a concept tested through its estimator, a private
helper through the public class that uses it). The map is checked, so it cannot lie:
each named test module exists and mentions the module (its dotted path or one of its
public names), and a new module without either fails here."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "discotree"
TESTS = ROOT / "tests"

#: Source modules (relative to ``src/discotree``) tested under another name.
TESTED_IN: dict[str, tuple[str, ...]] = {
    "classifiers/_base.py": ("test_contract.py", "classifiers/test_generative.py"),
    "classifiers/_incremental.py": ("classifiers/test_partial_fit.py",),
    "classifiers/_kernel_density.py": ("classifiers/test_forest_density.py",),
    "classifiers/_prediction.py": ("engines/test_dask_engine.py",),
    "classifiers/chow_liu.py": ("classifiers/test_generative.py",),
    "classifiers/ear_tree.py": ("structure/test_ear.py",),
    "classifiers/kernel_naive_bayes.py": ("classifiers/test_forest_density.py",),
    "classifiers/naive_bayes.py": ("classifiers/test_generative.py",),
    "classifiers/tan.py": ("classifiers/test_generative.py", "classifiers/test_ktree.py"),
    "config.py": ("test_threads.py", "test_contract.py"),
    "migrations.py": ("io/test_migrations.py",),
    "models/file_checks.py": ("io/test_model_numbers.py",),
    "stored_classes.py": ("io/test_migrations.py",),
    "datasets/fingerprints.py": ("engines/test_passes_notice.py",),
    "engines/dask_boosting.py": ("engines/test_dask_engine.py",),
    "engines/kdb_passes.py": ("engines/test_ensemble_passes.py",),
    "engines/logistic_passes.py": ("engines/test_ensemble_passes.py",),
    "engines/row_sources.py": ("engines/test_ensemble_passes.py",),
    "engines/schema_summaries.py": ("engines/test_ensemble_passes.py",),
    "explain.py": ("test_plotting.py",),
    "fitting.py": ("test_contract.py",),
    "io/model_checks.py": ("io/test_model_file_checks.py",),
    "kernels/forest.py": ("models/test_discrete_forest.py",),
    "kernels/information.py": ("stats/test_discrete.py",),
    "kernels/spanning.py": ("structure/test_spanning.py",),
    "kernels/tree_partition.py": ("models/test_lgmht_altmax.py",),
    "models/logistic.py": ("learners/test_logistic.py",),
    "learners/averaged_dependence.py": ("classifiers/test_averaged_dependence.py",),
    "learners/ensemble.py": ("classifiers/test_ensemble.py",),
    "learners/discriminative_tree.py": ("learners/test_registry.py",),
    "learners/generative.py": ("learners/test_registry.py",),
    "learners/options.py": ("test_options.py",),
    "model_file.py": ("io/test_model_file_checks.py",),
    "models/boosted_ensemble.py": ("classifiers/test_boosting.py",),
    "models/conditional_likelihood.py": ("classifiers/test_ktree.py",),
    "models/exponential_tree.py": ("models/test_lgmht_altmax.py",),
    "models/forest_pairs.py": ("io/test_json_model.py",),
    "models/kernel_density.py": ("kernels/test_kde.py",),
    "models/networks.py": ("io/test_bif.py",),
    "registry.py": ("evaluation/test_streaming_cv.py",),
    "stats/dirichlet.py": ("stats/test_discrete.py",),
    "stats/information.py": ("stats/test_discrete.py",),
    "stats/pair_statistics.py": ("stats/test_discrete.py",),
    "stats/folds.py": ("learners/test_step_selection.py", "classifiers/test_boosting.py"),
    "stats/set_information.py": ("structure/test_ear.py",),
    "structure/bayes_net_search.py": ("classifiers/test_ktree.py",),
    "structure/candidates.py": ("structure/test_candidate_batches.py",),
    "structure/chow_liu.py": ("structure/test_penalized.py",),
    "structure/discriminative.py": ("classifiers/test_discriminative_tree.py",),
    "structure/generative.py": ("stats/test_alpha_selection.py",),
    "structure/scorer.py": ("structure/test_candidate_batches.py",),
    "structure/search_state.py": ("structure/test_candidate_batches.py",),
    "sufficient_statistics.py": ("stats/test_sufficient_statistics.py",),
    "transformers/mdl.py": ("transformers/test_discretizer.py",),
}


#: The public name through which those tests exercise a module that they do not name
#: (the estimator a private base serves, the method a mixin provides).
VIA: dict[str, str] = {
    "classifiers/_base.py": "NaiveBayesClassifier",
    "classifiers/_incremental.py": "partial_fit",
    "classifiers/_kernel_density.py": "ForestDensityClassifier",
    "classifiers/_prediction.py": "predict_proba",
    "engines/dask_boosting.py": "BoostedGraphicalModelClassifier",
    "io/model_checks.py": "load_json",
    "kernels/information.py": "mutual_information",
    "kernels/spanning.py": "spanning",
    "learners/averaged_dependence.py": "aode",
    "learners/ensemble.py": "kdb-ensemble",
    "learners/discriminative_tree.py": "discriminative-tree",
    "learners/generative.py": "naive-bayes",
    "models/boosted_ensemble.py": "ensembles_",
}


def _modules() -> list[str]:
    return sorted(
        str(path.relative_to(SRC)) for path in SRC.rglob("*.py") if not path.name.startswith("__")
    )


def _mirror(module: str) -> Path:
    path = Path(module)
    return TESTS / path.parent / f"test_{path.stem.lstrip('_')}.py"


def _public_names(module: str) -> set[str]:
    """The names a test of the module would use: its dotted path, and its public
    top-level functions and classes (what its ``__all__`` lists, when it has one)."""
    tree = ast.parse((SRC / module).read_text())
    names = {
        node.name
        for node in tree.body
        if isinstance(node, ast.FunctionDef | ast.ClassDef) and not node.name.startswith("_")
    }
    for node in tree.body:
        if (
            isinstance(node, ast.Assign)
            and isinstance(node.value, ast.List | ast.Tuple)
            and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets)
        ):
            names |= {e.value for e in node.value.elts if isinstance(e, ast.Constant)}
    dotted = "discotree." + module.removesuffix(".py").replace("/", ".")
    return names | {dotted} | ({VIA[module]} if module in VIA else set())


def _mentions(test: Path, names: set[str]) -> bool:
    text = test.read_text()
    return any(re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text) for name in names)


def test_every_module_has_its_test_module_or_a_named_one():
    untested = [m for m in _modules() if not _mirror(m).exists() and m not in TESTED_IN]
    assert not untested, f"give these a test module (or a TESTED_IN entry): {untested}"


def test_the_map_of_tests_under_other_names_is_true():
    stale = [m for m in TESTED_IN if not (SRC / m).exists() or _mirror(m).exists()]
    stale += [m for m in VIA if m not in TESTED_IN]
    assert not stale, f"remove from TESTED_IN (gone, or now mirrored): {stale}"
    for module, tests in TESTED_IN.items():
        names = _public_names(module)
        for test in tests:
            path = TESTS / test
            assert path.exists(), f"{module}: {test} does not exist"
            assert _mentions(path, names), f"{test} does not mention {module}"


def test_the_checker_sees_a_module_without_tests(tmp_path, monkeypatch):
    package = tmp_path / "discotree"
    package.mkdir()
    (package / "lonely.py").write_text("def alone():\n    return 1\n")
    monkeypatch.setattr(__import__(__name__, fromlist=["SRC"]), "SRC", package)
    assert _modules() == ["lonely.py"]
    assert not _mirror("lonely.py").exists() and "lonely.py" not in TESTED_IN
    assert _public_names("lonely.py") == {"alone", "discotree.lonely"}
