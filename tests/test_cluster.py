"""Clusterers recover structure they must recover (spec methods-baselines 11, methods-seed 0.4)."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import make_blobs, make_circles
from sklearn.manifold import spectral_embedding

from fsclust.cluster import KMeans, NormalizedCut, SpectralClustering
from fsclust.graphs import knn_graph
from fsclust.metrics import clustering_accuracy

VARIANTS = ["unnormalized", "rw", "sym"]


@pytest.fixture(scope="module")
def blobs():
    centers = [[0.0, 0.0, 0.0], [10.0, 0.0, 0.0], [0.0, 10.0, 0.0], [0.0, 0.0, 10.0]]
    X, y = make_blobs(n_samples=120, centers=centers, cluster_std=0.6, random_state=0)
    return X, y


@pytest.fixture(scope="module")
def rings():
    X, y = make_circles(n_samples=300, factor=0.4, noise=0.03, random_state=0)
    return X, y


def _block_affinity(sizes, rng):
    """Random positive weights inside each block, none between blocks."""
    blocks = []
    for m in sizes:
        B = rng.uniform(0.2, 1.0, size=(m, m))
        B = B + B.T
        np.fill_diagonal(B, 0.0)
        blocks.append(B)
    y = np.repeat(np.arange(len(sizes)), sizes)
    perm = rng.permutation(len(y))  # hide the block order
    W = sp.block_diag(blocks).toarray()[np.ix_(perm, perm)]
    return W, y[perm]


# --- k-means ----------------------------------------------------------------------------------


def test_kmeans_recovers_blobs_and_is_reproducible(blobs):
    X, y = blobs
    model = KMeans(n_clusters=4, random_state=0).fit(X)
    assert clustering_accuracy(y, model.labels_) == 1.0
    assert np.array_equal(model.predict(X), model.labels_)
    again = KMeans(n_clusters=4, random_state=0).fit_predict(X)
    assert np.array_equal(again, model.labels_)


def test_kmeans_passes_n_init_explicitly(blobs):
    # scikit-learn's default became "auto" (= 1 run) in 1.4; ours must stay what we ask
    X, _ = blobs
    assert KMeans(n_clusters=4, random_state=0).fit(X)._kmeans.n_init == 10
    single = KMeans(n_clusters=4, init="random", n_init=1, random_state=0).fit(X)
    assert single._kmeans.n_init == 1


def _kmeans_cases():
    """Small data of every kind k-means meets here: spectral embeddings (n x c), a subsample's
    top features, integer data with ties, duplicated samples, a cluster per sample, weights."""
    rng = np.random.default_rng(38)
    for case in range(24):
        n, d = int(rng.integers(2, 120)), int(rng.integers(1, 30))
        k = int(rng.integers(1, min(n, 16) + 1))
        X = rng.normal(size=(n, d)) * 10.0 ** rng.uniform(-3, 3)
        if case % 4 == 1:
            X = np.round(X * 2)  # ties between candidate distances
        if case % 4 == 2:
            X[: n // 2] = X[0]  # duplicated samples: fewer distinct points than k, maybe
        if case % 10 == 3:
            k = n
        weights = rng.uniform(0.1, 3.0, size=n) if case % 5 == 4 else None
        yield X, k, weights, case


def test_kmeans_seeding_is_scikit_learns_bit_for_bit():
    # the k-means++ seeding without scikit-learn's per-call checks (_LeanSeedingKMeans) gives
    # scikit-learn's fit exactly, restarts, weights, ties and duplicates included
    import warnings

    from sklearn.cluster import KMeans as SklearnKMeans
    from sklearn.cluster import kmeans_plusplus

    from fsclust.cluster.kmeans import _kmeans_plusplus, _LeanSeedingKMeans

    for X, k, weights, seed in _kmeans_cases():
        fits = []
        for cls in (SklearnKMeans, _LeanSeedingKMeans):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # fewer distinct points than clusters
                fits.append(cls(n_clusters=k, n_init=3, algorithm="lloyd", random_state=seed)
                            .fit(X, sample_weight=weights))
        theirs, ours = fits
        assert np.array_equal(ours.cluster_centers_, theirs.cluster_centers_), (seed, k)
        assert np.array_equal(ours.labels_, theirs.labels_), (seed, k)
        assert (ours.inertia_, ours.n_iter_) == (theirs.inertia_, theirs.n_iter_), (seed, k)
        # the seeding itself: scikit-learn's public k-means++ picks the same samples
        norms = np.einsum("ij,ij->i", X, X)
        w = np.ones(len(X)) if weights is None else weights
        centers, _ = kmeans_plusplus(X, k, sample_weight=weights, x_squared_norms=norms,
                                     random_state=seed)
        assert np.array_equal(_kmeans_plusplus(X, k, norms, w, np.random.RandomState(seed)),
                              centers), (seed, k)
    # our wrapper seeds it as before: its labels are scikit-learn's for the seed it draws
    X, k, _, _ = next(_kmeans_cases())
    from fsclust.cluster.affinity import sklearn_seed

    seed = sklearn_seed(np.random.RandomState(7))
    theirs = SklearnKMeans(n_clusters=k, n_init=10, algorithm="lloyd", random_state=seed).fit(X)
    assert np.array_equal(KMeans(n_clusters=k, random_state=7).fit(X).labels_, theirs.labels_)


def test_kmeans_refuses_more_clusters_than_samples():
    with pytest.raises(ValueError, match="n_clusters"):
        KMeans(n_clusters=5).fit(np.zeros((3, 2)))


# --- spectral clustering ----------------------------------------------------------------------


@pytest.mark.parametrize("laplacian", VARIANTS)
def test_spectral_variants_recover_blobs(blobs, laplacian):
    X, y = blobs
    # t of the order of the within-blob squared distances (2 * 3 * 0.6^2); the median rule
    # is dominated by between-blob pairs here and is too wide for the unnormalised variant
    model = SpectralClustering(4, laplacian=laplacian, t=2.0, random_state=0)
    assert clustering_accuracy(y, model.fit_predict(X)) == 1.0


@pytest.mark.parametrize("laplacian", ["rw", "sym"])
def test_normalised_spectral_variants_recover_blobs_with_default_bandwidth(blobs, laplacian):
    X, y = blobs
    labels = SpectralClustering(4, laplacian=laplacian, random_state=0).fit_predict(X)
    assert clustering_accuracy(y, labels) == 1.0


@pytest.mark.parametrize("laplacian", VARIANTS)
def test_spectral_variants_recover_disconnected_blocks(laplacian):
    W, y = _block_affinity((7, 12, 9), np.random.RandomState(0))
    model = SpectralClustering(3, laplacian=laplacian, affinity="precomputed", random_state=0)
    assert clustering_accuracy(y, model.fit_predict(W)) == 1.0
    assert clustering_accuracy(y, model.fit_predict(sp.csr_matrix(W))) == 1.0


@pytest.mark.parametrize("laplacian", VARIANTS)
def test_spectral_variants_separate_two_rings_where_kmeans_cannot(rings, laplacian):
    X, y = rings
    model = SpectralClustering(
        2, laplacian=laplacian, affinity="knn", n_neighbors=10, weight="binary", random_state=0
    )
    assert clustering_accuracy(y, model.fit_predict(X)) >= 0.99
    assert clustering_accuracy(y, KMeans(2, random_state=0).fit_predict(X)) < 0.75


def test_spectral_embeddings_are_the_laplacian_eigenvectors(blobs):
    X, _ = blobs
    rw = SpectralClustering(4, laplacian="rw", random_state=0).fit(X)
    W = rw.affinity_matrix_
    d = W.sum(axis=1)
    L = np.diag(d) - W
    # rw: generalised eigenvectors, L u = lambda D_g u
    U = rw.embedding_
    np.testing.assert_allclose(L @ U, (d[:, None] * U) * rw.eigenvalues_, atol=1e-10)
    # and the same vectors as scikit-learn's own embedding, up to sign and scale
    theirs = spectral_embedding(W, n_components=4, drop_first=False, random_state=0)
    ours = U / np.linalg.norm(U, axis=0)
    theirs = theirs / np.linalg.norm(theirs, axis=0)
    # eigenvalue 0 is simple (connected graph), the others are well separated here
    np.testing.assert_allclose(np.abs(np.sum(ours * theirs, axis=0)), 1.0, atol=1e-6)
    # unnormalised: eigenvectors of L itself
    un = SpectralClustering(4, laplacian="unnormalized", random_state=0).fit(X)
    np.testing.assert_allclose(
        L @ un.embedding_, un.embedding_ * un.eigenvalues_, atol=1e-10 * d.max()
    )
    # NJW: rows of unit length
    sym = SpectralClustering(4, laplacian="sym", random_state=0).fit(X)
    np.testing.assert_allclose(np.linalg.norm(sym.embedding_, axis=1), 1.0)


def test_spectral_bandwidth_is_recomputed_on_the_given_columns(blobs):
    X, _ = blobs
    full = SpectralClustering(4, random_state=0).fit(X)
    subset = SpectralClustering(4, random_state=0).fit(X[:, :2])
    assert full.t_ != subset.t_
    assert SpectralClustering(4, t=3.0).fit(X).t_ == 3.0


@pytest.mark.parametrize("laplacian", VARIANTS)
def test_spectral_fixed_seed_gives_identical_labels(rings, laplacian):
    X, _ = rings
    model = SpectralClustering(3, laplacian=laplacian, random_state=42)
    assert np.array_equal(model.fit_predict(X), model.fit_predict(X))


def test_spectral_rejects_unknown_laplacian(blobs):
    with pytest.raises(ValueError, match="laplacian"):
        SpectralClustering(2, laplacian="normalized").fit(blobs[0])


# --- normalized cut ---------------------------------------------------------------------------


def test_ncut_recovers_blobs_with_the_zeng2008_kernel(blobs):
    X, y = blobs
    model = NormalizedCut(4, random_state=0).fit(X)
    assert model.t_ == pytest.approx(
        0.0025 * np.max(((X[:, None] - X[None]) ** 2).sum(-1))
    )
    assert np.all(np.diag(model.affinity_matrix_) == 0)
    assert clustering_accuracy(y, model.labels_) == 1.0


def test_ncut_survives_a_narrow_kernel_with_tiny_affinities():
    # 30-D blobs: under t = 0.0025 max d^2 every between-blob affinity is < 1e-20 and the
    # smallest is exp(-400); float64 and scikit-learn's solver must still cut correctly
    X, y = make_blobs(n_samples=120, n_features=30, centers=3, cluster_std=2.0, random_state=1)
    model = NormalizedCut(3, random_state=0).fit(X)
    W = model.affinity_matrix_
    assert W[y[:, None] != y[None, :]].max() < 1e-20
    assert clustering_accuracy(y, model.labels_) == 1.0


@pytest.mark.filterwarnings("ignore:Graph is not fully connected")
@pytest.mark.parametrize("sparse", [False, True])
def test_ncut_recovers_disconnected_blocks(sparse):
    W, y = _block_affinity((8, 11, 6, 9), np.random.RandomState(1))
    W = sp.csr_matrix(W) if sparse else W
    labels = NormalizedCut(4, affinity="precomputed", random_state=0).fit_predict(W)
    assert clustering_accuracy(y, labels) == 1.0


def test_ncut_labels_are_a_valid_partition_and_reproducible(rings):
    X, _ = rings
    for c in (2, 3, 5):
        labels = NormalizedCut(c, t_rule="median", random_state=7).fit_predict(X)
        assert labels.shape == (len(X),)
        assert set(np.unique(labels)) == set(range(labels.max() + 1))
        assert labels.max() < c
        again = NormalizedCut(c, t_rule="median", random_state=7).fit_predict(X)
        assert np.array_equal(labels, again)


@pytest.mark.filterwarnings("ignore:Graph is not fully connected")
def test_ncut_with_knn_graph_separates_rings(rings):
    X, y = rings
    labels = NormalizedCut(2, affinity="knn", n_neighbors=10, random_state=0).fit_predict(X)
    assert clustering_accuracy(y, labels) >= 0.99


@pytest.mark.filterwarnings("ignore:Graph is not fully connected")
def test_ncut_offset_keeps_strong_structure_but_swamps_tiny_affinities():
    # toolbox offset (0.5) on O(1) weights: the blocks are still found
    W, y = _block_affinity((8, 11, 6), np.random.RandomState(2))
    labels = NormalizedCut(3, affinity="precomputed", offset=0.5, random_state=0).fit_predict(W)
    assert clustering_accuracy(y, labels) == 1.0
    # on affinities of order 1e-100 the offset makes D'^-1/2 (W + offset I) D'^-1/2 the
    # identity to machine precision: the cut cannot see the data (spec methods-seed 0.4)
    tiny = W * 1e-100
    ok = NormalizedCut(3, affinity="precomputed", random_state=0).fit_predict(tiny)
    assert clustering_accuracy(y, ok) == 1.0
    with_offset = NormalizedCut(3, affinity="precomputed", offset=0.5, random_state=0)
    with pytest.raises(ValueError, match="swamps"):
        with_offset.fit(tiny)


def test_ncut_refuses_isolated_samples_without_offset():
    W, _ = _block_affinity((5, 6), np.random.RandomState(3))
    W[0, :] = W[:, 0] = 0.0
    with pytest.raises(ValueError, match="zero affinity"):
        NormalizedCut(2, affinity="precomputed").fit(W)
    # the toolbox offset gives the sample a degree but no place in the top eigenvectors
    with pytest.raises(ValueError, match="all-zero embedding"):
        NormalizedCut(2, affinity="precomputed", offset=0.5).fit(W)


def test_ncut_min_affinity_sparsifies():
    X, _ = make_blobs(n_samples=60, centers=3, random_state=3)
    model = NormalizedCut(3, t_rule="median", min_affinity=1e-6, random_state=0).fit(X)
    W = model.affinity_matrix_
    assert np.all((W == 0) | (W >= 1e-6))


def test_precomputed_affinity_must_be_symmetric_and_nonnegative():
    W = np.array([[0.0, 1.0, 0.5], [0.2, 0.0, 1.0], [0.5, 1.0, 0.0]])
    for model in (
        SpectralClustering(2, affinity="precomputed"),
        NormalizedCut(2, affinity="precomputed"),
    ):
        with pytest.raises(ValueError, match="symmetric"):
            model.fit(W)
        with pytest.raises(ValueError, match="non-negative"):
            model.fit(-np.ones((3, 3)))


@pytest.mark.filterwarnings("ignore:Graph is not fully connected")
def test_knn_graph_and_ncut_agree_on_the_graph(rings):
    X, _ = rings
    model = NormalizedCut(2, affinity="knn", n_neighbors=10, random_state=0).fit(X)
    expected = knn_graph(X, n_neighbors=10, t_rule="zeng2008")
    assert abs(model.affinity_matrix_ - expected).max() == 0


def test_ncut_equals_scikit_learns_spectral_clustering_discretize(blobs):
    # our dense-eigensolver path computes the same partition as the library function
    from sklearn.cluster import spectral_clustering
    from sklearn.metrics import adjusted_rand_score

    X, _ = blobs
    model = NormalizedCut(3, t_rule="median", random_state=0).fit(X)
    ref = spectral_clustering(model.affinity_matrix_, n_clusters=3, assign_labels="discretize",
                              random_state=0)
    assert adjusted_rand_score(ref, model.labels_) == 1.0


# --- precomputed squared distances (the sweep's reuse path) -----------------------------------


@pytest.mark.parametrize("make", [
    lambda: NormalizedCut(n_clusters=4, random_state=0),
    lambda: NormalizedCut(n_clusters=4, t_rule="cai", offset=0.5, random_state=0),
    lambda: SpectralClustering(n_clusters=4, laplacian="rw", random_state=0),
    lambda: SpectralClustering(n_clusters=4, laplacian="sym", t_rule="zeng2008", random_state=0),
])
def test_given_squared_distances_give_the_result_of_the_features(blobs, make):
    from fsclust.graphs import squared_distances

    X, _ = blobs
    plain = make().fit(X)
    given = make().fit(X, sq_distances=squared_distances(X))
    np.testing.assert_array_equal(given.labels_, plain.labels_)
    np.testing.assert_array_equal(given.affinity_matrix_, plain.affinity_matrix_)
    assert given.t_ == plain.t_ and given.n_features_in_ == X.shape[1]


@pytest.mark.parametrize("cls", [NormalizedCut, SpectralClustering])
def test_given_squared_distances_are_checked(blobs, cls):
    from fsclust.graphs import squared_distances

    X, _ = blobs
    D2 = squared_distances(X)
    with pytest.raises(ValueError, match="shape"):
        cls(n_clusters=4).fit(X, sq_distances=D2[:-1, :-1])
    with pytest.raises(ValueError, match="non-negative"):
        cls(n_clusters=4).fit(X, sq_distances=-D2)
    with pytest.raises(ValueError, match="affinity='rbf'"):
        cls(n_clusters=4, affinity="knn").fit(X, sq_distances=D2)
