"""Slow, obviously correct versions of every kernel, for the tests (and the benchmarks that
time a kernel against its plain version); not part of the installed package.

Plain Python loops; no helper is shared with the fast code.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from discotree.numerics import argmax_with_ties


def univariate_counts(codes, class_index, weights, n_categories, n_classes):
    """Reference for :func:`discotree.kernels.counts.univariate_counts`."""
    offsets = [0]
    for r in n_categories:
        offsets.append(offsets[-1] + int(r))
    out = np.zeros((n_classes, offsets[-1]))
    for s in range(len(codes)):
        for f in range(len(n_categories)):
            v = int(codes[s][f])
            if v >= 0:
                out[int(class_index[s]), offsets[f] + v] += float(weights[s])
    return out


def pairwise_counts(codes, class_index, weights, n_categories, n_classes):
    """Reference for :func:`discotree.kernels.counts.pairwise_counts` (weights may be None)."""
    offsets = [0]
    for r in n_categories:
        offsets.append(offsets[-1] + int(r))
    d = len(n_categories)
    out = np.zeros((n_classes, offsets[-1], offsets[-1]))
    for s in range(len(codes)):
        w = 1.0 if weights is None else float(weights[s])
        c = int(class_index[s])
        for i in range(d):
            for j in range(d):
                a, b = int(codes[s][i]), int(codes[s][j])
                if a >= 0 and b >= 0:
                    out[c, offsets[i] + a, offsets[j] + b] += w
    return out


def mutual_information(table):
    """MI in nats of a 2-D count table, by the definition."""
    n = sum(float(v) for row in table for v in row)
    if n <= 0:
        return 0.0
    rows = [sum(float(v) for v in row) for row in table]
    cols = [sum(float(table[a][b]) for a in range(len(table))) for b in range(len(table[0]))]
    mi = 0.0
    for a in range(len(table)):
        for b in range(len(table[0])):
            p = float(table[a][b]) / n
            if p > 0:
                mi += p * math.log(p / ((rows[a] / n) * (cols[b] / n)))
    return mi


def pair_table(codes, class_index, weights, i, j, ri, rj, c):
    """Weighted table of features i, j over the class-c rows where both are observed."""
    table = [[0.0] * rj for _ in range(ri)]
    for s in range(len(codes)):
        if int(class_index[s]) != c:
            continue
        a, b = int(codes[s][i]), int(codes[s][j])
        if a >= 0 and b >= 0:
            table[a][b] += 1.0 if weights is None else float(weights[s])
    return table


def pairwise_moments(values, class_index, weights, n_classes):
    """Reference for :func:`discotree.kernels.counts.pairwise_moments`."""
    n, d = values.shape
    out = [np.zeros((n_classes, d, d)) for _ in range(4)]
    for s in range(n):
        w = 1.0 if weights is None else float(weights[s])
        c = int(class_index[s])
        for i in range(d):
            for j in range(d):
                xi, xj = values[s, i], values[s, j]
                if math.isnan(xi) or math.isnan(xj):
                    continue
                out[0][c, i, j] += w
                out[1][c, i, j] += w * xi
                out[2][c, i, j] += w * xi * xi
                out[3][c, i, j] += w * xi * xj
    return tuple(out)


def forest_log_likelihood(codes, parents, n_categories, log_cpts):
    """``log P(x | c)`` by enumerating every completion of the missing features.

    ``log_cpts[c][j]`` has shape (r_parent, r_j), r_parent = 1 for roots.
    """
    n_classes, d = len(parents), len(n_categories)
    out = np.empty((len(codes), n_classes))
    for s in range(len(codes)):
        missing = [f for f in range(d) if codes[s][f] < 0]
        for c in range(n_classes):
            terms = []
            for fill in itertools.product(*[range(int(n_categories[f])) for f in missing]):
                x = [int(v) for v in codes[s]]
                for f, v in zip(missing, fill, strict=True):
                    x[f] = v
                logp = 0.0
                for j in range(d):
                    p = int(parents[c][j])
                    logp += float(log_cpts[c][j][0 if p < 0 else x[p], x[j]])
                terms.append(logp)
            m = max(terms)
            out[s, c] = m + math.log(sum(math.exp(t - m) for t in terms))
    return out


def maximum_spanning_tree_prim(weights):
    """Total weight of a maximum spanning tree by Prim's algorithm (plain loops)."""
    n = len(weights)
    if n <= 1:
        return 0.0
    in_tree = [False] * n
    best = [-math.inf] * n
    best[0] = 0.0
    total = 0.0
    for _ in range(n):
        u = max((v for v in range(n) if not in_tree[v]), key=lambda v: best[v])
        in_tree[u] = True
        total += best[u]
        for v in range(n):
            if not in_tree[v] and weights[u][v] > best[v]:
                best[v] = weights[u][v]
    return total


