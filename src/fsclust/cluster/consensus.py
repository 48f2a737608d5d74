"""Cluster ensembles: random-subspace k-means ensembles, the consensus (co-association)
matrix, ARImm between similarity matrices, and three consensus clusterers (CSPA, HBGF and
average-link evidence accumulation).

The ensemble is the one of Zhang et al. (2012, section 2.1) and of FRMV (Hong et al. 2008):
``T`` single-start k-means runs, each on a random half of the features, with a number of
clusters drawn uniformly from ``{2, ..., K_max}``, ``K_max = min(floor(sqrt(n)), K_v)``.
An ensemble is stored as an integer array ``(T, n)`` of labels, one row per partition.

CSPA (Strehl & Ghosh 2002) and HBGF (Fern & Brodley 2004) partition a graph with METIS, as
both papers do (``pymetis``, METIS 5; :func:`metis_partition`). ``partitioner="spectral"``
keeps the spectral partitions used while METIS was thought unavailable: CSPA by Ng-Jordan-Weiss
spectral clustering of the consensus matrix (:class:`fsclust.cluster.SpectralClustering`,
``laplacian="sym"``, precomputed affinity), HBGF by the spectral partition of the
instance-cluster bipartite graph (Fern & Brodley's own alternative to METIS, section 3.2 of
their paper), computed with one SVD of the normalised incidence matrix.
"""

from __future__ import annotations

import numpy as np
import pymetis
import scipy.sparse as sp
from scipy.cluster.hierarchy import fcluster, linkage
from scipy.spatial.distance import squareform
from sklearn.utils import check_random_state
from threadpoolctl import threadpool_limits

from fsclust.cluster import KMeans, SpectralClustering
from fsclust.cluster.affinity import sklearn_seed
from fsclust.graphs import canonical_sign_flip

__all__ = [
    "arimm",
    "average_link_consensus",
    "coassociation_matrix",
    "consensus_matrix",
    "cspa_consensus",
    "ensemble_incidence",
    "hbgf_consensus",
    "max_ensemble_clusters",
    "metis_partition",
    "random_subspace_ensemble",
]


def max_ensemble_clusters(n_samples, max_clusters=20):
    """``K_max = min(floor(sqrt(n)), K_v)`` (Zhang et al. eq. (6); floor is our decision), >= 2.

    Examples
    --------
    >>> max_ensemble_clusters(104), max_ensemble_clusters(3498)
    (10, 20)
    """
    return max(2, min(int(np.floor(np.sqrt(n_samples))), int(max_clusters)))


def random_subspace_ensemble(X, n_partitions=100, *, max_clusters=20, subspace_frac=0.5,
                             k_mode="random", n_clusters=None, max_iter=100,
                             random_state=None, return_n_iter=False):
    """``T`` k-means partitions of random feature halves (Zhang et al. Algorithm 1, lines 1-7).

    Parameters
    ----------
    X : array-like of shape (n, D)
    n_partitions : int, default=100
        ``T``.
    max_clusters : int, default=20
        ``K_v``; each partition's number of clusters is uniform on ``{2, ..., K_max}``.
    subspace_frac : float, default=0.5
        Each partition uses ``max(1, floor(D * subspace_frac))`` features drawn without
        replacement.
    k_mode : {"random", "fixed"}, default="random"
        ``"fixed"``: every partition has ``n_clusters`` clusters (an FRMV option).
    n_clusters : int or None
        Used by ``k_mode="fixed"`` only.
    max_iter : int, default=100
        Lloyd iterations of each single-start k-means (``init="random"``, ``n_init=1``): the
        paper bounds the iterations by C < 100 and asks for diverse weak partitions.
    random_state : int, RandomState instance or None
    return_n_iter : bool, default=False
        Also return each member's number of Lloyd iterations.

    Returns
    -------
    labels : ndarray of shape (T, n), int
        One partition per row.
    ks : ndarray of shape (T,), int
        The number of clusters asked of each partition.
    n_iter : ndarray of shape (T,), int
        Only with ``return_n_iter``.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.RandomState(0).rand(30, 6)
    >>> labels, ks = random_subspace_ensemble(X, 5, random_state=0)
    >>> labels.shape, bool(ks.min() >= 2 and ks.max() <= 5)
    ((5, 30), True)
    """
    X = np.asarray(X, dtype=np.float64)
    n, d = X.shape
    rng = check_random_state(random_state)
    k_max = max_ensemble_clusters(n, max_clusters)
    n_sub = max(1, int(np.floor(d * subspace_frac)))
    labels = np.empty((n_partitions, n), dtype=np.intp)
    ks = np.empty(n_partitions, dtype=np.intp)
    n_iter = np.empty(n_partitions, dtype=np.intp)
    # One OpenMP thread: the members are small problems, and scikit-learn's threaded Lloyd
    # loop was measured ~80x slower than one thread on 2 cores shared by several jobs.
    with threadpool_limits(limits=1, user_api="openmp"):
        _fill_ensemble(X, labels, ks, n_iter, rng, n_sub, k_mode, n_clusters, k_max, max_iter)
    return (labels, ks, n_iter) if return_n_iter else (labels, ks)


