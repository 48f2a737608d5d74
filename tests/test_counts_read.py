"""fsclust.counts.read: every format gives the same CSR counts; every bad input is one line
naming the problem and the fix."""

import gzip
import json
import shutil
import subprocess
import sys
import warnings

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp

from fsclust.counts import check_counts, read_counts, synthetic_counts
from fsclust.counts import read as read_module

N_CELLS, N_GENES = 40, 30


@pytest.fixture(scope="module")
def counts():
    """Integer counts with no empty cell or gene, and their names."""
    X, _, _ = synthetic_counts(N_CELLS, N_GENES, n_types=2, markers_per_type=3, density=0.3,
                               random_state=1)
    k = np.arange(max(N_CELLS, N_GENES))  # a count in every row and column
    X = (X + sp.csr_matrix((np.ones(k.size, np.float32), (k % N_CELLS, k % N_GENES)),
                           shape=X.shape)).tocsr()
    assert (np.diff(X.indptr) > 0).all() and (np.bincount(X.indices, minlength=N_GENES) > 0).all()
    cells = [f"AAAC{i:04d}-1" for i in range(N_CELLS)]
    genes = [f"G{j}" for j in range(N_GENES)]
    return X, cells, genes


@pytest.fixture(scope="module", autouse=True)
def anndata():
    """anndata (read_counts returns its AnnData), imported once per module, when the tests run
    rather than when they are collected: its first import takes about a second."""
    return pytest.importorskip("anndata")


@pytest.fixture(scope="module")
def scanpy():
    """scanpy, imported once per module (its first import takes about a second)."""
    return pytest.importorskip("scanpy")


def one_line(message):
    assert "\n" not in message, message
    return message


def write_h5ad(path, X, cells, genes, layers=None):
    import anndata
    import pandas as pd

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # duplicated names on purpose
        adata = anndata.AnnData(X=X, obs=pd.DataFrame(index=cells),
                                var=pd.DataFrame(index=genes))
        for name, value in (layers or {}).items():
            adata.layers[name] = value
        adata.write_h5ad(path)
    return path


def write_10x_folder(folder, X, cells, genes, version=3):
    """Cell Ranger's layout: genes x cells Matrix Market, features (or genes) and barcodes."""
    folder.mkdir()
    names = ("matrix.mtx", "features.tsv", "barcodes.tsv") if version == 3 else \
        ("matrix.mtx", "genes.tsv", "barcodes.tsv")
    scipy.io.mmwrite(folder / names[0], sp.coo_matrix(X.T.astype(np.int64)), field="integer")
    kinds = "\tGene Expression" if version == 3 else ""
    (folder / names[1]).write_text("".join(f"ENSG{j:05d}\t{g}{kinds}\n"
                                           for j, g in enumerate(genes)))
    (folder / names[2]).write_text("".join(f"{c}\n" for c in cells))
    if version == 3:
        for name in names:
            with open(folder / name, "rb") as raw, gzip.open(folder / f"{name}.gz", "wb") as gz:
                shutil.copyfileobj(raw, gz)
            (folder / name).unlink()
    return folder


def write_10x_h5(path, X, cells, genes):
    """Cell Ranger 3's HDF5 layout, as scanpy.read_10x_h5 reads it (CSC of genes x cells)."""
    import h5py

    with h5py.File(path, "w") as f:
        m = f.create_group("matrix")
        m["data"] = X.data.astype(np.int32)
        m["indices"] = X.indices.astype(np.int64)
        m["indptr"] = X.indptr.astype(np.int64)
        m["shape"] = np.array([X.shape[1], X.shape[0]], dtype=np.int32)
        m["barcodes"] = np.array(cells, dtype="S")
        features = m.create_group("features")
        features["id"] = np.array([f"ENSG{j:05d}" for j in range(len(genes))], dtype="S")
        features["name"] = np.array(genes, dtype="S")
        features["feature_type"] = np.array(["Gene Expression"] * len(genes), dtype="S")
        features["genome"] = np.array(["GRCh38"] * len(genes), dtype="S")
    return path


