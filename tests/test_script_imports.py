"""The scripts outside the package (benchmarks, tools, reproductions) name only what the
package has: every ``from discotree... import name`` they write resolves today.

Nothing runs these scripts in the default suite (they take minutes to hours), so a name
removed from the package would otherwise surface only when someone reruns a benchmark:
``bench_search.py`` still imported a merged kernel until this test found it. The check
reads each script's imports (no script code runs) and imports only ``discotree``.
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT_FOLDERS = ("benchmarks", "tools", "reproductions", "docs")


def _scripts() -> list[Path]:
    return sorted(
        path
        for folder in SCRIPT_FOLDERS
        for path in (ROOT / folder).rglob("*.py")
        if "_build" not in path.parts
    )


def _package_imports(path: Path) -> list[tuple[int, str, str | None]]:
    """``(line, module, name)`` of every import of ``discotree`` in ``path``; ``name`` is
    None for ``import discotree.x``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module.split(".")[0] == "discotree":
                found += [(node.lineno, node.module, alias.name) for alias in node.names]
        elif isinstance(node, ast.Import):
            found += [
                (node.lineno, alias.name, None)
                for alias in node.names
                if alias.name.split(".")[0] == "discotree"
            ]
    return found


def _missing(module: str, name: str | None) -> str | None:
    """Why ``from module import name`` (or ``import module``) would fail, or None."""
    try:
        imported = importlib.import_module(module)
    except ImportError as error:
        return f"module {module}: {error}"
    if name is None or name == "*" or hasattr(imported, name):
        return None
    try:  # a submodule imported by name
        importlib.import_module(f"{module}.{name}")
    except ImportError:
        return f"{module} has no {name}"
    return None


def test_the_scripts_are_found():
    names = {path.name for path in _scripts()}
    assert {"bench_accuracy.py", "bench_search.py", "bad_input_campaign.py"} <= names


@pytest.mark.parametrize("path", _scripts(), ids=lambda path: str(path.relative_to(ROOT)))
def test_script_imports_resolve(path):
    problems = [
        f"{path.relative_to(ROOT)}:{line}: {why}"
        for line, module, name in _package_imports(path)
        if (why := _missing(module, name)) is not None
    ]
    assert not problems, "\n".join(problems)


def test_a_removed_name_is_reported(tmp_path):
    script = tmp_path / "old.py"
    script.write_text(
        "from discotree.kernels.candidate_scores import candidate_hits, replacement_hits\n"
        "import discotree.no_such_module\n"
    )
    reasons = [_missing(module, name) for _, module, name in _package_imports(script)]
    assert reasons[0] is None
    assert reasons[1] == "discotree.kernels.candidate_scores has no replacement_hits"
    assert reasons[2] is not None and "no_such_module" in reasons[2]
