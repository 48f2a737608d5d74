"""The label-free stability criteria equal their definitions, on cases worked by hand."""

import numpy as np
import pytest
from scipy.stats import norm
from sklearn.metrics import adjusted_rand_score

from fsclust.selection.stability import (clustering_stability, eigengap, kuncheva_index,
                               matched_disagreement, nogueira_stability,
                               proportion_ambiguous_clustering, resampled_consensus_matrix)


def _random_sets(rng, M, d, k):
    """M subsets of k among d features, uniformly at random, as a binary M x d matrix."""
    Z = np.zeros((M, d), dtype=int)
    for i in range(M):
        Z[i, rng.choice(d, k, replace=False)] = 1
    return Z


# --- Nogueira et al.'s feature-set stability ------------------------------------------------

def test_nogueira_three_sets_of_two():
    # p = (1, 2/3, 1/3, 0, 0); sum p(1-p) = 4/9; unbiased: (3/2)(4/9) = 2/3; over d: 2/15.
    # kbar = 2: (2/5)(3/5) = 6/25. Phi = 1 - (2/15)(25/6) = 1 - 5/9 = 4/9
    Z = [[1, 1, 0, 0, 0], [1, 1, 0, 0, 0], [1, 0, 1, 0, 0]]
    assert nogueira_stability(Z).stability == pytest.approx(4 / 9, abs=1e-15)


def test_nogueira_sets_of_different_sizes():
    # p = (1, 1, 1/2, 0, 0, 0); sum p(1-p) = 1/4; unbiased (M = 2): 1/2; over d = 6: 1/12.
    # kbar = 5/2: (5/12)(7/12) = 35/144. Phi = 1 - (1/12)(144/35) = 1 - 12/35 = 23/35
    Z = [[1, 1, 1, 0, 0, 0], [1, 1, 0, 0, 0, 0]]
    assert nogueira_stability(Z).stability == pytest.approx(23 / 35, abs=1e-15)


def test_nogueira_variance_and_interval_by_hand():
    # Z rows {0}, {0, 1}, {1, 2}: k = (1, 2, 2), kbar = 5/3, p = (2/3, 2/3, 1/3), d = 3.
    # sum p(1-p) = 3 * 2/9 = 2/3; (3/2)(2/3)/3 = 1/3; (5/9)(4/9) = 20/81;
    # Phi = 1 - (1/3)(81/20) = -7/20.
    # phi_i * 20/81 = z_i.p/3 - 5 k_i/27 + (-7/40)(10 k_i/27 - k_i/3 - 5/9 + 1):
    #   row 1: 2/9 - 5/27 - (7/40)(13/27) = -51/1080
    #   row 2: 4/9 - 10/27 - (7/40)(14/27) = -18/1080
    #   row 3: 1/3 - 10/27 - (7/40)(14/27) = -138/1080
    # phi = (-51, -18, -138) * 81/21600 = (-51, -18, -138) * 3/800; deviations from the mean
    # -69: (18, 51, -69), squares 324 + 2601 + 4761 = 7686.
    # v = 4/9 * 7686 * (3/800)^2 = 4 * 7686 / 640000 = 30744/640000
    result = nogueira_stability([[1, 0, 0], [1, 1, 0], [0, 1, 1]], alpha=0.1)
    assert result.stability == pytest.approx(-7 / 20, abs=1e-15)
    assert result.variance == pytest.approx(30744 / 640000, rel=1e-12)
    half = norm.ppf(0.95) * np.sqrt(30744 / 640000)
    assert result.lower == pytest.approx(-7 / 20 - half, rel=1e-12)
    assert result.upper == pytest.approx(-7 / 20 + half, rel=1e-12)


def test_nogueira_identical_sets_are_perfectly_stable_with_no_variance():
    result = nogueira_stability([[0, 1, 1, 0]] * 5)
    assert result == (1.0, 0.0, 1.0, 1.0)


