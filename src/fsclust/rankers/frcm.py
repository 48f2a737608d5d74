"""FRCM (Zhang, Wong, Shen & Xie 2012): feature ranking based on the consensus matrix."""

from __future__ import annotations

from numbers import Real

import numpy as np
from sklearn.utils._param_validation import Interval, StrOptions

from ..cluster.consensus import (
    arimm_from_sums,
    consensus_matrix,
    max_ensemble_clusters,
    random_subspace_ensemble,
)
from .base import FeatureRanker, IntInterval

DUPLICATES = ("one", "drop")


#: The largest number of samples (:class:`~fsclust.rankers.base.RankerTags`): the consensus
#: matrix ``M`` (``n x n``) and the sparse co-association product it comes from, about
#: 2.1 float64 ``n x n`` arrays at the peak besides the blocks of the pair pass (measured,
#: docs/measurements.md "Size bounds of the rankers"), fit 4 GiB up to 15,865; time
#: ``O(n^2 D)``.
MAX_SAMPLES = 15_000


class FRCM(FeatureRanker):
    """Rank features by the agreement (ARImm) of their affinity with an ensemble's consensus.

    1. Consensus matrix ``M`` (eq. (5)) of ``T`` single-start k-means partitions, each of a
       random half of the features with ``K_t`` uniform on ``{2, ..., K_max}``,
       ``K_max = min(floor(sqrt(n)), K_v)`` (eq. (6)); see
       :func:`fsclust.cluster.consensus.random_subspace_ensemble`.
    2. Affinity of feature ``j`` (eq. (7)):
       ``A^(j)_il = sqrt(1 - (x_ij - x_lj)^2 / ||x_i - x_l||^2)``.
    3. Score ``z_j = ARImm(M, A^(j))`` (eqs. (11)-(12)); larger is better.

    All ``D`` scores come from one pass over the sample pairs, in blocks of rows: for each
    block the squared differences ``(pairs, D)`` give the distances, every feature's affinity
    and the four pair sums of ARImm at once. Time ``O(n^2 D)`` (the paper's ``O(n^2 D^2)``
    recomputes the distance per feature), extra memory ``O(n^2)`` for ``M`` plus one block of
    at most ``block_size`` pair-features.

    Parameters
    ----------
    n_features_to_select : int or None, default=None
        Number of top-ranked features kept by ``transform``; None keeps all.
    n_partitions : int, default=100
        ``T``, the ensemble size (paper: 100).
    max_clusters : int, default=20
        ``K_v`` (paper: 20).
    subspace_frac : float, default=0.5
        Fraction of the features each partition sees (paper: ``D/2``; we take the floor).
    max_iter : int, default=100
        Lloyd iterations of each member k-means.
    duplicates : {"one", "drop"}, default="one"
        Eq. (7) is 0/0 for two identical samples. ``"one"``: ``A = 1`` for every feature (no
        feature is responsible for a zero distance). ``"drop"``: leave such pairs out of all
        sums and of ``P``.
    block_size : int, default=2**22
        Largest number of pair-features held at once (memory bound of the blocked pass).
    random_state : int, RandomState instance or None, default=None

    Attributes
    ----------
    scores_ : ndarray of shape (n_features,)
        ``z``, ARImm of each feature's affinity against ``M``; larger is better. A constant
        feature has ``A = 1`` and ``z = 0``; it is ranked last.
    ranking_ : ndarray of shape (n_features,), int
        Rank of each feature, 1 = best (the position in ``feature_order_`` + 1).
    feature_order_ : ndarray of shape (n_features,), int
        Feature indices, best first; constant features last.
    consensus_matrix_ : ndarray of shape (n_samples, n_samples)
        ``M``: symmetric, unit diagonal.
    ensemble_ : ndarray of shape (n_partitions, n_samples)
        The member partitions (FRMV can be given the same ones).
    ensemble_n_clusters_ : ndarray of shape (n_partitions,)
        ``K_t`` of each member.
    max_clusters_ : int
        ``K_max``.
    n_iter_ : int
        Largest number of Lloyd iterations of an ensemble member.
    constant_mask_ : ndarray of shape (n_features,), bool
    n_features_in_ : int

    Notes
    -----
    Decisions (the paper is silent or ambiguous):

    - ``K_max = min(floor(sqrt(n)), K_v)`` and ``floor(D/2)`` features (at least one) per
      member; the paper leaves both unrounded.
    - Members are single-start k-means (``init="random"``, ``n_init=1``, ``max_iter=100``).
    - Duplicate samples: ``A = 1`` (``duplicates="one"``); the ratio in eq. (7) is clipped to
      ``[0, 1]`` against round-off.
    - ARImm is used as printed (Hubert-Arabie "max" denominator ``0.5 (s1 + s2)``) and is 0
      when its denominator is ``<= 1e-12 P``.
    - The true number of clusters is not an input, as in the paper.

    Planted structure (issue 40; ``speed/planted_suite.py``, docs/measurements.md, "Planted
    structure at the defaults"). Against the paper's Algorithm 1 and eqs. (4)-(7), (11)-(12)
    no departure was found: the affinity falls to 0 where the feature carries the pair's
    distance (the sign is the paper's: a feature that separates the pairs ``M`` separates
    scores high), ARImm is eq. (12) with its ``0.5 (s1 + s2)``. The shortfall is the
    consensus matrix, the method's only reference: where single-start k-means on half the
    features does not find the groups, ``M`` does not hold them. Members' mean adjusted Rand
    index with the groups: wide-z 0.02, base-z 0.04, weak 0.05, counts 0.11 (base 0.56,
    square 0.64); k-means with ``K`` and 10 starts on all features: 0.01, 0.11, 0.14, 0.42.
    With ``M`` replaced by the groups' co-association (a diagnosis, labels used) the shares
    are 1.00, 1.00, 1.00, 0.97 instead of 0.23, 0.87, 0.73, 0.41, and 0.97-1.00 on all 12
    problems (``speed/planted_baselines.py frcm``). The ensemble's settings do not move it:
    ``subspace_frac=1.0`` gives 0.27, 0.83, 0.70, 0.44 and ``max_clusters=K`` 0.10, 0.77,
    0.67, 0.50 (``python speed/planted_suite.py --methods frcm --cases wide wide-z base-z
    weak counts --jobs 1 --variant frcm-allfeatures frcm '{"subspace_frac": 1.0}' --variant
    frcm-kvK frcm '{"max_clusters": "K"}'``, 15 fits in 19 s). A weak ``M`` can still rank
    well (base-z: ARImm of ``M`` with the groups 0.04, share 0.87; not measured further).
    What bounds the method: the structure that k-means ensembles find on all the features.

    References
    ----------
    Zhang, Wong, Shen & Xie (2012), "A New Unsupervised Feature Ranking Method for Gene
    Expression Data Based on Consensus Affinity", IEEE/ACM TCBB 9(5), Algorithm 1,
    eqs. (4)-(7) and (11)-(12).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.RandomState(0)
    >>> groups = np.repeat([0.0, 4.0, 8.0], 20)
    >>> X = np.column_stack([groups + rng.randn(60), rng.randn(60, 5)])
    >>> frcm = FRCM(n_partitions=20, random_state=0).fit(X)
    >>> int(frcm.feature_order_[0])
    0
    >>> frcm.consensus_matrix_.shape, bool(np.allclose(np.diag(frcm.consensus_matrix_), 1))
    ((60, 60), True)
    """

    higher_is_better = True
    stored_arrays = ("ensemble_", "consensus_matrix_")

    _parameter_constraints: dict = {
        **FeatureRanker._parameter_constraints,
        "n_partitions": [IntInterval(1, None, closed="left")],
        "max_clusters": [IntInterval(2, None, closed="left")],
        "subspace_frac": [Interval(Real, 0, 1, closed="right")],
        "max_iter": [IntInterval(1, None, closed="left")],
        "duplicates": [StrOptions(set(DUPLICATES))],
        "block_size": [IntInterval(1, None, closed="left")],
        "random_state": ["random_state"],
    }

    def __init__(
        self, n_features_to_select=None, *, n_partitions=100, max_clusters=20,
        subspace_frac=0.5, max_iter=100, duplicates="one", block_size=2**22,
        random_state=None,
    ):
        self.n_features_to_select = n_features_to_select
        self.n_partitions = n_partitions
        self.max_clusters = max_clusters
        self.subspace_frac = subspace_frac
        self.max_iter = max_iter
        self.duplicates = duplicates
        self.block_size = block_size
        self.random_state = random_state

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.ranker_tags.max_samples = MAX_SAMPLES
        return tags

    def _score(self, X, rng):
        self.max_clusters_ = max_ensemble_clusters(X.shape[0], self.max_clusters)
        self.ensemble_, self.ensemble_n_clusters_, n_iter = random_subspace_ensemble(
            X, self.n_partitions, max_clusters=self.max_clusters,
            subspace_frac=self.subspace_frac, max_iter=self.max_iter, random_state=rng,
            return_n_iter=True,
        )
        self.n_iter_ = int(n_iter.max())
        self.consensus_matrix_ = consensus_matrix(self.ensemble_)
        return feature_arimm(X, self.consensus_matrix_, duplicates=self.duplicates,
                             block_size=self.block_size)


