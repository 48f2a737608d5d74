"""Correlation with a consensus partition (Zhang et al. 2012, Figure 3): the features most
related to the consensus clustering of a cluster ensemble."""

from __future__ import annotations

import numpy as np
from sklearn.utils._param_validation import StrOptions

from ..cluster.consensus import (
    PARTITIONERS,
    average_link_consensus,
    consensus_matrix,
    cspa_consensus,
    hbgf_consensus,
    random_subspace_ensemble,
)
from .base import FeatureRanker, IntInterval
from .frmv import correlation_ratio

#: The consensus functions Zhang et al. compare FRCM with in their Figure 3.
CONSENSUS_FUNCTIONS = ("cspa", "hbgf", "average_link")


#: The largest number of samples (:class:`~fsclust.rankers.base.RankerTags`): the consensus
#: matrix, its zero-diagonal copy and the graph METIS cuts (scipy's CSR, then LIL, of up to
#: ``n^2`` edges) are about 13 float64 ``n x n`` arrays at the peak (measured,
#: docs/measurements.md "Size bounds of the rankers"), within 4 GiB up to 6,377. HBGF builds
#: no ``n x n`` array but is held to the same bound.
MAX_SAMPLES = 6_000


class ConsensusCorrelation(FeatureRanker):
    """Rank features by their correlation ratio ``eta^2`` with a consensus partition of an
    ensemble (larger is better).

    1. The ensemble: given (Zhang et al. 2012, Figure 3: FRCM's own ensemble of the same trial),
       or ``T`` single-start k-means partitions of random feature halves drawn as FRCM draws
       them (:func:`fsclust.cluster.consensus.random_subspace_ensemble`).
    2. Its consensus partition into ``n_clusters`` clusters by ``consensus``: ``"cspa"``, the
       graph of the consensus matrix cut by ``partitioner`` (Strehl & Ghosh 2002),
       ``"hbgf"``, the bipartite graph of samples and clusters cut by ``partitioner`` (Fern &
       Brodley 2004), or ``"average_link"``, the average-link tree of ``1 - M`` cut into
       ``n_clusters`` (Fred & Jain 2005; deterministic, ``partitioner`` unused).
    3. The score of feature ``j``: ``eta_j^2``, the share of its variance between the
       consensus clusters (:func:`fsclust.rankers.frmv.correlation_ratio`; the squared linear
       correlation for two clusters).

    Parameters
    ----------
    n_features_to_select : int or None, default=None
        Number of top-ranked features kept by ``transform``; None keeps all.
    consensus : {"cspa", "hbgf", "average_link"}, default="cspa"
        The consensus function.
    n_clusters : int, default=2
        ``k``, the number of clusters of the consensus partition (Figure 3's x axis, 2..10).
    partitioner : {"metis", "spectral"}, default="metis"
        The graph partitioner of CSPA and HBGF (:func:`fsclust.cluster.consensus.cspa_consensus`,
        :func:`fsclust.cluster.consensus.hbgf_consensus`): METIS as both papers, or the spectral
        partitions used before METIS was installed.
    ensemble : array-like of shape (T, n_samples) or None, default=None
        The partitions, one per row (e.g. ``FRCM(...).fit(X).ensemble_``); None draws them.
    n_partitions : int, default=100
        ``T`` of a drawn ensemble.
    max_clusters : int, default=20
        ``K_v`` of a drawn ensemble.
    random_state : int, RandomState instance or None, default=None
        Draws the ensemble (when not given), then the partitioner's seed.

    Attributes
    ----------
    scores_ : ndarray of shape (n_features,)
        ``eta^2`` in ``[0, 1]``; larger is better.
    ranking_ : ndarray of shape (n_features,), int
        Rank of each feature, 1 = best.
    feature_order_ : ndarray of shape (n_features,), int
        Feature indices, best first (ties: lower index first; constant features last).
    consensus_labels_ : ndarray of shape (n_samples,), int
        The consensus partition the scores measure.
    ensemble_ : ndarray of shape (T, n_samples)
    constant_mask_ : ndarray of shape (n_features,), bool
    n_features_in_ : int

    References
    ----------
    Zhang, Wong, Shen & Xie (2012), IEEE/ACM TCBB 9(5), section 3.3 and Figure 3;
    Strehl & Ghosh (2002), JMLR 3, section 3.1 (CSPA); Fern & Brodley (2004), ICML (HBGF);
    Fred & Jain (2005), IEEE TPAMI 27(6) (evidence accumulation, average link).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.RandomState(0)
    >>> groups = np.repeat([0.0, 5.0], 20)
    >>> X = np.column_stack([groups[:, None] + rng.randn(40, 2), rng.randn(40, 3)])
    >>> ranker = ConsensusCorrelation(consensus="average_link", n_partitions=10,
    ...                               random_state=0).fit(X)
    >>> sorted(ranker.feature_order_[:2].tolist()), bool(ranker.scores_.max() <= 1)
    ([0, 1], True)
    """

    higher_is_better = True

    _parameter_constraints: dict = {
        **FeatureRanker._parameter_constraints,
        "consensus": [StrOptions(set(CONSENSUS_FUNCTIONS))],
        "n_clusters": [IntInterval(1, None, closed="left")],
        "partitioner": [StrOptions(set(PARTITIONERS))],
        "ensemble": ["array-like", None],
        "n_partitions": [IntInterval(1, None, closed="left")],
        "max_clusters": [IntInterval(2, None, closed="left")],
        "random_state": ["random_state"],
    }

    def __init__(self, n_features_to_select=None, *, consensus="cspa", n_clusters=2,
                 partitioner="metis", ensemble=None, n_partitions=100, max_clusters=20,
                 random_state=None):
        self.n_features_to_select = n_features_to_select
        self.consensus = consensus
        self.n_clusters = n_clusters
        self.partitioner = partitioner
        self.ensemble = ensemble
        self.n_partitions = n_partitions
        self.max_clusters = max_clusters
        self.random_state = random_state

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.ranker_tags.max_samples = MAX_SAMPLES
        return tags

    def _score(self, X, rng):
        n = X.shape[0]
        if self.n_clusters > n:
            raise ValueError(f"n_clusters={self.n_clusters} is more than the {n} samples; "
                             "ask for at most one cluster per sample.")
        if self.ensemble is None:
            ensemble, _ = random_subspace_ensemble(X, self.n_partitions,
                                                   max_clusters=self.max_clusters,
                                                   random_state=rng)
        else:
            ensemble = np.atleast_2d(np.asarray(self.ensemble))
            if ensemble.shape[1] != n:
                raise ValueError(f"ensemble has {ensemble.shape[1]} samples, X has {n}; give "
                                 "the ensemble of this X (rows = partitions).")
        self.ensemble_ = ensemble
        self.consensus_labels_ = self._consensus_partition(ensemble, rng)
        return correlation_ratio(X, self.consensus_labels_)

    def _consensus_partition(self, ensemble, rng):
        if self.consensus == "hbgf":
            return hbgf_consensus(ensemble, self.n_clusters, random_state=rng,
                                  partitioner=self.partitioner)
        M = consensus_matrix(ensemble)
        if self.consensus == "cspa":
            return cspa_consensus(M, self.n_clusters, random_state=rng,
                                  partitioner=self.partitioner)
        return average_link_consensus(M, self.n_clusters)