def _fill_ensemble(X, labels, ks, n_iter, rng, n_sub, k_mode, n_clusters, k_max, max_iter):
    d = X.shape[1]
    for t in range(labels.shape[0]):
        features = rng.choice(d, size=n_sub, replace=False)
        if k_mode == "fixed":
            if n_clusters is None:
                raise ValueError('k_mode="fixed" needs n_clusters.')
            k = int(n_clusters)
        elif k_mode == "random":
            k = int(rng.randint(2, k_max + 1))
        else:
            raise ValueError(f'k_mode must be "random" or "fixed", got {k_mode!r}.')
        model = KMeans(n_clusters=k, init="random", n_init=1, max_iter=max_iter,
                       random_state=sklearn_seed(rng))
        model.fit(X[:, features])
        labels[t], ks[t], n_iter[t] = model.labels_, k, model.n_iter_


def ensemble_incidence(labels):
    """Sparse one-hot incidence ``H (n, sum_t K_t)`` of an ensemble: ``H[i, c] = 1`` when
    sample i is in cluster c (clusters of all partitions side by side, empty ones dropped).

    Examples
    --------
    >>> ensemble_incidence([[0, 0, 1], [1, 0, 0]]).toarray().astype(int)
    array([[1, 0, 0, 1],
           [1, 0, 1, 0],
           [0, 1, 1, 0]])
    """
    labels = np.atleast_2d(np.asarray(labels))
    n_partitions, n = labels.shape
    columns, offset = np.empty_like(labels), 0
    for t in range(n_partitions):
        _, codes = np.unique(labels[t], return_inverse=True)
        columns[t] = codes + offset
        offset += codes.max() + 1
    rows = np.tile(np.arange(n), n_partitions)
    data = np.ones(n * n_partitions)
    return sp.csr_matrix((data, (rows, columns.ravel())), shape=(n, offset))


def coassociation_matrix(labels):
    """Co-association matrix of one hard partition (Zhang et al. eq. (4)): ``M_ij = [p_i = p_j]``.

    Examples
    --------
    >>> coassociation_matrix([0, 0, 1]).astype(int)
    array([[1, 1, 0],
           [1, 1, 0],
           [0, 0, 1]])
    """
    labels = np.asarray(labels)
    return (labels[:, None] == labels[None, :]).astype(np.float64)


