"""ConsensusCorrelation (Zhang et al. 2012, Figure 3): eta^2 of each feature with a consensus
partition of a cluster ensemble."""

import numpy as np
import pytest
from sklearn.metrics import adjusted_rand_score

from fsclust.cluster.consensus import (
    average_link_consensus,
    consensus_matrix,
    cspa_consensus,
    hbgf_consensus,
)
from fsclust.rankers import FRCM, ConsensusCorrelation

VARIANTS = [("cspa", "metis"), ("cspa", "spectral"), ("hbgf", "metis"), ("hbgf", "spectral"),
            ("average_link", "metis")]


def _data(seed=0, n_per_class=15, d=12):
    """Three groups in the first three features, noise elsewhere."""
    rng = np.random.RandomState(seed)
    y = np.repeat(np.arange(3), n_per_class)
    X = rng.normal(size=(y.size, d))
    X[:, :3] += 4.0 * np.eye(3)[y]
    return X, y


def _ensemble(X, seed=0):
    return FRCM(n_partitions=12, max_clusters=6, random_state=seed).fit(X).ensemble_


@pytest.mark.parametrize("consensus, partitioner", VARIANTS)
def test_the_partition_is_the_consensus_functions(consensus, partitioner):
    X, _ = _data()
    ensemble = _ensemble(X)
    ranker = ConsensusCorrelation(consensus=consensus, n_clusters=4, partitioner=partitioner,
                                  ensemble=ensemble, random_state=7).fit(X)
    M = consensus_matrix(ensemble)
    expected = {
        "cspa": lambda: cspa_consensus(M, 4, random_state=7, partitioner=partitioner),
        "hbgf": lambda: hbgf_consensus(ensemble, 4, random_state=7, partitioner=partitioner),
        "average_link": lambda: average_link_consensus(M, 4),
    }[consensus]()
    np.testing.assert_array_equal(ranker.consensus_labels_, expected)
    np.testing.assert_array_equal(ranker.ensemble_, ensemble)


@pytest.mark.parametrize("consensus, partitioner", VARIANTS)
def test_scores_are_the_share_of_variance_the_partition_explains(consensus, partitioner):
    """eta^2 is the R^2 of each feature's least-squares fit on the cluster indicators."""
    X, _ = _data(1)
    ranker = ConsensusCorrelation(consensus=consensus, n_clusters=3, partitioner=partitioner,
                                  ensemble=_ensemble(X, 1), random_state=0).fit(X)
    labels = ranker.consensus_labels_
    Z = (labels[:, None] == np.unique(labels)[None, :]).astype(float)
    fitted = Z @ np.linalg.lstsq(Z, X, rcond=None)[0]
    Xc = X - X.mean(axis=0)
    r2 = 1.0 - ((X - fitted) ** 2).sum(axis=0) / (Xc**2).sum(axis=0)
    np.testing.assert_allclose(ranker.scores_, r2, rtol=1e-10, atol=1e-12)
    assert np.all((ranker.scores_ >= 0) & (ranker.scores_ <= 1))
    order = np.argsort(-ranker.scores_, kind="stable")
    np.testing.assert_array_equal(ranker.feature_order_, order)


@pytest.mark.parametrize("consensus, partitioner", VARIANTS)
def test_feature_permutation_permutes_the_scores(consensus, partitioner):
    X, _ = _data(2)
    ensemble = _ensemble(X, 2)
    perm = np.random.RandomState(0).permutation(X.shape[1])
    kwargs = dict(consensus=consensus, n_clusters=3, partitioner=partitioner, ensemble=ensemble,
                  random_state=3)
    base = ConsensusCorrelation(**kwargs).fit(X)
    moved = ConsensusCorrelation(**kwargs).fit(X[:, perm])
    np.testing.assert_allclose(moved.scores_, base.scores_[perm], rtol=1e-12, atol=0)


def test_sample_permutation_leaves_the_average_link_scores_unchanged():
    """Average link is deterministic: permuting the samples (and the ensemble's columns)
    permutes its partition, so every eta^2 stays the same."""
    X, _ = _data(3)
    ensemble = _ensemble(X, 3)
    perm = np.random.RandomState(1).permutation(X.shape[0])
    kwargs = dict(consensus="average_link", n_clusters=3)
    base = ConsensusCorrelation(ensemble=ensemble, **kwargs).fit(X)
    moved = ConsensusCorrelation(ensemble=ensemble[:, perm], **kwargs).fit(X[perm])
    assert adjusted_rand_score(base.consensus_labels_[perm], moved.consensus_labels_) == 1.0
    np.testing.assert_allclose(moved.scores_, base.scores_, rtol=1e-10, atol=1e-14)


@pytest.mark.parametrize("consensus, partitioner", VARIANTS)
def test_the_features_of_the_groups_rank_first(consensus, partitioner):
    X, y = _data(4)
    ranker = ConsensusCorrelation(consensus=consensus, n_clusters=3, partitioner=partitioner,
                                  n_partitions=20, max_clusters=6, random_state=0).fit(X)
    assert adjusted_rand_score(y, ranker.consensus_labels_) > 0.9
    assert set(ranker.feature_order_[:3]) == {0, 1, 2}


def test_a_drawn_ensemble_is_frcms_with_the_same_seed():
    X, _ = _data(5)
    ranker = ConsensusCorrelation(n_partitions=9, max_clusters=5, random_state=11).fit(X)
    frcm = FRCM(n_partitions=9, max_clusters=5, random_state=11).fit(X)
    np.testing.assert_array_equal(ranker.ensemble_, frcm.ensemble_)


def test_an_ensemble_of_other_samples_or_too_many_clusters_fail_in_one_line():
    X, _ = _data()
    ensemble = _ensemble(X)
    with pytest.raises(ValueError, match="ensemble has 44 samples, X has 45"):
        ConsensusCorrelation(ensemble=ensemble[:, :-1]).fit(X)
    with pytest.raises(ValueError, match="n_clusters=46 is more than the 45 samples"):
        ConsensusCorrelation(ensemble=ensemble, n_clusters=46).fit(X)
