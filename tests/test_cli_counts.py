"""`fsclust select` on single-cell counts (issue 39, items 7-8): a sparse .h5ad, a 10x folder
and a Matrix Market file are read sparse, every gene ranked, the cells clustered; bad input is
one line, exit 2, nothing written."""

import gzip
import json

import numpy as np
import pandas as pd
import pytest
import scipy.io
import scipy.sparse as sp

anndata = pytest.importorskip("anndata")

from fsclust.cli import main  # noqa: E402
from fsclust.counts import synthetic_counts  # noqa: E402


@pytest.fixture(scope="module")
def counts():
    return synthetic_counts(500, 200, n_types=3, markers_per_type=8, random_state=0)


@pytest.fixture
def h5ad(tmp_path, counts):
    X, cell_types, _ = counts
    adata = anndata.AnnData(X.copy())
    adata.obs_names = [f"cell{i}" for i in range(X.shape[0])]
    adata.var_names = [f"gene{j}" for j in range(X.shape[1])]
    adata.obs["type"] = cell_types.astype(str)
    path = tmp_path / "cells.h5ad"
    adata.write_h5ad(path)
    return path


def _select(*argv):
    return main(["select", *map(str, argv)])


def test_sparse_h5ad_is_ranked_clustered_and_written(h5ad, tmp_path, counts, capsys):
    out = tmp_path / "out"
    assert _select("--input", h5ad, "--method", "laplacian", "--n-features", 24,
                   "--output-dir", out, "--label-column", "type") == 0
    assert sorted(p.name for p in out.iterdir()) == ["labels.tsv", "ranking.tsv",
                                                     "summary.json"]
    ranking = pd.read_csv(out / "ranking.tsv", sep="\t")
    assert list(ranking.columns) == ["feature", "score", "rank", "selected"]
    assert ranking["rank"].tolist() == list(range(1, 201))
    assert ranking["selected"].sum() == 24 and ranking["selected"].iloc[:24].all()
    summary = json.loads((out / "summary.json").read_text())
    assert summary["n_cells"] == 500 and summary["n_features"] == 24
    assert summary["ranking"]["params"]["graph"] == "pca"
    labels = pd.read_csv(out / "labels.tsv", sep="\t")
    assert len(labels) == 500 and labels["cluster"].max() + 1 == summary["n_clusters"]
    # scored with the labels, never chosen by them: Leiden at resolution 1 splits these 500
    # cells of 3 types finer (measured ARI 0.15; random labels give 0 +- 0.01)
    assert "Leiden" in summary["clustering"] and summary["ari"] > 0.1
    err = capsys.readouterr().err
    assert f"K = {summary['n_clusters']} clusters (Leiden" in err


def test_kmeans_with_a_given_k_and_the_same_result_twice(h5ad, tmp_path):
    first, second = tmp_path / "a", tmp_path / "b"
    for out in (first, second):
        assert _select("--input", h5ad, "--method", "laplacian", "--n-features", 24,
                       "--n-clusters", 3, "--output-dir", out, "--quiet") == 0
    for name in ("ranking.tsv", "labels.tsv"):
        assert (first / name).read_bytes() == (second / name).read_bytes()
    summary = json.loads((first / "summary.json").read_text())
    assert summary["n_clusters"] == 3 and summary["clustering"].startswith("k-means")


def _write_10x(folder, X, missing=None):
    folder.mkdir()
    files = {
        "matrix.mtx.gz": lambda f: scipy.io.mmwrite(f, sp.csr_matrix(X).T.tocoo()),
        "features.tsv.gz": lambda f: f.write("".join(
            f"ENSG{j}\tgene{j}\tGene Expression\n" for j in range(X.shape[1])).encode()),
        "barcodes.tsv.gz": lambda f: f.write("".join(
            f"cell{i}-1\n" for i in range(X.shape[0])).encode()),
    }
    for name, write in files.items():
        if name != missing:
            with gzip.open(folder / name, "wb") as handle:
                write(handle)
    return folder


