"""Multiclass normalized cut with Yu & Shi's discretisation (Zeng & Cheung 2008's clusterer)."""

from __future__ import annotations

from numbers import Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClusterMixin, _fit_context
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import validate_data

from ..graphs import largest_eigenvectors, subspace_basis
from .affinity import (
    CLUSTERER_PARAMETERS,
    GRAPH_PARAMETERS,
    build_affinity,
    check_n_clusters,
    graph_clusterer_tags,
    sklearn_seed,
)

#: Discretisations of the relaxed Ncut solution (``NormalizedCut(discretization=...)``).
DISCRETIZATIONS = ("sklearn", "ncutW")
#: Affinities below this are dropped by Shi's toolbox (its ``valeurMin``).
TOOLBOX_MIN_AFFINITY = 1e-6
#: What ``NormalizedCut(compute_diagnostics=True)`` reports (tag ``reported_attributes``).
DIAGNOSTICS = ("t_", "max_affinity_", "n_samples_without_affinity_", "spectrum_",
               "cluster_sizes_")


class NormalizedCut(ClusterMixin, BaseEstimator):
    """Multiclass normalized cut: spectral relaxation, then Yu & Shi's rotation discretisation.

    The top ``c`` eigenvectors ``V`` of ``D_g^-1/2 W D_g^-1/2`` give ``Z = D_g^-1/2 V``; its
    rows are scaled to unit length and an orthogonal rotation and a partition are alternately
    fitted to them (Yu & Shi 2003, section 4, at most 20 iterations). The steps are those of
    :func:`sklearn.cluster.spectral_clustering` with ``assign_labels="discretize"`` (which
    follows the authors' MATLAB toolbox); the rotation is scikit-learn's own ``discretize``,
    called, not rewritten. Only the eigensolver differs: ``eigh`` on dense graphs instead of
    ARPACK, which is ~50 times slower on the nearly disconnected graphs of Zeng & Cheung
    2008's kernel (a test checks both give the same partition).

    Parameters
    ----------
    n_clusters : int, default=8
        Number of clusters ``c``.
    affinity : {"rbf", "knn", "precomputed"}, default="rbf"
        ``"rbf"``: complete graph ``W_ij = exp(-||x_i - x_j||^2 / t)``, ``W_ii = 0``;
        ``"knn"``: symmetric kNN graph with heat weights; ``"precomputed"``: ``X`` is ``W``.
        The graph is rebuilt in ``fit`` from the columns given (``t`` recomputed on
        each feature subset, as Zeng & Cheung 2008 do).
    t : float, default=None
        Heat-kernel parameter; None: from ``t_rule`` on the given columns.
    t_rule : {"zeng2008", "cai", "median"}, default="zeng2008"
        ``"zeng2008"`` is Zeng & Cheung's ``t = 0.0025 * max_ij ||x_i - x_j||^2``.
    n_neighbors : int, default=10
        ``k`` of the kNN graph (``affinity="knn"`` only).
    offset : float, default=0.0
        Diagonal regularisation of the Cour-Yu-Shi MATLAB toolbox, which uses 0.5: ``W + offset
        I`` with degrees ``W 1 + 2 offset``. Default 0 (the paper).
    min_affinity : float, default=0.0
        Affinities below this value are set to 0 before the cut (the toolbox uses 1e-6).
    discretization : {"sklearn", "ncutW"}, default="sklearn"
        ``"sklearn"``: scikit-learn's ``discretize`` (first rotation row a random sample, at
        most 30 iterations). ``"ncutW"``: the discretisation of Shi's MATLAB code that Zeng &
        Cheung 2008 downloaded (footnote 1; ``ncutW.m`` -> ``discretisation.m``, Yu & Shi 2003):
        the first rotation row is the middle sample ``round(n/2)`` (no randomness), at most 20
        iterations, and an all-zero embedding row (an isolated sample, or affinities swamped
        by the offset) is assigned to the first cluster as MATLAB's ``max`` does instead of
        raising. The toolbox's own defaults are ``offset=0.5, min_affinity=1e-6``; they are
        separate parameters so that each can be studied alone.
    random_state : int, RandomState instance or None, default=None
        Seeds ARPACK's start vector and the first row of the rotation.
    compute_diagnostics : bool, default=False
        Also describe the graph and the partition (the attributes below marked so), as
        scikit-learn's ``AgglomerativeClustering(compute_distances=True)`` does: the graph's
        spectrum costs a full eigendecomposition, so it is computed only when asked. They are
        computed beside the cut, never inside it: the partition is the same either way.

    Attributes
    ----------
    labels_ : ndarray of shape (n_samples,)
        Consecutive labels ``0..k-1``; ``k < n_clusters`` when the discretisation leaves a
        cluster empty.
    affinity_matrix_ : ndarray or scipy.sparse matrix of shape (n_samples, n_samples)
        The graph cut (after ``min_affinity``, without the offset).
    t_ : float or None
        The heat-kernel parameter used.
    max_affinity_ : float
        With ``compute_diagnostics``: the largest affinity between two samples of the graph
        built (before ``min_affinity``).
    n_samples_without_affinity_ : int
        With ``compute_diagnostics``: samples with no affinity of at least
        :data:`TOOLBOX_MIN_AFFINITY` to any other sample (the ones the toolbox's sparsification
        isolates).
    spectrum_ : ndarray of shape (n_clusters + 1,)
        With ``compute_diagnostics``: the ``c + 1`` largest eigenvalues of
        ``D^-1/2 W D^-1/2`` of that graph, zero diagonal, no offset (:func:`ncut_spectrum`;
        NaN when a sample has zero degree).
    cluster_sizes_ : ndarray of shape (n_clusters_found,)
        With ``compute_diagnostics``: the sizes of the clusters found, largest first.
    n_features_in_ : int

    With ``compute_diagnostics``, ``t_`` and these attributes are the reported attributes
    (tag ``reported_attributes``) a sweep carries in its rows.

    Notes
    -----
    Decisions departing from the toolbox or the paper:

    - No diagonal offset by default. With Zeng & Cheung 2008's narrow kernel the
      off-diagonal affinities are as small as ``exp(-400) ~ 1e-174``, and any O(1) diagonal
      makes the normalised matrix numerically the identity. Float64 holds these values: the
      smallest possible weight under the ``"zeng2008"`` rule is ``exp(-400)``, far above the
      float64 underflow (``~1e-308``), and scipy's normalisation divides by ``sqrt(d_i)`` and
      ``sqrt(d_j)`` in turn, so no product of two tiny degrees is formed.
    - scikit-learn's Laplacian (``scipy.sparse.csgraph.laplacian``) ignores the diagonal of
      ``W``, so an offset cannot be passed to :func:`~sklearn.cluster.spectral_clustering`
      through ``W``. With ``offset > 0`` the embedding is therefore computed here
      (:func:`fsclust.graphs.largest_eigenvectors` of the toolbox's regularised matrix) and
      discretised by scikit-learn's private ``sklearn.cluster._spectral.discretize``, the very
      function :func:`~sklearn.cluster.spectral_clustering` calls (scikit-learn is pinned).
    - A sample with zero affinity to all others (possible with a user-given tiny ``t`` or
      ``min_affinity``) raises ``ValueError``: scikit-learn would only warn and cut a
      meaningless graph. With ``offset > 0``, an embedding with an all-zero row (an isolated
      sample, or affinities swamped by the offset) raises ``ValueError`` too, where the
      toolbox divides by zero.
    - When the graph is nearly disconnected (eigenvalues of ``L_sym`` below ~1e-15, as with
      the narrow kernel), the near-null eigenvectors are determined only up to a rotation,
      which ARPACK and ``eigh`` choose by round-off (it changes with the CPU's BLAS kernels
      and the thread count). Yu & Shi's discretisation is not rotation invariant here: it
      scales each column of ``D^-1/2 V`` to one norm before its rotation search, and those
      columns are not orthogonal. So ``V`` is first replaced by the span's own basis
      (:func:`fsclust.graphs.subspace_basis`, Damle, Minden & Ying 2019), which any rotation
      of ``V`` gives alike; only the choice among more than ``c`` near-null directions
      remains arbitrary.
    - With ``offset == 0`` a diagonal of a precomputed ``W`` is ignored (as scikit-learn does);
      with ``offset > 0`` it is kept and counts in the degrees, as in the toolbox.
    - Labels are renumbered to be consecutive.
    - Shi's code as run by Zeng & Cheung 2008 (``discretization="ncutW", offset=0.5,
      min_affinity=1e-6``) was tried on their gene sets at their ``t``: no affinity there
      exceeds 1e-6 (LEUKEMIA's largest is ~1e-26; on MULTITISSUE one near-duplicate pair
      does), the sparsified graph is (almost) empty and ncutW
      returns one cluster of 38 (LEUKEMIA), 194 + 1 + 1 + 1 (LUNG substitute), 99 + 1 + 1 + 1
      (MULTITISSUE), 243 + five singletons (ST.LEUKEMIA), ACC 0.71 / 0.71 / 0.28 / 0.30; our
      default gives 21 + 17, 173 + 17 + 4 + 3, 75 + 26 + 1 and 247 + 1, ACC 0.74 / 0.78 /
      0.51 / 0.32 (seed 0): no better than chance on most sets, but not worse, so the
      default stays.

    References
    ----------
    Shi & Malik (2000), "Normalized cuts and image segmentation", IEEE TPAMI 22;
    Yu & Shi (2003), "Multiclass spectral clustering", ICCV, section 4 (discretisation);
    Zeng & Cheung (2008), PRICAI, LNAI 5351 (kernel and ``t``).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0, 0.0], [0.1, 0.0], [0.0, 0.1], [5.0, 5.0], [5.1, 5.0], [5.0, 5.1]])
    >>> labels = NormalizedCut(n_clusters=2, random_state=0).fit_predict(X)
    >>> bool(len(set(labels[:3])) == len(set(labels[3:])) == 1 and labels[0] != labels[3])
    True
    """

    _parameter_constraints: dict = {
        **CLUSTERER_PARAMETERS,
        **GRAPH_PARAMETERS,
        "offset": [Interval(Real, 0, None, closed="left")],
        "min_affinity": [Interval(Real, 0, None, closed="left")],
        "discretization": [StrOptions(set(DISCRETIZATIONS))],
        "compute_diagnostics": ["boolean"],
    }

    def __init__(
        self, n_clusters=8, *, affinity="rbf", t=None, t_rule="zeng2008", n_neighbors=10,
        offset=0.0, min_affinity=0.0, discretization="sklearn", random_state=None,
        compute_diagnostics=False,
    ):
        self.n_clusters = n_clusters
        self.affinity = affinity
        self.t = t
        self.t_rule = t_rule
        self.n_neighbors = n_neighbors
        self.offset = offset
        self.min_affinity = min_affinity
        self.discretization = discretization
        self.random_state = random_state
        self.compute_diagnostics = compute_diagnostics

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None, *, sq_distances=None):
        """Cluster the samples.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), or (n_samples, n_samples)
            Features, or the affinity when ``affinity="precomputed"``.
        y : Ignored
        sq_distances : array-like of shape (n_samples, n_samples), default=None
            The squared Euclidean distances between the rows of ``X``, when the caller already
            has them (``affinity="rbf"`` only): the graph and the bandwidth rule are then
            computed from them instead of from ``X``, and the same distances give the same
            result as ``fit(X)``, which computes ``fsclust.graphs.squared_distances(X)``. A
            sweep over feature subsets accumulates them (:func:`fsclust.steps.sweep.run_sweep`).

        Returns
        -------
        self : NormalizedCut
        """
        precomputed = self.affinity == "precomputed"
        X = validate_data(
            self, X, dtype=np.float64, ensure_min_samples=2,
            accept_sparse=["csr", "csc", "coo"] if precomputed else False,
        )
        check_n_clusters(self.n_clusters, X.shape[0])
        ncutw = self.discretization == "ncutW"
        rng = check_random_state(self.random_state)
        W, self.t_ = build_affinity(X, self.affinity, self.t, self.t_rule, self.n_neighbors,
                                     sq_distances=sq_distances)
        if self.compute_diagnostics:
            self._describe_graph(W)
        if self.min_affinity > 0:
            W = _sparsify(W, self.min_affinity)
        if self.offset == 0 and not ncutw:
            # scikit-learn's Laplacian ignores the diagonal, so the isolation test must too
            degree = np.asarray(_without_diagonal(W).sum(axis=1)).ravel()
            isolated = np.flatnonzero(degree <= 0)
            if isolated.size:
                raise ValueError(
                    f"{isolated.size} sample(s) have zero affinity to all others (first: "
                    f"{isolated[0]}); the cut is undefined. Use a larger t or more neighbours."
                )
            # Same steps as sklearn's spectral_clustering(assign_labels="discretize") (which
            # ignores the diagonal too), but with a dense eigensolver for small graphs: ARPACK
            # needs ~1.5 s on a 361-node graph of Zeng & Cheung 2008's narrow kernel, eigh 30 ms.
            labels = _ncut_labels(_without_diagonal(W), self.n_clusters, 0.0, rng)
        elif ncutw:
            # the toolbox keeps a precomputed diagonal in W and in the degrees
            W_cut = W if self.affinity == "precomputed" else _without_diagonal(W)
            labels = _ncut_labels(W_cut, self.n_clusters, self.offset, rng, ncutw=True)
        else:
            labels = _ncut_labels(W, self.n_clusters, self.offset, rng)
        # discretisation may leave a cluster empty; renumber 0..k-1
        self.labels_ = np.unique(labels, return_inverse=True)[1].astype(np.intp).ravel()
        self.affinity_matrix_ = W
        if self.compute_diagnostics:
            self.cluster_sizes_ = np.sort(np.bincount(self.labels_))[::-1]
        return self

    def _describe_graph(self, W):
        """The graph attributes of ``compute_diagnostics``, from the graph before the cut."""
        W = _without_diagonal(W)
        W = W.toarray() if sp.issparse(W) else W
        self.max_affinity_ = float(W.max())
        self.n_samples_without_affinity_ = int(np.sum(W.max(axis=1) < TOOLBOX_MIN_AFFINITY))
        try:
            self.spectrum_ = ncut_spectrum(W, self.n_clusters + 1)
        except ValueError:  # a sample of zero degree: the Ncut matrix is undefined
            self.spectrum_ = np.full(self.n_clusters + 1, np.nan)

    def __sklearn_tags__(self):
        tags = graph_clusterer_tags(super().__sklearn_tags__(), self.affinity)
        tags.reported_attributes = DIAGNOSTICS if self.compute_diagnostics else ()
        return tags