def is_forest(n, edges):
    """True when the undirected edge set has no cycle (plain union by relabelling)."""
    label = list(range(n))
    for i, j in edges:
        if label[i] == label[j]:
            return False
        old, new = label[j], label[i]
        label = [new if v == old else v for v in label]
    return True


def best_forest_weight(weights, k):
    """Largest total weight of an acyclic set of exactly k edges, by enumeration."""
    n = len(weights)
    candidates = [(i, j) for i in range(n) for j in range(i + 1, n)]
    best = -math.inf
    for subset in itertools.combinations(candidates, k):
        if is_forest(n, subset):
            best = max(best, sum(weights[i][j] for i, j in subset))
    return best


def spanning_trees(n):
    """Every labelled spanning tree of the complete graph on n nodes (Prüfer decoding)."""
    if n == 1:
        yield []
        return
    if n == 2:
        yield [(0, 1)]
        return
    for seq in itertools.product(range(n), repeat=n - 2):
        degree = [1] * n
        for v in seq:
            degree[v] += 1
        edges = []
        for v in seq:
            leaf = min(u for u in range(n) if degree[u] == 1)
            edges.append((min(leaf, v), max(leaf, v)))
            degree[leaf] -= 1
            degree[v] -= 1
        u, w = [x for x in range(n) if degree[x] == 1]
        edges.append((u, w))
        yield edges


def kruskal(weights, max_edges=None, positive_only=False):
    """Kruskal over all candidates sorted by (weight descending, i, j), plain loops;
    consecutive weights (in descending order) within 1e-9 * max(|w|, 1) of each other
    tie, and ties go by (i, j)."""
    n = len(weights)
    ranked = sorted((-float(weights[i][j]), i, j) for i in range(n) for j in range(i + 1, n))
    candidates, group = [], 0
    for k, (neg_w, i, j) in enumerate(ranked):
        if k and (-ranked[k - 1][0]) - (-neg_w) > 1e-9 * max(abs(ranked[k - 1][0]), 1.0):
            group += 1
        candidates.append((group, i, j, neg_w))
    candidates = [(neg_w, i, j) for _, i, j, neg_w in sorted(candidates)]
    limit = n - 1 if max_edges is None else max_edges
    label = list(range(n))  # component label of every node
    edges = []
    for neg_w, i, j in candidates:
        if len(edges) >= limit or (positive_only and -neg_w <= 0):
            break
        if label[i] != label[j]:
            edges.append((i, j))
            old = label[j]
            label = [label[i] if v == old else v for v in label]
    return edges


def mdl_cut_points(values, class_index, weights, n_classes):
    """Fayyad-Irani MDL cut points by plain recursion over the samples."""

    def entropy(rows):
        total = sum(w for _, _, w in rows)
        if total <= 0:
            return 0.0
        out = 0.0
        for c in range(n_classes):
            p = sum(w for _, k, w in rows if k == c) / total
            if p > 0:
                out -= p * math.log2(p)
        return out

    def split(rows):
        distinct = sorted({v for v, _, _ in rows})
        if len(distinct) < 2:
            return []
        n = sum(w for _, _, w in rows)
        best = None
        for a, b in itertools.pairwise(distinct):
            cut = (a + b) / 2
            s1 = [r for r in rows if r[0] <= cut]
            s2 = [r for r in rows if r[0] > cut]
            n1, n2 = sum(w for *_, w in s1), sum(w for *_, w in s2)
            e = (n1 * entropy(s1) + n2 * entropy(s2)) / n
            if best is None or e < best[0] - 1e-12:
                best = (e, cut, s1, s2)
        e, cut, s1, s2 = best
        ent = entropy(rows)

        def n_cls(rs):
            return len({k for _, k, w in rs if w > 0})

        k, k1, k2 = n_cls(rows), n_cls(s1), n_cls(s2)
        delta = math.log2(3**k - 2) - (k * ent - k1 * entropy(s1) - k2 * entropy(s2))
        if n <= 1 or ent - e <= (math.log2(n - 1) + delta) / n:
            return []
        return [*split(s1), cut, *split(s2)]

    rows = [
        (float(v), int(c), float(w))
        for v, c, w in zip(values, class_index, weights, strict=False)
        if w > 0
    ]
    return sorted(split(rows))


