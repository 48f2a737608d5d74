"""Shi's MATLAB Ncut behaviour (ncutW: offset, valeurMin, discretisation) as an option of
NormalizedCut, and the spectrum diagnostic used for Zeng & Cheung 2008's gene sets."""

import numpy as np
import pytest
from scipy.stats import ortho_group
from sklearn.datasets import make_blobs
from sklearn.metrics import adjusted_rand_score

from fsclust.cluster import NormalizedCut
from fsclust.cluster.ncut import discretize_ncutw, ncut_spectrum
from fsclust.metrics import clustering_accuracy


def _blocks(sizes, seed):
    rng = np.random.RandomState(seed)
    n = sum(sizes)
    y = np.repeat(np.arange(len(sizes)), sizes)
    W = rng.uniform(0.2, 1.0, size=(n, n)) * (y[:, None] == y[None, :])
    W = W + W.T
    np.fill_diagonal(W, 0.0)
    perm = rng.permutation(n)
    return W[np.ix_(perm, perm)], y[perm]


def _ncut_value(W, labels):
    """sum_k cut(A_k, complement) / assoc(A_k, V): the multiclass normalized cut."""
    d = W.sum(axis=1)
    return sum(W[labels == k][:, labels != k].sum() / d[labels == k].sum()
               for k in np.unique(labels))


def test_discretisation_recovers_a_rotated_indicator_exactly():
    # Z = X0 R0: the relaxed solution of a perfectly separable problem, rotated at random;
    # the Yu-Shi optimum is X0 itself (Ncut value 2 (n - trace S) = 0)
    rng = np.random.RandomState(0)
    y = rng.randint(0, 4, size=40)
    y[:4] = np.arange(4)
    X0 = np.eye(4)[y] * rng.uniform(0.5, 2.0, size=(40, 1))  # rows of any positive length
    Z = X0 @ ortho_group.rvs(4, random_state=1)
    labels = discretize_ncutw(Z)
    assert clustering_accuracy(y, labels) == 1.0


@pytest.mark.parametrize("offset", [0.0, 0.5])
def test_ncutw_finds_the_zero_cut_of_a_block_graph(offset):
    W, y = _blocks((8, 11, 6, 9), 1)
    labels = NormalizedCut(4, affinity="precomputed", discretization="ncutW",
                           offset=offset).fit_predict(W)
    assert clustering_accuracy(y, labels) == 1.0
    assert _ncut_value(W, labels) == pytest.approx(0.0, abs=1e-12)
    # deterministic: the rotation starts from the middle sample, not from random_state
    again = NormalizedCut(4, affinity="precomputed", discretization="ncutW", offset=offset,
                          random_state=123).fit_predict(W)
    assert np.array_equal(labels, again)


def test_ncutw_agrees_with_scikit_learns_discretisation_on_clear_blobs():
    X, y = make_blobs(n_samples=90, centers=[[0, 0], [8, 0], [0, 8]], cluster_std=0.5,
                      random_state=2)
    ours = NormalizedCut(3, random_state=0).fit_predict(X)
    shi = NormalizedCut(3, discretization="ncutW").fit_predict(X)
    assert clustering_accuracy(y, ours) == clustering_accuracy(y, shi) == 1.0


def test_offset_makes_an_isolated_node_well_posed():
    W, _ = _blocks((5, 6), 3)
    W[0, :] = W[:, 0] = 0.0
    # no offset: a zero degree, D^-1/2 is undefined
    with pytest.raises(ValueError, match="zero degree"):
        ncut_spectrum(W, 3)
    # the toolbox offset: degree 2 * offset, the isolated node an eigenvector of value 1/2,
    lam = ncut_spectrum(W, W.shape[0], offset=0.5)
    assert np.all(np.isfinite(lam)) and lam.max() <= 1.0 + 1e-12
    assert np.any(np.isclose(lam, 0.5))
    # ncutW, as MATLAB's max, puts the sample somewhere instead of raising
    labels = NormalizedCut(2, affinity="precomputed", discretization="ncutW",
                           offset=0.5).fit_predict(W)
    assert labels.shape == (W.shape[0],)


def test_spectrum_has_eigenvalue_one_once_per_connected_component():
    W, _ = _blocks((4, 5, 6), 4)
    lam = ncut_spectrum(W, 4)
    assert np.allclose(lam[:3], 1.0) and lam[3] < 1.0 - 1e-3
    assert np.all(np.diff(lam) <= 1e-12)  # descending


def test_toolbox_valeurmin_empties_a_narrow_kernel_graph():
    # Zeng & Cheung 2008's t = 0.0025 max d^2 on 200-D data: every affinity is below the
    # toolbox's valeurMin = 1e-6, so Shi's ncutW sees no edge and returns one big cluster and
    # singletons, while our Ncut (no sparsification, no offset) still cuts the tiny weights
    X, y = make_blobs(n_samples=60, n_features=200, centers=3, cluster_std=3.0, random_state=5)
    ours = NormalizedCut(3, random_state=0).fit(X)
    W = ours.affinity_matrix_
    off_diagonal = W[~np.eye(len(y), dtype=bool)]
    assert off_diagonal.max() < 1e-6
    assert clustering_accuracy(y, ours.labels_) == 1.0
    shi = NormalizedCut(3, discretization="ncutW", offset=0.5, min_affinity=1e-6).fit_predict(X)
    sizes = np.sort(np.bincount(shi))[::-1]
    assert sizes[0] >= len(y) - 2 and np.all(sizes[1:] == 1)


@pytest.mark.parametrize("discretization", ["sklearn", "ncutW"])
def test_the_partition_does_not_depend_on_the_solvers_basis(monkeypatch, discretization):
    # Neither discretisation is rotation invariant (both scale the columns of D^-1/2 V to
    # one norm first), and on a nearly disconnected graph the solver's basis of the top
    # eigenspace is arbitrary: any rotation of it must give the same partition. Without the
    # subspace's own basis, 3 of the 40 rotations below (and OpenBLAS's SandyBridge
    # kernels in the narrow-kernel test above) change the partition; with ncutW 9 of 40.
    import fsclust.cluster.ncut as ncut

    X, _ = make_blobs(n_samples=60, n_features=200, centers=3, cluster_std=3.0, random_state=5)
    model = NormalizedCut(3, discretization=discretization, random_state=0)
    expected = model.fit_predict(X)
    solver = ncut.largest_eigenvectors
    for seed in range(40):
        R = ortho_group.rvs(3, random_state=seed)

        def rotated(M, k, **kwargs):
            values, V = solver(M, k, **kwargs)
            return values, V @ R

        monkeypatch.setattr(ncut, "largest_eigenvectors", rotated)
        # the same partition (its cluster numbers may differ)
        assert adjusted_rand_score(expected, model.fit_predict(X)) == 1.0


def test_unknown_discretisation_is_a_clear_error():
    with pytest.raises(ValueError, match="'discretization'") as error:
        NormalizedCut(2, discretization="kmeans").fit(np.random.RandomState(0).rand(10, 2))
    assert "'sklearn'" in str(error.value) and "'ncutW'" in str(error.value)