def test_nogueira_lower_bound_is_reached_by_complementary_sets():
    # M = 2 halves of d = 2 features: p = (1/2, 1/2); (2)(1/2)/2 = 1/2 over (1/2)(1/2): 1 - 2
    assert nogueira_stability([[1, 0], [0, 1]]).stability == pytest.approx(-1.0)


def test_nogueira_stays_within_its_bounds():
    rng = np.random.RandomState(0)
    for _ in range(200):
        M, d = rng.randint(2, 8), rng.randint(2, 10)
        Z = (rng.rand(M, d) < rng.rand()).astype(int)
        if 0 < Z.sum() < Z.size:  # kbar in (0, d)
            phi = nogueira_stability(Z).stability
            assert -1.0 / (M - 1) - 1e-12 <= phi <= 1.0 + 1e-12


def test_nogueira_has_expectation_zero_for_random_sets_of_one_size():
    # the unbiased s_f^2 has expectation (k/d)(1 - k/d) when sets of k are drawn at random,
    # so E[Phi] = 0; a seeded simulation: the mean within 4 standard errors of 0
    rng = np.random.RandomState(1)
    values = [nogueira_stability(_random_sets(rng, 10, 20, 5)).stability for _ in range(2000)]
    assert abs(np.mean(values)) < 4 * np.std(values) / np.sqrt(len(values))


def test_nogueira_interval_covers_the_population_stability():
    # features drawn independently with probabilities p_f: the population stability is
    # 1 - mean p(1-p) / ((kbar/d)(1 - kbar/d)) with kbar = sum p. The 90 % intervals of
    # 1000 seeded samples of M = 100 sets should cover it about 900 times (sd 9.5); the
    # variance estimate should match the spread of the estimates
    rng = np.random.RandomState(2)
    p = np.array([0.95, 0.9, 0.8, 0.6, 0.3, 0.1, 0.1, 0.05, 0.05, 0.05])
    kbar, d = p.sum(), p.size
    population = 1 - np.mean(p * (1 - p)) / ((kbar / d) * (1 - kbar / d))
    results = [nogueira_stability((rng.rand(100, d) < p).astype(int), alpha=0.1)
               for _ in range(1000)]
    covered = sum(r.lower <= population <= r.upper for r in results)
    assert 850 <= covered <= 950
    spread = np.var([r.stability for r in results])
    assert 0.8 < np.mean([r.variance for r in results]) / spread < 1.25


def test_nogueira_undefined_when_every_set_is_empty_or_full():
    for Z in ([[0, 0, 0], [0, 0, 0]], [[1, 1], [1, 1]]):
        with pytest.raises(ValueError, match="undefined"):
            nogueira_stability(Z)
    with pytest.raises(ValueError, match="binary"):
        nogueira_stability([[0, 2], [1, 0]])
    with pytest.raises(ValueError, match="M >= 2"):
        nogueira_stability([[0, 1]])
    with pytest.raises(ValueError, match="alpha"):
        nogueira_stability([[0, 1], [1, 0]], alpha=1.0)


# --- Kuncheva's index -------------------------------------------------------------------------

def test_kuncheva_three_sets_of_two():
    # pairs share 2, 1, 1 of d = 5 with k = 2: (2*5 - 4)/6 = 1, (5 - 4)/6 = 1/6 twice:
    # mean (1 + 1/6 + 1/6)/3 = 4/9
    Z = [[1, 1, 0, 0, 0], [1, 1, 0, 0, 0], [1, 0, 1, 0, 0]]
    assert kuncheva_index(Z) == pytest.approx(4 / 9, abs=1e-15)


def test_kuncheva_bounds():
    # disjoint halves: (0 - 4)/(2 * 2) = -1; identical sets: (2*4 - 4)/4 = 1
    assert kuncheva_index([[1, 1, 0, 0], [0, 0, 1, 1]]) == -1.0
    assert kuncheva_index([[1, 1, 0, 0], [1, 1, 0, 0]]) == 1.0