def discriminative_weights(codes, class_index, weights, n_categories, positive, negative, alpha):
    """psi(+), psi(-) of Tan et al. 2010, eq. 21 by its definition: E_p[f] - E_q[f], f = log p/(p
    p)."""
    d = len(n_categories)
    psi_pos = np.zeros((d, d))
    psi_neg = np.zeros((d, d))

    def smoothed(table):
        cells = [[v + alpha for v in row] for row in table]
        total = sum(map(sum, cells))
        return [[v / total for v in row] for row in cells]

    def expectation(dist, f):
        return sum(dist[a][b] * f[a][b] for a in range(len(dist)) for b in range(len(dist[0])))

    for i in range(d):
        for j in range(i + 1, d):
            ri, rj = int(n_categories[i]), int(n_categories[j])
            p = smoothed(pair_table(codes, class_index, weights, i, j, ri, rj, positive))
            q = smoothed(pair_table(codes, class_index, weights, i, j, ri, rj, negative))
            for first, second, out in ((p, q, psi_pos), (q, p, psi_neg)):
                rows = [sum(first[a]) for a in range(ri)]
                cols = [sum(first[a][b] for a in range(ri)) for b in range(rj)]
                f = [
                    [math.log(first[a][b] / (rows[a] * cols[b])) for b in range(rj)]
                    for a in range(ri)
                ]
                out[i, j] = out[j, i] = expectation(first, f) - expectation(second, f)
    return psi_pos, psi_neg


def kernel_density(points, weights, query, bandwidths, leave_out=None):
    """Reference for the 1-D/2-D Gaussian (product) kernel density estimates of
    :mod:`discotree.kernels.kde`: ``sum_l w_l prod_a phi((q_a - x_la)/h_a)/h_a / sum_l w_l``.

    ``points`` and ``query`` are lists of tuples (one coordinate per axis); with
    ``leave_out = (k, w_out)`` the query is training point k and weight ``w_out`` of its
    own kernel is removed from numerator and denominator.
    """
    out = []
    for q in query:
        numerator, denominator = 0.0, 0.0
        for x, w in zip(points, weights, strict=True):
            value = float(w)
            for a, h in enumerate(bandwidths):
                z = (q[a] - x[a]) / h
                value *= math.exp(-0.5 * z * z) / (math.sqrt(2 * math.pi) * h)
            numerator += value
            denominator += float(w)
        if leave_out is not None:
            _, w_out = leave_out
            own = float(w_out)
            for h in bandwidths:
                own /= math.sqrt(2 * math.pi) * h
            numerator -= own
            denominator -= float(w_out)
        out.append(numerator / denominator if denominator > 0 else 0.0)
    return np.array(out)


def family_table(codes, class_index, weights, n_classes, n_categories, node, parents):
    """Reference for the family counts n(c, x_parents, x_node), shape (C, r_pa..., r):
    rows with the node or a parent missing left out."""
    shape = [n_classes] + [int(n_categories[v]) for v in (*parents, node)]
    table = np.zeros(shape)
    for s in range(len(codes)):
        values = [int(codes[s][v]) for v in (*parents, node)]
        if min(values) >= 0:
            table[(int(class_index[s]), *values)] += float(weights[s])
    return table


def _network_rate(codes, class_index, weights, n_classes, n_categories, structure, alpha, epsilon):
    """Training classification rate of the network ``structure`` (parent tuples) with
    ML parameters refitted from scratch, every sample scored. Scoring convention of the
    fast code: a missing node value contributes 0 and a missing parent means
    P(x_j | c); ties go to the lowest class."""
    n = len(n_categories)

    def log_cpt(node, pa):
        table = family_table(codes, class_index, weights, n_classes, n_categories, node, pa)
        table = table + alpha
        totals = table.sum(axis=-1, keepdims=True)
        prob = np.where(totals > 0, table / np.where(totals > 0, totals, 1), 1.0 / table.shape[-1])
        prob = np.where(prob <= 0, epsilon, prob)
        return np.log(prob / prob.sum(axis=-1, keepdims=True))

    tables = [log_cpt(j, pa) for j, pa in enumerate(structure)]
    marginals = [log_cpt(j, ()) for j in range(n)]
    prior = [0.0] * n_classes
    for s in range(len(codes)):
        prior[int(class_index[s])] += float(weights[s])
    total = sum(prior)
    correct = 0.0
    for s in range(len(codes)):
        scores = []
        for c in range(n_classes):
            value = math.log(prior[c] / total)
            for j, pa in enumerate(structure):
                x = int(codes[s][j])
                if x < 0:
                    continue
                if all(int(codes[s][p]) >= 0 for p in pa):
                    value += tables[j][(c, *[int(codes[s][p]) for p in pa], x)]
                else:
                    value += marginals[j][c, x]
            scores.append(value)
        if max(range(n_classes), key=lambda c: (scores[c], -c)) == int(class_index[s]):
            correct += float(weights[s])
    return correct / total


