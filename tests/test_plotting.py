"""Structure plots."""

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pytest
from matplotlib.collections import LineCollection

from discotree import DiscriminativeTreeClassifier
from discotree.plotting import plot_forest_pair


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    import matplotlib.pyplot as plt

    plt.close("all")


def test_pixel_pair_maps_draw_one_segment_per_edge(rng):
    X = rng.integers(0, 2, (200, 16))
    y = (X[:, 0] ^ X[:, 5]).astype(int)
    clf = DiscriminativeTreeClassifier().fit(X, y)
    fig = plot_forest_pair(clf, image_shape=(4, 4))
    for ax, edges in zip(fig.axes, clf.edges_, strict=True):
        (lines,) = [c for c in ax.collections if isinstance(c, LineCollection)]
        assert len(lines.get_segments()) == len(edges)
    adjacency = plot_forest_pair(clf)
    image = adjacency.axes[1].images[0].get_array()
    assert int(np.asarray(image).sum()) == 2 * len(clf.edges_[1])
    with pytest.raises(ValueError, match="has 9 pixels"):
        plot_forest_pair(clf, image_shape=(3, 3))
    import matplotlib.pyplot as plt

    _, own = plt.subplots(1, 2)
    assert plot_forest_pair(clf, ax=own) is own[0].figure  # drawn where the caller says
    with pytest.raises(ValueError, match="needs 2 axes"):
        plot_forest_pair(clf, ax=own[0])


def _mixed(rng, n=400):
    import pandas as pd

    X = pd.DataFrame(
        {
            "colour": rng.choice(["red", "blue"], n),
            "size": rng.integers(0, 3, n),
            "weight": rng.integers(0, 3, n),
        }
    )
    X["weight"] = np.where(rng.random(n) < 0.7, X["size"], X["weight"])
    y = np.where((X["colour"] == "red") ^ (rng.random(n) < 0.2), "a", "b")
    X.loc[y == "a", "weight"] = rng.integers(0, 3, int((y == "a").sum()))  # differs by class
    return X, y


def test_networkx_graphs_hold_the_learned_structure(rng):
    from discotree import ChowLiuClassifier, NaiveBayesClassifier, TANClassifier

    X, y = _mixed(rng)
    tan = TANClassifier(alpha=1.0).fit(X, y)
    graph = tan.to_networkx()
    assert graph.nodes["class"]["is_class"] and graph.nodes["colour"]["states"] == ["blue", "red"]
    feature_edges = {(u, v) for u, v in graph.edges if u != "class"}
    expected = {(X.columns[p], X.columns[j]) for j, p in enumerate(tan.parents_[0]) if p >= 0}
    assert feature_edges == expected
    for u, v in feature_edges:
        i, j = list(X.columns).index(u), list(X.columns).index(v)
        assert graph.edges[u, v]["weight"]["a"] == pytest.approx(tan.edge_weights_[i, j])
    assert NaiveBayesClassifier(alpha=1.0).fit(X, y).to_networkx().number_of_edges() == 3
    per_class = ChowLiuClassifier().fit(X, y).to_networkx()
    assert "class" not in per_class
    for c, label in enumerate(["a", "b"]):
        mine = {(u, v) for u, v, d in per_class.edges(data=True) if label in d["classes"]}
        parents = ChowLiuClassifier().fit(X, y).parents_[c]
        assert mine == {(X.columns[p], X.columns[j]) for j, p in enumerate(parents) if p >= 0}


