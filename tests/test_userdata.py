"""The user's matrix: every format reads the same table, layouts, value checks, preprocessing."""

import bz2
import gzip
import io
import lzma
import sys
import zipfile

import numpy as np
import pandas as pd
import pytest
from _mirror import MIRROR, needs_mirror

from fsclust.datasets import read_desouto
from fsclust.userdata import (
    CLI_FLAGS,
    as_user_matrix,
    overflow_bound,
    preprocess,
    raw_count_warning,
    read_user_matrix,
)


@pytest.fixture
def frame():
    """Six samples x four features with awkward values (negative, tiny, many digits)."""
    rng = np.random.default_rng(1)
    values = rng.normal(size=(6, 4)) * [1.0, 1e-6, 1e6, 3.0]
    return pd.DataFrame(values, index=[f"s{i}" for i in range(6)],
                        columns=["TP53", "BRCA1", "MYC", "EGFR"])


ARMSTRONG = MIRROR / "desouto-armstrong-2002-v2" / "armstrong-2002-v2_database.txt"


def _assert_same(matrix, frame):
    assert matrix.feature_names == list(frame.columns)
    assert matrix.sample_names == list(frame.index)
    np.testing.assert_array_equal(matrix.X, frame.to_numpy())


def _text(frame, sep):
    # 17 significant digits read back to the same float64, so the round trip is exact
    return frame.to_csv(sep=sep, index_label="sample", float_format="%.17g").encode()


def _zip(path, data):
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("inner.tsv", data)


WRITERS = {
    "table.tsv": lambda p, f: p.write_bytes(_text(f, "\t")),
    "table.csv": lambda p, f: p.write_bytes(_text(f, ",")),
    "table.txt": lambda p, f: p.write_bytes(_text(f, "\t")),
    "table-comma.txt": lambda p, f: p.write_bytes(_text(f, ",")),
    "table.tab": lambda p, f: p.write_bytes(_text(f, "\t")),
    "table.tsv.gz": lambda p, f: p.write_bytes(gzip.compress(_text(f, "\t"))),
    "table.csv.bz2": lambda p, f: p.write_bytes(bz2.compress(_text(f, ","))),
    "table.tsv.xz": lambda p, f: p.write_bytes(lzma.compress(_text(f, "\t"))),
    "table.zip": lambda p, f: _zip(p, _text(f, "\t")),
    "table.parquet": lambda p, f: f.to_parquet(p),
    "table-id-column.parquet": lambda p, f: f.rename_axis("sample").reset_index().to_parquet(p),
}


@pytest.mark.parametrize("name", list(WRITERS))
def test_every_format_reads_back_the_same_matrix(name, frame, tmp_path):
    if name.endswith(".parquet"):
        pytest.importorskip("pyarrow")
    path = tmp_path / name
    WRITERS[name](path, frame)
    _assert_same(read_user_matrix(path), frame)


def test_h5ad_dense_and_sparse_read_back_the_same_matrix_and_obs_labels(frame, tmp_path):
    anndata = pytest.importorskip("anndata")
    sparse = pytest.importorskip("scipy.sparse")
    kinds = ["a", "b", "a", "b", "b", "a"]
    obs = pd.DataFrame({"kind": kinds}, index=frame.index)
    var = pd.DataFrame(index=frame.columns)
    for X in (frame.to_numpy(), sparse.csr_matrix(frame.to_numpy())):
        path = tmp_path / "table.h5ad"
        # pandas 3's string columns: anndata writes them only when told to
        with anndata.settings.override(allow_write_nullable_strings=True):
            anndata.AnnData(X=X, obs=obs, var=var).write_h5ad(path)
        matrix = read_user_matrix(path, label_column="kind")
        _assert_same(matrix, frame)
        assert matrix.format == "h5ad" and matrix.adata is not None
        assert [matrix.class_names[k] for k in matrix.y] == kinds


def test_stdin_is_read_with_its_separator_sniffed(frame, monkeypatch):
    for sep in ("\t", ","):
        monkeypatch.setattr(sys, "stdin", io.StringIO(_text(frame, sep).decode()))
        matrix = read_user_matrix("-")
        _assert_same(matrix, frame)
        assert matrix.source == "<stdin>"