def order_cr_structure(
    codes, class_index, weights, n_classes, n_categories, k, order, alpha, epsilon
):
    """Reference for :func:`discotree.structure.bayes_net_search.order_search` (CR):
    for each attribute of ``order`` in turn, every set of min(k, position) earlier
    attributes is tried as its parents by refitting the whole network; the first
    strictly best is kept if it beats the current network."""
    n = len(n_categories)
    parents = [()] * n

    def rate(structure):
        return _network_rate(
            codes, class_index, weights, n_classes, n_categories, structure, alpha, epsilon
        )

    current = rate(parents)
    for position in range(1, n):
        node, best, move = order[position], current, None
        for candidate in itertools.combinations(sorted(order[:position]), min(k, position)):
            trial = list(parents)
            trial[node] = candidate
            value = rate(trial)
            if value > best:
                best, move = value, trial
        if move is not None:
            parents, current = move, best
    return parents


def greedy_cr_structure(codes, class_index, weights, n_classes, n_categories, k, alpha, epsilon):
    """Reference for :func:`discotree.structure.bayes_net_search.greedy_search` (CR):
    refits every candidate network from scratch and scores all samples, no caching and
    no early abandoning (:func:`_network_rate`)."""
    n = len(n_categories)
    parents = [()] * n

    def rate(structure):
        return _network_rate(
            codes, class_index, weights, n_classes, n_categories, structure, alpha, epsilon
        )

    def ancestors(structure, v):
        seen, stack = set(), [v]
        while stack:
            u = stack.pop()
            for p in structure[u]:
                if p not in seen:
                    seen.add(p)
                    stack.append(p)
        return seen

    current = rate(parents)
    while True:
        best, move = current, None
        for child in range(n):
            if len(parents[child]) >= k:
                continue
            for parent in range(n):
                if parent == child or parent in parents[child]:
                    continue
                if parent in ancestors(parents, parent) or child in ancestors(parents, parent):
                    continue
                trial = list(parents)
                trial[child] = tuple(sorted((*parents[child], parent)))
                value = rate(trial)
                if value > best:
                    best, move = value, trial
        if move is None:
            return parents
        parents, current = move, best


def _observed_rows(codes, columns):
    """The rows where every one of ``columns`` is observed (available-case analysis)."""
    return [s for s in range(len(codes)) if all(int(codes[s][v]) >= 0 for v in columns)]


def class_information(codes, class_index, weights, columns, within=None):
    """I(C; X_columns) from the dictionary histogram of (c, x_columns) over the rows
    where every column of ``within`` (default: ``columns``) is observed."""
    joint, by_x, by_c = {}, {}, {}
    for s in _observed_rows(codes, columns if within is None else within):
        x = tuple(int(codes[s][v]) for v in columns)
        c = int(class_index[s])
        w = float(weights[s])
        joint[(c, x)] = joint.get((c, x), 0.0) + w
        by_x[x] = by_x.get(x, 0.0) + w
        by_c[c] = by_c.get(c, 0.0) + w
    total = sum(by_c.values())
    return sum(
        m / total * math.log(m * total / (by_c[c] * by_x[x]))
        for (c, x), m in joint.items()
        if m > 0
    )


def conditional_class_information(codes, class_index, weights, v, given):
    """I(C; X_v | X_given) = I(C; X_v, X_given) - I(C; X_given), both on the rows where
    v and every attribute of ``given`` are observed."""
    within = [*given, v]
    return class_information(codes, class_index, weights, within) - class_information(
        codes, class_index, weights, list(given), within
    )


def omi_order(codes, class_index, weights, minimize=False):
    """Reference for :func:`discotree.structure.orderings.omi_order`: plain
    dictionary histograms, every information on the rows where its attributes are
    observed (available-case). The first pair maximises I(C; X_i, X_j) (the earlier
    pair on ties within 1e-12), the one with larger I(C; X) first (the lower index on a
    tie); then the attribute maximising I(C; X | earlier) (the lowest index on ties
    within 1e-12)."""
    n = len(codes[0])
    sign = -1.0 if minimize else 1.0  # minimize: every argmax an argmin
    single = [sign * class_information(codes, class_index, weights, [v]) for v in range(n)]
    best, pair = -math.inf, (0, 1)
    for i in range(n):
        for j in range(i + 1, n):
            value = sign * class_information(codes, class_index, weights, [i, j])
            if value > best + 1e-12:
                best, pair = value, (i, j)
    i, j = pair
    order = [i, j] if single[i] >= single[j] - 1e-12 else [j, i]
    while len(order) < n:
        best, chosen = -math.inf, None
        for v in range(n):
            if v not in order:
                value = sign * conditional_class_information(codes, class_index, weights, v, order)
                if value > best + 1e-12:
                    best, chosen = value, v
        order.append(chosen)
    return order


def omisp_order(codes, class_index, weights):
    """Reference for :func:`discotree.structure.orderings.omisp_order` (available-case,
    ties to the lowest index within 1e-12): next the attribute maximising
    max over earlier X' of I(C; X | X')."""
    n = len(codes[0])
    single = [class_information(codes, class_index, weights, [v]) for v in range(n)]
    order = [next(v for v in range(n) if single[v] >= max(single) - 1e-12)]
    while len(order) < n:
        values = {
            v: max(
                conditional_class_information(codes, class_index, weights, v, [u]) for u in order
            )
            for v in range(n)
            if v not in order
        }
        top = max(values.values())
        order.append(next(v for v in sorted(values) if values[v] >= top - 1e-12))
    return order


