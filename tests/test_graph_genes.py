"""The single-cell preset's graph genes (fsclust.counts.graph_genes): scanpy's seurat_v3 genes
of the counts, passed to the graph rankers as column indices (issue 39: the precision at 10^5
cells, docs/singlecell.md)."""

import numpy as np
import pytest
import scipy.sparse as sp

from fsclust.counts import graph_genes, normalize_log1p, synthetic_counts
from fsclust.counts import preprocess
from fsclust.rankers.laplacian import LaplacianScore, graph_prefilter_features

sc = pytest.importorskip("scanpy")
anndata = pytest.importorskip("anndata")
pytest.importorskip("skmisc")

PRESET = {"graph": "pca", "n_neighbors": 10, "n_pcs": 10, "graph_features": 150,
          "graph_prefilter": "seurat_v3"}


@pytest.fixture(scope="module")
def counts():
    X, cell_types, markers = synthetic_counts(500, 600, n_types=3, markers_per_type=15,
                                              random_state=1)
    return sp.csr_matrix(X, dtype=np.float32), markers


def test_the_graph_genes_are_scanpys_seurat_v3_genes_of_the_counts(counts):
    X, _ = counts
    params, note, fallback = graph_genes(X, PRESET)
    table = sc.pp.highly_variable_genes(anndata.AnnData(X.copy()), flavor="seurat_v3",
                                        n_top_genes=150, inplace=False)
    assert np.array_equal(params["graph_features"],
                          np.flatnonzero(table["highly_variable"].to_numpy()))
    # what the ranker takes: its own prefilter unused once the columns are given
    assert params["graph_prefilter"] == "dispersion" and not fallback
    assert note == "graph genes: seurat_v3's 150 of the counts"
    assert PRESET["graph_prefilter"] == "seurat_v3"  # the caller's dict is left alone


def test_other_prefilters_and_a_graph_on_every_gene_pass_through(counts):
    X, _ = counts
    for params in ({**PRESET, "graph_prefilter": "dispersion"}, {"graph": "data"},
                   {**PRESET, "graph_features": 600}, {**PRESET, "graph_features": None}):
        out, note, fallback = graph_genes(X, params)
        assert note is None and not fallback
        assert out.get("graph_features") == params.get("graph_features")


def test_values_that_are_not_counts_fall_back_to_the_dispersion_and_say_so(counts):
    X, _ = counts
    params, note, fallback = graph_genes(X, PRESET, normalize=False)
    assert fallback and "not counts" in note and params["graph_features"] == 150
    assert params["graph_prefilter"] == "dispersion"


def test_above_the_cap_the_genes_come_from_a_seeded_subsample_of_cells(counts, monkeypatch):
    X, _ = counts
    monkeypatch.setattr(preprocess, "GRAPH_GENES_MAX_CELLS", 300)
    a = graph_genes(X, PRESET, random_state=3)
    b = graph_genes(X, PRESET, random_state=3)
    c = graph_genes(X, PRESET, random_state=4)
    assert np.array_equal(a[0]["graph_features"], b[0]["graph_features"])
    assert "of 300 cells drawn with random_state=3" in a[1]
    rows = np.sort(np.random.RandomState(3).choice(500, 300, replace=False))
    table = sc.pp.highly_variable_genes(anndata.AnnData(X[rows]), flavor="seurat_v3",
                                        n_top_genes=150, inplace=False)
    assert np.array_equal(a[0]["graph_features"],
                          np.flatnonzero(table["highly_variable"].to_numpy()))
    assert not np.array_equal(a[0]["graph_features"], c[0]["graph_features"])


def test_given_columns_build_the_same_graph_as_the_prefilter_that_picks_them(counts):
    X, _ = counts
    L = normalize_log1p(X)
    picked = graph_prefilter_features(L, 150, "dispersion")
    kwargs = {"graph": "pca", "n_neighbors": 10, "n_pcs": 10}
    by_rule = LaplacianScore(graph_features=150, graph_prefilter="dispersion", **kwargs).fit(L)
    given = LaplacianScore(graph_features=picked, **kwargs).fit(L)
    assert np.array_equal(by_rule.scores_, given.scores_)
    # in any order, as a list
    again = LaplacianScore(graph_features=list(picked[::-1]), **kwargs).fit(L)
    assert np.array_equal(again.scores_, given.scores_)


@pytest.mark.parametrize("columns, match", [([3], "at least 2 column indices"),
                                            ([0, 600], r"in \[0, 600\)"),
                                            ([-1, 2], r"in \[0, 600\)"),
                                            ([0.5, 2.0], "column indices")])
def test_bad_columns_are_refused_in_one_line(counts, columns, match):
    X, _ = counts
    with pytest.raises(ValueError, match=match):
        LaplacianScore(graph="pca", graph_features=columns).fit(normalize_log1p(X))


def test_the_front_door_records_the_graph_genes_and_warns_when_it_falls_back(counts):
    from fsclust import pp

    X, _ = counts
    params = {"graph_features": 150, "n_neighbors": 10, "n_pcs": 10}
    scores, ranks, info = pp.rank_genes(X, "laplacian", method_params=params)
    assert info["graph_genes"] == "graph genes: seurat_v3's 150 of the counts"
    assert info["params"]["graph_prefilter"] == "seurat_v3"
    with pytest.warns(UserWarning, match="not counts"):
        _, _, info = pp.rank_genes(normalize_log1p(X), "laplacian", normalize=False,
                                   method_params=params)
    assert "not counts" in info["graph_genes"]


def test_the_study_ranks_as_the_front_door(counts):
    from fsclust import pp
    from fsclust.studies.singlecell import protocol

    X, _ = counts
    params = {"graph_features": 150, "n_neighbors": 10, "n_pcs": 10}
    ours = protocol.rank_genes(X, "laplacian", params=params)
    front = pp.rank_genes(X, "laplacian", method_params=params)
    assert np.array_equal(ours[1], front[1]) and np.array_equal(ours[0], front[0],
                                                                 equal_nan=True)
    assert ours[2]["graph_genes"] == front[2]["graph_genes"]
