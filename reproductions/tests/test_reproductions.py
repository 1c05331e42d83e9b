"""Small runs of the reproductions' building blocks."""

import itertools
import json

import numpy as np
import pandas as pd
import pytest

from discotree_reproductions.catalog import EXPERIMENTS
from discotree_reproductions.sanghavi import TRAIN_SIZES, _folds, _load
from discotree_reproductions.tan import run_gaussian_example


def test_gaussian_example_claims_on_a_small_instance(tmp_path):
    summary = run_gaussian_example(tmp_path, n_features=8, n_test=2000)
    assert summary["dt_j_monotone"]
    assert summary["cl_same_structure_every_k"]
    assert summary["dt_edges_all_in_discriminative_block"]
    assert all(abs(r["cl_j"]) < 1e-9 for r in summary["rows"])
    assert summary["rows"][-1]["dt_error"] < 0.5
    for name in ("results.md", "results.json", "j_divergence_and_error.png", "structures.png"):
        assert (tmp_path / name).is_file()
    import json

    provenance = json.loads((tmp_path / "results.json").read_text())["provenance"]
    assert provenance["packages"]["numpy"] == np.__version__
    assert provenance["commit"] and provenance["machine"]["cores"] >= 1


def test_random_tree_folds_are_nested_and_share_one_test_set():
    _X, y = _load(20, 0, "paper")
    k_max = max(TRAIN_SIZES)
    assert len(y) == 2 * k_max + 1000
    folds = _folds(np.asarray(y))
    assert [f.train_size for f in folds] == list(TRAIN_SIZES)
    for small, large in itertools.pairwise(folds):
        assert set(small.train) < set(large.train)
        assert (small.test == large.test).all()
    assert not set(folds[-1].train) & set(folds[-1].test)
    assert np.bincount(np.asarray(y)[folds[0].train]).tolist() == [TRAIN_SIZES[0]] * 2


def test_random_trees_report_has_both_figures_and_the_claims(tmp_path):
    """Two small datasets (one per generator) through the whole experiment: the
    training error of Fig. 2 is recorded, the report states the altmax claims."""
    import dataclasses

    from discotree_reproductions.harness.runner import run_experiment
    from discotree_reproductions.sanghavi import random_trees_experiment

    experiment = random_trees_experiment()
    small = [d for d in experiment.datasets if d.name in ("paper-n20-rep00", "narrow-n20-rep00")]
    experiment = dataclasses.replace(experiment, datasets=small)
    records = run_experiment(experiment, tmp_path, progress=False)
    assert len(records) == 2 * len(TRAIN_SIZES) * len(experiment.models)
    assert all(0 <= r["train_balanced_error"] <= 1 for r in records)
    report = (tmp_path / "results.md").read_text()
    assert "Fig. 2: training error" in report and "generator `narrow`" in report
    assert "LGMHT-altmax is better than LGMHT-proj on the training samples" in report
    for name in ("error_vs_k.png", "training_error_vs_k.png"):
        assert (tmp_path / name).stat().st_size > 0


def test_every_reproduction_is_registered_with_a_description():
    assert {
        "pernkopf-uci",
        "tan-gaussian-example",
        "sanghavi-random-trees",
        "tan-digits-trees",
        "tan-boosting-curves",
        "tan-grid",
        "tan-bgmc",
    } <= set(EXPERIMENTS)
    assert all(factory.__doc__ for factory in EXPERIMENTS.values())


def test_dorn_synthetic_folds_are_nested_and_keep_the_balance():
    from discotree_reproductions.dorn import (
        SYNTHETIC_N_TEST,
        SYNTHETIC_TRAIN_SIZES,
        _synthetic_cells,
        _synthetic_folds,
        _synthetic_load,
    )

    cells = _synthetic_cells()
    index = next(i for i, c in enumerate(cells) if c["balance"] == "unbalanced")
    X, y = _synthetic_load(index, 0)
    y = np.asarray(y)
    assert len(X) == max(SYNTHETIC_TRAIN_SIZES) + SYNTHETIC_N_TEST
    folds = _synthetic_folds(y, "unbalanced")
    for small, large in itertools.pairwise(folds):
        assert set(small.train) < set(large.train)
    for fold, n in zip(folds, SYNTHETIC_TRAIN_SIZES, strict=True):
        assert len(fold.train) == n
        assert y[fold.train].mean() == pytest.approx(0.25)
        assert y[fold.test].mean() == pytest.approx(0.5)
        assert not set(fold.train) & set(fold.test)