def write_mtx(path, X):
    scipy.io.mmwrite(str(path).removesuffix(".gz"), sp.coo_matrix(X.astype(np.int64)),
                     field="integer")
    if str(path).endswith(".gz"):
        plain = path.with_suffix("")
        with open(plain, "rb") as raw, gzip.open(path, "wb") as gz:
            shutil.copyfileobj(raw, gz)
        plain.unlink()
    return path


def write(kind, tmp_path, X, cells, genes):
    if kind == "h5ad":
        return write_h5ad(tmp_path / "cells.h5ad", X, cells, genes)
    if kind == "10x":
        return write_10x_folder(tmp_path / "filtered_feature_bc_matrix", X, cells, genes)
    if kind == "10x_v2":
        return write_10x_folder(tmp_path / "hg19", X, cells, genes, version=2)
    if kind == "10x_h5":
        return write_10x_h5(tmp_path / "filtered_feature_bc_matrix.h5", X, cells, genes)
    return write_mtx(tmp_path / f"cells.{kind}", X)


# --- every format, the same counts ----------------------------------------------------------

@pytest.mark.parametrize("kind", ["h5ad", "mtx", "mtx.gz"])
def test_every_format_gives_the_same_float32_csr_counts_and_names(kind, tmp_path, counts):
    check_format(kind, tmp_path, counts)


@pytest.mark.parametrize("kind", ["10x", "10x_v2", "10x_h5"])
def test_every_10x_format_gives_the_same_float32_csr_counts_and_names(kind, tmp_path, counts,
                                                                      scanpy):
    check_format(kind, tmp_path, counts)


def check_format(kind, tmp_path, counts):
    X, cells, genes = counts
    path = write(kind, tmp_path, X, cells, genes)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nothing to report: no empty cell, no duplicate
        adata = read_counts(path)
    assert isinstance(adata.X, sp.csr_matrix) and adata.X.dtype == np.float32
    assert adata.X.has_sorted_indices and adata.X.has_canonical_format
    assert (adata.X != X).nnz == 0
    if kind.startswith("mtx"):  # a bare Matrix Market file has no names
        assert list(adata.obs_names) == [str(i) for i in range(N_CELLS)]
    else:
        assert list(adata.obs_names) == cells and list(adata.var_names) == genes
    info = adata.uns["fsclust_read"]
    assert info["format"] == kind.replace("_v2", "").replace(".gz", "")
    assert (info["cells_dropped"], info["genes_dropped"], info["dense_converted"]) == (0, 0, False)


def test_the_h5ad_layer_is_read_instead_of_x(tmp_path, counts):
    X, cells, genes = counts
    logged = X.copy()
    logged.data = np.log1p(logged.data)
    path = write_h5ad(tmp_path / "cells.h5ad", logged, cells, genes, layers={"counts": X})
    adata = read_counts(path, layer="counts")
    assert (adata.X != X).nnz == 0
    assert adata.uns["fsclust_read"]["matrix"] == "layers['counts']"


def test_a_file_is_written_back_with_what_the_reader_did(tmp_path, counts, anndata):
    X, cells, genes = counts
    adata = read_counts(write_h5ad(tmp_path / "cells.h5ad", X, cells, genes))
    adata.write_h5ad(tmp_path / "again.h5ad")
    again = read_counts(tmp_path / "again.h5ad")
    assert (again.X != adata.X).nnz == 0
    assert dict(anndata.read_h5ad(tmp_path / "again.h5ad").uns["fsclust_read"])["format"] == \
        "h5ad"


def test_sparse_input_is_never_made_dense(tmp_path, counts, monkeypatch):
    X, cells, genes = counts
    path = write_h5ad(tmp_path / "cells.h5ad", X, cells, genes)

    def refuse(*args, **kwargs):
        raise AssertionError("densified")

    for cls in (sp.csr_matrix, sp.csc_matrix, sp.coo_matrix):
        monkeypatch.setattr(cls, "toarray", refuse)
        monkeypatch.setattr(cls, "todense", refuse)
    assert read_counts(path).X.nnz == X.nnz


