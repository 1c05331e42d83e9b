"""The command line, called through main([...])."""

import numpy as np
import pandas as pd
import pytest

from discotree.cli import main


@pytest.fixture
def train_csv(tmp_path, rng):
    n = 120
    frame = pd.DataFrame(
        {
            "colour": rng.choice(["red", "green", "blue"], n),
            "size": rng.normal(size=n),
            "count": rng.integers(0, 4, n),
        }
    )
    frame["label"] = np.where(frame["size"] + (frame["colour"] == "red") > 0.5, "yes", "no")
    frame.loc[5, "size"] = np.nan
    path = tmp_path / "train.csv"
    frame.to_csv(path, index=False)
    return path


def _fit(data, model, *extra, name="tan-cmi", target="label", source="--csv", quiet=True):
    """``discotree fit`` of the model ``name`` (TAN-CMI) on the file ``data`` (read with
    ``source``, ``--csv`` or ``--data``; target ``target``) to ``model``, with ``extra``
    options."""
    argv = ["fit", source, str(data), "--target", target, "-o", str(model), *extra]
    return main([*(["-q"] if quiet else []), *argv, "--model", name])


def test_compare_builtin_prints_a_table(capsys):
    assert main(["compare", "--dataset", "iris,wine", "--models", "nb,tan-cmi", "-q"]) == 0
    out = capsys.readouterr().out
    for word in ("iris", "wine", "nb", "tan-cmi", "±", "fit time", "log-loss", "mean rank"):
        assert word in out


def test_compare_quick_runs_its_models_with_baselines(capsys):
    from discotree.cli import COMPARE_QUICK

    assert main(["compare", "--dataset", "iris", "--quick", "--n-jobs", "1", "-q"]) == 0
    out = capsys.readouterr().out
    table = out.split("over the datasets")[0]
    rows = [line.split("│")[2].strip() for line in table.splitlines() if "│ iris" in line]
    assert rows == list(COMPARE_QUICK)


def test_compare_shows_no_log_loss_for_a_model_without_probabilities(capsys):
    argv = ["compare", "--dataset", "iris", "--models", "forest-density,nb", "--n-jobs", "1"]
    assert main([*argv, "-q"]) == 0
    out = capsys.readouterr().out
    assert "nan" not in out and "—" in out


def test_compare_all_is_every_family_and_the_baselines():
    from discotree.cli import COMPARE_ALL
    from discotree.registry import DESCRIPTIONS

    for family in ("nb", "chow-liu", "tan", "dt", "boosted", "forest-density", "ear-tree"):
        assert any(name.startswith(family) for name in COMPARE_ALL), family
    for name in ("aode", "skdb", "skdb-hier", "eskdb", "rf", "hgb", "logreg", "svm"):
        assert name in COMPARE_ALL
    assert all(name in DESCRIPTIONS for name in COMPARE_ALL)


def test_compare_default_is_the_recommended_model_cheap_families_and_two_baselines():
    from discotree.cli import COMPARE_DEFAULT, COMPARE_QUICK, RECOMMENDED_MODEL

    assert RECOMMENDED_MODEL == "eskdb"
    assert COMPARE_DEFAULT[0] == COMPARE_QUICK[0] == RECOMMENDED_MODEL
    assert {"rf", "hgb"} <= set(COMPARE_DEFAULT)
    cheap = set(COMPARE_DEFAULT) - {RECOMMENDED_MODEL, "rf", "hgb"}
    assert 2 <= len(cheap) <= 3
    assert not {"rf", "hgb", "svm"} & set(COMPARE_QUICK)


def _models_and_datasets_run(monkeypatch, argv) -> tuple[list[str], list[str]]:
    """The models and datasets ``compare`` asks for (nothing is fitted)."""
    from discotree.evaluation import compare

    asked = {}

    def fake(loaders, models, **kwargs):
        asked["datasets"], asked["models"] = list(loaders), list(models)
        return []

    monkeypatch.setattr(compare, "compare_models", fake)
    assert main(["compare", "-q", *argv]) == 0
    return asked["models"], asked["datasets"]


