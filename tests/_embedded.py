"""Data and checks shared by the tests of the l2,1 embedded methods (UDFS, NDFS, ...)."""

import numpy as np
from sklearn.datasets import make_blobs


def blobs_with_noise(n_noise, seed=0):
    """The synthetic recovery set: 4 blobs in 5 informative columns (the first five), then
    ``n_noise`` columns of N(0, 1), all z-scored; 200 samples."""
    informative, _ = make_blobs(n_samples=200, centers=4, n_features=5, cluster_std=1.0,
                                random_state=0)
    X = np.hstack([informative, np.random.RandomState(seed).randn(200, n_noise)])
    return (X - X.mean(0)) / X.std(0)


def objective_never_increases(model):
    """``J_{t+1} <= J_t + 1e-10 |J_t|`` over a fitted model's ``objective_history_``."""
    J = np.array(model.objective_history_)
    return bool(np.all(J[1:] <= J[:-1] + 1e-10 * np.abs(J[:-1])))