def ocr_order(codes, class_index, weights, n_classes):
    """Reference for :func:`discotree.structure.orderings.ocr_order` (available-case):
    next the attribute whose saturated model P(C, earlier, X), on the rows where they
    are all observed, classifies those rows best (ties: the first class, then the
    lowest index)."""
    n = len(codes[0])
    order = []
    while len(order) < n:
        rates = {}
        for v in range(n):
            if v in order:
                continue
            table = {}
            rows = _observed_rows(codes, [*order, v])
            for s in rows:
                key = tuple(int(codes[s][u]) for u in [*order, v])
                row = table.setdefault(key, [0.0] * n_classes)
                row[int(class_index[s])] += float(weights[s])
            right = sum(
                float(weights[s])
                for s in rows
                if int(class_index[s])
                == max(
                    range(n_classes),
                    key=lambda c, s=s: (table[tuple(int(codes[s][u]) for u in [*order, v])][c], -c),
                )
            )
            total = sum(float(weights[s]) for s in rows)
            rates[v] = right / total if total > 0 else 0.0
        top = max(rates.values())
        order.append(next(v for v in sorted(rates) if rates[v] == top))
    return order


def set_entropy(codes, class_index, weights, columns, given_class=False, within=None):
    """Reference for the discrete set entropies of
    :mod:`discotree.stats.set_information`: ``H(X_columns)`` or ``H(X_columns | C)`` of
    the weighted histogram over the rows where every column of ``within`` (default:
    ``columns``) is observed, plain loops; ``within=()`` counts every row, a missing
    value as a value."""
    rows = _observed_rows(codes, columns if within is None else within)

    def entropy_of(key):
        mass = {}
        for s in rows:
            k = key(s)
            mass[k] = mass.get(k, 0.0) + float(weights[s])
        total = sum(mass.values())
        if total <= 0:
            return 0.0
        return -sum(m / total * math.log(m / total) for m in mass.values() if m > 0)

    def values(s):
        return tuple(int(codes[s][v]) for v in columns)

    if not given_class:
        return entropy_of(values)
    return entropy_of(lambda s: (int(class_index[s]), *values(s))) - entropy_of(
        lambda s: int(class_index[s])
    )


def ear_tree(codes, class_index, weights):
    """Reference for :func:`discotree.structure.ear.ear_tree` with exhaustive splits:
    Narasimhan & Bilmes 2005, Algorithm 3 with every split of every separator tried (plain loops
    over
    subsets, entropies from :func:`set_entropy`). Returns the set of edges and the list
    of (separator, {part, rest}) splits."""
    cache = {}

    def h(columns, given_class, within):
        key = (tuple(sorted(columns)), given_class, tuple(sorted(within)))
        if key not in cache:
            cache[key] = set_entropy(codes, class_index, weights, key[0], given_class, key[2])
        return cache[key]

    def information(s, t, z, given_class):
        # every entropy on the rows where all of s, t and z are observed (available-case)
        w = s | t | z
        return (
            h(s | z, given_class, w)
            + h(t | z, given_class, w)
            - h(s | t | z, given_class, w)
            - h(z, given_class, w)
        )

    edges, splits = set(), []

    def build(features):
        if len(features) <= 1:
            return
        if len(features) == 2:
            edges.add(tuple(sorted(features)))
            return
        best = None
        for x in sorted(features):
            others = sorted(features - {x})
            for size in range(1, len(others)):
                for part in itertools.combinations(others, size):
                    part = set(part)
                    rest = set(others) - part
                    value = information(part, rest, {x}, True) - information(part, rest, {x}, False)
                    if best is None or value < best[0] - 1e-12:
                        best = (value, x, frozenset(part), frozenset(rest))
        _, x, part, rest = best
        splits.append((x, {part, rest}))
        build(part | {x})
        build(rest | {x})

    build(set(range(len(codes[0]))))
    return edges, splits


def weighted_quantile_edges(values, weights, n_bins):
    """Quantile bin edges by sorting: the weighted quantiles ``k / n_bins`` (the
    smallest value whose cumulative weight in sorted order reaches the level, with a
    1e-12 relative tolerance), duplicates and the maximum removed."""
    keep = (weights > 0) & ~np.isnan(values)
    values, weights = values[keep], weights[keep]
    if len(values) == 0:
        return np.empty(0)
    order = np.argsort(values, kind="stable")
    values, weights = values[order], weights[order]
    cumulative = np.cumsum(weights)
    levels = np.arange(1, n_bins) / n_bins * cumulative[-1]
    idx = np.searchsorted(cumulative, levels * (1 - 1e-12), side="left")
    edges = np.unique(values[np.minimum(idx, len(values) - 1)])
    return edges[edges < values[-1]]