def test_compare_default_all_and_quick_choose_models_and_datasets(monkeypatch):
    from discotree.cli import COMPARE_ALL, COMPARE_DATASETS, COMPARE_DEFAULT, COMPARE_QUICK
    from discotree.datasets import BUILTIN_DATASETS

    assert _models_and_datasets_run(monkeypatch, []) == (
        list(COMPARE_DEFAULT),
        list(COMPARE_DATASETS),
    )
    assert _models_and_datasets_run(monkeypatch, ["--quick"]) == (
        list(COMPARE_QUICK),
        list(COMPARE_DATASETS),
    )
    assert _models_and_datasets_run(monkeypatch, ["--all"]) == (
        list(COMPARE_ALL),
        list(BUILTIN_DATASETS),
    )
    assert _models_and_datasets_run(monkeypatch, ["--all", "--dataset", "digits"]) == (
        list(COMPARE_ALL),
        ["digits"],
    )
    assert _models_and_datasets_run(monkeypatch, ["--models", "nb"]) == (
        ["nb"],
        list(COMPARE_DATASETS),
    )


def test_compare_prints_a_line_per_finished_model_off_a_terminal(capsys):
    argv = ["compare", "--dataset", "iris", "--models", "nb", "--n-jobs", "1", "--folds", "3"]
    assert main(argv) == 0
    err = capsys.readouterr().err  # captured: not a terminal
    lines = [line for line in err.splitlines() if line.startswith("compare: ")]
    assert len(lines) == 1
    assert lines[0].startswith("compare: iris / nb done (3 folds, ")
    assert lines[0].endswith(" s since the start)")
    assert main([*argv, "-q"]) == 0
    assert "compare: " not in capsys.readouterr().err


def test_fit_defaults_to_the_recommended_model():
    from discotree.cli import RECOMMENDED_MODEL, build_parser

    args = build_parser().parse_args(["fit", "--data", "x.csv", "--target", "y", "-o", "m"])
    assert args.model == RECOMMENDED_MODEL == "eskdb"


@pytest.mark.parametrize("seed", [0])  # the command's plumbing: one seed's data
def test_compare_csv(train_csv, capsys):
    code = main(["compare", "--csv", str(train_csv), "--target", "label", "--folds", "3", "-q"])
    assert code == 0
    assert "train.csv" in capsys.readouterr().out


