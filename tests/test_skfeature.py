"""Compatibility with scikit-feature (the maintained fork, ``skfeature-chappers``).

Run when the ``[bench]`` extra is installed (``pip install -e .[bench]``), skipped otherwise.
Under the documented recipe each of our rankers gives scikit-feature's scores to 1e-8 and its
ranking, on two real data sets of the offline mirror (TOX-171 and warpPIE10P, as
scikit-feature ships them):

- graph: ``construct_W(X, metric="euclidean", neighbor_mode="knn", weight_mode="heat_kernel",
  k=k, t=t_sk)`` is our ``knn_graph(X, k, t=2 * t_sk**2, self_loops=True)`` (its kNN lists
  include the sample itself, and its heat kernel is ``exp(-d^2 / (2 t_sk^2))``);
- Laplacian score: ``LaplacianScore(n_neighbors=k, t=2 * t_sk**2, self_loops=True)``;
- SPEC: the same explicit ``W`` to both (its styles -1, 0, k are our phi1, phi2, phi3 with
  ``n_clusters=k``); its ranking of phi1 and phi2 is reversed (largest first), so the
  ranking compared is the one its scores give in the paper's direction;
- MCFS: ``MCFS(n_eigenvectors=K, n_nonzero_coefs=d, n_neighbors=k, t=2 * t_sk**2,
  self_loops=True, solver="skfeature", score_rule="signed_max")``, up to the sign of each
  eigenvector (scikit-feature's are LAPACK's, which depend on the CPU's BLAS kernels).
"""

import numpy as np
import pytest
import scipy.io

from fsclust.graphs import knn_graph, rbf_affinity
from fsclust.rankers.base import distinct_features
from fsclust.rankers.laplacian import LaplacianScore
from fsclust.rankers.mcfs import MCFS
from fsclust.rankers.spec import SPEC, spec_scores

skfeature = pytest.importorskip(
    "skfeature", reason="scikit-feature not installed (pip install -e .[bench])")
from skfeature.function.similarity_based import SPEC as sk_spec_module  # noqa: E402
from skfeature.function.similarity_based import lap_score as sk_lap_module  # noqa: E402
from skfeature.function.sparse_learning_based import MCFS as sk_mcfs_module  # noqa: E402
from skfeature.utility.construct_W import construct_W  # noqa: E402

pytestmark = pytest.mark.skfeature

DATASETS = {"TOX-171": "skfeature/TOX-171.mat", "warpPIE10P": "skfeature/warpPIE10P.mat"}
K_NEIGHBORS = 5


@pytest.fixture(scope="module", params=sorted(DATASETS))
def data(request):
    from _mirror import HAS_MIRROR, MIRROR, SKIP_REASON

    if not HAS_MIRROR:
        pytest.skip(SKIP_REASON)
    X = np.asarray(scipy.io.loadmat(MIRROR / DATASETS[request.param])["X"], dtype=np.float64)
    # our kNN-graph bandwidth rule ("cai"), written the way scikit-feature takes it
    _, t = knn_graph(X, K_NEIGHBORS, return_bandwidth=True)
    return request.param, X, float(np.sqrt(t / 2.0))


def _sk_graph(X, t_sk):
    return construct_W(X.copy(), metric="euclidean", neighbor_mode="knn",
                       weight_mode="heat_kernel", k=K_NEIGHBORS, t=t_sk)


class _ArgsortSpy:
    """numpy, except that ``argsort`` records the scores scikit-feature ranks by (its
    ``lap_score`` returns only a ranking)."""

    def __init__(self):
        self.scores = None

    def __getattr__(self, name):
        return getattr(np, name)

    def argsort(self, a, *args, **kwargs):
        self.scores = np.asarray(a, dtype=np.float64).ravel().copy()
        return np.argsort(a, *args, **kwargs)


def _same_order(ours_order, theirs_order, features):
    """Both rankings put ``features`` in the same relative order."""
    keep = np.isin(ours_order, features)
    np.testing.assert_array_equal(ours_order[keep], theirs_order[np.isin(theirs_order, features)])


