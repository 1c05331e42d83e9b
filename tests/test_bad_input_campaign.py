"""The bad-input campaign of issue 50 (``tools/bad_input_campaign.py``): it generates
at least 1,500 distinct cases, and a fixed sample of cases that were ok in the recorded
run (``benchmarks/results/bad_input_campaign.json``) is ok here too, run in this
process (no worker, no timeout)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "tools" / "bad_input_campaign.py"

#: Cases that were ok in the recorded run, over the surfaces (each well under a second).
SAMPLE = (
    "fit-X/NB/nan-cell",
    "fit-X/TAN/strings",
    "fit-X/CL/duplicate-column-names",
    "predict-X/TAN/predict_proba/renamed",
    "predict-X/NB/predict_log_proba/unseen-code",
    "predict-X/AODE/predict_proba/one-row-equals-batch",
    "y/NB/nan-label",
    "weight/TAN/negative",
    "weight/NB/zero-equals-dropped",
    "param/NB/alpha='x'",
    "param/TAN/k=2.5",
    "partial-fit/NB/3-batches-equal-fit",
    "model-json/NB/round-trip",
    "model-json/TAN/number2/nan",
    "model-pickle/flip-signature",
    "explain/importances/NB/weight-nan",
    "explain/uncertainty/NB/n_draws=0",
    "explain/edge_contributions/TAN/one-row",
    "output-files/atomic_output/interrupted",
    "io/bif/negative-probability",
    "passes/KDB/renamed-later",
)


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bad_input_campaign", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # the dataclasses look their module up
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def campaign() -> ModuleType:
    return _load()


@pytest.fixture(scope="module")
def cases(campaign: ModuleType) -> dict:
    return {case.id: case for case in campaign.generate_cases()}


def test_the_campaign_has_at_least_1500_distinct_cases(campaign, cases):
    assert len(cases) >= 1500
    assert {case.surface for case in cases.values()} == set(campaign.SURFACES)
    assert all(case.expect in ("ok", "either", "error") for case in cases.values())


@pytest.mark.parametrize("case_id", SAMPLE)
def test_a_sample_of_cases_is_ok_in_process(campaign, cases, case_id, tmp_path, monkeypatch):
    monkeypatch.setenv("DISCOTREE_KEY_FILE", str(tmp_path / "model-key"))  # never the user's
    result = campaign.run_case(cases[case_id], tmp_path / "case")
    assert result["class"] == "ok", result
