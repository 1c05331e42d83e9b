"""Discriminative structure search kernels of Pernkopf & Bilmes 2010 (Section 4.4.1 and Algorithm
1):
seconds, and ratios to bounds measured in the same run.

- ``candidate_hits`` (which samples each candidate classifies correctly: the argmax
  over classes of ``base + table[index]``) against the numpy formulation it replaces
  (forming the (candidates, samples, classes) array) and against a streaming bound:
  one ``np.add`` over an array of that size (touching every score once in memory).
  Target: at least 3x faster than numpy, at most 1.5x the streaming bound. The
  kernel splits the candidates over the cores (``discotree.threads.in_chunks``, as the
  counting kernels do); the bound is numpy's, on one thread.
- ``pair_family_counts`` (the counts of many two-parent families at once) against
  the scatter-add alone: ``np.bincount`` of the same keys and weights, precomputed.
  Target: at most 1.5x that bound (the keys are computed on the fly).
- the CL objective and gradient (Section 4.2) of a TAN, every node at once, against
  a gather bound: reading the n x D x C parameter entries the joint needs with one
  ``np.take`` (the gradient scatters as many). Target: at most 5x that bound.
- one family's counts (``family_cells`` then ``family_cell_counts``, what every
  lookup of a search counts) against ``np.bincount`` of the same keys, precomputed.
  Target: at most 2x that bound (the keys are computed from three features' codes).
- ``candidate_hits`` with ``old`` (each candidate takes out its own column:
  SuperParent's pairs of children; the table ``replacement_hits``) against the same
  streaming bound. Target: at most 2x (it reads two
  table rows per sample where ``candidate_hits`` reads one).
- the k = 2 order search end to end on generated data, with the parent pairs counted
  together against one family at a time (the path before): the same structure, and
  the speed-up.
- the k = 2 SuperParent search end to end on the same data, with the pairs of children
  that share a first child scored together against one pair at a time (the path
  before): the same structure, and the speed-up.

Generated data only (the timings depend on the shapes).

Run:  python benchmarks/bench_search.py [--repeats 3] [--out benchmarks/results]
Writes search.json and search.md (with the machine description).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(1, str(Path(__file__).parents[1]))  # the repository: the tests' slow references
from bench_fit import machine, run_benchmark, timed

from discotree.kernels.candidate_scores import candidate_hits
from discotree.kernels.family_counts import family_cell_counts, family_cells, pair_family_counts
from discotree.models.bayes_net import NodeScores
from discotree.structure import bayes_net_search as search
from tests import reference

HITS_SHAPE = (256, 4096, 10)  # candidates, samples, classes
COUNTS_SHAPE = (300, 20000)  # pairs, samples
SEARCH_SHAPE = (4000, 36, 4, 5)  # samples, attributes, categories, classes
CL_SHAPE = (2000, 20, 3, 4)  # samples, attributes, categories, classes


def _against_bound(shape, kernel, bound, repeats: int, **extra) -> dict:
    """The times of ``kernel()`` and of ``bound()`` (the least work of the same size),
    timed in that order, and the ratio of their fastest runs."""
    kernel_time = timed(kernel, repeats)
    bound_time = timed(bound, repeats)
    return {
        "shape": shape,
        **extra,
        "kernel": kernel_time,
        "bound": bound_time,
        "ratio_to_bound": kernel_time["min_s"] / bound_time["min_s"],
    }


def _hits_problem(seed: int, n_indices: int):
    """Generated scores of :data:`HITS_SHAPE`: base scores, a table of 4000 rows,
    ``n_indices`` candidates-by-samples indices into it, the true classes, and three
    arrays of HITS_SHAPE to add (the bound)."""
    rng = np.random.default_rng(seed)
    n_candidates, n_rows, n_classes = HITS_SHAPE
    base = rng.normal(size=(n_rows, n_classes))
    table = rng.normal(size=(4000, n_classes))
    indices = [rng.integers(0, len(table), (n_candidates, n_rows)) for _ in range(n_indices)]
    truth = rng.integers(0, n_classes, n_rows)
    x = rng.normal(size=HITS_SHAPE)
    return base, table, indices, truth, (x, np.empty_like(x), np.empty_like(x))


def bench_hits(repeats: int) -> dict:
    base, table, (index,), truth, (x, y, z) = _hits_problem(0, 1)
    np.testing.assert_array_equal(
        candidate_hits(base, table, index, truth),
        reference.candidate_hits(base, table, index, truth),
    )
    kernel = timed(lambda: candidate_hits(base, table, index, truth), repeats)
    numpy = timed(lambda: reference.candidate_hits(base, table, index, truth), repeats)
    bound = timed(lambda: np.add(x, y, out=z), repeats)
    return {
        "shape": HITS_SHAPE,
        "kernel": kernel,
        "numpy": numpy,
        "bound": bound,
        "speedup_over_numpy": numpy["min_s"] / kernel["min_s"],
        "ratio_to_bound": kernel["min_s"] / bound["min_s"],
    }


def bench_replacement_hits(repeats: int) -> dict:
    base, table, (old, new), truth, (x, y, z) = _hits_problem(4, 2)
    np.testing.assert_array_equal(
        candidate_hits(base, table, new, truth, old),
        reference.replacement_hits(base, table, old, new, truth),
    )
    return _against_bound(
        HITS_SHAPE,
        lambda: candidate_hits(base, table, new, truth, old),
        lambda: np.add(x, y, out=z),
        repeats,
    )


FAMILY_SHAPE = (60000, 196)  # samples, features (MNIST 14 x 14)


def bench_family(repeats: int) -> dict:
    rng = np.random.default_rng(5)
    n_rows, d = FAMILY_SHAPE
    n_classes, family = 10, (17, 101, 150)
    codes_by_feature = rng.integers(0, 4, (d, n_rows))
    n_categories = np.full(d, 4)
    class_index = rng.integers(0, n_classes, n_rows)
    weights = rng.random(n_rows)
    n_cells = 4 ** len(family)

    def count():
        cells = family_cells(codes_by_feature, family, n_categories)
        return family_cell_counts(cells, class_index, weights, n_classes, n_cells)

    counts = count()
    keys = class_index * n_cells + family_cells(codes_by_feature, family, n_categories)
    bounded = np.bincount(keys, weights, n_classes * n_cells).reshape(counts.shape)
    np.testing.assert_array_equal(counts, bounded)
    return _against_bound(
        FAMILY_SHAPE, count, lambda: np.bincount(keys, weights, n_classes * n_cells), repeats
    )


def bench_counts(repeats: int) -> dict:
    rng = np.random.default_rng(1)
    n_pairs, n_rows = COUNTS_SHAPE
    d, n_classes = 60, 10
    n_categories = rng.integers(2, 6, d)
    codes = np.column_stack([rng.integers(0, r, n_rows) for r in n_categories]).T.copy()
    class_index = rng.integers(0, n_classes, n_rows)
    weights = rng.random(n_rows)
    node = 0
    pairs = [(a, b) for a in range(1, d) for b in range(a + 1, d)][:n_pairs]
    first, second = (np.array([p[i] for p in pairs]) for i in (0, 1))
    args = (codes, class_index, weights, n_classes, n_categories, node, first, second)
    counts, starts, _ = pair_family_counts(*args)
    r_node, r_second = n_categories[node], n_categories[second]
    keys = (starts[:, None] + codes[first] * r_second[:, None] + codes[second]) * r_node
    keys = (keys + class_index * (counts.shape[1] * r_node) + codes[node]).reshape(-1)
    spread = np.broadcast_to(weights, (n_pairs, n_rows)).reshape(-1).copy()
    np.testing.assert_array_equal(
        np.bincount(keys, spread, counts.size).reshape(counts.shape), counts
    )
    return _against_bound(
        COUNTS_SHAPE,
        lambda: pair_family_counts(*args),
        lambda: np.bincount(keys, spread, counts.size),
        repeats,
    )


def bench_cl_objective(repeats: int) -> dict:
    from discotree.models.bayes_net import BayesNetModel
    from discotree.models.conditional_likelihood import _Families, _Layout, _objective

    rng = np.random.default_rng(3)
    n, d, r, n_classes = CL_SHAPE
    class_index = rng.integers(0, n_classes, n)
    codes = (rng.integers(0, r, (n, d)) + class_index[:, None]) % r
    n_categories = np.full(d, r)
    weights = np.ones(n)
    parents = [()] + [(j - 1,) for j in range(1, d)]  # a chain: TAN-shaped tables
    model = BayesNetModel.maximum_likelihood(
        codes, class_index, weights, n_classes, n_categories, parents, alpha=1.0, epsilon=0.0
    )
    layout = _Layout(model)
    families = _Families(model, codes, layout)
    flat = np.concatenate([model.class_log_prior, *(t.ravel() for t in model.log_cpts)])
    args = (flat, layout, families, class_index, weights, n_classes)
    values = rng.random(families.n_params + 1)
    positions = [families.positions(c) for c in range(n_classes)]
    return _against_bound(
        CL_SHAPE,
        lambda: [_objective(*args) for _ in range(10)],
        lambda: [[np.take(values, p) for p in positions] for _ in range(10)],
        repeats,
        calls=10,
    )


def _search_problem() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
    """Generated data of :data:`SEARCH_SHAPE` with dependencies a search takes:
    codes, classes, categories, weights, number of classes."""
    rng = np.random.default_rng(2)
    n, d, r, n_classes = SEARCH_SHAPE
    class_index = rng.integers(0, n_classes, n)
    codes = (rng.integers(0, r, (n, d)) + class_index[:, None] * (np.arange(d) % 2)) % r
    codes[:, 1::3] = (codes[:, 0::3][:, : codes[:, 1::3].shape[1]] + rng.integers(0, 2, (n, 1))) % r
    return codes, class_index, np.full(d, r), np.ones(n), n_classes


def _against_the_old_way(run, old_way, label: str, repeats: int) -> dict:
    """The search ``run()`` timed as it is (pairs of parents scored together) and with
    the old way in place, ``old_way = (owner, name, value)`` setting ``owner.name``
    (under ``label``); both must find the same structure."""
    together = timed(run, repeats)
    structure = run()
    owner, name, value = old_way
    original = getattr(owner, name)
    setattr(owner, name, value)
    try:
        separate = timed(run, repeats)
        assert run() == structure
    finally:
        setattr(owner, name, original)
    return {
        "shape": SEARCH_SHAPE,
        "pairs_together": together,
        label: separate,
        "speedup": separate["min_s"] / together["min_s"],
        "edges": sum(len(p) for p in structure),
    }


def bench_order_search(repeats: int) -> dict:
    codes, class_index, n_categories, weights, n_classes = _search_problem()
    d = codes.shape[1]
    order = list(range(d))

    def run():
        state = NodeScores.naive_bayes(
            codes, class_index, weights, n_classes, n_categories, 0.0, 1e-5
        )
        return search.order_search(state, 2, order, search.Scorer(class_index, weights))

    original = search.ColumnCache.candidates

    def one_at_a_time(self, node, parent_sets):
        if all(len(p) == 2 for p in parent_sets):
            return search.StackedColumns([self.get(node, p) for p in parent_sets])
        return original(self, node, parent_sets)

    return _against_the_old_way(
        run, (search.ColumnCache, "candidates", one_at_a_time), "one_family_at_a_time", repeats
    )


def _pair_by_pair(state, columns, scorer, superparent, kids, k, current):
    """SuperParent's step 2 as it was: every pair of children scored on its own."""
    import itertools

    new = {j: columns.get(j, tuple(sorted((*state.parents[j], superparent)))) for j in kids}
    best, move = current, None
    for chosen in itertools.combinations(kids, min(2, len(kids))):
        changes = [(state.columns[j], new[j]) for j in chosen]
        above = scorer.value_above(state.joint, best, changes)
        if above is not None and above > best:
            best, move = above, (chosen, [new[j] for j in chosen])
    return best, move


