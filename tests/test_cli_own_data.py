"""Issue 24 on the command line: your own matrix in the layouts and formats people have, the
answers they came for, and nothing silent."""

import contextlib
import gzip
import inspect
import io
import json
import re
import shlex
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from fsclust import cli
from fsclust.cli import build_parser, main
from fsclust.registry import ranker_class
from fsclust.selection import LabelFreeSelector
from fsclust.userdata import CLI_FLAGS

FAST = ["--n-resamples", "4"]
README = Path(__file__).resolve().parents[1] / "README.md"
N_INFORMATIVE = 4


def _frame(n_per_group=10, n_noise=8, seed=0):
    """3 groups of samples, shifted on the first N_INFORMATIVE features; sample ids are GEO
    accessions and feature names Ensembl ids, as in a public expression set."""
    rng = np.random.default_rng(seed)
    y = np.repeat([0, 1, 2], n_per_group)
    X = rng.normal(size=(y.size, N_INFORMATIVE + n_noise))
    X[:, :N_INFORMATIVE] += 4.0 * y[:, None]
    columns = [f"ENSG{j:011d}" for j in range(X.shape[1])]
    return pd.DataFrame(X, columns=columns, index=[f"GSM{100 + i}" for i in range(y.size)]), y


def _counts(seed=0):
    """A count-like matrix (samples x genes): Poisson counts spanning decades, three groups."""
    frame, y = _frame(seed=seed)
    rng = np.random.default_rng(seed)
    means = np.logspace(0, 4, frame.shape[1]) * np.where(np.arange(frame.shape[1]) <
                                                         N_INFORMATIVE, 1.0 + y[:, None], 1.0)
    return pd.DataFrame(rng.poisson(means).astype(float), index=frame.index,
                        columns=frame.columns), y