def bin_codes(values, edges_per_column):
    """Bin of every value (number of edges below it), -1 for NaN."""
    out = np.full(values.shape, -1, dtype=np.intp)
    for k, edges in enumerate(edges_per_column):
        for r in range(values.shape[0]):
            x = values[r, k]
            if not np.isnan(x):
                out[r, k] = sum(1 for e in edges if e < x)
    return out


def tree_log_partition(parents, n_categories, node_theta, edge_theta):
    """Reference for :func:`discotree.kernels.tree_partition.tree_log_partition`: the
    log partition function and the log node and edge marginals by enumerating every
    joint state. Returns (phi, node_log (d, r_max), edge_log (d, r_max, r_max))."""
    d = len(n_categories)
    r_max = max(int(r) for r in n_categories)
    states = list(itertools.product(*[range(int(r)) for r in n_categories]))
    scores = []
    for x in states:
        total = 0.0
        for j in range(d):
            total += float(node_theta[j][x[j]])
            if parents[j] >= 0:
                total += float(edge_theta[j][x[int(parents[j])]][x[j]])
        scores.append(total)
    m = max(scores)
    phi = m + math.log(sum(math.exp(s - m) for s in scores))
    node = np.zeros((d, r_max))
    edge = np.zeros((d, r_max, r_max))
    for x, s in zip(states, scores, strict=True):
        p = math.exp(s - phi)
        for j in range(d):
            node[j, x[j]] += p
            if parents[j] >= 0:
                edge[j, x[int(parents[j])], x[j]] += p
    with np.errstate(divide="ignore"):
        return phi, np.log(node), np.log(edge)


def candidate_hits(base, table, index, truth):
    """Reference for :func:`discotree.kernels.candidate_scores.candidate_hits`: the
    (candidates, samples, classes) joints formed, then the package's tie rule."""
    joints = base[None, :, :] + table[index]
    return _hits_with_ties(joints, truth)


def _hits_with_ties(joints, truth):
    flat = joints.reshape(-1, joints.shape[2])
    with np.errstate(invalid="ignore"):
        predicted = argmax_with_ties(flat).reshape(joints.shape[:2])
    return predicted == truth[None, :]


def replacement_hits(base, table, old, new, truth):
    """Reference for :func:`discotree.kernels.candidate_scores.candidate_hits` with
    ``old`` (candidates replacing another column each): the
    (candidates, samples, classes) joints formed, then the package's tie rule."""
    with np.errstate(invalid="ignore"):  # -inf - -inf: NaN, as the kernel
        joints = base[None, :, :] - table[old] + table[new]
    return _hits_with_ties(joints, truth)


def cl_objective(flat, shapes, codes, parents, n_categories, class_index, weights, n_classes):
    """Reference for the CL objective of :mod:`discotree.models.conditional_likelihood`
    (negative CLL and its gradient in the flat softmax parameters: class prior, then
    each node's table (C, r_pa..., r_j) in C order), node by node as Section 4.2
    writes it; a sample skips the families where it misses a value."""
    from scipy.special import logsumexp

    sizes = [int(np.prod(s)) for s in shapes]
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    bounds = zip(offsets[:-1], offsets[1:], shapes, strict=True)
    parts = [flat[a:b].reshape(s) for a, b, s in bounds]
    families = []
    for j, pa in enumerate(parents):
        index = np.zeros(len(codes), dtype=np.intp)
        observed = np.ones(len(codes), dtype=bool)
        for v in (*pa, j):
            observed &= codes[:, v] >= 0
            index = index * int(n_categories[v]) + np.maximum(codes[:, v], 0)
        families.append((index, observed))
    log_prior = parts[0] - logsumexp(parts[0])
    joint = np.tile(log_prior, (len(class_index), 1))
    log_thetas = []
    for beta, (index, observed) in zip(parts[1:], families, strict=True):
        log_theta = beta - logsumexp(beta, axis=-1, keepdims=True)
        log_thetas.append(log_theta)
        joint[observed] += log_theta.reshape(n_classes, -1)[:, index[observed]].T
    log_norm = logsumexp(joint, axis=1)
    rows = np.arange(len(class_index))
    cll = float(weights @ (joint[rows, class_index] - log_norm))
    A = -np.exp(joint - log_norm[:, None]) * weights[:, None]
    A[rows, class_index] += weights
    grads = [A.sum(axis=0)]
    for log_theta, (index, observed) in zip(log_thetas, families, strict=True):
        cells = int(np.prod(log_theta.shape[1:]))
        G = np.zeros((n_classes, cells))
        for c in range(n_classes):
            for s in np.flatnonzero(observed):
                G[c, index[s]] += A[s, c]
        G = G.reshape(log_theta.shape)
        grads.append(G - np.exp(log_theta) * G.sum(axis=-1, keepdims=True))
    return -cll, -np.concatenate([g.ravel() for g in grads])


