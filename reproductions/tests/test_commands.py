"""``discotree reproduce`` and ``discotree bench``: the commands this distribution adds to
discotree's command line (entry point ``discotree.commands``)."""

from discotree.cli import main


def test_reproduce_list_and_usage_errors(capsys):
    assert main(["reproduce", "--list"]) == 0
    listed = capsys.readouterr().out
    assert "pernkopf-uci" in listed
    for line in listed.splitlines():  # whole first paragraphs, never cut mid-sentence
        assert line.rstrip().endswith((".", ")")), line
    assert main(["reproduce"]) == 2
    assert "name an experiment, or use --list" in capsys.readouterr().err
    assert main(["reproduce", "nope"]) == 2
    assert main(["reproduce", "pernkopf-uci", "--models", "nope"]) == 2
    assert "unknown model 'nope'" in capsys.readouterr().err
    assert main(["reproduce", "narasimhan-example", "--models", "nb"]) == 2
    assert "--models does not apply" in capsys.readouterr().err
    assert main(["reproduce", "pernkopf-uci", "--datasets", "nope"]) == 2
    assert "unknown dataset 'nope'" in capsys.readouterr().err
    assert main(["reproduce", "narasimhan-example", "--datasets", "x"]) == 2
    assert "--datasets does not apply" in capsys.readouterr().err


def test_bench_on_the_data_folder_and_built_in_sets(fake_data_dir, tmp_path, capsys):
    argv = [
        "bench",
        "--datasets",
        "toy,iris",
        "--models",
        "nb,tan-cmi",
        "--data-dir",
        str(fake_data_dir),
        "--out",
        str(tmp_path / "b"),
        "-q",
    ]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "| toy | tan-cmi |" in out and "| iris | nb |" in out
    assert (tmp_path / "b" / "results.json").is_file()


def test_bench_names_a_missing_data_folder(tmp_path, capsys):
    argv = ["bench", "--datasets", "vote", "--models", "nb", "--data-dir", str(tmp_path / "none")]
    assert main([*argv, "--out", str(tmp_path / "b"), "-q"]) == 1
    err = capsys.readouterr().err
    assert "no data folder" in err and str(tmp_path / "none") in err
    assert main(["bench", "--datasets", "iris", "--models", "nb-typo"]) == 2
    assert "did you mean" in capsys.readouterr().err
