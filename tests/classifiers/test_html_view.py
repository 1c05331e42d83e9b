"""The notebook view of fitted discrete classifiers (issue 32, item 6)."""

import html

import numpy as np
import pandas as pd

from discotree import ChowLiuClassifier, KDBClassifier, TANClassifier
from discotree.classifiers.html_view import MAX_DRAWN_FEATURES, network_svg


def _data(n_features=5, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(
        rng.integers(0, 3, (200, n_features)), columns=[f"f<{j}>" for j in range(n_features)]
    )
    y = (X.iloc[:, 0] + rng.integers(0, 2, 200)) % 2
    return X, y


def test_the_fitted_view_draws_the_network_below_the_parameter_box():
    X, y = _data()
    clf = TANClassifier().fit(X, y)
    view = clf._repr_html_()
    assert view.index("sk-global") < view.index("<svg")  # scikit-learn's box first
    assert 'aria-label="learned network"' in view
    assert "f&lt;0&gt;" in view and "f<0>" not in view.split("<svg", 1)[1]  # escaped
    for a, b in clf.edge_names_[0]:  # every learned edge is drawn, with its names
        assert f"<title>{html.escape(f'{a} - {b}')}</title>" in view
    assert view.count('stroke="#1f4e79"') == len(clf.edges_[0])
    assert "<th" in view and "classes" in view


def test_unfitted_estimators_keep_scikit_learns_box_only():
    view = TANClassifier()._repr_html_()
    assert "<svg" not in view and "sk-global" in view


def test_large_models_are_summarised_and_per_class_structures_said():
    X, y = _data(n_features=MAX_DRAWN_FEATURES + 1)
    view = KDBClassifier(k=1).fit(X, y)._repr_html_()
    assert "<svg" not in view and "not drawn" in view
    X, y = _data()
    view = ChowLiuClassifier().fit(X, y)._repr_html_()
    assert "<svg" in view


def test_network_svg_escapes_and_counts():
    svg = network_svg(["a&b", "c"], [(0, 1)])
    assert "a&amp;b" in svg and svg.count("<circle") == 3  # the class and two features


def test_an_ensembles_view_lists_its_members_and_draws_the_first():
    from discotree import KDBEnsembleClassifier
    from discotree.classifiers.html_view import MAX_DRAWN_MEMBERS

    X, y = _data()
    clf = KDBEnsembleClassifier(n_estimators=MAX_DRAWN_MEMBERS + 1).fit(X, y)
    view = clf._repr_html_()
    assert "attribute edges</th><td>0" not in view  # not the naive-Bayes star of old
    assert f"{MAX_DRAWN_MEMBERS + 1} kDB members" in view
    assert f"linear member weight {clf.linear_weight_:.3g}" in view
    assert f"pair member weight {clf.pair_weight_:.3g}" in view
    names = list(X.columns)
    for m, member in enumerate(clf.model_.members):
        edges = member.edges()
        listed = ", ".join(html.escape(f"{names[p]} → {names[j]}") for p, j in edges) or "—"
        row = (
            f"<tr><td>{m}</td><td>{clf.members_k_[m]}</td><td>{len(member.attributes)}</td>"
            f"<td>{len(edges)}</td><td>{listed}</td></tr>"
        )
        assert row in view
    drawn = [view.count(f'aria-label="member {m}"') for m in range(MAX_DRAWN_MEMBERS + 1)]
    assert drawn == [1] * MAX_DRAWN_MEMBERS + [0]
    assert f"first {MAX_DRAWN_MEMBERS} of {MAX_DRAWN_MEMBERS + 1} members" in view


def test_network_svg_greys_the_features_a_member_does_not_use():
    svg = network_svg(["a", "b", "c"], [(0, 1)], used=[0, 1], label="member 0")
    assert 'aria-label="member 0"' in svg
    assert svg.count('fill="#bbbbbb"') == 1 and svg.count('stroke="#cccccc"') == 2
