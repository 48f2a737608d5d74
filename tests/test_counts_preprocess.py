"""fsclust.counts.preprocess: sparse filter, normalisation and log1p equal to scanpy's, and the
HVG prefilter of preprocess_counts."""

import sys
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

from fsclust.counts import (
    filter_genes,
    log1p,
    normalize_log1p,
    normalize_total,
    preprocess_counts,
    synthetic_counts,
)
from fsclust.counts import preprocess as preprocess_module


@pytest.fixture(scope="module")
def scanpy():
    """scanpy, imported once per module (its first import takes seconds)."""
    return pytest.importorskip("scanpy")


@pytest.fixture(scope="module")
def counts():
    X, _, _ = synthetic_counts(300, 400, n_types=3, markers_per_type=10, random_state=4)
    return X


def scanpy_result(sc, X, *steps):
    """X after scanpy's preprocessing functions, applied in order, as a CSR matrix."""
    import anndata

    adata = anndata.AnnData(X.copy())
    for step, kwargs in steps:
        getattr(sc.pp, step)(adata, **kwargs)
    return adata


def same(A, B, rtol=1e-6):
    """Equal to round-off, sparse, with the same stored positions."""
    assert sp.issparse(A) and sp.issparse(B) and A.shape == B.shape
    difference = abs(A - B).max() if A.nnz or B.nnz else 0.0
    assert difference <= rtol * max(abs(A).max(), abs(B).max(), 1.0)
    assert ((A != 0) != (B != 0)).nnz == 0


# --- against scanpy -------------------------------------------------------------------------

@pytest.mark.parametrize("target_sum", [None, 1e4, 1.0])
def test_normalize_total_equals_scanpy(scanpy, counts, target_sum):
    expected = scanpy_result(scanpy, counts, ("normalize_total", {"target_sum": target_sum})).X
    same(normalize_total(counts, target_sum=target_sum), expected)


def test_log1p_equals_scanpy(scanpy, counts):
    same(log1p(counts), scanpy_result(scanpy, counts, ("log1p", {})).X)


def test_normalize_log1p_equals_scanpy_normalize_total_then_log1p(scanpy, counts):
    expected = scanpy_result(scanpy, counts, ("normalize_total", {"target_sum": 1e4}),
                             ("log1p", {})).X
    same(normalize_log1p(counts, target_sum=1e4), expected)
    same(normalize_log1p(counts), log1p(normalize_total(counts)))


@pytest.mark.parametrize("min_cells", [0, 3, 40])
def test_filter_genes_equals_scanpy(scanpy, counts, min_cells):
    expected = scanpy_result(scanpy, counts, ("filter_genes", {"min_cells": min_cells}))
    filtered, kept = filter_genes(counts, min_cells=min_cells)
    assert kept.sum() == expected.n_vars
    same(filtered, expected.X, rtol=0)


def test_preprocess_counts_equals_scanpy_s_recipe(scanpy, counts):
    expected = scanpy_result(scanpy, counts, ("filter_genes", {"min_cells": 5}),
                             ("normalize_total", {}), ("log1p", {}))
    X, kept, info = preprocess_counts(counts, min_cells=5)
    same(X, expected.X)
    assert kept.sum() == expected.n_vars == info["n_genes_kept"]
    assert info["steps"] == ["filter_genes(min_cells=5)",
                             f"normalize_total(target_sum={info['target_sum']:g})", "log1p"]


def test_the_hvg_prefilter_is_scanpy_s_seurat_v3_on_the_counts(scanpy, counts):
    import anndata

    adata = scanpy_result(scanpy, counts, ("filter_genes", {"min_cells": 3}))
    adata.layers["counts"] = adata.X.copy()
    scanpy.pp.normalize_total(adata)
    scanpy.pp.log1p(adata)
    scanpy.pp.highly_variable_genes(adata, flavor="seurat_v3", n_top_genes=60, layer="counts")
    expected = adata[:, adata.var["highly_variable"].to_numpy()].X
    X, kept, info = preprocess_counts(anndata.AnnData(counts), hvg_prefilter=60)
    assert kept.sum() == 60 and X.shape == (300, 60)
    same(X, expected)
    assert "highly_variable_genes(flavor='seurat_v3', n_top_genes=60)" in info["steps"]


# --- properties -----------------------------------------------------------------------------

def test_each_cell_sums_to_the_target_and_an_empty_cell_stays_empty():
    X = sp.csr_matrix(np.array([[1, 3, 0], [0, 0, 0], [2, 0, 6], [5, 5, 0]], dtype=np.float32))
    Y = normalize_total(X, target_sum=10)
    assert np.allclose(np.asarray(Y.sum(axis=1)).ravel(), [10, 0, 10, 10])
    # the default target is the median of the non-zero totals (4, 8, 10)
    assert np.allclose(np.asarray(normalize_total(X).sum(axis=1)).ravel(), [8, 0, 8, 8])


def test_the_results_are_scale_invariant_per_cell(counts):
    scaled = sp.diags(np.arange(1, counts.shape[0] + 1, dtype=np.float32)) @ counts
    same(normalize_total(sp.csr_matrix(scaled), target_sum=100.0),
         normalize_total(counts, target_sum=100.0), rtol=1e-5)


def test_the_input_is_never_changed_and_the_pattern_is_shared(counts):
    before = counts.copy()
    for Y in (normalize_total(counts), log1p(counts), normalize_log1p(counts),
              filter_genes(counts, min_cells=3)[0], preprocess_counts(counts).X,
              preprocess_counts(counts, min_cells=0).X):  # every gene kept: values copied
        assert Y.data is not counts.data
    assert (counts != before).nnz == 0 and counts.dtype == before.dtype
    for function in (normalize_total, log1p, normalize_log1p):
        Y = function(counts)
        assert np.shares_memory(Y.indices, counts.indices)
        assert np.shares_memory(Y.indptr, counts.indptr)