def test_kuncheva_is_nogueira_when_every_set_has_one_size():
    # Nogueira's Phi is (mean_{i != j} r_ij - k^2/d) / (k - k^2/d) (its docstring's
    # derivation), Kuncheva's index averaged over pairs when every k_i = k
    rng = np.random.RandomState(3)
    for M, d, k in [(2, 5, 2), (7, 30, 4), (12, 9, 8)]:
        Z = _random_sets(rng, M, d, k)
        assert kuncheva_index(Z) == pytest.approx(nogueira_stability(Z).stability, abs=1e-12)


@pytest.mark.parametrize("Z, message", [([[0, 0, 0], [0, 0, 0]], "undefined"),
                                        ([[1, 1, 1], [1, 1, 1]], "undefined"),
                                        ([[1, 0, 0], [1, 1, 0]], "one size")])
def test_kuncheva_refuses_what_it_does_not_define(Z, message):
    with pytest.raises(ValueError, match=message):
        kuncheva_index(Z)


# --- stability of subsample clusterings -------------------------------------------------------

#: Two subsamples of 8 samples sharing samples 0-5, clustered (0,0,0,1,1,1) and (0,0,1,1,2,2)
#: there; samples 6 and 7 are in one subsample each.
SUBSAMPLES = [[0, 1, 2, 3, 4, 5, 6], [7, 0, 1, 2, 3, 4, 5]]
LABELS = [[0, 0, 0, 1, 1, 1, 0], [2, 0, 0, 1, 1, 2, 2]]


def test_pairwise_ari_on_the_shared_samples_by_hand():
    # contingency of the shared samples: rows (2, 1, 0), (0, 1, 2): sum C(n_ij, 2) = 2;
    # rows C(3,2) * 2 = 6, columns C(2,2) * 3 = 3, pairs C(6,2) = 15; expected 6 * 3/15 = 6/5;
    # ARI = (2 - 6/5) / ((6 + 3)/2 - 6/5) = 0.8/3.3 = 8/33
    result = clustering_stability(SUBSAMPLES, LABELS, 8, random_state=0)
    assert result.pairwise[0, 1] == pytest.approx(8 / 33, abs=1e-15)
    assert result.score == pytest.approx(8 / 33, abs=1e-15)
    assert np.isnan(result.pairwise[0, 0])


def test_matched_disagreement_on_the_shared_samples_by_hand():
    # best matching: cluster 0 -> 0 (2 samples), 1 -> 2 (2 samples): 4 of 6 agree
    result = clustering_stability(SUBSAMPLES, LABELS, 8, score="disagreement", random_state=0)
    assert result.score == pytest.approx(1 / 3, abs=1e-15)
    assert matched_disagreement([0, 0, 0, 1, 1, 1], [0, 0, 1, 1, 2, 2]) == pytest.approx(1 / 3)


def _noisy_subsample_clusterings(rng, n=60, R=8, fraction=0.8, flip=0.2, k=3):
    """Subsamples of a k-group partition, each labelled with a fraction ``flip`` of random
    labels and its cluster names permuted."""
    truth = np.arange(n) % k
    subsamples, labels = [], []
    for _ in range(R):
        index = rng.choice(n, int(fraction * n), replace=False)
        lab = truth[index].copy()
        noisy = rng.rand(index.size) < flip
        lab[noisy] = rng.randint(0, k, noisy.sum())
        subsamples.append(index)
        labels.append(rng.permutation(k)[lab] + 10)
    return subsamples, labels


