"""FRMV (Hong, Kwong, Chang & Ren 2008): consensus feature ranking from multiple views.

RECONSTRUCTED: the FRMV paper's text was not available to us; this is our
reconstruction from the summaries in Zhang et al. (2012) and elsewhere.
"""

from __future__ import annotations

from numbers import Real

import numpy as np
from scipy.stats import rankdata
from sklearn.utils._param_validation import Interval, StrOptions

from ..cluster.consensus import random_subspace_ensemble
from .base import FeatureRanker, IntInterval

RELEVANCES = ("eta", "su")


class FRMV(FeatureRanker):
    """Mean rank of each feature over its relevance rankings against ``T`` clusterings
    (RECONSTRUCTED method; smaller is better).

    For each partition ``P_t`` of a random-subspace k-means ensemble (the ensemble of
    :class:`fsclust.rankers.frcm.FRCM`), every feature ``j`` (all ``D`` of them, not only the
    view's) gets a relevance to ``P_t``, the relevances are ranked (rank 1 = most relevant,
    average ranks for ties) and the score is the mean rank over the ``T`` partitions.

    Relevance ``"eta"``: the correlation ratio
    ``eta_j^2 = sum_c n_c (mean_c(f_j) - mean(f_j))^2 / sum_i (f_ij - mean(f_j))^2``, the
    multi-class extension of the squared linear correlation (for two clusters it is the
    squared Pearson correlation with the cluster indicator). Relevance ``"su"``: symmetrical
    uncertainty ``2 I(f; P) / (H(f) + H(P))`` after equal-frequency discretisation of each
    feature into ``n_bins`` bins.

    Parameters
    ----------
    n_features_to_select : int or None, default=None
        Number of top-ranked features kept by ``transform``; None keeps all.
    n_partitions : int, default=100
        ``T``, the number of views.
    max_clusters : int, default=20
        ``K_v``; ``K_max = min(floor(sqrt(n)), K_v)``.
    subspace_frac : float, default=0.5
        Fraction of the features each view's k-means sees.
    relevance : {"eta", "su"}, default="eta"
    k_mode : {"random", "fixed"}, default="random"
        ``"fixed"``: every view has ``n_clusters`` clusters (the original FRMV may have assumed
        a known number of clusters).
    n_clusters : int or None, default=None
        Used by ``k_mode="fixed"`` only.
    n_bins : int, default=10
        Bins of the ``"su"`` discretisation.
    max_iter : int, default=100
        Lloyd iterations of each view's k-means.
    ensemble : array-like of shape (T, n) or None, default=None
        Precomputed partitions (e.g. ``FRCM(...).fit(X).ensemble_``) to share one ensemble
        with FRCM, as Zhang et al. did; bypasses the random generation.
    random_state : int, RandomState instance or None, default=None

    Attributes
    ----------
    scores_ : ndarray of shape (n_features,)
        Mean rank over the views, in ``[1, D]``; smaller is better.
    ranking_ : ndarray of shape (n_features,), int
        Rank of each feature, 1 = best (the position in ``feature_order_`` + 1).
    feature_order_ : ndarray of shape (n_features,), int
        Feature indices, best first; constant features last.
    rank_matrix_ : ndarray of shape (T, n_features)
        Rank of each feature in each view.
    ensemble_ : ndarray of shape (T, n_samples)
    n_iter_ : int
        Largest number of Lloyd iterations of a view's k-means (0 for a given ensemble).
    constant_mask_ : ndarray of shape (n_features,), bool
    n_features_in_ : int

    Notes
    -----
    Reconstruction choices (the paper was not read), each switchable: relevance
    ``"eta"``; every view ranks all features; ``k_t`` uniform on ``{2, ..., K_max}`` and a
    random half of the features per view, as Zhang et al. report FRMV's settings; views are
    single-start k-means. A constant feature has ``eta = 0`` (and ``su = 0``) and is ranked
    last.

    References
    ----------
    Hong, Kwong, Chang & Ren (2008), "Consensus unsupervised feature ranking from multiple
    views", Pattern Recognition Letters 29(5), 595-602 (not read: reconstructed);
    Zhang et al. (2012), section 3.1 (settings T = 100, K_v = 20).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.RandomState(0)
    >>> groups = np.repeat([0.0, 5.0], 20)
    >>> X = np.column_stack([groups[:, None] + rng.randn(40, 3), rng.randn(40, 3)])
    >>> frmv = FRMV(n_partitions=20, random_state=0).fit(X)
    >>> sorted(frmv.feature_order_[:3].tolist()), bool(1 <= frmv.scores_.min() <= frmv.scores_.max() <= 6)
    ([0, 1, 2], True)
    """

    higher_is_better = False
    stored_arrays = ("ensemble_",)

    _parameter_constraints: dict = {
        **FeatureRanker._parameter_constraints,
        "n_partitions": [IntInterval(1, None, closed="left")],
        "max_clusters": [IntInterval(2, None, closed="left")],
        "subspace_frac": [Interval(Real, 0, 1, closed="right")],
        "relevance": [StrOptions(set(RELEVANCES))],
        "k_mode": [StrOptions({"random", "fixed"})],
        "n_clusters": [IntInterval(1, None, closed="left"), None],
        "n_bins": [IntInterval(1, None, closed="left")],
        "max_iter": [IntInterval(1, None, closed="left")],
        "ensemble": ["array-like", None],
        "random_state": ["random_state"],
    }

    def __init__(
        self, n_features_to_select=None, *, n_partitions=100, max_clusters=20,
        subspace_frac=0.5, relevance="eta", k_mode="random", n_clusters=None, n_bins=10,
        max_iter=100, ensemble=None, random_state=None,
    ):
        self.n_features_to_select = n_features_to_select
        self.n_partitions = n_partitions
        self.max_clusters = max_clusters
        self.subspace_frac = subspace_frac
        self.relevance = relevance
        self.k_mode = k_mode
        self.n_clusters = n_clusters
        self.n_bins = n_bins
        self.max_iter = max_iter
        self.ensemble = ensemble
        self.random_state = random_state

    def _score(self, X, rng):
        if self.ensemble is not None:
            ensemble = np.atleast_2d(np.asarray(self.ensemble))
            if ensemble.shape[1] != X.shape[0]:
                raise ValueError(f"ensemble has {ensemble.shape[1]} samples, X has "
                                 f"{X.shape[0]}; give the ensemble of this X (rows = samples).")
            self.n_iter_ = 0  # no k-means was run
        else:
            ensemble, _, n_iter = random_subspace_ensemble(
                X, self.n_partitions, max_clusters=self.max_clusters,
                subspace_frac=self.subspace_frac, k_mode=self.k_mode,
                n_clusters=self.n_clusters, max_iter=self.max_iter, random_state=rng,
                return_n_iter=True,
            )
            self.n_iter_ = int(n_iter.max())
        self.ensemble_ = ensemble
        codes = _equal_frequency_bins(X, self.n_bins) if self.relevance == "su" else None
        ranks = np.empty((ensemble.shape[0], X.shape[1]))
        for t, labels in enumerate(ensemble):
            if self.relevance == "eta":
                rel = correlation_ratio(X, labels)
            else:
                rel = _symmetrical_uncertainty(codes, labels, self.n_bins)
            ranks[t] = rankdata(-rel, method="average")
        self.rank_matrix_ = ranks
        return ranks.mean(axis=0)