def test_plot_network_draws_every_node_and_edge(rng, tmp_path):
    from matplotlib.collections import PathCollection

    from discotree import ChowLiuClassifier, DiscriminativeTreeClassifier, TANClassifier
    from discotree.plotting import plot_network

    X, y = _mixed(rng)
    fig = plot_network(TANClassifier(alpha=1.0).fit(X, y))
    (nodes,) = [c for c in fig.axes[0].collections if isinstance(c, PathCollection)]
    assert len(nodes.get_offsets()) == 4  # three features and the class
    assert "2 edges" in fig.axes[0].get_title()
    fig.savefig(tmp_path / "tan.png")
    assert (tmp_path / "tan.png").stat().st_size > 5000
    cl = ChowLiuClassifier().fit(X, y)
    panels = 1 if (cl.parents_[0] == cl.parents_[1]).all() else 2
    assert len(plot_network(cl).axes) == panels
    assert len(plot_network(DiscriminativeTreeClassifier(alpha=1.0).fit(X, y)).axes) >= 1
    with pytest.raises(ValueError, match="layout"):
        plot_network(cl, layout="tree")


def test_plot_network_edge_widths_follow_the_weights_that_chose_the_edges():
    """A discriminative TAN search draws each edge as wide as the score gain that added
    it (the class's edges at a fixed width)."""
    from sklearn.datasets import load_breast_cancer

    from discotree import TANClassifier
    from discotree.plotting import plot_network

    data = load_breast_cancer(as_frame=True)
    X, y = data.data.iloc[:, :8], data.target
    tan = TANClassifier(structure="cr", alpha=1.0).fit(X, y)
    gains = [tan.edge_weights_[i, j] for i, j in tan.edges_[0]]
    assert gains and min(gains) > 0
    fig = plot_network(tan)
    widths = sorted(patch.get_linewidth() for patch in fig.axes[0].patches)
    expected = sorted([1.0] * X.shape[1] + [0.8 + 4.0 * g / max(gains) for g in gains])
    assert widths == pytest.approx(expected)


@pytest.mark.parametrize("name", ["nb", "tan", "cl", "dt"])
def test_edge_contributions_add_up_to_the_decision_function(rng, name):
    from discotree import (
        ChowLiuClassifier,
        DiscriminativeTreeClassifier,
        NaiveBayesClassifier,
        TANClassifier,
    )
    from discotree.explain import edge_contributions

    estimator = {
        "nb": NaiveBayesClassifier(alpha=1.0),
        "tan": TANClassifier(alpha=1.0),
        "cl": ChowLiuClassifier(),
        "dt": DiscriminativeTreeClassifier(alpha=1.0),
    }[name]
    X, y = _mixed(rng)
    model = estimator.fit(X, y)
    for r in range(5):
        row = X.iloc[[r]].copy()
        if r % 2:
            row["size"] = np.nan  # a missing feature: summed out, reported apart
        terms = edge_contributions(model, row)
        assert sum(terms.values()) == pytest.approx(model.decision_function(row)[0], abs=1e-9)
        assert ("missing (summed out)" in terms) == bool(r % 2)
        assert "size" not in terms or not r % 2
    edges = {k for k in edge_contributions(model, X.iloc[[0]]) if " -- " in k}
    assert (len(edges) == 0) == (name == "nb")


def test_contribution_and_boosting_plots_render(rng, tmp_path):
    from discotree import BoostedGraphicalModelClassifier, TANClassifier
    from discotree.plotting import plot_boosting_curve, plot_edge_contributions

    X, y = _mixed(rng)
    ax = plot_edge_contributions(TANClassifier(alpha=1.0).fit(X, y), X.iloc[[0]], top=2)
    assert len(ax.patches) == 3  # two terms and "others"
    ax.figure.savefig(tmp_path / "contributions.png")
    boosted = BoostedGraphicalModelClassifier(n_estimators=4).fit(X.iloc[:300], y[:300])
    ax = plot_boosting_curve(boosted, X.iloc[:300], y[:300], X.iloc[300:], y[300:])
    assert [line.get_label() for line in ax.get_lines()] == ["train", "test"]
    assert len(ax.get_lines()[0].get_xdata()) == len(boosted.estimator_alphas_[0])
    with pytest.raises(ValueError, match="binary forest classifier"):
        from discotree.explain import edge_contributions

        three = np.where(X["size"] == 0, "a", np.where(X["size"] == 1, "b", "c"))
        edge_contributions(TANClassifier(alpha=1.0).fit(X, three), X.iloc[[0]])