def test_new_reproductions_are_registered():
    assert {"dorn-uci", "dorn-synthetic", "pernkopf-runtime"} <= set(EXPERIMENTS)


def test_narasimhan_example_reproduces_table_2_exactly(tmp_path):
    from discotree_reproductions.narasimhan import run_example

    rows = {r["model"]: r for r in run_example(tmp_path)["rows"]}
    assert rows["complete model (Bayes)"]["error"] == pytest.approx(0.375)
    assert rows["Chow-Liu, I(X;Y)"]["error"] == pytest.approx(0.4375)
    ear = rows["EAR tree (Algorithm 3, the text's sign)"]
    assert ear["error"] == pytest.approx(0.40625)
    assert sorted(map(tuple, ear["edges"])) == [(0, 2), (1, 2)]
    assert (tmp_path / "results.md").exists()


def test_narasimhan_gaussian_run_orders_the_classifiers():
    from discotree_reproductions.narasimhan import _one_run

    records = [_one_run(7, run) for run in range(4)]

    def mean(key):
        return np.mean([r[key] for r in records])

    assert mean("complete") < mean("discriminative") < mean("generative") < mean("naive_bayes")
    assert all(abs(r["naive_bayes"] - 0.5) < 0.07 for r in records)  # same means, variances
    assert "narasimhan-gaussian" in EXPERIMENTS and "narasimhan-example" in EXPERIMENTS


def test_feature_selection_report_counts_from_the_records():
    from discotree_reproductions.feature_selection import _report, band_cost

    assert band_cost()(list(range(36))) == pytest.approx(4.72)
    assert band_cost()([0, 4, 8]) == pytest.approx(1.06)  # one band, three pixels

    def record(cost, k, features, seconds):
        return {
            "cost": cost,
            "k": k,
            "features": features,
            "bands": sorted({f % 4 for f in features}),
            "band_cost": band_cost()(features),
            "information": 1.0,
            "tan": 0.8,
            "nb": 0.7,
            "seconds": seconds,
        }

    summary = {
        "records": [
            record("bands", 0.1, [0, 4, 8], 2.0),
            record("bands", 0.2, [0, 1], 9.0),
            record("per-feature", 0.1, [0, 1, 2], 1.0),
            record("per-feature", 0.2, [0, 1], 1.0),
        ],
        "reference": {
            "all": {"tan": 0.9, "nb": 0.8, "band_cost": 4.72},
            "band 0": {"tan": 0.5, "nb": 0.4, "band_cost": 1.18},
            "band 1": {"tan": 0.6, "nb": 0.4, "band_cost": 1.18},
        },
        "information_all_features": 1.5,
        "class_entropy": 1.6,
    }
    text = _report(summary)
    assert "fewer bands than with a per-feature cost of the same total in 1 of 2" in text
    assert "best single band for TAN is band 1 (0.600)" in text
    assert "the slowest: bands costs at k = 0.2" in text


def test_block_means_resample_images_row_major():
    from discotree_reproductions.pernkopf_images import IMAGE_MODELS, block_means

    image = np.arange(16, dtype=float).reshape(1, 16)  # one 4 x 4 image
    # blocks (0, 1, 4, 5), (2, 3, 6, 7), (8, 9, 12, 13), (10, 11, 14, 15)
    np.testing.assert_allclose(block_means(image, 4), [[2.5, 4.5, 10.5, 12.5]])
    assert "pernkopf-images" in EXPERIMENTS and "tan-cr-cl" in IMAGE_MODELS