@pytest.mark.parametrize("score", ["ari", "disagreement"])
def test_every_pair_equals_the_definition_on_its_shared_samples(score):
    rng = np.random.RandomState(4)
    subsamples, labels = _noisy_subsample_clusterings(rng, flip=0.4)
    reference = {"ari": adjusted_rand_score, "disagreement": matched_disagreement}[score]
    result = clustering_stability(subsamples, labels, 60, score=score, random_state=0)
    for r in range(len(subsamples)):
        for s in range(r + 1, len(subsamples)):
            shared, in_r, in_s = np.intersect1d(subsamples[r], subsamples[s],
                                                return_indices=True)
            expected = reference(labels[r][in_r], labels[s][in_s])
            assert result.pairwise[r, s] == pytest.approx(expected, abs=1e-12)
            assert result.pairwise[s, r] == result.pairwise[r, s]
    upper = result.pairwise[np.triu_indices(len(subsamples), 1)]
    assert result.score == pytest.approx(upper.mean(), abs=1e-12)


def test_the_same_partition_everywhere_is_perfectly_stable():
    rng = np.random.RandomState(5)
    subsamples, labels = _noisy_subsample_clusterings(rng, flip=0.0)
    for score, perfect in [("ari", 1.0), ("disagreement", 0.0)]:
        result = clustering_stability(subsamples, labels, 60, score=score, random_state=0)
        assert result.score == pytest.approx(perfect, abs=1e-12)
        assert result.std_error == pytest.approx(0.0, abs=1e-12)
        assert result.normalized == pytest.approx(0.0, abs=1e-12)


@pytest.mark.parametrize("score", ["ari", "disagreement"])
def test_random_labels_are_as_unstable_as_random_labellings(score):
    # Lange et al.'s normalisation: about 1 for clusterings no better than chance
    rng = np.random.RandomState(6)
    subsamples = [rng.choice(200, 160, replace=False) for _ in range(10)]
    labels = [rng.randint(0, 3, 160) for _ in range(10)]
    result = clustering_stability(subsamples, labels, 200, score=score, random_state=0)
    assert abs(result.normalized - 1.0) < 0.05


def test_result_is_seeded_and_ignores_cluster_names():
    rng = np.random.RandomState(7)
    subsamples, labels = _noisy_subsample_clusterings(rng)
    first = clustering_stability(subsamples, labels, 60, random_state=3)
    renamed = [np.array(["abc"[code % 3] for code in lab]) for lab in labels]
    again = clustering_stability(subsamples, renamed, 60, random_state=3)
    assert first.score == again.score and first.random_score == again.random_score
    assert first.normalized == again.normalized


def test_standard_error_matches_the_spread_over_independent_replications():
    # the pairs share subsamples: the error of their mean is the U-statistic's, not
    # sd/sqrt(#pairs); over 300 seeded replications, the mean estimated error should match
    # the observed spread of the score
    rng = np.random.RandomState(8)
    scores, errors = [], []
    for _ in range(300):
        subsamples, labels = _noisy_subsample_clusterings(rng, R=10)
        result = clustering_stability(subsamples, labels, 60, n_random=1, random_state=0)
        scores.append(result.score)
        errors.append(result.std_error)
    assert 0.75 < np.mean(errors) / np.std(scores) < 1.33


@pytest.mark.parametrize("subsamples, labels, message", [
    ([[0, 0, 1], [1, 2, 3]], [[0, 1, 1], [0, 1, 1]], "twice"),
    ([[0, 1], [1, 2, 3]], [[0, 1, 1], [0, 1, 1]], "labels for"),
    ([[0, 1, 2], [2, 3, 4]], [[0, 1, 1], [0, 1, 1]], "share 1 sample"),
    ([[0, 1, 9]], [[0, 1, 1]], "at least 2"),
])
def test_clustering_stability_refuses_bad_subsamples(subsamples, labels, message):
    with pytest.raises(ValueError, match=message):
        clustering_stability(subsamples, labels, 5)


# --- consensus matrix and PAC -----------------------------------------------------------------