# --- dtype ----------------------------------------------------------------------------------

def test_integer_counts_become_float32_and_counts_above_2_24_stay_exact_as_float64(tmp_path):
    small = sp.csr_matrix(np.array([[1, 2], [3, 2**24]], dtype=np.int64))
    large = sp.csr_matrix(np.array([[1, 2], [3, 2**24 + 1]], dtype=np.int64))
    for name, X, dtype in (("small", small, np.float32), ("large", large, np.float64)):
        path = write_h5ad(tmp_path / f"{name}.h5ad", X, ["a", "b"], ["g", "h"])
        adata = read_counts(path)
        assert adata.X.dtype == dtype and adata.uns["fsclust_read"]["dtype"] == str(
            np.dtype(dtype))
        assert adata.X.toarray().astype(np.int64).tolist() == X.toarray().tolist()


def test_counts_above_2_24_in_a_matrix_market_file_stay_exact(tmp_path):
    X = sp.csr_matrix(np.array([[1, 0], [0, 2**24 + 1]], dtype=np.int64))
    adata = read_counts(write_mtx(tmp_path / "big.mtx", X))
    assert adata.X.dtype == np.float64 and adata.X[1, 1] == 2**24 + 1


# --- empty cells and genes ------------------------------------------------------------------

def with_empty(X, n_cells, n_genes):
    """``X`` with ``n_cells`` empty rows and ``n_genes`` empty columns appended."""
    X = sp.hstack([X, sp.csr_matrix((X.shape[0], n_genes))])
    return sp.vstack([X, sp.csr_matrix((n_cells, X.shape[1]))]).tocsr()


def test_cells_and_genes_with_no_counts_are_dropped_and_reported(tmp_path, counts):
    X, cells, genes = counts
    Y = with_empty(X, 2, 3)
    path = write_h5ad(tmp_path / "cells.h5ad", Y, cells + ["e1", "e2"],
                      genes + ["z1", "z2", "z3"])
    with pytest.warns(UserWarning) as caught:
        adata = read_counts(path)
    messages = [str(w.message) for w in caught if "dropped" in str(w.message)]
    assert messages == [f"{path}: dropped 2 cells and 3 genes with no counts"]
    assert (adata.X != X).nnz == 0 and list(adata.var_names) == genes
    assert list(adata.obs_names) == cells
    info = adata.uns["fsclust_read"]
    assert (info["cells_dropped"], info["genes_dropped"]) == (2, 3)


def test_a_gene_in_the_middle_dropped_renumbers_the_columns(tmp_path):
    X = sp.csr_matrix(np.array([[1, 0, 2, 0], [0, 0, 3, 4]], dtype=np.float32))
    with pytest.warns(UserWarning, match="dropped 1 genes"):
        adata = read_counts(write_h5ad(tmp_path / "m.h5ad", X, ["a", "b"], list("wxyz")))
    assert adata.X.toarray().tolist() == [[1, 2, 0], [0, 3, 4]]
    assert list(adata.var_names) == ["w", "y", "z"]


def test_empty_refuse_names_how_many_and_the_option_that_drops_them(tmp_path, counts):
    X, cells, genes = counts
    path = write_h5ad(tmp_path / "cells.h5ad", with_empty(X, 0, 2), cells, genes + ["z1", "z2"])
    with pytest.raises(ValueError) as err:
        read_counts(path, empty="refuse")
    assert one_line(str(err.value)) == \
        f"{path}: 2 genes have no counts; pass empty='drop' to drop them"


def test_messages_name_the_command_line_flags_when_given(tmp_path, counts):
    X, cells, genes = counts
    path = write_h5ad(tmp_path / "cells.h5ad", with_empty(X, 1, 0), cells + ["e"], genes)
    with pytest.raises(ValueError, match="1 cells have no counts; pass --drop-empty to"):
        read_counts(path, empty="refuse", flags={"drop": "--drop-empty"})