def bench_superparent(repeats: int) -> dict:
    codes, class_index, n_categories, weights, n_classes = _search_problem()

    def run():
        state = NodeScores.naive_bayes(
            codes, class_index, weights, n_classes, n_categories, 0.0, 1e-5
        )
        return search.superparent_search(state, 2, search.Scorer(class_index, weights))

    return _against_the_old_way(
        run, (search, "_best_children", _pair_by_pair), "pair_by_pair", repeats
    )


def run(repeats: int) -> dict:
    return {
        "machine": machine(),
        "candidate_hits": bench_hits(repeats),
        "replacement_hits": bench_replacement_hits(repeats),
        "pair_family_counts": bench_counts(repeats),
        "family_counts": bench_family(max(repeats, 5)),
        "cl_objective": bench_cl_objective(repeats),
        "order_search_k2": bench_order_search(max(1, repeats - 2)),
        "superparent_k2": bench_superparent(max(1, repeats - 2)),
    }


def to_markdown(results: dict) -> str:
    hits, counts, order, cl = (
        results["candidate_hits"],
        results["pair_family_counts"],
        results["order_search_k2"],
        results["cl_objective"],
    )
    replacing, superparent = results["replacement_hits"], results["superparent_k2"]
    family = results["family_counts"]
    lines = [
        "# Structure search kernels",
        "",
        "Machine: " + json.dumps(results["machine"]),
        "",
        "The hit kernels split the candidates over the cores (as the counting kernels "
        "do); the numpy and stream bounds run on one thread.",
        "",
        "| kernel | shape | seconds (min) | bound (s) | ratio | target |",
        "|---|---|---|---|---|---|",
        f"| candidate_hits | {hits['shape']} | {hits['kernel']['min_s']:.4f} | "
        f"numpy {hits['numpy']['min_s']:.4f} | {hits['speedup_over_numpy']:.1f}x faster | "
        f">= 3x {'met' if hits['speedup_over_numpy'] >= 3 else 'MISSED'} |",
        f"| candidate_hits | {hits['shape']} | {hits['kernel']['min_s']:.4f} | "
        f"stream {hits['bound']['min_s']:.4f} | {hits['ratio_to_bound']:.2f} | "
        f"<= 1.5 {'met' if hits['ratio_to_bound'] <= 1.5 else 'MISSED'} |",
        f"| candidate_hits, old= (replacements) | {replacing['shape']} | "
        f"{replacing['kernel']['min_s']:.4f} | "
        f"stream {replacing['bound']['min_s']:.4f} | {replacing['ratio_to_bound']:.2f} | "
        f"<= 2 {'met' if replacing['ratio_to_bound'] <= 2 else 'MISSED'} |",
        f"| pair_family_counts | {counts['shape']} | {counts['kernel']['min_s']:.4f} | "
        f"bincount {counts['bound']['min_s']:.4f} | {counts['ratio_to_bound']:.2f} | "
        f"<= 1.5 {'met' if counts['ratio_to_bound'] <= 1.5 else 'MISSED'} |",
        f"| family_cells + family_cell_counts | {family['shape']} | "
        f"{family['kernel']['min_s']:.5f} | bincount {family['bound']['min_s']:.5f} | "
        f"{family['ratio_to_bound']:.2f} | "
        f"<= 2 {'met' if family['ratio_to_bound'] <= 2 else 'MISSED'} |",
        f"| CL objective x {cl['calls']} | {cl['shape']} | {cl['kernel']['min_s']:.4f} | "
        f"gather {cl['bound']['min_s']:.4f} | {cl['ratio_to_bound']:.2f} | "
        f"<= 5 {'met' if cl['ratio_to_bound'] <= 5 else 'MISSED'} |",
        "",
        f"Order search, k = 2, {order['shape']} (samples, attributes, categories, classes), "
        f"{order['edges']} edges: pairs counted together "
        f"{order['pairs_together']['min_s']:.2f} s, one family at a time "
        f"{order['one_family_at_a_time']['min_s']:.2f} s ({order['speedup']:.1f}x), "
        "the same structure.",
        "",
        f"SuperParent, k = 2, the same data, {superparent['edges']} edges: pairs of children "
        f"scored together {superparent['pairs_together']['min_s']:.2f} s, pair by pair "
        f"{superparent['pair_by_pair']['min_s']:.2f} s ({superparent['speedup']:.1f}x), "
        "the same structure.",
        "",
    ]
    return "\n".join(lines)


def main() -> None:
    run_benchmark(__doc__, "search", run, to_markdown)


if __name__ == "__main__":
    main()