def feature_affinity(X, j):
    """Affinity matrix of feature ``j`` (Zhang et al. eq. (7)), directly: ``(n, n)``.

    ``A_il = sqrt(1 - (x_ij - x_lj)^2 / ||x_i - x_l||^2)``, 1 for duplicate samples (and on
    the diagonal). The reference formula of :func:`feature_arimm`, for tests and small data.

    Examples
    --------
    >>> feature_affinity([[0.0, 0.0], [3.0, 4.0]], 0)
    array([[1. , 0.8],
           [0.8, 1. ]])
    """
    X = np.asarray(X, dtype=np.float64)
    diff = X[:, None, :] - X[None, :, :]
    R = (diff**2).sum(axis=2)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = diff[:, :, j] ** 2 / R
    A = np.sqrt(np.clip(1.0 - ratio, 0.0, 1.0))
    A[R == 0] = 1.0
    return A


def feature_arimm(X, M, *, duplicates="one", block_size=2**22):
    """ARImm of every feature's affinity (eq. (7)) against ``M``, in one blocked pass.

    For a block of rows ``i`` and the columns ``l >= i0`` it forms the squared differences
    ``(B, n - i0, D)``, their row sums ``R = ||x_i - x_l||^2``, all affinities
    ``sqrt(1 - diff^2 / R)`` and accumulates, over the pairs ``i < l``,
    ``s0_j = sum M_il A_il^(j)`` (one matrix-vector product), ``s2_j = sum A_il^(j)``,
    ``s1 = sum M_il`` and ``P``. Time ``O(n^2 D)``; memory one block of at most
    ``block_size`` pair-features (a few copies of it).

    Parameters
    ----------
    X : array-like of shape (n, D)
    M : array-like of shape (n, n)
        The consensus matrix (symmetric).
    duplicates : {"one", "drop"}, default="one"
        See :class:`FRCM`.
    block_size : int, default=2**22

    Returns
    -------
    z : ndarray of shape (D,)

    Examples
    --------
    >>> from fsclust.cluster.consensus import arimm, coassociation_matrix
    >>> X = np.array([[0.0, 1.0], [0.2, 0.0], [5.0, 0.5], [5.1, 0.7]])
    >>> M = coassociation_matrix([0, 0, 1, 1])
    >>> z = feature_arimm(X, M)
    >>> bool(np.isclose(z[1], arimm(M, feature_affinity(X, 1))))
    True
    """
    X = np.asarray(X, dtype=np.float64)
    M = np.asarray(M, dtype=np.float64)
    n, d = X.shape
    rows_per_block = max(1, int(block_size) // max(1, n * d))
    s0 = np.zeros(d)
    s2 = np.zeros(d)
    s1 = 0.0
    n_pairs = 0
    for a in range(0, n, rows_per_block):
        b = min(a + rows_per_block, n)
        diff2 = (X[a:b, None, :] - X[None, a:, :]) ** 2  # (B, n - a, D)
        R = diff2.sum(axis=2)
        pair = np.arange(a, n)[None, :] > np.arange(a, b)[:, None]  # the pairs i < l
        duplicate = R == 0.0  # exact: a sum of squares is 0 only when every term is
        with np.errstate(divide="ignore", invalid="ignore"):
            diff2 /= R[:, :, None]
        A = np.sqrt(np.clip(1.0 - diff2, 0.0, 1.0, out=diff2), out=diff2)
        A[duplicate] = 1.0
        if duplicates == "drop":
            pair &= ~duplicate
        weight = pair.astype(np.float64)
        Mb = M[a:b, a:] * weight
        s0 += Mb.reshape(-1) @ A.reshape(-1, d)
        s2 += weight.reshape(-1) @ A.reshape(-1, d)
        s1 += float(Mb.sum())
        n_pairs += int(pair.sum())
    if n_pairs == 0:
        return np.zeros(d)
    return arimm_from_sums(s0, s1, s2, n_pairs)
