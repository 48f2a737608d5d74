"""Why three seed methods fall short on the planted suite (issue 40): the measured causes.

Usage: python speed/seed_planted_causes.py METHOD [--cases NAME ...] [--seed S]
                                           [--bandwidth-factor F] [--laplacian L]

``METHOD`` is ``kernel_weighting``, ``evsfsc`` or ``kpkmeans``. On the draws of
``speed/planted_suite.py`` (same cases, same seed, same matrices), one tab-separated row per
case on stdout, with the share of the planted features in the top ``p`` (the suite's
``precision``) and what explains it:

- ``kernel_weighting`` (at ``--bandwidth-factor``, default the paper's 0.0025): the adjusted
  Rand index of the "integrated" clustering (``ari``); ``z_p = <K_p, (Pi L)(Pi L)^T>`` split
  into the kernel's diagonal ``sum_i K_p[i, i] ||(Pi L)_i||^2`` (``K_p[i, i] = 1 / g_p[i]``)
  and the rest: the diagonal's share of ``z_p`` (mean over the planted and over the noise
  features), the mean ``1 / g_p``; the share when the features are ranked by the off-diagonal
  part alone at the fitted ``L`` (``off_only``); the share of ``z`` computed at the true
  clusters' indicator (``true_L``, labels used: a diagnosis).
- ``evsfsc`` (at ``--laplacian``, default the class's ``"unnormalized"``; the class's median
  bandwidth): for the scored eigenvectors ``r = 2..c+1`` their localisation ``n IPR = n
  sum_i q_i^4`` (1: spread evenly, ``n``: one sample), the ARI of k-means on eigenvectors
  ``2..c`` (the ``c - 1`` directions ``c`` groups span), the share of each eigenvector's
  sensitivities ``||p_r^t||_1`` alone, the part of the summed score that eigenvector ``c + 1``
  carries, and the share of eigenvectors ``2..c`` alone (``n_clusters = c - 1``).
- ``kpkmeans`` (defaults): the ARI of the first partition ``C`` and of the last, the features
  kept; the kernel k-means energy of the best of the ``n_init`` starts against the true
  partition's, and of a start from the true partition (is the truth a better optimum the
  starts miss?); the share when ``C`` is built on the planted columns (``init_features``,
  labels used: a diagnosis); the share when the features are centred and divided by one
  common scalar (``sqrt(d mean_j var_j)``, ``scale="none"``: the mean squared distance is
  about 2 as under the default ``"zscore-sqrt-d"``, but the features keep their relative
  variances), label-free.

Labels diagnose and score; they choose nothing.
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
from sklearn.metrics import adjusted_rand_score  # noqa: E402

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "src"))
sys.path.insert(0, str(HERE))

from planted_suite import CASES, draw  # noqa: E402

from fsclust.cluster.kmeans import KMeans  # noqa: E402
from fsclust.cluster.kernel_kmeans import kernel_kmeans  # noqa: E402
from fsclust.counts.synthetic import synthetic_counts  # noqa: E402
from fsclust.graphs import bandwidth, scale_features, squared_distances  # noqa: E402
from fsclust.rankers.evsfsc import eigenvector_sensitivities, spectral_system  # noqa: E402
from fsclust.rankers.kernel_weighting import (KernelWeightingClustering,  # noqa: E402
                                              feature_bandwidths, normalized_feature_kernels)
from fsclust.rankers.kpkmeans import (KPKMeans, anisotropic_kernel,  # noqa: E402
                                      centroid_distance_matrix)


def true_labels(case, seed):
    """The groups of the suite's draw (the counts case: the cell types)."""
    if case.transform == "counts":
        return synthetic_counts(case.n, case.d, n_types=case.groups,
                                markers_per_type=case.p // case.groups, density=0.3,
                                random_state=seed, dtype=np.float64)[1]
    return np.arange(case.n) % case.groups


def share(planted, order, p):
    return float(planted[np.asarray(order)[:p]].mean())


def top_share(planted, scores, p):
    return share(planted, np.argsort(-scores, kind="stable"), p)