def family_log_joint(log_theta, base, class_stride, n_classes):
    """Reference for :func:`discotree.kernels.family_joint.family_log_joint`: plain
    loops over samples, classes and nodes."""
    n, d = base.shape
    out = np.zeros((n, n_classes))
    for s in range(n):
        for c in range(n_classes):
            for j in range(d):
                if base[s, j] >= 0:
                    out[s, c] += log_theta[base[s, j] + c * class_stride[j]]
    return out


def family_gradient(weights, base, class_stride, n_params):
    """Reference for :func:`discotree.kernels.family_joint.family_gradient`: plain
    loops."""
    out = np.zeros(n_params)
    n, d = base.shape
    for s in range(n):
        for j in range(d):
            if base[s, j] >= 0:
                for c in range(weights.shape[1]):
                    out[base[s, j] + c * class_stride[j]] += weights[s, c]
    return out


def family_cll_gradient(log_theta, log_prior, base, class_stride, class_index, weights):
    """Reference for :func:`discotree.kernels.family_joint.family_cll_gradient`: the
    joint by :func:`family_log_joint`, the posterior by scipy's ``logsumexp``, the
    scatter by :func:`family_gradient`."""
    from scipy.special import logsumexp

    n_classes = len(log_prior)
    joint = family_log_joint(log_theta, base, class_stride, n_classes) + log_prior
    log_norm = logsumexp(joint, axis=1)
    rows = np.arange(len(class_index))
    cll = float(np.sum(weights * (joint[rows, class_index] - log_norm)))
    A = -np.exp(joint - log_norm[:, None]) * weights[:, None]
    A[rows, class_index] += weights
    return cll, A.sum(axis=0), family_gradient(A, base, class_stride, len(log_theta))


def triple_counts(codes, class_index, weights, n_categories, n_classes):
    """Per triple i < j < k (lexicographic), the (C, r_i, r_j, r_k) table by a loop
    over rows; returned as a list of tables."""
    d = len(n_categories)
    out = []
    for i in range(d):
        for j in range(i + 1, d):
            for k in range(j + 1, d):
                table = np.zeros((n_classes, n_categories[i], n_categories[j], n_categories[k]))
                for row, c, w in zip(codes, class_index, weights, strict=True):
                    if row[i] >= 0 and row[j] >= 0 and row[k] >= 0:
                        table[c, row[i], row[j], row[k]] += w
                out.append(table)
    return out


def sampled_mdl_partitions(class_counts):
    """Every partition :func:`discotree.transformers.mdl.sampled_mdl_partition` can
    draw from ``class_counts`` (positions x classes), with its exact probability, by
    plain recursion: ``{tuple of bins: probability}``."""
    counts = [list(map(float, row)) for row in class_counts]
    present = [p for p, row in enumerate(counts) if sum(row) > 0]
    n_classes = len(counts[0])

    def entropy(total):
        n = sum(total)
        out = 0.0
        for x in total:
            if x > 0:
                out -= x / n * math.log2(x / n)
        return out

    def margins(lo, hi):  # cuts before positions lo+1 .. hi-1 of ``present``
        total = [sum(counts[present[p]][c] for p in range(lo, hi)) for c in range(n_classes)]
        n, ent = sum(total), entropy(total)
        out, gains = [], []
        for t in range(lo + 1, hi):
            left = [sum(counts[present[p]][c] for p in range(lo, t)) for c in range(n_classes)]
            right = [a - b for a, b in zip(total, left, strict=True)]
            e = (sum(left) * entropy(left) + sum(right) * entropy(right)) / n
            k = sum(x > 0 for x in total)
            k1, k2 = sum(x > 0 for x in left), sum(x > 0 for x in right)
            delta = math.log2(3**k - 2) - (k * ent - k1 * entropy(left) - k2 * entropy(right))
            margin = (ent - e) - (math.log2(n - 1) + delta) / n if n > 1 else -math.inf
            out.append(max(margin, 0.0))
            gains.append(max(ent - e, 0.0))
        return out, gains

    def starts(lo, hi, first):  # {frozenset of bin starts: probability}
        if hi - lo < 2:
            return {frozenset(): 1.0}
        weight, gains = margins(lo, hi)
        if sum(weight) <= 0:
            if not first or sum(gains) <= 1e-12:
                return {frozenset(): 1.0}
            total = sum(gains)
            return {frozenset([lo + 1 + m]): g / total for m, g in enumerate(gains) if g > 0}
        out: dict = {}
        total = sum(weight)
        for m, g in enumerate(weight):
            if g <= 0:
                continue
            t = lo + 1 + m
            for a, pa in starts(lo, t, False).items():
                for b, pb in starts(t, hi, False).items():
                    key = a | b | {t}
                    out[key] = out.get(key, 0.0) + g / total * pa * pb
        return out

    if len(present) < 2:
        return {tuple([0] * len(counts)): 1.0}
    result: dict = {}
    for chosen, p in starts(0, len(present), True).items():
        bounds = sorted(present[t] for t in chosen)
        bins = tuple(sum(b <= pos for b in bounds) for pos in range(len(counts)))
        result[bins] = result.get(bins, 0.0) + p
    return result