def _sparsify(W, threshold):
    if sp.issparse(W):
        W = sp.csr_matrix(W, copy=True)
        W.data[W.data < threshold] = 0.0
        W.eliminate_zeros()
        return W
    return np.where(W < threshold, 0.0, W)


def _without_diagonal(W):
    if sp.issparse(W):
        W = sp.csr_matrix(W, copy=True)
        W.setdiag(0.0)
        W.eliminate_zeros()
        return W
    W = W.copy()
    np.fill_diagonal(W, 0.0)
    return W


def ncut_spectrum(W, n_eigenvalues, offset=0.0):
    """Largest eigenvalues of the Ncut matrix ``D'^-1/2 (W + offset I) D'^-1/2``, descending.

    ``D' = diag(W 1) + 2 offset I`` (the toolbox's regularisation; offset 0: the plain
    ``D^-1/2 W D^-1/2``, whose eigenvalue 1 has the multiplicity of the number of connected
    components of the graph). The diagonal of ``W`` is used as given. A diagnostic of how
    nearly disconnected a graph is: ``1 - lambda_k`` is the relaxed Ncut value of the k-th
    direction and ``lambda_c - lambda_{c+1}`` the eigen-gap after ``c`` clusters.

    Examples
    --------
    >>> W = np.kron(np.eye(2), np.ones((3, 3))) - np.eye(6)   # two disjoint triangles
    >>> np.round(ncut_spectrum(W, 3), 6)
    array([ 1. ,  1. , -0.5])
    """
    W = W.toarray() if sp.issparse(W) else np.asarray(W, dtype=np.float64)
    d = W.sum(axis=1) + 2.0 * offset
    if np.any(d <= 0):
        raise ValueError(
            f"{int(np.sum(d <= 0))} node(s) have zero degree; the Ncut matrix is undefined. "
            "Use offset > 0 or a larger t."
        )
    inv = 1.0 / np.sqrt(d)
    M = inv[:, None] * (W + offset * np.eye(W.shape[0])) * inv[None, :]
    vals = np.linalg.eigvalsh(0.5 * (M + M.T))[::-1]
    return vals[:n_eigenvalues]