def test_orderings_report_counts_the_sets_where_omi_wins():
    from discotree_reproductions.pernkopf_orderings import _report

    sets = [
        {"set": "A", "omi": -0.1, "mmi": -0.3, "random": [-0.2, -0.25], "seconds": 1.0},
        {"set": "B", "omi": -0.3, "mmi": -0.2, "random": [-0.4, -0.35], "seconds": 1.0},
        {"set": "C", "omi": -0.3, "mmi": -0.4, "random": [-0.2, -0.1], "seconds": 1.0},
    ]
    text = _report({"n_random": 2, "sets": sets})
    assert "on 1 of the 3 UCI sets (above minimum MI on 2, above the random mean on 2)" in text
    assert "| A | -0.1000 | -0.3000 | -0.2250 ± 0.0354 | -0.2000 | yes |" in text


def test_training_cll_of_an_ordering_is_a_mean_log_posterior():
    from discotree_reproductions.pernkopf_orderings import _training_cll

    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.integers(0, 3, size=(120, 4)))
    y = pd.Series((X[0] + rng.integers(0, 2, 120)) % 3)
    values = [_training_cll(s, X, y) for s in ("omi-cr", "mmi-cr", "ro-cr")]
    assert all(-np.log(3) - 1 < v <= 0 for v in values)


def test_images_report_marks_models_not_run_and_checks_the_claim(tmp_path):
    from discotree_reproductions.pernkopf_images import _report, images_experiment

    experiment = images_experiment()

    def record(dataset, model, accuracy):
        return {
            "dataset": dataset,
            "model": model,
            "fold": "split",
            "accuracy": accuracy,
            "n_test": 2000,
            "fit_seconds": 1.0,
        }

    records = [
        record("USPS", "nb-ml", 0.80),
        record("USPS", "tan-cmi-ml", 0.90),
        record("USPS", "tan-omi-cr-ml", 0.92),
    ]
    _report(records, tmp_path, experiment)
    text = (tmp_path / "results.md").read_text()
    assert "| tan-cr-ml | not run | 92.57 ± 0.48 |" in text
    assert "USPS: 3 classifiers run; ours minus the paper's" in text
    assert 'USPS: the paper\'s "OMI-CR outperforms NB and TAN-CMI" (ML parameters): holds' in text
    # paper: tan-omi-cr-ml 92.40 > tan-cmi-ml 91.90 > nb-ml 87.10, the same order
    assert "USPS: best here tan-omi-cr-ml (92.00), the paper's best of the same 3" in text
    assert "Spearman rank correlation of the rates with the paper's +1.00" in text
    assert "CL parameters above ML on 0 of 0 structures" in text


def test_images_agreement_compares_the_order_and_cl_against_ml():
    from discotree_reproductions.pernkopf_images import _agreement

    rates = {"nb-ml": 0.90, "nb-cl": 0.85, "tan-cmi-ml": 0.91, "tan-cmi-cl": 0.95}
    frame = pd.DataFrame(
        [{"dataset": "MNIST", "model": m, "accuracy": a} for m, a in rates.items()]
    )
    (line,) = _agreement(frame, ["MNIST", "USPS"])  # nothing run on USPS
    # paper, MNIST: nb-ml 83.73 < tan-cmi-ml 91.28 < nb-cl 91.70 < tan-cmi-cl 93.80
    assert line.startswith("- MNIST: best here tan-cmi-cl (95.00), the paper's best")
    assert "tan-cmi-cl (93.80)" in line
    assert "CL parameters above ML on 1 of 2 structures (paper: 2 of 2)" in line
    ranks_ours, ranks_paper = [1, 2, 4, 3], [3, 1, 4, 2]  # nb-cl, nb-ml, tan-cmi-cl, -ml
    d2 = sum((a - b) ** 2 for a, b in zip(ranks_ours, ranks_paper, strict=True))
    assert f"paper's {1 - 6 * d2 / (4 * 15):+.2f}" in line


