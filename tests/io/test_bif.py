"""Exported networks give pyAgrum's exact inference the posteriors discotree computes."""

import numpy as np
import pandas as pd
import pyagrum as gum
import pytest
from numpy.testing import assert_allclose

from discotree import (
    ChowLiuClassifier,
    DiscriminativeTreeClassifier,
    KDBClassifier,
    NaiveBayesClassifier,
    TANClassifier,
)
from discotree.io import evidence_of, read_bif, read_bif_network, write_bif, write_xmlbif
from discotree.models.networks import checked_conditional
from discotree.validation import check_table

FEATURES = ["colour", "count", "height", "mood"]


def _data(seed=0, n=500):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(
        {
            "colour": rng.choice(["red", "deep blue", "green"], n),  # a space: BIF renames
            "count": rng.integers(0, 3, n),
            "height": rng.normal(size=n),  # binned: states are intervals
            "mood": rng.choice(["up", "down"], n),
        }
    )
    chain = (X["count"] + (X["colour"] == "red")) % 3
    X.loc[rng.random(n) < 0.5, "count"] = chain  # structure differs between classes
    y = np.where((X["colour"] == "red") ^ (X["height"] > 0.3) ^ (rng.random(n) < 0.2), "yes", "no")
    X.loc[rng.random(n) < 0.05, "mood"] = None
    return X, y


def _evidence(estimator, X, hide):
    """Per row: {feature: state index} for the observed features, some hidden."""
    codes = estimator.encoder_.transform(check_table(X, "test"))
    rows = []
    for r in range(len(X)):
        rows.append(
            {
                f: int(codes[r, j])
                for j, f in enumerate(FEATURES)
                if codes[r, j] >= 0 and not hide[r, j]
            }
        )
    return rows


def _pyagrum_posteriors(paths, evidence, classes):
    networks = [gum.loadBN(str(p)) for p in paths]
    out = []
    for ev in evidence:
        if len(networks) == 1:  # one class-rooted network
            inference = gum.LazyPropagation(networks[0])
            inference.setEvidence(ev)
            inference.makeInference()
            out.append(inference.posterior("class").toarray())
            continue
        prior = networks[-1].cpt("class").toarray()  # per-class networks and the prior
        likelihood = []
        for bn in networks[:-1]:
            inference = gum.LazyPropagation(bn)
            inference.setEvidence(ev)
            inference.makeInference()
            likelihood.append(inference.evidenceProbability())
        joint = prior * np.array(likelihood)
        out.append(joint / joint.sum())
    return np.array(out)


ESTIMATORS = [
    NaiveBayesClassifier(alpha=1.0),
    NaiveBayesClassifier(),
    TANClassifier(alpha=0.5),
    TANClassifier(k=2, alpha=1.0),
    TANClassifier(parameters="cl", cl_max_iter=10),  # CL tables are conditionals too
    ChowLiuClassifier(),
    DiscriminativeTreeClassifier(alpha=1.0),
    TANClassifier(smoothing="hdp"),  # the sampler's tables, exported as any others
    ChowLiuClassifier(smoothing="hdp"),
]


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=repr)
@pytest.mark.parametrize("writer, suffix, tolerance", [
    (write_xmlbif, ".bifxml", 1e-9),
    # pyAgrum's BIF parser reads probabilities as float32 (measured: 0.5390070921985816
    # becomes 0.53900707); the XMLBIF one reads them exactly
    (write_bif, ".bif", 1e-6),
])  # fmt: skip
def test_pyagrum_exact_inference_gives_discotree_posteriors(
    estimator, writer, suffix, tolerance, tmp_path
):
    X, y = _data()
    model = estimator.fit(X, y)
    paths = writer(model, tmp_path / f"model{suffix}")
    per_class = isinstance(model, ChowLiuClassifier | DiscriminativeTreeClassifier)
    assert len(paths) == (3 if per_class else 1)
    test = X.iloc[:60].reset_index(drop=True)
    hide = np.random.default_rng(1).random((60, 4)) < 0.25  # missing at test time
    masked = test.copy()
    for j, f in enumerate(FEATURES):
        masked.loc[hide[:, j], f] = None if test[f].dtype == object else np.nan
    theirs = _pyagrum_posteriors(paths, _evidence(model, test, hide), model.classes_)
    assert_allclose(theirs, model.predict_proba(masked), rtol=0, atol=tolerance)


@pytest.mark.parametrize(
    "estimator",
    [
        KDBClassifier(k=3, selective=False),
        KDBClassifier(k=2, smoothing="hierarchical"),  # selected: some features unused
        KDBClassifier(k=2, smoothing="hdp"),
    ],
    ids=repr,
)
def test_pyagrum_gives_kdb_posteriors_with_hidden_features(estimator, tmp_path):
    """kDB is a Bayesian network: pyAgrum's exact inference on its export gives the
    posteriors discotree computes, features hidden at test time included (summed out
    by variable elimination on both sides)."""
    X, y = _data()
    model = estimator.fit(X, y)
    paths = write_xmlbif(model, tmp_path / "kdb.bifxml")
    test = X.iloc[:60].reset_index(drop=True)
    hide = np.random.default_rng(1).random((60, 4)) < 0.3
    masked = test.copy()
    for j, f in enumerate(FEATURES):
        masked.loc[hide[:, j], f] = None if test[f].dtype == object else np.nan
    theirs = _pyagrum_posteriors(paths, _evidence(model, test, hide), model.classes_)
    assert_allclose(theirs, model.predict_proba(masked), rtol=0, atol=1e-9)