def test_missing_robustness_curves_start_at_the_full_accuracy(rng):
    from discotree import NaiveBayesClassifier, TANClassifier
    from discotree.plotting import plot_missing_robustness

    X, y = _mixed(rng)
    models = {
        "nb": NaiveBayesClassifier(alpha=1.0).fit(X, y),
        "tan": TANClassifier(alpha=1.0).fit(X, y),
    }
    ax = plot_missing_robustness(models, X, y, fractions=(0.0, 0.5, 0.99))
    for line, model in zip(ax.get_lines(), models.values(), strict=True):
        accuracy = line.get_ydata()
        assert accuracy[0] == pytest.approx(np.mean(model.predict(X) == y))
        assert accuracy[2] < accuracy[0]  # almost nothing observed: the prior's accuracy


def test_every_plot_function_renders_to_png_on_the_callers_axes(rng, tmp_path):
    """Each plot function draws on the Axes it is given (``ax=``), returns the Axes or
    Figure, and renders to a non-blank PNG with the Agg backend."""
    import matplotlib.pyplot as plt
    from matplotlib import image

    from discotree import BoostedGraphicalModelClassifier, DiscriminativeTreeClassifier
    from discotree.plotting import (
        plot_boosting_curve,
        plot_edge_contributions,
        plot_forest_pair,
        plot_missing_robustness,
        plot_network,
    )

    X, y = _mixed(rng)
    dt = DiscriminativeTreeClassifier(alpha=1.0).fit(X, y)
    boosted = BoostedGraphicalModelClassifier(n_estimators=3).fit(X, y)
    panels = 1 if set(dt.edges_[0]) == set(dt.edges_[1]) else 2
    calls = {
        "network": (lambda ax: plot_network(dt, ax=ax), panels),
        "forest_pair": (lambda ax: plot_forest_pair(dt, ax=ax), 2),
        "contributions": (lambda ax: plot_edge_contributions(dt, X.iloc[[0]], ax=ax), 1),
        "boosting": (lambda ax: plot_boosting_curve(boosted, X, y, ax=ax), 1),
        "missing": (lambda ax: plot_missing_robustness({"dt": dt}, X, y, ax=ax), 1),
    }
    for name, (draw, n_axes) in calls.items():
        figure, axes = plt.subplots(1, n_axes, figsize=(4 * n_axes, 3))
        result = draw(axes)
        assert result is figure or result is axes, name
        path = tmp_path / f"{name}.png"
        figure.savefig(path)
        pixels = image.imread(path)[..., :3]
        assert (pixels.min(axis=2) < 0.9).mean() > 0.005, f"{name} is blank"
        plt.close(figure)


def test_shapley_waterfall_and_beeswarm_draw_the_values():
    from sklearn.datasets import load_breast_cancer

    from discotree import TANClassifier
    from discotree.explain import shapley_values
    from discotree.plotting import plot_shapley_beeswarm, plot_shapley_waterfall

    X, y = load_breast_cancer(return_X_y=True, as_frame=True)
    X = X.iloc[:, :6]
    explanation = shapley_values(TANClassifier().fit(X, y), X.iloc[:20])
    ax = plot_shapley_waterfall(explanation, row=3, top=4)
    widths = [patch.get_width() for patch in ax.patches]
    values = explanation.values[3, :, -1]
    assert len(widths) == 5  # four features and the rest
    assert np.isclose(sum(widths), values.sum())  # the bars walk base -> output
    assert np.isclose(max(np.abs(widths)), np.abs(values).max())
    ax = plot_shapley_beeswarm(explanation, top=3)
    assert len(ax.collections) == 3
    assert all(len(c.get_offsets()) == 20 for c in ax.collections)