def test_images_report_takes_mnist_tan_cr_from_the_runtime_run(tmp_path):
    """TAN-CR-ML on MNIST (an hour) is fitted by pernkopf-runtime with the same
    classifier, data and split: the images report reads it from that run's results,
    marked, unless its own run has it."""
    from discotree_reproductions.pernkopf_images import _report, images_experiment

    base = {"fold": "split", "n_test": 10000, "fit_seconds": 3000.0}
    runtime = tmp_path / "pernkopf-runtime"
    runtime.mkdir()
    folds = [
        {**base, "dataset": "mnist-14x14", "model": "tan-cr-ml", "accuracy": 0.9388},
        {**base, "dataset": "mnist-14x14", "model": "tan-cmi-ml", "accuracy": 0.5},
        {**base, "dataset": "optdigits", "model": "tan-cr-ml", "accuracy": 0.5},
    ]
    (runtime / "results.json").write_text(json.dumps({"folds": folds}))
    out = tmp_path / "pernkopf-images"
    out.mkdir()
    own = [{**base, "dataset": "MNIST", "model": "tan-cmi-ml", "accuracy": 0.9247}]
    _report(own, out, images_experiment())
    text = (out / "results.md").read_text()
    borrowed = "| tan-cr-ml | not run | 92.57 ± 0.48 |  | 93.88 ± 0.24 † | 92.58 ± 0.26 | 3000 |"
    assert borrowed in text
    assert "| tan-cmi-ml | not run | 91.90 ± 0.50 |  | 92.47 ± 0.26 |" in text  # its own
    assert "† Fitted by another reproduction" in text and "tan-cr-ml on MNIST" in text
    saved = json.loads((out / "results.json").read_text())["folds"]
    assert [r.get("source") for r in saved] == [None, "pernkopf-runtime"]
    again = [*own, {**base, "dataset": "MNIST", "model": "tan-cr-ml", "accuracy": 0.9}]
    _report(again, out, images_experiment())  # its own run has it: nothing borrowed
    assert "†" not in (out / "results.md").read_text()


def test_two_tree_cv_report_compares_plain_and_regularised_from_the_records(tmp_path):
    from discotree_reproductions.pernkopf_2tree_cv import TWO_TREE_MODELS, two_tree_cv_experiment

    experiment = two_tree_cv_experiment()
    assert "pernkopf-2tree-cv" in EXPERIMENTS
    records = []
    for dataset, plain_rate, regular_rate in (("australian", 0.80, 0.84), ("breast", 0.96, 0.95)):
        for plain, regular in TWO_TREE_MODELS:
            for model, rate in ((plain, plain_rate), (regular, regular_rate)):
                for fold in range(2):
                    record = {"dataset": dataset, "model": model, "fold": fold}
                    records.append({**record, "accuracy": rate, "n_test": 100, "fit_seconds": 0.1})
    experiment.report(records, tmp_path, experiment)
    report = (tmp_path / "results.md").read_text()
    plain_average = (690 * 80 + 683 * 96) / (690 + 683)  # the paper's test sizes
    regular_average = (690 * 84 + 683 * 95) / (690 + 683)
    assert f"| AUSTRALIAN | {'80.00 / 84.00 | ' * 5}80.00 / 84.00 |" in report
    assert f"{plain_average:.2f} plain, {regular_average:.2f} regularised" in report
    assert "better on 1 sets, worse on 1" in report
    assert json.loads((tmp_path / "results.json").read_text())["provenance"]


def test_uci_report_leaves_out_a_classifier_still_being_run():
    from discotree_reproductions.pernkopf import complete_models

    records = [
        {"dataset": d, "model": m, "fold": f}
        for d in ("a", "b", "c")
        for m in ("nb-ml", "tan-cr-ml")
        for f in range(5)
    ]
    records += [{"dataset": "a", "model": "slow", "fold": f} for f in range(5)]
    records += [{"dataset": "b", "model": "slow", "fold": f} for f in range(3)]  # cut short
    complete, notes = complete_models(records, ["nb-ml", "slow", "tan-cr-ml"])
    assert complete == ["nb-ml", "tan-cr-ml"]
    assert notes == ["- slow: complete on 1 of 3 data sets so far; not in the tables."]
    assert complete_models(records[:30], ["nb-ml", "tan-cr-ml"]) == (["nb-ml", "tan-cr-ml"], [])


def test_uci_report_compares_cl_during_the_search_with_the_paper():
    from discotree_reproductions.pernkopf import _explanation

    ours = {"tan-omi-cr-ml": 85.0, "tan-omi-crcl-ml": 84.0, "tan-omi-cr-cl": 86.0}
    lines = _explanation({**ours, "tan-omi-crcl-cl": 86.5}, list(ours), {})
    text = "\n".join(lines)
    assert (
        "TAN-OMI-CRCL-ML against TAN-OMI-CR-ML): -1.00 points here, +0.05 in the paper "
        "(the opposite sign)" in text
    )
    assert (
        "TAN-OMI-CRCL-CL against TAN-OMI-CR-CL): +0.50 points here, -0.04 in the "
        "paper (the opposite sign)" in text
    )
    assert "CRCL-ML" not in "\n".join(_explanation({"tan-omi-cr-ml": 85.0}, [], {}))


