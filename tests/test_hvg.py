"""scanpy's highly variable genes as a ranker: its top n are the genes scanpy selects.

Each flavor's ranking is compared with scanpy's own ``highly_variable`` for ``n_top_genes=n``,
run by scanpy's public functions in its recipe for that flavor, on small synthetic counts whose
cell types have marker genes. scanpy's numba kernels compile on their first call: each flavor
is fitted once per module (the ``fitted`` fixture).
"""

import subprocess
import sys

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.utils import get_tags

from fsclust.cli import main
from fsclust.counts.preprocess import filter_genes
from fsclust.rankers.base import distinct_features, selected_features
from fsclust.rankers.hvg import FLAVORS, SCORE_COLUMNS, HighlyVariableGenes
from fsclust.registry import make_ranker

sc = pytest.importorskip("scanpy")
anndata = pytest.importorskip("anndata")
pytest.importorskip("skmisc")

#: The all-zero genes of the counts below.
UNEXPRESSED = [0, 1]

#: Sizes of the top sets compared with scanpy's.
TOP_N = [5, 10, 25, 60]


def _counts(n_cells=240, n_genes=150, seed=0):
    """Negative binomial counts with cell sizes, 3 cell types of 8 marker genes each (4-fold
    up), genes 0 and 1 unexpressed; every other gene is detected in 3 cells or more."""
    rng = np.random.default_rng(seed)
    types = rng.integers(3, size=n_cells)
    rate = np.exp(rng.normal(0.0, 1.0, size=n_genes))
    lam = np.tile(rate, (n_cells, 1)) * rng.lognormal(0.0, 0.3, size=(n_cells, 1))
    for t in range(3):
        lam[np.ix_(types == t, 10 + 8 * t + np.arange(8))] *= 4.0
    X = rng.poisson(rng.gamma(5.0, lam / 5.0)).astype(np.float32)  # NB: dispersion 1/5
    X[:, UNEXPRESSED] = 0
    assert np.all(np.count_nonzero(X, axis=0)[2:] >= 3)
    return sp.csr_matrix(X)


def _scanpy_table(X, flavor, n_top_genes):
    """scanpy's own result for ``n_top_genes``, by its public functions, on a copy."""
    adata = anndata.AnnData(X.copy())
    if flavor == "pearson_residuals":
        return sc.experimental.pp.highly_variable_genes(adata, flavor=flavor,
                                                        n_top_genes=n_top_genes, inplace=False)
    if flavor in ("seurat", "cell_ranger"):
        sc.pp.normalize_total(adata)
        sc.pp.log1p(adata)
    return sc.pp.highly_variable_genes(adata, flavor=flavor, n_top_genes=n_top_genes,
                                       inplace=False)


@pytest.fixture(scope="module")
def counts():
    return _counts()


@pytest.fixture(scope="module", params=FLAVORS)
def fitted(request, counts):
    """``(flavor, ranker fitted on the counts, {n: scanpy's table for n_top_genes=n})``."""
    flavor = request.param
    ranker = HighlyVariableGenes(flavor=flavor).fit(counts)
    tables = {n: _scanpy_table(counts, flavor, n) for n in TOP_N}
    return flavor, ranker, tables


def test_the_top_n_genes_are_the_ones_scanpy_marks_highly_variable(fitted):
    flavor, ranker, tables = fitted
    scores, order = ranker.scores_, ranker.feature_order_
    for n, table in tables.items():
        # no tie decides these cuts (else scanpy's own set is arbitrary, or larger than n)
        assert scores[order[n - 1]] > scores[order[n]], (flavor, n)
        expected = np.flatnonzero(table["highly_variable"].to_numpy())
        np.testing.assert_array_equal(np.sort(order[:n]), expected, err_msg=f"{flavor}, n={n}")


def test_the_scores_are_scanpys_column_of_the_flavor(fitted):
    flavor, ranker, tables = fitted
    column = tables[TOP_N[0]][SCORE_COLUMNS[flavor]].to_numpy(dtype=np.float64)
    np.testing.assert_array_equal(ranker.scores_, column)


def test_seurat_v3_orders_the_top_genes_as_scanpys_highly_variable_rank(counts):
    ranker = HighlyVariableGenes(flavor="seurat_v3").fit(counts)
    n = TOP_N[-1]
    rank = _scanpy_table(counts, "seurat_v3", n)["highly_variable_rank"].to_numpy()
    # scanpy ranks the genes within the top n only (NaN beyond)
    top = np.isin(np.arange(rank.size), ranker.feature_order_[:n])
    np.testing.assert_array_equal(np.isnan(rank), ~top)
    np.testing.assert_array_equal(rank[ranker.feature_order_[:n]], np.arange(n))


