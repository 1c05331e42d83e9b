"""The Fig. 10 report of ``pernkopf-synthetic``: CL against ML from the numbers."""

import numpy as np
import pandas as pd

from discotree_reproductions import pernkopf_synthetic
from discotree_reproductions.pernkopf_synthetic import cl_against_ml


def _table(rng, cl_shift, runs=5, missing_cl=()):
    index = pd.MultiIndex.from_product([[5, 10], range(runs)], names=["n", "repeat"])
    table = pd.DataFrame(index=index)
    for structure in pernkopf_synthetic.SYNTHETIC_STRUCTURES:
        ml = 50 + rng.normal(0, 1, len(index))
        table[f"{structure}-ml"] = ml
        table[f"{structure}-cl"] = ml + cl_shift + rng.normal(0, 0.1, len(index))
    for n, repeat in missing_cl:
        table.loc[(n, repeat), [c for c in table.columns if c.endswith("-cl")]] = np.nan
    return table


def test_cl_below_ml_everywhere_agrees_with_the_paper(rng):
    rows, sentence = cl_against_ml(_table(rng, cl_shift=-2.0))
    assert len(rows) == 2 * 4  # every (N, structure)
    assert all(float(r[3]) < 0 and float(r[5]) < 0.05 for r in rows)
    assert "CL below ML in 8 (significantly, p < 0.05, in 8), above in 0" in sentence
    assert "nowhere significantly better" in sentence


def test_cl_above_ml_is_reported_against_the_paper(rng):
    rows, sentence = cl_against_ml(_table(rng, cl_shift=+2.0))
    assert all(float(r[3]) > 0 and float(r[4]) < 0.05 for r in rows)
    assert "against it, CL is significantly better here in 8 cells" in sentence


def test_cl_compared_on_the_runs_that_have_both(rng):
    table = _table(rng, cl_shift=-1.0, missing_cl=[(5, 0), (5, 1), (5, 2), (5, 3)])
    rows, _ = cl_against_ml(table)
    assert {r[0] for r in rows} == {10}  # N = 5 has one CL run: not compared
    assert all(r[2] == 5 for r in rows)
    assert cl_against_ml(table.drop(columns=[c for c in table if c.endswith("-cl")])) == (
        [],
        "CL parameters: no run yet.",
    )


def test_report_marks_classifiers_run_on_fewer_models(rng, tmp_path, monkeypatch):
    monkeypatch.setattr(pernkopf_synthetic, "_true_model_accuracy", lambda n, r: 60.0)
    records = [
        {"dataset": f"n{n:02d}-r{r}", "model": model, "fold": "split", "accuracy": acc}
        for n in (5, 10)
        for r in range(3)
        for model in pernkopf_synthetic.SYNTHETIC_MODELS
        if not (model.endswith("-cl") and r == 2)
        for acc in [0.5 + 0.01 * rng.random()]
    ]
    experiment = pernkopf_synthetic.synthetic_experiment()
    pernkopf_synthetic._synthetic_report(records, tmp_path, experiment)
    text = (tmp_path / "results.md").read_text()
    assert "(2 runs)" in text  # the CL columns: 2 of the 3 models
    assert "CL against ML on the same structure and runs, over 8" in text
    assert (tmp_path / "accuracy_vs_n.png").stat().st_size > 0
