"""Properties and reference values of ACC, NMI and ARI (spec methods-baselines 12)."""

import numpy as np
import pytest

from fsclust.metrics import (
    METRICS,
    adjusted_rand,
    clustering_accuracy,
    evaluate,
    normalized_mutual_info,
)

# the spec's reference vectors (values derived by hand in spec 12.1-12.3)
A_TRUE, A_PRED = [0, 0, 0, 1, 1, 1], [0, 0, 1, 1, 2, 2]
B_TRUE, B_PRED = [0, 0, 1, 1, 2, 2, 2, 3], [1, 1, 0, 0, 2, 2, 3, 3]


def _relabel(labels, rng):
    labels = np.asarray(labels)
    values = np.unique(labels)
    new = rng.permutation(len(values)) + 7  # other values, another order
    return new[np.searchsorted(values, labels)]


def test_acc_reference_vectors():
    assert clustering_accuracy(A_TRUE, A_PRED) == pytest.approx(4 / 6)
    assert clustering_accuracy(B_TRUE, B_PRED) == pytest.approx(0.875)


def test_acc_is_one_exactly_on_a_relabelled_perfect_clustering():
    rng = np.random.RandomState(0)
    y = rng.randint(0, 5, size=100)
    assert clustering_accuracy(y, _relabel(y, rng)) == 1.0
    # and below one as soon as one sample moves
    y_pred = y.copy()
    y_pred[0] = (y[0] + 1) % 5
    assert clustering_accuracy(y, y_pred) < 1.0


def test_acc_invariant_to_label_permutations_and_bounded_below_by_best_cell():
    rng = np.random.RandomState(1)
    for _ in range(20):
        y = rng.randint(0, 4, size=60)
        p = rng.randint(0, 6, size=60)
        acc = clustering_accuracy(y, p)
        assert clustering_accuracy(_relabel(y, rng), _relabel(p, rng)) == pytest.approx(acc)
        best_cell = max(np.sum((y == a) & (p == b)) for a in range(4) for b in range(6))
        assert acc >= best_cell / 60
        assert 0 <= acc <= 1


def test_acc_counts_unmatched_clusters_as_errors():
    # three clusters for two classes: the third cluster cannot be matched
    assert clustering_accuracy([0, 0, 1, 1], [0, 0, 1, 2]) == pytest.approx(3 / 4)
    # fewer clusters than classes
    assert clustering_accuracy([0, 1, 2, 2], [0, 0, 1, 1]) == pytest.approx(3 / 4)


def test_acc_accepts_string_labels():
    assert clustering_accuracy(["a", "a", "b"], [5, 5, 9]) == 1.0


def test_nmi_reference_vectors():
    # MI = (2/3) ln 2, H(U) = ln 2, H(V) = ln 3
    mi, hu, hv = 2 / 3 * np.log(2), np.log(2), np.log(3)
    assert normalized_mutual_info(A_TRUE, A_PRED) == pytest.approx(mi / np.sqrt(hu * hv))
    assert normalized_mutual_info(A_TRUE, A_PRED) == pytest.approx(0.529541, abs=1e-6)
    assert normalized_mutual_info(A_TRUE, A_PRED, "arithmetic") == pytest.approx(0.515804, abs=1e-6)
    assert normalized_mutual_info(A_TRUE, A_PRED, "max") == pytest.approx(0.420620, abs=1e-6)
    assert normalized_mutual_info(B_TRUE, B_PRED) == pytest.approx(0.848067, abs=1e-6)
    assert normalized_mutual_info(B_TRUE, B_PRED, "arithmetic") == pytest.approx(0.847820, abs=1e-6)
    assert normalized_mutual_info(B_TRUE, B_PRED, "max") == pytest.approx(0.827820, abs=1e-6)


def test_nmi_symmetric_bounded_and_one_on_identical_partitions():
    rng = np.random.RandomState(2)
    for _ in range(20):
        y = rng.randint(0, 4, size=50)
        p = rng.randint(0, 3, size=50)
        for method in ("geometric", "arithmetic", "max"):
            value = normalized_mutual_info(y, p, method)
            assert value == pytest.approx(normalized_mutual_info(p, y, method))
            assert 0 <= value <= 1
            assert normalized_mutual_info(_relabel(y, rng), p, method) == pytest.approx(value)
        assert normalized_mutual_info(y, _relabel(y, rng)) == pytest.approx(1.0)


def test_nmi_normalisations_are_ordered():
    # max(H) >= arithmetic mean >= geometric mean, so the NMIs go the other way
    g = normalized_mutual_info(B_TRUE, B_PRED, "geometric")
    a = normalized_mutual_info(B_TRUE, B_PRED, "arithmetic")
    m = normalized_mutual_info(B_TRUE, B_PRED, "max")
    assert g >= a >= m


def test_nmi_rejects_unknown_normalisation():
    with pytest.raises(ValueError, match="average_method"):
        normalized_mutual_info(A_TRUE, A_PRED, "min")


def test_ari_reference_vectors_and_identity():
    assert adjusted_rand(A_TRUE, A_PRED) == pytest.approx(8 / 33)
    assert adjusted_rand(B_TRUE, B_PRED) == pytest.approx(0.603774, abs=1e-6)
    rng = np.random.RandomState(3)
    y = rng.randint(0, 3, size=30)
    assert adjusted_rand(y, _relabel(y, rng)) == pytest.approx(1.0)


def test_ari_symmetric_and_about_zero_for_random_labelings():
    rng = np.random.RandomState(4)
    values = []
    for _ in range(200):
        y = rng.randint(0, 4, size=500)
        p = rng.randint(0, 4, size=500)
        values.append(adjusted_rand(y, p))
        assert values[-1] == pytest.approx(adjusted_rand(p, y))
    assert abs(np.mean(values)) < 0.01
    assert min(values) < 0  # ARI can be negative


def test_evaluate_and_metric_table():
    assert set(METRICS) == {"acc", "nmi", "nmi_arithmetic", "nmi_max", "ari"}
    scores = evaluate(A_TRUE, A_PRED, metrics=("acc", "nmi", "nmi_arithmetic", "nmi_max", "ari"))
    assert list(scores) == ["acc", "nmi", "nmi_arithmetic", "nmi_max", "ari"]
    assert scores["acc"] == pytest.approx(4 / 6)
    assert scores["nmi"] == pytest.approx(normalized_mutual_info(A_TRUE, A_PRED, "geometric"))
    assert scores["nmi_max"] == pytest.approx(normalized_mutual_info(A_TRUE, A_PRED, "max"))
    assert scores["ari"] == pytest.approx(8 / 33)
    assert set(evaluate(A_TRUE, A_PRED)) == {"acc", "nmi", "ari"}


def test_evaluate_rejects_unknown_metric_listing_valid_names():
    with pytest.raises(ValueError, match="nmi_arithmetic"):
        evaluate(A_TRUE, A_PRED, metrics=("acc", "f1"))


def test_label_arrays_must_match():
    with pytest.raises(ValueError, match="lengths"):
        clustering_accuracy([0, 1], [0, 1, 1])
