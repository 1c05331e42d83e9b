"""Plots of learned structures."""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["plot_forest_pair"]


def plot_forest_pair(estimator: Any, image_shape: tuple[int, int] | None = None, axes: Any = None):
    """Draw the forests of a fitted tree classifier, one panel per class.

    Parameters
    ----------
    estimator : fitted classifier with ``edges_`` and ``classes_``
        e.g. :class:`discotree.DiscriminativeTreeClassifier` or
        :class:`discotree.ChowLiuClassifier`.
    image_shape : (rows, cols), optional
        For image data (features are pixels in row-major order): each edge is drawn as
        a segment between its two pixels (a pixel-pair map, as Fig. 3 of
        000_73c31e535057fe50.txt shows structures). Otherwise each forest is drawn as
        its adjacency matrix.
    axes : sequence of matplotlib Axes, optional
        One per class; created when omitted.

    Returns
    -------
    matplotlib.figure.Figure
    """
    import matplotlib.pyplot as plt
    from matplotlib.collections import LineCollection

    edges = estimator.edges_
    n_features = int(estimator.n_features_in_)
    if axes is None:
        _, axes = plt.subplots(1, len(edges), figsize=(3.2 * len(edges), 3.2))
    axes = np.atleast_1d(axes)
    for ax, class_edges, label in zip(axes, edges, estimator.classes_, strict=True):
        if image_shape is not None:
            rows, cols = image_shape
            if rows * cols != n_features:
                raise ValueError(
                    f"image_shape {image_shape} has {rows * cols} pixels, the model has "
                    f"{n_features} features"
                )
            segments = [[(i % cols, i // cols), (j % cols, j // cols)] for i, j in class_edges]
            ax.add_collection(LineCollection(segments, linewidths=0.8))
            ax.set_xlim(-0.5, cols - 0.5)
            ax.set_ylim(rows - 0.5, -0.5)
            ax.set_aspect("equal")
        else:
            adjacency = np.zeros((n_features, n_features))
            for i, j in class_edges:
                adjacency[i, j] = adjacency[j, i] = 1
            ax.imshow(adjacency, cmap="Greys", interpolation="nearest")
        ax.set_title(f"class {label}: {len(class_edges)} edges")
    return axes[0].figure
