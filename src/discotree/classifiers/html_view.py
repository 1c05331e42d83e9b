"""The notebook view of a fitted discrete classifier: its network as an SVG drawing
(feature names on a circle around the class, the learned attribute edges drawn) and its
main fitted facts, shown below scikit-learn's parameter box (``_repr_html_``).

Plain strings, no plotting library: a notebook shows it without matplotlib, and a
network of up to :data:`MAX_DRAWN_FEATURES` features stays a few kilobytes.
"""

from __future__ import annotations

import html
import math
from typing import Any

from ..validation import feature_names_of

__all__ = ["MAX_DRAWN_FEATURES", "MAX_DRAWN_MEMBERS", "fitted_view", "members_view", "network_svg"]

#: Beyond this many features the network is summarised, not drawn.
MAX_DRAWN_FEATURES = 60
#: The members of an ensemble whose networks are drawn (all are listed).
MAX_DRAWN_MEMBERS = 4
#: Fitted attributes shown when the estimator has them (name, what it is).
FACTS = (
    ("alpha_", "pseudo-count"),
    ("k_", "parents per attribute"),
    ("n_structure_steps_", "search steps kept"),
    ("calibration_scale_", "calibration scale"),
    ("n_estimators_", "members"),
)


def network_svg(
    names: list[str],
    edges: list[tuple[int, int]],
    size: int = 360,
    used: list[int] | None = None,
    label: str = "learned network",
) -> str:
    """An SVG drawing: the class in the middle, the features on a circle with a spoke
    from the class to each (it is a parent of every feature), the attribute edges as
    dark lines; with ``used``, the spokes and dark dots only for those features (the
    others grey: an ensemble member that does not use them).

    Examples
    --------
    >>> svg = network_svg(["a", "b", "c"], [(0, 1)])
    >>> svg.startswith("<svg") and "<title>a - b</title>" in svg
    True
    """
    centre, radius = size / 2, size / 2 - 60
    points = [
        (
            centre + radius * math.cos(2 * math.pi * j / len(names) - math.pi / 2),
            centre + radius * math.sin(2 * math.pi * j / len(names) - math.pi / 2),
        )
        for j in range(len(names))
    ]
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{size}" height="{size}" '
        f'viewBox="0 0 {size} {size}" role="img" aria-label="{html.escape(label)}">'
    ]
    in_use = set(range(len(names)) if used is None else used)
    for j, (x, y) in enumerate(points):
        if j not in in_use:
            continue
        parts.append(
            f'<line x1="{centre:.1f}" y1="{centre:.1f}" x2="{x:.1f}" y2="{y:.1f}" '
            'stroke="#cccccc" stroke-width="1"/>'
        )
    for i, j in edges:
        (x1, y1), (x2, y2) = points[i], points[j]
        title = html.escape(f"{names[i]} - {names[j]}")
        parts.append(
            f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" '
            f'stroke="#1f4e79" stroke-width="2"><title>{title}</title></line>'
        )
    parts.append(
        f'<circle cx="{centre:.1f}" cy="{centre:.1f}" r="14" fill="#f2c14e"/>'
        f'<text x="{centre:.1f}" y="{centre + 4:.1f}" text-anchor="middle" '
        'font-size="10" font-family="sans-serif">class</text>'
    )
    for j, (name, (x, y)) in enumerate(zip(names, points, strict=True)):
        text = html.escape(name if len(name) <= 18 else name[:17] + "…")
        fill = "#1f4e79" if j in in_use else "#bbbbbb"
        parts.append(
            f'<circle cx="{x:.1f}" cy="{y:.1f}" r="5" fill="{fill}"/>'
            f'<text x="{x:.1f}" y="{y - 9:.1f}" text-anchor="middle" font-size="10" '
            f'font-family="sans-serif">{text}<title>{html.escape(name)}</title></text>'
        )
    parts.append("</svg>")
    return "".join(parts)


