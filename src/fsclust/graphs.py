"""Shared graph math: distances, bandwidths, affinity graphs, Laplacians and eigen-solvers.

Every graph-based ranker and clusterer calls these functions; none copies them. Conventions
(decisions of ours where the papers differ or are silent):

- everything is float64, inputs are copied and never modified;
- the heat kernel is written with the paper's ``t``: ``W_ij = exp(-||x_i - x_j||^2 / t)``;
- graphs that define a Laplacian have a zero diagonal unless asked otherwise (self-loops change
  ``D_g``, ``L_rw`` and ``L_sym``, and with a narrow kernel such as Zeng & Cheung's (2008) a unit
  diagonal makes the normalised matrices numerically the identity);
- eigenvectors get a canonical sign, the same on every machine: the largest-magnitude entry of
  each is positive (:func:`canonical_sign_flip`).
"""

from __future__ import annotations

import warnings

import numpy as np
import scipy.linalg
import scipy.sparse as sp
import scipy.sparse.linalg
from scipy.sparse import csgraph
from sklearn.neighbors import kneighbors_graph
from sklearn.utils import check_random_state

__all__ = [
    "BANDWIDTH_RULES",
    "DEPRECATED_BANDWIDTH_RULES",
    "squared_distances",
    "bandwidth",
    "heat_affinity",
    "rbf_affinity",
    "knn_graph",
    "pca_embedding",
    "kneighbors_at_scale",
    "pca_knn_graph",
    "EXACT_NEIGHBORS_MAX_N",
    "integer_grid",
    "graph_quadratic_forms",
    "capped_n_neighbors",
    "laplacian",
    "smallest_eigenvectors",
    "largest_eigenvectors",
    "canonical_sign_flip",
]

#: Old names of the bandwidth rules, from the project's early numbering of the five papers,
#: and the rule each now names: still accepted by :func:`bandwidth`, with a FutureWarning.
DEPRECATED_BANDWIDTH_RULES = {"seed000": "zeng2008", "seed003": "jiang2011"}

#: Names accepted by :func:`bandwidth`: the rules, then their deprecated old names (listed so
#: that a parameter declared with these choices still validates a configuration that uses them).
BANDWIDTH_RULES = ("cai", "zeng2008", "median", "jiang2011", *DEPRECATED_BANDWIDTH_RULES)

# Below this size a dense eigh is faster and more robust than ARPACK, whatever the sparsity.
_DENSE_EIGH_MAX_N = 2000


def _as_float_array(X, name="X", copy=True):
    """``X`` as a 2-D float64 array; ``copy=False`` for callers that only read it."""
    X = np.array(X, dtype=np.float64, copy=True) if copy else np.asarray(X, dtype=np.float64)
    if X.ndim != 2:
        raise ValueError(f"{name} must be 2-D, got shape {X.shape}.")
    return X


# Rows of X X^T per block in the dense neighbour search: 2^23 float64 (64 MiB) per block.
_KNN_BLOCK_ENTRIES = 2**23


