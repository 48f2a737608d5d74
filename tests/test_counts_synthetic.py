"""fsclust.counts.synthetic: counts with planted types and markers, drawn in memory O(nnz)."""

import tracemalloc

import numpy as np
import pytest
import scipy.sparse as sp

from fsclust.counts import synthetic, synthetic_counts, write_synthetic_h5ad


@pytest.fixture(scope="module")
def drawn():
    return synthetic_counts(2000, 600, n_types=4, markers_per_type=20, random_state=3)


@pytest.mark.parametrize("density", [0.05, 0.07, 0.1])
def test_the_fraction_of_non_zeros_is_the_density_asked(density):
    X, _, _ = synthetic_counts(1500, 800, density=density, random_state=0)
    assert abs(X.nnz / (1500 * 800) - density) < 0.1 * density


def test_counts_are_positive_integers_in_a_canonical_csr(drawn):
    X, _, _ = drawn
    assert isinstance(X, sp.csr_matrix) and X.dtype == np.float32
    assert (X.data >= 1).all() and (X.data == np.round(X.data)).all()
    rebuilt = sp.csr_matrix((X.data, X.indices, X.indptr), shape=X.shape)  # flags recomputed
    assert rebuilt.has_sorted_indices and rebuilt.has_canonical_format


def test_every_marker_is_higher_in_its_type_than_elsewhere(drawn):
    X, cell_types, marker_genes = drawn
    assert np.bincount(marker_genes[marker_genes >= 0]).tolist() == [20] * 4
    higher = []
    for t in range(4):
        markers = np.flatnonzero(marker_genes == t)
        inside = np.asarray(X[cell_types == t][:, markers].mean(axis=0)).ravel()
        outside = np.asarray(X[cell_types != t][:, markers].mean(axis=0)).ravel()
        higher += (inside > outside).tolist()
        assert inside.mean() > 2 * outside.mean()
    assert np.mean(higher) >= 0.95


def test_a_gene_that_marks_no_type_has_the_same_mean_in_every_type(drawn):
    X, cell_types, marker_genes = drawn
    plain = np.flatnonzero(marker_genes < 0)
    means = np.array([np.asarray(X[cell_types == t][:, plain].mean(axis=0)).ravel()
                      for t in range(4)])
    ratio = means.sum(axis=1) / means.sum(axis=1).mean()  # pooled over the plain genes
    assert np.all(np.abs(ratio - 1) < 0.1)


def test_the_same_seed_gives_the_same_bytes_and_another_seed_others():
    first = synthetic_counts(700, 300, n_types=3, markers_per_type=5, random_state=11)
    again = synthetic_counts(700, 300, n_types=3, markers_per_type=5, random_state=11)
    other = synthetic_counts(700, 300, n_types=3, markers_per_type=5, random_state=12)
    for a, b in zip(first, again):
        if sp.issparse(a):
            assert a.data.tobytes() == b.data.tobytes()
            assert a.indices.tobytes() == b.indices.tobytes()
            assert a.indptr.tobytes() == b.indptr.tobytes()
        else:
            assert a.tobytes() == b.tobytes()
    assert (first[0] != other[0]).nnz > 0


def test_the_cells_of_a_chunk_do_not_depend_on_the_number_of_cells():
    # each chunk of cells has its own stream: more cells append, they do not reshuffle
    short, types_short, _ = synthetic_counts(synthetic.CHUNK_CELLS + 10, 100, n_types=2,
                                             markers_per_type=3, random_state=5)
    long, types_long, _ = synthetic_counts(3 * synthetic.CHUNK_CELLS, 100, n_types=2,
                                           markers_per_type=3, random_state=5)
    n = synthetic.CHUNK_CELLS
    assert (short[:n] != long[:n]).nnz == 0 and (types_short[:n] == types_long[:n]).all()


def test_memory_is_bounded_by_the_non_zeros_not_the_cells_times_genes(monkeypatch):
    # a small chunk: the temporaries of one chunk are a small part of the result, so the peak
    # is about the result and its copy while the chunks are joined (1.5x), never n x d
    monkeypatch.setattr(synthetic, "CHUNK_CELLS", 100)
    n_cells, n_genes = 3000, 2000
    tracemalloc.start()
    try:
        X, _, _ = synthetic_counts(n_cells, n_genes, density=0.05, random_state=0)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    result = X.data.nbytes + X.indices.nbytes + X.indptr.nbytes
    chunk = 100 * (100 * n_genes * 0.05)  # 100 bytes per non-zero of a chunk
    tables = 2 * 10 * n_genes * 8  # the rates and their cumulative sums, per type
    assert peak < 1.5 * result + chunk + tables
    assert peak < n_cells * n_genes * 4 / 4  # a quarter of a dense float32 matrix


def test_too_many_markers_for_the_genes_is_one_line():
    with pytest.raises(ValueError) as err:
        synthetic_counts(10, 30, n_types=4, markers_per_type=10)
    message = str(err.value)
    assert "\n" not in message and "lower markers_per_type or raise n_genes" in message


def test_a_bad_density_is_refused():
    with pytest.raises(ValueError, match="'density' parameter of synthetic_counts"):
        synthetic_counts(10, 30, density=1.5)


@pytest.fixture(scope="module")
def anndata():
    """anndata, imported once per module (its first import takes about a second)."""
    return pytest.importorskip("anndata")


def test_the_h5ad_holds_the_counts_types_and_markers(tmp_path, anndata):
    path = write_synthetic_h5ad(tmp_path / "s.h5ad", 300, 120, n_types=3, markers_per_type=4,
                                random_state=2)
    X, cell_types, marker_genes = synthetic_counts(300, 120, n_types=3, markers_per_type=4,
                                                   random_state=2)
    adata = anndata.read_h5ad(path)
    assert sp.issparse(adata.X) and adata.X.format == "csr" and (adata.X != X).nnz == 0
    assert adata.obs["cell_type"].tolist() == [f"type{t}" for t in cell_types]
    assert adata.var["marker_of"].tolist() == [f"type{t}" if t >= 0 else "none"
                                               for t in marker_genes]
    assert adata.obs_names[0] == "cell0" and adata.var_names[-1] == "gene119"
