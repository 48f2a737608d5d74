"""A Dask array of CSR row blocks gives the in-memory scores (fsclust.counts.chunked, issue 42).

The property: the same counts ranked from a chunked store on a ``dask.distributed`` cluster of
2 worker processes and in memory give scores equal to relative 1e-10 and the same ranks,
whatever the block size; a sum over pairs of row blocks is the graph's quadratic form.
"""

import numpy as np
import pytest
import scipy.sparse as sp

pytest.importorskip("dask.distributed")
anndata = pytest.importorskip("anndata")

from fsclust.counts import synthetic_counts
from fsclust.counts.chunked import read_chunked
from fsclust.pp import rank_genes, select_features

RTOL = 1e-10


def _cluster(processes):
    """A LocalCluster of 2 workers and its client."""
    from dask.distributed import Client, LocalCluster

    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=processes,
                           dashboard_address=":0")
    return cluster, Client(cluster)


@pytest.fixture(scope="module")
def client():
    # threads: the fast tier's cluster (2 worker processes cost 13 s more here, most of it
    # their imports and numba's compilation in each); the slow test runs on worker processes,
    # where every task's blocks and arguments are pickled, as on a real cluster
    cluster, client = _cluster(processes=False)
    with cluster, client:
        yield client


@pytest.fixture(scope="module")
def stores(tmp_path_factory):
    """2,000 synthetic cells x 600 genes (10 types, 20 markers each) in memory, and written
    as .h5ad and zarr."""
    X, _, _ = synthetic_counts(2000, 600, n_types=10, markers_per_type=20, random_state=0)
    adata = anndata.AnnData(sp.csr_matrix(X, dtype=np.float32))
    folder = tmp_path_factory.mktemp("chunked")
    adata.write_h5ad(folder / "counts.h5ad")
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # anndata: zarr v2 is still its default
        adata.write_zarr(folder / "counts.zarr")
    return adata, {"h5ad": folder / "counts.h5ad", "zarr": folder / "counts.zarr"}


#: The graph's seurat_v3 genes are 300 of the 600: picked from the gathered counts
PARAMS = {"laplacian": {"graph_features": 300}, "variance": None, "deviance": None}


@pytest.fixture(scope="module")
def expected(stores):
    """``rank_genes`` of the matrix in memory, for every method with a Dask path."""
    adata, _ = stores
    return {method: rank_genes(adata.X, method, method_params=params)
            for method, params in PARAMS.items()}


def _same(lazy, memory):
    """``rank_genes``'s scores of the Dask path equal the in-memory ones to :data:`RTOL`,
    its ranks are the same."""
    (scores, ranks, _), (expected, expected_ranks, _) = lazy, memory
    ok = np.isfinite(expected)
    assert np.array_equal(np.isfinite(scores), ok)
    assert np.max(np.abs(scores[ok] - expected[ok]) / np.abs(expected[ok])) <= RTOL
    assert np.array_equal(ranks, expected_ranks)


