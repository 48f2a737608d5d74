"""Deviance (Townes et al. 2019): how badly a gene fits a constant share of each cell's counts."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from sklearn.utils._param_validation import StrOptions

from .base import FeatureRanker
from .hvg import check_count_values

__all__ = ["BLOCK_ENTRIES", "BinomialDeviance", "FAMILIES", "deviance"]

#: The null models of scry's ``devianceFeatureSelection`` (``fam``).
FAMILIES = ("binomial", "poisson")

#: Stored values processed at once: the temporaries of a block (a few float64 arrays of this
#: size, 32 MiB each) stay small beside the counts.
BLOCK_ENTRIES = 2**22


def deviance(X, family="binomial"):
    """The deviance of each gene from the null model of a constant share of each cell's total.

    With counts ``y_ij`` (cells ``i``, genes ``j``), cell totals ``n_i = sum_j y_ij``,
    ``N = sum_i n_i`` and the gene's share ``pi_j = sum_i y_ij / N``:

    - binomial: ``D_j = 2 sum_i [y_ij log(y_ij / (n_i pi_j))
      + (n_i - y_ij) log((n_i - y_ij) / (n_i (1 - pi_j)))]``;
    - poisson: ``D_j = 2 sum_i [y_ij log(y_ij / mu_ij) - (y_ij - mu_ij)]``,
      ``mu_ij = n_i pi_j``;

    with ``0 log 0 = 0``. A zero count contributes ``2 n_i log(1 / (1 - pi_j))`` (binomial) or
    ``2 mu_ij`` (poisson), so the zeros of gene ``j`` add up to that factor times
    ``N - sum_{i: y_ij > 0} n_i``: only the stored values are visited, in blocks of
    :data:`BLOCK_ENTRIES`, ``O(nnz)`` time, never a dense ``n x d`` array.

    Parameters
    ----------
    X : ndarray or scipy.sparse matrix of shape (n_cells, n_genes)
        Counts, >= 0 (not checked here).
    family : {"binomial", "poisson"}, default="binomial"

    Returns
    -------
    D : ndarray of shape (n_genes,)
        0 for a gene with no counts (and for every gene when ``X`` has no counts at all).

    Examples
    --------
    Two genes of shares ``pi = (3/4, 1/4)``; the cells add ``log(4/3)``, ``log(4/3)`` and
    ``4 log(4/3)`` to the deviance of each:

    >>> X = np.array([[1.0, 1.0], [1.0, 1.0], [4.0, 0.0]])
    >>> deviance(X).round(6).tolist(), round(float(2 * 6 * np.log(4 / 3)), 6)
    ([3.452185, 3.452185], 3.452185)
    >>> deviance(np.array([[1.0, 2.0], [2.0, 4.0]])).tolist()  # the same share in each cell
    [0.0, 0.0]
    """
    # one path for both: a dense input (small) becomes CSR, so both give the same sums
    X = sp.csr_matrix(X) if sp.issparse(X) else sp.csr_matrix(np.asarray(X, dtype=np.float64))
    if not X.has_canonical_format:  # a count split over duplicated entries is one count
        X = X.copy()
        X.sum_duplicates()
    totals, gene_sums = _totals(X)
    N = totals.sum()
    if N == 0:
        return np.zeros(X.shape[1])
    pi = gene_sums / N
    stored, covered = _stored_terms(X, totals, pi, family)
    return _deviance_from(stored, covered, pi, N, family)


def _totals(X):
    """``(n_i of each cell, the sum of each gene)`` of the CSR counts ``X``."""
    n, d = X.shape
    totals = np.zeros(n)  # n_i
    gene_sums = np.zeros(d)
    for rows, cell, gene, y in _blocks(X):
        totals[rows] = np.bincount(cell, weights=y, minlength=rows.stop - rows.start)
        gene_sums += np.bincount(gene, weights=y, minlength=d)
    return totals, gene_sums


def _stored_terms(X, totals, pi, family):
    """The sum over each gene's non-zero counts of their deviance terms, and of their cells'
    totals (a block of rows, with its cells' ``totals``, gives its part)."""
    d = X.shape[1]
    stored = np.zeros(d)  # the sum over the gene's non-zero counts of their terms
    covered = np.zeros(d)  # ... and of their cells' totals n_i
    for rows, cell, gene, y in _blocks(X):
        nonzero = y > 0  # a stored zero is a zero
        cell, gene, y = cell[nonzero], gene[nonzero], y[nonzero]
        n_i = totals[rows][cell]
        mu = n_i * pi[gene]
        if family == "poisson":
            # each term y log(y / mu) - (y - mu) >= 0: a sum without cancellation
            terms = y * np.log(y / mu) - (y - mu)
        else:
            rest = n_i - y  # 0 where the gene is all of the cell's counts: 0 log 0 = 0
            with np.errstate(divide="ignore", invalid="ignore"):
                # log((n_i - y) / (n_i (1 - pi))) = log1p(-y / n_i) - log1p(-pi)
                terms = np.where(rest > 0, rest * (np.log1p(-y / n_i) - np.log1p(-pi[gene])),
                                 0.0)
            terms += y * np.log(y / mu)
        stored += np.bincount(gene, weights=terms, minlength=d)
        covered += np.bincount(gene, weights=n_i, minlength=d)
    return stored, covered


def _deviance_from(stored, covered, pi, N, family):
    """:func:`deviance` from the sums over the stored counts."""
    # the cells where the gene is zero hold N - covered of the counts
    zero_totals = np.maximum(N - covered, 0.0)
    if family == "poisson":
        zeros = pi * zero_totals
    else:
        with np.errstate(divide="ignore", invalid="ignore"):  # inf * 0 where pi = 1
            # pi = 1: the gene is every count, so its zeros are in empty cells (n_i = 0)
            zeros = np.where(pi < 1, -np.log1p(-np.minimum(pi, 1.0)) * zero_totals, 0.0)
    return 2.0 * (stored + zeros)


def _blocks(X):
    """``(rows, cell, gene, y)`` of CSR ``X`` by blocks of rows of about :data:`BLOCK_ENTRIES`
    stored values: the row slice, each value's row within it, its column and its value in
    float64."""
    size = BLOCK_ENTRIES
    indptr = X.indptr
    n = X.shape[0]
    start = 0
    while start < n:
        stop = int(np.searchsorted(indptr, indptr[start] + size, side="right")) - 1
        stop = min(max(stop, start + 1), n)  # at least one row, however long
        a, b = int(indptr[start]), int(indptr[stop])
        cell = np.repeat(np.arange(stop - start), np.diff(indptr[start:stop + 1]))
        yield slice(start, stop), cell, X.indices[a:b], np.asarray(X.data[a:b], np.float64)
        start = stop


class BinomialDeviance(FeatureRanker):
    """Rank genes by their deviance from a constant share of each cell's counts; larger is better.

    Townes et al.'s feature selection by deviance (scry's ``devianceFeatureSelection``): the
    null model gives each gene ``j`` the same share ``pi_j`` of every cell's total ``n_i``
    (multinomial, approximated gene by gene by a binomial or a Poisson); a gene whose counts
    depart from it, as a marker of some cells does, has a large deviance :func:`deviance`
    ``D_j`` (Townes et al., section "Feature selection using deviance"). It reads the raw
    counts, with no normalisation, pseudocount or log.

    Parameters
    ----------
    n_features_to_select : int or None, default=None
        Number of top-ranked genes kept by ``transform``; None keeps all.
    family : {"binomial", "poisson"}, default="binomial"
        The null model (scry's ``fam``; binomial is its default and the paper's).
    check_values : bool, default=True
        Refuse non-integer values (True). False takes any values >= 0 (the formula needs no
        integers): e.g. ambient-corrected counts.

    Attributes
    ----------
    scores_ : ndarray of shape (n_genes,)
        The deviance ``D_j``; 0 for a gene with no counts.
    ranking_ : ndarray of shape (n_genes,), int
        Rank of each gene, 1 = best.
    feature_order_ : ndarray of shape (n_genes,), int
        Gene indices, largest deviance first; constant genes last.
    constant_mask_ : ndarray of shape (n_genes,), bool
    n_features_in_ : int

    Notes
    -----
    ``fit`` takes the raw counts (cells x genes), CSR kept sparse, or dense, and refuses
    negative values and (``check_values``) non-integer ones in one line. scry's batch option
    (a deviance per batch, summed) has no counterpart: ``fit`` sees no batches.

    References
    ----------
    Townes, Hicks, Aryee & Irizarry (2019), "Feature selection and dimension reduction for
    single-cell RNA-Seq based on a multinomial model", Genome Biology 20, 295, section
    "Feature selection using deviance"; scry (Bioconductor), ``devianceFeatureSelection``.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> counts = rng.poisson(5.0, size=(40, 4)).astype(float)
    >>> counts[:20, 2] += rng.poisson(30.0, size=20)  # gene 2 marks half of the cells
    >>> ranker = BinomialDeviance(n_features_to_select=1).fit(counts)
    >>> ranker.feature_order_[0], ranker.transform(counts).shape
    (np.int64(2), (40, 1))
    """

    higher_is_better = True

    _parameter_constraints: dict = {
        **FeatureRanker._parameter_constraints,
        "family": [StrOptions(set(FAMILIES))],
        "check_values": ["boolean"],
    }

    def __init__(self, n_features_to_select=None, *, family="binomial", check_values=True):
        self.n_features_to_select = n_features_to_select
        self.family = family
        self.check_values = check_values

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.positive_only = True
        tags.ranker_tags.sparse_input = True
        tags.ranker_tags.counts_input = True
        # MEASURED (speed/singlecell_scale.py, from the file to the scores): beyond the
        # counts, 0.22 times them at 10^5 cells
        tags.ranker_tags.sparse_memory = 0.3
        tags.ranker_tags.dask_input = True
        return tags

    def _score(self, X, rng):
        check_count_values(X, type(self).__name__, integers=self.check_values)
        return deviance(X, self.family)

    def _score_dask(self, X):
        # deviance()'s two passes over the row blocks: the totals, then the stored terms
        from ..counts.chunked import map_blocks_in_order, sum_over_blocks

        name, integers = type(self).__name__, self.check_values
        parts = map_blocks_in_order(_checked_totals, X, shared=(name, integers))
        totals = np.concatenate([part[0] for part in parts])
        gene_sums = np.zeros(X.shape[1])
        for part in parts:  # in block order: the same sum whatever the scheduling
            gene_sums += part[1]
        N = totals.sum()
        if N == 0:
            return np.zeros(X.shape[1])
        pi = gene_sums / N
        offsets = np.cumsum((0,) + X.chunks[0])
        stored, covered = sum_over_blocks(
            _stored_terms, X, per_block=([totals[a:b] for a, b in zip(offsets, offsets[1:])],),
            shared=(pi, self.family))
        return _deviance_from(stored, covered, pi, N, self.family)


def _checked_totals(X, name, integers):
    """A block's :func:`_totals`, after its values are checked as ``fit`` checks them."""
    check_count_values(X, name, integers=integers)
    if not X.has_canonical_format:
        X = X.copy()
        X.sum_duplicates()
    return _totals(X)