def kernel_weighting_row(case, X, planted, y, args):
    c, p = case.groups, case.p
    model = KernelWeightingClustering(n_clusters=c, bandwidth_factor=args.bandwidth_factor,
                                      random_state=args.seed).fit(X)
    PL = model.indicator_ - model.indicator_.mean(axis=0)
    H = np.eye(c)[y] / np.sqrt(np.bincount(y, minlength=c))
    PH = H - H.mean(axis=0)
    t = model.bandwidths_
    d = X.shape[1]
    diag, z, z_true, inv_g = (np.zeros(d) for _ in range(4))
    for start in range(0, d, 50):
        B = slice(start, min(start + 50, d))
        K = normalized_feature_kernels(X[:, B], t[B])
        dK = np.einsum("pii->pi", K)
        diag[B] = dK @ np.sum(PL**2, axis=1)
        z[B] = np.einsum("pij,ij->p", K, PL @ PL.T)
        z_true[B] = np.einsum("pij,ij->p", K, PH @ PH.T)
        inv_g[B] = dK.mean(axis=1)
    return dict(
        share=top_share(planted, model.weights_, p),
        ari=adjusted_rand_score(y, model.labels_),
        n_iter=model.n_iter_,
        diag_share_planted=float(np.mean(diag[planted] / z[planted])),
        diag_share_noise=float(np.mean(diag[~planted] / z[~planted])),
        mean_inv_degree=float(inv_g.mean()),
        off_only=top_share(planted, z - diag, p),
        true_L=top_share(planted, z_true, p),
    )


def evsfsc_row(case, X, planted, y, args):
    c, p = case.groups, case.p
    Xc = X - X.mean(axis=0)
    t = bandwidth(squared_distances(Xc), "jiang2011")
    S, g, values, vectors = spectral_system(Xc, t, args.laplacian)
    per_r = np.array([np.abs(eigenvector_sensitivities(
        Xc, S, g, values, vectors, r, args.laplacian, t / 2.0, np.arange(X.shape[1]))[0]).sum(0)
        for r in range(1, c + 1)])  # r = 2..c+1, 1-based
    unit = vectors[:, 1:c + 1] / np.linalg.norm(vectors[:, 1:c + 1], axis=0)
    embedding = KMeans(n_clusters=c, n_init=10, random_state=args.seed).fit_predict(
        vectors[:, 1:c])
    score = per_r.sum(axis=0)
    return dict(
        share=top_share(planted, score, p),
        n_ipr=" ".join(f"{v:.0f}" for v in case.n * np.sum(unit**4, axis=0)),
        ari_2_to_c=adjusted_rand_score(y, embedding),
        share_per_r=" ".join(f"{top_share(planted, s, p):.2f}" for s in per_r),
        score_part_c1=float(per_r[-1].sum() / score.sum()),
        share_2_to_c=top_share(planted, per_r[:-1].sum(axis=0), p),
    )


def _energy(K, labels, c):
    H, _, _ = centroid_distance_matrix(K, labels, c)
    return float(H[np.arange(labels.size), labels].sum())


def kpkmeans_row(case, X, planted, y, args):
    c, p = case.groups, case.p
    model = KPKMeans(p, n_clusters=c, random_state=args.seed).fit(X)
    K = anisotropic_kernel(scale_features(X, model.scale), np.full(X.shape[1], model.v0))
    first = model.labels_path_[0]
    from_truth = kernel_kmeans(K, c, init_labels=y, random_state=args.seed)[0]
    oracle = KPKMeans(p, n_clusters=c, init_features=np.flatnonzero(planted),
                      random_state=args.seed).fit(X)
    Xc = X - X.mean(axis=0)
    one_scale = KPKMeans(p, n_clusters=c, scale="none", random_state=args.seed).fit(
        Xc / np.sqrt(X.shape[1] * Xc.var(axis=0).mean()))
    return dict(
        share=share(planted, model.feature_order_, p),
        ari_first=adjusted_rand_score(y, first),
        ari_last=adjusted_rand_score(y, model.labels_),
        kept=model.n_features_selected_,
        energy_first=_energy(K, first, c),
        energy_truth=_energy(K, y, c),
        energy_from_truth=_energy(K, from_truth, c),
        share_init_planted=share(planted, oracle.feature_order_, p),
        share_one_scale=share(planted, one_scale.feature_order_, p),
        ari_first_one_scale=adjusted_rand_score(y, one_scale.labels_path_[0]),
    )


ROWS = {"kernel_weighting": kernel_weighting_row, "evsfsc": evsfsc_row,
        "kpkmeans": kpkmeans_row}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("method", choices=sorted(ROWS))
    parser.add_argument("--cases", nargs="+", default=[case.name for case in CASES])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--bandwidth-factor", type=float, default=0.0025)
    parser.add_argument("--laplacian", default="unnormalized")
    args = parser.parse_args(argv)
    by_name = {case.name: case for case in CASES}
    header = None
    for name in args.cases:
        case = by_name[name]
        X, _, planted = draw(case, args.seed)
        row = ROWS[args.method](case, X, planted, true_labels(case, args.seed), args)
        if header is None:
            header = ["case", *row]
            print("\t".join(header))
        print("\t".join([name, *(f"{v:.3f}" if isinstance(v, float) else str(v)
                                 for v in row.values())]), flush=True)


if __name__ == "__main__":
    main()
