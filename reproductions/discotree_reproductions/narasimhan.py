"""Reproductions of Narasimhan & Bilmes 2005.

- ``narasimhan-example`` (Tables 1-2): the asymptotic error of the complete model, of
  the generative trees (Chow-Liu by I(X; Y), I(X; Y | C) or per class) and of the EAR
  tree of Algorithm 3, exactly, from the joint table of the 3-variable example;
- ``narasimhan-gaussian`` (Table 3): synthetic Gaussian classes with identical means
  and variances, errors of the complete model, random trees, the generative tree and
  the EAR tree on 2000 test samples, the models estimated from 2000 other samples.
"""

from __future__ import annotations

import itertools
import os
import time
from pathlib import Path
from typing import Any

import numpy as np

from discotree.classifiers.ear_tree import EARTreeClassifier
from discotree.datasets.synthetic import ear_gaussian_example, three_variable_example
from discotree.models.gaussian_forest import GaussianForestModel
from discotree.stats.gaussian import GaussianStatistics
from discotree.stats.set_information import DiscreteSetEntropy, set_information
from discotree.structure.chow_liu import forest_parents
from discotree.structure.ear import ear_tree
from discotree.structure.spanning import maximum_spanning_forest, random_spanning_tree

from .harness.metrics import paired_t_test
from .harness.report import markdown_table, write_results

__all__ = ["example_reproduction", "gaussian_reproduction"]

#: Narasimhan & Bilmes 2005, Table 2 (asymptotic error rates).
PAPER_TABLE2 = {"complete": 0.375, "generative": 0.437, "discriminative": 0.406}
#: Narasimhan & Bilmes 2005, Table 3: n -> (complete, best random, avg random, generative,
#: discriminative,
#: seconds per run); the paper's own generator, not ours.
PAPER_TABLE3 = {
    5: (0.362, 0.464, 0.469, 0.476, 0.455, 0.3),
    6: (0.392, 0.445, 0.461, 0.452, 0.373, 0.4),
    7: (0.186, 0.427, 0.450, 0.401, 0.367, 0.4),
    8: (0.246, 0.441, 0.458, 0.446, 0.358, 0.6),
    9: (0.189, 0.416, 0.435, 0.404, 0.389, 1.2),
    10: (0.047, 0.429, 0.453, 0.420, 0.365, 2.1),
    15: (0.004, 0.433, 0.464, 0.447, 0.399, 8.4),
}


# ------------------------------------------------------------------- Tables 1-2
def _tree_error(joint: np.ndarray, parents: np.ndarray) -> float:
    """Exact error of ``argmax_c P(c) prod_j P(x_j | x_pa(j), c)`` (each class's tree
    projection, ``parents[c]``) under the joint table ``joint[c, x1, ..., xn]``."""
    n_classes, n = joint.shape[0], joint.ndim - 1
    scores = np.zeros(joint.shape)
    for c in range(n_classes):
        table = joint[c]
        log_p = np.full(table.shape, np.log(table.sum()))
        for j in range(n):
            family = [j] if parents[c][j] < 0 else [int(parents[c][j]), j]
            others = tuple(v for v in range(n) if v not in family)
            marginal = table.sum(axis=others, keepdims=True)
            context = marginal.sum(axis=j, keepdims=True)
            log_p = log_p + np.log(marginal / context)
        scores[c] = log_p
    predicted = np.argmax(scores, axis=0)
    return float(sum(joint[c][predicted != c].sum() for c in range(n_classes)))


def _cells(joint: np.ndarray):
    cells = np.array(list(itertools.product(*(range(r) for r in joint.shape))))
    return cells[:, 1:], cells[:, 0], joint.ravel()


def _shared(edges, n, n_classes=2):
    return np.tile(forest_parents(n, edges), (n_classes, 1))