def consensus_matrix(labels):
    """Consensus matrix ``M = (1/T) sum_t M^(t)`` of an ensemble (Zhang et al. eq. (5)).

    Computed as ``H H^T / T`` with the sparse incidence ``H`` of :func:`ensemble_incidence`:
    ``O(T n^2)`` time at most, ``O(n^2)`` memory. Symmetric, unit diagonal, entries in
    ``{0, 1/T, ..., 1}``.

    Parameters
    ----------
    labels : array-like of shape (T, n)

    Returns
    -------
    M : ndarray of shape (n, n)

    Examples
    --------
    >>> consensus_matrix([[0, 0, 1], [0, 1, 1]])
    array([[1. , 0.5, 0. ],
           [0.5, 1. , 0.5],
           [0. , 0.5, 1. ]])
    """
    labels = np.atleast_2d(np.asarray(labels))
    H = ensemble_incidence(labels)
    M = (H @ H.T).toarray() / labels.shape[0]
    return M


def _pair_sums(M, A):
    """(s0, s1, s2, P) of ARImm over the pairs i < l."""
    iu = np.triu_indices(M.shape[0], k=1)
    m, a = M[iu], A[iu]
    return float(m @ a), float(m.sum()), float(a.sum()), m.shape[0]


def arimm_from_sums(s0, s1, s2, n_pairs):
    """ARImm from its pair sums (Zhang et al. eqs. (11)-(12)); works elementwise on arrays.

    ``s3 = s1 s2 / P`` and ``ARImm = (s0 - s3) / (0.5 (s1 + s2) - s3)``; 0 where the
    denominator is ``<= 1e-12 P`` (both matrices all zeros or all ones off the diagonal).
    """
    s0, s1, s2 = (np.asarray(v, dtype=np.float64) for v in (s0, s1, s2))
    s3 = s1 * s2 / n_pairs
    den = 0.5 * (s1 + s2) - s3
    ok = den > 1e-12 * n_pairs
    out = np.zeros(np.broadcast(s0, s1, s2).shape)
    np.divide(s0 - s3, den, out=out, where=ok)
    return out if out.ndim else float(out)


def arimm(M, A):
    """Adjusted Rand index between two similarity matrices, ARImm (Zhang et al. eqs. (11)-(12)).

    With ``P = n(n-1)/2`` and sums over the pairs ``i < l``: ``s0 = sum M_il A_il``,
    ``s1 = sum M_il``, ``s2 = sum A_il``, ``s3 = s1 s2 / P``,
    ``ARImm = (s0 - s3) / (0.5 (s1 + s2) - s3)``. For the co-association matrices of two
    hard partitions it is the Hubert-Arabie ARI (eqs. (9)-(10)).

    Parameters
    ----------
    M, A : array-like of shape (n, n)
        Symmetric similarity matrices with entries in [0, 1]; diagonals are ignored.

    Returns
    -------
    float

    References
    ----------
    Zhang, Wong, Shen & Xie (2012), IEEE/ACM TCBB 9(5), eqs. (9)-(12).

    Examples
    --------
    >>> arimm(coassociation_matrix([0, 0, 1, 1]), coassociation_matrix([1, 1, 0, 0]))
    1.0
    """
    M = np.asarray(M, dtype=np.float64)
    A = np.asarray(A, dtype=np.float64)
    if M.shape != A.shape or M.ndim != 2 or M.shape[0] != M.shape[1]:
        raise ValueError(f"M and A must be square and of the same shape, got {M.shape}, {A.shape}.")
    return arimm_from_sums(*_pair_sums(M, A))


PARTITIONERS = ("metis", "spectral")

#: METIS takes integer edge weights: a similarity graph's weights are scaled so that its largest
#: weight becomes WEIGHT_SCALE, then rounded (weights that round to 0 are no edge). A consensus
#: matrix holds multiples of 1/T, so with T dividing 1000 (the paper's T = 100) it is exact.
WEIGHT_SCALE = 1000


