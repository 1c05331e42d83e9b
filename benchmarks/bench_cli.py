"""Start-up of the ``discotree`` command: ``--help`` and a usage error, as a user
types them, against the bare interpreter measured in the same run.

Each command runs as a fresh process (``python -m discotree ...``, what the console
script does), ``--repeats`` times; the table gives the median wall time and the peak
resident memory of the child. Bound: ``python -c pass`` (the interpreter with the
site packages, nothing of discotree). Target (issue 32): ``--help`` and the usage
error answer in under 0.5 s on this machine; the ratio to the bound says how much of
that is discotree's own.

Run:  python benchmarks/bench_cli.py [--repeats 7] [--out benchmarks/results]
Writes cli.json and cli.md (with the machine description).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from bench_fit import machine, write_results

COMMANDS = {
    "python -c pass (bound)": [sys.executable, "-c", "pass"],
    "discotree --help": [sys.executable, "-m", "discotree", "--help"],
    "discotree compare --folds 1 (usage error)": [
        sys.executable,
        "-m",
        "discotree",
        "compare",
        "--folds",
        "1",
    ],
    "discotree models": [sys.executable, "-m", "discotree", "models"],
}
TARGET_S = 0.5


#: Runs the measured command from a small interpreter and prints its wall time and
#: peak RSS: a child forked from this (large) process would count this process's
#: pages in its ``ru_maxrss``.
_WRAPPER = """
import resource, subprocess, sys, time
start = time.perf_counter()
code = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
seconds = time.perf_counter() - start
print(seconds, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, code)
"""


def run(command: list[str], repeats: int) -> dict:
    """Median wall time and peak resident memory of ``repeats`` fresh processes."""
    times, peaks = [], []
    for _ in range(repeats):
        done = subprocess.run(
            [sys.executable, "-c", _WRAPPER, *command], capture_output=True, text=True
        )
        seconds, peak_kb, code = done.stdout.split()
        if int(code) not in (0, 2):
            raise RuntimeError(f"{command} failed")
        times.append(float(seconds))
        peaks.append(int(peak_kb) / 1024)  # KiB on Linux
    return {"median_s": statistics.median(times), "min_s": min(times), "peak_mb": max(peaks)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results")
    args = parser.parse_args()
    results = {name: run(command, args.repeats) for name, command in COMMANDS.items()}
    bound = results["python -c pass (bound)"]["median_s"]
    rows = []
    for name, r in results.items():
        r["ratio_to_bound"] = r["median_s"] / bound
        target = "" if "bound" in name or "models" in name else TARGET_S
        r["target_s"] = target or None
        verdict = "" if not target else ("met" if r["median_s"] < target else "missed")
        rows.append(
            f"| {name} | {r['median_s']:.3f} | {r['ratio_to_bound']:.1f}x | "
            f"{r['peak_mb']:.0f} | {verdict} |"
        )
    info = machine()
    markdown = "\n".join(
        [
            "# Command-line start-up",
            "",
            f"Machine: {info['cpu']}, {info['cores']} cores, Python {info['python']}.",
            f"Median of {args.repeats} fresh processes; peak RSS of the process (the "
            "largest of the runs).",
            "",
            "| command | median (s) | / bound | peak RSS (MB) | under 0.5 s |",
            "|---|---|---|---|---|",
            *rows,
            "",
        ]
    )
    write_results(args.out, "cli", {"machine": info, "results": results}, markdown)


if __name__ == "__main__":
    main()
