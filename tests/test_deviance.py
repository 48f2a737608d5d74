"""The deviance of Townes et al. (2019): the O(nnz) sums are the paper's formula, term by term."""

import math

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.utils import get_tags

from fsclust.cli import main
from fsclust.rankers.base import selected_features
from fsclust.rankers.deviance import FAMILIES, BinomialDeviance, deviance
from fsclust.registry import make_ranker


def _xlog(a, b):
    """``a log(a / b)`` with ``0 log 0 = 0``."""
    return 0.0 if a == 0 else a * math.log(a / b)


def _literal_deviance(Y, family):
    """Townes et al.'s D_j, one gene and one cell at a time, zeros included."""
    Y = np.asarray(Y, dtype=np.float64)
    n_cells, n_genes = Y.shape
    totals = Y.sum(axis=1)
    N = totals.sum()
    D = np.zeros(n_genes)
    for j in range(n_genes):
        pi = Y[:, j].sum() / N
        for i in range(n_cells):
            y, n = Y[i, j], totals[i]
            mu = n * pi
            if family == "binomial":
                D[j] += _xlog(y, mu) + _xlog(n - y, n - mu)  # n (1 - pi) = n - mu
            else:
                D[j] += _xlog(y, mu) - (y - mu)
    return 2.0 * D


def _counts(n_cells=40, n_genes=12, seed=0):
    """Poisson counts with cell sizes; gene 0 a marker of half the cells, gene 1 unexpressed,
    gene 2 in one cell only, one empty cell."""
    rng = np.random.default_rng(seed)
    size = rng.lognormal(0.0, 0.5, size=(n_cells, 1))
    Y = rng.poisson(size * rng.gamma(2.0, 1.5, size=n_genes)).astype(float)
    Y[: n_cells // 2, 0] += rng.poisson(15.0, size=n_cells // 2)
    Y[:, 1] = 0
    Y[:, 2] = 0
    Y[5, 2] = 3
    Y[7] = 0
    return Y


@pytest.mark.parametrize("family", FAMILIES)
def test_the_deviance_is_the_papers_formula_term_by_term(family):
    Y = _counts()
    expected = _literal_deviance(Y, family)
    got = deviance(sp.csr_matrix(Y), family)
    np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-10 * expected.max())


@pytest.mark.parametrize("family", FAMILIES)
def test_a_gene_that_is_all_of_its_cells_counts_is_no_nan(family):
    # pi = 1 and n_i - y_ij = 0 everywhere: every 0 log 0 term is 0
    Y = np.array([[3.0, 0.0], [1.0, 0.0], [0.0, 0.0], [2.0, 0.0]])
    np.testing.assert_array_equal(deviance(Y, family), [0.0, 0.0])
    np.testing.assert_allclose(deviance(Y, family), _literal_deviance(Y, family), atol=0)


@pytest.mark.parametrize("family", FAMILIES)
def test_the_deviance_does_not_depend_on_the_order_of_the_cells(family):
    Y = _counts()
    permuted = Y[np.random.default_rng(1).permutation(Y.shape[0])]
    np.testing.assert_allclose(deviance(permuted, family), deviance(Y, family), rtol=1e-12)


@pytest.mark.parametrize("family", FAMILIES)
def test_empty_cells_stored_zeros_and_duplicated_entries_change_nothing(family):
    Y = _counts()
    padded = sp.csr_matrix(np.vstack([Y, np.zeros((5, Y.shape[1]))]))
    stored = sp.csr_matrix(Y)
    stored.data[::4] = 0  # explicit zeros: the same as the matrix without them
    dropped = stored.copy()
    dropped.eliminate_zeros()
    np.testing.assert_allclose(deviance(padded, family), deviance(Y, family), rtol=1e-12)
    np.testing.assert_array_equal(deviance(stored, family), deviance(dropped, family))
    csr = sp.csr_matrix(Y)  # each count split over two entries, which scipy would sum
    split = sp.csr_matrix((np.repeat(csr.data / 2, 2), np.repeat(csr.indices, 2),
                           2 * csr.indptr), shape=Y.shape)
    assert not split.has_canonical_format
    np.testing.assert_allclose(deviance(split, family), deviance(Y, family), rtol=1e-12)


@pytest.mark.parametrize("family", FAMILIES)
def test_a_marker_gene_outscores_a_gene_of_constant_share(family):
    rng = np.random.default_rng(2)
    size = rng.integers(50, 150, size=60).astype(float)
    uniform = rng.binomial(size.astype(int), 0.1)
    marker = rng.binomial(size.astype(int), np.where(np.arange(60) < 30, 0.02, 0.18))
    rest = size - uniform - marker
    D = deviance(np.column_stack([uniform, marker, rest]), family)
    # under the null a gene's deviance is about chi-squared on n - 1 = 59 degrees of freedom
    assert D[0] < 2 * 59 and D[1] > 5 * D[0]


