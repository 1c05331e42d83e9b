"""The README's marked Python snippets run as written."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
SNIPPETS = re.findall(r"<!-- readme-snippet -->\n```python\n(.*?)```", README.read_text(), re.S)


def test_the_readme_marks_its_snippets():
    assert len(SNIPPETS) >= 2


@pytest.mark.parametrize("code", SNIPPETS, ids=lambda code: code.splitlines()[0][:40])
def test_snippet_runs(code, tmp_path):
    """Each snippet as a script (``python snippet.py``, so that LocalCluster's worker
    processes can import it)."""
    script = tmp_path / "snippet.py"
    script.write_text(code)
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]


RESULTS = README.parent / "results"
ROWS = re.findall(r"^\| `([a-z0-9-]+)` \|(.*)$", README.read_text(), re.M)


def test_the_reproductions_table_lists_every_committed_report():
    listed = {name for name, _ in ROWS}
    reports = {p.parent.name for p in RESULTS.glob("*/results.md")}
    assert reports <= listed, f"reports missing from the README: {sorted(reports - listed)}"
    assert {n for n in listed if (RESULTS / n).is_dir()} == reports


def _reports(name, row):
    """The committed reports (results.md, results.json) of the reproduction ``name`` and
    of those its README ``row`` names in backquotes."""
    named = {name, *re.findall(r"`([a-z0-9]+(?:-[a-z0-9]+)+)`", row)}
    return [
        (RESULTS / n / f).read_text()
        for n in sorted(named)
        for f in ("results.md", "results.json")
        if (RESULTS / n / f).is_file()
    ]


@pytest.mark.parametrize("name, row", ROWS, ids=[name for name, _ in ROWS])
def test_readme_figures_are_in_the_committed_results(name, row):
    """Every figure of a reproduction's README row given to two or more decimals is in
    its committed report (or in that of a reproduction the row names), so a rerun
    cannot leave the README stale. Bounds ("p < 0.003") are not figures."""
    text = "".join(_reports(name, row))
    figures = re.findall(r"(?<![<>] )(?<![\w.])(\d+\.\d{2,})(?![\d.])", row)
    assert [f for f in figures if f not in text] == []


#: "N of M" counts of README rows that the report gives as table cells rather than
#: in words: the number of hidden pixels (a row of the table, of the images' 196 or
#: the sets' 64 and 36 features) and the sets won (a column "(of 10)").
COUNTS_AS_TABLE_CELLS = {
    ("pernkopf-missing", "147 of 196"),
    ("pernkopf-missing", "74 of 196"),
    ("pernkopf-missing", "6 of 64"),
    ("pernkopf-missing", "7 of 36"),
    ("dorn-uci", "6 of 10"),
}


@pytest.mark.parametrize("name, row", ROWS, ids=[name for name, _ in ROWS])
def test_readme_counts_are_the_reports(name, row):
    """Every count "N of M" of a README row ("in 9 of 18 cells", "8 of the 10 values")
    is written the same way in its committed report, so a count cannot drift from
    the numbers when a reproduction is rerun (issue 33: "15 of 25" with a float tie,
    "9 of 11 values of k" counting the naive Bayes at k = 0)."""
    text = re.sub(r"\s+", " ", " ".join(_reports(name, row)))
    missing = [
        f"{a} of {the}{b}"
        for a, the, b in re.findall(r"(\d+) of (the )?(\d+)", row)
        if f"{a} of {b}" not in text
        and f"{a} of the {b}" not in text
        and (name, f"{a} of {the}{b}") not in COUNTS_AS_TABLE_CELLS
    ]
    assert missing == []


PERFORMANCE = README.read_text().split("## Performance", 1)[1].split("\n## ", 1)[0]
BENCHMARKS = README.parent / "benchmarks" / "results"


def _figures_not_in_results(text: str, names: set[str]) -> tuple[list[str], list[str]]:
    """The figures with decimals of ``text``, and those of them that are in none of the
    results files (``.md`` or ``.json``) of the benchmarks ``names``."""
    results = " ".join(
        (BENCHMARKS / f"{name}.{ext}").read_text()
        for name in sorted(names)
        for ext in ("md", "json")
        if (BENCHMARKS / f"{name}.{ext}").is_file()
    )
    figures = re.findall(r"(?<![\w.])(\d+\.\d+)(?![\d.])", text)
    return figures, [f for f in figures if f not in results]


@pytest.mark.parametrize(
    "paragraph", [p for p in PERFORMANCE.split("\n\n") if re.search(r"\d\.\d", p)]
)
def test_performance_figures_are_in_the_committed_benchmark_results(paragraph):
    """Every figure with decimals of a Performance paragraph is in the results of the
    benchmarks it names (``bench_X.py`` or ``benchmarks/results/X.md``), so a rerun
    cannot leave the README stale (issue 32: numbers equal to measured ones)."""
    names = set(re.findall(r"bench_(\w+)\.py", paragraph))
    names |= set(re.findall(r"benchmarks/results/(\w+)\.md", paragraph))
    assert names, "a paragraph with figures must name its benchmark"
    _, missing = _figures_not_in_results(paragraph, names)
    assert missing == []


OPENING = README.read_text().split("## Set-up", 1)[0]


def test_the_opening_names_the_recommended_model_and_its_figures_are_committed():
    """The README's opening names the model that ``fit`` and ``compare`` default to, and
    every figure with decimals in it is in ``benchmarks/results/accuracy.md`` (or its
    json) or in another results file the opening names (``predict_cost.md``), so a rerun
    of a benchmark cannot leave the opening stale."""
    from discotree.cli import RECOMMENDED_MODEL

    assert f"`{RECOMMENDED_MODEL}`" in OPENING and "benchmarks/results/accuracy.md" in OPENING
    named = {"accuracy", *re.findall(r"benchmarks/results/(\w+)\.md", OPENING)}
    figures, missing = _figures_not_in_results(OPENING, named)
    assert figures and missing == []
