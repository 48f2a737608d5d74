"""Benchmark suite: every ranker and clusterer, on mirrored data sets and synthetic sizes.

Usage: python speed/suite.py [--quick] [--out results/speed] [--repeats R]
                                  [--methods NAME ...] [--clusterers NAME ...] [--no-peers]
                                  [--budget SECONDS]

One process, one BLAS thread (``threadpoolctl``). Each case fits the estimator ``repeats`` times
(wall time by ``time.perf_counter``: median, min, max) and once more under ``tracemalloc`` for
the peak of Python/NumPy allocations (MB). Beside each case, the method's dominant dense
linear-algebra kernel on the same data (its name, its flop count, its own median time) and the
ratio of the method's time to it: how far the method is from the bound that kernel sets.

Synthetic data: ``n`` samples in 3 Gaussian clusters carried by 10% of ``d`` features (seed 0),
on two axes: ``n`` in ``N_GRID`` at ``d = D_FIXED`` (4000: ``n = d`` is degenerate for UFF) and ``d`` in ``D_GRID`` at ``n = N_FIXED``.
A method whose previous size on an axis took more than ``--budget`` seconds skips the larger
sizes (written as ``skipped``). The exponents of time against ``n`` and against ``d`` are fitted
by least squares on log-log (the largest three sizes timed), beside the exponents of the
complexity derived for the method (``COMPLEXITY``).

Peers: scikit-feature's maintained fork (``skfeature-chappers``, ``pip install -e .[bench]``):
the Laplacian score, SPEC (phi2) and MCFS from the data matrix to the scores, graph
construction included, with the same graph parameters (the recipe of tests/test_skfeature.py),
on the mirrored TOX-171 and warpPIE10P, each in C (row) and F (column) memory order; ours and
theirs alternate in the same process, and the table says whether the rankings agree on the
features with distinct scores. Two more rows time the Laplacian score and MCFS with both
sides at their own defaults (different graphs and regressions: speed only).

Writes into ``--out``: ``suite_timings.tsv``, ``suite_exponents.tsv``, ``suite_peers.tsv`` and
``suite_loglog_n.png``, ``suite_loglog_d.png``. ``--quick`` runs tiny sizes, one repeat, a few
methods and no mirrored data (a smoke test: tests/test_speed_suite.py). The Snakemake target
``snakemake --cores 1 speed`` (workflow/rules/speed.smk) runs the full suite.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import tracemalloc
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from fsclust.rankers.base import distinct_features  # noqa: E402
from fsclust.registry import make_clusterer, make_ranker, method_names  # noqa: E402

N_GRID = [100, 200, 400, 800, 2000]
D_GRID = [1000, 2000, 5000, 10000, 20000]
N_FIXED, D_FIXED = 200, 4000  # d > n everywhere on the n axis (n = d is degenerate for UFF)
QUICK_N_GRID, QUICK_D_GRID, QUICK_N_FIXED, QUICK_D_FIXED = [40, 80], [60, 120], 40, 60
N_CLUSTERS = 3

# params that keep every method on its paper's default but bounded in time
RANKER_PARAMS = {
    "variance": {},
    "laplacian": {},
    "spec": {},
    "mcfs": {"n_nonzero_coefs": 50},
    "uff": {},
    "kernel_weighting": {"max_iter": 10},
    "pca": {},
    "gha": {"n_epochs": 20},
    "fsfs": {},
    "frmv": {"n_partitions": 20},
    "frcm": {"n_partitions": 20},
    "qalpha": {"max_iter": 20},
    "llcfs": {"max_iter": 10},
    "evsfsc": {},
    "kpkmeans": {"max_outer": 5},
    # the peers (issue 26): UDFS at FSASL's fixed 20 reweightings; NDFS and RUFS bounded like
    # the other iterative methods (their kernels count the iterations actually run)
    "udfs": {"max_iter": 20},
    "ndfs": {"max_iter": 50},
    "rufs": {"max_iter": 5},
    "inffs": {},
    # join by name once registered (main() times only registered methods)
    "jelsr": {"max_iter": 20},
    "sogfs": {},
}
CLUSTERER_PARAMS = {name: {} for name in ["kmeans", "ncut", "njw", "spectral-rw",
                                          "spectral-unnormalized", "kernel_kmeans", "llc"]}
QUICK_METHODS = ["variance", "laplacian", "spec", "mcfs", "uff", "kernel_weighting"]
QUICK_CLUSTERERS = ["kmeans", "njw"]

# Derived complexity: exponents of (n, d) in the leading term, and the dominant dense kernel
# (name, in KERNELS). "X X^T" is the Gram/distance product every graph method
# starts with; the per-feature kernels of Zeng & Cheung are d exponentials of n x n.
def _gram(X):
    return X @ X.T


def _cov(X):
    return X.T @ X


def _colstats(X):
    return X.var(axis=0)


def _feature_kernels(X, block=64):
    n, d = X.shape
    total = 0.0
    for a in range(0, d, block):
        cols = X[:, a:a + block].T
        K = cols[:, :, None] - cols[:, None, :]
        np.square(K, out=K)
        np.negative(K, out=K)
        np.exp(K, out=K)
        total += float(K.sum())
    return total


def _svd(X):
    return np.linalg.svd(X, compute_uv=False)


# MCFS: K lasso paths of L_k steps. Gram-free paths (D > 4096): each step multiplies the
# active columns' equiangular vector u by X^T (n x D). On the Gram matrix X^T X formed once
# (D <= 4096): each step reads the active rows G_A (|A| x D) against the direction, |A| about
# d / 2 on average over a path that grows to d non-zeros. The kernel is that product per
# step, plus the Gram matrix.
def _mcfs_whole_gram(d):
    from fsclust.rankers.mcfs import _on_whole_gram  # the ranker's own switch

    return _on_whole_gram(d)


def _mcfs_steps(est):
    return int(np.sum(getattr(est, "path_steps_", 0)))


def _mcfs_active(n, d, est):
    """Rows of the per-step product: n (X^T u) or the mean active set (G_A^T w)."""
    if not _mcfs_whole_gram(d):
        return n
    return max(1, min(d, int(getattr(est, "n_nonzero_coefs", None) or 50)) // 2)


def _mcfs_flops(n, d, est):
    return (2 * _mcfs_active(n, d, est) * d * _mcfs_steps(est)
            + (2 * n * d * d if _mcfs_whole_gram(d) else 0))


def _mcfs_paths(X, est):
    n, d = X.shape
    A = np.ones((_mcfs_active(n, d, est), d))
    u = np.ones(A.shape[0])
    if _mcfs_whole_gram(d):
        X.T @ X
    for _ in range(_mcfs_steps(est)):
        A.T @ u


def _oja_updates(X, est):
    # GHA (Maldonado et al.'s Sanger/Oja rule) is sequential by definition: one update per
    # sample, w <- w + a y (x - y w) with y = w.x, four passes over a d-vector; its kernel is
    # n_iter_ epochs of them
    w = np.full(X.shape[1], 1.0 / np.sqrt(X.shape[1]))
    for _ in range(int(getattr(est, "n_iter_", 1))):
        for x in X:
            y = w @ x
            w += (1e-9 * y) * (x - y * w)


def _oja_flops(n, d, est):
    return 8 * n * d * int(getattr(est, "n_iter_", 1))


def _kmeans_ensemble(X, est):
    # FRMV and FRCM are built on T single-start k-means of random feature halves
    # (Zhang et al. 2012, Algorithm 1, lines 1-7): the same ensemble, by the same function
    from fsclust.cluster.consensus import random_subspace_ensemble

    random_subspace_ensemble(X, est.ensemble_.shape[0], max_clusters=est.max_clusters,
                             max_iter=est.max_iter, random_state=0)


def _kmeans_ensemble_flops(n, d, est):
    # an upper bound: every partition at the largest iteration count, 2 n k (d / 2) each
    ks = np.array([len(np.unique(labels)) for labels in est.ensemble_])
    return int(2 * n * (d // 2) * ks.sum() * max(1, int(getattr(est, "n_iter_", 1))))


def _pair_feature_sqrts(X, block=2**22):
    # FRCM's ARImm (eq. (7) of Zhang et al.): sqrt(1 - (x_ij - x_lj)^2 / ||x_i - x_l||^2) for
    # every pair i < l and feature j, elementwise (no product form): n (n - 1) / 2 d roots
    n, d = X.shape
    total = n * (n - 1) // 2 * d
    buf = np.random.RandomState(0).random_sample(min(total, block))
    for start in range(0, total, buf.size):
        np.sqrt(buf[:min(buf.size, total - start)])


def _frcm_kernel(X, est):
    _kmeans_ensemble(X, est)
    _pair_feature_sqrts(X)


def _frcm_flops(n, d, est):
    return _kmeans_ensemble_flops(n, d, est) + n * (n - 1) // 2 * d


def _evsfsc_products(X, est):
    # EVSFSC's sensitivities (Jiang & Ren 2011, Theorems 3-5, in product form): per block of
    # features S X_b and S X_b^2, then four (n, n) @ (n, b) products per scored eigenvector
    S = np.ones((X.shape[0], X.shape[0])) / X.shape[0]
    for _ in range(2 + 4 * int(est.n_clusters)):
        S @ X


def _evsfsc_flops(n, d, est):
    return (2 + 4 * int(est.n_clusters)) * 2 * n * n * d


def _kpkmeans_products(X, est):
    # KP-Kmeans (Maldonado et al. 2015), per gradient step: the anisotropic kernel's
    # distances (X diag(v)) (X diag(v))^T and the gradient's W X (eq. (20) in product form)
    W = np.ones((X.shape[0], X.shape[0])) / X.shape[0]
    for _ in range(max(1, int(est.n_iter_))):
        X @ X.T
        W @ X


def _kpkmeans_flops(n, d, est):
    return max(1, int(est.n_iter_)) * 4 * n * n * d


def _lloyd_products(X, est):
    # k-means (scikit-learn's Lloyd iterations): per iteration the distances to the k
    # centres, X C^T; n_init runs of about n_iter_ iterations each (n_iter_ is the kept run's)
    C = X[: est.n_clusters].T.copy()
    for _ in range(int(est.n_init) * max(1, int(est.n_iter_))):
        X @ C


def _lloyd_flops(n, d, est):
    return int(est.n_init) * max(1, int(est.n_iter_)) * 2 * n * int(est.n_clusters) * d


def _reweighted_products(X, est):
    # UDFS, NDFS, JELSR, SOGFS with d > n (spec methods-peers 0.4): each reweighting of the
    # l2,1 norm forms one n x n matrix X E X^T (NDFS's and JELSR's push-through ridge; UDFS's
    # U^T E U with U = X^T R, r <= n - 1 columns) and factors it
    e = np.ones(X.shape[1])
    for _ in range(max(1, int(getattr(est, "n_iter_", 1)))):
        (X * e) @ X.T


def _reweighted_flops(n, d, est):
    return max(1, int(getattr(est, "n_iter_", 1))) * 2 * n * n * d


def _pca_axis_product(X):
    # the first principal axis from the smaller cross-product matrix (rankers/pca.py)
    return X @ X.T if X.shape[0] <= X.shape[1] else X.T @ X


# name: (flops(n, d, fitted estimator), callable(X, fitted estimator))
KERNELS = {
    "X X^T": (lambda n, d, est: 2 * n * n * d, lambda X, est: _gram(X)),
    "X^T X": (lambda n, d, est: 2 * n * d * d, lambda X, est: _cov(X)),
    "column moments": (lambda n, d, est: 3 * n * d, lambda X, est: _colstats(X)),
    "d exp(n x n)": (lambda n, d, est: n * n * d, lambda X, est: _feature_kernels(X)),
    "svd(X)": (lambda n, d, est: 4 * n * d * min(n, d), lambda X, est: _svd(X)),
    "min(X X^T, X^T X)": (lambda n, d, est: 2 * min(n, d) ** 2 * max(n, d),
                          lambda X, est: _pca_axis_product(X)),
    "lasso path products": (_mcfs_flops, _mcfs_paths),
    "Oja updates": (_oja_flops, _oja_updates),
    "k-means ensemble": (_kmeans_ensemble_flops, _kmeans_ensemble),
    "k-means ensemble + pair-feature roots": (_frcm_flops, _frcm_kernel),
    "(2 + 4c) products S X": (_evsfsc_flops, _evsfsc_products),
    "steps x (X X^T, W X)": (_kpkmeans_flops, _kpkmeans_products),
    "Lloyd iterations X C^T": (_lloyd_flops, _lloyd_products),
    "iters x X E X^T": (_reweighted_flops, _reweighted_products),
}
COMPLEXITY = {  # method: (n exponent, d exponent, leading term, kernel)
    "variance": (1, 1, "n d", "column moments"),
    "laplacian": (2, 1, "n^2 d (distances, X^T L X)", "X X^T"),
    "spec": (2, 1, "2 n^2 d (distances, W X)", "X X^T"),
    "mcfs": (2, 1, "n^2 d graph + K L n d lasso steps (+ D^2 n Gram, D <= 4096)",
             "lasso path products"),
    "uff": (2, 1, "n^3 + n^2 d (eigh, U^T X) + n d Q quadrature", "X X^T"),
    "kernel_weighting": (2, 1, "iters x n^2 d (d kernels per pass)", "d exp(n x n)"),
    "pca": (2, 1, "min(n, d)^2 max(n, d) (cross-product) + min(n, d)^3 (eigh)",
            "min(X X^T, X^T X)"),
    "gha": (1, 1, "epochs n d (sequential updates)", "Oja updates"),
    "fsfs": (1, 2, "n d^2 (feature similarities)", "X^T X"),
    "frmv": (1, 1, "partitions x iters x n k d (k-means) + partitions x n d",
             "k-means ensemble"),
    "frcm": (2, 1, "partitions x iters x n k d (k-means) + n^2 d / 2 roots (ARImm)",
             "k-means ensemble + pair-feature roots"),
    "qalpha": (2, 2, "iters x (n^2 d + d^2 n)", "X^T X"),
    "llcfs": (2, 1, "iters x n^2 d", "X X^T"),
    "evsfsc": (2, 1, "(2 + 4c) n^2 d products + n^3 (eigh)", "(2 + 4c) products S X"),
    "kpkmeans": (2, 1, "steps x 2 n^2 d (kernel distances, gradient) + rounds x kernel k-means",
                 "steps x (X X^T, W X)"),
    "udfs": (2, 1, "n k^2 d (local Gram) + iters x (d r^2 + r^3 + Lanczos d r), r <= n - 1 "
             "(d > n; dense d^3 per iteration when d <= n)", "iters x X E X^T"),
    "ndfs": (2, 1, "n^2 d (graph) + iters x (n^2 d + n^3) (push-through ridge, d > n)",
             "iters x X E X^T"),
    "rufs": (2, 1, "n^2 d + n^3 (k-means and ridge start) + iters x evaluations x 4 n d c "
             "(L-BFGS blocks)", "X X^T"),
    "inffs": (1, 2, "n d^2 (Spearman correlations) + (power + CG) x d^2 matvecs", "X^T X"),
    "jelsr": (2, 1, "n^2 d (graph) + iters x (n^2 d + n^3) (push-through ridge, d > n)",
              "iters x X E X^T"),
    "sogfs": (2, 1, "outer x inner x UDFS step (d r^2 + r^3 + Lanczos d r)",
              "iters x X E X^T"),
    "kmeans": (1, 1, "n_init x iters x n k d", "Lloyd iterations X C^T"),
    "ncut": (2, 1, "n^2 d + n^3 (eigh)", "X X^T"),
    "njw": (2, 1, "n^2 d + n^3 (eigh)", "X X^T"),
    "spectral-rw": (2, 1, "n^2 d + n^3 (eigh)", "X X^T"),
    "spectral-unnormalized": (2, 1, "n^2 d + n^3 (eigh)", "X X^T"),
    "kernel_kmeans": (2, 1, "n^2 d + iters n^2", "X X^T"),
    "llc": (2, 1, "n^2 d + n^3", "X X^T"),
}
PEER_DATASETS = {"TOX-171": "skfeature/TOX-171.mat", "warpPIE10P": "skfeature/warpPIE10P.mat"}


def synthetic(n, d, seed=0):
    """``n`` samples in ``N_CLUSTERS`` Gaussian clusters on 10% of ``d`` features."""
    rng = np.random.RandomState(seed)
    labels = np.arange(n) % N_CLUSTERS
    X = rng.randn(n, d)
    relevant = max(1, d // 10)
    X[:, :relevant] += 3.0 * rng.randn(N_CLUSTERS, relevant)[labels]
    return X


def _timed(fn, repeats):
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return times


def _peak_mb(fn):
    tracemalloc.start()
    try:
        fn()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak / 2**20


def _make(kind, name):
    if kind == "ranker":
        return make_ranker(name, RANKER_PARAMS.get(name, {}), n_clusters=N_CLUSTERS,
                           random_state=0)
    return make_clusterer(name, CLUSTERER_PARAMS.get(name, {}), n_clusters=N_CLUSTERS,
                          random_state=0)


def run_case(kind, name, X, dataset, repeats, axis):
    """One row: the method's times and peak memory, its kernel's time, and their ratio."""
    n, d = X.shape
    n_exp, d_exp, term, kernel = COMPLEXITY.get(name, (np.nan, np.nan, "", "X X^T"))
    flops, kernel_fn = KERNELS[kernel]

    fitted = []

    def fit():
        est = _make(kind, name)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est.fit(X)
        fitted[:] = [est]

    times = _timed(fit, repeats)
    peak = _peak_mb(fit)
    est = fitted[0]
    ktimes = _timed(lambda: kernel_fn(X, est), max(3, repeats))
    med, kmed = statistics.median(times), statistics.median(ktimes)
    return {"kind": kind, "method": name, "dataset": dataset, "axis": axis, "n": n, "d": d,
            "repeats": repeats, "median_s": med, "min_s": min(times), "max_s": max(times),
            "peak_mb": peak, "expected": term, "kernel": kernel,
            "kernel_flops": flops(n, d, est),
            "kernel_s": kmed, "ratio_to_kernel": med / kmed if kmed > 0 else np.nan,
            "status": "ok"}


def _skipped(kind, name, dataset, axis, n, d, why):
    return {"kind": kind, "method": name, "dataset": dataset, "axis": axis, "n": n, "d": d,
            "status": f"skipped: {why}"}


def fit_exponents(timings):
    """Least-squares slope of log(median time) against log(n) and log(d) per method (the
    largest three sizes timed on each axis), beside the derived exponents."""
    rows = []
    if timings.empty:
        return pd.DataFrame(rows)
    ok = timings[timings["status"] == "ok"]
    for (kind, name), group in ok.groupby(["kind", "method"], sort=False):
        n_exp, d_exp, term, _ = COMPLEXITY.get(name, (np.nan, np.nan, "", ""))
        for axis, expected in (("n", n_exp), ("d", d_exp)):
            g = group[group["axis"] == axis].sort_values(axis).tail(3)
            fitted = (np.polyfit(np.log(g[axis].astype(float)), np.log(g["median_s"]), 1)[0]
                      if len(g) >= 2 else np.nan)
            rows.append({"kind": kind, "method": name, "axis": axis, "sizes": len(g),
                         "fitted_exponent": fitted, "expected_exponent": expected,
                         "expected_term": term})
    return pd.DataFrame(rows)


def _load_mirrored(rel):
    import scipy.io

    mirror = Path(os.environ.get("FSCLUST_MIRROR", REPO.parent / "shared" / "data"))
    path = mirror / rel
    if not path.is_file():
        return None
    return np.asarray(scipy.io.loadmat(path)["X"], dtype=np.float64)


def _same_order(ours_order, theirs_order, features):
    a = ours_order[np.isin(ours_order, features)]
    b = np.asarray(theirs_order)[np.isin(theirs_order, features)]
    return bool(np.array_equal(a, b))


def peers(repeats, datasets=PEER_DATASETS, K=5, d_mcfs=50):
    """Ours against scikit-feature, same data, same graph, same process, alternating."""
    try:
        from skfeature.function.similarity_based import SPEC as sk_spec
        from skfeature.function.similarity_based import lap_score as sk_lap
        from skfeature.function.sparse_learning_based import MCFS as sk_mcfs
        from skfeature.utility.construct_W import construct_W
    except ImportError:
        return pd.DataFrame([{"method": "all", "status": "skipped: skfeature-chappers not "
                              "installed (pip install -e .[bench])"}])
    from fsclust.graphs import knn_graph, rbf_affinity
    from fsclust.rankers.laplacian import LaplacianScore
    from fsclust.rankers.mcfs import MCFS
    from fsclust.rankers.spec import SPEC

    rows = []
    for (name, rel), layout in ((item, layout) for item in datasets.items()
                                for layout in ("C", "F")):
        X = _load_mirrored(rel)
        if X is None:
            rows.append({"dataset": name, "status": f"skipped: {rel} not in the mirror"})
            continue
        # C: rows contiguous, as the workflow's prepared data and most readers give them;
        # F: columns contiguous, as scipy.io.loadmat (and often pandas' to_numpy) gives them.
        # Both libraries get the same array; ours makes one C-order copy when given F.
        X = np.ascontiguousarray(X) if layout == "C" else np.asfortranarray(X)
        _, t = knn_graph(X, 5, return_bandwidth=True)
        t_sk = float(np.sqrt(t / 2.0))
        _, t_spec = rbf_affinity(X, return_bandwidth=True)

        def sk_graph():
            return construct_W(X.copy(), metric="euclidean", neighbor_mode="knn",
                               weight_mode="heat_kernel", k=5, t=t_sk)

        cases = {
            "laplacian": (
                lambda: LaplacianScore(n_neighbors=5, t=2 * t_sk**2, self_loops=True).fit(X),
                lambda: sk_lap.lap_score(X, W=sk_graph(), mode="index"),
                None),
            "spec (phi2)": (
                lambda: SPEC(style="phi2", t=t_spec).fit(X),
                lambda: sk_spec.spec(X, W=rbf_affinity(X, t=t_spec, keep_diagonal=True),
                                     style=0, mode="raw"),
                "scores"),
            "mcfs": (
                lambda: MCFS(n_eigenvectors=K, n_nonzero_coefs=d_mcfs, n_neighbors=5,
                             t=2 * t_sk**2, self_loops=True, solver="skfeature",
                             score_rule="signed_max").fit(X),
                lambda: sk_mcfs.mcfs(X, n_selected_features=d_mcfs, W=sk_graph(),
                                     n_clusters=K, mode="raw"),
                "coef"),
            "mcfs (ours, default solver)": (
                lambda: MCFS(n_eigenvectors=K, n_nonzero_coefs=d_mcfs, n_neighbors=5,
                             t=2 * t_sk**2, self_loops=True).fit(X),
                lambda: sk_mcfs.mcfs(X, n_selected_features=d_mcfs, W=sk_graph(),
                                     n_clusters=K, mode="raw"),
                None),
            # both sides at their own defaults (different graphs: ours the 5-NN heat kernel
            # with Cai's bandwidth, theirs the 5-NN cosine graph with 0/1 weights; MCFS: ours
            # Cai's lasso with the ridge, theirs LAR): the speed a user meets, not one result
            "laplacian (defaults)": (lambda: LaplacianScore().fit(X),
                                     lambda: sk_lap.lap_score(X), None),
            "mcfs (defaults)": (lambda: MCFS(n_nonzero_coefs=d_mcfs).fit(X),
                                lambda: sk_mcfs.mcfs(X, n_selected_features=d_mcfs), None),
        }
        for method, (ours_fn, theirs_fn, kind) in cases.items():
            ours_t, theirs_t = [], []
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                ours_fn(), theirs_fn()  # warm-up: first calls pay imports and caches
                for _ in range(repeats):
                    t0 = time.perf_counter()
                    ours = ours_fn()
                    ours_t.append(time.perf_counter() - t0)
                    t0 = time.perf_counter()
                    theirs = theirs_fn()
                    theirs_t.append(time.perf_counter() - t0)
            same = ""
            if kind == "scores":  # their SPEC ranking is reversed: rank their scores ourselves
                same = _same_order(ours.feature_order_, np.argsort(theirs, kind="stable"),
                                   distinct_features(theirs))
            elif kind == "coef":
                scores = theirs.max(axis=1)
                same = _same_order(ours.feature_order_, np.argsort(-scores, kind="stable"),
                                   distinct_features(scores))
            elif method == "laplacian":
                same = _same_order(ours.feature_order_, theirs,
                                   np.intersect1d(distinct_features(ours.scores_),
                                                  np.flatnonzero(~ours.constant_mask_)))
            o, s = statistics.median(ours_t), statistics.median(theirs_t)
            rows.append({"dataset": name, "layout": layout, "n": X.shape[0], "d": X.shape[1],
                         "method": method,
                         "ours_s": o, "ours_min_s": min(ours_t), "skfeature_s": s,
                         "skfeature_min_s": min(theirs_t), "speedup": s / o,
                         "same_ranking": same, "status": "ok"})
    return pd.DataFrame(rows)


def plot(timings, out):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    if timings.empty:
        return
    ok = timings[(timings["status"] == "ok") & (timings["dataset"] == "synthetic")]
    for axis in ("n", "d"):
        fig, ax = plt.subplots(figsize=(7, 5))
        for (kind, name), g in ok[ok["axis"] == axis].groupby(["kind", "method"], sort=False):
            g = g.sort_values(axis)
            ax.errorbar(g[axis], g["median_s"],
                        yerr=[g["median_s"] - g["min_s"], g["max_s"] - g["median_s"]],
                        marker="o" if kind == "ranker" else "s", capsize=2,
                        label=name, linestyle="-" if kind == "ranker" else "--")
        ax.set_xscale("log")
        ax.set_yscale("log")
        fixed = "d" if axis == "n" else "n"
        val = ok[ok["axis"] == axis][fixed].iloc[0] if len(ok[ok["axis"] == axis]) else ""
        ax.set_xlabel(f"{axis} ({fixed} = {val})")
        ax.set_ylabel("median fit time (s), bars min-max")
        ax.legend(fontsize=7, ncol=2)
        ax.grid(True, which="both", alpha=0.3)
        fig.tight_layout()
        fig.savefig(out / f"suite_loglog_{axis}.png", dpi=110)
        plt.close(fig)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="tiny sizes, smoke test")
    ap.add_argument("--out", default=str(REPO / "results" / "speed"))
    ap.add_argument("--repeats", type=int, default=None)
    ap.add_argument("--methods", nargs="*", default=None)
    ap.add_argument("--clusterers", nargs="*", default=None)
    ap.add_argument("--no-peers", action="store_true")
    ap.add_argument("--budget", type=float, default=60.0,
                    help="seconds: a method slower than this at one size skips larger ones")
    args = ap.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    quick = args.quick
    repeats = args.repeats or (1 if quick else 5)
    methods = args.methods if args.methods is not None else (
        QUICK_METHODS if quick else [m for m in RANKER_PARAMS if m in method_names()])
    clusterers = args.clusterers if args.clusterers is not None else (
        QUICK_CLUSTERERS if quick else list(CLUSTERER_PARAMS))
    n_grid, d_grid = (QUICK_N_GRID, QUICK_D_GRID) if quick else (N_GRID, D_GRID)
    n_fixed, d_fixed = (QUICK_N_FIXED, QUICK_D_FIXED) if quick else (N_FIXED, D_FIXED)

    rows = []
    with threadpool_limits(1):
        # the peer table first (the ratios the issue asks for), each table rewritten as it
        # grows, so that a run cut short still leaves what it measured
        peer = (pd.DataFrame([{"method": "all", "status": "skipped: --no-peers or --quick"}])
                if args.no_peers or quick else peers(repeats))
        peer.to_csv(out / "suite_peers.tsv", sep="\t", index=False)
        for kind, names in (("ranker", methods), ("clusterer", clusterers)):
            for name in names:
                # warm-up on small data (n above LLC's 30 neighbours): the first fit pays the
                # imports and caches
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    _make(kind, name).fit(synthetic(64, 32))
                for axis, grid in (("n", n_grid), ("d", d_grid)):
                    over = False
                    for size in grid:
                        n, d = (size, d_fixed) if axis == "n" else (n_fixed, size)
                        if over:
                            rows.append(_skipped(kind, name, "synthetic", axis, n, d,
                                                 f"previous size over {args.budget:g} s"))
                            continue
                        try:
                            row = run_case(kind, name, synthetic(n, d), "synthetic", repeats,
                                           axis)
                        except Exception as exc:  # one failing case must not end the suite
                            rows.append(_skipped(kind, name, "synthetic", axis, n, d,
                                                 f"error: {type(exc).__name__}: {exc}"))
                            print(f"{kind:9s} {name:22s} n={n:5d} d={d:6d} error: {exc}",
                                  flush=True)
                            over = True
                            continue
                        rows.append(row)
                        print(f"{kind:9s} {name:22s} n={n:5d} d={d:6d} "
                              f"{row['median_s']:9.4f} s  x{row['ratio_to_kernel']:8.1f} "
                              f"{row['kernel']}", flush=True)
                        over = row["median_s"] > args.budget
                if not quick:
                    for ds, rel in PEER_DATASETS.items():
                        X = _load_mirrored(rel)
                        X = None if X is None else np.ascontiguousarray(X)
                        if X is None:
                            rows.append(_skipped(kind, name, ds, "", 0, 0, "not in mirror"))
                            continue
                        try:
                            rows.append(run_case(kind, name, X, ds, repeats, ""))
                        except Exception as exc:
                            rows.append(_skipped(kind, name, ds, "", *X.shape,
                                                 f"error: {type(exc).__name__}: {exc}"))
                timings = pd.DataFrame(rows)
                timings.to_csv(out / "suite_timings.tsv", sep="\t", index=False)
                fit_exponents(timings).to_csv(out / "suite_exponents.tsv", sep="\t",
                                              index=False)
        timings = pd.DataFrame(rows)
        exponents = fit_exponents(timings)
    timings.to_csv(out / "suite_timings.tsv", sep="\t", index=False)
    exponents.to_csv(out / "suite_exponents.tsv", sep="\t", index=False)
    plot(timings, out)
    print(exponents.to_string(index=False))
    print(peer.to_string(index=False))
    return timings, exponents, peer


if __name__ == "__main__":
    main()