def _ncut_labels(W, n_clusters, offset, rng, ncutw=False):
    """Embedding ``Z = D'^-1/2 V`` and Yu & Shi's discretisation (scikit-learn's ``discretize``).

    With the toolbox's offset, ``D' = D_g + 2 offset I`` and ``W' = W + offset I``; as in the
    toolbox, the degrees ``D_g = diag(W 1)`` include any diagonal of ``W``. With offset 0 this is
    what :func:`sklearn.cluster.spectral_clustering` computes, with a dense eigensolver for
    small graphs instead of ARPACK. ``ncutw``: the toolbox's discretisation
    (:func:`discretize_ncutw`), which also accepts all-zero embedding rows.
    """
    from sklearn.cluster._spectral import discretize

    d = np.asarray(W.sum(axis=1)).ravel() + 2.0 * offset
    if ncutw:
        # ncut.m: Dinvsqrt = 1./sqrt(d+eps), so an isolated node without offset gets 1/sqrt(eps)
        inv_sqrt_d = 1.0 / np.sqrt(d + np.finfo(float).eps)
    else:
        inv_sqrt_d = 1.0 / np.sqrt(d)
    if sp.issparse(W):
        M = sp.diags(inv_sqrt_d) @ (W + offset * sp.identity(W.shape[0])) @ sp.diags(inv_sqrt_d)
        M = sp.csr_matrix(M)
    else:
        M = inv_sqrt_d[:, None] * (W + offset * np.eye(W.shape[0])) * inv_sqrt_d[None, :]
        M = 0.5 * (M + M.T)
    _, V = largest_eigenvectors(M, n_clusters, random_state=sklearn_seed(rng))
    # Both discretisations scale the columns of D^-1/2 V to one norm first, which is not
    # rotation invariant, and on a nearly disconnected graph the eigen-solver's basis of the
    # top eigenspace depends on the machine (BLAS kernels, threads); the span's own does not
    Z = subspace_basis(V) * inv_sqrt_d[:, None]
    if ncutw:
        return discretize_ncutw(Z)
    # An offset much larger than the affinities makes M the identity times a constant to
    # machine precision: its eigenvectors are then arbitrary and can miss samples entirely.
    # The toolbox would divide by zero here; we say why instead.
    zero_rows = np.flatnonzero(np.linalg.norm(Z, axis=1) <= 1e-12 * np.abs(Z).max())
    if zero_rows.size and offset > 0:
        raise ValueError(
            f"The offset={offset} swamps the affinities: {zero_rows.size} sample(s) (first: "
            f"{zero_rows[0]}) have an all-zero embedding, so the cut is undefined. Use a "
            "smaller offset, a larger t, or offset=0."
        )
    if zero_rows.size:
        # Without an offset this happens only when a sample lies in none of the top-c
        # near-disconnected components (narrow kernels): it has no direction to be assigned by,
        # so give it a uniform row, which the rotation assigns to one cluster. scikit-learn
        # would divide by zero and assign it from NaNs.
        Z[zero_rows] = np.abs(Z).max() * 1e-6
    return discretize(Z, random_state=sklearn_seed(rng))