def test_a_10x_folder_gives_the_h5ad_ranking(h5ad, tmp_path, counts):
    pytest.importorskip("scanpy")
    folder = _write_10x(tmp_path / "filtered_feature_bc_matrix", counts[0])
    from_h5ad, from_10x = tmp_path / "a", tmp_path / "b"
    assert _select("--input", h5ad, "--method", "laplacian", "--n-features", 10,
                   "--n-clusters", 3, "--output-dir", from_h5ad, "--quiet") == 0
    assert _select("--input", folder, "--method", "laplacian", "--n-features", 10,
                   "--n-clusters", 3, "--output-dir", from_10x, "--quiet") == 0
    a = pd.read_csv(from_h5ad / "ranking.tsv", sep="\t")
    b = pd.read_csv(from_10x / "ranking.tsv", sep="\t")
    assert a["feature"].tolist() == b["feature"].tolist()
    np.testing.assert_allclose(a["score"], b["score"], rtol=1e-10)


def _refused(capsys, out, *argv):
    with pytest.raises(SystemExit) as caught:
        _select(*argv, "--output-dir", out)
    err = capsys.readouterr().err
    assert caught.value.code == 2
    assert err.startswith("fsclust: error: ") and err.count("\n") == 1
    assert not out.exists()
    return err


def test_a_10x_folder_missing_a_file_is_refused_and_nothing_written(tmp_path, counts, capsys):
    pytest.importorskip("scanpy")
    folder = _write_10x(tmp_path / "tenx", counts[0], missing="barcodes.tsv.gz")
    err = _refused(capsys, tmp_path / "out", "--input", folder, "--method", "laplacian",
                   "--n-features", 10)
    assert "barcodes" in err


@pytest.mark.parametrize("case", ["negative", "non-integer", "duplicated", "auto m",
                                  "table flag", "unknown layer"])
def test_bad_counts_are_one_line_exit_2_and_nothing_written(case, tmp_path, counts, capsys):
    X = counts[0].copy()
    var = [f"gene{j}" for j in range(X.shape[1])]
    extra = []
    if case == "negative":
        X.data[0] = -1.0
    elif case == "non-integer":
        X.data[0] = 0.5
    elif case == "duplicated":
        var[1] = var[0]
    adata = anndata.AnnData(X, var=pd.DataFrame(index=var))
    path = tmp_path / "cells.h5ad"
    adata.write_h5ad(path)
    m = ["--n-features", "auto"] if case == "auto m" else ["--n-features", "10"]
    if case in ("negative", "non-integer"):
        extra = ["--counts"]  # such an .h5ad is otherwise read as a table of features
    if case == "table flag":
        extra = ["--log1p"]
    if case == "unknown layer":
        extra = ["--layer", "raw"]
    err = _refused(capsys, tmp_path / "out", "--input", path, "--method", "laplacian", *m,
                   *extra)
    expected = {"negative": "negative", "non-integer": "integer", "duplicated": "make",
                "auto m": "--n-features M", "table flag": "--log1p", "unknown layer": "raw"}
    assert expected[case] in err


def test_a_sparse_h5ad_of_non_integers_stays_a_table_of_features(tmp_path, counts):
    X = sp.csr_matrix(np.log1p(counts[0][:60, :20].toarray()))
    path = tmp_path / "table.h5ad"
    anndata.AnnData(X).write_h5ad(path)
    out = tmp_path / "out"
    assert _select("--input", path, "--method", "variance", "--n-features", 5,
                   "--n-clusters", 2, "--output-dir", out, "--quiet") == 0
    assert (out / "criterion.tsv").exists()


def test_a_dense_h5ad_stays_a_table_of_features(tmp_path, counts, capsys):
    X = counts[0][:60, :20].toarray()
    path = tmp_path / "table.h5ad"
    anndata.AnnData(X).write_h5ad(path)
    out = tmp_path / "out"
    assert _select("--input", path, "--method", "variance", "--n-features", 5,
                   "--n-clusters", 2, "--output-dir", out, "--quiet") == 0
    assert (out / "criterion.tsv").exists()  # the table path's files
