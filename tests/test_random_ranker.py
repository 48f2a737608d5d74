"""The random control ranker, and the registry's roles that keep it out of "every method"."""

import itertools

import numpy as np
import pytest
from scipy.stats import chisquare

from fsclust.rankers import RandomRanking
from fsclust.registry import (RANKERS, ROLES, make_ranker, method_names, method_names_by_role,
                              ranker_class)


@pytest.fixture(scope="module")
def X():
    return np.random.RandomState(1).normal(size=(12, 6))


def test_the_same_seed_gives_the_same_order_and_another_seed_another(X):
    first = RandomRanking(random_state=3).fit(X).feature_order_
    np.testing.assert_array_equal(RandomRanking(random_state=3).fit(X).feature_order_, first)
    # 6! = 720 orders: ten seeds that all drew the same one would be a fixed order
    others = {tuple(RandomRanking(random_state=s).fit(X).feature_order_) for s in range(10)}
    assert len(others) > 1


def test_the_order_ignores_the_data(X):
    # a control: the draw depends on the seed and the number of features only
    other = np.random.RandomState(2).exponential(size=(30, 6))
    np.testing.assert_array_equal(RandomRanking(random_state=5).fit(X).feature_order_,
                                  RandomRanking(random_state=5).fit(other).feature_order_)


def test_scores_are_higher_for_earlier_features_and_never_tie(X):
    ranker = RandomRanking(random_state=0).fit(X)
    assert np.unique(ranker.scores_).size == X.shape[1]
    assert np.all(np.diff(ranker.scores_[ranker.feature_order_]) < 0)


def test_constant_features_go_last_and_the_others_stay_random(X):
    Xc = X.copy()
    Xc[:, 2] = 4.0
    orders = [RandomRanking(random_state=s).fit(Xc).feature_order_ for s in range(20)]
    assert all(order[-1] == 2 for order in orders)
    assert len({order[0] for order in orders}) > 1


def test_every_order_is_equally_likely():
    # 2400 seeds over the 4! = 24 orders of 4 features: 100 expected of each. A chi-square
    # test at level 1e-3 fails a uniform draw once in a thousand seeds of this test; the
    # seeds are fixed, so it is deterministic.
    X4 = np.random.RandomState(0).normal(size=(5, 4))
    counts = dict.fromkeys(itertools.permutations(range(4)), 0)
    for seed in range(2400):
        counts[tuple(RandomRanking(random_state=seed).fit(X4).feature_order_.tolist())] += 1
    assert min(counts.values()) > 0
    assert chisquare(list(counts.values())).pvalue > 1e-3


def test_registered_as_the_random_control():
    assert ranker_class("random") is RandomRanking
    assert make_ranker("random", random_state=7).random_state == 7
    assert RANKERS["random"].role == "control"


# --- roles in the registry --------------------------------------------------------------------

def test_every_entry_has_a_known_role():
    assert {entry.role for entry in RANKERS.values()} <= set(ROLES)


def test_roles_split_the_registered_rankers():
    by_role = [method_names_by_role(role) for role in ROLES]
    assert sorted(itertools.chain(*by_role)) == method_names()
    assert len(set(itertools.chain(*by_role))) == len(method_names())


def test_every_method_leaves_out_the_control_and_the_paper_error():
    methods = method_names_by_role()  # "method" is the default
    assert "random" not in methods and "laplacian_largest_first" not in methods
    assert {"variance", "laplacian"} <= set(methods)
    assert method_names_by_role("paper-error") == ["laplacian_largest_first"]


def test_unknown_role_is_refused_naming_the_valid_ones():
    with pytest.raises(ValueError, match="control"):
        method_names_by_role("baseline")