def _run(argv, stdin=None):
    """Run the CLI in-process; return its exit code, stdout and stderr."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exc:
            code = exc.code
    return code, out.getvalue(), err.getvalue()


def _one_line_error(code, err, *fragments):
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("fsclust: error: "), err
    for fragment in fragments:
        assert fragment in lines[0], lines[0]


@pytest.fixture(scope="module")
def samples_in_rows(tmp_path_factory):
    path = tmp_path_factory.mktemp("in") / "expr.tsv"
    _frame()[0].to_csv(path, sep="\t", index_label="sample")
    return path


def _select(path, out, *extra):
    return _run(["select", "--method", "laplacian", "--input", str(path), "--output-dir",
                 str(out), *FAST, *extra])


def test_the_cli_flags_are_those_the_reader_names():
    # userdata's messages name the flags of CLI_FLAGS: every one must exist on both commands
    for command in ("rank", "select"):
        parser = build_parser()._subparsers._group_actions[0].choices[command]
        options = {s for action in parser._actions for s in action.option_strings}
        for name, flag in CLI_FLAGS.items():
            assert flag.split()[0] in options, (command, name, flag)


def test_geo_layout_is_refused_with_the_fix_then_read_with_it(tmp_path):
    genes_in_rows = tmp_path / "GSE1_series_matrix.txt"
    frame = _frame(n_noise=40)[0]  # more genes than samples, as in expression sets
    body = frame.T.to_csv(sep="\t", index_label="ID_REF")
    genes_in_rows.write_text("!Series_title\t\"x\"\n!series_matrix_table_begin\n" + body
                             + "!series_matrix_table_end\n")
    code, _, err = _select(genes_in_rows, tmp_path / "out")
    _one_line_error(code, err, "features in rows", "--features-in-rows")
    assert not (tmp_path / "out").exists()
    # K given: the layout is the subject here, not the search for K (the fits of every K)
    code, _, err = _select(genes_in_rows, tmp_path / "out", "--features-in-rows",
                           "--n-clusters", "3")
    assert code == 0, err
    ranking = pd.read_csv(tmp_path / "out" / "ranking.tsv", sep="\t")
    assert set(ranking["feature"]) == set(frame.columns)


def test_a_label_row_without_a_name_gets_advice_that_can_be_pasted(tmp_path):
    # de Souto et al.'s files, as published: genes in rows, the classes in a second row whose
    # first cell is empty; the advice must quote the empty name or the shell drops it
    frame, y = _frame(n_noise=40)
    table = frame.T.astype(object)
    table.loc[""] = [f"class{v}" for v in y]
    path = tmp_path / "desouto_database.txt"
    table.loc[[""] + list(frame.columns)].to_csv(path, sep="\t")
    code, _, err = _select(path, tmp_path / "out", "--features-in-rows")
    _one_line_error(code, err, "row '' is not numeric", "--label-column ''")
    argv = shlex.split(re.search(r"give (--label-column (?:'[^']*'|\S+?)),", err).group(1))
    code, _, err = _select(path, tmp_path / "out", "--features-in-rows", *argv)
    assert code == 0, err
    assert "K from the 3 classes of --label-column ''" in err


def test_a_compressed_table_reads_as_the_plain_one(samples_in_rows, tmp_path):
    packed = tmp_path / "expr.tsv.gz"
    packed.write_bytes(gzip.compress(samples_in_rows.read_bytes()))
    for path, out in ((samples_in_rows, "plain"), (packed, "packed")):
        code, _, err = _select(path, tmp_path / out, "--n-clusters", "3")
        assert code == 0, err
    for name in ("ranking.tsv", "labels.tsv", "criterion.tsv"):
        assert (tmp_path / "plain" / name).read_bytes() == (tmp_path / "packed" / name).read_bytes()
    assert json.loads((tmp_path / "packed" / "summary.json").read_text())["format"] == "tsv.gz"


def test_stdin_and_stdout(samples_in_rows, tmp_path, monkeypatch):
    code, _, err = _select(samples_in_rows, tmp_path / "dir", "--n-clusters", "3")
    assert code == 0, err
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(samples_in_rows.read_bytes())))
    monkeypatch.chdir(tmp_path)
    code, out, err = _run(["select", "--method", "laplacian", "--input", "-", "--output-dir", "-",
                           "--n-clusters", "3", *FAST])
    assert code == 0, err
    assert out == (tmp_path / "dir" / "ranking.tsv").read_text()  # the ranking, and only it
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dir"]  # no file named "-"


def test_rank_output_dash_writes_the_ranking_to_stdout(samples_in_rows, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    argv = ["rank", "--method", "laplacian", "--input", str(samples_in_rows)]
    assert _run([*argv, "--output", "file.tsv"])[0] == 0
    code, out, err = _run([*argv, "--output", "-"])
    assert code == 0, err
    assert out == (tmp_path / "file.tsv").read_text()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file.tsv"]


@pytest.mark.parametrize("flag", ["--top", "--top-variable"])
def test_a_count_of_features_below_one_is_refused(samples_in_rows, flag):
    code, _, err = _select(samples_in_rows, "-", flag, "0")
    _one_line_error(code, err, f"argument {flag}: expects a positive integer, got '0'")


def test_flags_are_never_abbreviated(samples_in_rows):
    # rank has no --top: it must not be read as --top-variable
    code, _, err = _run(["rank", "--method", "variance", "--input", str(samples_in_rows),
                         "--output", "-", "--top", "3"])
    _one_line_error(code, err, "unrecognized arguments: --top")


def test_several_methods_to_stdout_is_refused(samples_in_rows, tmp_path):
    code, out, err = _select(samples_in_rows, "-", "--method", "laplacian,spec")
    _one_line_error(code, err, "--output-dir -", "give a directory")
    assert out == ""


def test_a_cell_of_1e308_is_one_line_naming_it_and_the_fix(tmp_path):
    frame = _frame()[0]
    frame.iloc[5, 2] = 1e308
    path = tmp_path / "big.tsv"
    frame.to_csv(path, sep="\t", index_label="sample")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no numpy overflow warning on the way
        code, _, err = _select(path, tmp_path / "out")
    _one_line_error(code, err, f"sample {frame.index[5]!r}", f"feature {frame.columns[2]!r}",
                    "1e+308", "--log10", "--floor")
    assert not (tmp_path / "out").exists()


@pytest.fixture(scope="module")
def split_graph(tmp_path_factory):
    """Four copies of one feature: LLC-fs gives every feature the same weight."""
    column = np.random.default_rng(0).normal(size=(30, 1))
    frame = pd.DataFrame(np.repeat(column, 4, axis=1), columns=list("abcd"),
                         index=[f"s{i}" for i in range(30)])
    path = tmp_path_factory.mktemp("llcfs") / "copies.tsv"
    frame.to_csv(path, sep="\t", index_label="sample")
    return path


LLCFS = ["--method", "llcfs", "--n-features", "2", "--n-clusters", "2", "--set",
         "n_neighbors=5", "--set", "max_iter=5", "--set", "min_neighborhood_size=1"]


def test_equal_llcfs_scores_are_a_warning_naming_the_neighbourhood_fix(split_graph, tmp_path):
    code, _, err = _select(split_graph, tmp_path / "out", *LLCFS)
    assert code == 0, err
    warned = [line for line in err.splitlines() if line.startswith("fsclust: warning: ")]
    # one warning, from the method's own status (why), naming the fix; not three for one fact
    assert len(warned) == 1, err
    assert "no_ranking" in warned[0] and "neighborhood=knn" in warned[0], err
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["degenerate"]
    assert pd.read_csv(tmp_path / "out" / "ranking.tsv", sep="\t")["tied"].all()


def test_strict_makes_a_degenerate_ranking_exit_3_after_writing(split_graph, tmp_path):
    code, _, err = _select(split_graph, tmp_path / "out", *LLCFS, "--strict")
    assert code == 3
    assert err.strip().splitlines()[-1].startswith("fsclust: error: llcfs")
    assert (tmp_path / "out" / "ranking.tsv").is_file()


def test_a_sound_ranking_passes_strict(samples_in_rows, tmp_path):
    assert _select(samples_in_rows, tmp_path / "out", "--n-clusters", "3", "--strict")[0] == 0


@pytest.mark.parametrize("extra, source, words", [
    (["--n-clusters", "3"], "given", "K given by --n-clusters"),
    (["--label-column", "group"], "labels", "K from the 3 classes of --label-column 'group'"),
    ([], "selector", "K estimated by the selector ({criterion}, rule {rule})".format(
        criterion=LabelFreeSelector().criterion, rule=LabelFreeSelector().rule)),
])
def test_k_and_where_it_came_from_are_printed_and_recorded(extra, source, words, tmp_path):
    frame, y = _frame()
    if "--label-column" in extra:
        frame["group"] = np.array(["a", "b", "c"])[y]
    path = tmp_path / "in.tsv"
    frame.to_csv(path, sep="\t", index_label="sample")
    code, _, err = _select(path, tmp_path / "out", *extra)
    assert code == 0, err
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["k_source"] == source
    assert f"K = {summary['n_clusters']} clusters" in err and words in err


def test_n_clusters_search_estimates_k_even_with_labels_which_then_only_score(tmp_path):
    path = tmp_path / "labelled.tsv"
    frame, y = _frame()
    frame.assign(group=[f"g{v}" for v in y]).to_csv(path, sep="\t", index_label="sample")
    code, _, err = _select(path, tmp_path / "out", "--label-column", "group", "--n-features",
                           "4", "--n-clusters", "search")
    assert code == 0, err
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["k_source"] == "selector" and "K estimated by the selector" in err
    assert {"acc", "nmi", "ari"} <= set(summary)  # the labels score the estimate
    code, _, err = _select(path, tmp_path / "out", "--n-clusters", "several")
    _one_line_error(code, err, "auto or search or an integer")


def test_rank_prints_the_k_it_used(samples_in_rows):
    code, _, err = _run(["rank", "--method", "mcfs", "--input", str(samples_in_rows),
                         "--output", "-"])
    default = inspect.signature(ranker_class("mcfs")).parameters["n_clusters"].default
    assert code == 0 and f"K = {default}: mcfs's default" in err and "--n-clusters K" in err


def test_methods_name_shows_summary_reference_parameters_and_k(capsys):
    for name, takes_k in (("laplacian", "no"), ("mcfs", "yes")):
        assert main(["methods", name]) == 0
        text = capsys.readouterr().out
        cls = ranker_class(name)
        doc = inspect.getdoc(cls)
        assert text.splitlines()[0] == f"{name}: {doc.splitlines()[0]}"
        assert "reference:" in text
        parameters = inspect.signature(cls).parameters
        for param, spec in parameters.items():
            assert f"  {param} = {spec.default!r}" in text
        for param, constraints in cls._parameter_constraints.items():
            line = next(line for line in text.splitlines() if line.startswith(f"  {param} ="))
            assert "allowed: " in line and str(constraints[0]).split()[0] in line
        assert f"takes K: {takes_k}" in text


@pytest.mark.parametrize("argv, close", [
    (["methods", "laplacain"], "laplacian"),
    (["rank", "--method", "mfcs", "--input", "x.tsv", "--output", "-"], "mcfs"),
    (["select", "--method", "laplacian,spex", "--input", "x.tsv", "--output-dir", "-"], "spec"),
])
def test_a_misspelled_method_gets_did_you_mean(argv, close):
    code, _, err = _run(argv)
    _one_line_error(code, err, f"did you mean {close!r}")


def test_h5ad_in_h5ad_out(tmp_path):
    anndata = pytest.importorskip("anndata")
    scipy_sparse = pytest.importorskip("scipy.sparse")
    frame, y = _frame()
    # names as plain objects: pandas 3's string dtype is written only on request
    adata = anndata.AnnData(scipy_sparse.csr_matrix(frame.to_numpy()),
                            obs=pd.DataFrame({"group": np.array(["a", "b", "c"], dtype=object)[y]},
                                             index=pd.Index(frame.index, dtype=object)),
                            var=pd.DataFrame(index=pd.Index(frame.columns, dtype=object)))
    path = tmp_path / "in.h5ad"
    adata.write_h5ad(path)
    code, _, err = _select(path, tmp_path / "out", "--label-column", "group")
    assert code == 0, err
    result = anndata.read_h5ad(tmp_path / "out" / "result.h5ad")
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    ranking = pd.read_csv(tmp_path / "out" / "ranking.tsv", sep="\t").set_index("feature")
    assert list(result.var_names) == list(frame.columns)
    assert result.var["fsclust_selected"].sum() == summary["n_features"]
    assert (result.var["fsclust_rank"] == ranking.loc[result.var_names, "rank"]).all()
    labels = pd.read_csv(tmp_path / "out" / "labels.tsv", sep="\t")
    assert result.obs["fsclust_cluster"].astype(int).tolist() == labels["cluster"].tolist()
    assert summary["k_source"] == "labels" and summary["format"] == "h5ad"


def test_several_methods_one_folder_each_and_their_agreement(samples_in_rows, tmp_path):
    methods = ["laplacian", "spec", "variance"]
    code, _, err = _select(samples_in_rows, tmp_path / "out", "--method", ",".join(methods),
                           "--n-clusters", "3")
    assert code == 0, err
    out = tmp_path / "out"
    assert sorted(p.name for p in out.iterdir()) == sorted([*methods, "agreement.tsv"])
    for method in methods:  # each as the method alone writes it
        code, _, err = _select(samples_in_rows, tmp_path / method, "--method", method,
                               "--n-clusters", "3")
        assert code == 0, err
        for name in ("ranking.tsv", "labels.tsv", "criterion.tsv"):
            assert (out / method / name).read_bytes() == (tmp_path / method / name).read_bytes()
    agreement = pd.read_csv(out / "agreement.tsv", sep="\t")
    jaccard = agreement.pivot(index="method_a", columns="method_b", values="jaccard")
    assert np.allclose(jaccard, jaccard.T) and np.allclose(np.diag(jaccard), 1.0)
    assert ((0 <= agreement["top_overlap"]) & (agreement["top_overlap"] <= 1)).all()
    # a later run may replace the whole folder
    assert _select(samples_in_rows, out, "--method", "laplacian", "--n-clusters", "3")[0] == 0


def test_top_and_the_reduced_matrix(samples_in_rows, tmp_path):
    code, out, err = _select(samples_in_rows, tmp_path / "out", "--n-clusters", "3", "--top", "5",
                             "--write-matrix")
    assert code == 0, err
    ranking = pd.read_csv(tmp_path / "out" / "ranking.tsv", sep="\t")
    top = pd.read_csv(io.StringIO(out), sep="\t")
    pd.testing.assert_frame_equal(top, ranking.head(5))
    reduced = pd.read_csv(tmp_path / "out" / "reduced.tsv", sep="\t", index_col="sample")
    selected = ranking["feature"][ranking["selected"]]
    assert set(reduced.columns) == set(selected)
    matrix = pd.read_csv(samples_in_rows, sep="\t", index_col="sample")
    pd.testing.assert_frame_equal(reduced, matrix[reduced.columns])


def test_preprocessing_is_recorded_and_raw_counts_are_warned_of(tmp_path):
    path = tmp_path / "counts.tsv"
    _counts()[0].to_csv(path, sep="\t", index_label="sample")
    code, _, err = _select(path, tmp_path / "raw", "--n-clusters", "3")
    assert code == 0, err
    raw = [line for line in err.splitlines() if "look like raw counts" in line]
    assert len(raw) == 1 and raw[0].startswith("fsclust: warning: ") and "--log1p" in raw[0]
    summary = json.loads((tmp_path / "raw" / "summary.json").read_text())
    assert summary["preprocessing"] == [] and any("raw counts" in w for w in summary["warnings"])
    code, _, err = _select(path, tmp_path / "logged", "--n-clusters", "3", "--log1p",
                           "--top-variable", "8", "--standardize")
    assert code == 0 and "raw counts" not in err, err
    summary = json.loads((tmp_path / "logged" / "summary.json").read_text())
    assert summary["preprocessing"] == ["log1p", "top_variable(n=8)", "standardize"]
    assert summary["n_features_in"] == 8


def test_quiet_verbose_and_progress(samples_in_rows, tmp_path, monkeypatch):
    # K given: the messages are the subject here, not the search for K (10 times the fits)
    k = ("--n-clusters", "3")
    code, _, err = _select(samples_in_rows, tmp_path / "q", "--quiet", *k)
    assert code == 0 and err == ""
    code, _, err = _select(samples_in_rows, tmp_path / "v", "--verbose", *k)
    assert code == 0
    assert "laplacian: fitting 4 subsamples..." in err
    assert re.search(r"laplacian: done in \d+\.\d s", err)
    monkeypatch.setattr(cli, "_PROGRESS_AFTER", 600.0)  # a short fit (the machine may be busy)
    code, _, err = _select(samples_in_rows, tmp_path / "n", *k)
    assert code == 0 and "fitting" not in err  # stays quiet
    monkeypatch.setattr(cli, "_PROGRESS_AFTER", 0.0)  # as if the fit were long
    code, _, err = _select(samples_in_rows, tmp_path / "long", *k)
    assert code == 0 and "laplacian: fitting 4 subsamples..." in err and "done in" in err


def test_the_figure_on_request(samples_in_rows, tmp_path):
    code, _, err = _select(samples_in_rows, tmp_path / "out", "--n-clusters", "3", "--figure")
    assert code == 0, err
    for name in ("summary.png", "summary.svg"):
        assert (tmp_path / "out" / name).stat().st_size > 0


def _readme_commands():
    """The fsclust command lines of the README's own-data section."""
    text = README.read_text()
    section = text.split("## Your own data", 1)[1].split("\n## ", 1)[0]
    block = section.split("```bash", 1)[1].split("```", 1)[0]
    return [shlex.split(line) for line in block.splitlines() if line.startswith("fsclust ")]