@pytest.mark.parametrize("store, block_cells", [("h5ad", 500), ("zarr", 700)])
def test_the_dask_path_gives_the_in_memory_scores_and_order(client, stores, expected, store,
                                                           block_cells):
    # 700 cells a block: the last block is shorter
    _, paths = stores
    lazy = read_chunked(paths[store], block_cells=block_cells)
    assert len(lazy.X.chunks[0]) == -(-2000 // block_cells)
    for method, params in PARAMS.items():
        _same(rank_genes(lazy.X, method, method_params=params), expected[method])


def test_select_features_on_a_lazy_anndata_writes_the_in_memory_ranks(client, stores,
                                                                      expected):
    _, paths = stores
    lazy = read_chunked(paths["h5ad"], block_cells=500)
    select_features(lazy, method="variance", n_top_genes=100)
    scores, ranks, _ = expected["variance"]
    assert np.array_equal(lazy.var["fsclust_rank"], ranks)
    assert np.array_equal(lazy.var["fsclust_selected"], ranks <= 100)
    np.testing.assert_allclose(lazy.var["fsclust_score"], scores, rtol=RTOL)


def test_methods_without_a_dask_path_refuse_it_in_one_line_naming_those_with_one(stores):
    _, paths = stores
    lazy = read_chunked(paths["h5ad"], block_cells=500)
    with pytest.raises(ValueError, match=r"^spec does not take a Dask array; the methods that "
                       r"do: .*laplacian.*variance") as err:
        rank_genes(lazy.X, "spec")
    assert "\n" not in str(err.value)
    with pytest.raises(ValueError, match="needs graph='pca'"):
        rank_genes(lazy.X, "laplacian", method_params={"graph": "data"})


def test_a_block_with_non_integer_counts_is_refused_naming_its_cells(tmp_path):
    import dask.array as da

    X = sp.random(40, 10, density=0.5, format="csr", random_state=0, dtype=np.float32)
    X.data = np.ceil(X.data * 5)
    X[25, 3] = 0.5
    blocks = da.concatenate([da.from_array(X[a:a + 10], chunks=-1, asarray=False)
                             for a in range(0, 40, 10)])
    with pytest.raises(ValueError, match=r"cells 20-29\).*non-integer"):
        rank_genes(blocks, "variance", min_cells=1)


def test_the_pairs_of_row_blocks_sum_to_the_graphs_quadratic_form():
    # sum over pairs a <= b of 2 W_ij f_i f_j (i < j) is f^T W f: cross_products_between on
    # the blocks of a random symmetric graph against graph_quadratic_forms on the whole
    from fsclust.graphs import cross_products_between, graph_quadratic_forms

    rng = np.random.RandomState(0)
    X = sp.random(90, 7, density=0.4, format="csr", random_state=rng)
    W = sp.random(90, 90, density=0.1, random_state=rng)
    W = sp.csr_matrix(W + W.T)
    W.setdiag(0.0)
    W.eliminate_zeros()
    _, _, fDf, fLf = graph_quadratic_forms(X, W)
    upper = sp.triu(W, k=1, format="csr") * 2.0
    cuts = [0, 25, 60, 90]
    cross = sum(cross_products_between(X[cuts[a]:cuts[a + 1]], X[cuts[b]:cuts[b + 1]],
                                       upper[cuts[a]:cuts[a + 1], cuts[b]:cuts[b + 1]])
                for a in range(3) for b in range(a, 3))
    np.testing.assert_allclose(fDf - cross, fLf, rtol=1e-12, atol=1e-12)


@pytest.mark.slow
# with test_scale's pynndescent test in one worker: pynndescent's numba compilation (30-90 s
# in a fresh process) is paid once
@pytest.mark.xdist_group("pynndescent")
def test_thirty_thousand_cells_in_ten_blocks_give_the_in_memory_scores(tmp_path):
    # above 20,000 cells: the covariance from the seeded subsample of 20,000 (gathered), the
    # approximate neighbour search (pynndescent), and in memory f^T W f's compiled kernel
    # (numba); the graph on all 1,000 genes (the fast tests gather seurat_v3's counts).
    # 30,000 cells take every one of these paths as 10^5 did (this test's size until
    # 2026-11-29, 3 times the time): each switch is at 20,000 samples
    # (fsclust.graphs.PCA_MAX_FIT_SAMPLES, EXACT_NEIGHBORS_MAX_N), asserted below, and the
    # in-memory f^T W f's work, 3.9e7 multiply-adds here (1.3e8 at 10^5), is above the
    # kernel's 1e7 (graphs._NUMBA_MIN_WORK). The Dask pairs' tasks stay below it at both sizes
    # (at most 4e5 here, 1.3e6 at 10^5, measured): scipy sums them there, as before.
    from fsclust.graphs import EXACT_NEIGHBORS_MAX_N, PCA_MAX_FIT_SAMPLES

    n_cells = 30_000
    assert n_cells > max(EXACT_NEIGHBORS_MAX_N, PCA_MAX_FIT_SAMPLES)
    X, _, _ = synthetic_counts(n_cells, 1000, n_types=10, markers_per_type=20, density=0.05,
                               random_state=0)
    adata = anndata.AnnData(sp.csr_matrix(X, dtype=np.float32))
    adata.write_h5ad(tmp_path / "counts.h5ad")
    lazy = read_chunked(tmp_path / "counts.h5ad", block_cells=n_cells // 10)
    assert len(lazy.X.chunks[0]) == 10
    cluster, client = _cluster(processes=True)  # 2 worker processes: the tasks pickled
    with cluster, client:
        for method in ("laplacian", "variance"):
            _same(rank_genes(lazy.X, method), rank_genes(adata.X, method))