def test_a_matrix_of_zeros_is_refused(tmp_path):
    X = sp.csr_matrix(np.array([[0.0, 1.0]]))
    X.data[:] = 0  # a stored zero: no counts
    path = write_h5ad(tmp_path / "zeros.h5ad", X, ["a"], ["g", "h"])
    with pytest.raises(ValueError) as err:
        read_counts(path)
    assert "holds no counts at all" in one_line(str(err.value))


# --- dense counts ---------------------------------------------------------------------------

def test_a_small_dense_matrix_is_converted_with_a_warning(tmp_path, counts):
    X, cells, genes = counts
    path = write_h5ad(tmp_path / "dense.h5ad", X.toarray(), cells, genes)
    with pytest.warns(UserWarning) as caught:
        adata = read_counts(path)
    message = one_line(str(caught[0].message))
    assert message.startswith(f"{path}: X is stored dense (40 x 30); converted to CSR")
    assert "adata.X = scipy.sparse.csr_matrix(adata.X)" in message
    assert isinstance(adata.X, sp.csr_matrix) and (adata.X != X).nnz == 0
    assert adata.uns["fsclust_read"]["dense_converted"] is True


def test_a_large_dense_matrix_is_refused_before_it_is_read(tmp_path, counts, monkeypatch,
                                                          anndata):
    X, cells, genes = counts
    path = write_h5ad(tmp_path / "dense.h5ad", None, cells, genes, layers={"counts": X.toarray()})
    monkeypatch.setattr(read_module, "DENSE_MAX_ENTRIES", N_CELLS * N_GENES - 1)

    def refuse(*args, **kwargs):
        raise AssertionError("read before it was refused")

    monkeypatch.setattr(anndata.io, "read_elem", refuse)
    with pytest.raises(ValueError) as err:
        read_counts(path, layer="counts")
    message = one_line(str(err.value))
    assert message.startswith(f"{path}: layers['counts'] is stored dense (40 x 30 = 1200 "
                              "entries")
    assert message.endswith("store it sparse: adata.layers['counts'] = scipy.sparse.csr_matrix("
                            "adata.layers['counts']), then write the file again")


def test_check_counts_refuses_a_large_dense_array(monkeypatch):
    monkeypatch.setattr(read_module, "DENSE_MAX_ENTRIES", 3)
    with pytest.raises(ValueError, match=r"X is stored dense \(2 x 2 = 4 entries") as err:
        check_counts(np.ones((2, 2)))
    assert "scipy.sparse.csr_matrix" in one_line(str(err.value))


# --- values ---------------------------------------------------------------------------------

def test_non_integer_values_are_refused_naming_a_value_the_layers_and_the_fixes(tmp_path, counts):
    X, cells, genes = counts
    logged = X.copy()
    logged.data = np.log1p(logged.data)
    path = write_h5ad(tmp_path / "cells.h5ad", logged, cells, genes, layers={"counts": X,
                                                                            "spliced": X})
    with pytest.raises(ValueError) as err:
        read_counts(path)
    message = one_line(str(err.value))
    first = logged.data[np.flatnonzero(logged.data != np.floor(logged.data))[0]]
    assert message.startswith(f"{path}: X holds non-integer values where counts are expected: "
                              f"{(logged.data != np.floor(logged.data)).sum()} of {X.nnz} "
                              f"stored values, the first {first:g} (cell 'AAAC")
    assert "pass layer='counts' (layers: 'counts', 'spliced')" in message
    assert "log-normalised" in message and "fsclust.select" in message


def test_non_integer_values_without_layers_ask_for_the_raw_counts(tmp_path, counts):
    X, cells, genes = counts
    path = write_h5ad(tmp_path / "cells.h5ad", X * 0.5, cells, genes)
    with pytest.raises(ValueError, match="give the raw counts") as err:
        read_counts(path)
    one_line(str(err.value))