def test_graph_recipe_gives_scikit_features_graph(data):
    _, X, t_sk = data
    ours = knn_graph(X, K_NEIGHBORS, t=2.0 * t_sk**2, self_loops=True).toarray()
    np.testing.assert_allclose(ours, _sk_graph(X, t_sk).toarray(), rtol=1e-12, atol=1e-14)


def test_laplacian_score_recipe(data, monkeypatch):
    _, X, t_sk = data
    spy = _ArgsortSpy()
    monkeypatch.setattr(sk_lap_module, "np", spy)
    theirs_order = sk_lap_module.lap_score(X, W=_sk_graph(X, t_sk), mode="index")
    theirs = spy.scores
    model = LaplacianScore(n_neighbors=K_NEIGHBORS, t=2.0 * t_sk**2, self_loops=True).fit(X)
    # scikit-feature clamps the denominator of constant features (its score is then ~1.0)
    varying = ~model.constant_mask_
    assert varying.sum() > 0.9 * X.shape[1]
    np.testing.assert_allclose(model.scores_[varying], theirs[varying], rtol=1e-8, atol=1e-8)
    _same_order(model.feature_order_, np.asarray(theirs_order),
                np.intersect1d(distinct_features(theirs), np.flatnonzero(varying)))


@pytest.mark.parametrize("style,sk_style", [("phi1", -1), ("phi2", 0), ("phi3", 5)])
def test_spec_recipe(data, style, sk_style):
    _, X, _ = data
    W, t = rbf_affinity(X, keep_diagonal=True, return_bandwidth=True)
    theirs = sk_spec_module.spec(X, W=W, style=sk_style, mode="raw")
    ours = spec_scores(X, W, style, n_clusters=5)
    np.testing.assert_allclose(ours, theirs, rtol=1e-8, atol=1e-8)
    model = SPEC(style=style, n_clusters=5, t=t).fit(X)
    np.testing.assert_allclose(model.scores_, ours, rtol=1e-12, atol=0)
    # scikit-feature's own ranking sorts every style largest first (right only for phi3):
    # the ranking its scores give in the paper's direction
    theirs_order = np.argsort(-theirs if style == "phi3" else theirs, kind="stable")
    _same_order(model.feature_order_, theirs_order, distinct_features(theirs))
    if style == "phi3":
        _same_order(model.feature_order_,
                    np.asarray(sk_spec_module.spec(X, W=W, style=sk_style, mode="index")),
                    distinct_features(theirs))


def test_mcfs_recipe(data):
    _, X, t_sk = data
    K, d = 5, 20
    theirs = sk_mcfs_module.mcfs(X, n_selected_features=d, W=_sk_graph(X, t_sk),
                                 n_clusters=K, mode="raw")
    model = MCFS(n_eigenvectors=K, n_nonzero_coefs=d, n_neighbors=K_NEIGHBORS,
                 t=2.0 * t_sk**2, self_loops=True, solver="skfeature",
                 score_rule="signed_max").fit(X)
    # scikit-feature keeps LAPACK's sign of each eigenvector, which changes with the CPU's BLAS
    # kernels; ours are canonical: the coefficients agree up to the sign of each eigenvector
    np.testing.assert_allclose(np.abs(model.coef_), np.abs(theirs), rtol=1e-8, atol=1e-8)
    signs = np.where(np.einsum("jk,jk->k", model.coef_, theirs) < 0, -1.0, 1.0)
    theirs = theirs * signs
    np.testing.assert_allclose(model.coef_, theirs, rtol=1e-8, atol=1e-8)
    # scikit-feature's signed maximum and its ranking (``feature_ranking`` in its MCFS.py),
    # from its coefficients with our signs
    scores = theirs.max(axis=1)
    np.testing.assert_allclose(model.scores_, scores, rtol=1e-8, atol=1e-8)
    theirs_order = np.argsort(scores, 0)[::-1]
    # the features with a non-zero signed maximum, in the same order; the rest tie at 0
    # (or below) and scikit-feature orders its ties arbitrarily
    selected = distinct_features(scores)
    assert selected.size >= d
    _same_order(model.feature_order_, theirs_order, selected)
