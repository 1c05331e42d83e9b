"""Structure plots."""

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pytest
from matplotlib.collections import LineCollection

from discotree import DiscriminativeTreeClassifier
from discotree.plotting import plot_forest_pair


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