@pytest.mark.parametrize("value, problem", [(-1.0, "negative values"),
                                            (np.nan, "NaN or infinite values"),
                                            (np.inf, "NaN or infinite values")])
def test_negative_and_non_finite_values_are_refused(tmp_path, value, problem):
    X = sp.csr_matrix(np.array([[1.0, 2.0], [value, 3.0]]))
    path = write_h5ad(tmp_path / "bad.h5ad", X, ["a", "b"], ["g", "h"])
    with pytest.raises(ValueError) as err:
        read_counts(path)
    message = one_line(str(err.value))
    assert message.startswith(f"{path}: X holds {problem}: 1 of 4 stored values, the first "
                              f"{value:g} (cell 'b', gene 'g')")
    assert "give the raw counts" in message


# --- 10x folders ----------------------------------------------------------------------------

@pytest.mark.parametrize("missing", ["matrix.mtx.gz", "features.tsv.gz", "barcodes.tsv.gz"])
def test_a_10x_folder_missing_a_file_is_refused_naming_it_and_the_folder(tmp_path, counts,
                                                                          missing):
    folder = write_10x_folder(tmp_path / "filtered_feature_bc_matrix", *counts)
    (folder / missing).unlink()
    with pytest.raises(ValueError) as err:
        read_counts(folder)
    message = one_line(str(err.value))
    assert message.startswith(f"{folder}: the 10x folder has no {missing} (it needs "
                              "matrix.mtx.gz, features.tsv.gz, barcodes.tsv.gz); ")
    assert message.endswith("copy it from Cell Ranger's output (outs/filtered_feature_bc_matrix/)")


def test_a_10x_v2_folder_missing_a_file_names_the_v2_files(tmp_path, counts):
    folder = write_10x_folder(tmp_path / "hg19", *counts, version=2)
    (folder / "barcodes.tsv").unlink()
    with pytest.raises(ValueError, match="has no barcodes.tsv \\(it needs matrix.mtx, genes.tsv"):
        read_counts(folder)


def test_an_uncompressed_10x_v3_folder_is_told_to_gzip(tmp_path, counts):
    folder = write_10x_folder(tmp_path / "filtered_feature_bc_matrix", *counts)
    with gzip.open(folder / "features.tsv.gz") as gz:
        (folder / "features.tsv").write_bytes(gz.read())
    (folder / "features.tsv.gz").unlink()
    with pytest.raises(ValueError, match="features.tsv is there uncompressed: gzip it"):
        read_counts(folder)


def test_the_outs_folder_is_pointed_to_its_matrix_folder(tmp_path, counts):
    write_10x_folder(tmp_path / "filtered_feature_bc_matrix", *counts)
    with pytest.raises(ValueError, match="pass the folder .*filtered_feature_bc_matrix$"):
        read_counts(tmp_path)


def test_a_10x_matrix_given_alone_is_refused_for_its_folder(tmp_path, counts):
    folder = write_10x_folder(tmp_path / "filtered_feature_bc_matrix", *counts)
    with pytest.raises(ValueError) as err:
        read_counts(folder / "matrix.mtx.gz")
    assert one_line(str(err.value)).endswith(f"pass its folder {folder} to read it with its gene "
                                             "and cell names")


def test_a_missing_scanpy_is_one_line_naming_the_extra(tmp_path, counts, monkeypatch):
    folder = write_10x_folder(tmp_path / "filtered_feature_bc_matrix", *counts)
    monkeypatch.setitem(sys.modules, "scanpy", None)
    with pytest.raises(ValueError) as err:
        read_counts(folder)
    assert one_line(str(err.value)) == (f"{folder}: reading a 10x folder needs scanpy; install "
                                        "it: pip install 'fsclust[singlecell]'")


# --- h5ad layers and X ----------------------------------------------------------------------