def correlation_ratio(X, labels):
    """Correlation ratio ``eta_j^2`` of every column of ``X`` with a partition.

    ``eta^2 = between-cluster sum of squares / total sum of squares`` (0 for a constant
    column): the ``R^2`` of regressing the feature on the cluster indicators, i.e. the squared
    linear correlation generalised to several clusters. ``O(n D)``.

    Examples
    --------
    >>> X = np.array([[0.0, 1.0], [0.0, 2.0], [1.0, 1.0], [1.0, 2.0]])
    >>> correlation_ratio(X, [0, 0, 1, 1])
    array([1., 0.])
    """
    X = np.asarray(X, dtype=np.float64)
    _, codes = np.unique(np.asarray(labels), return_inverse=True)
    Z = np.zeros((X.shape[0], codes.max() + 1))
    Z[np.arange(X.shape[0]), codes] = 1.0
    sizes = Z.sum(axis=0)
    Xc = X - X.mean(axis=0)
    means = (Z.T @ Xc) / sizes[:, None]  # (k, D), cluster means of the centred data
    between = sizes @ means**2
    total = (Xc**2).sum(axis=0)
    return np.divide(between, total, out=np.zeros_like(total), where=total > 1e-300)


def _equal_frequency_bins(X, n_bins):
    """Equal-frequency bin of each entry, per column: ``(n, D)`` ints in ``0..n_bins-1``."""
    ranks = rankdata(X, method="average", axis=0)
    return np.minimum(((ranks - 1) * n_bins / X.shape[0]).astype(np.intp), n_bins - 1)


def _entropy_rows(counts):
    total = counts.sum(axis=-1, keepdims=True)
    p = counts / total
    with np.errstate(divide="ignore", invalid="ignore"):
        return -np.where(p > 0, p * np.log(p), 0.0).sum(axis=-1)


def _symmetrical_uncertainty(codes, labels, n_bins):
    """``2 I(f; P) / (H(f) + H(P))`` of every discretised column with the partition."""
    n, d = codes.shape
    _, lab = np.unique(np.asarray(labels), return_inverse=True)
    k = lab.max() + 1
    joint_code = (np.arange(d)[None, :] * n_bins + codes) * k + lab[:, None]
    joint = np.bincount(joint_code.ravel(), minlength=d * n_bins * k).reshape(d, n_bins, k)
    h_f = _entropy_rows(joint.sum(axis=2))
    h_p = _entropy_rows(np.bincount(lab, minlength=k)[None, :].astype(float))
    h_joint = _entropy_rows(joint.reshape(d, -1))
    mi = h_f + h_p - h_joint
    den = h_f + h_p
    return np.divide(2.0 * mi, den, out=np.zeros(d), where=den > 0)
