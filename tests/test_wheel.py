"""The wheel carries the library only (issue 52): no reproduction harness, no
data-folder loader, no test oracle.

The wheel's files are the Python files of the packages that setuptools finds under
``src`` with ``pyproject.toml``'s ``[tool.setuptools.packages.find]``, and their package
data; they are computed here with setuptools' own discovery, so the check needs no
build and no network. (A wheel built in a checkout with a stale ``build/lib`` also
carries that folder's old files: build release wheels from a clean copy.)
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from setuptools import find_namespace_packages, find_packages

ROOT = Path(__file__).resolve().parents[1]

#: Module names that belong to the reproductions' distribution or to the tests.
FORBIDDEN_STEMS = {
    "adhoc",  # discotree bench
    "data_folder",
    "metrics",
    "protocols",
    "real",  # the data-folder loaders' old name
    "reference",
    "_reference",  # the slow kernels, tests/reference.py
    "report",
    "runner",
}
#: Text that only a data-folder loader or the harness would hold.
FORBIDDEN_TEXT = ("DISCOTREE_DATA", "shared/data", "MANIFEST.tsv", "discotree_reproductions")


def wheel_files() -> list[str]:
    """The paths (relative to ``src``) that a wheel of this checkout holds."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    find = config["packages"]["find"]
    where = ROOT / find.get("where", ["."])[0]
    finder = find_namespace_packages if find.get("namespaces", True) else find_packages
    packages = finder(
        where=str(where), include=find.get("include", ["*"]), exclude=find.get("exclude", [])
    )
    files = []
    for package in packages:
        folder = where.joinpath(*package.split("."))
        patterns = ["*.py", *config.get("package-data", {}).get(package, [])]
        for pattern in patterns:
            files += [str(p.relative_to(where)) for p in folder.glob(pattern) if p.is_file()]
    return sorted(set(files))


def test_the_check_sees_the_library():
    """The list is the package's, so the checks below cannot pass on an empty one."""
    files = wheel_files()
    for needed in (
        "discotree/__init__.py",
        "discotree/cli.py",
        "discotree/datasets/builtin.py",
        "discotree/evaluation/compare.py",
        "discotree/evaluation/streaming_cv.py",
        "discotree/kernels/counts.py",
        "discotree/py.typed",
    ):
        assert needed in files, needed
    assert len(files) > 100


def test_the_wheel_holds_no_harness_oracle_or_data_folder_loader():
    files = wheel_files()
    assert not [f for f in files if f.startswith("discotree/experiments/")]
    assert not [f for f in files if Path(f).stem in FORBIDDEN_STEMS]
    assert not [f for f in files if not f.startswith("discotree/")]
    holding = [
        (f, text)
        for f in files
        if f.endswith(".py")
        for text in FORBIDDEN_TEXT
        if text in (ROOT / "src" / f).read_text()
    ]
    assert not holding, holding
