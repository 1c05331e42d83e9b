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
