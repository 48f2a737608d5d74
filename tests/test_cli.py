import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from sklearn.utils import get_tags

from fsclust import __version__
from fsclust.cli import build_parser, main
from fsclust.registry import method_names, ranker_class


@pytest.fixture
def expression(tmp_path):
    """A small expression-like table: 2 informative genes, 3 noise genes, 1 constant gene."""
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1], 20)
    informative = y[:, None] * 4.0 + rng.normal(scale=0.3, size=(40, 2))
    noise = rng.normal(size=(40, 3))
    X = np.hstack([noise[:, :1], informative[:, :1], noise[:, 1:], informative[:, 1:],
                   np.full((40, 1), 2.0)])
    df = pd.DataFrame(X, columns=["n1", "g1", "n2", "n3", "g2", "const"],
                      index=[f"s{i}" for i in range(40)])
    df.insert(0, "class", np.where(y == 1, "tumour", "normal"))
    path = tmp_path / "expr.tsv"
    df.to_csv(path, sep="\t", index_label="sample")
    return path


def test_rank_writes_feature_score_rank_sorted(expression, tmp_path):
    out = tmp_path / "ranking.tsv"
    code = main(["rank", "--method", "laplacian", "--input", str(expression), "--output",
                 str(out), "--label-column", "class", "--set", "n_neighbors=5"])
    assert code == 0
    table = pd.read_csv(out, sep="\t")
    assert list(table.columns) == ["feature", "score", "rank"]
    assert table["rank"].tolist() == list(range(1, 7))
    assert "class" not in set(table["feature"])
    assert set(table["feature"][:2]) == {"g1", "g2"}  # the cluster-carrying genes first
    assert table["feature"].iloc[-1] == "const"  # a constant gene is ranked last


def test_rank_is_byte_identical_for_the_same_seed(expression, tmp_path):
    paths = [tmp_path / "a.tsv", tmp_path / "b.tsv"]
    for p in paths:
        main(["rank", "--method", "laplacian", "--input", str(expression), "--output", str(p),
              "--label-column", "class", "--seed", "3"])
    assert paths[0].read_bytes() == paths[1].read_bytes()


def _run(argv, capsys):
    """Run the CLI in-process; return its exit code and stderr."""
    try:
        code = main(argv)
    except SystemExit as exc:
        code = exc.code
    return code, capsys.readouterr().err


def _assert_clean_error(code, err, out, expected):
    assert code == 2
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("fsclust: error: "), err
    for fragment in expected:
        assert fragment in lines[0], lines[0]
    assert not out.exists()
    if out.parent.is_dir():  # nor a half-written temporary file beside it
        assert not [p for p in out.parent.iterdir() if p.name.startswith(f".{out.name}.")]


# Two groups of 4 samples along `a`; `b` and `c` are noise.
GOOD = ("id\ta\tb\tc\tclass\n"
        "s1\t0\t1\t5\tx\ns2\t0.1\t1.2\t4\tx\ns3\t0.2\t0.9\t6\tx\ns4\t0.3\t1.4\t5.2\tx\n"
        "s5\t5\t1.1\t5\ty\ns6\t5.1\t1\t4.5\ty\ns7\t4.9\t1.3\t5.5\ty\ns8\t5.2\t0.8\t4.1\ty\n")


def _tsv(tmp_path, text, name="in.tsv"):
    path = tmp_path / name
    path.write_text(text)
    return path


def _edit(old, new):
    assert old in GOOD
    return GOOD.replace(old, new, 1)