def test_features_in_rows_reads_the_transposed_table(frame, tmp_path):
    path = tmp_path / "genes.tsv"
    table = frame.T.astype(object)
    table.loc["kind"] = ["x", "y", "x", "y", "y", "x"]  # a label row
    path.write_text(table.to_csv(sep="\t", index_label="gene"))
    matrix = read_user_matrix(path, features_in_rows=True, label_column="kind")
    _assert_same(matrix, frame)
    assert matrix.class_names == ["x", "y"] and matrix.y.tolist() == [0, 1, 0, 1, 1, 0]


def _geo_series_matrix(n_genes=30, n_samples=6):
    """A GEO series matrix: '!' metadata lines, then quoted ids, probes in rows."""
    rng = np.random.default_rng(2)
    samples = [f'"GSM{85863 + i}"' for i in range(n_samples)]
    lines = ['!Series_title\t"a study"', '!Sample_geo_accession\t' + "\t".join(samples),
             "!series_matrix_table_begin", '"ID_REF"\t' + "\t".join(samples)]
    for g in range(n_genes):
        lines.append(f'"{1000 + g}_at"\t' + "\t".join(f"{v:.3f}" for v in
                                                       rng.uniform(10, 5000, n_samples)))
    return "\n".join([*lines, "!series_matrix_table_end", ""])


def test_a_geo_series_matrix_is_refused_with_a_suggestion_then_read_with_it(tmp_path):
    path = tmp_path / "GSE1_series_matrix.txt.gz"
    path.write_bytes(gzip.compress(_geo_series_matrix().encode()))
    with pytest.raises(ValueError) as err:
        read_user_matrix(path, flags=CLI_FLAGS)
    message = str(err.value)
    assert "\n" not in message and "--features-in-rows" in message
    assert "'GSM85863'" in message and "--label-column" not in message
    matrix = read_user_matrix(path, features_in_rows=True)
    assert matrix.X.shape == (6, 30) and matrix.sample_names[0] == "GSM85863"
    assert matrix.feature_names[0] == "1000_at"


def test_gene_ids_in_the_first_column_suggest_features_in_rows(frame, tmp_path):
    path = tmp_path / "genes.csv"
    table = pd.DataFrame(np.ones((20, 3)), index=[f"ENSG{i:011d}" for i in range(20)],
                         columns=["tumour_1", "tumour_2", "normal_1"])
    table.iloc[0, 0] = 2.0
    table.to_csv(path, index_label="gene")
    with pytest.raises(ValueError, match=r"first column holds gene or probe ids.*"
                                         r"features_in_rows=True"):
        read_user_matrix(path)


@needs_mirror
def test_a_real_genes_in_rows_table_suggests_features_in_rows():
    # de Souto et al.'s files: samples in the header, a label row, Affymetrix probes in rows
    path = ARMSTRONG
    with pytest.raises(ValueError, match="--features-in-rows"):
        read_user_matrix(path, flags=CLI_FLAGS)


@needs_mirror
def test_samples_in_rows_tables_are_not_taken_for_features_in_rows(tmp_path):
    # The repo's own layout (rows = samples), even tall (more samples than features) and with
    # probe ids as feature names: a real data set written as the README asks.
    data = read_desouto(ARMSTRONG)
    frame = pd.DataFrame(data.X, index=data.sample_names, columns=data.feature_names)
    wide = tmp_path / "armstrong.tsv"
    frame.to_csv(wide, sep="\t", index_label="sample", float_format="%.17g")
    _assert_same(read_user_matrix(wide), frame)
    tall = tmp_path / "tall.tsv"
    frame.iloc[:, :20].to_csv(tall, sep="\t", index_label="sample", float_format="%.17g")
    assert read_user_matrix(tall).X.shape == (72, 20)


def test_unknown_format_is_one_line_naming_the_suffix_and_the_formats(tmp_path):
    path = tmp_path / "table.xlsx"
    path.write_bytes(b"PK")
    with pytest.raises(ValueError) as err:
        read_user_matrix(path)
    assert "\n" not in str(err.value)
    assert "'.xlsx'" in str(err.value) and ".parquet" in str(err.value)
    assert ".h5ad" in str(err.value) and ".gz" in str(err.value)


