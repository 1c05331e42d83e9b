"""The compiled program of a variable elimination against its slow reference (the
same program in Python, with sets and dictionaries): the same arrays on random networks,
subsets of nodes, missing features and orders, and the same faults."""

import math

import numpy as np
import pytest

from discotree.kernels.elimination_program import PROGRAM_FAULTS, elimination_program
from discotree.models.elimination_order import elimination_order
from discotree.models.elimination_plan import FlatTables, elimination_plan


def _ints(values):
    return np.asarray(values, dtype=np.int64).reshape(-1)


def reference_program(parents, n_categories, nodes, missing, order, tables):
    """The program in Python, with sets (the arrays of the compiled one)."""
    # (plain integers: the loops below index them once per variable and factor)
    n_categories = np.asarray(n_categories).tolist()
    source_at, class_stride = [], []
    observed_start, observed_vars, observed_strides = [0], [], []
    kept_start, kept_strides, kept_cards = [0], [], []
    scopes = []
    for j in sorted(set(nodes)):
        family = (*parents[j], j)
        strides = tables.strides(j)
        source_at.append(int(tables.table_at[j]))
        class_stride.append(int(tables.class_strides[j]))
        kept = tuple(sorted({int(v) for v in family if v in missing}))
        for v in sorted({int(v) for v in family} - set(kept)):
            observed_vars.append(v)
            observed_strides.append(strides[v])
        for v in kept:
            kept_strides.append(strides[v])
            kept_cards.append(int(n_categories[v]))
        observed_start.append(len(observed_vars))
        kept_start.append(len(kept_strides))
        scopes.append(kept)
    cells = [math.prod(int(n_categories[v]) for v in scope) for scope in scopes]
    live = [f for f, scope in enumerate(scopes) if scope]
    steps = _Steps(n_categories)
    for variable in order:
        joined = [f for f in live if variable in scopes[f]]
        live = [f for f in live if variable not in scopes[f]]
        if not joined:
            raise ValueError(f"elimination_plan: no factor holds variable {variable}")
        # the factors joined two at a time, the one adding the fewest cells next, the
        # variable summed out by the last product
        current = min(joined, key=lambda f: (cells[f], f))
        rest = [f for f in joined if f != current]
        while True:
            if rest:
                held = set(scopes[current])
                other = min(rest, key=lambda f: (_cells(held.union(scopes[f]), n_categories), f))
                rest.remove(other)
                union = held.union(scopes[other])
                within = [f for f in rest if set(scopes[f]) <= union]
                rest = [f for f in rest if f not in within]
                pair = [current, other, *within]
            else:
                pair = [current]
            union = {v for f in pair for v in scopes[f]}
            closing = not rest
            scope = tuple(sorted(union - {variable} if closing else union))
            steps.add(pair, [scopes[f] for f in pair], scope, variable if closing else None)
            scopes.append(scope)
            cells.append(_cells(scope, n_categories))
            current = len(scopes) - 1
            if closing:
                break
        if scopes[current]:
            live.append(current)
    if live:
        left = sorted({v for f in live for v in scopes[f]})
        raise ValueError(f"elimination_plan: the order leaves variables {left} summed")
    factor_at = _ints(_placed(cells, len(source_at), steps))
    arrays = (
        _ints(source_at),
        _ints(class_stride),
        _ints(observed_start),
        _ints(observed_vars),
        _ints(observed_strides),
        _ints(kept_start),
        _ints(kept_strides),
        _ints(kept_cards),
        factor_at,
        *steps.arrays(),
    )
    return arrays


def _placed(cells, n_sources, steps):
    """Where each factor starts in the buffer (in configurations), then the buffer's
    size: the sources one after the other, each step's factor in the first gap that
    holds it (first fit) outside the factors it reads, which are freed after it (each
    is read once): the buffer holds the factors alive at once, not all of them."""
    at = [0] * len(cells)
    extent = 0
    for f in range(n_sources):
        at[f], extent = extent, extent + cells[f]
    gaps = []  # (start, stop), sorted, disjoint
    for s in range(len(steps.closing)):
        f = n_sources + s
        place = next((a for a, b in gaps if b - a >= cells[f]), None)
        if place is None:
            place, extent = extent, extent + cells[f]
        else:
            gaps = _taken(gaps, place, place + cells[f])  # (still sorted and apart)
        at[f] = place
        read = steps.involved[steps.step_start[s] : steps.step_start[s + 1]]
        gaps = _freed(gaps, [(at[g], at[g] + cells[g]) for g in read])
    return [*at, extent]


def _taken(gaps, start, stop):
    out = []
    for a, b in gaps:
        if b <= start or a >= stop:
            out.append((a, b))
            continue
        if a < start:
            out.append((a, start))
        if stop < b:
            out.append((stop, b))
    return out


def _freed(gaps, spans):
    merged = []
    for a, b in sorted(gaps + [span for span in spans if span[1] > span[0]]):
        if merged and a <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], b))
        else:
            merged.append((a, b))
    return merged


def _cells(scope, n_categories):
    return math.prod(int(n_categories[v]) for v in scope)


