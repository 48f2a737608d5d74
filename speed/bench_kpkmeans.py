"""Speed of the KP-Kmeans gradient: the one-pass O(n^2 d) form against the naive tensor form.

Run: python speed/bench_kpkmeans.py   (prints seconds per gradient; no assertion)
"""
import time

import numpy as np

from fsclust.rankers.kpkmeans import anisotropic_kernel, kpkmeans_gradient


def naive_gradient(X, v, labels, c, lam, beta=5.0):
    """Spec 3.4 formula with the (n, n, d) tensor of squared differences."""
    n = X.shape[0]
    K = anisotropic_kernel(X, v)
    D2 = (X[:, None, :] - X[None, :, :]) ** 2 * K[:, :, None]  # K_ab (x_aj - x_bj)^2
    Z = np.eye(c)[labels]
    N = Z.sum(0)
    H = 1 - 2 * K @ Z / N + np.einsum("ak,ab,bk->k", Z, K, Z) / N**2
    dH = v * (2 * np.einsum("ibj,bk->ikj", D2, Z) / N[None, :, None]
              - (np.einsum("ak,abj,bk->kj", Z, D2, Z) / N[:, None] ** 2)[None])
    own = H[np.arange(n), labels]
    down = dH[np.arange(n), labels]
    g = np.zeros(X.shape[1])
    for k in range(c):
        other = labels != k
        g += np.sum((down[other] * H[other, k][:, None] - own[other][:, None] * dH[other, k])
                    / H[other, k][:, None] ** 2, axis=0)
    return g + lam * beta * np.exp(-beta * v)


def timed(fn, repeat=3):
    best = np.inf
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    print("n\td\tone_pass_s\tnaive_s\tmax_rel_diff")
    for n, d in [(100, 20), (200, 200), (200, 2000), (1000, 20), (1000, 200)]:
        X = rng.standard_normal((n, d)) / np.sqrt(d)
        v = rng.uniform(0.5, 1.5, d)
        labels = np.arange(n) % 3
        fast = timed(lambda: kpkmeans_gradient(X, v, labels, 3, 0.5))
        if n * n * d <= 2e7:  # the tensor needs n^2 d floats
            slow = timed(lambda: naive_gradient(X, v, labels, 3, 0.5), repeat=1)
            g1 = kpkmeans_gradient(X, v, labels, 3, 0.5)[0]
            g2 = naive_gradient(X, v, labels, 3, 0.5)
            diff = float(np.max(np.abs(g1 - g2)) / np.max(np.abs(g2)))
        else:
            slow, diff = np.nan, np.nan
        print(f"{n}\t{d}\t{fast:.4f}\t{slow:.4f}\t{diff:.1e}")