@pytest.mark.slow  # the README's commands end to end
def test_the_readme_own_data_commands_run(tmp_path, monkeypatch):
    commands = _readme_commands()
    assert len(commands) >= 3
    monkeypatch.chdir(tmp_path)
    counts = _counts()[0]
    inputs = {arg for argv in commands for flag, arg in zip(argv, argv[1:]) if flag == "--input"}
    for name in inputs:  # the README's file names, holding a small count matrix genes x samples
        with gzip.open(name, "wt") if name.endswith(".gz") else open(name, "w") as fh:
            fh.write(counts.T.to_csv(sep="\t", index_label="gene"))
    for argv in commands:
        fast = FAST if argv[1] == "select" else []
        code, out, err = _run([*argv[1:], *fast])
        assert code == 0, (argv, err)
        assert "warning" not in err, (argv, err)  # the README's commands are the right ones


def test_the_readmes_python_example_runs_as_written():
    # the README's ```python block is a doctest: its outputs are what fsclust.select returns
    import doctest

    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)
    assert blocks, "the README has no python example"
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for index, block in enumerate(blocks):
        test = parser.get_doctest(block, {}, f"README python block {index}", "README.md", 0)
        assert test.examples, block
        runner.run(test)
    assert runner.summarize(verbose=False).failed == 0