def metis_partition(W, n_parts, *, random_state=None, weight_scale=WEIGHT_SCALE, ufactor=1):
    """Partition the weighted undirected graph ``W`` into ``n_parts`` parts with METIS.

    METIS 5's recursive bisection (``METIS_PartGraphRecursive``, the successor of METIS 4's
    ``pmetis``) minimises the weight of the cut edges under a balance constraint: each
    bisection may be unbalanced by ``ufactor / 1000`` (``ufactor=1``, METIS's default for
    recursive bisection), so the parts have nearly equal sizes (measured on random graphs:
    within 2 % of ``n / n_parts``, or two vertices on small graphs), the balanced partitions
    CSPA and HBGF ask of METIS (Strehl & Ghosh 2002, section 3.1).

    Parameters
    ----------
    W : array-like or scipy.sparse matrix of shape (n, n)
        Symmetric non-negative similarities; the diagonal is ignored.
    n_parts : int
    random_state : int, RandomState instance or None
        METIS's seed is drawn from it: the same seed gives the same partition.
    weight_scale : int, default=1000
        Edge weights are ``rint(W_ij * weight_scale / max W)`` (METIS wants positive integers);
        an edge whose weight rounds to 0 is left out.
    ufactor : int, default=1
        METIS's load imbalance, in thousandths.

    Returns
    -------
    labels : ndarray of shape (n,), int
        Part of each vertex, in ``0..n_parts-1``.

    References
    ----------
    Karypis & Kumar (1998), "A fast and high quality multilevel scheme for partitioning
    irregular graphs", SIAM J. Sci. Comput. 20(1).

    Examples
    --------
    >>> import numpy as np
    >>> W = np.kron(np.eye(2), np.ones((3, 3)))  # two triangles, no edge between them
    >>> labels = metis_partition(W, 2, random_state=0)
    >>> bool(labels[0] == labels[1] == labels[2] != labels[3] == labels[4] == labels[5])
    True
    """
    W = sp.csr_matrix(W, dtype=np.float64)
    n = W.shape[0]
    if W.ndim != 2 or W.shape != (n, n):
        raise ValueError(f"W must be a square matrix, got shape {W.shape}.")
    n_parts = int(n_parts)
    if not 1 <= n_parts <= n:
        raise ValueError(f"n_parts={n_parts} must be between 1 and the {n} vertices.")
    if W.nnz and (W.data.min() < 0 or not np.all(np.isfinite(W.data))):
        raise ValueError("W must hold finite non-negative similarities (METIS cuts weights).")
    if abs(W - W.T).max() > 1e-12 * max(1.0, abs(W).max()):
        raise ValueError("W must be symmetric (an undirected graph); pass (W + W.T) / 2.")
    rng = check_random_state(random_state)
    seed = sklearn_seed(rng)
    if n_parts == 1:
        return np.zeros(n, dtype=np.intp)
    W = W.tolil()
    W.setdiag(0.0)
    W = sp.csr_matrix(W)
    top = W.max() if W.nnz else 0.0
    if top > 0:
        W.data = np.rint(W.data * (weight_scale / top))
    W.eliminate_zeros()
    W.sort_indices()
    options = pymetis.Options(seed=seed, ufactor=int(ufactor))
    eweights = W.data.astype(np.int64) if W.nnz else None
    graph = pymetis.CSRAdjacency(W.indptr.astype(np.int64), W.indices.astype(np.int64))
    _, parts = pymetis.part_graph(n_parts, graph, eweights=eweights, recursive=True,
                                  options=options)
    return np.asarray(parts, dtype=np.intp)


def _check_partitioner(partitioner):
    if partitioner not in PARTITIONERS:
        raise ValueError(f"partitioner must be one of {PARTITIONERS}, got {partitioner!r}.")


