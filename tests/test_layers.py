"""The layers contract: kernels -> stats -> structure -> models -> learners -> classifiers
-> engines/io/plotting/cli, checked over the import statements of the package (the AST,
imports inside functions included).

A module may import from its own layer or a lower one, never from a higher one; the
import graph has no cycle; no module takes a private name (``_x``) or a private module
from another module. ``KNOWN`` lists the violations that remain (none now): the test fails on
any violation not listed, and on a listed one that is gone (so the list only shrinks).
"""

from __future__ import annotations

import ast
import itertools
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1] / "src" / "discotree"

#: Layer of each top-level module or subpackage of discotree (the facade
#: ``discotree/__init__.py`` and ``__main__`` re-export and are not checked).
LAYER = {
    "config": 0,
    "output_files": 0,
    "_config": 0,
    "threads": 0,
    "_threads": 0,
    "fitting": 0,
    "numerics": 0,
    "missing_values": 0,
    "engine_registry": 0,
    "stored_classes": 0,
    "docstrings": 0,
    "stored_checks": 0,
    "migrations": 0,
    "scaling_tags": 0,
    "_fitting": 0,
    "kernels": 1,
    "validation": 2,
    "_validation": 2,
    "stats": 3,
    "transformers": 3,
    "sufficient_statistics": 3,
    "structure": 4,
    "models": 5,
    "learners": 6,
    "classifiers": 7,
    "feature_selection": 7,
    "explain": 7,
    "shapley": 7,
    "importance": 7,
    "uncertainty": 7,
    "engines": 8,
    "io": 8,
    "plotting": 8,
    "datasets": 8,
    "registry": 8,
    "model_file": 8,
    "evaluation": 9,
    "cli": 9,
}

#: Violations still present (issue 30): none; a new one fails the test.
KNOWN: set[tuple[str, ...]] = set()


def _modules() -> dict[str, Path]:
    out = {}
    for path in ROOT.rglob("*.py"):
        parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def _imports(modules: dict[str, Path]) -> list[tuple[str, str, str]]:
    """(importer, imported module, imported name or '') for every discotree import."""
    found = []
    for name, path in modules.items():
        package = path.name == "__init__.py"
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = name.split(".")
                    base = base if package else base[:-1]
                    base = base[: len(base) - node.level + 1]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                if not target.startswith("discotree"):
                    continue
                for alias in node.names:
                    full = f"{target}.{alias.name}"
                    found.append(
                        (name, full, "") if full in modules else (name, target, alias.name)
                    )
            elif isinstance(node, ast.Import):
                found += [(name, a.name, "") for a in node.names if a.name.startswith("discotree")]
    return found


def _layer(module: str) -> int | None:
    parts = module.split(".")
    return LAYER.get(parts[1]) if len(parts) > 1 and parts[1] != "__main__" else None


def _is_private(part: str) -> bool:
    return part.startswith("_") and not (part.startswith("__") and part.endswith("__"))


def violations() -> set[tuple[str, ...]]:
    modules = _modules()
    imports = _imports(modules)
    found: set[tuple[str, ...]] = set()
    for importer, module, name in imports:
        low, high = _layer(importer), _layer(module)
        if low is not None and high is not None and high > low:
            found.add(("upward", importer, module))
        parent = module.rsplit(".", 1)[0]
        same_package = parent in (importer, importer.rsplit(".", 1)[0])  # a package's own
        private_module = any(_is_private(p) for p in module.split(".")[1:])
        if low is not None and private_module and not same_package:
            found.add(("private module", importer, module))
        if low is not None and name and _is_private(name) and module != importer:
            found.add(("private name", importer, f"{module}.{name}"))
    graph: dict[str, set[str]] = {}
    for importer, module, _ in imports:
        if module in modules and _layer(importer) is not None:
            graph.setdefault(importer, set()).add(module)
    for cycle in _cycles(graph):
        found.add(("cycle", *sorted(cycle)))
    return found


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    counter = itertools.count()
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = next(counter)
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(component)

    for v in list(graph):
        if v not in index:
            visit(v)
    return out


def test_every_module_has_a_layer():
    missing = sorted({m.split(".")[1] for m in _modules() if "." in m} - set(LAYER) - {"__main__"})
    assert not missing, f"give these a layer in tests/test_layers.py: {missing}"