def test_images_report_sets_the_regularised_2trees_beside_the_plain_ones(tmp_path):
    from discotree_reproductions.pernkopf_images import _report, images_experiment

    experiment = images_experiment()
    assert "2tree-omi-cr-cv-ml" in experiment.models
    base = {"fold": "split", "n_test": 2007, "fit_seconds": 1.0, "dataset": "USPS"}
    records = [
        {**base, "model": "2tree-omi-cr-ml", "accuracy": 0.88},
        {**base, "model": "2tree-omi-cr-cv-ml", "accuracy": 0.90},
        {**base, "model": "2tree-superparent-ml", "accuracy": 0.85},
        {**base, "model": "2tree-superparent-cv-ml", "accuracy": 0.86}
        | {"structure_steps": 3, "search_steps": 7},
    ]
    _report(records, tmp_path, experiment)
    text = (tmp_path / "results.md").read_text()
    # the paper's 2-tree-OMI-CR-ML on USPS is 94.03: beside both rows
    assert "| 2tree-omi-cr-cv-ml | 90.00 ± 0.67 | 94.03 ± 0.41 | 1 |" in text
    assert "| 2tree-superparent-cv-cl | not run | 94.13 ± 0.43 |" in text
    assert "USPS: 2 classifiers run" in text  # the regularised rows are not counted twice
    assert (
        "- USPS: 2tree-omi-cr-ml regularised by 5-fold CV (Section 6.5.2): 90.00 against "
        "88.00 plain (+2.00), the paper's 94.03 (-4.03); the steps kept not recorded "
        "(fitted before the runner stored them)." in text
    )
    assert (
        "- USPS: 2tree-superparent-ml regularised by 5-fold CV (Section 6.5.2): 86.00 "
        "against 85.00 plain (+1.00), the paper's 90.67 (-4.67); CV kept 3 of the "
        "search's 7 steps." in text
    )


def test_table2_comparison_states_each_disagreement_from_the_numbers():
    from discotree_reproductions.pernkopf import table2_comparison

    rng = np.random.default_rng(0)
    base = rng.uniform(70, 90, 25)
    per_model = {
        "tan-cmi-ml": list(base),
        "tan-cr-ml": list(base + 1 + rng.normal(0, 0.3, 25)),  # clearly better: agrees
        "tan-omi-cr-ml": list(base + rng.normal(0, 1, 25)),  # no real difference
        "tan-omi-crcl-ml": list(base - 1 + rng.normal(0, 0.3, 25)),  # reversed
    }
    text = "\n".join(table2_comparison(per_model))
    assert "| tan-cr-ml > tan-cmi-ml | 0.0141 |" in text
    assert "tan-omi-crcl-ml over tan-cmi-ml" in text and "reversed here" in text
    assert "tan-cr-ml over tan-cmi-ml" not in text  # an agreement is not listed


def test_parkinsons_subject_blocks_and_grouped_folds():
    from discotree_reproductions.dorn import grouped_cross_validation, subject_blocks

    y = np.array([1] * 14 + [0] * 6 + [1] * 7)
    groups = subject_blocks(y)
    assert groups.tolist() == [0] * 6 + [1] * 6 + [2] * 2 + [3] * 6 + [4] * 6 + [5]
    y = np.array(([1] * 6 + [0] * 6) * 6 + [1] * 18)
    groups = subject_blocks(y)
    folds = list(grouped_cross_validation(y, n_splits=5, n_repeats=2, seed=0))
    assert len(folds) == 10
    for fold in folds:
        assert not set(groups[fold.train]) & set(groups[fold.test])
        assert len(set(y[fold.test])) == 2  # stratified over the groups
    covered = np.sort(np.concatenate([f.test for f in folds[:5]]))
    assert covered.tolist() == list(range(len(y)))