@pytest.fixture(scope="module")
def _forest_classifiers():
    """The binary forest classifiers edge_contributions explains, fitted on named
    columns and on a plain array."""
    from discotree import (
        ChowLiuClassifier,
        DiscriminativeTreeClassifier,
        NaiveBayesClassifier,
        TANClassifier,
    )

    X, y = _mixed(np.random.default_rng(0))
    makers = {
        "nb": lambda: NaiveBayesClassifier(alpha=1.0),
        "tan": lambda: TANClassifier(alpha=1.0),
        "cl": ChowLiuClassifier,
        "dt": lambda: DiscriminativeTreeClassifier(alpha=1.0),
    }
    plain = X.to_numpy(dtype=object)
    named = {name: make().fit(X, y) for name, make in makers.items()}
    unnamed = {name: make().fit(plain, y) for name, make in makers.items()}
    return named, unnamed, X, plain


@pytest.mark.parametrize("name", ["nb", "tan", "cl", "dt"])
@pytest.mark.parametrize("width", ["narrower", "wider"])
@pytest.mark.parametrize("how", ["array", "frame"])
def test_edge_contributions_check_the_columns_as_predict_does(
    _forest_classifiers, name, width, how
):
    """A row narrower or wider than the training data is refused with the message
    predict gives (the expected number of features, or the missing column), not an
    IndexError inside the encoder; so is plot_edge_contributions."""
    from discotree.explain import edge_contributions
    from discotree.plotting import plot_edge_contributions

    named, unnamed, X, plain = _forest_classifiers
    d = X.shape[1]
    if how == "array":
        model = unnamed[name]
        row = plain[:1, : d - 1] if width == "narrower" else np.hstack([plain[:1], plain[:1, :1]])
        match = f"X has {d - 1 if width == 'narrower' else d + 1} features, but .* is expecting {d}"
    else:
        model = named[name]
        row = X.iloc[[0], : d - 1] if width == "narrower" else X.iloc[[0]].assign(extra=1.0)
        match = "feature names should match"
    with pytest.raises(ValueError, match=match):
        model.predict(row)
    for explain in (edge_contributions, plot_edge_contributions):
        with pytest.raises(ValueError, match=match):
            explain(model, row)


def test_plot_network_draws_kdb_and_each_ensemble_members_structure():
    """kDB is one class-rooted panel of its attribute edges; an ensemble is one panel
    per member (the first six), each with that member's edges and its unused
    attributes greyed, and the figure's title says how many members there are."""
    from sklearn.datasets import load_iris

    from discotree import KDBClassifier, KDBEnsembleClassifier
    from discotree.plotting import MAX_MEMBER_PANELS, plot_network

    X, y = load_iris(return_X_y=True)
    kdb = KDBClassifier(k=2, selective=False).fit(X, y)
    figure = plot_network(kdb)
    assert figure.axes[0].get_title() == f"KDBClassifier: {len(kdb.model_.edges())} edges"
    ensemble = KDBEnsembleClassifier(n_estimators=MAX_MEMBER_PANELS + 2).fit(X, y)
    figure = plot_network(ensemble)
    assert len(figure.axes) == MAX_MEMBER_PANELS
    assert f"first {MAX_MEMBER_PANELS} of {MAX_MEMBER_PANELS + 2} members" in (
        figure._suptitle.get_text()
    )
    for m, axis in enumerate(figure.axes):
        member = ensemble.model_.members[m]
        edges = member.edges()
        assert axis.get_title() == (
            f"member {m}: k={ensemble.members_k_[m]}, {len(member.attributes)} attributes, "
            f"{len(edges)} edges"
        )
        # one arrow per spoke from the class to an attribute in use, one per edge
        assert len(axis.patches) == len(member.attributes) + len(edges)
    small = KDBEnsembleClassifier(n_estimators=2).fit(X, y)
    assert plot_network(small)._suptitle.get_text().endswith(": 2 members")
    with pytest.raises(ValueError, match="one per member"):
        plot_network(small, ax=figure.axes[:1])