def cspa_consensus(M, n_clusters, random_state=None, partitioner="metis"):
    """CSPA (Strehl & Ghosh 2002, section 3.1): partition the consensus matrix as a graph.

    The samples are vertices and ``M_ij`` the weight of the edge ``(i, j)``; METIS cuts it into
    ``n_clusters`` balanced parts of least cut weight (:func:`metis_partition`, weights scaled
    by 1000 and rounded: exact for ``T`` dividing 1000). ``partitioner="spectral"``:
    Ng-Jordan-Weiss spectral clustering of ``M`` with a zero diagonal
    (:class:`fsclust.cluster.SpectralClustering`, ``laplacian="sym"``), used before METIS was
    installed.

    Examples
    --------
    >>> M = consensus_matrix([[0, 0, 1, 1], [0, 0, 1, 1], [0, 1, 1, 1]])
    >>> labels = cspa_consensus(M, 2, random_state=0)
    >>> bool(labels[0] == labels[1] != labels[2] == labels[3])
    True
    """
    _check_partitioner(partitioner)
    W = np.array(M, dtype=np.float64, copy=True)
    np.fill_diagonal(W, 0.0)
    if partitioner == "metis":
        return metis_partition(W, n_clusters, random_state=random_state)
    model = SpectralClustering(n_clusters=n_clusters, laplacian="sym", affinity="precomputed",
                               random_state=random_state)
    return model.fit_predict(W)


def hbgf_consensus(labels, n_clusters, random_state=None, partitioner="metis"):
    """HBGF (Fern & Brodley 2004): partition the bipartite graph of instances and clusters.

    The graph has an edge of weight 1 between sample i and each cluster that contains it,
    ``W = [[0, H], [H^T, 0]]`` (``n + sum_t K_t`` vertices). METIS cuts it into ``n_clusters``
    balanced parts (:func:`metis_partition`, every vertex of weight 1, as Fern & Brodley ran
    METIS on this graph); the instances' parts are returned.

    ``partitioner="spectral"``: its Ng-Jordan-Weiss spectral partition from the top ``k``
    singular vectors of ``D_1^-1/2 H D_2^-1/2`` (instance degrees ``T``, cluster degrees the
    cluster sizes): the stacked, row-normalised ``[U; V]`` are clustered by k-means; this is the
    spectral alternative Fern & Brodley describe.

    Examples
    --------
    >>> labels = hbgf_consensus([[0, 0, 1, 1], [0, 0, 1, 1], [0, 1, 1, 1]], 2, random_state=0)
    >>> bool(labels[0] == labels[1] != labels[2] == labels[3])
    True
    """
    _check_partitioner(partitioner)
    labels = np.atleast_2d(np.asarray(labels))
    H = ensemble_incidence(labels)
    n = H.shape[0]
    if partitioner == "metis":
        W = sp.bmat([[None, H], [H.T, None]], format="csr")
        return metis_partition(W, n_clusters, random_state=random_state)[:n]
    H = H.toarray()
    d1 = H.sum(axis=1)
    d2 = H.sum(axis=0)
    S = H / np.sqrt(d1)[:, None] / np.sqrt(d2)[None, :]
    U, Vt = canonical_sign_flip(*np.linalg.svd(S, full_matrices=False)[::2])
    k = min(int(n_clusters), U.shape[1])
    emb = np.vstack([U[:, :k], Vt[:k].T])
    norms = np.linalg.norm(emb, axis=1, keepdims=True)
    emb = emb / np.where(norms > 0, norms, 1.0)
    rng = check_random_state(random_state)
    model = KMeans(n_clusters=int(n_clusters), n_init=10, random_state=sklearn_seed(rng))
    return model.fit(emb).labels_[:n]


def average_link_consensus(M, n_clusters):
    """Evidence accumulation (Fred & Jain 2005): average-link clustering of ``1 - M``, cut
    into ``n_clusters`` clusters.

    Examples
    --------
    >>> M = consensus_matrix([[0, 0, 1, 1], [0, 0, 1, 1], [0, 1, 1, 1]])
    >>> labels = average_link_consensus(M, 2)
    >>> bool(labels[0] == labels[1] != labels[2] == labels[3])
    True
    """
    D = 1.0 - np.asarray(M, dtype=np.float64)
    D = 0.5 * (D + D.T)
    np.fill_diagonal(D, 0.0)
    Z = linkage(squareform(np.clip(D, 0.0, None), checks=False), method="average")
    return fcluster(Z, t=int(n_clusters), criterion="maxclust").astype(np.intp) - 1