def test_fit_predict_round_trip(train_csv, tmp_path, capsys):
    model = tmp_path / "m.joblib"
    assert _fit(train_csv, model, quiet=False) == 0
    assert model.exists()
    assert _fit(train_csv, model, quiet=False) == 1
    assert "exists; use --force" in capsys.readouterr().err
    assert _fit(train_csv, model, "--force", name="nb", quiet=False) == 0
    capsys.readouterr()
    assert main(["predict", "--model", str(model), "--csv", str(train_csv), "--proba"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[0] == "label,proba_no,proba_yes"
    assert len(lines) == 121


@pytest.mark.parametrize(
    "argv, code, message",
    [
        (["compare", "--models", "nope"], 2, "unknown model 'nope'"),
        (["compare", "--folds", "1"], 2, "at least 2"),
        (["compare", "--quick", "--models", "nb"], 2, "only one of --models, --quick or --all"),
        (["compare", "--all", "--quick"], 2, "(got --quick and --all)"),
        (["compare", "--all", "--stream", "--data", "x.csv", "--target", "y"], 2, "--all do not"),
        (["compare", "--csv", "x.csv"], 2, "--data needs --target"),
        (["fit", "--csv", "missing.csv", "--target", "y", "-o", "m"], 1, "file not found"),
        (["predict", "--model", "missing.joblib", "--csv", "x.csv"], 1, "model file not found"),
        (["frobnicate"], 2, "invalid choice"),
        ([], 2, "required"),
    ],
)
def test_bad_usage_is_one_line_without_traceback(argv, code, message, capsys):
    assert main(argv) == code
    err = capsys.readouterr().err
    assert message in err
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


def test_bad_target_column(train_csv, tmp_path, capsys):
    argv = ["fit", "--csv", str(train_csv), "--target", "nope", "-o", str(tmp_path / "m")]
    assert main(argv) == 1
    assert "no column named 'nope'" in capsys.readouterr().err


def test_help_everywhere(capsys):
    for argv in (["--help"], ["compare", "--help"], ["fit", "--help"], ["predict", "--help"]):
        assert main(argv) == 0
        assert "usage: discotree" in capsys.readouterr().out


def test_unknown_dataset(capsys):
    """compare reads built-in and synthetic sets by name (the data folder is the
    reproductions' distribution's), and files with --data."""
    assert main(["compare", "--dataset", "nope"]) == 1
    err = capsys.readouterr().err
    assert "unknown dataset 'nope'" in err and "--data FILE --target COLUMN" in err


def test_commands_of_installed_distributions_join_the_parser(monkeypatch, capsys):
    """An entry point of the group discotree.commands adds subcommands; without one
    (a plain install) there is no reproduce command."""
    import importlib.metadata

    from discotree.cli import UsageError

    def add(subparsers, **options):
        p = subparsers.add_parser("hello", **options, help="say hello")
        p.add_argument("--name", default="world")

        def run(args):
            if args.name == "":
                raise UsageError("an empty name")
            print(f"hello {args.name}")

        p.set_defaults(run=run)

    class Point:
        def load(self):
            return add

    points = {"discotree.commands": [Point()]}
    monkeypatch.setattr(importlib.metadata, "entry_points", lambda group: points.get(group, []))
    assert main(["hello", "--name", "you", "-q"]) == 0
    assert capsys.readouterr().out == "hello you\n"
    assert main(["hello", "--name", ""]) == 2
    assert "an empty name" in capsys.readouterr().err
    points.clear()
    assert main(["reproduce", "--list"]) == 2
    assert "invalid choice: 'reproduce'" in capsys.readouterr().err


def test_model_files_that_discotree_did_not_write_are_refused(train_csv, tmp_path, capsys):
    """A pickle can run code: predict loads only files signed with this user's key."""
    import joblib

    foreign = tmp_path / "foreign.joblib"
    joblib.dump({"model": None, "target": "label"}, foreign)
    assert main(["predict", "--model", str(foreign), "--csv", str(train_csv)]) == 1
    assert "not a model file written by 'discotree fit'" in capsys.readouterr().err
    model = tmp_path / "m.model"
    assert _fit(train_csv, model, "--format", "pickle", quiet=False) == 0
    data = bytearray(model.read_bytes())
    data[-10] ^= 0xFF  # altered after signing
    tampered = tmp_path / "tampered.model"
    tampered.write_bytes(bytes(data))
    capsys.readouterr()
    assert main(["predict", "--model", str(tampered), "--csv", str(train_csv)]) == 1
    assert "was not written by discotree with this user's key" in capsys.readouterr().err


def test_predict_proba_without_probabilities_says_so(tmp_path, capsys, rng):
    frame = pd.DataFrame(rng.normal(size=(60, 3)), columns=["a", "b", "c"])
    frame["label"] = np.where(frame["a"] > 0, "yes", "no")
    data = tmp_path / "numeric.csv"
    frame.to_csv(data, index=False)
    model = tmp_path / "fd.model"
    argv = ["fit", "--csv", str(data), "--target", "label", "--model", "forest-density"]
    assert main([*argv, "-o", str(model)]) == 0
    capsys.readouterr()
    assert main(["predict", "--model", str(model), "--csv", str(data), "--proba"]) == 1
    assert "gives no probabilities; predict without --proba" in capsys.readouterr().err


def test_errors_print_the_whole_message(tmp_path, capsys, train_csv):
    model = tmp_path / "m.model"
    assert _fit(train_csv, model, quiet=False) == 0
    other = tmp_path / "other.csv"
    pd.read_csv(train_csv).rename(columns={"size": "width"}).to_csv(other, index=False)
    capsys.readouterr()
    assert main(["predict", "--model", str(model), "--csv", str(other)]) == 1
    err = capsys.readouterr().err
    assert "width" in err and "size" in err  # both the unexpected and the missing column


@pytest.fixture
def big_table(tmp_path, rng):
    """A table written as .csv.gz and as a folder of Parquet files."""
    n = 3000
    frame = pd.DataFrame({f"f{j}": rng.integers(0, 4, n) for j in range(6)})
    frame["city"] = rng.choice(["rome", "oslo", "lima"], n)
    frame.loc[n - 3 :, "city"] = "kiev"  # only in the last batch
    frame["label"] = np.where(frame["f0"] + frame["f1"] + rng.integers(0, 3, n) > 4, "hi", "lo")
    gz = tmp_path / "big.csv.gz"
    frame.to_csv(gz, index=False)
    folder = tmp_path / "parts"
    folder.mkdir()
    for k, start in enumerate((0, 1000, 2000)):
        frame.iloc[start : start + 1000].to_parquet(folder / f"part-{k}.parquet")
    return frame, gz, folder


@pytest.mark.parametrize("source", ["gz", "parquet-folder"])
def test_fit_and_predict_stream_files_in_batches(big_table, tmp_path, source, capsys):
    from discotree.cli import _load as load_model
    from discotree.registry import make_classifier

    frame, gz, folder = big_table
    path = gz if source == "gz" else folder
    model = tmp_path / "m.pkl"
    assert _fit(path, model, "--batch-rows", "700", source="--data") == 0
    assert "on 3000 rows, 7 features in batches of 700 rows" in capsys.readouterr().out
    streamed = load_model(model)["model"]
    assert not [k for k in vars(streamed) if k.startswith("_stream")]  # no counts kept
    X, y = frame.drop(columns=["label"]), frame["label"]
    in_memory = make_classifier("tan-cmi").fit(X, y)
    assert streamed.edges_ == in_memory.edges_
    np.testing.assert_allclose(streamed.predict_proba(X), in_memory.predict_proba(X), atol=1e-10)
    out = tmp_path / "p.csv"
    predict = ["predict", "--model", str(model), "--data", str(path), "-o", str(out), "--proba"]
    assert main([*predict, "--batch-rows", "500", "-q"]) == 0
    written = pd.read_csv(out)
    assert list(written.columns) == ["label", "proba_hi", "proba_lo"]
    np.testing.assert_array_equal(written["label"], in_memory.predict(X))


def test_fit_with_dask_equals_batches(big_table, tmp_path, capsys):
    from discotree.cli import _load as load_model

    _, gz, folder = big_table
    for path, name in ((folder, "a.pkl"), (gz, "b.pkl")):
        assert _fit(path, tmp_path / name, "--dask", source="--data") == 0
    assert "with dask" in capsys.readouterr().out
    a, b = (load_model(tmp_path / n)["model"] for n in ("a.pkl", "b.pkl"))
    assert a.edges_ == b.edges_


def test_data_and_csv_are_one_option(big_table, tmp_path, capsys):
    _, gz, _ = big_table
    argv = ["fit", "--data", str(gz), "--csv", str(gz), "--target", "label", "-o", "m.pkl"]
    assert main(argv) == 2
    assert "not both" in capsys.readouterr().err
    assert main(["fit", "--data", str(tmp_path / "nope.csv"), "--target", "x", "-o", "m"]) == 1
    assert "file not found" in capsys.readouterr().err


def test_model_files_are_json_by_default_and_pickles_only_when_needed(train_csv, tmp_path, capsys):
    import json

    model = tmp_path / "m.json"
    assert _fit(train_csv, model, quiet=False) == 0
    assert "(JSON)" in capsys.readouterr().out
    assert json.loads(model.read_text())["format"] == "discotree-model"
    assert main(["predict", "--model", str(model), "--csv", str(train_csv)]) == 0
    svm = tmp_path / "svm.model"
    argv = ["fit", "--csv", str(train_csv), "--target", "label", "--model", "svm-quad"]
    assert main([*argv, "-o", str(svm)]) == 0
    captured = capsys.readouterr()
    assert "(signed pickle)" in captured.out and "use the pickle format" in captured.err
    assert main(["predict", "--model", str(svm), "--csv", str(train_csv)]) == 0


def test_models_lists_every_library_name_with_its_line(capsys):
    from discotree.registry import DESCRIPTIONS, LIBRARY_NAMES

    assert set(DESCRIPTIONS) == set(LIBRARY_NAMES)
    assert main(["models"]) == 0
    out = capsys.readouterr().out
    for name in LIBRARY_NAMES:
        assert any(line.split()[:1] == [name] for line in out.splitlines()), name
    assert "selective kDB" in out


def test_a_typo_gets_the_closest_names_not_the_whole_list(capsys):
    assert main(["compare", "--models", "tan-cm"]) == 2
    err = capsys.readouterr().err
    assert "did you mean tan-cmi" in err and "'discotree models' lists them" in err
    assert err.count(",") < 3  # not the 80 names


def test_help_shows_no_none_defaults(capsys):
    assert main(["fit", "--help"]) == 0
    assert "(default: None)" not in capsys.readouterr().out


def test_help_and_usage_errors_import_no_estimator():
    """The command answers --help and usage errors before scikit-learn, SciPy,
    pandas or numba are imported (issue 32: 3 s and 263 MB before)."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from discotree.cli import main\n"
        "main(['--help']); main(['compare', '--folds', '1'])\n"
        "heavy = ('sklearn', 'scipy', 'pandas', 'numba', 'numpy')\n"
        "heavy = [m for m in heavy if m in sys.modules]\n"
        "print(heavy)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.stdout.strip().splitlines()[-1] == "[]", done.stderr[-2000:]


def test_predicted_probabilities_keep_full_precision(tmp_path):
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(0)
    frame = pd.DataFrame({f"x{i}": rng.integers(0, 3, 200) for i in range(4)})
    frame["y"] = (frame["x0"] + rng.integers(0, 2, 200)) % 3
    data = tmp_path / "d.csv"
    frame.to_csv(data, index=False)
    model, out = tmp_path / "m.json", tmp_path / "p.csv"
    assert _fit(data, model, target="y", source="--data") == 0
    argv = ["-q", "predict", "--model", str(model), "--data", str(data), "--proba"]
    assert main([*argv, "--output", str(out)]) == 0
    probabilities = pd.read_csv(out).filter(like="proba_").to_numpy()
    assert np.allclose(probabilities.sum(axis=1), 1.0, rtol=0, atol=1e-12)


def test_predict_reads_the_columns_by_name_in_any_order(train_csv, tmp_path, capsys):
    model = tmp_path / "m.json"
    assert _fit(train_csv, model) == 0
    frame = pd.read_csv(train_csv)
    shuffled = tmp_path / "shuffled.csv"
    frame[["count", "label", "colour", "size"]].to_csv(shuffled, index=False)
    extra = tmp_path / "extra.csv"
    frame[["size", "colour", "count"]].assign(row_id=range(len(frame))).to_csv(extra, index=False)
    capsys.readouterr()
    outputs = {}
    for name, path in (("original", train_csv), ("shuffled", shuffled), ("extra", extra)):
        assert main(["-q", "predict", "--model", str(model), "--csv", str(path), "--proba"]) == 0
        captured = capsys.readouterr()
        outputs[name] = captured.out
        if name == "extra":  # ignored, with one note naming it
            assert captured.err.count("note:") == 1 and "['row_id']" in captured.err
        else:  # the target column is dropped silently, as always
            assert captured.err == ""
    assert outputs["shuffled"] == outputs["original"] == outputs["extra"]


def test_predict_refuses_a_file_without_a_model_column_naming_it(train_csv, tmp_path, capsys):
    model = tmp_path / "m.json"
    assert _fit(train_csv, model) == 0
    lacking = tmp_path / "lacking.csv"
    pd.read_csv(train_csv).drop(columns=["count"]).to_csv(lacking, index=False)
    capsys.readouterr()
    assert main(["-q", "predict", "--model", str(model), "--csv", str(lacking)]) == 1
    err = capsys.readouterr().err
    assert "lacks the model's column ['count']" in err


@pytest.mark.parametrize("model", ["nb", "forest-density"])  # in batches; load_csv
def test_fit_names_a_numeric_cell_with_a_typo(train_csv, tmp_path, capsys, model):
    frame = pd.read_csv(train_csv)
    frame["size"] = frame["size"].astype(str)
    frame.loc[42, "size"] = "1.2O"
    typo = tmp_path / "typo.csv"
    frame.to_csv(typo, index=False)
    out = tmp_path / "m.json"
    argv = ["-q", "fit", "--csv", str(typo), "--target", "label", "--model", model]
    assert main([*argv, "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert "column 'size'" in err and "row 42: '1.2O'" in err and not out.exists()


@pytest.mark.parametrize("proba", [False, True])
def test_predict_on_a_header_only_file_writes_the_header(train_csv, tmp_path, capsys, proba):
    """No data rows: the predictions file holds its header alone (the target and, with
    --proba, a column per class), with a note on stderr."""
    model = tmp_path / "m.json"
    argv = ["-q", "fit", "--csv", str(train_csv), "--target", "label", "-o", str(model)]
    assert main([*argv, "--model", "nb"]) == 0
    data = tmp_path / "new.csv"
    data.write_text("colour,size,count\n")
    out = tmp_path / "predictions.csv"
    argv = ["-q", "predict", "--model", str(model), "--data", str(data), "--output", str(out)]
    capsys.readouterr()
    assert main(argv + ["--proba"] * proba) == 0
    expected = "label,proba_no,proba_yes" if proba else "label"
    assert out.read_text().splitlines() == [expected]
    assert "no data rows" in capsys.readouterr().err