def test_no_new_violation_of_the_layers():
    new = sorted(violations() - KNOWN)
    assert not new, "layer violations:\n" + "\n".join(map(str, new))


def test_the_list_of_known_violations_only_shrinks():
    gone = sorted(KNOWN - violations())
    assert not gone, "fixed, remove from KNOWN:\n" + "\n".join(map(str, gone))


def test_the_checker_sees_violations(tmp_path, monkeypatch):
    """A checker that cannot fail proves nothing: an upward import, a private name and
    a cycle in a scratch package are found."""
    package = tmp_path / "discotree"
    (package / "kernels").mkdir(parents=True)
    (package / "models").mkdir()
    (package / "__init__.py").write_text("")
    (package / "kernels" / "__init__.py").write_text("")
    (package / "models" / "__init__.py").write_text("")
    (package / "kernels" / "low.py").write_text("from ..models.high import thing\n")
    (package / "models" / "high.py").write_text("from ..kernels.low import _secret\n")
    monkeypatch.setattr(sys.modules[__name__], "ROOT", package)
    found = violations()
    kinds = {v[0] for v in found}
    assert {"upward", "private name", "cycle"} <= kinds, found


def _private_attribute_uses(path: Path) -> list[tuple[int, str]]:
    """Every ``x._name`` (not ``self._name``) and ``x.__dict__`` in a module."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if not isinstance(node, ast.Attribute):
            continue
        owner = node.value.id if isinstance(node.value, ast.Name) else None
        private = node.attr.startswith("_") and not node.attr.startswith("__")
        if (private and owner not in ("self", "cls")) or node.attr == "__dict__":
            found.append((node.lineno, ast.unparse(node)))
    return found


def test_the_engines_use_only_public_estimator_members(tmp_path):
    """The engines fit through an estimator's public protocol (``learner_spec``,
    ``fit_from_statistics``; ``boosting_spec``, ``fit_from_ensembles``) and touch no
    private state (issue 30)."""
    uses = {
        path.name: _private_attribute_uses(path) for path in sorted((ROOT / "engines").glob("*.py"))
    }
    assert uses and not any(uses.values()), uses
    scratch = tmp_path / "scratch.py"  # the checker sees what it must refuse
    scratch.write_text("def f(estimator):\n    return estimator._alpha, estimator.__dict__\n")
    assert [text for _, text in _private_attribute_uses(scratch)] == [
        "estimator._alpha",
        "estimator.__dict__",
    ]


REPRODUCTIONS = ROOT.parents[1] / "reproductions" / "discotree_reproductions"


def _private_imports_of_reproductions(package: Path) -> list[str]:
    """Imports in the reproductions of a private discotree module or name, or of a
    private name of another reproduction module."""
    found = []
    for path in sorted(package.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.ImportFrom | ast.Import):
                continue
            if isinstance(node, ast.ImportFrom) and node.module == "__future__":
                continue
            modules = [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            modules += [a.name for a in node.names] if isinstance(node, ast.Import) else []
            names = [a.name for a in node.names] if isinstance(node, ast.ImportFrom) else []
            private_module = any(
                part.startswith("_") for m in modules for part in m.split(".") if part
            )
            private_name = any(n.startswith("_") and not n.startswith("__") for n in names)
            if private_module or private_name:
                found.append(f"{path.name}:{node.lineno}: {ast.unparse(node)}")
    return found


def test_the_reproductions_use_the_public_api_only(tmp_path):
    """The reproductions (their own distribution) import no private discotree module or
    name, and no private name of each other (issue 30)."""
    assert (REPRODUCTIONS / "catalog.py").exists()
    assert _private_imports_of_reproductions(REPRODUCTIONS) == []
    (tmp_path / "bad.py").write_text(
        "from discotree.classifiers._base import X\nfrom .other import _helper\n"
    )
    assert len(_private_imports_of_reproductions(tmp_path)) == 2


def test_the_library_carries_no_reproduction():
    """A plain install of discotree holds no paper experiment and no harness: its
    evaluation is what ``discotree compare`` runs (the reproductions' runner, reports,
    protocols and data folder are their distribution's)."""
    evaluation = {p.stem for p in (ROOT / "evaluation").glob("*.py")}
    assert evaluation == {"__init__", "compare", "splits", "streaming_cv"}
    assert not list((ROOT / "experiments").glob("*.py"))  # the harness's old home
