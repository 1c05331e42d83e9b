"""The figure of each user-guide page, drawn at build time from the installed package
(models fitted on the datasets bundled with scikit-learn, or the committed benchmark
results), so that a figure cannot drift from the code it shows.

``write_user_guide_figures(out_dir)`` writes ``<page>.png`` for every page of
``docs/user_guide`` (but its index); ``conf.py`` calls it before the build and
``check_site.py`` fails a page without an image.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import matplotlib
import numpy as np

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from sklearn.datasets import load_breast_cancer, load_digits, load_wine
from sklearn.model_selection import cross_val_score

ROOT = Path(__file__).resolve().parents[1]
#: A few readable columns of breast cancer: the structures stay legible.
COLUMNS = [
    "mean radius",
    "mean texture",
    "mean smoothness",
    "mean concavity",
    "mean symmetry",
    "worst area",
    "worst concave points",
]


def _cancer(columns=COLUMNS):
    X, y = load_breast_cancer(return_X_y=True, as_frame=True)
    return X[columns], y


def _naive_bayes(ax):
    from discotree import NaiveBayesClassifier
    from discotree.plotting import plot_network

    X, y = _cancer()
    plot_network(NaiveBayesClassifier().fit(X, y), ax=ax)
    ax.set_title("Naive Bayes on breast cancer: the class is every feature's only parent")


def _tan(ax):
    from discotree import TANClassifier
    from discotree.plotting import plot_network

    X, y = _cancer()
    plot_network(TANClassifier().fit(X, y), ax=ax)
    ax.set_title("TAN on breast cancer: the tree of largest I(X_i; X_j | C)")


def _chow_liu(ax):
    from discotree import ChowLiuClassifier
    from discotree.plotting import plot_network

    X, y = _cancer()
    fig = plot_network(ChowLiuClassifier().fit(X, y))
    return fig


def _discriminative_trees(ax):
    from discotree import DiscriminativeTreeClassifier
    from discotree.plotting import plot_network

    X, y = _cancer()
    return plot_network(DiscriminativeTreeClassifier().fit(X, y))


def _boosting(ax):
    from discotree import BoostedGraphicalModelClassifier
    from discotree.plotting import plot_boosting_curve

    X, y = load_breast_cancer(return_X_y=True)
    clf = BoostedGraphicalModelClassifier(n_estimators=12, calibration="none").fit(X, y)
    plot_boosting_curve(clf, X, y, ax=ax)
    ax.set_title("Boosted discriminative trees on breast cancer (training data)")


def _draw_digraph(ax, edges, names, title):
    import networkx as nx

    graph = nx.DiGraph()
    graph.add_nodes_from(names)
    graph.add_edges_from(edges)
    position = nx.circular_layout(graph)
    nx.draw_networkx(graph, position, ax=ax, node_color="#cfe2f3", font_size=7, arrows=True)
    ax.set_title(title)
    ax.axis("off")


def _k_dependence(ax):
    from discotree import KDBClassifier

    X, y = _cancer()
    clf = KDBClassifier(k=2, selective=False).fit(X, y)
    edges = [(X.columns[p], X.columns[j]) for p, j in clf.model_.edges()]
    _draw_digraph(ax, edges, list(X.columns), "kDB, k = 2, on breast cancer (the class, a "
                  "parent of every feature, not drawn)")  # fmt: skip


def _ear_trees(ax):
    from discotree import EARTreeClassifier
    from discotree.plotting import plot_network

    X, y = load_wine(return_X_y=True, as_frame=True)
    X = X.iloc[:, :8]
    try:
        return plot_network(EARTreeClassifier().fit(X, y > 0))
    except (TypeError, ValueError):
        clf = EARTreeClassifier().fit(X, y > 0)
        ax.barh(list(X.columns), clf.feature_importances_)
        ax.set_xlabel("evidence moved when the feature is summed out (nats)")
        ax.set_title("EAR tree on wine (class 0 against the rest)")


def _forest_density(ax):
    from discotree import ForestDensityClassifier

    X, y = load_wine(return_X_y=True, as_frame=True)
    clf = ForestDensityClassifier().fit(X, y)
    order = np.argsort(clf.feature_importances_)
    ax.barh(np.asarray(X.columns)[order], clf.feature_importances_[order])
    ax.set_xlabel("mean |share of the SVM margins| (features and half of each pair)")
    ax.set_title("Forest density classifier on wine: what the margins rest on")


def _feature_selection(ax):
    from discotree import NaiveBayesClassifier
    from discotree.importance import summed_out_importances

    X, y = load_breast_cancer(return_X_y=True, as_frame=True)
    clf = NaiveBayesClassifier().fit(X, y)
    result = summed_out_importances(clf, X, y)
    order = np.argsort(result.importances_mean)[-12:]
    ax.barh(np.asarray(X.columns)[order], result.importances_mean[order],
            xerr=result.importances_std[order] / np.sqrt(len(X)))  # fmt: skip
    ax.set_xlabel("log-loss increase when summed out (nats, mean over rows)")
    ax.set_title("Breast cancer: what naive Bayes loses without each feature (top 12)")


def _data(ax):
    from sklearn.model_selection import train_test_split

    from discotree import NaiveBayesClassifier, TANClassifier
    from discotree.plotting import plot_missing_robustness

    X, y = _cancer()
    X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0)
    fitted = {
        "naive Bayes": NaiveBayesClassifier().fit(X_train, y_train),
        "TAN": TANClassifier().fit(X_train, y_train),
    }
    plot_missing_robustness(fitted, X_test, y_test, ax=ax)
    ax.set_title("Breast cancer, features hidden at random at test time")


def _choosing(ax):
    from discotree.registry import make_classifier

    X, y = _cancer()
    names = ["nb-auto", "tan-cmi-auto", "dt-auto", "aode", "skdb", "eskdb", "rf", "logreg"]
    scores = [cross_val_score(make_classifier(n), X, y, cv=5) for n in names]
    ax.boxplot(scores, orientation="horizontal", tick_labels=names)
    ax.set_xlabel("5-fold accuracy on breast cancer (7 features)")
    ax.set_title("Default models of each family beside two scikit-learn baselines")


def _pictures_and_export(ax):
    from discotree import KDBClassifier
    from discotree.explain import shapley_values
    from discotree.plotting import plot_shapley_waterfall

    X, y = _cancer()
    explanation = shapley_values(KDBClassifier().fit(X, y), X.iloc[:1])
    plot_shapley_waterfall(explanation, row=0, ax=ax)


def _scaling(ax):
    results = json.loads((ROOT / "benchmarks" / "results" / "scale.json").read_text())
    memory, stream, dask = results["in_memory"], results["streaming"], results["dask"]
    labels = [
        f"in memory\n{memory['rows']:,} rows",
        "streamed file\n10,000,000 rows",
        f"Dask, {dask['partitions']} partitions\n{dask['rows']:,} rows",
    ]
    rates = [memory["fit_rows_per_s"], 1e7 / stream["fit_s"], dask["rows"] / dask["seconds"]]
    ax.barh(labels, rates)
    ax.set_xlabel("training rows per second (TAN; benchmarks/results/scale.json)")
    machine = results["machine"]
    ax.set_title(f"Fitting speed on {machine['cores']} cores ({machine['cpu']})")


def _smoothing(ax):
    from discotree import NaiveBayesClassifier

    X, y = load_digits(return_X_y=True)
    clf = NaiveBayesClassifier().fit(X[:900], y[:900])
    u = clf.predict_uncertainty(X[900:], n_draws=50)
    small = NaiveBayesClassifier().fit(X[:90], y[:90]).predict_uncertainty(X[900:], n_draws=50)
    ax.hist([small.knowledge, u.knowledge], bins=30, label=["90 training rows", "900"])
    ax.set_xlabel("knowledge uncertainty (nats) of each test row")
    ax.legend()
    ax.set_title("Naive Bayes on digits: what more rows would remove")


FIGURES: dict[str, Callable] = {
    "naive_bayes": _naive_bayes,
    "tan": _tan,
    "chow_liu": _chow_liu,
    "discriminative_trees": _discriminative_trees,
    "boosting": _boosting,
    "k_dependence": _k_dependence,
    "ear_trees": _ear_trees,
    "forest_density": _forest_density,
    "feature_selection": _feature_selection,
    "data": _data,
    "choosing": _choosing,
    "pictures_and_export": _pictures_and_export,
    "scaling": _scaling,
    "smoothing": _smoothing,
}


def write_user_guide_figures(out_dir: Path) -> list[Path]:
    """Draw every page's figure into ``out_dir`` (``<page>.png``)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for page, draw in FIGURES.items():
        fig, ax = plt.subplots(figsize=(7, 4.2))
        drawn = draw(ax)
        if drawn is not None and drawn is not fig:  # the function made its own figure
            plt.close(fig)
            fig = drawn if hasattr(drawn, "savefig") else drawn.figure
        fig.tight_layout()
        path = out_dir / f"{page}.png"
        fig.savefig(path, dpi=90)
        plt.close("all")
        written.append(path)
    return written


if __name__ == "__main__":  # pragma: no cover
    import sys

    for path in write_user_guide_figures(Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/ug")):
        print(path)