def test_consensus_matrix_equals_the_definition():
    # Monti et al.: co-clustered over co-sampled, pair by pair
    rng = np.random.RandomState(9)
    n = 12
    subsamples, labels = [], []
    for _ in range(15):
        index = rng.choice(n, 7, replace=False)
        subsamples.append(index)
        labels.append(rng.randint(0, 3, 7))
    consensus, co_sampled = resampled_consensus_matrix(subsamples, labels, n)
    for i in range(n):
        for j in range(n):
            together = sampled = 0
            for index, lab in zip(subsamples, labels):
                where = {sample: position for position, sample in enumerate(index)}
                if i in where and j in where:
                    sampled += 1
                    together += lab[where[i]] == lab[where[j]]
            assert co_sampled[i, j] == sampled
            if sampled:
                assert consensus[i, j] == pytest.approx(together / sampled, abs=1e-15)
            else:
                assert np.isnan(consensus[i, j])


def test_pac_counts_the_pairs_in_the_ambiguous_interval_by_hand():
    # the six pairs' consensus 0.05, 0.1, 0.5, 0.9, 0.95, 1.0; CDF(0.9) - CDF(0.1) counts
    # u1 < c <= u2: 0.5 and 0.9, so 2/6
    C = np.eye(4)
    C[np.triu_indices(4, 1)] = [0.05, 0.1, 0.5, 0.9, 0.95, 1.0]
    C = np.maximum(C, C.T)
    assert proportion_ambiguous_clustering(C) == pytest.approx(1 / 3)
    # pairs never drawn together (NaN) are left out: 1 ambiguous of the 5 others
    C[0, 3] = C[3, 0] = np.nan
    assert proportion_ambiguous_clustering(C) == pytest.approx(1 / 5)


def test_pac_of_a_stable_clustering_is_zero():
    rng = np.random.RandomState(10)
    subsamples, labels = _noisy_subsample_clusterings(rng, flip=0.0)
    consensus, _ = resampled_consensus_matrix(subsamples, labels, 60)
    assert proportion_ambiguous_clustering(consensus) == 0.0


# --- eigengap ---------------------------------------------------------------------------------

def _cliques(*sizes):
    n = sum(sizes)
    W, start = np.zeros((n, n)), 0
    for size in sizes:
        W[start:start + size, start:start + size] = 1.0
        start += size
    np.fill_diagonal(W, 0.0)
    return W


def test_eigengap_finds_three_cliques_by_hand():
    # L_sym of a clique of m nodes has eigenvalues 0 and m/(m-1) (m-1 times): cliques of
    # 3, 4, 5 give 0, 0, 0, then 5/4, 4/3, ...: the gap after the third is 5/4
    k, gaps, values = eigengap(_cliques(3, 4, 5), 5)
    assert k == 3
    np.testing.assert_allclose(values[:3], 0.0, atol=1e-12)
    assert gaps[2] == pytest.approx(5 / 4)
    assert gaps.shape == (5,) and values.shape == (6,)


def test_eigengap_eigenvalues_are_those_of_the_normalised_laplacian():
    rng = np.random.RandomState(11)
    A = rng.rand(15, 15)
    W = A + A.T
    np.fill_diagonal(W, 0.0)
    d = W.sum(axis=1)
    L_sym = np.eye(15) - W / np.sqrt(np.outer(d, d))
    _, gaps, values = eigengap(W, 6)
    np.testing.assert_allclose(values, np.linalg.eigvalsh(L_sym)[:7], atol=1e-12)
    np.testing.assert_allclose(gaps, np.diff(values))


def test_eigengap_counts_from_min_clusters():
    # the complete graph on 6 nodes: eigenvalues 0 and 6/5 (5 times), gaps (6/5, 0, 0): one
    # cluster, which only min_clusters=1 may choose; from 2 on, no gap, the first K wins
    k1, gaps, _ = eigengap(_cliques(6), 3, min_clusters=1)
    np.testing.assert_allclose(gaps, [6 / 5, 0.0, 0.0], atol=1e-12)
    assert k1 == 1
    assert eigengap(_cliques(6), 3)[0] == 2
    with pytest.raises(ValueError, match="max_clusters"):
        eigengap(_cliques(6), 6)