BAD_TABLES = {
    "duplicate-features": (_edit("id\ta\tb", "id\ta\ta"),
                           ["1 duplicate feature name(s): 'a' (2x)"]),
    "duplicate-samples": (_edit("s2\t", "s1\t").replace("s3\t", "s1\t", 1),
                          ["duplicate sample id(s): 's1' (3x)"]),
    "empty-cell": (_edit("\t1.2\t", "\t\t"),
                   ["1 empty, NaN or infinite cell(s)", "sample 's2', feature 'b'",
                    "--impute median"]),
    "nan-cells": (_edit("\t1.3\t", "\tNaN\t").replace("s3\t0.2", "s3\tnan"),
                  ["2 empty, NaN or infinite cell(s)", "sample 's3', feature 'a' ('nan')"]),
    "infinite-cell": (_edit("\t4.5\t", "\tinf\t"), ["sample 's6', feature 'c' ('inf')"]),
    "minus-infinite-cell": (_edit("\t4.1\t", "\t-Infinity\t"), ["sample 's8', feature 'c'"]),
    "text-cell": (_edit("\t4.1\t", "\thigh\t"),
                  ["column 'c' is not numeric: line 9 (sample 's8') has 'high'", "--label-column c"]),
    "ragged-row": (_edit("\t4.1\ty", "\ty"), ["line 9 has 4 cells, expected 5"]),
    "all-constant": ("id\ta\tb\tclass\ns1\t1\t2\tx\ns2\t1\t2\ty\ns3\t1\t2\tx\n",
                     ["all 2 feature(s) are constant; nothing to rank"]),
}


@pytest.mark.parametrize("case", list(BAD_TABLES))
def test_bad_table_is_a_one_line_exit_2_error(case, tmp_path, capsys):
    text, expected = BAD_TABLES[case]
    out = tmp_path / "out.tsv"
    code, err = _run(["rank", "--method", "variance", "--input", str(_tsv(tmp_path, text)),
                      "--output", str(out), "--label-column", "class"], capsys)
    _assert_clean_error(code, err, out, expected)


BAD_OPTIONS = {
    "unknown-method": (["--method", "lapl"], ["unknown method 'lapl'", "did you mean 'laplacian'",
                                              "variance"]),
    "set-not-an-int": (["--set", "n_neighbors=abc"],
                       ["--set n_neighbors=abc: n_neighbors expects an integer (default 5)"]),
    "set-a-fraction-for-an-int": (["--set", "n_neighbors=2.5"], ["expects an integer"]),
    "set-text-for-a-float": (["--method", "evsfsc", "--set", "bandwidth_scale=wide"],
                             ["bandwidth_scale expects a number (default 1.0)"]),
    "set-without-equals": (["--set", "oops"], ["--set expects PARAM=VALUE, got 'oops'"]),
    "set-unknown-parameter": (["--set", "k=3"],
                              ["--set k: method 'laplacian' has no parameter 'k'",
                               "n_neighbors"]),
    "label-column-missing": (["--label-column", "kind"],
                             ["--label-column 'kind' is not a column of", "'class'"]),
    "input-missing": (["--input", "nowhere.tsv"], ["--input nowhere.tsv: no such file"]),
    "input-extension": (["--input", "IN.xlsx"], ["unknown format '.xlsx'", ".tsv", ".h5ad"]),
    "estimator-rejects-a-parameter": (["--method", "llcfs"],
                                      ["n_neighbors=30", "change it with --set n_neighbors=VALUE"]),
}