def test_an_empty_x_beside_layers_asks_for_the_counts_layer(tmp_path, counts):
    X, cells, genes = counts
    path = write_h5ad(tmp_path / "cells.h5ad", None, cells, genes,
                      layers={"spliced": X, "counts": X})
    with pytest.raises(ValueError) as err:
        read_counts(path)
    assert one_line(str(err.value)) == (
        f"{path}: X is empty (no stored values) and the counts must be in a layer; pass "
        "layer='counts' (layers: 'counts', 'spliced')")


def test_an_x_with_no_stored_values_beside_layers_asks_for_a_layer(tmp_path, counts):
    X, cells, genes = counts
    path = write_h5ad(tmp_path / "cells.h5ad", sp.csr_matrix(X.shape, dtype=np.float32), cells,
                      genes, layers={"raw_counts": X})
    with pytest.raises(ValueError, match="pass layer='raw_counts' \\(layers: 'raw_counts'\\)$"):
        read_counts(path)


def test_an_unknown_layer_is_refused_listing_the_layers(tmp_path, counts):
    X, cells, genes = counts
    path = write_h5ad(tmp_path / "cells.h5ad", X, cells, genes, layers={"counts": X})
    with pytest.raises(ValueError) as err:
        read_counts(path, layer="count")
    assert one_line(str(err.value)) == f"{path}: no layer 'count'; its layers: 'counts'"
    bare = write_h5ad(tmp_path / "bare.h5ad", X, cells, genes)
    with pytest.raises(ValueError, match="it has no layers: omit layer to read X$"):
        read_counts(bare, layer="counts")


def test_a_layer_for_another_format_is_refused(tmp_path, counts):
    path = write_mtx(tmp_path / "m.mtx", counts[0])
    with pytest.raises(ValueError, match="layer='counts' applies to .h5ad files only; omit it$"):
        read_counts(path, layer="counts")


# --- names ----------------------------------------------------------------------------------

def test_duplicated_gene_names_are_refused_naming_them_and_the_fix(tmp_path, counts):
    X, cells, genes = counts
    genes = genes[:-4] + ["MT-A", "MT-A", "B", "B"]
    path = write_h5ad(tmp_path / "cells.h5ad", X, cells, genes)
    with pytest.raises(ValueError) as err:
        read_counts(path)
    assert one_line(str(err.value)) == (
        f"{path}: 2 gene name(s) are duplicated ('MT-A', 'B'); pass make_unique=True to make "
        "them unique ('A', 'A-1', ...)")


def test_make_unique_makes_the_names_unique_as_anndata_and_says_so(tmp_path, counts, anndata):
    X, cells, genes = counts
    genes = genes[:-3] + ["B", "B", "B"]
    path = write_h5ad(tmp_path / "cells.h5ad", X, cells, genes)
    with pytest.warns(UserWarning) as caught:
        adata = read_counts(path, make_unique=True)
    assert [one_line(str(w.message)) for w in caught] == [
        f"{path}: made 2 duplicated gene name(s) unique ('B' -> 'B-1', ...)"]
    expected = anndata.AnnData(X=X)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # anndata's note on the duplicates
        expected.var_names = genes
        expected.var_names_make_unique()
    assert list(adata.var_names) == list(expected.var_names)
    assert adata.uns["fsclust_read"]["genes_made_unique"] == 2


def test_duplicated_cell_names_are_refused_or_made_unique(tmp_path, counts):
    X, cells, genes = counts
    path = write_h5ad(tmp_path / "cells.h5ad", X, cells[:-1] + [cells[0]], genes)
    with pytest.raises(ValueError) as err:
        read_counts(path)
    assert one_line(str(err.value)) == (
        f"{path}: 1 cell name(s) are duplicated ('AAAC0000-1'); pass make_unique=True to make "
        "them unique ('A', 'A-1', ...)")
    with pytest.warns(UserWarning, match="made 1 duplicated cell name"):
        adata = read_counts(path, make_unique=True)
    assert adata.obs_names[-1] == "AAAC0000-1-1" and adata.obs_names.is_unique