# The command line's bad tables (tests/test_cli.py) give the same one-line errors here.
def test_bad_tables_give_the_command_lines_errors(tmp_path):
    from test_cli import BAD_TABLES

    for case, (text, expected) in BAD_TABLES.items():
        if case == "all-constant":  # the CLI's check after reading, not the reader's
            continue
        path = tmp_path / f"{case}.tsv"
        path.write_text(text)
        with pytest.raises(ValueError) as err:
            read_user_matrix(path, label_column="class", flags=CLI_FLAGS)
        for fragment in expected:
            assert fragment in str(err.value), (case, str(err.value))
        # and the same from a gzip-compressed copy
        packed = tmp_path / f"{case}.tsv.gz"
        packed.write_bytes(gzip.compress(text.encode()))
        with pytest.raises(ValueError) as err_gz:
            read_user_matrix(packed, label_column="class", flags=CLI_FLAGS)
        assert str(err_gz.value) == str(err.value).replace(str(path), str(packed))


def test_impute_median_fills_each_hole_with_its_columns_median(tmp_path):
    path = tmp_path / "holes.csv"
    path.write_text("id,a,b\nx,1,NA\ny,3,4\nz,8,10\nw,,6\n")
    matrix = read_user_matrix(path, impute="median")
    assert matrix.X.tolist() == [[1.0, 6.0], [3.0, 4.0], [8.0, 10.0], [3.0, 6.0]]
    assert len(matrix.warnings) == 1 and "imputed 2" in matrix.warnings[0]
    assert "sample 'x', feature 'b'" in matrix.warnings[0]


def test_a_cell_that_would_overflow_is_refused_naming_it_and_the_fix(frame):
    frame = frame.abs() + 1.0
    frame.loc["s3", "MYC"] = 1e308
    matrix = as_user_matrix(frame)  # reading accepts it: the log that fixes it comes later
    with pytest.raises(ValueError) as err:
        preprocess(matrix, flags=CLI_FLAGS)
    message = str(err.value)
    assert "\n" not in message
    assert "sample 's3', feature 'MYC'" in message and "--log10" in message
    assert np.isfinite(preprocess(matrix, log10=True).X).all()


def test_the_overflow_bound_keeps_every_sum_of_squares_finite():
    for n, d in ((2, 1), (40, 1203), (5000, 20000)):
        bound = overflow_bound(n, d)
        X = np.full((n, 1), bound)
        X[::2] = -bound  # the largest differences between samples: 2 * bound
        with np.errstate(over="raise"):
            total = float(np.sum((X[:, None, :] - X[None, :2, :]) ** 2)) * d
        assert np.isfinite(total) and np.isfinite(2 * bound * 2 * bound * n * d)
        assert 1e308 > bound * 1e100  # far below the cells the check is for


def test_preprocessing_steps_equal_their_definitions_in_the_documented_order():
    X = np.array([[0.0, 5.0, 20000.0, 7.0], [99.0, 5.0, 0.5, 7.0], [9.0, 5.0, 100.0, 8.0]])
    matrix = as_user_matrix(X)
    out = preprocess(matrix, log1p=True)
    np.testing.assert_allclose(out.X, np.log(1.0 + X))
    out = preprocess(matrix, log10=True, floor=1, ceiling=16000)
    np.testing.assert_allclose(out.X, np.log10(np.clip(X, 1, 16000)))
    assert out.preprocessing == ["threshold(floor=1, ceiling=16000)", "log10"]
    out = preprocess(matrix, standardize=True)
    np.testing.assert_allclose(out.X.mean(axis=0), 0, atol=1e-12)
    np.testing.assert_allclose(out.X.std(axis=0), [1, 0, 1, 1])  # the constant one stays 0
    # the two most variable after the log, kept in column order, then standardised
    out = preprocess(matrix, log10=True, floor=1, top_variable=2, standardize=True)
    assert out.feature_names == ["f0", "f2"]
    assert out.preprocessing == ["threshold(floor=1)", "log10", "top_variable(n=2)",
                                 "standardize"]
    np.testing.assert_allclose(out.X[:, 1], preprocess(as_user_matrix(np.log10(
        np.clip(X[:, [2]], 1, None))), standardize=True).X[:, 0])
    assert matrix.preprocessing == [] and matrix.X[1, 0] == 99.0  # the input is unchanged


def test_top_variable_breaks_ties_by_column_order():
    X = np.array([[0.0, 1.0, 0.0, 5.0], [2.0, 3.0, 2.0, 5.0]])  # variances 1, 1, 1, 0
    assert preprocess(as_user_matrix(X), top_variable=2).feature_names == ["f0", "f1"]


