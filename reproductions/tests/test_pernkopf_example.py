"""The three-variable example of Pernkopf & Bilmes 2010, Section 3 (Fig. 3-4)."""

import itertools

import numpy as np
import pandas as pd

from discotree_reproductions import pernkopf_example as example
from discotree_reproductions.catalog import EXPERIMENTS


def test_the_distribution_is_the_papers():
    joint = example.joint_distribution()
    assert joint.sum() == 1.0
    # uniform class and X1; X2 = X1 with probability 0.5 + 0.25
    assert np.allclose(joint.sum(axis=(2, 3)), 0.25)
    assert np.allclose(joint.sum(axis=3)[:, 1, 1] / joint.sum(axis=(2, 3))[:, 1], 0.75)
    # class 0: X3 = X1 w.p. 0.3, = X2 w.p. 0.5, uniform w.p. 0.2; class 1: not X1
    conditional = joint / joint.sum(axis=3, keepdims=True)
    assert np.isclose(conditional[0, 1, 0, 1], 0.3 + 0.1)
    assert np.isclose(conditional[1, 1, 0, 1], 0.1)
    assert np.isclose(conditional[1, 0, 1, 1], 0.3 + 0.5 + 0.1)


def test_samples_follow_the_distribution():
    X, y = example.sample_example(200_000, random_state=1)
    counts = np.zeros((2, 2, 2, 2))
    np.add.at(counts, (y, *(X[c].to_numpy(int) for c in X.columns)), 1)
    assert np.abs(counts / len(y) - example.joint_distribution()).max() < 0.004


def test_bayes_rate_by_enumeration():
    joint = example.joint_distribution()
    best = sum(
        max(joint[c, x1, x2, x3] for c in range(2))
        for x1, x2, x3 in itertools.product(range(2), repeat=3)
    )
    assert np.isclose(example.bayes_rate(), best)
    assert np.isclose(example.bayes_rate(), 0.65)


def test_the_class_is_only_in_the_weaker_dependency():
    """I(X2; X3 | C) > I(X1; X3 | C), yet X1 - X3 is what separates the classes."""
    joint = example.joint_distribution()

    def conditional_information(axes):
        pair = joint.sum(axis=tuple(a for a in (1, 2, 3) if a not in axes))
        pc = pair.sum(axis=(1, 2), keepdims=True)
        pa, pb = pair.sum(axis=2, keepdims=True), pair.sum(axis=1, keepdims=True)
        return float(np.sum(pair * np.log(pair * pc / (pa * pb))))

    assert conditional_information((2, 3)) > conditional_information((1, 3))


def test_a_small_run_reports_the_claims(tmp_path, monkeypatch):
    monkeypatch.setattr(example, "EXAMPLE_SIZES", (50, 1000))
    experiment = example.example_experiment()
    experiment.datasets = experiment.datasets[:3]
    records = []
    for spec in experiment.datasets:
        X, y = spec.load()
        for fold in spec.folds(y):
            for name, factory in experiment.models.items():
                model = factory().fit(X.iloc[fold.train], y[fold.train])
                accuracy = float(np.mean(model.predict(X.iloc[fold.test]) == y[fold.test]))
                records.append(
                    {
                        "dataset": spec.name,
                        "model": name,
                        "fold": fold.key,
                        "train_size": fold.train_size,
                        "accuracy": accuracy,
                    }
                )
    experiment.report(records, tmp_path, experiment)
    text = (tmp_path / "results.md").read_text()
    assert "Bayes rate of the example (exact, from its distribution): 65.00 %" in text
    frame = pd.DataFrame(records).query("train_size == 1000")
    means = frame.groupby("model")["accuracy"].mean()
    # the discriminative structure finds the dependency, the generative one does not
    assert means["tan-omi-cr-ml"] > means["tan-cmi-ml"] + 0.05
    assert abs(means["nb-ml"] - 0.5) < 0.06
    assert (tmp_path / "learning_curves.png").is_file()


def test_the_example_is_registered():
    assert "pernkopf-example" in EXPERIMENTS