def members_view(estimator: Any, members: list[Any]) -> str:
    """The members of an ensemble of kDB models (:class:`~discotree.KDBEnsembleClassifier`):
    a table of each member's k, attributes kept and attribute edges, the linear and
    pair members' weights, and the networks of the first :data:`MAX_DRAWN_MEMBERS`.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from discotree import KDBEnsembleClassifier
    >>> clf = KDBEnsembleClassifier(n_estimators=2).fit(*load_iris(return_X_y=True))
    >>> view = members_view(clf, clf.model_.members)
    >>> view.count("<tr><td>"), view.count('aria-label="member')
    (2, 2)
    """
    names = feature_names_of(estimator)
    ks = getattr(estimator, "members_k_", None)
    rows, drawings = [], []
    for m, member in enumerate(members):
        edges = member.edges()
        k = int(ks[m]) if ks is not None else max(map(len, member.parents), default=0)
        listed = ", ".join(html.escape(f"{names[p]} → {names[j]}") for p, j in edges)
        rows.append(
            f"<tr><td>{m}</td><td>{k}</td><td>{len(member.attributes)}</td>"
            f"<td>{len(edges)}</td><td>{listed or '—'}</td></tr>"
        )
        if m < MAX_DRAWN_MEMBERS and len(names) <= MAX_DRAWN_FEATURES:
            svg = network_svg(
                names,
                [(int(p), int(j)) for p, j in edges],
                size=240,
                used=[int(j) for j in member.attributes],
                label=f"member {m}",
            )
            drawings.append(
                f"<figure style='display:inline-block;margin:0.3em'>{svg}"
                f"<figcaption>member {m}</figcaption></figure>"
            )
    header = "".join(
        f"<th style='text-align:left;padding-right:1em'>{h}</th>"
        for h in ("member", "k", "attributes kept", "attribute edges", "edges (parent → child)")
    )
    weights = []
    for attribute, what in (("linear_weight_", "linear member"), ("pair_weight_", "pair member")):
        value = getattr(estimator, attribute, None)
        if isinstance(value, int | float) and not isinstance(value, bool):
            weights.append(f"{what} weight {float(value):.3g}")
    note = ""
    if len(members) > MAX_DRAWN_MEMBERS and drawings:
        note = f"<p>The networks of the first {len(drawings)} of {len(members)} members.</p>"
    elif not drawings:
        note = f"<p>{len(names)} features: the members' networks are not drawn.</p>"
    return (
        "<div class='discotree-members'>"
        f"<p>{len(members)} kDB members" + (f"; {', '.join(weights)}" if weights else "") + ".</p>"
        f"<table><tr>{header}</tr>{''.join(rows)}</table>{note}{''.join(drawings)}</div>"
    )


def fitted_view(estimator: Any) -> str:
    """The fitted part of the notebook view: classes, features, edges and the facts of
    :data:`FACTS` the estimator has, and the network drawing (the first class's, when
    the structure differs between classes); for an ensemble of kDB members, its
    members (:func:`members_view`) instead of one network."""
    members = getattr(getattr(estimator, "model_", None), "members", None)
    if members is not None:
        names = feature_names_of(estimator)
        classes = ", ".join(html.escape(str(c)) for c in estimator.classes_)
        rows = [("classes", classes), ("features", str(len(names))), ("members", str(len(members)))]
        table = "".join(
            f"<tr><th style='text-align:left;padding-right:1em'>{k}</th><td>{v}</td></tr>"
            for k, v in rows
        )
        return (
            "<div class='discotree-fitted' style='margin-top:0.5em'>"
            f"<table>{table}</table>{members_view(estimator, members)}</div>"
        )
    names = feature_names_of(estimator)
    edges = getattr(estimator, "edges_", None) or [[]]
    per_class = any(sorted(e) != sorted(edges[0]) for e in edges)
    classes = ", ".join(html.escape(str(c)) for c in estimator.classes_)
    note = " (the first class's; one structure per class)" if per_class else ""
    rows = [
        ("classes", classes),
        ("features", str(len(names))),
        ("attribute edges", f"{len(edges[0])}{note}"),
    ]
    for attribute, what in FACTS:
        value = getattr(estimator, attribute, None)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            rows.append((what, f"{value:.4g}" if isinstance(value, float) else str(value)))
    table = "".join(
        f"<tr><th style='text-align:left;padding-right:1em'>{k}</th><td>{v}</td></tr>"
        for k, v in rows
    )
    if len(names) <= MAX_DRAWN_FEATURES:
        drawing = network_svg(names, [tuple(e) for e in edges[0]])
    else:
        drawing = (
            f"<p>{len(names)} features: the network is not drawn (more than "
            f"{MAX_DRAWN_FEATURES}); see <code>discotree.plotting.plot_network</code>.</p>"
        )
    return (
        "<div class='discotree-fitted' style='margin-top:0.5em'>"
        f"<table>{table}</table>{drawing}</div>"
    )