def test_log1p_and_log10_together_are_refused():
    with pytest.raises(ValueError, match="not both"):
        preprocess(as_user_matrix(np.ones((2, 2))), log1p=True, log10=True)


def test_the_raw_count_warning_fires_on_counts_and_intensities_only():
    rng = np.random.default_rng(0)
    counts = as_user_matrix(rng.negative_binomial(2, 2 / (2 + np.logspace(0, 4, 200)),
                                                  size=(30, 200)))
    message = raw_count_warning(counts, flags=CLI_FLAGS)
    assert message is not None and "\n" not in message
    assert "--log1p" in message and "--log10" in message
    assert raw_count_warning(preprocess(counts, top_variable=200)) is not None  # no transform
    assert raw_count_warning(preprocess(counts, log1p=True)) is None
    assert raw_count_warning(preprocess(counts, standardize=True)) is None
    # z-scores, logged data (even given as such, without a recorded step), small pixels
    assert raw_count_warning(as_user_matrix(rng.normal(size=(30, 200)))) is None
    assert raw_count_warning(as_user_matrix(np.log2(1 + counts.X))) is None
    assert raw_count_warning(as_user_matrix(rng.integers(0, 256, (30, 200)))) is None


@needs_mirror
def test_a_real_raw_intensity_set_gets_the_warning():
    data = read_desouto(ARMSTRONG)
    assert raw_count_warning(as_user_matrix(data.X)) is not None


def test_as_user_matrix_keeps_names_and_takes_labels(frame):
    matrix = as_user_matrix(frame.to_numpy(), labels=["b", "a", "b", "a", "a", "b"])
    assert matrix.feature_names == ["f0", "f1", "f2", "f3"]
    assert matrix.sample_names == [f"s{i}" for i in range(6)]
    assert [matrix.class_names[k] for k in matrix.y] == ["b", "a", "b", "a", "a", "b"]
    labelled = frame.assign(kind=[1, 2, 1, 2, 2, 1])
    matrix = as_user_matrix(labelled, label_column="kind")
    _assert_same(matrix, frame)
    assert matrix.label_column == "kind" and matrix.y.tolist() == [0, 1, 0, 1, 1, 0]
    assert "kind" in labelled.columns  # the caller's frame is not modified


def test_as_user_matrix_takes_anndata_with_sparse_x_and_obs_labels(frame):
    anndata = pytest.importorskip("anndata")
    sparse = pytest.importorskip("scipy.sparse")
    adata = anndata.AnnData(X=sparse.csr_matrix(frame.to_numpy()),
                            obs=pd.DataFrame({"kind": list("abcabc")}, index=frame.index),
                            var=pd.DataFrame(index=frame.columns))
    matrix = as_user_matrix(adata, label_column="kind")
    _assert_same(matrix, frame)
    assert matrix.adata is adata and matrix.class_names == ["a", "b", "c"]


def test_a_genes_in_rows_frame_is_refused_with_the_fix(frame):
    genes = pd.DataFrame(np.ones((30, 4)), index=[f"ILMN_{i}" for i in range(30)],
                         columns=[f"GSM{i}" for i in range(4)])
    with pytest.raises(ValueError, match=r"frame\.T"):
        as_user_matrix(genes)
    assert as_user_matrix(genes.T).X.shape == (4, 30)


def test_in_memory_non_finite_cells_are_named_or_imputed(frame):
    frame.loc["s2", "MYC"] = np.inf
    with pytest.raises(ValueError, match=r"sample 's2', feature 'MYC'.*impute=\"median\""):
        as_user_matrix(frame)
    imputed = as_user_matrix(frame, impute="median")
    assert imputed.X[2, 2] == np.median(np.delete(frame["MYC"].to_numpy(), 2))
    assert imputed.warnings


def test_a_missing_file_and_a_missing_package_are_one_line_naming_the_fix(tmp_path,
                                                                          monkeypatch):
    with pytest.raises(ValueError, match=r"^--input .*nope\.tsv: no such file$"):
        read_user_matrix(tmp_path / "nope.tsv", flags=CLI_FLAGS)
    for name, package in (("t.parquet", "pip install pyarrow"), ("t.h5ad", "pip install anndata")):
        (tmp_path / name).write_bytes(b"")
        monkeypatch.setattr("importlib.util.find_spec", lambda module: None)
        with pytest.raises(ValueError, match=package):
            read_user_matrix(tmp_path / name)
        monkeypatch.undo()