def _kneighbors_dense(X, n_neighbors, D2=None):
    """Each row's ``n_neighbors`` nearest other rows of (centred) ``X``, from ``X X^T``, or
    from their squared distances ``D2`` when the caller has them (:func:`squared_distances`).

    Returns ``(indices, sq_distances)``, both ``(n, k)`` and nearest first, or None when some
    row's list is not decided beyond round-off: another sample within round-off of it (a
    duplicate, where scikit-learn's choice between the sample itself and its copy is its own)
    or its k-th and (k+1)-th nearest within round-off of each other. The caller then uses
    :func:`sklearn.neighbors.kneighbors_graph`, so that the lists are always the ones it gives.

    One matrix product in row blocks (64 MiB at a time) and a partial sort: scikit-learn's
    search computes the same product, plus its own bookkeeping, which on 171 x 5748 (TOX-171)
    costs twice the product.
    """
    n, D = X.shape
    k = int(n_neighbors)
    sq = np.einsum("ij,ij->i", X, X)
    # both computations of ||x_i||^2 + ||x_j||^2 - 2 x_i.x_j err by at most about
    # D eps (||x_i||^2 + ||x_j||^2): gaps below this bound could order either way
    tol = 32.0 * D * np.finfo(np.float64).eps * float(sq.max(initial=0.0))
    indices = np.empty((n, k), dtype=np.intp)
    sq_dist = np.empty((n, k))
    rows = max(1, _KNN_BLOCK_ENTRIES // max(n, 1))
    for start in range(0, n, rows):
        stop = min(n, start + rows)
        if D2 is None:
            B = X[start:stop] @ X.T
            B *= -2.0
            B += sq[start:stop, None]
            B += sq[None, :]
        else:
            B = D2[start:stop].copy()
        own = np.arange(start, stop)
        B[own - start, own] = -np.inf  # each sample first, then its neighbours
        m = min(k + 2, n)  # the sample, its k neighbours and the next nearest
        if m < n:
            near = np.argpartition(B, m - 1, axis=1)[:, :m]
        else:
            near = np.tile(np.arange(n), (stop - start, 1))
        d2 = np.take_along_axis(B, near, axis=1)
        order = np.argsort(d2, axis=1, kind="stable")
        near = np.take_along_axis(near, order, axis=1)
        d2 = np.take_along_axis(d2, order, axis=1)
        if np.any(d2[:, 1] <= tol) or (m == k + 2 and np.any(d2[:, k + 1] - d2[:, k] <= tol)):
            return None
        indices[start:stop] = near[:, 1:k + 1]
        sq_dist[start:stop] = d2[:, 1:k + 1]
    return indices, np.maximum(sq_dist, 0.0)


def _kneighbors_distance_graph(X, n_neighbors, max_sq_distance=np.inf, D2=None):
    """``kneighbors_graph(X, n_neighbors, mode="distance", include_self=False)`` as CSR:
    from :func:`_kneighbors_dense` where every list is decided beyond round-off (the same lists;
    distances equal to round-off), else scikit-learn's own search. Also scikit-learn's when a
    neighbour lies farther than ``sqrt(max_sq_distance)``: the caller's bound past which the
    distances' round-off could decide its results."""
    n = X.shape[0]
    dense = _kneighbors_dense(X, n_neighbors, D2)
    if dense is None or dense[1].max(initial=0.0) > max_sq_distance:
        return sp.csr_matrix(kneighbors_graph(X, n_neighbors, mode="distance",
                                              include_self=False), dtype=np.float64)
    indices, sq_dist = dense
    k = indices.shape[1]
    return sp.csr_matrix((np.sqrt(sq_dist).ravel(), indices.ravel(),
                          np.arange(0, n * k + 1, k)), shape=(n, n))


def squared_distances(X, Y=None):
    """Squared Euclidean distances between the rows of ``X`` (and ``Y``).

    The columns are centred first (distances are translation invariant, and centring reduces
    the cancellation in ``|x|^2 + |y|^2 - 2 x.y``), negative round-off is clipped to 0 and,
    when ``Y`` is None, the result is exactly symmetric with an exactly zero diagonal.

    Parameters
    ----------
    X : array-like of shape (n, D)
    Y : array-like of shape (m, D), default=None
        When None, distances within ``X``.

    Returns
    -------
    D2 : ndarray of shape (n, m), float64

    Examples
    --------
    >>> squared_distances([[0.0, 0.0], [3.0, 4.0]])
    array([[ 0., 25.],
           [25.,  0.]])
    """
    X = _as_float_array(X, copy=False)  # read only: Xc is the working array
    centre = X.mean(axis=0)
    Xc = X - centre
    if Y is None:
        Yc = Xc
    else:
        Yc = _as_float_array(Y, "Y", copy=False)
        if Yc.shape[1] != X.shape[1]:
            raise ValueError(f"X has {X.shape[1]} columns but Y has {Yc.shape[1]}.")
        # the same shift for both sets, so the distances are unchanged
        Yc = Yc - centre
    sq_x = np.einsum("ij,ij->i", Xc, Xc)
    sq_y = sq_x if Y is None else np.einsum("ij,ij->i", Yc, Yc)
    D2 = sq_x[:, None] + sq_y[None, :] - 2.0 * (Xc @ Yc.T)
    np.maximum(D2, 0.0, out=D2)
    if Y is None:
        # BLAS need not return an exactly symmetric X X^T; eigh and the degree sums want it.
        D2 = 0.5 * (D2 + D2.T)
        np.fill_diagonal(D2, 0.0)
    return D2


#: Feature scalings before a distance (:func:`scale_features`).
SCALINGS = ("none", "zscore", "zscore-sqrt-d")


def scale_features(X, scale):
    """The "normalized data" of Maldonado, Carrizosa & Weber (2015), section 4.1.

    Decision (the paper only says ``v0 = 1`` suits "normalized data"): z-score, then divide by
    ``sqrt(d)``; with ``v0 = 1`` the kernel on z-scored data of thousands of features is
    otherwise numerically the identity.

    Parameters
    ----------
    X : ndarray of shape (n, d)
    scale : {"none", "zscore", "zscore-sqrt-d"}
        ``"zscore"``: each column to mean 0 and unit (population) variance, constant columns
        to 0; ``"zscore-sqrt-d"``: then divide the whole matrix by ``sqrt(d)``, so that the mean
        squared distance between two samples is about 2 whatever ``d`` and a unit kernel width
        (``v0 = 1``, ``sigma = 1``) is meaningful.

    Returns
    -------
    Xs : ndarray of shape (n, d), a new array

    Examples
    --------
    >>> scale_features(np.array([[0.0, 1.0], [2.0, 1.0]]), "zscore-sqrt-d").round(4)
    array([[-0.7071,  0.    ],
           [ 0.7071,  0.    ]])
    """
    X = np.array(X, dtype=np.float64, copy=True)
    if scale == "none":
        return X
    if scale not in SCALINGS:
        raise ValueError(f"scale must be one of {SCALINGS}, got {scale!r}.")
    X -= X.mean(axis=0)
    sd = X.std(axis=0)
    X /= np.where(sd > 0, sd, 1.0)
    if scale == "zscore-sqrt-d":
        X /= np.sqrt(X.shape[1])
    return X


def scaled_sq_distances(X, scale):
    """Squared distances between the rows of ``scale_features(X, scale)``: what
    :class:`fsclust.cluster.KernelKMeans` with ``kernel="rbf"`` computes from features, and what its ``fit``
    accepts as ``sq_distances``.

    Both scalings act on each column independently (``"zscore-sqrt-d"`` then divides the
    squared distances by ``d``), so the squared distances are a sum of per-column terms, which
    :func:`fsclust.steps.sweep.run_sweep` accumulates as features are added.

    Examples
    --------
    >>> scaled_sq_distances(np.array([[0.0, 1.0], [2.0, 5.0]]), "zscore-sqrt-d")
    array([[0., 4.],
           [4., 0.]])
    """
    return squared_distances(scale_features(X, scale))


def bandwidth(D2, rule="cai"):
    """Heat-kernel parameter ``t`` of ``exp(-d^2 / t)`` from a rule on squared distances.

    Parameters
    ----------
    D2 : ndarray of shape (n, n)
        Squared distances within one set of samples (from :func:`squared_distances`).
    rule : {"cai", "zeng2008", "median", "jiang2011"}, default="cai"
        - ``"cai"``: ``t = 2 * (mean of all n^2 Euclidean distances, diagonal included)^2``, the
          rule of Deng Cai's ``constructW`` (whose kernel is ``exp(-d^2 / (2 t_c^2))`` with
          ``t_c`` the mean distance);
        - ``"zeng2008"``: ``t = 0.0025 * max_ij d_ij^2`` (Zeng & Cheung 2008);
        - ``"median"``: ``t`` = median of ``d_ij^2`` over ``i < j``;
        - ``"jiang2011"``: ``t = 2 delta^2`` with ``delta`` the median of the distances ``d_ij``
          over ``i < j``: Jiang & Ren's kernel ``exp(-d^2 / (2 delta^2))`` with the median
          heuristic for ``delta`` (decision: the paper chose delta by cross-validation,
          value unknown; the median keeps typical similarities near ``e^-1/2``).

        The project's old names of the last two (``DEPRECATED_BANDWIDTH_RULES``) still work,
        with a FutureWarning.

    Returns
    -------
    t : float
        Strictly positive. When all samples coincide every ``t`` gives the same kernel, and
        1.0 is returned.

    Raises
    ------
    ValueError
        For an unknown rule, or when the rule gives ``t = 0`` although the samples differ
        (e.g. the median rule when most pairs are duplicates): pass ``t`` explicitly then.

    References
    ----------
    He, Cai & Niyogi (2005), "Laplacian Score for Feature Selection", NIPS 18 (``exp(-d^2 / t)``);
    Zeng & Cheung (2008), PRICAI, LNAI 5351 (``t = 0.0025 max d^2``); Jiang & Ren (2011),
    ECML PKDD, LNCS 6912 (``exp(-d^2 / (2 delta^2))``); Deng Cai's ``constructW.m``. Other
    notations convert as ``t = 2 sigma^2`` (``exp(-d^2 / (2 sigma^2))``) and ``t = 1 / gamma``
    (scikit-learn's ``rbf_kernel``).

    Examples
    --------
    >>> D2 = squared_distances([[0.0], [1.0], [3.0]])
    >>> bandwidth(D2, "zeng2008")
    0.0225
    >>> bandwidth(D2, "median")
    4.0
    >>> bandwidth(D2, "jiang2011")  # delta = median(1, 3, 2) = 2
    8.0
    """
    D2 = np.asarray(D2, dtype=np.float64)
    if D2.ndim != 2 or D2.shape[0] != D2.shape[1]:
        raise ValueError(f"D2 must be a square matrix, got shape {D2.shape}.")
    rule = _current_rule_name(rule)
    if rule == "cai":
        t = 2.0 * np.mean(np.sqrt(D2)) ** 2
    elif rule == "zeng2008":
        t = 0.0025 * D2.max(initial=0.0)
    elif rule in ("median", "jiang2011"):
        n = D2.shape[0]
        upper = D2[np.triu_indices(n, k=1)]
        if rule == "median":
            t = float(np.median(upper)) if upper.size else 0.0
        else:
            t = 2.0 * float(np.median(np.sqrt(np.maximum(upper, 0.0)))) ** 2 if upper.size else 0.0
    else:
        raise ValueError(f"Unknown bandwidth rule {rule!r}; valid rules are {BANDWIDTH_RULES}.")
    t = float(t)
    if not np.isfinite(t):
        raise ValueError(f"Bandwidth rule {rule!r} gave a non-finite t={t}.")
    if t <= 0.0:
        if D2.max(initial=0.0) == 0.0:
            return 1.0
        raise ValueError(
            f"Bandwidth rule {rule!r} gave t=0 although the samples are not all equal; "
            "pass t explicitly."
        )
    return t


def _current_rule_name(rule):
    """``rule``, or the rule a deprecated name now names (with a FutureWarning)."""
    if isinstance(rule, str) and rule in DEPRECATED_BANDWIDTH_RULES:
        current = DEPRECATED_BANDWIDTH_RULES[rule]
        warnings.warn(f"The bandwidth rule {rule!r} is now called {current!r}; the old name "
                      "will be removed in a future version.", FutureWarning, stacklevel=3)
        return current
    return rule


def _check_t(t):
    t = float(t)
    if not (np.isfinite(t) and t > 0):
        raise ValueError(f"The heat-kernel parameter t must be finite and > 0, got {t}.")
    return t


def rbf_affinity(X, t=None, t_rule="cai", keep_diagonal=False, return_bandwidth=False):
    """Complete graph with heat-kernel weights ``W_ij = exp(-||x_i - x_j||^2 / t)``.

    Parameters
    ----------
    X : array-like of shape (n, D)
    t : float, default=None
        Kernel parameter; when None it comes from ``t_rule`` on these samples and columns.
    t_rule : {"cai", "zeng2008", "median", "jiang2011"}, default="cai"
        See :func:`bandwidth`.
    keep_diagonal : bool, default=False
        Keep ``W_ii = 1``. The default zero diagonal is the graph convention (decision:
        with narrow kernels a unit diagonal swamps every other weight).
    return_bandwidth : bool, default=False
        Also return the ``t`` used.

    Returns
    -------
    W : ndarray of shape (n, n), float64
    t : float
        Only when ``return_bandwidth``.

    References
    ----------
    He, Cai & Niyogi (2005), "Laplacian Score for Feature Selection", NIPS, section 2, step 2
    (heat kernel).

    Examples
    --------
    >>> W = rbf_affinity([[0.0], [1.0], [3.0]], t=1.0)
    >>> W.diagonal()
    array([0., 0., 0.])
    >>> bool(np.isclose(W[0, 1], np.exp(-1.0)))
    True
    """
    return heat_affinity(squared_distances(X), t=t, t_rule=t_rule, keep_diagonal=keep_diagonal,
                         return_bandwidth=return_bandwidth)


def heat_affinity(D2, t=None, t_rule="cai", keep_diagonal=False, return_bandwidth=False):
    """:func:`rbf_affinity` from the squared distances ``D2`` instead of the features.

    ``rbf_affinity(X, ...)`` is ``heat_affinity(squared_distances(X), ...)``: callers that
    already hold the squared distances (a sweep that accumulates them as features are added)
    get the same graph without recomputing them. ``D2`` is not modified.

    Parameters
    ----------
    D2 : ndarray of shape (n, n)
        Squared Euclidean distances within one set of samples, zero diagonal.
    t, t_rule, keep_diagonal, return_bandwidth
        As in :func:`rbf_affinity`; the bandwidth rule is applied to ``D2``.

    Returns
    -------
    W : ndarray of shape (n, n), float64
    t : float
        Only when ``return_bandwidth``.

    Examples
    --------
    >>> X = [[0.0], [1.0], [3.0]]
    >>> bool(np.array_equal(heat_affinity(squared_distances(X)), rbf_affinity(X)))
    True
    """
    D2 = np.asarray(D2, dtype=np.float64)
    t = bandwidth(D2, t_rule) if t is None else _check_t(t)
    W = np.exp(-D2 / t)
    if not keep_diagonal:
        np.fill_diagonal(W, 0.0)
    return (W, t) if return_bandwidth else W


# Up to this many samples the bandwidth rules read the whole n x n matrix of squared distances
# (8 MiB at 1024); above, blocks of this many rows.
_BANDWIDTH_BLOCK_ROWS = 1024


def _bandwidth_from_data(X, rule, block_rows=_BANDWIDTH_BLOCK_ROWS):
    """:func:`bandwidth` without holding the n-by-n matrix for the max and mean rules."""
    n = X.shape[0]
    rule = _current_rule_name(rule)
    if rule in ("median", "jiang2011") or n <= block_rows:
        return bandwidth(squared_distances(X), rule)
    if rule not in BANDWIDTH_RULES:
        raise ValueError(f"Unknown bandwidth rule {rule!r}; valid rules are {BANDWIDTH_RULES}.")
    Xc = X - X.mean(axis=0)
    max_d2, sum_d = 0.0, 0.0
    for start in range(0, n, block_rows):  # a loop over blocks of rows, for memory only
        block = squared_distances(Xc[start : start + block_rows], Xc)
        block[np.arange(block.shape[0]), np.arange(start, start + block.shape[0])] = 0.0
        max_d2 = max(max_d2, float(block.max()))
        sum_d += float(np.sqrt(block).sum())
    t = 0.0025 * max_d2 if rule == "zeng2008" else 2.0 * (sum_d / n**2) ** 2
    if t <= 0.0:
        if max_d2 == 0.0:
            return 1.0
        raise ValueError(f"Bandwidth rule {rule!r} gave t=0; pass t explicitly.")
    return float(t)


def capped_n_neighbors(n_neighbors, n_samples, method):
    """The neighbours a graph of ``n_samples`` can give each sample: ``n_neighbors``, or
    ``n_samples - 1`` with a warning when it asks for more.

    A sample has ``n - 1`` others: the rankers whose defaults exceed that on tiny data (JELSR,
    MCFS, NDFS, RUFS, UDFS) use them all, and say so, rather than fail or change ``k`` unseen.

    Examples
    --------
    >>> capped_n_neighbors(5, 100, "NDFS")
    5
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     k = capped_n_neighbors(5, 4, "NDFS")
    >>> k, str(caught[0].message)[:60]
    (3, 'NDFS: n_neighbors=5 but only 4 samples, each with 3 others: ')
    """
    n_neighbors, cap = int(n_neighbors), int(n_samples) - 1
    if n_neighbors <= cap:
        return n_neighbors
    warnings.warn(f"{method}: n_neighbors={n_neighbors} but only {n_samples} samples, each "
                  f"with {cap} others: using n_neighbors={cap} (give a smaller n_neighbors or "
                  "more samples).", UserWarning, stacklevel=3)
    return cap


def knn_graph(
    X,
    n_neighbors=5,
    t=None,
    t_rule="cai",
    weight="heat",
    symmetrize="or",
    self_loops=False,
    allow_isolated=False,
    return_bandwidth=False,
    metric="euclidean",
):
    """Symmetric k-nearest-neighbour graph, as a scipy.sparse CSR matrix.

    ``x_j`` is a neighbour of ``x_i`` when it is among the ``n_neighbors`` nearest samples to
    ``x_i``, the sample itself excluded (``include_self=False``).

    ``metric="cosine"``, ``weight="cosine"`` and ``self_loops=True`` is the graph of the usage
    example of Cai's ``LaplacianScore.m`` (``Metric = 'Cosine'``, ``NeighborMode = 'KNN'``,
    ``WeightMode = 'Cosine'``, ``constructW`` of that time connecting each sample to itself):
    the neighbours are the samples of largest cosine similarity, each edge weighs that cosine.

    Parameters
    ----------
    X : array-like of shape (n, D)
    n_neighbors : int, default=5
        ``k``; must be smaller than ``n``.
    t : float, default=None
        Heat-kernel parameter; when None it comes from ``t_rule`` on all pairs of samples.
        Ignored for binary weights.
    t_rule : {"cai", "zeng2008", "median", "jiang2011"}, default="cai"
        See :func:`bandwidth`.
    weight : {"heat", "binary", "cosine"}, default="heat"
        ``exp(-d^2 / t)`` (Euclidean metric only), 1, or the cosine similarity
        ``x_i^T x_j / (||x_i|| ||x_j||)`` (cosine metric only, as Cai's ``constructW``) on every
        edge. A negative cosine is kept on an edge both ends list (``"or"`` takes the larger of
        ``W_ij`` and ``W_ji``, an unlisted pair counting 0, as MATLAB's ``max(W, W')``).
    symmetrize : {"or", "and"}, default="or"
        ``"or"``: an edge when either end lists the other, ``W = max(W, W^T)`` (the Laplacian
        Score paper, Cai's code); ``"and"``: mutual kNN, ``W = min(W, W^T)``.
    self_loops : bool, default=False
        Set ``W_ii = 1`` (scikit-feature's ``construct_W`` does; the papers' graphs do not).
    allow_isolated : bool, default=False
        A node without edges (possible with mutual kNN) raises ``ValueError`` unless allowed.
        Self-loops do not count as edges here.
    return_bandwidth : bool, default=False
        Also return the ``t`` used (None for binary and cosine weights).
    metric : {"euclidean", "cosine"}, default="euclidean"
        The neighbours' distance: Euclidean, or the cosine distance ``1 - cos(x_i, x_j)``
        (rows scaled to unit length first; a zero row is at cosine 0 from every sample).

    Returns
    -------
    W : scipy.sparse.csr_matrix of shape (n, n), float64, symmetric, non-negative
    t : float or None
        Only when ``return_bandwidth``.

    References
    ----------
    He, Cai & Niyogi (2005), "Laplacian Score for Feature Selection", NIPS, section 2, steps 1
    and 2.

    Examples
    --------
    >>> X = [[0.0], [1.0], [3.0], [10.0], [11.0], [13.0]]
    >>> W = knn_graph(X, n_neighbors=1, weight="binary")
    >>> W.toarray()
    array([[0., 1., 0., 0., 0., 0.],
           [1., 0., 1., 0., 0., 0.],
           [0., 1., 0., 0., 0., 0.],
           [0., 0., 0., 0., 1., 0.],
           [0., 0., 0., 1., 0., 1.],
           [0., 0., 0., 0., 1., 0.]])
    """
    # read only: the centred (or unit-row) copy below is the working array
    X = _as_float_array(X, copy=False)
    if metric not in ("euclidean", "cosine"):
        raise ValueError(f"metric must be 'euclidean' or 'cosine', got {metric!r}.")
    if weight not in ("heat", "binary", "cosine"):
        raise ValueError(f"weight must be 'heat', 'binary' or 'cosine', got {weight!r}.")
    if (weight == "cosine") != (metric == "cosine") and weight != "binary":
        raise ValueError(
            f"weight={weight!r} needs metric={'cosine' if weight == 'cosine' else 'euclidean'!r}"
            f", got metric={metric!r} (heat weights are Euclidean, cosine weights cosine)."
        )
    if metric == "cosine":
        # unit rows: Euclidean neighbours are then the cosine ones (||u - v||^2 = 2 - 2 cos)
        norms = np.linalg.norm(X, axis=1, keepdims=True)
        X = X / np.maximum(norms, 1e-10)
    else:
        # centring does not move the neighbours and reduces round-off in the distances
        X = X - X.mean(axis=0)
    n = X.shape[0]
    n_neighbors = int(n_neighbors)
    if not 1 <= n_neighbors < n:
        raise ValueError(
            f"n_neighbors={n_neighbors} must be at least 1 and smaller than n_samples={n}."
        )
    if symmetrize not in ("or", "and"):
        raise ValueError(f"symmetrize must be 'or' or 'and', got {symmetrize!r}.")

    D2 = None
    if weight == "heat" and t is None and n <= _BANDWIDTH_BLOCK_ROWS:
        # the rule's n x n distances serve the neighbour search too
        D2 = squared_distances(X)
        t = bandwidth(D2, t_rule)
    elif weight == "heat":
        t = _bandwidth_from_data(X, t_rule) if t is None else _check_t(t)
    # Under a narrow heat kernel (an edge with d^2 / t above 30, weight below 1e-13: Zeng &
    # Cheung's t = 0.0025 max d^2 gives up to several hundred) the relative round-off of the
    # weights grows with d^2 / t, and scores that differ by 1e-11 can trade places (MONTI's
    # LEUKEMIA Laplacian ranking does): there the graph keeps scikit-learn's distances, so
    # that no shipped ranking depends on how the distances were summed.
    G = _kneighbors_distance_graph(X, n_neighbors,
                                   30.0 * t if weight == "heat" else np.inf, D2)
    if weight == "cosine":
        t = None
        # the cosine of unit rows from their distance; a zero row stays at cosine 0
        G.data = np.einsum("ij,ij->i", X[np.repeat(np.arange(n), np.diff(G.indptr))],
                           X[G.indices])
    elif weight == "heat":
        G.data = np.exp(-(G.data**2) / t)
    else:
        t = None
        G.data = np.ones_like(G.data)
    if weight == "cosine" and symmetrize == "and":
        # cosines may be negative: keep the pairs both ends list (the weights are symmetric)
        mutual = G.T.astype(bool).astype(np.float64)
        W = G.multiply(mutual)
    else:
        W = G.maximum(G.T) if symmetrize == "or" else G.minimum(G.T)
    W = sp.csr_matrix(W)
    # heat weights that underflow to 0 are no edge at all
    W.eliminate_zeros()

    if not allow_isolated:
        degree = np.asarray(W.sum(axis=1)).ravel()
        isolated = np.flatnonzero(degree == 0)
        if isolated.size:
            raise ValueError(
                f"{isolated.size} isolated node(s) in the kNN graph (first: sample "
                f"{isolated[0]}); increase n_neighbors or t, use symmetrize='or', or pass "
                "allow_isolated=True."
            )
    if self_loops:
        W = sp.csr_matrix(W + sp.identity(n, dtype=np.float64, format="csr"))
    W.sort_indices()
    return (W, t) if return_bandwidth else W


#: Up to this many samples the neighbours on an embedding are exact (one blocked matrix
#: product, :func:`_kneighbors_dense`); above, pynndescent's approximate search, whose time
#: grows as ``n log n`` instead of ``n^2`` (docs/measurements.md, "Neighbours at scale").
EXACT_NEIGHBORS_MAX_N = 20_000

#: Largest number of features a PCA embedding takes (its ``d x d`` covariance): 2^13 features
#: are a 512 MiB float64 covariance.
PCA_MAX_FEATURES = 2**13

# entries of the dense row block the covariance is accumulated from (2^24 float64: 128 MiB)
_PCA_BLOCK_ENTRIES = 2**24


def _rows_dense(X, start, stop, columns):
    """Rows ``start:stop`` of ``X`` (dense or sparse), restricted to ``columns``, dense float64."""
    block = X[start:stop]
    if columns is not None:
        block = block[:, columns]
    block = block.toarray() if sp.issparse(block) else block
    return np.asarray(block, dtype=np.float64)


#: The covariance of a PCA embedding is estimated from at most this many samples (a seeded
#: subsample above it); every sample is projected. Time ``O(min(n, this) d'^2 + nnz k)``:
#: linear in ``n`` (at 10^5 cells x 2,000 genes the full covariance cost 4 x 10^11 flops).
PCA_MAX_FIT_SAMPLES = 20_000


def pca_embedding(X, n_components=50, features=None, *, max_fit_samples=PCA_MAX_FIT_SAMPLES,
                  random_state=0):
    """The first ``n_components`` principal component scores of the rows of ``X``.

    ``X`` may be dense or scipy.sparse (CSR): it is centred implicitly and never densified
    whole. The covariance of the ``features`` used, ``C = (X^T X - n mu mu^T) / (n - 1)``, is
    accumulated from dense blocks of rows (one BLAS ``syrk``-like product each), its leading
    eigenvectors ``V`` come from LAPACK's ``eigh`` with the canonical sign
    (:func:`canonical_sign_flip`), and the scores are ``X V - mu V`` (a sparse product).
    Memory: ``O(d'^2 + n n_components)`` for ``d'`` features, plus one block; time
    ``O(n d'^2)``. On 20,000 x 2,000 at 10 % non-zeros this takes a fifth of the time of
    scikit-learn's sparse ``PCA(svd_solver="arpack")`` (docs/measurements.md).

    Parameters
    ----------
    X : array-like or scipy.sparse matrix of shape (n, d)
    n_components : int, default=50
        Capped at ``min(n, d') - 1``.
    features : array-like of int, optional
        The columns that define the embedding (a prefilter such as the highly variable
        genes); None: all, at most :data:`PCA_MAX_FEATURES`.
    max_fit_samples : int or None, default=PCA_MAX_FIT_SAMPLES
        The components are those of a uniform subsample of this many samples (sorted row
        indices drawn with ``random_state``) when ``n`` is larger; None: all samples.
    random_state : int, default=0
        Seed of that subsample.

    Returns
    -------
    scores : ndarray of shape (n, n_components), float64
    explained_variance : ndarray of shape (n_components,)

    Examples
    --------
    >>> rng = np.random.RandomState(0)
    >>> X = rng.randn(100, 3) * [5.0, 1.0, 0.1]
    >>> scores, var = pca_embedding(X, n_components=2)
    >>> scores.shape, bool(var[0] > var[1])
    ((100, 2), True)
    >>> dense = pca_embedding(sp.csr_matrix(X), n_components=2)[0]
    >>> bool(np.allclose(dense, scores))
    True
    """
    if not sp.issparse(X):
        X = _as_float_array(X, copy=False)
    n, d = X.shape
    columns = None if features is None else np.asarray(features, dtype=np.intp)
    width = d if columns is None else columns.size
    if width > PCA_MAX_FEATURES:
        raise ValueError(f"a PCA embedding of {width:,} features needs a {width:,} x {width:,} "
                         f"covariance; prefilter to at most {PCA_MAX_FEATURES:,} features "
                         "(for example the most variable ones).")
    chosen = pca_fit_rows(n, max_fit_samples, random_state)
    vectors, values, offset = pca_components(X if chosen is None else X[chosen], n,
                                             n_components, columns)
    # projected in blocks of rows: a column subset of the whole matrix would copy the
    # stored values of those columns (1.5 GB of a 10^6-cell CSR matrix, beyond its 2x budget)
    scores = np.empty((n, vectors.shape[1]))
    step = max(1, _PCA_BLOCK_ENTRIES // max(width, 1))
    for start in range(0, n, step):
        scores[start:start + step] = pca_project(X[start:start + step], columns, vectors,
                                                 offset)
    return scores, values


def pca_fit_rows(n, max_fit_samples=PCA_MAX_FIT_SAMPLES, random_state=0):
    """The sorted rows :func:`pca_embedding`'s covariance comes from (None: all ``n``)."""
    if max_fit_samples is not None and n > max_fit_samples:
        return np.sort(check_random_state(random_state).choice(n, max_fit_samples,
                                                               replace=False))
    return None


def pca_components(fit, n, n_components, columns=None):
    """``(vectors, values, offset)`` of :func:`pca_embedding`: the leading eigenvectors (the
    canonical sign) and eigenvalues of the covariance of the rows ``fit`` (the rows of
    :func:`pca_fit_rows` of a matrix of ``n`` rows), restricted to ``columns``, and the
    projection's offset ``mu V``. A piece of :func:`pca_embedding` that a chunked matrix
    calls on its gathered rows (:mod:`fsclust.counts.chunked`)."""
    width = fit.shape[1] if columns is None else columns.size
    n_components = int(min(n_components, n - 1, width))
    if n_components < 1:
        raise ValueError(f"a PCA embedding needs at least 2 samples and 1 feature, got "
                         f"{n} x {width}.")
    n_fit = fit.shape[0]
    rows = max(1, _PCA_BLOCK_ENTRIES // max(width, 1))
    gram = np.zeros((width, width))
    total = np.zeros(width)
    for start in range(0, n_fit, rows):
        B = _rows_dense(fit, start, min(n_fit, start + rows), columns)
        gram += B.T @ B
        total += B.sum(axis=0)
    mu = total / n_fit
    cov = (gram - n_fit * np.outer(mu, mu)) / max(n_fit - 1, 1)
    cov = (cov + cov.T) / 2.0  # exactly symmetric, whatever order the blocks summed in
    values, vectors = scipy.linalg.eigh(cov, subset_by_index=[width - n_components, width - 1])
    values, vectors = values[::-1], canonical_sign_flip(vectors[:, ::-1])
    return vectors, np.maximum(values, 0.0), mu @ vectors


def pca_project(block, columns, vectors, offset):
    """The principal component scores of a block of rows, ``block[:, columns] V - mu V``
    (each row's scores depend on that row alone: the same numbers in any blocking)."""
    if columns is not None:
        block = block[:, columns]
    return np.asarray(block @ vectors) - offset


def kneighbors_at_scale(E, n_neighbors, *, method="auto", random_state=0):
    """Each row's ``n_neighbors`` nearest other rows of the embedding ``E`` (Euclidean).

    Parameters
    ----------
    E : ndarray of shape (n, c)
        A low-dimensional embedding (:func:`pca_embedding`).
    n_neighbors : int
    method : {"auto", "exact", "pynndescent"}, default="auto"
        ``"exact"``: a blocked matrix product (:func:`_kneighbors_dense`, scikit-learn's
        search where round-off could decide a list); ``"pynndescent"``: the approximate
        nearest-neighbour descent of Dong et al. (2011) as scanpy uses it, seeded, one
        thread, on the embedding rounded onto :func:`integer_grid` (the same lists on every
        CPU), the distances of the pairs it finds then taken from ``E`` itself;
        ``"auto"``: exact up to :data:`EXACT_NEIGHBORS_MAX_N` samples.
    random_state : int, default=0
        pynndescent's seed (its random projection trees).

    Returns
    -------
    indices : ndarray of shape (n, n_neighbors), int
    distances : ndarray of shape (n, n_neighbors), float64
        Nearest first.

    Examples
    --------
    >>> E = np.array([[0.0], [1.0], [3.0], [10.0]])
    >>> kneighbors_at_scale(E, 1)[0].ravel()
    array([1, 0, 1, 2])
    """
    E = _as_float_array(E, "E", copy=False)
    n = E.shape[0]
    k = int(n_neighbors)
    if not 1 <= k < n:
        raise ValueError(f"n_neighbors={k} must be at least 1 and smaller than n_samples={n}.")
    if method not in ("auto", "exact", "pynndescent"):
        raise ValueError(f"method must be 'auto', 'exact' or 'pynndescent', got {method!r}.")
    if method == "exact" or (method == "auto" and n <= EXACT_NEIGHBORS_MAX_N):
        G = _kneighbors_distance_graph(E - E.mean(axis=0), k)
        return G.indices.reshape(n, k).astype(np.intp), G.data.reshape(n, k)
    try:
        import pynndescent
    except ImportError:
        raise ImportError("neighbours of more than "
                          f"{EXACT_NEIGHBORS_MAX_N:,} samples need pynndescent; install it: "
                          "pip install 'fsclust[singlecell]'") from None
    # k + 1: the search lists each point first, at distance 0; one thread, because numba's
    # parallel descent updates the graph in an order that varies between runs
    index = pynndescent.NNDescent(integer_grid(E), n_neighbors=k + 1,
                                  random_state=random_state, n_jobs=1, low_memory=True,
                                  compressed=True, verbose=False)
    indices, _ = index.neighbor_graph
    indices, _ = _drop_self(indices, np.zeros(indices.shape), k)
    indices = indices.astype(np.intp)
    # the distances of the pairs found, from the embedding itself, in blocks of rows (an
    # n x k x c array of differences would be 6 GB at 10^6 cells)
    distances = np.empty(indices.shape)
    rows = max(1, 2**22 // max(1, k * E.shape[1]))
    for start in range(0, n, rows):
        differences = E[start:start + rows, None, :] - E[indices[start:start + rows]]
        distances[start:start + rows] = np.sqrt(np.einsum("ijk,ijk->ij", differences,
                                                          differences))
    # nearest first by the embedding's distances (the order within a list is not the graph's:
    # W = max(G, G^T) depends only on which neighbours are listed)
    order = np.argsort(distances, axis=1, kind="stable")
    return np.take_along_axis(indices, order, axis=1), np.take_along_axis(distances, order,
                                                                          axis=1)


#: Half the width of :func:`integer_grid`: coordinates in [-255, 255], so that a squared
#: distance is at most 50 x 510^2 < 2^24 for up to 64 components.
GRID_HALF_WIDTH = 255


def integer_grid(E):
    """``E`` rounded onto an integer grid on which every distance computation is exact.

    The approximate search compiles its distance loops for the CPU it runs on (numba,
    ``fastmath``): summed in another order, a distance rounds differently on another CPU, a
    near tie goes the other way and the graph differs. On this grid (the embedding scaled so
    that its largest absolute coordinate is :data:`GRID_HALF_WIDTH`, then rounded) every
    squared distance, dot product and random-projection margin of up to 64 components is an
    integer or half-integer below 2^24, exact in float32 in any order: the search takes the
    same steps on every machine. The grid's step is 1/255 of the largest coordinate: for the
    principal components of cells, far below the distances between neighbours (the recall of
    the exact lists is measured in speed/singlecell_neighbours.py).

    Parameters
    ----------
    E : ndarray of shape (n, c), c <= 64

    Returns
    -------
    ndarray of shape (n, c), float32, integer values

    Examples
    --------
    >>> integer_grid(np.array([[0.0, 1.0], [-2.0, 0.5]]))
    array([[   0.,  128.],
           [-255.,   64.]], dtype=float32)
    """
    E = np.asarray(E, dtype=np.float64)
    if E.shape[1] > 64:
        raise ValueError(f"integer_grid: {E.shape[1]} columns; at most 64 keep every distance "
                         "exact in float32 (use fewer components)")
    scale = np.abs(E).max(initial=0.0)
    if scale == 0.0:
        return np.zeros(E.shape, dtype=np.float32)
    # rint rounds half to even, the same on every machine
    return np.rint(E * (GRID_HALF_WIDTH / scale)).astype(np.float32)


def _drop_self(indices, distances, k):
    """Each row's list without the row itself (first, or anywhere when it has duplicates at
    distance 0), cut to ``k``."""
    n = indices.shape[0]
    own = indices == np.arange(n)[:, None]
    # a row that does not list itself loses its farthest entry instead
    missing = ~own.any(axis=1)
    own[missing, -1] = True
    keep = ~own
    return indices[keep].reshape(n, -1)[:, :k], distances[keep].reshape(n, -1)[:, :k]


def pca_knn_graph(X, n_neighbors=15, *, n_pcs=50, features=None, weight="binary",
                  method="auto", random_state=0):
    """A symmetric kNN graph on the first ``n_pcs`` principal components of ``X``.

    The graph of single-cell analysis (scanpy's ``pp.pca`` then ``pp.neighbors``), for data too
    large for a graph on the features themselves: memory ``O(n k + n n_pcs)``, never ``n x n``.
    ``x_j`` is a neighbour of ``x_i`` when it is among its ``n_neighbors`` nearest in the
    embedding, or vice versa (``W = max(G, G^T)``, as :func:`knn_graph`).

    Parameters
    ----------
    X : array-like or scipy.sparse matrix of shape (n, d)
    n_neighbors : int, default=15
        scanpy's default.
    n_pcs : int, default=50
        Principal components (:func:`pca_embedding`), scanpy's default.
    features : array-like of int, optional
        The columns that define the embedding; None: all.
    weight : {"binary", "heat"}, default="binary"
        1 on every edge, or ``exp(-d^2 / t)`` with ``t`` the mean squared distance of the
        listed neighbours (the rule of He et al.'s bandwidth on the kNN distances only: the
        mean over all pairs would cost ``n^2``).
    method : {"auto", "exact", "pynndescent"}, default="auto"
        See :func:`kneighbors_at_scale`.
    random_state : int, default=0

    Returns
    -------
    W : scipy.sparse.csr_matrix of shape (n, n), float64, symmetric, zero diagonal

    Examples
    --------
    >>> rng = np.random.RandomState(0)
    >>> X = np.vstack([rng.randn(20, 5), rng.randn(20, 5) + 10.0])
    >>> W = pca_knn_graph(X, n_neighbors=3, n_pcs=2)
    >>> W.shape, bool((W - W.T).nnz == 0), bool(W[:20, 20:].nnz == 0)
    ((40, 40), True, True)
    """
    if weight not in ("binary", "heat"):
        raise ValueError(f"weight must be 'binary' or 'heat', got {weight!r}.")
    E, _ = pca_embedding(X, n_components=n_pcs, features=features, random_state=random_state)
    return embedding_knn_graph(E, n_neighbors, weight=weight, method=method,
                               random_state=random_state)


def embedding_knn_graph(E, n_neighbors, *, weight="binary", method="auto", random_state=0):
    """:func:`pca_knn_graph`'s graph on the embedding ``E`` (its second half)."""
    if weight not in ("binary", "heat"):
        raise ValueError(f"weight must be 'binary' or 'heat', got {weight!r}.")
    indices, distances = kneighbors_at_scale(E, n_neighbors, method=method,
                                             random_state=random_state)
    n, k = indices.shape
    if weight == "heat":
        t = float(np.mean(distances**2))
        values = np.exp(-(distances**2) / t) if t > 0 else np.ones_like(distances)
    else:
        values = np.ones_like(distances)
    G = sp.csr_matrix((values.ravel(), indices.ravel(), np.arange(0, n * k + 1, k)),
                      shape=(n, n))
    W = sp.csr_matrix(G.maximum(G.T))
    W.setdiag(0.0)
    W.eliminate_zeros()
    W.sort_indices()
    return W


# stored values of the sparse blocks graph_quadratic_forms works on at a time (2^23: the
# gathered rows, their difference and its square stay around 300 MiB)
_EDGE_BLOCK_VALUES = 2**23


def graph_quadratic_forms(X, W):
    """The quadratic forms of every column ``f`` of a sparse ``X`` on the graph ``W``.

    Returns ``d = W 1`` and, for every column, ``d^T f``, ``f^T D f = sum_i d_i f_i^2`` and
    ``f^T L f = (1/2) sum_ij W_ij (f_i - f_j)^2`` (``L = D - W``), the terms of the Laplacian
    score (He et al. 2005, eq. (4)) and of SPEC's ``phi1`` and ``phi2`` (Zhao & Liu 2007,
    eqs. (4)-(5)), in float64 whatever ``X``'s dtype.

    ``f^T L f = f^T D f - f^T W f`` with ``f^T W f = sum_ij W_ij f_i f_j`` summed over the
    edges, each edge reading the two rows' stored values (:func:`_cross_products`): time
    ``O(|E| nnz/n)`` for ``|E|`` edges, memory ``O(D)`` per thread, never ``W X`` (which on a
    kNN graph of single-cell counts is nearly dense) nor a dense column block. Round-off
    below 0 is clipped to 0.

    Parameters
    ----------
    X : scipy.sparse matrix of shape (n, D)
    W : scipy.sparse matrix of shape (n, n)
        Symmetric, non-negative; a diagonal counts in the degrees (and adds nothing to
        ``f^T L f``).

    Returns
    -------
    d : ndarray of shape (n,)
    dX : ndarray of shape (D,)
        ``d^T f`` of every column.
    fDf : ndarray of shape (D,)
    fLf : ndarray of shape (D,)

    Examples
    --------
    >>> W = sp.csr_matrix(np.ones((3, 3)) - np.eye(3))
    >>> X = sp.csr_matrix(np.array([[0.0], [1.0], [3.0]]))
    >>> d, dX, fDf, fLf = graph_quadratic_forms(X, W)
    >>> float(fLf[0])  # 1 + 9 + 4
    14.0
    """
    X = sp.csr_matrix(X)
    W = sp.csr_matrix(W)
    d = np.asarray(W.sum(axis=1), dtype=np.float64).ravel()
    dX, fDf = degree_forms(X, d)
    fLf = np.maximum(fDf - _cross_products(X, W), 0.0)
    return d, dX, fDf, fLf


def degree_forms(X, d):
    """``(d^T f, f^T D f)`` of every column ``f`` of the CSR ``X`` with the degrees ``d``
    of its rows (:func:`graph_quadratic_forms`'s sums over the nodes; a block of rows gives
    its part of them)."""
    n, D = X.shape
    dX, fDf = np.zeros(D), np.zeros(D)
    per_row = max(1.0, X.nnz / max(n, 1))
    rows = max(1, int(_EDGE_BLOCK_VALUES / per_row))
    for start in range(0, n, rows):
        # a block of rows at a time: float64 temporaries of the block's size, never of X's
        lo, hi = X.indptr[start], X.indptr[min(n, start + rows)]
        values = X.data[lo:hi].astype(np.float64)
        weighted = values * np.repeat(d[start:start + rows],
                                      np.diff(X.indptr[start:start + rows + 1]))
        columns = X.indices[lo:hi]
        dX += np.bincount(columns, weights=weighted, minlength=D)
        fDf += np.bincount(columns, weights=weighted * values, minlength=D)
    return dX, fDf


# the fixed chunks of rows _cross_products sums separately and then in order: the sum is the
# same whatever the number of threads
_CROSS_CHUNKS = 64
_cross_kernel = None
# multiply-adds of f^T W f above which the compiled kernel is used (scipy takes about 0.2 s
# for 10^7 of them)
_NUMBA_MIN_WORK = 10**7


def _compile_cross_kernel():
    """numba's compiled ``sum_ij W_ij x_i o x_j`` (:func:`_cross_products`), or None without
    numba (an optional dependency, brought by pynndescent)."""
    global _cross_kernel
    if _cross_kernel is not None:
        return _cross_kernel or None
    try:
        import numba
    except ImportError:
        _cross_kernel = False
        return None

    @numba.njit(parallel=True, cache=True, nogil=True)
    def kernel(indptr, indices, data, w_indptr, w_indices, w_data, n_features, n_chunks):
        n = indptr.size - 1
        out = np.zeros((n_chunks, n_features))
        for c in numba.prange(n_chunks):
            row = np.zeros(n_features)  # x_i scattered: each neighbour's values read it
            for i in range(c * n // n_chunks, (c + 1) * n // n_chunks):
                for p in range(indptr[i], indptr[i + 1]):
                    row[indices[p]] = data[p]
                for q in range(w_indptr[i], w_indptr[i + 1]):
                    j = w_indices[q]
                    if j < i:
                        continue  # the pair (i, j) counts twice, from i
                    w = w_data[q] * (2.0 if j > i else 1.0)
                    for p in range(indptr[j], indptr[j + 1]):
                        out[c, indices[p]] += w * data[p] * row[indices[p]]
                for p in range(indptr[i], indptr[i + 1]):
                    row[indices[p]] = 0.0
        total = np.zeros(n_features)
        for c in range(n_chunks):  # in order: the same sum on any number of threads
            total += out[c]
        return total

    _cross_kernel = kernel
    return kernel


def _cross_products(X, W, use_numba=True):
    """``f^T W f = sum_ij W_ij f_i f_j`` for every column ``f`` of the sparse ``X``, float64.

    With numba, each edge ``i < j`` multiplies row ``j``'s stored values with row ``i``
    scattered into a dense vector: ``|E| nnz/n`` multiply-adds, parallel over fixed chunks of
    rows (the same sum on any number of threads). Without, scipy in row blocks:
    ``X[R] o (W[R] X)`` (the same numbers to round-off, several times slower).
    """
    W = sp.csr_matrix(W)
    W.sort_indices()
    n = X.shape[0]
    # numba's compilation (or loading its cache) costs about a second: worth it only for
    # large products
    work = W.nnz * X.nnz / max(n, 1)
    kernel = _compile_cross_kernel() if use_numba and work > _NUMBA_MIN_WORK else None
    if kernel is not None:
        X = sp.csr_matrix(X)
        # X's arrays as they are (int32 indices, float32 values): a converted copy of the
        # counts would double the memory at 10^6 cells; numba compiles one kernel per dtype
        return kernel(X.indptr, X.indices, X.data, W.indptr, W.indices,
                      W.data.astype(np.float64, copy=False), X.shape[1], _CROSS_CHUNKS)
    return _edge_sums_scipy(X, X, W)


def _edge_sums_scipy(A, B, E):
    """``sum_(i, j) E_ij A_i * B_j`` per column by scipy, in row blocks of ``E`` whose products
    ``E_rows @ B`` hold about :data:`_EDGE_BLOCK_VALUES` values (the fallback of the compiled
    kernels of :func:`_cross_products` and :func:`cross_products_between`)."""
    n, D = A.shape
    per_row = max(1.0, B.nnz / max(B.shape[0], 1))
    rows = max(1, int(_EDGE_BLOCK_VALUES / (per_row * max(1.0, E.nnz / max(n, 1)))))
    total = np.zeros(D)
    for start in range(0, n, rows):
        P = sp.csr_matrix(E[start:start + rows] @ B)
        total += np.asarray(A[start:start + rows].multiply(P).sum(axis=0),
                            dtype=np.float64).ravel()
    return total



_pair_kernel = None


def _compile_pair_kernel():
    """numba's compiled ``sum_i sum_j E_ij x_i o y_j`` (:func:`cross_products_between`), or
    None without numba. One thread: a chunked matrix's tasks are its parallelism."""
    global _pair_kernel
    if _pair_kernel is not None:
        return _pair_kernel or None
    try:
        import numba
    except ImportError:
        _pair_kernel = False
        return None

    @numba.njit(cache=True, nogil=True)
    def kernel(a_indptr, a_indices, a_data, b_indptr, b_indices, b_data, e_indptr, e_indices,
               e_data, n_features):
        out = np.zeros(n_features)
        row = np.zeros(n_features)  # x_i scattered: each neighbour's values read it
        for i in range(a_indptr.size - 1):
            if e_indptr[i] == e_indptr[i + 1]:
                continue
            for p in range(a_indptr[i], a_indptr[i + 1]):
                row[a_indices[p]] = a_data[p]
            for q in range(e_indptr[i], e_indptr[i + 1]):
                j = e_indices[q]
                w = e_data[q]
                for p in range(b_indptr[j], b_indptr[j + 1]):
                    out[b_indices[p]] += w * b_data[p] * row[b_indices[p]]
            for p in range(a_indptr[i], a_indptr[i + 1]):
                row[a_indices[p]] = 0.0
        return out

    _pair_kernel = kernel
    return kernel


def cross_products_between(A, B, E):
    """``sum_ij E_ij a_i o b_j`` over the edges ``E`` from the rows of ``A`` to those of
    ``B``, for every column: one pair of row blocks' part of ``f^T W f``
    (:func:`graph_quadratic_forms`), float64.

    Parameters
    ----------
    A, B : scipy.sparse CSR matrices of shape (n_a, D) and (n_b, D)
    E : scipy.sparse matrix of shape (n_a, n_b)
        The edges' weights as they count in the sum (a caller summing each pair of nodes once
        passes ``2 W_ij`` for ``i != j``).

    Returns
    -------
    ndarray of shape (D,)

    Examples
    --------
    >>> A = sp.csr_matrix(np.array([[1.0, 2.0]]))
    >>> B = sp.csr_matrix(np.array([[3.0, 0.0], [1.0, 1.0]]))
    >>> cross_products_between(A, B, sp.csr_matrix(np.array([[1.0, 2.0]]))).tolist()
    [5.0, 4.0]
    """
    A, B, E = sp.csr_matrix(A), sp.csr_matrix(B), sp.csr_matrix(E)
    # numba's compilation (or loading its cache) costs about a second: large products only
    work = E.nnz * B.nnz / max(B.shape[0], 1)
    kernel = _compile_pair_kernel() if work > _NUMBA_MIN_WORK else None
    if kernel is not None:
        return kernel(A.indptr, A.indices, A.data, B.indptr, B.indices, B.data, E.indptr,
                      E.indices, E.data.astype(np.float64, copy=False), A.shape[1])
    return _edge_sums_scipy(A, B, E)

def laplacian(W, kind="unnormalized"):
    """Graph Laplacian of a symmetric non-negative affinity, with the degrees.

    With ``d = W 1`` (self-loops included) and ``D_g = diag(d)``:

    - ``"unnormalized"``: ``L = D_g - W``;
    - ``"rw"``: ``L_rw = D_g^-1 L`` (not symmetric);
    - ``"sym"``: ``L_sym = D_g^-1/2 L D_g^-1/2``.

    Parameters
    ----------
    W : ndarray or scipy.sparse matrix of shape (n, n)
    kind : {"unnormalized", "rw", "sym"}, default="unnormalized"

    Returns
    -------
    L : ndarray or scipy.sparse CSR matrix of shape (n, n)
        Dense for dense ``W``, sparse for sparse ``W``.
    d : ndarray of shape (n,)
        The degrees ``W 1`` (not their square roots).

    Raises
    ------
    ValueError
        For ``"rw"`` and ``"sym"`` when a node has degree 0 (we never divide by a zero degree
        silently; scipy's ``normed=True`` would give that node a zero row).

    Notes
    -----
    ``scipy.sparse.csgraph.laplacian`` ignores the diagonal of ``W``. For ``L`` that is
    harmless (a self-loop adds ``W_ii`` to ``d_i`` and removes it again), but self-loops do
    change ``D_g`` and hence ``L_rw`` and ``L_sym``, so the
    normalised forms are scaled here with the full degrees.

    References
    ----------
    von Luxburg (2007), "A tutorial on spectral clustering", Statistics and Computing 17,
    section 3 (definitions of ``L``, ``L_sym``, ``L_rw``).

    Examples
    --------
    >>> W = np.array([[0.0, 1.0], [1.0, 0.0]])
    >>> L, d = laplacian(W, "sym")
    >>> L
    array([[ 1., -1.],
           [-1.,  1.]])
    >>> d
    array([1., 1.])
    """
    if kind not in ("unnormalized", "rw", "sym"):
        raise ValueError(f"kind must be 'unnormalized', 'rw' or 'sym', got {kind!r}.")
    is_sparse = sp.issparse(W)
    W = sp.csr_matrix(W, dtype=np.float64, copy=True) if is_sparse else _as_float_array(W, "W")
    if W.shape[0] != W.shape[1]:
        raise ValueError(f"W must be square, got shape {W.shape}.")
    d = np.asarray(W.sum(axis=1), dtype=np.float64).ravel()
    L = csgraph.laplacian(W, normed=False)
    if kind == "unnormalized":
        return (sp.csr_matrix(L) if is_sparse else L), d
    isolated = np.flatnonzero(d <= 0)
    if isolated.size:
        raise ValueError(
            f"{isolated.size} node(s) of degree 0 (first: {isolated[0]}); the normalised "
            f"Laplacian {kind!r} is undefined."
        )
    if kind == "rw":
        scale_left, scale_right = 1.0 / d, None
    else:
        scale_left = scale_right = 1.0 / np.sqrt(d)
    if is_sparse:
        L = sp.diags(scale_left) @ sp.csr_matrix(L)
        if scale_right is not None:
            L = L @ sp.diags(scale_right)
        L = sp.csr_matrix(L)
    else:
        L = scale_left[:, None] * L
        if scale_right is not None:
            L = L * scale_right[None, :]
            # exact symmetry for eigh
            L = 0.5 * (L + L.T)
    return L, d


#: Entries within this relative distance of a vector's largest magnitude tie for deciding its
#: sign: far above the round-off of the entries of a computed eigenvector (about
#: ``eps ||A|| / gap``, below 1e-12 relative for a gap of 1e-4), so that an exact tie (two
#: samples placed symmetrically, such as the ends of a path graph) is decided by index, not by
#: which entry the BLAS kernels happened to round larger.
SIGN_TIE_RTOL = 1e-8


def canonical_sign_flip(vectors, coupled=None):
    """Flip each column of ``vectors`` so that its largest-magnitude entry is positive.

    An eigenvector (a singular vector pair) is defined only up to its sign, which LAPACK and
    ARPACK decide by round-off: it changes with the CPU's BLAS kernels and the thread count.
    This fixes it the way :func:`sklearn.utils.extmath.svd_flip` does (the sign of the entry of
    largest magnitude), rather than by the sign of the sum, which is zero for every Laplacian
    eigenvector orthogonal to the constant one. Entries within ``SIGN_TIE_RTOL`` of the largest
    magnitude are tied, and the lowest index among them decides, so that round-off cannot
    move the decision to an entry of opposite sign. Multiplying by -1 is exact: a column whose
    sign is kept comes back bit for bit.

    Parameters
    ----------
    vectors : ndarray of shape (n,) or (n, k)
        One vector, or vectors as columns (an eigen-solver's ``V``, an SVD's ``U``).
    coupled : ndarray of shape (k, m), optional
        Rows flipped together with the columns of ``vectors``: the ``Vt`` of an SVD
        ``U S Vt``, so that the product is unchanged.

    Returns
    -------
    flipped : ndarray of the shape of ``vectors``
    coupled_flipped : ndarray of shape (k, m)
        Only when ``coupled`` is given.

    Examples
    --------
    >>> canonical_sign_flip(np.array([[0.6, 0.0], [-0.8, -1.0]]))
    array([[-0.6, -0. ],
           [ 0.8,  1. ]])
    >>> canonical_sign_flip(np.array([0.5, -0.5]))  # a tie: the first entry decides
    array([ 0.5, -0.5])
    """
    V = np.asarray(vectors)
    columns = V.reshape(V.shape[0], -1)
    magnitude = np.abs(columns)
    tied = magnitude >= (1.0 - SIGN_TIE_RTOL) * magnitude.max(axis=0, initial=0.0)
    lead = np.argmax(tied, axis=0)  # the first tied entry of each column
    signs = np.where(columns[lead, np.arange(columns.shape[1])] < 0, -1.0, 1.0)
    flipped = (columns * signs).reshape(V.shape)
    if coupled is None:
        return flipped
    return flipped, np.asarray(coupled) * signs[:, None]


def subspace_basis(vectors):
    """An orthonormal basis of the span of ``vectors`` that depends on the span only.

    When eigenvalues are (nearly) repeated, as on a nearly disconnected graph, an eigen-solver
    returns any orthonormal basis of the eigenspace, and which one depends on the BLAS kernels
    and the thread count. :func:`canonical_sign_flip` cannot fix that, and a discretisation
    that is not rotation invariant (Yu & Shi's, started from one row of the basis) then lands
    in a different local optimum on another machine. This basis is Damle, Minden & Ying's
    (2019): a column-pivoted QR of ``V^T`` picks ``c`` rows of ``V`` (the pivots depend only
    on the span: the column norms and residuals are unchanged by a rotation of ``V``), and
    ``V`` is rotated by the polar factor of those rows, which makes the ``c x c`` block of the
    picked rows symmetric positive semi-definite. Any ``V R`` (``R`` orthogonal) gives the
    same result up to round-off, signs included, as long as the pivots are not tied.

    Parameters
    ----------
    vectors : ndarray of shape (n, c)
        Orthonormal columns (an eigen-solver's ``V``), ``c <= n``.

    Returns
    -------
    basis : ndarray of shape (n, c)

    References
    ----------
    Damle, Minden & Ying (2019), "Simple, direct and efficient multi-way spectral
    clustering", Information and Inference 8(1), 181-203, Algorithm 1 (its pivoted QR).

    Examples
    --------
    >>> V = np.linalg.qr(np.random.RandomState(0).rand(6, 2))[0]
    >>> R = np.array([[0.6, -0.8], [0.8, 0.6]])
    >>> bool(np.allclose(subspace_basis(V), subspace_basis(V @ R)))
    True
    """
    V = np.asarray(vectors, dtype=np.float64)
    c = V.shape[1]
    pivots = scipy.linalg.qr(V.T, mode="r", pivoting=True)[1][:c]
    U, _, Wt = np.linalg.svd(V[pivots].T)
    return V @ (U @ Wt)


def _gershgorin_bounds(A):
    """Interval that holds every eigenvalue of the symmetric matrix ``A``."""
    diag = A.diagonal()
    abs_row = np.asarray(abs(A).sum(axis=1)).ravel() - np.abs(diag)
    return float(np.min(diag - abs_row)), float(np.max(diag + abs_row))


def _extreme_eigenvectors(A, k, largest, solver, random_state):
    n = A.shape[0]
    k = int(k)
    if A.ndim != 2 or A.shape[1] != n:
        raise ValueError(f"A must be square, got shape {A.shape}.")
    if not 1 <= k <= n:
        raise ValueError(f"k={k} eigenpairs requested from a {n}-by-{n} matrix.")
    if solver not in ("auto", "dense", "arpack"):
        raise ValueError(f"solver must be 'auto', 'dense' or 'arpack', got {solver!r}.")
    if solver == "auto":
        # ARPACK pays only for large sparse matrices and a few eigenpairs
        solver = "arpack" if sp.issparse(A) and n > _DENSE_EIGH_MAX_N and k < n // 10 else "dense"
    if solver == "dense":
        A = A.toarray() if sp.issparse(A) else np.array(A, dtype=np.float64)
        subset = [n - k, n - 1] if largest else [0, k - 1]
        vals, vecs = scipy.linalg.eigh(A, subset_by_index=subset)
    else:
        A = sp.csc_matrix(A, dtype=np.float64)
        lower, upper = _gershgorin_bounds(A)
        # shift-invert just outside the spectrum: the eigenvalues nearest the shift are the
        # extreme ones, and A - sigma I stays non-singular
        margin = 1e-8 * max(abs(lower), abs(upper), np.finfo(float).tiny)
        sigma = upper + margin if largest else lower - margin
        v0 = check_random_state(random_state).uniform(-1.0, 1.0, n)
        vals, vecs = scipy.sparse.linalg.eigsh(A, k=k, sigma=sigma, which="LM", v0=v0)
        order = np.argsort(vals)
        vals, vecs = vals[order], vecs[:, order]
    if largest:
        vals, vecs = vals[::-1], vecs[:, ::-1]
    return np.ascontiguousarray(vals), canonical_sign_flip(np.ascontiguousarray(vecs))


def smallest_eigenvectors(A, k, *, solver="auto", random_state=None):
    """The ``k`` smallest eigenpairs of a symmetric matrix, in ascending order.

    Parameters
    ----------
    A : ndarray or scipy.sparse matrix of shape (n, n), symmetric
    k : int
        Number of eigenpairs, ``1 <= k <= n``.
    solver : {"auto", "dense", "arpack"}, default="auto"
        ``"dense"``: ``scipy.linalg.eigh(subset_by_index=...)``. ``"arpack"``: ``eigsh`` in
        shift-invert mode just below the Gershgorin bound of the spectrum. ``"auto"`` uses
        ARPACK only for sparse ``A`` with more than 2000 rows and ``k < n / 10``.
    random_state : int, RandomState or None, default=None
        Starting vector of ARPACK (the dense solver is deterministic).

    Returns
    -------
    eigenvalues : ndarray of shape (k,)
    eigenvectors : ndarray of shape (n, k)
        Orthonormal columns, each with its largest-magnitude entry positive
        (:func:`canonical_sign_flip`).

    Notes
    -----
    A repeated eigenvalue (e.g. 0 of a disconnected graph's Laplacian) has no unique basis; the
    solver returns one of them. Methods that must exclude the trivial eigenvector deflate it
    (eigenpairs of ``L_sym + 3 xi_0 xi_0^T``) rather than trust its position.

    References
    ----------
    ``scipy.linalg.eigh`` (``subset_by_index``) and ``scipy.sparse.linalg.eigsh`` (shift-invert);
    the sign rule is scikit-learn's ``sklearn.utils.extmath.svd_flip``, ties broken by index.

    Examples
    --------
    >>> vals, vecs = smallest_eigenvectors(np.diag([3.0, 1.0, 2.0]), 2)
    >>> vals
    array([1., 2.])
    >>> vecs
    array([[0., 0.],
           [1., 0.],
           [0., 1.]])
    """
    return _extreme_eigenvectors(A, k, False, solver, random_state)


def largest_eigenvectors(A, k, *, solver="auto", random_state=None):
    """The ``k`` largest eigenpairs of a symmetric matrix, in descending order.

    Parameters and return values are those of :func:`smallest_eigenvectors`.

    Examples
    --------
    >>> vals, vecs = largest_eigenvectors(np.diag([3.0, 1.0, 2.0]), 2)
    >>> vals
    array([3., 2.])
    """
    return _extreme_eigenvectors(A, k, True, solver, random_state)