def run_example(out_dir: str | os.PathLike, **_) -> dict:
    """``narasimhan-example``: Narasimhan & Bilmes 2005, Tables 1-2, exactly from the joint
    table."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    joint = three_variable_example("narasimhan")[0]
    codes, class_index, weights = _cells(joint)
    oracle = DiscreteSetEntropy(codes, class_index, weights)
    n = codes.shape[1]
    pairs = list(itertools.combinations(range(n), 2))

    def spanning(weight_of):
        w = np.zeros((n, n))
        for i, j in pairs:
            w[i, j] = w[j, i] = weight_of(i, j)
        return maximum_spanning_forest(w)[0]

    def mi(i, j, given_class=False):
        return set_information(oracle, 1 << i, 1 << j, given_class=given_class)

    per_class = []
    for c in range(2):
        rows_c = class_index == c
        sub = DiscreteSetEntropy(
            codes[rows_c], np.zeros(int(rows_c.sum()), np.intp), weights[rows_c]
        )
        per_class.append(spanning(lambda i, j, sub=sub: set_information(sub, 1 << i, 1 << j)))
    ear = ear_tree(oracle, n, "min-norm", 0).edges
    listing = ear_tree(oracle, n, "min-norm", 0, sign=-1).edges
    bayes = float(np.minimum(joint[0], joint[1]).sum())
    rows = [
        ("complete model (Bayes)", "-", bayes, PAPER_TABLE2["complete"]),
        ("naive Bayes", "-", _tree_error(joint, np.full((2, n), -1)), None),
        ("Chow-Liu, I(X;Y)", spanning(mi), None, PAPER_TABLE2["generative"]),
        (
            "Chow-Liu, I(X;Y given C) (TAN)",
            spanning(lambda i, j: mi(i, j, True)),
            None,
            PAPER_TABLE2["generative"],
        ),
        ("Chow-Liu per class, I(X;Y given C=c)", per_class, None, PAPER_TABLE2["generative"]),
        ("EAR tree (Algorithm 3, the text's sign)", ear, None, PAPER_TABLE2["discriminative"]),
        ("Algorithm 3 with the listing's sign", listing, None, None),
    ]
    table = []
    for name, edges, error, paper in rows:
        if error is None:
            parents = (
                np.stack([forest_parents(n, e) for e in edges])
                if isinstance(edges[0], list)
                else _shared(edges, n)
            )
            error = _tree_error(joint, parents)
        table.append({"model": name, "edges": edges, "error": error, "paper": paper})
    summary = {"experiment": "narasimhan-example", "rows": table}
    write_results(out_dir / "results.json", summary, indent=1)

    def show(edges):
        if edges == "-":
            return "-"
        if isinstance(edges[0], list):
            return "; ".join(_edge_names(e) for e in edges)
        return _edge_names(edges)

    lines = [
        "# narasimhan-example",
        "",
        "Narasimhan & Bilmes (2005), Tables 1-2: the 3-variable example, asymptotic error "
        "rates computed exactly from the joint table (each class's parameters are its "
        "projection on the tree, equal class priors).",
        "",
        markdown_table(
            ["model", "tree", "error", "paper (Table 2)"],
            [
                [r["model"], show(r["edges"]), f"{r['error']:.4f}", _maybe(r["paper"])]
                for r in table
            ],
        ),
        "",
        "The paper's generative column is the chain X1 - X2 - X3, which all three Chow-Liu "
        "criteria choose; its discriminative tree (error 0.406) is X1 - X3 - X2. Algorithm "
        "3 as the text describes it (the separator minimising the EAR "
        "I(S; T | x, C) - I(S; T | x) across the cut) finds that tree; the listing of "
        "Algorithm 3 in our copy writes the difference the other way round, which returns "
        "the generative chain. Both are shown; the library follows the text.",
        "",
    ]
    (out_dir / "results.md").write_text("\n".join(lines))
    return summary


def _edge_names(edges) -> str:
    return ", ".join(f"X{i + 1}-X{j + 1}" for i, j in edges)


def _maybe(value) -> str:
    return "" if value is None else f"{value:.3f}"


# ---------------------------------------------------------------------- Table 3
N_FEATURES = (5, 6, 7, 8, 9, 10, 15)
N_RUNS = 20
N_SAMPLES = 2000  # per set, split evenly between the classes


def _error_of(stats, edges, n, X, y) -> float:
    model = GaussianForestModel.from_statistics(stats, _shared(edges, n))
    return float(np.mean(np.argmax(model.log_likelihood(X), axis=1) != y))


def _complete_error(stats, X, y) -> float:
    means, covs = stats.means(), stats.covariances()
    scores = []
    for c in range(2):
        centred = X - means[c]
        _, logdet = np.linalg.slogdet(covs[c])
        solved = np.linalg.solve(covs[c], centred.T).T
        scores.append(-0.5 * (logdet + (centred * solved).sum(axis=1)))
    return float(np.mean(np.argmax(np.stack(scores, axis=1), axis=1) != y))


def _one_run(n: int, run: int) -> dict:
    seed = 1000 * n + run
    example = ear_gaussian_example(n, random_state=seed)
    half = N_SAMPLES // 2
    X_oracle, y_oracle = example.sample(half, random_state=seed + 1)
    X_test, y_test = example.sample(half, random_state=seed + 2)
    X_oracle, X_test = X_oracle.to_numpy(), X_test.to_numpy()
    y_oracle, y_test = y_oracle.to_numpy(), y_test.to_numpy()
    stats = GaussianStatistics.from_data(X_oracle, y_oracle.astype(np.intp), 2)
    start = time.perf_counter()
    ear = EARTreeClassifier(distribution="gaussian", random_state=seed).fit(X_oracle, y_oracle)
    seconds = time.perf_counter() - start
    generative = maximum_spanning_forest(stats.conditional_mutual_information())[0]
    rng = np.random.default_rng(seed + 3)
    random_errors = [
        _error_of(stats, random_spanning_tree(n, rng), n, X_test, y_test) for _ in range(n)
    ]
    return {
        "n_features": n,
        "run": run,
        "complete": _complete_error(stats, X_test, y_test),
        "best_random": min(random_errors),
        "avg_random": float(np.mean(random_errors)),
        "generative": _error_of(stats, generative, n, X_test, y_test),
        "discriminative": float(np.mean(ear.predict(X_test) != y_test)),
        "naive_bayes": _error_of(stats, [], n, X_test, y_test),
        "seconds": seconds,
        "sub_sup_iterations": ear.sub_sup_iterations_,
    }


def run_gaussian(out_dir: str | os.PathLike, n_jobs: int = 1, progress: bool = False) -> dict:
    """``narasimhan-gaussian``: Narasimhan & Bilmes 2005, Table 3 on our generator
    (:func:`~discotree.datasets.synthetic.ear_gaussian_example`), ``N_RUNS`` random
    problems per number of features."""
    from joblib import Parallel, delayed

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    tasks = [(n, run) for n in N_FEATURES for run in range(N_RUNS)]
    records = Parallel(n_jobs=n_jobs)(delayed(_one_run)(n, run) for n, run in tasks)
    columns = ["complete", "best_random", "avg_random", "generative", "discriminative"]
    rows: list[list[str]] = []
    per_n: dict[int, dict[str, Any]] = {}
    for n in N_FEATURES:
        sub = [r for r in records if r["n_features"] == n]
        mean = {k: float(np.mean([r[k] for r in sub])) for k in [*columns, "naive_bayes"]}
        seconds = float(np.mean([r["seconds"] for r in sub]))
        # one-sided: the generative tree's error is greater than the EAR tree's
        p_gen = paired_t_test([r["generative"] for r in sub], [r["discriminative"] for r in sub])
        per_n[n] = {"mean": mean, "seconds": seconds, "p_discriminative_below_generative": p_gen}
        paper = PAPER_TABLE3[n]
        rows.append(
            [
                str(n),
                *[f"{mean[k]:.3f} ({paper[i]:.3f})" for i, k in enumerate(columns)],
                f"{mean['naive_bayes']:.3f}",
                f"{p_gen:.4f}",
                f"{seconds:.2f} ({paper[5]:.1f})",
            ]
        )
    wins = sum(per_n[n]["mean"]["discriminative"] < per_n[n]["mean"]["generative"] for n in per_n)
    beats_random = [
        n for n in per_n if per_n[n]["mean"]["discriminative"] < per_n[n]["mean"]["best_random"]
    ]
    summary = {"experiment": "narasimhan-gaussian", "records": records, "per_n": per_n}
    write_results(out_dir / "results.json", summary, indent=1)
    lines = [
        "# narasimhan-gaussian",
        "",
        "Narasimhan & Bilmes (2005), Table 3: error rates on 2000 test samples (1000 per "
        "class) of classifiers estimated from 2000 other samples (the paper's 'oracle'), "
        f"mean over {N_RUNS} random problems per number of features; the paper's single "
        "numbers in parentheses. Our classes come from "
        "`discotree.datasets.synthetic.ear_gaussian_example` (the paper does not give its "
        "generator): zero means, unit variances, shared strong dependences (coefficient "
        "0.8) and weaker ones of opposite sign in the two classes (0.4). Trees share one "
        "structure across the classes, with each class's Gaussian projection on it; "
        "random trees: n uniform random trees per problem (best and average); generative: "
        "Chow-Liu on I(X; Y | C); discriminative: `EARTreeClassifier(distribution="
        "'gaussian')` (Algorithm 3, minimum-norm-point minimiser, 3 permutations).",
        "",
        markdown_table(
            [
                "n",
                "complete",
                "best random tree",
                "avg. random tree",
                "generative tree",
                "EAR tree",
                "naive Bayes",
                "p (EAR < generative)",
                "seconds per run",
            ],
            rows,
        ),
        "",
        f"The EAR tree has a lower mean error than the generative tree for {wins} of "
        f"{len(per_n)} numbers of features (one-sided paired t-test over the runs in the "
        "table); the paper reports it lower for all seven. It is below the best of the n "
        f"random trees for n in {beats_random} (the paper: all seven). As in the paper, "
        "naive Bayes is near chance and the complete model (here QDA with the oracle "
        "covariances) is best. Our errors are lower than the paper's throughout: our "
        "classes differ more, so the absolute numbers are not comparable, only the "
        "ordering of the classifiers.",
        "",
    ]
    (out_dir / "results.md").write_text("\n".join(lines))
    return summary


def example_reproduction(data_dir=None):
    """``narasimhan-example`` (needs no data)."""

    def run(out_dir, n_jobs: int = 1, progress: bool = False):
        return run_example(out_dir)

    return run


def gaussian_reproduction(data_dir=None):
    """``narasimhan-gaussian`` (needs no data)."""

    def run(out_dir, n_jobs: int = 1, progress: bool = False):
        return run_gaussian(out_dir, n_jobs=n_jobs, progress=progress)

    return run
