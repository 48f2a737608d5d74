"""Variance score: the simplest unsupervised ranking, a reference point for the others."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .base import FeatureRanker


class VarianceScore(FeatureRanker):
    """Rank features by their variance ``var(f_r) = mean((f_r - mean(f_r))^2)``, larger first.

    A scipy.sparse input stays sparse (CSR, float32 or float64): the variances come from the
    stored values in ``O(nnz)`` time and memory (:func:`sparse_column_variance`), equal to the
    dense ones to round-off. No size bound: time and memory are linear in the data.

    Parameters
    ----------
    n_features_to_select : int or None, default=None
        Number of top-ranked features kept by ``transform``; None keeps all.

    Attributes
    ----------
    scores_ : ndarray of shape (n_features,)
        Population variance (``ddof=0``) of each feature.
    ranking_ : ndarray of shape (n_features,), int
        Rank of each feature, 1 = best (the position in ``feature_order_`` + 1).
    feature_order_ : ndarray of shape (n_features,), int
        Feature indices, largest variance first; constant features last.
    constant_mask_ : ndarray of shape (n_features,), bool
    n_features_in_ : int

    Notes
    -----
    Planted structure (issue 40; ``speed/planted_suite.py``, docs/measurements.md, "Planted
    structure at the defaults"): by design. On z-scored features every variance is 1 (to
    round-off), one tie group, and the shares are the floor ``p / d`` (0.01, 0.03, 0.07,
    0.15). On raw features a planted feature's variance is ``1`` plus its centres' spread:
    with two groups or a weak signal that spread is small for some (below the 30th largest
    noise variance: 6 of 30 planted on groups2, 7 on weak, 0 on base; shares 0.73, 0.73,
    1.00). On the log-normalised counts the variance follows the gene's level (Spearman
    1.00 with the mean over the non-markers): 9 of the top 32 are markers, the others
    detected in a median 85 % of the cells against the markers' 36 % (0.28;
    ``speed/planted_baselines.py variance``).

    References
    ----------
    He, Cai & Niyogi (2005), "Laplacian Score for Feature Selection", NIPS, section 4 (the
    "Variance" baseline: maximum variance, the unsupervised Fisher-type criterion).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0, 1.0, 5.0], [0.0, 3.0, 5.5], [0.0, 5.0, 6.0]])
    >>> selector = VarianceScore(n_features_to_select=2).fit(X)
    >>> selector.feature_order_
    array([1, 2, 0])
    >>> selector.ranking_
    array([3, 1, 2])
    >>> selector.transform(X).shape
    (3, 2)
    """

    #: Why the benchmark finds it below random features on expression data (``fsclust methods``)
    benchmark_note = ("its ranking is degenerate where the features are standardised, as "
                      "the de Souto sets' z-scored genes (every variance is equal), and a "
                      "degenerate ranking is scored as no result")

    higher_is_better = True

    def __init__(self, n_features_to_select=None):
        self.n_features_to_select = n_features_to_select

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.ranker_tags.sparse_input = True
        # MEASURED (speed/singlecell_scale.py, from the file to the scores): beyond the
        # counts, 0.44 times them at 10^5 cells (the normalised values; blocked sums)
        tags.ranker_tags.sparse_memory = 0.5
        tags.ranker_tags.dask_input = True
        return tags

    def _score(self, X, rng):
        if sp.issparse(X):
            return sparse_column_variance(X)
        return np.var(X, axis=0)

    def _score_dask(self, X):
        # sparse_column_variance's two passes, each a sum over the row blocks
        from ..counts.chunked import sum_over_blocks

        n = X.shape[0]
        nnz, sums = sum_over_blocks(_column_sums, X)
        mean = sums / n
        squares = sum_over_blocks(_column_squares, X, shared=(mean,))
        return (squares + (n - nnz) * mean**2) / n


def sparse_column_variance(X):
    """Population variance (``ddof=0``) of every column of a CSR matrix, in ``O(nnz)``.

    Two passes over the stored values, as ``np.var``: the means, then the squared deviations
    of the stored values plus ``(n - nnz_j) mean_j^2`` for the implicit zeros, so that no
    ``E[x^2] - mean^2`` cancellation enters. Accumulated in float64 (a float32 input is not
    copied); no dense column and no CSC copy is made.

    Parameters
    ----------
    X : scipy.sparse matrix of shape (n, d)
        Canonical CSR (duplicates summed), as :meth:`FeatureRanker.fit` hands it.

    Returns
    -------
    var : ndarray of shape (d,)

    Examples
    --------
    >>> X = sp.csr_matrix(np.array([[0.0, 1.0, 5.0], [0.0, 3.0, 5.5], [0.0, 5.0, 6.0]]))
    >>> sparse_column_variance(X).round(4)
    array([0.    , 2.6667, 0.1667])
    """
    X = sp.csr_matrix(X)
    n = X.shape[0]
    nnz, sums = _column_sums(X)
    mean = sums / n
    return (_column_squares(X, mean) + (n - nnz) * mean**2) / n


def _column_sums(X):
    """``(stored values, their sum)`` of every column of the CSR ``X``: the first pass of
    :func:`sparse_column_variance` (a block of rows gives its part)."""
    d = X.shape[1]
    nnz, sums = np.zeros(d), np.zeros(d)
    # in blocks of stored values: float64 temporaries of the whole data (the values, their
    # deviations, the gathered means, the squares) made the fit 4.7 times the CSR matrix at
    # 10^5 cells (4.9 GB against 1.04 GB)
    for lo in range(0, X.nnz, _VALUE_BLOCK):
        columns = X.indices[lo:lo + _VALUE_BLOCK]
        nnz += np.bincount(columns, minlength=d)
        sums += np.bincount(columns, weights=X.data[lo:lo + _VALUE_BLOCK].astype(np.float64),
                            minlength=d)
    return nnz, sums


def _column_squares(X, mean):
    """The sum of the squared deviations from ``mean`` of the stored values of every column:
    the second pass of :func:`sparse_column_variance`."""
    d = X.shape[1]
    squares = np.zeros(d)
    for lo in range(0, X.nnz, _VALUE_BLOCK):
        columns = X.indices[lo:lo + _VALUE_BLOCK]
        deviation = X.data[lo:lo + _VALUE_BLOCK].astype(np.float64) - mean[columns]
        squares += np.bincount(columns, weights=deviation * deviation, minlength=d)
    return squares


#: Stored values :func:`sparse_column_variance` reads at a time (2^22: its float64 temporaries
#: stay around 100 MiB whatever the matrix)
_VALUE_BLOCK = 2**22
