"""Consensus matrix, ARImm and the consensus clusterers (Zhang et al. 2012; spec methods-seed 5)."""

import numpy as np
import pytest
from sklearn.metrics import adjusted_rand_score

from fsclust.cluster.consensus import (
    arimm,
    average_link_consensus,
    coassociation_matrix,
    consensus_matrix,
    cspa_consensus,
    ensemble_incidence,
    hbgf_consensus,
    max_ensemble_clusters,
    random_subspace_ensemble,
)
from fsclust.metrics import adjusted_rand


@pytest.mark.parametrize("seed", range(5))
def test_arimm_of_coassociations_is_sklearn_ari(seed):
    rng = np.random.RandomState(seed)
    p, q = rng.randint(0, 4, 40), rng.randint(0, 3, 40)
    q[:20] = p[:20]  # some agreement, so the value is not only near 0
    assert arimm(coassociation_matrix(p), coassociation_matrix(q)) == pytest.approx(
        adjusted_rand_score(p, q), abs=1e-12)


def test_arimm_identity_and_constant_matrix():
    p = np.repeat([0, 1, 2], 5)
    assert arimm(coassociation_matrix(p), coassociation_matrix(p)) == pytest.approx(1.0)
    assert arimm(coassociation_matrix(p), np.ones((15, 15))) == 0.0


def test_arimm_symmetric_in_its_arguments():
    rng = np.random.RandomState(1)
    M = consensus_matrix(rng.randint(0, 3, (10, 30)))
    A = rng.rand(30, 30)
    A = (A + A.T) / 2
    assert arimm(M, A) == pytest.approx(arimm(A, M))


def test_arimm_of_independent_random_ensembles_is_near_zero():
    rng = np.random.RandomState(0)
    n, T = 200, 50
    M1 = consensus_matrix(rng.randint(0, 4, (T, n)))
    M2 = consensus_matrix(rng.randint(0, 4, (T, n)))
    assert abs(arimm(M1, M2)) < 0.01
    # ensembles that share structure agree well above chance
    base = rng.randint(0, 4, n)
    M3 = consensus_matrix(np.where(rng.rand(T, n) < 0.7, base, rng.randint(0, 4, (T, n))))
    M4 = consensus_matrix(np.where(rng.rand(T, n) < 0.7, base, rng.randint(0, 4, (T, n))))
    assert arimm(M3, M4) > 0.1


def test_consensus_matrix_symmetric_unit_diagonal_multiples_of_one_over_t():
    X = np.random.RandomState(0).rand(40, 6)
    labels, ks = random_subspace_ensemble(X, 7, random_state=0)
    M = consensus_matrix(labels)
    assert np.array_equal(M, M.T)
    assert np.all(np.diag(M) == 1.0)
    assert np.allclose(M * 7, np.round(M * 7))
    assert M.min() >= 0 and M.max() <= 1
    # the mean of the members' co-association matrices (eq. 5)
    direct = sum(coassociation_matrix(lab) for lab in labels) / 7
    assert np.allclose(M, direct)


def test_incidence_counts_one_cluster_per_partition():
    labels = np.random.RandomState(0).randint(0, 5, (6, 25))
    H = ensemble_incidence(labels)
    assert np.all(np.asarray(H.sum(axis=1)).ravel() == 6)


def test_ensemble_draws_k_in_range_and_is_reproducible():
    X = np.random.RandomState(0).rand(50, 8)
    a, ka = random_subspace_ensemble(X, 30, max_clusters=20, random_state=3)
    b, kb = random_subspace_ensemble(X, 30, max_clusters=20, random_state=3)
    c, _ = random_subspace_ensemble(X, 30, max_clusters=20, random_state=4)
    assert np.array_equal(a, b) and np.array_equal(ka, kb)
    assert not np.array_equal(a, c)
    assert ka.min() >= 2 and ka.max() <= max_ensemble_clusters(50, 20) == 7
    assert np.all(a.max(axis=1) < ka)


def test_fixed_k_mode():
    X = np.random.RandomState(0).rand(30, 4)
    _, ks = random_subspace_ensemble(X, 5, k_mode="fixed", n_clusters=3, random_state=0)
    assert np.all(ks == 3)


@pytest.mark.parametrize("consensus", ["cspa", "hbgf", "al"])
def test_consensus_clusterers_recover_a_planted_partition(consensus):
    rng = np.random.RandomState(0)
    truth = np.repeat([0, 1, 2], 15)
    # ensemble of noisy copies of the truth, some split further
    labels = []
    for t in range(30):
        lab = truth.copy() * 2 + rng.randint(0, 2, 45) * (t % 2)
        flip = rng.rand(45) < 0.05
        lab[flip] = rng.randint(0, 6, flip.sum())
        labels.append(lab)
    labels = np.array(labels)
    M = consensus_matrix(labels)
    if consensus == "cspa":
        pred = cspa_consensus(M, 3, random_state=0)
    elif consensus == "hbgf":
        pred = hbgf_consensus(labels, 3, random_state=0)
    else:
        pred = average_link_consensus(M, 3)
    assert len(np.unique(pred)) == 3
    assert adjusted_rand(truth, pred) > 0.9


# --- METIS (CSPA and HBGF partition with METIS as Strehl & Ghosh and Fern & Brodley did) ---