@pytest.mark.parametrize("family", FAMILIES)
def test_the_blocks_of_stored_values_change_nothing(family, monkeypatch):
    Y = sp.csr_matrix(_counts())
    whole = deviance(Y, family)
    monkeypatch.setattr("fsclust.rankers.deviance.BLOCK_ENTRIES", 7)  # rows of up to 12 values
    np.testing.assert_allclose(deviance(Y, family), whole, rtol=1e-12)


def test_sparse_and_dense_counts_give_identical_scores():
    Y = _counts()
    scores = [BinomialDeviance().fit(X).scores_
              for X in (Y, sp.csr_matrix(Y), sp.csr_matrix(Y, dtype=np.float32),
                        sp.csr_array(Y), Y.astype(np.int64))]
    for other in scores[1:]:
        np.testing.assert_array_equal(other, scores[0])


def test_an_unexpressed_gene_scores_zero_and_ranks_last():
    ranker = BinomialDeviance().fit(_counts())
    assert ranker.scores_[1] == 0.0 and ranker.constant_mask_[1]
    assert ranker.feature_order_[-1] == 1
    assert ranker.feature_order_[0] == 0  # the marker


def test_no_dense_cells_by_genes_array_is_made():
    # 10^5 x 10^5 dense is 80 GB: only the 3000 stored values may be visited
    rng = np.random.default_rng(3)
    n = 100_000
    X = sp.csr_matrix((rng.integers(1, 5, size=3000).astype(np.float32),
                       (rng.integers(n, size=3000), rng.integers(n, size=3000))), shape=(n, n))
    ranker = BinomialDeviance(n_features_to_select=10).fit(X)
    assert ranker.scores_.shape == (n,) and np.isfinite(ranker.scores_).all()


def test_the_tags_say_raw_counts_kept_sparse():
    tags = get_tags(BinomialDeviance())
    assert tags.ranker_tags.counts_input and tags.ranker_tags.sparse_input
    assert tags.input_tags.positive_only


def test_the_registered_name_is_the_binomial_deviance():
    ranker = make_ranker("deviance")
    assert isinstance(ranker, BinomialDeviance) and ranker.family == "binomial"


def test_non_integer_and_negative_values_are_refused_in_one_line():
    Y = _counts()
    logged = sp.csr_matrix(np.log1p(Y))
    with pytest.raises(ValueError, match=r"^BinomialDeviance expects raw counts and X holds "
                       r"non-integer values: \d+ of 480, the first \S+ \(cell 0, gene 0\); "
                       r"pass the raw counts, not normalised or log-transformed data, "
                       r"or check_values=False for non-integer counts \(e\.g\. "
                       r"ambient-corrected\)$"):
        BinomialDeviance().fit(logged)
    Y[4, 9] = -2.0
    with pytest.raises(ValueError, match=r"^Negative values in data passed to "
                       r"BinomialDeviance: 1 of 480, the first -2 \(cell 4, gene 9\)"):
        BinomialDeviance(check_values=False).fit(Y)


def test_check_values_false_takes_non_integer_counts_and_scales_the_deviance():
    # the formula needs no integers: halving every count halves every D_j
    Y = _counts()
    halved = BinomialDeviance(check_values=False).fit(Y / 2).scores_
    np.testing.assert_allclose(halved, BinomialDeviance().fit(Y).scores_ / 2, rtol=1e-12)


@pytest.mark.parametrize("order", ["C", "F"])
def test_the_counts_are_never_written(order):
    Y = np.array(_counts(), order=order)
    before = Y.copy()
    Y.setflags(write=False)
    BinomialDeviance().fit(Y)
    np.testing.assert_array_equal(Y, before)


def test_the_ranking_follows_the_protocol():
    ranker = BinomialDeviance().fit(_counts())
    d = ranker.n_features_in_
    np.testing.assert_array_equal(ranker.ranking_[ranker.feature_order_], np.arange(1, d + 1))
    for m in range(1, d + 1):
        np.testing.assert_array_equal(selected_features(ranker, m), ranker.feature_order_[:m])


def test_the_cli_ranks_a_counts_table_with_the_constant_genes_last(tmp_path, capsys):
    Y = _counts(n_cells=10, n_genes=5)
    Y[7, 2:] = 1  # no empty cell here
    Y[:, 4] = 7  # a constant gene beside the unexpressed gene 1
    lines = ["id\t" + "\t".join(f"g{j}" for j in range(5))]
    lines += [f"c{i}\t" + "\t".join(str(int(v)) for v in row) for i, row in enumerate(Y)]
    table = tmp_path / "counts.tsv"
    table.write_text("\n".join(lines) + "\n")
    out = tmp_path / "ranking.tsv"
    assert main(["rank", "--method", "deviance", "--input", str(table),
                 "--output", str(out)]) == 0
    err = capsys.readouterr().err
    assert "fsclust: warning: 2 constant feature(s) ('g1', 'g4') ranked last" in err
    assert "Warning:" not in err
    rows = [line.split("\t") for line in out.read_text().splitlines()[1:]]
    assert rows[0][0] == "g0" and {row[0] for row in rows[-2:]} == {"g1", "g4"}
    assert all(np.isfinite(float(row[1])) for row in rows)