def test_unexpressed_genes_rank_last(fitted):
    flavor, ranker, _ = fitted
    assert set(ranker.feature_order_[-len(UNEXPRESSED):]) == set(UNEXPRESSED), flavor
    assert ranker.constant_mask_[UNEXPRESSED].all()


def test_the_ranking_follows_the_protocol(fitted):
    _, ranker, _ = fitted
    d = ranker.n_features_in_
    np.testing.assert_array_equal(ranker.ranking_[ranker.feature_order_], np.arange(1, d + 1))
    for m in (1, 7, d):
        np.testing.assert_array_equal(selected_features(ranker, m), ranker.feature_order_[:m])


@pytest.mark.parametrize("flavor", FLAVORS)
def test_dense_counts_are_ranked_as_sparse_ones(flavor, counts):
    sparse = HighlyVariableGenes(flavor=flavor).fit(counts.astype(np.float64))
    dense = HighlyVariableGenes(flavor=flavor).fit(counts.toarray())
    # scanpy's dense and sparse kernels add in different orders
    np.testing.assert_allclose(dense.scores_, sparse.scores_, rtol=1e-9, equal_nan=True)
    distinct = distinct_features(sparse.scores_, rel=1e-6)  # round-off may swap the tied
    np.testing.assert_array_equal(dense.ranking_[distinct], sparse.ranking_[distinct])


@pytest.mark.parametrize("flavor", FLAVORS)
def test_the_counts_are_never_written(flavor, counts):
    # seurat and cell_ranger normalise and log: a copy of the values, never the caller's
    X = counts.copy()
    for a in (X.data, X.indices, X.indptr):
        a.flags.writeable = False
    dense = counts.toarray()
    dense.flags.writeable = False
    for data in (X, dense):
        HighlyVariableGenes(flavor=flavor).fit(data)
    np.testing.assert_array_equal(X.toarray(), counts.toarray())
    np.testing.assert_array_equal(dense, counts.toarray())


def test_the_cli_ranks_a_counts_table_with_the_constant_genes_last(counts, tmp_path, capsys):
    X = counts[:60, :30].toarray()
    X[:, 29] = 7  # a constant gene beside the unexpressed genes 0 and 1
    lines = ["id\t" + "\t".join(f"g{j}" for j in range(30))]
    lines += [f"c{i}\t" + "\t".join(str(int(v)) for v in row) for i, row in enumerate(X)]
    table = tmp_path / "counts.tsv"
    table.write_text("\n".join(lines) + "\n")
    out = tmp_path / "ranking.tsv"
    assert main(["rank", "--method", "hvg_pearson_residuals", "--input", str(table),
                 "--output", str(out)]) == 0
    err = capsys.readouterr().err
    assert "fsclust: warning: 3 constant feature(s) ('g0', 'g1', 'g29') ranked last" in err
    assert "Warning:" not in err
    rows = [line.split("\t") for line in out.read_text().splitlines()[1:]]
    assert {row[0] for row in rows[-3:]} == {"g0", "g1", "g29"}
    assert all(np.isfinite(float(row[1])) for row in rows)


def test_the_tags_say_raw_counts_kept_sparse():
    tags = get_tags(HighlyVariableGenes())
    assert tags.ranker_tags.counts_input and tags.ranker_tags.sparse_input
    assert tags.input_tags.positive_only


@pytest.mark.parametrize("flavor", FLAVORS)
def test_each_flavor_is_registered_under_its_name(flavor):
    assert make_ranker(f"hvg_{flavor}").flavor == flavor


def test_non_integer_values_are_refused_in_one_line(counts):
    logged = counts.copy()
    logged.data = np.log1p(logged.data)
    with pytest.raises(ValueError) as err:
        HighlyVariableGenes(flavor="seurat").fit(logged)
    message = str(err.value)
    assert "\n" not in message
    assert message.startswith("HighlyVariableGenes(flavor='seurat') expects raw counts and X "
                              "holds non-integer values")
    assert "pass the raw counts, not normalised or log-transformed data" in message


