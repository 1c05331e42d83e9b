"""The memory guard against the memory fits take (issue 34): for a few shapes, the peak
resident memory a fit adds (Linux ``VmHWM`` after ``clear_refs``, each fit in a process
of its own) beside the estimate the guard checks before allocating
(``fit_memory_estimate_``; the counting alone: ``kernels.counts.pairwise_counts_bytes``).
Target: the estimate within 1.25x of the measured peak, either way. Also the time of the
fits that the bad-input campaign could not finish (pairwise multiclass at 1,000 classes,
10^6 rows).

Run:  python benchmarks/bench_memory.py [--out benchmarks/results] [--timeout 900]
Writes memory.json and memory.md (with the machine description) to --out.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

SHAPES = {
    "binary 200 x 5000, 2 classes": "binary",
    "10^6 x 20 (3 categories), 2 classes": "long",
    "20000 x 10 (4 categories), 1000 classes": "classes",
}
CASES = [
    ("binary", "count"),
    ("binary", "tan"),
    ("binary", "dt"),
    ("long", "count"),
    ("long", "tan"),
    ("long", "dt"),
    ("classes", "count"),
    ("classes", "tan"),
    ("classes", "dt-ovr"),
    ("classes", "dt-pairwise"),
]

CHILD = r"""
import json, sys, time, warnings
import numpy as np
warnings.simplefilter("ignore")
shape, what = sys.argv[1], sys.argv[2]
rng = np.random.default_rng(0)
if shape == "binary":
    X = rng.integers(0, 2, (200, 5000)).astype(np.int8); y = rng.integers(0, 2, 200)
elif shape == "long":
    X = rng.integers(0, 3, (10**6, 20)).astype(np.int8); y = rng.integers(0, 2, 10**6)
else:
    X = rng.integers(0, 4, (20000, 10)).astype(np.int8); y = np.arange(20000) % 1000
import discotree
from discotree import DiscriminativeTreeClassifier, TANClassifier
from discotree.kernels.counts import pairwise_counts_bytes
from discotree.stats.pair_statistics import PairStatistics

def status():
    with open("/proc/self/status") as handle:
        fields = dict(line.split(":", 1) for line in handle)
    return int(fields["VmRSS"].split()[0]) * 1024, int(fields["VmHWM"].split()[0]) * 1024

small = (X[:60, :3], np.arange(60) % 2)  # compile the kernels first
TANClassifier(alpha=1.0).fit(*small); DiscriminativeTreeClassifier(alpha=1.0).fit(*small)
before, _ = status()
with open("/proc/self/clear_refs", "w") as handle:
    handle.write("5")
start = time.perf_counter()
with discotree.config_context(memory_limit=64 * 2**30, pairwise_class_limit=10**6):
    if what == "count":
        classes, index = np.unique(y, return_inverse=True)
        r = np.full(X.shape[1], int(X.max()) + 1)
        PairStatistics.from_codes(X, index, r, len(classes))
        estimate = pairwise_counts_bytes(np.bincount(index), r)
    else:
        model = {"tan": TANClassifier(alpha=1.0),
                 "dt": DiscriminativeTreeClassifier(alpha=1.0),
                 "dt-ovr": DiscriminativeTreeClassifier(alpha=1.0, multiclass="ovr"),
                 "dt-pairwise": DiscriminativeTreeClassifier(alpha=1.0)}[what]
        model.fit(X, y)
        estimate = model.fit_memory_estimate_
seconds = time.perf_counter() - start
_, peak = status()
print(json.dumps({"peak": peak - before, "estimate": estimate, "seconds": seconds}))
"""


def run(shape: str, what: str, timeout: float) -> dict:
    try:
        done = subprocess.run(
            [sys.executable, "-c", CHILD, shape, what],
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        return {"shape": shape, "what": what, "error": f"not finished in {timeout:g} s"}
    if done.returncode != 0:
        return {"shape": shape, "what": what, "error": done.stderr.strip().splitlines()[-1]}
    return {"shape": shape, "what": what, **json.loads(done.stdout.strip().splitlines()[-1])}


def report(rows: list[dict], machine: dict) -> str:
    names = {v: k for k, v in SHAPES.items()}
    lines = [
        "# Memory guard against measured peaks (issue 34)",
        "",
        f"Machine: {machine}",
        "",
        "Each fit in a process of its own (alpha = 1); peak = resident memory the fit "
        "added (VmHWM after clear_refs, minus the resident memory before); estimate = what "
        "the guard checks before allocating (`fit_memory_estimate_`, or "
        "`pairwise_counts_bytes` for the counting alone).",
        "",
        "| shape | what | peak (MB) | estimate (MB) | estimate / peak | within 1.25x | time (s) |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        if "error" in row:
            lines.append(f"| {names[row['shape']]} | {row['what']} | | | | {row['error']} | |")
            continue
        ratio = row["estimate"] / row["peak"]
        within = "yes" if 1 / 1.25 <= ratio <= 1.25 else "NO"
        lines.append(
            f"| {names[row['shape']]} | {row['what']} | {row['peak'] / 1e6:.1f} | "
            f"{row['estimate'] / 1e6:.1f} | {ratio:.2f} | {within} | {row['seconds']:.2f} |"
        )
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results")
    parser.add_argument("--timeout", type=float, default=900.0)
    args = parser.parse_args()
    rows = [run(shape, what, args.timeout) for shape, what in CASES]
    from bench_fit import machine

    info = machine()
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "memory.json").write_text(json.dumps({"machine": info, "rows": rows}, indent=1))
    text = report(rows, info)
    (args.out / "memory.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
