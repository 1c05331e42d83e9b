"""The design note's table of what every learner does with missing values, generated
at build time from the learners' registry entries
(:class:`discotree.learners.registry.Learner`'s ``missing_values`` and
``missing_at_prediction``, each a :class:`discotree.missing_values.MissingValueRule`),
so that it cannot drift from the code.

``write_missing_values_table(path)`` writes the Markdown table that
``design/architecture.md`` includes; ``conf.py`` calls it before the build.
"""

from __future__ import annotations

from pathlib import Path


def missing_values_table() -> str:
    """The Markdown table: one row per registered learner, then the rules' meanings."""
    from discotree.learners.registry import LEARNERS
    from discotree.missing_values import MissingValueRule

    lines = [
        "| Learner | At fit time | At prediction |",
        "| --- | --- | --- |",
    ]
    used = set()
    for name in sorted(LEARNERS):
        learner = LEARNERS[name]
        fit, predict = learner.missing_values, learner.missing_at_prediction
        used.update((fit, predict))
        lines.append(f"| `{name}` | {fit.value} | {predict.value} |")
    lines.append("")
    for rule in MissingValueRule:
        if rule in used:
            lines.append(f"- **{rule.value}**: {rule.description}.")
    return "\n".join(lines) + "\n"


def write_missing_values_table(path: Path) -> None:
    """Write :func:`missing_values_table` to ``path`` (its folder made if needed)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(missing_values_table())
