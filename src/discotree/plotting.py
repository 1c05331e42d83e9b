"""Plots of learned structures."""

from __future__ import annotations

from typing import Any

import numpy as np

from .numerics import ZERO_TOL, weighted_accuracy, weighted_error_rate

#: The members of an ensemble :func:`plot_network` draws (one panel each).
MAX_MEMBER_PANELS = 6

__all__ = [
    "plot_boosting_curve",
    "plot_edge_contributions",
    "plot_forest_pair",
    "plot_missing_robustness",
    "plot_network",
    "plot_shapley_beeswarm",
    "plot_shapley_waterfall",
]


def plot_forest_pair(estimator: Any, image_shape: tuple[int, int] | None = None, ax: Any = None):
    """Draw the forests of a fitted tree classifier, one panel per class.

    Parameters
    ----------
    estimator : fitted classifier with ``edges_`` and ``classes_``
        e.g. :class:`discotree.DiscriminativeTreeClassifier` or
        :class:`discotree.ChowLiuClassifier`.
    image_shape : (rows, cols), optional
        For image data (features are pixels in row-major order): each edge is drawn as
        a segment between its two pixels (a pixel-pair map, as Tan et al. 2010, Fig. 3 shows
        structures). Otherwise each forest is drawn as
        its adjacency matrix.
    ax : matplotlib Axes or sequence of them, optional
        One per class (a single Axes for a model with one class panel); created when
        omitted.

    Returns
    -------
    matplotlib.figure.Figure
    """
    import matplotlib.pyplot as plt
    from matplotlib.collections import LineCollection

    edges = estimator.edges_
    n_features = int(estimator.n_features_in_)
    if ax is None:
        _, ax = plt.subplots(1, len(edges), figsize=(3.2 * len(edges), 3.2))
    axes = np.atleast_1d(ax)
    if len(axes) != len(edges):
        raise ValueError(f"this model needs {len(edges)} axes (one per class), got {len(axes)}")
    for panel, class_edges, label in zip(axes, edges, estimator.classes_, strict=True):
        if image_shape is not None:
            rows, cols = image_shape
            if rows * cols != n_features:
                raise ValueError(
                    f"image_shape {image_shape} has {rows * cols} pixels, the model has "
                    f"{n_features} features"
                )
            segments = [[(i % cols, i // cols), (j % cols, j // cols)] for i, j in class_edges]
            panel.add_collection(LineCollection(segments, linewidths=0.8))
            panel.set_xlim(-0.5, cols - 0.5)
            panel.set_ylim(rows - 0.5, -0.5)
            panel.set_aspect("equal")
        else:
            adjacency = np.zeros((n_features, n_features))
            for i, j in class_edges:
                adjacency[i, j] = adjacency[j, i] = 1
            panel.imshow(adjacency, cmap="Greys", interpolation="nearest")
        panel.set_title(f"class {label}: {len(class_edges)} edges")
    return axes[0].figure


def plot_network(estimator: Any, ax: Any = None, layout: str = "spring"):
    """Draw a fitted model's network: features by name, edges by the weight that chose
    them.

    Class-rooted models (naive Bayes, TAN, k-trees, kDB) are one panel with the class
    node at the centre; an ensemble of kDB members
    (:class:`~discotree.KDBEnsembleClassifier`) gets one panel per member, the first
    :data:`MAX_MEMBER_PANELS` of them (the figure's title says how many there are), each
    drawing that member's attribute edges and greying the attributes it does not use
    (``layout`` is then circular, the same in every panel); models with one forest
    per class (Chow-Liu, discriminative tree pairs) get one panel per class where the
    structures differ, and one panel when they coincide. Edge widths grow with the
    weight that chose the edge (``edge_weights_``: CMI, MI, the discriminative weight
    of Tan et al. 2010, eq. 21, or the training-score gain of a discriminative TAN
    search). Needs
    matplotlib and networkx only (no graphviz).

    Parameters
    ----------
    estimator : fitted NaiveBayesClassifier, TANClassifier, ChowLiuClassifier,
        DiscriminativeTreeClassifier (binary, discrete), KDBClassifier or
        KDBEnsembleClassifier
    ax : matplotlib Axes or sequence of them, optional
        Where to draw (one per panel); created when omitted.
    layout : {"spring", "circular"}, default="spring"
        Node placement (the spring layout is seeded: the same model, the same picture).

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from sklearn.datasets import load_iris
    >>> from discotree import TANClassifier
    >>> from discotree.plotting import plot_network
    >>> figure = plot_network(TANClassifier(alpha=1.0).fit(*load_iris(return_X_y=True)))
    >>> len(figure.axes)
    1
    """
    import matplotlib.pyplot as plt
    import networkx as nx

    from .models.networks import to_networkx

    if layout not in ("spring", "circular"):
        raise ValueError(f"layout must be 'spring' or 'circular', got {layout!r}")
    members = getattr(getattr(estimator, "model_", None), "members", None)
    if members is not None:  # an ensemble: its members' structures
        return _plot_members(estimator, members, ax)
    graph = to_networkx(estimator)
    class_nodes = [n for n, data in graph.nodes(data=True) if data["is_class"]]
    classes = [str(c) for c in estimator.classes_]
    feature_edges = [(u, v) for u, v in graph.edges if u not in class_nodes]
    by_class = {c: {e for e in feature_edges if c in graph.edges[e]["classes"]} for c in classes}
    same = all(edges == by_class[classes[0]] for edges in by_class.values())
    panels = [None] if class_nodes or same else classes
    if ax is None:
        _, ax = plt.subplots(1, len(panels), figsize=(5.0 * len(panels), 4.5))
    axes = np.atleast_1d(ax)
    if len(axes) != len(panels):
        raise ValueError(f"this model needs {len(panels)} axes (one per class), got {len(axes)}")
    features = [n for n in graph.nodes if n not in class_nodes]
    skeleton = nx.Graph()
    skeleton.add_nodes_from(features)
    skeleton.add_edges_from(feature_edges)
    if layout == "spring":
        position = nx.spring_layout(skeleton, seed=0)
    else:
        position = nx.circular_layout(skeleton)
    for node in class_nodes:
        position[node] = np.zeros(2) if layout == "circular" else np.array([0.0, 1.3])
    for panel, axis in zip(panels, axes, strict=True):
        label = classes[0] if panel is None else panel
        edges = [e for e in graph.edges if panel is None or panel in graph.edges[e]["classes"]]
        weights = [graph.edges[e]["weight"].get(label, 0.0) for e in edges]
        top = max([abs(w) for w in weights] + [ZERO_TOL])
        widths = [
            1.0 if e[0] in class_nodes else 0.8 + 4.0 * abs(w) / top
            for e, w in zip(edges, weights, strict=True)
        ]
        colours = ["0.75" if e[0] in class_nodes else "tab:blue" for e in edges]
        nx.draw_networkx_edges(
            graph, position, edgelist=edges, width=widths, edge_color=colours, ax=axis, arrows=True
        )
        node_colours = ["tab:orange" if n in class_nodes else "white" for n in graph.nodes]
        nx.draw_networkx_nodes(
            graph, position, node_color=node_colours, edgecolors="black", ax=axis, node_size=500
        )
        nx.draw_networkx_labels(graph, position, font_size=8, ax=axis)
        title = type(estimator).__name__ if panel is None else f"class {panel}"
        axis.set_title(f"{title}: {len([e for e in edges if e[0] not in class_nodes])} edges")
        axis.margins(x=0.2, y=0.1)  # room for the labels of the outer nodes
        axis.set_axis_off()
    return axes[0].figure


def _plot_members(estimator: Any, members: list[Any], ax: Any = None):
    """:func:`plot_network` of an ensemble: one panel per member (the first
    :data:`MAX_MEMBER_PANELS`), the class at the centre, the features on a circle."""
    import matplotlib.pyplot as plt
    import networkx as nx

    from .validation import feature_names_of

    names = feature_names_of(estimator)
    class_node = "class"
    while class_node in names:
        class_node += "_"
    shown = members[:MAX_MEMBER_PANELS]
    if ax is None:
        _, ax = plt.subplots(1, len(shown), figsize=(4.0 * len(shown), 4.2))
    axes = np.atleast_1d(ax)
    if len(axes) != len(shown):
        raise ValueError(f"this model needs {len(shown)} axes (one per member), got {len(axes)}")
    skeleton = nx.Graph()
    skeleton.add_nodes_from(names)
    position = nx.circular_layout(skeleton)
    position[class_node] = np.zeros(2)
    ks = getattr(estimator, "members_k_", None)
    for m, (member, axis) in enumerate(zip(shown, axes, strict=True)):
        used = [names[j] for j in member.attributes]
        graph = nx.DiGraph()
        graph.add_nodes_from([class_node, *names])
        spokes = [(class_node, name) for name in used]
        edges = [(names[p], names[j]) for p, j in member.edges()]
        graph.add_edges_from(spokes + edges)
        nx.draw_networkx_edges(
            graph, position, edgelist=spokes, edge_color="0.75", ax=axis, arrows=True
        )
        nx.draw_networkx_edges(
            graph, position, edgelist=edges, width=2.0, edge_color="tab:blue", ax=axis, arrows=True
        )
        colours = [
            "tab:orange" if n == class_node else "white" if n in used else "0.85"
            for n in graph.nodes
        ]
        nx.draw_networkx_nodes(
            graph, position, node_color=colours, edgecolors="black", ax=axis, node_size=400
        )
        nx.draw_networkx_labels(graph, position, font_size=7, ax=axis)
        k = int(ks[m]) if ks is not None else max(map(len, member.parents), default=0)
        axis.set_title(f"member {m}: k={k}, {len(used)} attributes, {len(edges)} edges", fontsize=9)
        axis.margins(x=0.2, y=0.1)
        axis.set_axis_off()
    figure = axes[0].figure
    if len(members) > len(shown):
        figure.suptitle(
            f"{type(estimator).__name__}: the first {len(shown)} of {len(members)} members"
        )
    else:
        figure.suptitle(f"{type(estimator).__name__}: {len(members)} members")
    return figure


def plot_edge_contributions(estimator: Any, x: Any, ax: Any = None, top: int = 15):
    """Bar chart of one sample's log-likelihood ratio, term by term: the class prior,
    each observed feature's node term and each edge's term
    (:func:`discotree.explain.edge_contributions`): the answer to "why this class?".

    Parameters
    ----------
    estimator : fitted binary forest classifier
    x : array-like or DataFrame of shape (1, n_features)
    ax : matplotlib Axes, optional
    top : int, default=15
        The terms of largest magnitude shown; the others are summed into "others".

    Returns
    -------
    matplotlib.axes.Axes
    """
    import matplotlib.pyplot as plt

    from .explain import edge_contributions

    terms = edge_contributions(estimator, x)
    ordered = sorted(terms.items(), key=lambda item: -abs(item[1]))
    shown, rest = ordered[:top], ordered[top:]
    if rest:
        shown.append((f"others ({len(rest)})", sum(v for _, v in rest)))
    if ax is None:
        _, ax = plt.subplots(figsize=(6.0, 0.35 * len(shown) + 1.2))
    labels = [name for name, _ in shown][::-1]
    values = [value for _, value in shown][::-1]
    colours = ["tab:blue" if v > 0 else "tab:red" for v in values]
    ax.barh(labels, values, color=colours)
    ax.axvline(0.0, color="black", linewidth=0.8)
    total = sum(terms.values())
    winner = estimator.classes_[1] if total > 0 else estimator.classes_[0]
    ax.set_xlabel(f"log odds: + favours {estimator.classes_[1]}, - favours {estimator.classes_[0]}")
    ax.set_title(f"total {total:+.3f}: class {winner}")
    return ax


def _class_column(explanation: Any, class_index: int) -> tuple[int, str]:
    classes = list(explanation.classes)
    c = class_index % len(classes)
    return c, str(classes[c])


def plot_shapley_waterfall(
    explanation: Any, row: int = 0, class_index: int = -1, ax: Any = None, top: int = 12
):
    """One row's Shapley values as a waterfall, SHAP's way: from the base value, each
    feature's contribution to the log-odds of one class, largest first, to the row's
    log-odds (:func:`discotree.explain.shapley_values`).

    Parameters
    ----------
    explanation : ShapleyExplanation
    row : int, default=0
    class_index : int, default=-1
        The class whose log-odds are explained (-1: the last, the positive class of a
        binary problem).
    ax : matplotlib Axes, optional
    top : int, default=12
        The features of largest magnitude shown; the others are summed into one bar.

    Returns
    -------
    matplotlib.axes.Axes
    """
    import matplotlib.pyplot as plt

    c, label = _class_column(explanation, class_index)
    values = explanation.values[row, :, c]
    order = np.argsort(-np.abs(values))
    shown = [(explanation.feature_names[j], float(values[j])) for j in order[:top]]
    rest = order[top:]
    if len(rest):
        shown.append((f"{len(rest)} other features", float(values[rest].sum())))
    if ax is None:
        _, ax = plt.subplots(figsize=(6.5, 0.4 * len(shown) + 1.4))
    start = float(explanation.base_values[row, c])
    positions = np.arange(len(shown))[::-1]
    for (_, value), y in zip(shown, positions, strict=True):
        colour = "tab:red" if value > 0 else "tab:blue"
        ax.barh(y, value, left=start, color=colour)
        ax.text(start + value, y, f" {value:+.3f}", va="center", fontsize=8)
        start += value
    ax.set_yticks(positions, [name for name, _ in shown])
    ax.axvline(float(explanation.base_values[row, c]), color="grey", linewidth=0.8)
    ax.axvline(start, color="black", linewidth=0.8)
    ax.set_xlabel(f"log-odds of {label}: base {explanation.base_values[row, c]:+.3f}")
    ax.set_title(f"row {row}: log-odds {float(explanation.output[row, c]):+.3f}")
    return ax


def plot_shapley_beeswarm(explanation: Any, class_index: int = -1, ax: Any = None, top: int = 15):
    """Every row's Shapley values, one line of dots per feature (the features of
    largest mean absolute value first), coloured by the feature's value where it is
    numeric: SHAP's beeswarm summary (:func:`discotree.explain.shapley_values`).

    Parameters
    ----------
    explanation : ShapleyExplanation
    class_index : int, default=-1
    ax : matplotlib Axes, optional
    top : int, default=15

    Returns
    -------
    matplotlib.axes.Axes
    """
    import matplotlib.pyplot as plt
    import pandas as pd

    c, label = _class_column(explanation, class_index)
    values = explanation.values[:, :, c]
    order = np.argsort(-np.abs(values).mean(axis=0))[:top]
    data = explanation.data
    frame = data if isinstance(data, pd.DataFrame) else pd.DataFrame(data)
    if ax is None:
        _, ax = plt.subplots(figsize=(6.5, 0.4 * len(order) + 1.4))
    rng = np.random.default_rng(0)  # the vertical jitter only
    for y, j in enumerate(order[::-1]):
        column = pd.to_numeric(frame.iloc[:, j], errors="coerce").to_numpy(dtype=float)
        finite = np.isfinite(column)
        colour = np.full(len(column), 0.5)
        if finite.any() and np.ptp(column[finite]) > 0:
            low, high = np.nanmin(column), np.nanmax(column)
            colour[finite] = (column[finite] - low) / (high - low)
        jitter = rng.uniform(-0.25, 0.25, len(column))
        ax.scatter(values[:, j], y + jitter, c=colour, cmap="coolwarm", s=8, vmin=0, vmax=1)
    ax.set_yticks(range(len(order)), [explanation.feature_names[j] for j in order[::-1]])
    ax.axvline(0.0, color="grey", linewidth=0.8)
    ax.set_xlabel(f"Shapley value (log-odds of {label}); colour: feature value, low to high")
    return ax


def plot_boosting_curve(
    estimator: Any, X: Any, y: Any, X_test: Any = None, y_test: Any = None, ax: Any = None
):
    """Training (and test) error of a fitted boosted classifier after each round
    (``staged_predict``).

    Returns
    -------
    matplotlib.axes.Axes
    """
    import matplotlib.pyplot as plt

    if not hasattr(estimator, "staged_predict"):
        raise ValueError(f"{type(estimator).__name__} has no staged_predict (not boosted).")
    if ax is None:
        _, ax = plt.subplots(figsize=(5.0, 3.5))
    curves = [("train", X, y)] + ([("test", X_test, y_test)] if X_test is not None else [])
    for label, data, truth in curves:
        truth = np.asarray(truth)
        errors = [weighted_error_rate(truth, p) for p in estimator.staged_predict(data)]
        ax.plot(np.arange(1, len(errors) + 1), errors, marker="o", label=label)
    ax.set_xlabel("boosting round")
    ax.set_ylabel("error rate")
    ax.legend()
    return ax


def plot_missing_robustness(
    estimators: dict,
    X: Any,
    y: Any,
    fractions: Any = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5),
    random_state: int = 0,
    ax: Any = None,
):
    """Test accuracy of fitted models as features go missing at prediction time (each
    cell hidden with the given probability, the same cells for every model; the
    models sum missing features out).

    Parameters
    ----------
    estimators : dict of name -> fitted classifier
    X, y : the test data
    fractions : sequence of float in [0, 1)
    random_state : int
        Seed of the hidden cells.
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib.axes.Axes
    """
    import matplotlib.pyplot as plt
    import pandas as pd

    frame = pd.DataFrame(X).reset_index(drop=True)
    truth = np.asarray(y)
    rng = np.random.default_rng(random_state)
    draws = rng.random(frame.shape)  # one draw per cell: nested hidden sets
    if ax is None:
        _, ax = plt.subplots(figsize=(5.0, 3.5))
    for name, estimator in estimators.items():
        accuracy = []
        for fraction in fractions:
            hidden = frame.astype(object).mask(draws < fraction, None).infer_objects()
            accuracy.append(weighted_accuracy(truth, estimator.predict(hidden)))
        ax.plot(list(fractions), accuracy, marker="o", label=name)
    ax.set_xlabel("fraction of features missing at test time")
    ax.set_ylabel("accuracy")
    ax.legend()
    return ax
