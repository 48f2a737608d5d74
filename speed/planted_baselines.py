"""Why LLC-fs, GHA, FRCM, PCA and the variance fall short on the planted suite (issue 40).

Usage: python speed/planted_baselines.py [llcfs] [gha] [frcm] [pca] [variance]

The diagnoses behind the "Planted structure" paragraphs of those rankers' docstrings, on the
draws of ``speed/planted_suite.py`` (seed 0; its :func:`draw` and :data:`CASES`), each ranker
built as the suite builds it (``make_ranker`` with ``n_clusters = K``, ``random_state = 0``,
``n_features_to_select = p``). ``share`` is the planted features' share of the top ``p`` by
the ranker's order (not tie-aware: the suite's ``precision``, not ``precision_ties``). Labels
are used to score and, where a line says "diagnosis", to build an oracle that bounds the
method; they choose nothing.

- ``llcfs``: the neighbourhood graph at the uniform start (components of at least two samples,
  isolated samples, the trace) and the fit's status; LLC-fs on planted problems of other
  shapes (the number of samples per group against ``k``); the concentration of ``tau`` after
  1, 5 and 50 iterations.
- ``gha``: how far the first neuron is from the first principal axis (``|cos(w, v_1)|``, the
  share of ``||w||^2`` in the top ``K - 1`` axes) and the top eigenvalues.
- ``frcm``: how much of the groups the consensus matrix holds (ARImm against the groups'
  co-association; the members' adjusted Rand), FRCM's score with the groups' co-association
  in place of ``M`` (diagnosis), and k-means with ``K`` and 10 starts on all features.
- ``pca``: the share by the first axis, by the norm of the loadings over the top ``K - 1``
  axes, and the top eigenvalues.
- ``variance``: how many planted features have a variance below the ``p``-th largest noise
  one; on the counts, the detection of what the variance selects.

Each part runs in well under a minute on one core but ``llcfs`` (about 90 s: 50 iterations at
800 samples).
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import sys  # noqa: E402
import warnings  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
from sklearn.cluster import KMeans  # noqa: E402
from sklearn.metrics import adjusted_rand_score  # noqa: E402

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "src"))

from planted_suite import CASES, Case, draw  # noqa: E402

from fsclust.cluster.consensus import arimm, coassociation_matrix  # noqa: E402
from fsclust.rankers.frcm import feature_arimm  # noqa: E402
from fsclust.rankers.pca import _centred, first_principal_axis  # noqa: E402
from fsclust.registry import make_ranker  # noqa: E402

BY_NAME = {case.name: case for case in CASES}


def groups_of(case, seed=0):
    """The groups the suite planted (for the counts, the cell types)."""
    if case.transform == "counts":
        from fsclust.counts.synthetic import synthetic_counts

        _, labels, _ = synthetic_counts(case.n, case.d, n_types=case.groups,
                                        markers_per_type=case.p // case.groups, density=0.3,
                                        random_state=seed, dtype=np.float64)
        return labels
    return np.arange(case.n) % case.groups


def fitted(name, case, X, **params):
    ranker = make_ranker(name, {"n_features_to_select": case.p, **params},
                         n_clusters=case.groups, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ranker.fit(X)


def share(planted, order, p):
    return float(planted[np.asarray(order)[:p]].mean())


def llcfs():
    print("LLC-fs at the defaults: the graph at uniform tau (iteration 1) and the fit")
    for case in CASES:
        X, _, planted = draw(case, 0)
        r = fitted("llcfs", case, X)
        print(f"  {case.name:8s} share {share(planted, r.feature_order_, case.p):.2f}, "
              f"{r.status_} after {r.n_iter_}; iteration 1: {r.components_history_[0]} "
              f"components, {r.isolated_history_[0]} isolated, trace "
              f"{r.objective_history_[0]:.2g}")
    print("LLC-fs on planted problems of other shapes (30 planted, signal 2, raw):")
    for n, d, k in ((160, 200, 4), (320, 1000, 4), (800, 1000, 4), (400, 400, 16),
                    (800, 200, 32)):
        case = Case(f"{n}x{d}", n, d, groups=k)
        X, _, planted = draw(case, 0)
        r = fitted("llcfs", case, X)
        print(f"  {n} x {d}, K = {k} ({n // k} a group): share "
              f"{share(planted, r.feature_order_, case.p):.2f}, {r.status_} after "
              f"{r.n_iter_}; iteration 1: {r.components_history_[0]} components, trace "
              f"{r.objective_history_[0]:.2g}")
    print("LLC-fs: tau after 1, 5 and 50 iterations")
    for name in ("wide", "wide-z", "weak", "counts"):
        case = BY_NAME[name]
        X, _, planted = draw(case, 0)
        for max_iter in (1, 5, 50):
            tau = fitted("llcfs", case, X, max_iter=max_iter).scores_
            order = np.argsort(-tau, kind="stable")
            holding = int(np.searchsorted(np.cumsum(tau[order]), 0.99) + 1)
            print(f"  {name:7s} {max_iter:2d}: share {share(planted, order, case.p):.2f}, "
                  f"99 % of tau on {holding} features ({planted[order[:holding]].sum()} "
                  f"planted), planted tau from {tau[planted].min():.1g}, largest noise tau "
                  f"{tau[~planted].max():.1g}")


def gha():
    print("GHA at the defaults against the first principal axis v_1")
    for case in CASES:
        X, _, planted = draw(case, 0)
        r = fitted("gha", case, X)
        w = r.components_[0]
        _, s, Vt = np.linalg.svd(_centred(X, True), full_matrices=False)
        v1 = first_principal_axis(X, True)
        top = np.sum((Vt[:case.groups - 1] @ w) ** 2) / np.sum(w ** 2)
        print(f"  {case.name:8s} share {share(planted, r.feature_order_, case.p):.2f}, "
              f"{r.n_iter_} epochs, |cos(w, v_1)| {abs(w @ v1) / np.linalg.norm(w):.2f}, "
              f"share of ||w||^2 in the top K - 1 axes {top:.2f}; eigenvalues "
              f"{np.round(s[:5] ** 2 / case.n, 1).tolist()}")


def frcm():
    print("FRCM at the defaults: its consensus matrix M against the groups")
    for case in CASES:
        X, _, planted = draw(case, 0)
        labels = groups_of(case)
        r = fitted("frcm", case, X)
        C = coassociation_matrix(labels)
        members = [adjusted_rand_score(labels, member) for member in r.ensemble_]
        oracle = share(planted, np.argsort(-feature_arimm(X, C), kind="stable"), case.p)
        kmeans = adjusted_rand_score(
            labels, KMeans(case.groups, n_init=10, random_state=0).fit_predict(X))
        print(f"  {case.name:8s} share {share(planted, r.feature_order_, case.p):.2f}; "
              f"ARImm(M, groups) {arimm(C, r.consensus_matrix_):.2f}, members' ARI "
              f"{np.mean(members):.2f}; with M = the groups (diagnosis) {oracle:.2f}; "
              f"k-means (K, 10 starts, all features) ARI {kmeans:.2f}")


def pca():
    print("PCA loadings: the first axis against the top K - 1 axes")
    for case in CASES:
        X, _, planted = draw(case, 0)
        _, s, Vt = np.linalg.svd(_centred(X, True), full_matrices=False)
        first = share(planted, np.argsort(-np.abs(Vt[0]), kind="stable"), case.p)
        norm = np.sqrt(np.sum(Vt[:case.groups - 1] ** 2, axis=0))
        top = share(planted, np.argsort(-norm, kind="stable"), case.p)
        print(f"  {case.name:8s} first axis {first:.2f}, top K - 1 = {case.groups - 1} axes "
              f"{top:.2f}; eigenvalues {np.round(s[:case.groups + 1] ** 2 / case.n, 1).tolist()}")


def variance():
    print("Variance: planted features below the p-th largest noise variance")
    for case in CASES:
        X, counts, planted = draw(case, 0)
        var = X.var(axis=0)
        noise = np.sort(var[~planted])[::-1]
        print(f"  {case.name:8s} {np.sum(var[planted] < noise[case.p - 1])} of {case.p}; "
              f"variances from {var.min():.6f} to {var.max():.6f}")
        if counts is not None:
            detected = (counts > 0).mean(axis=0)
            top = np.argsort(-var, kind="stable")[:case.p]
            rest = top[~planted[top]]
            mean = X.mean(axis=0)
            rank = lambda v: np.argsort(np.argsort(v))  # noqa: E731
            rho = np.corrcoef(rank(var[~planted]), rank(mean[~planted]))[0, 1]
            print(f"           top {case.p}: {planted[top].sum()} markers; median detection of "
                  f"the others {np.median(detected[rest]):.2f}, of the markers "
                  f"{np.median(detected[planted]):.2f}; Spearman(variance, mean) over the "
                  f"non-markers {rho:.2f}")


PARTS = {"llcfs": llcfs, "gha": gha, "frcm": frcm, "pca": pca, "variance": variance}

if __name__ == "__main__":
    for part in sys.argv[1:] or list(PARTS):
        PARTS[part]()