def crp_tables(customers, strength, uniforms):
    """Slow reference of :func:`discotree.kernels.crp.crp_tables`: each restaurant's
    customers in turn, the next uniform deciding whether the i-th opens a table."""
    out, k = [], 0
    for n, a in zip(customers, strength, strict=True):
        opened = 0
        for i in range(int(n)):
            opened += uniforms[k] < a / (a + i)
            k += 1
        out.append(float(opened))
    return np.array(out)


def eliminated_by_einsum(model, codes, missing, order, nodes=None):
    """``log sum_{x_missing} prod_j theta_j`` per row and class of rows missing the
    features ``missing`` (the families of ``nodes``, None: all), summed out in ``order``
    by ``numpy.einsum`` over factors of shape (rows, classes, missing variables...): the
    reference of the compiled elimination (:mod:`discotree.kernels.elimination`)."""
    import string

    codes = np.asarray(codes)
    n_rows, n_classes = len(codes), model.n_classes
    log_total = np.zeros((n_rows, n_classes))
    factors = []
    chosen = range(model.n_features) if nodes is None else nodes
    for j in chosen:
        family = (*model.parents[j], j)
        kept = tuple(v for v in family if v in missing)
        observed = [1 + i for i, v in enumerate(family) if v not in missing]
        table = np.moveaxis(model.log_cpts[j], observed, range(len(observed)))
        if observed:
            table = table[tuple(codes[:, v] for v in family if v not in missing)]
        else:
            table = np.broadcast_to(table[None], (n_rows, *table.shape))
        if not kept:
            log_total += table
            continue
        scale = table.max(axis=tuple(range(2, table.ndim)))
        log_total += scale
        factors.append((kept, np.exp(table - scale.reshape(*scale.shape, *[1] * len(kept)))))
    for variable in order:
        involved = [f for f in factors if variable in f[0]]
        factors = [f for f in factors if variable not in f[0]]
        variables = sorted({v for f in involved for v in f[0]})
        letters = {v: string.ascii_letters[2 + i] for i, v in enumerate(variables)}
        kept = tuple(v for v in variables if v != variable)
        spec = ",".join("ab" + "".join(letters[v] for v in f[0]) for f in involved)
        spec += "->ab" + "".join(letters[v] for v in kept)
        product = np.einsum(spec, *[f[1] for f in involved], optimize=True)
        if kept:
            scale = product.max(axis=tuple(range(2, product.ndim)))
            scale = np.where(scale > 0, scale, 1.0)
            log_total += np.log(scale)
            factors.append((kept, product / scale.reshape(*scale.shape, *[1] * len(kept))))
        else:
            log_total += np.log(np.maximum(product, 1e-300))
    assert not factors, "the order left variables summed"
    return log_total


def greedy_order_by_sets(scopes, arities, heuristic="min-degree"):
    """Greedy elimination orders over Python sets, written plainly (the reference of
    :func:`discotree.models.elimination_order.greedy_order`): ``(order, largest,
    total)``."""

    def degree(neighbours, v):
        return len(neighbours[v])

    def fill(neighbours, v):
        others = sorted(neighbours[v] - {v})
        return sum(1 for i, a in enumerate(others) for b in others[i + 1 :]
                   if b not in neighbours[a])  # fmt: skip

    def weight(neighbours, v):
        return math.prod(arities[u] for u in neighbours[v])

    scores = {"min-degree": (degree,), "min-fill": (fill, weight),
              "min-weight": (weight, fill)}[heuristic]  # fmt: skip
    live = [frozenset(s) for s in scopes if len(s)]
    order, largest, total = [], 1, 0
    while live:
        neighbours = {}
        for scope in live:
            for v in scope:
                neighbours.setdefault(v, set()).update(scope)
        variable = min(neighbours, key=lambda v: (*(h(neighbours, v) for h in scores), v))
        joined = frozenset(neighbours[variable])
        cells = math.prod(arities[v] for v in joined)
        order.append(variable)
        largest, total = max(largest, cells), total + cells
        live = [s for s in live if variable not in s]
        if len(joined) > 1:
            live.append(joined - {variable})
    return tuple(order), largest, total