@pytest.mark.parametrize("case", list(BAD_OPTIONS))
def test_bad_option_is_a_one_line_exit_2_error(case, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _tsv(tmp_path, GOOD)
    (tmp_path / "IN.xlsx").write_text(GOOD)
    extra, expected = BAD_OPTIONS[case]
    argv = {"--method": "laplacian", "--input": "in.tsv", "--output": "out.tsv",
            "--label-column": "class"}
    argv.update(zip(extra[::2], extra[1::2]))
    flat = [v for kv in argv.items() for v in kv]
    code, err = _run(["rank", *flat], capsys)
    _assert_clean_error(code, err, tmp_path / "out.tsv", expected)


def _bad_outputs(tmp_path):
    (tmp_path / "adir").mkdir()
    (tmp_path / "afile").write_text("")
    return {
        "existing-directory": (tmp_path / "adir", ["is a directory; give a file name"]),
        "missing-parent": (tmp_path / "no" / "out.tsv",
                           [f"directory {tmp_path / 'no'} does not exist"]),
        "parent-is-a-file": (tmp_path / "afile" / "out.tsv",
                             [f"{tmp_path / 'afile'} is not a directory"]),
    }


@pytest.mark.parametrize("case", ["existing-directory", "missing-parent", "parent-is-a-file"])
def test_unwritable_output_is_a_one_line_exit_2_error(case, tmp_path, capsys):
    out, expected = _bad_outputs(tmp_path)[case]
    code, err = _run(["rank", "--method", "variance", "--input", str(_tsv(tmp_path, GOOD)),
                      "--output", str(out), "--label-column", "class"], capsys)
    if case == "existing-directory":
        assert code == 2 and out.is_dir() and not any(out.iterdir())
        assert err.startswith("fsclust: error: --output ") and expected[0] in err
    else:
        _assert_clean_error(code, err, out, [f"--output {out}", *expected])


def test_read_only_output_directory_is_a_one_line_exit_2_error(read_only_dir, tmp_path,
                                                               capsys):
    ro = read_only_dir
    out = ro / "out.tsv"
    code, err = _run(["rank", "--method", "variance", "--input", str(_tsv(tmp_path, GOOD)),
                      "--output", str(out)], capsys)
    _assert_clean_error(code, err, out, [f"--output {out}: directory {ro} is not writable"])


@pytest.mark.parametrize("k", [1, 0, 9])
@pytest.mark.parametrize("method", method_names())
def test_n_clusters_out_of_range_is_refused_before_fitting(method, k, tmp_path, capsys,
                                                           monkeypatch):
    def no_fit(*args, **kwargs):
        raise AssertionError("fitted")

    monkeypatch.setattr("fsclust.ranking.rank_features", no_fit)
    out = tmp_path / "out.tsv"
    code, err = _run(["rank", "--method", method, "--input", str(_tsv(tmp_path, GOOD)),
                      "--output", str(out), "--label-column", "class", "--n-clusters", str(k)],
                     capsys)
    _assert_clean_error(code, err, out, [f"--n-clusters {k} is out of range",
                                         "between 2 and the number of samples (8)"])
    assert "give --n-clusters" not in err  # the user just did


def test_one_class_label_column_cannot_be_k(tmp_path, capsys):
    text = GOOD.replace("\ty\n", "\tx\n")
    out = tmp_path / "out.tsv"
    code, err = _run(["rank", "--method", "kernel_weighting", "--input", str(_tsv(tmp_path, text)),
                      "--output", str(out), "--label-column", "class"], capsys)
    _assert_clean_error(code, err, out, ["--label-column 'class' has 1 class(es), so K = 1",
                                         "give --n-clusters K"])


def test_label_column_sets_k_when_n_clusters_is_absent(tmp_path, monkeypatch):
    seen = {}

    def spy(X, method, params=None, *, n_clusters=None, random_state=None):
        seen["k"] = n_clusters
        raise ValueError("stop")

    monkeypatch.setattr("fsclust.ranking.rank_features", spy)
    argv = ["rank", "--method", "qalpha", "--input", str(_tsv(tmp_path, GOOD)),
            "--output", str(tmp_path / "o.tsv"), "--label-column", "class"]
    with pytest.raises(SystemExit):
        main(argv)
    assert seen["k"] == 2
    with pytest.raises(SystemExit):
        main([*argv, "--n-clusters", "3"])
    assert seen["k"] == 3
    helptext = build_parser()._subparsers._group_actions[0].choices["rank"].format_help()
    assert "number of classes is K when --n-clusters is not given" in " ".join(helptext.split())


def test_impute_median_equals_filling_in_the_median_by_hand(tmp_path, capsys):
    holes = _edit("\t1.2\t", "\tNA\t").replace("\t4.5\t", "\t\t", 1)
    by_hand = _edit("\t1.2\t", "\t1\t").replace("\t4.5\t", "\t5\t", 1)  # medians of b, c
    outs = [tmp_path / "imputed.tsv", tmp_path / "by_hand.tsv"]
    errs = []
    for text, out, name in ((holes, outs[0], "h.tsv"), (by_hand, outs[1], "b.tsv")):
        code, err = _run(["rank", "--method", "laplacian", "--input",
                          str(_tsv(tmp_path, text, name)), "--output", str(out),
                          "--label-column", "class", "--impute", "median"], capsys)
        assert code == 0 and "Traceback" not in err
        errs.append(err)
    assert ("fsclust: warning: imputed 2 empty, NaN or infinite cell(s) with their column's "
            "median (--impute median); the first was sample 's2', feature 'b'") in errs[0]
    assert "warning" not in errs[1]
    assert outs[0].read_bytes() == outs[1].read_bytes()


@pytest.mark.parametrize("method", method_names())
def test_constant_columns_are_ranked_last_with_a_finite_score(method, tmp_path, capsys):
    if get_tags(ranker_class(method)()).ranker_tags.counts_input:  # test_hvg, test_deviance
        pytest.skip(f"{method} models raw counts and refuses this real-valued table")
    text = "".join(
        line.replace("\tclass", "\tclass\tflat1\tflat2") if i == 0
        else line.replace("\tx", "\tx\t7\t0").replace("\ty", "\ty\t7\t0")
        for i, line in enumerate(GOOD.splitlines(keepends=True)))
    out = tmp_path / "out.tsv"
    small = ["--set", "n_neighbors=3"] if method == "llcfs" else []  # default 30 > 8 samples
    code, err = _run(["rank", "--method", method, "--input", str(_tsv(tmp_path, text)),
                      "--output", str(out), "--label-column", "class", "--n-clusters", "2",
                      *small], capsys)
    assert code == 0, err
    assert "fsclust: warning: 2 constant feature(s) ('flat1', 'flat2') ranked last" in err
    assert "Warning:" not in err  # a method's own warnings are "fsclust: warning: ..." lines
    table = pd.read_csv(out, sep="\t")
    assert table["rank"].tolist() == [1, 2, 3, 4, 5]
    assert set(table["feature"][-2:]) == {"flat1", "flat2"}
    assert np.isfinite(table["score"]).all()


@pytest.mark.parametrize("command", ["datasets", "methods"])
@pytest.mark.slow  # a new interpreter per case (the in-process CLI tests are fast)
def test_closed_pipe_ends_quietly(command):
    # The reader is gone before the CLI writes a byte, as in `fsclust methods | head -0`.
    proc = subprocess.Popen([sys.executable, "-m", "fsclust.cli", command],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    proc.stdout.close()
    _, err = proc.communicate()
    assert proc.returncode in (0, 141)
    assert "Traceback" not in err and "Exception ignored" not in err and "BrokenPipe" not in err


@pytest.mark.slow  # a new interpreter per case (the in-process CLI tests are fast)
def test_error_from_the_real_entry_point_has_no_traceback(tmp_path):
    out = tmp_path / "out.tsv"
    res = subprocess.run([sys.executable, "-m", "fsclust.cli", "rank", "--method", "laplacian",
                          "--input", str(_tsv(tmp_path, GOOD)), "--output", str(out),
                          "--set", "n_neighbors=abc"], capture_output=True, text=True)
    assert res.returncode == 2 and res.stdout == ""
    assert res.stderr == ("fsclust: error: --set n_neighbors=abc: n_neighbors expects an "
                          "integer (default 5), got 'abc'\n")
    assert not out.exists()


@pytest.mark.slow  # a new interpreter per case (the in-process CLI tests are fast)
def test_version_and_methods_from_the_installed_entry_point():
    out = subprocess.run([sys.executable, "-m", "fsclust.cli", "--version"], capture_output=True,
                         text=True, check=True)
    assert out.stdout.strip() == f"fsclust {__version__}"
    out = subprocess.run([sys.executable, "-m", "fsclust.cli", "methods"], capture_output=True,
                         text=True, check=True)
    assert "laplacian" in out.stdout and "ncut" in out.stdout


def test_datasets_lists_the_registry(capsys):
    assert main(["datasets"]) == 0
    out = capsys.readouterr().out
    for name in ("iris", "synthetic-blobs", "desouto-armstrong-2002-v2"):
        assert name in out


def test_a_failure_while_writing_leaves_no_file(tmp_path, capsys, monkeypatch):
    def half_then_full_disk(self, path, *args, **kwargs):
        with open(path, "w") as fh:
            fh.write("feature\tsco")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(pd.DataFrame, "to_csv", half_then_full_disk)
    out = tmp_path / "out.tsv"
    code, err = _run(["rank", "--method", "variance", "--input", str(_tsv(tmp_path, GOOD)),
                      "--output", str(out), "--label-column", "class"], capsys)
    _assert_clean_error(code, err, out, [])
    assert "no space left on device" in err.lower()