def test_check_values_false_takes_non_integer_counts(counts):
    halves = counts.copy()
    halves.data = halves.data / 2
    ranker = HighlyVariableGenes(flavor="pearson_residuals", check_values=False).fit(halves)
    assert np.isfinite(ranker.scores_).all()


def test_negative_values_are_refused_in_one_line(counts):
    X = counts.toarray()
    X[3, 7] = -1.0
    with pytest.raises(ValueError, match=r"^Negative values in data passed to "
                       r"HighlyVariableGenes\(flavor='seurat_v3'\): 1 of 36000, the first -1 "
                       r"\(cell 3, gene 7\); raw counts are >= 0$"):
        HighlyVariableGenes().fit(X)


def _rare_genes(seed=0):
    """The counts above (240 cells, 150 genes), a third of the genes seen in only one or two
    cells (as in unfiltered data)."""
    rng = np.random.default_rng(seed)
    X = _counts().toarray()
    X[:, 100:] = 0
    for j in range(100, 150):
        X[rng.integers(X.shape[0], size=rng.integers(1, 3)), j] = rng.integers(1, 3)
    return sp.csr_matrix(X)


def test_the_loess_failure_on_rare_genes_is_one_line_naming_the_filter():
    X = _rare_genes()
    with pytest.raises(ValueError):  # scanpy's own failure on these data
        sc.pp.highly_variable_genes(anndata.AnnData(X.copy()), flavor="seurat_v3",
                                    inplace=False)
    with pytest.raises(ValueError) as err:
        HighlyVariableGenes(flavor="seurat_v3").fit(X)
    message = str(err.value)
    assert "\n" not in message
    assert message.startswith("HighlyVariableGenes(flavor='seurat_v3'): the loess fit of log "
                              "variance on log mean failed (")
    assert message.endswith("52 of the 150 genes are detected in fewer than 3 cells; drop "
                            "them first: fsclust.counts.preprocess.filter_genes(X, min_cells=3)")
    kept, mask = filter_genes(X, min_cells=3)  # the fix named works
    ranker = HighlyVariableGenes(flavor="seurat_v3").fit(kept)
    assert mask.sum() == 98 and ranker.scores_.shape == (98,)


def test_too_few_genes_for_the_loess_are_refused_before_it_crashes():
    # scikit-misc's loess ends the interpreter (a segmentation fault) on 3 genes at span 0.3
    X = np.random.default_rng(1).poisson(3.0, size=(30, 3)).astype(float)
    with pytest.raises(ValueError, match=r"^HighlyVariableGenes\(flavor='seurat_v3'\): the "
                       r"loess of span=0.3 fits each gene on floor\(span x 3 non-constant "
                       r"genes\) = 0 neighbours, and its local quadratic needs at least 4; "
                       r"give at least 14 non-constant genes or a larger span$"):
        HighlyVariableGenes(flavor="seurat_v3").fit(X)


def test_cell_ranger_bins_on_many_unexpressed_genes_are_one_line_naming_the_filter(counts):
    X = counts.toarray()
    X[:, :40] = 0  # 40 of 150 genes share the mean 0: cell_ranger's percentile bins coincide
    with pytest.raises(ValueError, match="Bin edges must be unique"):  # scanpy's own failure
        _scanpy_table(sp.csr_matrix(X), "cell_ranger", 10)
    with pytest.raises(ValueError) as err:
        HighlyVariableGenes(flavor="cell_ranger").fit(X)
    message = str(err.value)
    assert "\n" not in message
    assert "(40 of the 150 genes have no counts here)" in message
    assert message.endswith("fsclust.counts.preprocess.filter_genes(X, min_cells=3)")


def test_a_missing_scanpy_is_one_line(counts, monkeypatch):
    monkeypatch.setitem(sys.modules, "scanpy", None)
    with pytest.raises(ImportError) as err:
        HighlyVariableGenes().fit(counts)
    assert str(err.value) == ("HighlyVariableGenes(flavor='seurat_v3') needs scanpy; install "
                              "it: pip install 'fsclust[singlecell]'")


@pytest.mark.slow  # a new interpreter
def test_importing_and_making_the_rankers_imports_no_scanpy():
    code = ("import sys, fsclust.rankers\n"
            "from fsclust.rankers import HighlyVariableGenes, BinomialDeviance\n"
            "from fsclust.registry import make_ranker\n"
            "make_ranker('hvg_seurat_v3'), make_ranker('deviance')\n"
            "print(sorted(m for m in ('scanpy', 'anndata') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "[]"