def _two_blocks(sizes=(12, 12), weak=0.01, seed=0):
    """Two dense blocks of random similarities in [0.5, 1] joined by one weak edge."""
    rng = np.random.RandomState(seed)
    n = sum(sizes)
    W = np.zeros((n, n))
    start = 0
    for size in sizes:
        block = rng.uniform(0.5, 1.0, (size, size))
        W[start:start + size, start:start + size] = (block + block.T) / 2
        start += size
    W[0, n - 1] = W[n - 1, 0] = weak
    np.fill_diagonal(W, 0.0)
    return W, np.repeat(np.arange(len(sizes)), sizes)


@pytest.mark.parametrize("seed", range(3))
def test_metis_recovers_two_blocks_joined_by_a_weak_edge(seed):
    from fsclust.cluster.consensus import metis_partition

    W, truth = _two_blocks(seed=seed)
    labels = metis_partition(W, 2, random_state=seed)
    assert adjusted_rand(truth, labels) == 1.0
    # the cut is the weak edge alone: no other partition into halves cuts less
    cut = W[labels[:, None] != labels[None, :]].sum() / 2
    assert cut == pytest.approx(0.01)


def test_metis_parts_are_balanced():
    from fsclust.cluster.consensus import metis_partition

    rng = np.random.RandomState(3)
    for n in (60, 600):
        A = rng.rand(n, n)
        W = (A + A.T) / 2  # no structure: balance alone decides the sizes
        for k in (2, 3, 4, 5, 7):
            sizes = np.bincount(metis_partition(W, k, random_state=0), minlength=k)
            # ufactor = 1 per bisection: every size within 2 % of n / k, or two vertices on
            # a small graph (METIS moves whole vertices)
            assert np.all(np.abs(sizes - n / k) <= max(0.02 * n / k, 2)), (n, k, sizes)


def test_metis_is_deterministic_given_the_seed():
    from fsclust.cluster.consensus import metis_partition

    rng = np.random.RandomState(4)
    A = rng.rand(50, 50)
    W = (A + A.T) / 2
    first = metis_partition(W, 4, random_state=11)
    assert np.array_equal(first, metis_partition(W, 4, random_state=11))
    assert np.array_equal(first, metis_partition(W, 4, random_state=np.random.RandomState(11)))
    labels = consensus_matrix(rng.randint(0, 4, (20, 50)))
    assert np.array_equal(cspa_consensus(labels, 3, random_state=5),
                          cspa_consensus(labels, 3, random_state=5))


def test_metis_integer_weights_are_exact_for_a_consensus_matrix():
    """T = 100: the entries are multiples of 1/100, scaled by 1000 they are integers."""
    from fsclust.cluster.consensus import WEIGHT_SCALE

    M = consensus_matrix(np.random.RandomState(0).randint(0, 3, (100, 30)))
    scaled = M * (WEIGHT_SCALE / M.max())
    assert np.allclose(scaled, np.rint(scaled), atol=1e-9)


def test_metis_rejects_bad_graphs():
    from fsclust.cluster.consensus import metis_partition

    with pytest.raises(ValueError, match="symmetric"):
        metis_partition(np.triu(np.ones((4, 4))), 2)
    with pytest.raises(ValueError, match="non-negative"):
        metis_partition(-np.ones((4, 4)), 2)
    with pytest.raises(ValueError, match="n_parts"):
        metis_partition(np.ones((4, 4)), 5)
    with pytest.raises(ValueError, match="partitioner"):
        cspa_consensus(np.ones((4, 4)), 2, partitioner="kway")


def test_hbgf_metis_recovers_a_clear_ensemble():
    truth = np.repeat([0, 1, 2], 10)
    labels = np.array([truth, (truth + 1) % 3, truth, (truth + 2) % 3])
    pred = hbgf_consensus(labels, 3, random_state=0)
    assert adjusted_rand(truth, pred) == 1.0
    assert np.array_equal(pred, hbgf_consensus(labels, 3, random_state=0))


def test_spectral_partitioner_is_the_spectral_computation():
    """partitioner="spectral" keeps what CSPA and HBGF computed before METIS."""
    from sklearn.utils import check_random_state

    from fsclust.cluster import KMeans, SpectralClustering
    from fsclust.cluster.affinity import sklearn_seed

    rng = np.random.RandomState(2)
    labels = rng.randint(0, 4, (15, 40))
    M = consensus_matrix(labels)
    W = M.copy()
    np.fill_diagonal(W, 0.0)
    expected = SpectralClustering(n_clusters=3, laplacian="sym", affinity="precomputed",
                                  random_state=7).fit_predict(W)
    assert np.array_equal(cspa_consensus(M, 3, random_state=7, partitioner="spectral"), expected)

    H = ensemble_incidence(labels).toarray()
    S = H / np.sqrt(H.sum(axis=1))[:, None] / np.sqrt(H.sum(axis=0))[None, :]
    U, _, Vt = np.linalg.svd(S, full_matrices=False)
    emb = np.vstack([U[:, :3], Vt[:3].T])
    emb /= np.linalg.norm(emb, axis=1, keepdims=True)
    seed = sklearn_seed(check_random_state(7))
    expected = KMeans(n_clusters=3, n_init=10, random_state=seed).fit(emb).labels_[:40]
    assert np.array_equal(hbgf_consensus(labels, 3, random_state=7, partitioner="spectral"),
                          expected)
