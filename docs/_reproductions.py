"""Generate the documentation's reproduction pages from the committed results.

The table of reproductions lives once, in the README (section "Data and
reproductions"); each row links to ``results/NAME/results.md``. At build time this
module writes ``docs/reproductions/index.md`` (the README's table, with its links
pointing to pages of the site) and one page per experiment that includes the committed
``results.md`` and shows its figures. The generated folder is not committed.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

ROW = re.compile(r"^\| `(?P<name>[a-z0-9-]+)` \| (?P<paper>[^|]+) \| (?P<result>.+) \|$")


def readme_rows(readme: Path) -> list[dict[str, str]]:
    """The rows of the README's reproduction table, in order."""
    rows = []
    for line in readme.read_text(encoding="utf-8").splitlines():
        match = ROW.match(line)
        if match and "results/" in match["result"]:
            rows.append(match.groupdict())
    return rows


def write_reproduction_pages(results: Path, out: Path) -> list[str]:
    """Write ``out/index.md`` and one page per reproduction; return their names."""
    rows = readme_rows(results.parent / "README.md")
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    lines = [
        "# Reproducing the papers",
        "",
        "Every experiment of the five papers runs through one cached harness. The",
        "experiments and their harness (`discotree_reproductions.harness`) are a",
        "distribution of their own, `reproductions/` in the repository, which a plain",
        "install of discotree does not carry: install it (it adds the commands",
        "`discotree reproduce` and `discotree bench`), list them, then run one; results go to",
        "`results/NAME/` (`results.md`, `results.json` with the provenance of the run",
        "and the commit that fitted each fold, and the figures):",
        "",
        "```bash",
        "pip install -e ./reproductions",
        "discotree reproduce --list",
        "discotree reproduce pernkopf-uci --n-jobs 2",
        "```",
        "",
        "They read the shared data folder (`--data-dir`, `$DISCOTREE_DATA`, or",
        "`../shared/data`); the synthetic ones need no data. The table below is the",
        "README's; each link opens the committed results of the last run, with the",
        "findings that agree with the paper and those that do not.",
        "",
        "| experiment | paper | result |",
        "|---|---|---|",
    ]
    names = []
    for row in rows:
        name = row["name"]
        folder = results / name
        if not (folder / "results.md").exists():
            raise FileNotFoundError(f"the README lists {name!r} but {folder}/results.md is missing")
        result = row["result"].replace(f"(results/{name}/results.md)", f"({name}.md)")
        lines.append(f"| [`{name}`]({name}.md) | {row['paper'].strip()} | {result} |")
        figures = sorted(folder.glob("*.png"))
        page = [
            f"# `{name}`",
            "",
            f"Paper: {row['paper'].strip()}. Run it with `discotree reproduce {name}`.",
            "",
            "```{include} " + f"../../results/{name}/results.md",
            ":heading-offset: 1",
            "```",
            "",
        ]
        for figure in figures:
            page += [f"![{figure.stem}](../../results/{name}/{figure.name})", ""]
        (out / f"{name}.md").write_text("\n".join(page), encoding="utf-8")
        names.append(name)
    lines += ["", "```{toctree}", ":hidden:", "", *names, "```", ""]
    (out / "index.md").write_text("\n".join(lines), encoding="utf-8")
    return names