def test_integer_counts_give_float32_and_the_class_is_kept():
    X = sp.csr_array(np.array([[1, 3], [4, 0]], dtype=np.int64))
    for Y in (normalize_total(X), log1p(X), normalize_log1p(X)):
        assert isinstance(Y, sp.csr_array) and Y.dtype == np.float32


def test_blocks_of_any_size_give_the_same_result(counts, monkeypatch):
    X = sp.vstack([counts[:5], sp.csr_matrix((3, counts.shape[1])), counts[5:]]).tocsr()
    expected = [normalize_total(X), log1p(X), normalize_log1p(X), filter_genes(X)[1],
                preprocess_counts(X).X]
    monkeypatch.setattr(preprocess_module, "CHUNK_ENTRIES", 7)  # rows larger than a block
    got = [normalize_total(X), log1p(X), normalize_log1p(X), filter_genes(X)[1],
           preprocess_counts(X).X]
    for a, b in zip(expected, got):
        if sp.issparse(a):
            same(a, b, rtol=0)
        else:
            assert (a == b).all()


def test_stored_zeros_are_not_detections():
    X = sp.csr_matrix((np.array([0.0, 1.0, 0.0, 2.0]), np.array([0, 1, 0, 1]),
                       np.array([0, 2, 4])), shape=(2, 2))
    assert filter_genes(X, min_cells=1)[1].tolist() == [False, True]


def test_filter_genes_subsets_an_anndata_with_its_var():
    anndata = pytest.importorskip("anndata")
    X = sp.csr_matrix(np.array([[1, 0, 2], [3, 0, 0], [1, 0, 5]], dtype=np.float32))
    adata = anndata.AnnData(X, var={"symbol": ["a", "b", "c"]})
    filtered, kept = filter_genes(adata, min_cells=1)
    assert filtered.var["symbol"].tolist() == ["a", "c"] and kept.tolist() == [True, False, True]


# --- refusals -------------------------------------------------------------------------------

@pytest.mark.parametrize("function", [filter_genes, normalize_total, log1p, normalize_log1p,
                                      preprocess_counts])
def test_a_dense_or_csc_matrix_is_refused_in_one_line_naming_the_conversion(function):
    with pytest.raises(ValueError) as err:
        function(np.ones((2, 2)))
    message = str(err.value)
    assert "\n" not in message and "pass scipy.sparse.csr_matrix(X)" in message
    with pytest.raises(ValueError, match=r"got csc_matrix csc; pass X.tocsr\(\)$"):
        function(sp.csc_matrix(np.ones((2, 2))))


@pytest.mark.parametrize("kwargs, name", [({"min_cells": -1}, "min_cells"),
                                          ({"target_sum": 0}, "target_sum"),
                                          ({"hvg_prefilter": 0}, "hvg_prefilter")])
def test_a_bad_parameter_is_one_line(counts, kwargs, name):
    with pytest.raises(ValueError, match=f"'{name}' parameter of preprocess_counts") as err:
        preprocess_counts(counts, **kwargs)
    assert "\n" not in str(err.value)


def test_no_gene_left_names_min_cells(counts):
    with pytest.raises(ValueError) as err:
        preprocess_counts(counts, min_cells=10**6)
    assert str(err.value) == ("preprocess_counts: no gene is detected in min_cells=1000000 cells "
                              "or more (of 300 cells); lower min_cells")


def rare_genes():
    """300 genes each detected in one cell, and 50 ordinary ones: seurat_v3's loess fails."""
    rng = np.random.default_rng(0)
    rare = sp.csr_matrix((np.ones(300, np.float32), (rng.integers(200, size=300),
                                                     np.arange(300))), shape=(200, 300))
    ordinary = sp.csr_matrix(rng.poisson(rng.lognormal(0, 1, 50), size=(200, 50)).astype(
        np.float32))
    return sp.hstack([rare, ordinary]).tocsr()


def test_the_loess_failure_of_seurat_v3_names_min_cells(scanpy):
    X = rare_genes()
    with pytest.raises(ValueError) as err:
        preprocess_counts(X, min_cells=1, hvg_prefilter=10)
    message = str(err.value)
    assert "\n" not in message and message.startswith(
        "hvg_prefilter: seurat_v3's loess fit of variance on mean failed (")
    assert message.endswith("as it does when genes are detected in very few cells; pass "
                            "min_cells=3 or more (got 1)")
    X, kept, _ = preprocess_counts(X, min_cells=3, hvg_prefilter=10)  # the fix works
    assert kept.sum() == 10 and kept[:300].sum() == 0


def test_an_hvg_prefilter_above_the_genes_keeps_them_all_and_says_so(counts):
    X, kept, info = preprocess_counts(counts, min_cells=3, hvg_prefilter=10**6)
    assert kept.sum() == X.shape[1] == 400 - info["genes_below_min_cells"]
    assert info["steps"][1] == f"hvg_prefilter=1000000: all {X.shape[1]} genes kept (no more " \
        "than asked)"


def test_a_missing_scanpy_for_the_hvg_prefilter_is_one_line(counts, monkeypatch):
    monkeypatch.setitem(sys.modules, "scanpy", None)
    with pytest.raises(ValueError) as err:
        preprocess_counts(counts, hvg_prefilter=10)
    assert str(err.value) == ("hvg_prefilter needs scanpy; install it: pip install "
                              "'fsclust[singlecell]'")


def test_no_warning_on_ordinary_counts(scanpy, counts):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        preprocess_counts(counts, hvg_prefilter=50)