def discretize_ncutw(Z, max_iter=20):
    """Yu & Shi's discretisation as in Shi's MATLAB toolbox (``ncut.m`` + ``discretisation.m``).

    The relaxed solution ``Z`` (n x c) is scaled column-wise to norm ``sqrt(n)`` with a
    non-positive first entry (``ncut.m``), its rows to unit length (``+eps``: a zero row stays
    zero). The rotation ``R`` starts from the row of the middle sample ``round(n/2)`` (MATLAB's
    1-based index, halves rounded up) and then, column by column, the row least aligned with
    the columns already chosen; then partition ``X = argmax(Z R)`` and rotation ``R = V U'``
    from the SVD ``U S V' = X' Z`` alternate until the Ncut value ``2 (n - trace S)`` stops
    changing (``< eps``) or after ``max_iter`` + 1 evaluations (Yu & Shi 2003, Sec. 4). Ties
    and zero rows go to the first cluster (MATLAB's ``max``). Deterministic.

    Parameters
    ----------
    Z : ndarray of shape (n_samples, n_clusters)
    max_iter : int, default=20
        The toolbox's ``nbIterationsDiscretisationMax``.

    Returns
    -------
    labels : ndarray of shape (n_samples,)

    Examples
    --------
    >>> Z = np.array([[1.0, 0.1], [0.9, 0.0], [0.0, 1.0], [0.1, 0.8]])
    >>> discretize_ncutw(Z).tolist()
    [0, 0, 1, 1]
    """
    Z = np.array(Z, dtype=np.float64, copy=True)
    n, k = Z.shape
    eps = np.finfo(float).eps
    norms = np.linalg.norm(Z, axis=0)
    norms[norms == 0] = 1.0
    Z = Z / norms * np.sqrt(n)
    flip = Z[0] != 0
    Z[:, flip] = -Z[:, flip] * np.sign(Z[0, flip])
    Z = Z / (np.linalg.norm(Z, axis=1, keepdims=True) + eps)
    R = np.zeros((k, k))
    R[:, 0] = Z[int(np.floor(n / 2 + 0.5)) - 1]  # MATLAB round(n/2), 1-based
    c = np.zeros(n)
    for j in range(1, k):
        c += np.abs(Z @ R[:, j - 1])
        R[:, j] = Z[np.argmin(c)]
    last = 0.0
    for n_iter in range(1, max_iter + 2):
        labels = np.argmax(Z @ R, axis=1)
        X = np.zeros((n, k))
        X[np.arange(n), labels] = 1.0
        # no canonical sign needed: R = V U^T is unchanged when a pair (u_i, v_i) flips
        U, S, Vt = np.linalg.svd(X.T @ Z)
        value = 2.0 * (n - S.sum())
        if abs(value - last) < eps or n_iter > max_iter:
            break
        last = value
        R = Vt.T @ U.T
    return labels
