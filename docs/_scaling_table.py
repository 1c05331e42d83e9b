"""The scaling page's table of what every estimator supports (in memory,
``partial_fit``, a file read in passes or batches by ``discotree fit --data FILE``,
Dask), generated at build time from the estimators' scaling tags
(:func:`discotree.scaling_tags.scaling_tags`, their default parameters), so that it
cannot drift from the code.

``write_scaling_table(path)`` writes the Markdown table that
``user_guide/scaling.md`` includes; ``conf.py`` calls it before the build.
"""

from __future__ import annotations

from pathlib import Path

FILES = {
    "passes": "yes, in passes",
    "batches": "yes, in batches (`partial_fit`)",
    "memory": "no (read whole)",
}


def scaling_table() -> str:
    """The Markdown table: one row per public classifier of discotree."""
    import discotree
    from discotree.scaling_tags import scaling_tags

    lines = [
        "| Estimator | In memory | `partial_fit` | Files larger than memory | Dask |",
        "| --- | --- | --- | --- | --- |",
    ]
    for name in sorted(n for n in discotree.__all__ if n.endswith("Classifier")):
        tags = scaling_tags(getattr(discotree, name)())
        partial = "yes" if tags.partial_fit else "no"
        dask = "yes" if tags.dask else "no"
        cells = [f"{{class}}`~discotree.{name}`", "yes", partial, FILES[tags.files], dask]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def write_scaling_table(path: Path) -> None:
    """Write :func:`scaling_table` to ``path`` (its folder made if needed)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(scaling_table())