class _Steps:
    """The steps' arrays of a program (see :mod:`~discotree.kernels.elimination`)."""

    def __init__(self, n_categories) -> None:
        self.n_categories = n_categories
        self.step_start, self.out_start, self.stride_start = [0], [0], [0]
        self.involved, self.out_cards, self.strides = [], [], []
        self.var_strides, self.var_cards, self.closing = [], [], []

    def add(self, factors, scopes, scope, summed):
        """A step multiplying ``factors`` (over ``scopes``) into a factor over ``scope``,
        summing ``summed`` out (None: a product on the way)."""
        for f, within_scope in zip(factors, scopes, strict=True):
            within = _strides_within(within_scope, self.n_categories)
            self.involved.append(f)
            self.var_strides.append(0 if summed is None else within[summed])
            self.strides.extend(within.get(v, 0) for v in scope)
        self.var_cards.append(1 if summed is None else int(self.n_categories[summed]))
        self.closing.append(int(summed is not None))
        self.out_cards.extend(int(self.n_categories[v]) for v in scope)
        self.step_start.append(len(self.involved))
        self.out_start.append(len(self.out_cards))
        self.stride_start.append(len(self.strides))

    def arrays(self):
        return tuple(
            _ints(a)
            for a in (
                self.step_start,
                self.involved,
                self.out_start,
                self.out_cards,
                self.stride_start,
                self.strides,
                self.var_strides,
                self.var_cards,
                self.closing,
            )
        )


def _strides_within(scope, n_categories):
    """Each variable's stride in a factor over ``scope`` (C order, the last fastest)."""
    out, stride = {}, 1
    for v in reversed(scope):
        out[v] = stride
        stride *= int(n_categories[v])
    return out


def _network(rng, n_features, k):
    n_categories = rng.integers(1, 5, n_features)
    parents = [
        tuple(int(p) for p in sorted(rng.choice(j, size=min(j, int(rng.integers(0, k + 1))),
                                                replace=False)))
        for j in range(n_features)
    ]  # fmt: skip
    log_tables = [np.zeros((2, *n_categories[list(pa)], n_categories[j]))
                  for j, pa in enumerate(parents)]  # fmt: skip
    return n_categories, parents, log_tables


@pytest.mark.parametrize("seed", range(60))
def test_the_compiled_program_equals_the_reference(seed):
    rng = np.random.default_rng(seed)
    n_features = int(rng.integers(1, 16))
    n_categories, parents, log_tables = _network(rng, n_features, int(rng.integers(1, 6)))
    nodes = [j for j in range(n_features) if rng.random() < 0.85]
    tables = FlatTables.of(log_tables, parents, nodes)
    missing = {int(v) for v in np.flatnonzero(rng.random(n_features) < 0.6)}
    held = sorted({v for j in nodes for v in (*parents[j], j) if v in missing})
    scopes = [[v for v in (*parents[j], j) if v in missing] for j in nodes]
    if seed % 2:
        order = list(elimination_order(scopes, {v: int(n_categories[v]) for v in held}).order)
    else:
        order = [int(v) for v in rng.permutation(held)]
    expected = reference_program(parents, n_categories, nodes, missing, order, tables)
    plan = elimination_plan(n_categories, nodes, missing, order, tables)
    assert len(plan.arrays) == len(expected) == 18
    for got, want in zip(plan.arrays, expected, strict=True):
        assert got.dtype == np.int64 and got.tolist() == want.tolist()
    assert plan.cells == expected[8][-1]


@pytest.mark.parametrize("seed", range(8))
def test_the_same_faults_as_the_reference(seed):
    rng = np.random.default_rng(100 + seed)
    n_categories, parents, log_tables = _network(rng, 9, 3)
    tables = FlatTables.of(log_tables, parents, range(9))
    missing = {int(v) for v in rng.choice(9, size=5, replace=False)}
    held = sorted(missing)
    for order in (
        held[:-1],
        [*held, held[0]],
        [*held[1:], 100 % 9 if 100 % 9 not in held else next(v for v in range(9) if v not in held)],
    ):
        with pytest.raises(ValueError) as expected:
            reference_program(parents, n_categories, range(9), missing, order, tables)
        with pytest.raises(ValueError, match="elimination_plan: ") as got:
            elimination_plan(n_categories, range(9), missing, order, tables)
        assert str(got.value) == str(expected.value)


def test_a_factor_past_the_counted_configurations_is_a_fault():
    # a binary feature, the parent of 63 binary others, summed out first: its factor
    # joins them all, 2 ** 63 configurations
    n = 64
    family_start = np.array([0, *range(1, 2 * n, 2)], dtype=np.int64)
    members = np.array([0, *[v for j in range(1, n) for v in (0, j)]], dtype=np.int64)
    out = elimination_program(
        family_start, members, np.ones(len(members), dtype=np.int64),
        np.zeros(n, dtype=np.int64), np.ones(n, dtype=np.int64), np.arange(n, dtype=np.int64),
        np.ones(n, dtype=bool), np.full(n, 2, dtype=np.int64), np.arange(n, dtype=np.int64),
    )  # fmt: skip
    assert PROGRAM_FAULTS[out[-2]].startswith("a factor or the buffer would hold more")
    # (with 40 others, 2 ** 40 configurations: counted)
    n = 41
    out = elimination_program(
        family_start[: n + 1], members[: 2 * n - 1], np.ones(2 * n - 1, dtype=np.int64),
        np.zeros(n, dtype=np.int64), np.ones(n, dtype=np.int64), np.arange(n, dtype=np.int64),
        np.ones(n, dtype=bool), np.full(n, 2, dtype=np.int64), np.arange(n, dtype=np.int64),
    )  # fmt: skip
    assert out[-2] == 0
    # (sources of 2 ** 62 and 2 cells: a buffer past the count)
    out = elimination_program(
        np.array([0, 0, 2, 3], dtype=np.int64), np.array([0, 1, 2], dtype=np.int64),
        np.ones(3, dtype=np.int64), np.zeros(3, dtype=np.int64), np.ones(3, dtype=np.int64),
        np.array([1, 2], dtype=np.int64), np.ones(3, dtype=bool),
        np.array([1 << 31, 1 << 31, 2], dtype=np.int64), np.arange(3, dtype=np.int64),
    )  # fmt: skip
    assert out[-2] == 3