def test_duplicated_10x_gene_symbols_are_refused(tmp_path, counts, scanpy):
    X, cells, genes = counts
    folder = write_10x_folder(tmp_path / "f", X, cells, genes[:-1] + [genes[0]])
    with pytest.raises(ValueError, match="1 gene name\\(s\\) are duplicated \\('G0'\\)"):
        read_counts(folder)
    with pytest.warns(UserWarning, match="made 1 duplicated gene name"):
        assert read_counts(folder, make_unique=True).var_names[-1] == "G0-1"


# --- paths ----------------------------------------------------------------------------------

def test_a_missing_path_lists_the_accepted_formats(tmp_path):
    with pytest.raises(ValueError) as err:
        read_counts(tmp_path / "nope.h5ad")
    message = one_line(str(err.value))
    assert message.startswith(f"{tmp_path / 'nope.h5ad'}: no such file or folder; accepted: ")
    assert all(f in message for f in (".h5ad", "10x folder", ".h5", ".mtx.gz"))


def test_an_unknown_suffix_lists_the_accepted_formats(tmp_path):
    path = tmp_path / "cells.csv"
    path.write_text("a,b\n")
    with pytest.raises(ValueError) as err:
        read_counts(path)
    assert one_line(str(err.value)).startswith(f"{path}: unknown format '.csv'; accepted: ")


def test_an_unreadable_h5ad_is_one_line(tmp_path):
    path = tmp_path / "broken.h5ad"
    path.write_bytes(b"not hdf5")
    with pytest.raises(ValueError, match="not a readable h5ad file") as err:
        read_counts(path)
    one_line(str(err.value))


def test_a_bad_option_is_one_line():
    with pytest.raises(ValueError, match="'empty' parameter of read_counts") as err:
        read_counts("x.h5ad", empty="keep")
    one_line(str(err.value))


# --- check_counts ---------------------------------------------------------------------------

def test_check_counts_returns_a_conforming_matrix_itself_and_never_changes_its_input():
    X = sp.csr_matrix(np.array([[1, 0, 2], [0, 3, 0]], dtype=np.float32))
    assert check_counts(X) is X
    unsorted = sp.csr_matrix((np.array([2.0, 1.0, 0.0]), np.array([2, 0, 1]),
                              np.array([0, 3, 3])), shape=(2, 3))
    before = (unsorted.data.copy(), unsorted.indices.copy())
    Y = check_counts(unsorted)
    assert Y.indices.tolist() == [0, 2] and Y.data.tolist() == [1.0, 2.0]
    assert Y.dtype == np.float32 and Y.has_canonical_format
    assert unsorted.data.tolist() == before[0].tolist()
    assert unsorted.indices.tolist() == before[1].tolist()


def test_check_counts_takes_csr_arrays_and_csc_and_keeps_them_sparse():
    dense = np.array([[1, 0], [0, 4]], dtype=np.float32)
    for X in (sp.csr_array(dense), sp.csc_matrix(dense), sp.coo_matrix(dense)):
        Y = check_counts(X)
        assert isinstance(Y, sp.csr_matrix) and Y.toarray().tolist() == dense.tolist()


def test_check_counts_without_expect_counts_takes_log_normalised_values():
    X = sp.csr_matrix(np.array([[0.5, 0.0], [0.0, 1.25]]))
    assert check_counts(X, expect_counts=False).dtype == np.float32
    with pytest.raises(ValueError, match="non-integer"):
        check_counts(X)


# --- import ---------------------------------------------------------------------------------

@pytest.mark.slow  # a new interpreter
def test_importing_the_counts_modules_imports_neither_scanpy_nor_matplotlib():
    code = ("import sys, json, fsclust.counts.read, fsclust.counts.preprocess, "
            "fsclust.counts.synthetic\n"
            "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in "
            "('scanpy', 'matplotlib', 'anndata'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert json.loads(out.stdout.splitlines()[-1]) == []


def test_the_package_exports_resolve_without_importing_its_modules_first():
    import fsclust.counts

    for name in fsclust.counts.__all__:
        assert callable(getattr(fsclust.counts, name))
