"""Leiden clustering of a kNN graph (Traag, Waltman & van Eck 2019), the clustering of
single-cell analysis at scale (scanpy's ``tl.leiden``), through leidenalg and igraph."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

__all__ = ["leiden_labels"]


def leiden_labels(W, resolution=1.0, random_state=0, n_iterations=-1):
    """Labels of the Leiden partition of the graph ``W`` that maximises the modularity with
    a ``resolution`` (leidenalg's ``RBConfigurationVertexPartition``, as scanpy's
    ``tl.leiden``), numbered canonically: cluster 0 is the largest, ties by the first cell.

    The number of clusters is the partition's, not given: at 10^5 cells and more it is the
    label-free K of single-cell analysis. Deterministic for a seed.

    Parameters
    ----------
    W : scipy.sparse matrix of shape (n, n)
        Symmetric non-negative weights (a kNN graph, :func:`fsclust.graphs.pca_knn_graph`).
    resolution : float, default=1.0
        Larger: more, smaller clusters.
    random_state : int, default=0
    n_iterations : int, default=-1
        leidenalg's iterations; -1 until the partition no longer changes.

    Returns
    -------
    labels : ndarray of shape (n,), int

    Examples
    --------
    >>> W = sp.block_diag([np.ones((3, 3)) - np.eye(3), np.ones((2, 2)) - np.eye(2)])
    >>> leiden_labels(sp.csr_matrix(W)).tolist()
    [0, 0, 0, 1, 1]
    """
    try:
        import igraph
        import leidenalg
    except ImportError:
        raise ImportError("Leiden clustering needs leidenalg and igraph; install them: "
                          "pip install 'fsclust[singlecell]'") from None
    upper = sp.triu(sp.csr_matrix(W), k=1, format="coo")
    n = W.shape[0]
    graph = igraph.Graph(n=n, edges=np.column_stack([upper.row, upper.col]).tolist(),
                         directed=False)
    graph.es["weight"] = upper.data.astype(float).tolist()
    partition = leidenalg.find_partition(
        graph, leidenalg.RBConfigurationVertexPartition, weights="weight",
        resolution_parameter=float(resolution), seed=int(random_state),
        n_iterations=int(n_iterations))
    raw = np.asarray(partition.membership)
    sizes = np.bincount(raw)
    first = np.full(sizes.size, n)
    np.minimum.at(first, raw, np.arange(n))
    order = np.lexsort((first, -sizes))  # largest first, then by first cell
    canonical = np.empty(sizes.size, dtype=np.intp)
    canonical[order] = np.arange(sizes.size)
    return canonical[raw]
