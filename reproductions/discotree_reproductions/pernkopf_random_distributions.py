"""``pernkopf-random-distributions``: Fig. 9 of Pernkopf & Bilmes 2010, Section 6.3.

"For each number of variables (N = 10 up to 14) we generate 1000 random distributions
and draw 100000 samples from each. Using these samples, we learn generative and
discriminative TAN structures ... and report the resulting conditional log likelihood
on the training data": (i) the OMI order with CL parent selection (TAN-OMI-CL), (ii)
the minimum-MI order, (iii) a random order with CL parent selection (TAN-RO-CL), (iv)
the optimal generative 1-tree (TAN-CMI, Friedman et al. 1997), (v) the greedy search
with the CL score (TAN-CL, Section 4.4.1), and naive Bayes. ML parameters throughout
("ML parameter estimation is used for all examples in this section"). The paper's
claims: OMI-CL's CLL stays high at a fraction of TAN-CL's cost, the generative tree
"does not necessarily produce good conditional likelihood results", every difference is
significant (one-sided paired t-test, 0.05) at every N, and the CLL falls as N grows.

The paper does not say what a random distribution is. Here: a binary class and N
binary attributes, the joint table of the 2^(N+1) cells drawn uniformly from the
simplex (Dirichlet(1)); the 100000 samples are its multinomial counts, fitted as
weighted distinct rows (a weight is a repeated row). The CLL is the mean of
``log P(c | x)`` over the samples, in nats; the generating distribution's own
posterior gives a reference ("true").
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np

from discotree.classifiers import TANClassifier

from .harness.metrics import paired_t_test
from .harness.report import markdown_table, report_opening, write_results
from .harness.runner import code_hash

__all__ = [
    "FIG9_METHODS",
    "FIG9_N",
    "random_distribution",
    "run_random_distributions",
    "training_cll",
]

FIG9_N = (10, 11, 12, 13, 14)
FIG9_DISTRIBUTIONS = 1000
FIG9_SAMPLES = 100_000
#: name -> (k, structure, structure_score) of :class:`TANClassifier`.
FIG9_METHODS = {
    "tan-omi-cl": (1, "omi-cr", "cll"),
    "tan-mmi-cl": (1, "mmi-cr", "cll"),
    "tan-ro-cl": (1, "ro-cr", "cll"),
    "tan-cmi": (1, "cmi", "cr"),
    "tan-cl": (1, "cr", "cll"),
    "nb": (0, "cmi", "cr"),
}


def random_distribution(n_features: int, index: int, n_samples: int = FIG9_SAMPLES):
    """Distribution ``index`` for ``n_features`` attributes and its samples.

    Returns
    -------
    codes : ndarray of shape (n_cells, n_features)
        The distinct attribute rows drawn (0/1).
    y : ndarray of shape (n_cells,)
        Their classes.
    weight : ndarray of shape (n_cells,)
        How many of the ``n_samples`` samples each (class, row) cell holds.
    true_log_posterior : ndarray of shape (n_cells,)
        ``log P(c | x)`` of each cell under the generating distribution.
    """
    rng = np.random.default_rng([n_features, index])
    joint = rng.dirichlet(np.ones(2 ** (n_features + 1)))
    counts = rng.multinomial(n_samples, joint)
    cells = np.flatnonzero(counts)
    bits = (cells[:, None] >> np.arange(n_features + 1)) & 1
    # the class is bit 0, so a row's two class cells are neighbours
    pairs = joint.reshape(-1, 2)
    posterior = joint[cells] / pairs[cells >> 1].sum(axis=1)
    return bits[:, 1:], bits[:, 0], counts[cells].astype(np.float64), np.log(posterior)


def training_cll(method: str, codes, y, weight, seed: int = 0) -> float:
    """Mean ``log P(c | x)`` over the (weighted) training samples of the fitted TAN."""
    k, structure, score = FIG9_METHODS[method]
    model = TANClassifier(
        k=k,
        structure=structure,
        structure_score=score,
        alpha=0.0,
        epsilon=1e-5,
        random_state=seed,
    ).fit(codes, y, sample_weight=weight)
    log_posterior = model.predict_log_proba(codes)[np.arange(len(y)), np.asarray(y)]
    return float(weight @ log_posterior / weight.sum())


def _one(n_features: int, index: int) -> dict:
    codes, y, weight, true_log_posterior = random_distribution(n_features, index)
    record = {
        "n_features": n_features,
        "distribution": index,
        "n_cells": len(y),
        "true": float(weight @ true_log_posterior / weight.sum()),
    }
    for method in FIG9_METHODS:
        start = time.perf_counter()
        record[method] = training_cll(method, codes, y, weight, seed=index)
        record[f"{method}_seconds"] = time.perf_counter() - start
    return record


def run_random_distributions(
    out_dir, *, data_dir=None, n_jobs: int = 1, progress: bool = False
) -> dict:
    """Run Fig. 9 (generated data; ``data_dir`` is not read); each distribution's
    record is cached under ``out_dir/cache`` with the code's hash, so an interrupted
    run resumes and a run after a change of the code starts again. Writes
    ``results.json``, ``results.md`` and ``cll.png``."""
    from joblib import Parallel, delayed

    out_dir = Path(out_dir)
    cache = out_dir / "cache" / code_hash(run_random_distributions)
    cache.mkdir(parents=True, exist_ok=True)
    tasks = [(n, d) for d in range(FIG9_DISTRIBUTIONS) for n in FIG9_N]
    todo = [t for t in tasks if not (cache / f"N{t[0]}-d{t[1]:04d}.json").is_file()]

    def run_and_store(n: int, d: int) -> None:
        record = _one(n, d)
        path = cache / f"N{n}-d{d:04d}.json"
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(record))
        tmp.replace(path)

    Parallel(n_jobs=n_jobs, batch_size=1, verbose=10 if progress else 0)(
        delayed(run_and_store)(n, d) for n, d in todo
    )
    records = [json.loads((cache / f"N{n}-d{d:04d}.json").read_text()) for n, d in tasks]
    summary = {
        "experiment": "pernkopf-random-distributions",
        "settings": {
            "n_features": FIG9_N,
            "distributions": FIG9_DISTRIBUTIONS,
            "samples": FIG9_SAMPLES,
        },
        "records": records,
    }
    write_results(out_dir / "results.json", summary, indent=0)
    (out_dir / "results.md").write_text(report(records))
    _plot(records, out_dir)
    return summary


def _table(records: list[dict]):
    import pandas as pd

    return pd.DataFrame(records).set_index(["n_features", "distribution"]).sort_index()


def report(records: list[dict]) -> str:
    """The markdown report, every statement computed from ``records``."""
    frame = _table(records)
    methods = ["true", *FIG9_METHODS]
    rows, time_rows, tests = [], [], []
    pairs = [(a, b) for i, a in enumerate(FIG9_METHODS) for b in list(FIG9_METHODS)[i + 1 :]]
    significant_everywhere = {}
    for n, sub in frame.groupby(level=0):
        rows.append(
            [n, len(sub), *(f"{sub[m].mean():.5f} ± {sub[m].std(ddof=1):.5f}" for m in methods)]
        )
        time_rows.append([n, *(f"{1000 * sub[f'{m}_seconds'].mean():.0f}" for m in FIG9_METHODS)])
        for a, b in pairs:
            better, worse = (a, b) if sub[a].mean() >= sub[b].mean() else (b, a)
            p = paired_t_test(sub[better], sub[worse])
            significant_everywhere.setdefault((better, worse), []).append(p < 0.05)
            tests.append(
                [
                    n,
                    f"{better} > {worse}",
                    f"{sub[better].mean() - sub[worse].mean():.2e}",
                    f"{p:.2g}",
                ]
            )
    means = frame.groupby(level=0).mean()
    ranking = {n: sorted(FIG9_METHODS, key=lambda m: -means.loc[n, m]) for n in means.index}
    n_pairs = len(pairs)
    n_sig = {n: sum(float(t[3]) < 0.05 for t in tests if t[0] == n) for n in means.index}
    omi_near_greedy = [
        (means.loc[n, "tan-cl"] - means.loc[n, "tan-omi-cl"])
        / (means.loc[n, "tan-cl"] - means.loc[n, "nb"])
        for n in means.index
    ]
    speed = [
        frame.loc[n, "tan-cl_seconds"].mean() / frame.loc[n, "tan-omi-cl_seconds"].mean()
        for n in means.index
    ]
    falls = all(np.diff(means["tan-omi-cl"].to_numpy()) < 0)
    cmi_rank = [ranking[n].index("tan-cmi") + 1 for n in means.index]
    findings = [
        "- Order of the mean training CLL at each N (best first): "
        + "; ".join(f"N = {n}: {', '.join(r)}" for n, r in ranking.items())
        + ".",
        "- Pairs of methods whose difference is significant (one-sided paired t-test over "
        "the distributions, p < 0.05): "
        + ", ".join(f"N = {n}: {n_sig[n]} of {n_pairs}" for n in means.index)
        + " (the paper: every difference, at every N).",
        "- OMI-CL's shortfall to the greedy TAN-CL, as a share of TAN-CL's gain over NB: "
        + ", ".join(f"{100 * g:.0f} %" for g in omi_near_greedy)
        + f" for N = {', '.join(map(str, means.index))}; TAN-CL costs "
        + ", ".join(f"{s:.1f}x" for s in speed)
        + " OMI-CL's time.",
        f"- TAN-CMI (the generative tree) ranks {', '.join(map(str, cmi_rank))} of "
        f"{len(FIG9_METHODS)} for N = {', '.join(map(str, means.index))}.",
        f"- The CLL of TAN-OMI-CL {'falls' if falls else 'does not fall'} at every step "
        f"of N ({', '.join(f'{v:.5f}' for v in means['tan-omi-cl'])}); the paper: it gets "
        "smaller as N grows.",
    ]
    lines = [
        *report_opening("pernkopf-random-distributions", __doc__, one_line=False),
        "## Training CLL (nats per sample), mean ± sd over the distributions",
        "",
        markdown_table(["N", "distributions", *methods], rows),
        "",
        "## Findings, from the numbers above",
        "",
        *findings,
        "",
        "## Mean fit time per distribution (ms)",
        "",
        markdown_table(["N", *FIG9_METHODS], time_rows),
        "",
        "## One-sided paired t-tests",
        "",
        markdown_table(["N", "pair", "mean difference", "p"], tests),
        "",
        "Figure: `cll.png`.",
        "",
    ]
    return "\n".join(lines)


def _plot(records: list[dict], out_dir: Path) -> None:
    import matplotlib.pyplot as plt

    frame = _table(records)
    means = frame.groupby(level=0).mean()
    sd = frame.groupby(level=0).std(ddof=1)
    fig, ax = plt.subplots(figsize=(6, 4))
    for i, m in enumerate(["true", *FIG9_METHODS]):
        ax.errorbar(
            means.index + 0.04 * (i - 3), means[m], yerr=sd[m], marker="o", capsize=2, label=m
        )
    ax.set_xlabel("number of attributes N")
    ax.set_ylabel("training CLL (nats per sample)")
    ax.legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(out_dir / "cll.png", dpi=120)
    plt.close(fig)