@pytest.mark.parametrize(
    "estimator", [TANClassifier(alpha=1.0), ChowLiuClassifier(alpha=1.0)], ids=repr
)
def test_evidence_of_rows_gives_pyagrum_the_posteriors(estimator, tmp_path):
    """The public row-to-evidence helper: state names by variable name, missing values
    and unseen categories left out, so pyAgrum sums them out as discotree does."""
    X, y = _data()
    model = estimator.fit(X, y)
    test = X.iloc[:40].reset_index(drop=True)
    test.loc[::3, "height"] = np.nan
    test.loc[1::5, "colour"] = "violet"  # unseen at fit time: missing
    evidence = evidence_of(model, test)
    assert "height" not in evidence[0] and "colour" not in evidence[1]
    assert evidence[2]["colour"] == test.loc[2, "colour"]
    paths = write_xmlbif(model, tmp_path / "m.bifxml")
    bn = gum.loadBN(str(paths[0]))  # every state named is one of the variable's labels
    for name, state in evidence[2].items():
        assert state in list(bn.variable(name).labels())
    theirs = _pyagrum_posteriors(paths, evidence, model.classes_)
    assert_allclose(theirs, model.predict_proba(test), rtol=0, atol=1e-9)


def test_states_are_categories_and_intervals(tmp_path):
    X, y = _data()
    model = TANClassifier(alpha=1.0).fit(X, y)
    path = write_xmlbif(model, tmp_path / "m.bifxml")[0]
    bn = gum.loadBN(str(path))
    assert list(bn.variable("colour").labels()) == ["deep blue", "green", "red"]
    assert list(bn.variable("count").labels()) == ["0", "1", "2"]
    edges = model.encoder_.discretizer_.bin_edges_[0]
    heights = list(bn.variable("height").labels())
    assert heights[0] == f"(-inf, {float(edges[0])!r}]" and heights[-1].endswith(", inf)")
    assert list(bn.variable("class").labels()) == ["no", "yes"]


def test_read_bif_gives_back_the_model(tmp_path):
    X, y = _data()
    for model in (TANClassifier(alpha=1.0).fit(X, y), TANClassifier(k=2, alpha=1.0).fit(X, y)):
        path = write_bif(model, tmp_path / "m.bif")[0]
        back = read_bif(path)
        codes = model.encoder_.transform(check_table(X, "test"))
        assert_allclose(
            back.joint_log_likelihood(codes), model.predict_joint_log_proba(X), atol=1e-9
        )
        network = read_bif_network(path)
        assert network.variables[0].name == "class"


def test_models_that_are_no_network_are_refused(tmp_path):
    X, y = _data()
    with pytest.raises(ValueError, match="gaussian"):
        write_bif(
            DiscriminativeTreeClassifier(distribution="gaussian").fit(X[["height"]], y),
            tmp_path / "g.bif",
        )
    with pytest.raises(ValueError, match="not a conditional distribution"):
        checked_conditional(np.array([[0.5, 0.6]]), "x", 1e-9)  # tables that are no CPT
    three = np.where(X["count"] == 0, "a", np.where(X["count"] == 1, "b", "c"))
    with pytest.raises(ValueError, match="pairwise"):
        write_bif(DiscriminativeTreeClassifier(alpha=1.0).fit(X, three), tmp_path / "m.bif")


@pytest.mark.parametrize(
    "estimator",
    [NaiveBayesClassifier(alpha=1.0), TANClassifier(alpha=0.5), TANClassifier(k=2, alpha=1.0)],
    ids=repr,
)
def test_pgmpy_variable_elimination_gives_discotree_posteriors(estimator):
    from pgmpy.inference import VariableElimination

    from discotree.io import to_pgmpy

    X, y = _data()
    model = estimator.fit(X, y)
    inference = VariableElimination(to_pgmpy(model))
    states = {v: model.to_networkx().nodes[v]["states"] for v in FEATURES}
    codes = model.encoder_.transform(check_table(X.iloc[:15], "test"))
    for r in range(15):
        evidence = {
            f: states[f][codes[r, j]]
            for j, f in enumerate(FEATURES)
            if codes[r, j] >= 0 and j != r % 4
        }
        masked = X.iloc[[r]].copy()
        masked[FEATURES[r % 4]] = np.nan if FEATURES[r % 4] in ("count", "height") else None
        posterior = inference.query(["class"], evidence=evidence, show_progress=False).values
        assert_allclose(posterior, model.predict_proba(masked)[0], atol=1e-9)


def test_pgmpy_per_class_models_are_one_network_per_class():
    from discotree.io import to_pgmpy

    X, y = _data()
    networks, prior = to_pgmpy(ChowLiuClassifier().fit(X, y))
    assert len(networks) == 2 and prior.sum() == pytest.approx(1.0)
    assert all(set(n.nodes()) == set(FEATURES) for n in networks)


def test_the_old_home_of_the_networks_reexports_them():
    import discotree.io.networks as old
    from discotree.models import networks

    assert old.__all__ == networks.__all__
    assert all(getattr(old, name) is getattr(networks, name) for name in old.__all__)
