import pytest

from fsclust.registry import (
    CLUSTERERS,
    RANKERS,
    UnknownNameError,
    clusterer_class,
    make_clusterer,
    make_ranker,
    ranker_class,
)


@pytest.mark.parametrize("name", sorted(RANKERS))
def test_every_registered_ranker_imports(name):
    assert hasattr(ranker_class(name), "fit")


@pytest.mark.parametrize("name", sorted(CLUSTERERS))
def test_every_registered_clusterer_imports(name):
    assert hasattr(clusterer_class(name), "fit_predict")


def test_unknown_method_lists_the_valid_names():
    with pytest.raises(UnknownNameError) as err:
        make_ranker("no-such-method")
    for name in RANKERS:
        assert name in str(err.value)


def test_unknown_clusterer_lists_the_valid_names():
    with pytest.raises(UnknownNameError) as err:
        make_clusterer("no-such-clusterer")
    for name in CLUSTERERS:
        assert name in str(err.value)


def test_unknown_parameter_names_it_and_lists_the_valid_ones():
    with pytest.raises(UnknownNameError, match="n_neighbours.*valid parameters.*n_neighbors"):
        make_ranker("laplacian", {"n_neighbours": 3})


def test_k_and_seed_reach_only_estimators_that_take_them():
    km = make_clusterer("kmeans", n_clusters=4, random_state=7)
    assert (km.n_clusters, km.random_state) == (4, 7)
    # the variance score takes neither: passing them must not fail
    make_ranker("variance", n_clusters=4, random_state=7)


def test_presets_set_their_parameters_and_user_params_win():
    assert make_clusterer("njw").laplacian == "sym"
    assert make_clusterer("spectral-rw").laplacian == "rw"
    assert make_clusterer("njw", {"laplacian": "rw"}).laplacian == "rw"


def test_the_all_features_control_is_one_reserved_name():
    """One name for the all-features control in every table and file (the papers' "nofs"):
    no ranker takes it, and the workflow, the studies and the reports ask the registry."""
    from fsclust import registry

    assert registry.ALL_FEATURES == "all-features"
    assert registry.ALL_FEATURES not in registry.method_names()
