"""Clusterers declare their parameters once (``_parameter_constraints``) and their distance space
as a tag (issue 22).

A wrong value fails at ``fit`` with one line naming the parameter and what it may be; the tag
names the squared distances ``fit`` accepts, which the sweep accumulates.
"""

import inspect
from pathlib import Path

import numpy as np
import pytest
import yaml
from sklearn.cluster import KMeans as SklearnKMeans

from fsclust.cluster import LLC, KernelKMeans, KMeans, NormalizedCut, SpectralClustering
from fsclust.cluster import distance_space
from fsclust.graphs import SCALINGS, scaled_sq_distances
from fsclust.graphs import squared_distances
from fsclust.registry import CLUSTERERS, clusterer_class, make_clusterer

ROOT = Path(__file__).resolve().parents[1]
X = np.random.RandomState(0).normal(size=(30, 4))


def _fit_error(model):
    with pytest.raises(ValueError) as error:
        model.fit(X)
    message = str(error.value)
    assert "\n" not in message
    return message


# one wrong value per clusterer and kind, with what the message must name
RANGE = [
    (KMeans(n_init=0), "n_init", "[1, inf)"),
    (SpectralClustering(n_neighbors=-3), "n_neighbors", "[1, inf)"),
    (NormalizedCut(offset=-0.5), "offset", "[0.0, inf)"),
    (KernelKMeans(sigma=0.0), "sigma", "(0.0, inf)"),
    (LLC(n_neighbors=-3), "n_neighbors", "[1, inf)"),
]
CHOICE = [
    (KMeans(init="kmeans++"), "init", {"k-means++", "random"}),
    (SpectralClustering(laplacian="lrw"), "laplacian", {"unnormalized", "rw", "sym"}),
    (NormalizedCut(discretization="kmeans"), "discretization", {"sklearn", "ncutW"}),
    (KernelKMeans(scale="unit"), "scale", set(SCALINGS)),
    (LLC(neighborhood="shared"), "neighborhood", {"mutual", "knn"}),
]
TYPE = [
    (KMeans(n_init="ten"), "n_init", "an int"),
    (SpectralClustering(n_clusters=2.0), "n_clusters", "an int"),
    (NormalizedCut(t="wide"), "t", "a float"),
    (KernelKMeans(n_init=2.5), "n_init", "an int"),
    (LLC(append_one="yes"), "append_one", "bool"),
]


def _ids(cases):
    return [f"{type(model).__name__}-{name}" for model, name, _ in cases]


@pytest.mark.parametrize("model, name, bounds", RANGE, ids=_ids(RANGE))
def test_a_value_out_of_range_names_the_parameter_and_the_range(model, name, bounds):
    message = _fit_error(model)
    assert f"'{name}'" in message and bounds in message


@pytest.mark.parametrize("model, name, choices", CHOICE, ids=_ids(CHOICE))
def test_an_unknown_choice_names_the_parameter_and_every_choice(model, name, choices):
    message = _fit_error(model)
    assert f"'{name}'" in message
    assert all(f"'{choice}'" in message for choice in choices)


@pytest.mark.parametrize("model, name, kind", TYPE, ids=_ids(TYPE))
def test_a_value_of_the_wrong_type_names_the_parameter_and_the_type(model, name, kind):
    message = _fit_error(model)
    assert f"'{name}'" in message and kind in message


def test_a_data_dependent_bound_is_checked_against_the_data():
    message = _fit_error(KMeans(n_clusters=31))
    assert "n_clusters=31" in message and "n_samples=30" in message
    assert "n_neighbors=30" in _fit_error(LLC(n_neighbors=30))


CLASSES = sorted({clusterer_class(name) for name in CLUSTERERS}, key=lambda cls: cls.__name__)


@pytest.mark.parametrize("cls", CLASSES, ids=lambda cls: cls.__name__)
def test_every_init_parameter_has_a_constraint(cls):
    parameters = set(inspect.signature(cls.__init__).parameters) - {"self"}
    assert set(cls._parameter_constraints) == parameters


# --- the distance space --------------------------------------------------------------------------


def _space_before_issue_22(model):
    """The rule ``sweep._distance_space`` applied with isinstance checks before the tag."""
    if isinstance(model, (NormalizedCut, SpectralClustering)):
        return "none" if model.affinity == "rbf" else None
    if isinstance(model, KernelKMeans):
        return model.scale if model.kernel == "rbf" and model.scale in SCALINGS else None
    return None


def _shipped_clusterers():
    """Every ``{method, params}`` under a ``clusterers`` key of the shipped configuration."""
    found = []

    def walk(node):
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "clusterers" and isinstance(value, dict):
                    found.extend((spec["method"], spec.get("params") or {})
                                 for spec in value.values())
                else:
                    walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    for path in sorted((ROOT / "config").rglob("*.yaml")):
        walk(yaml.safe_load(path.read_text()))
    return found


CONFIGURATIONS = (
    [(name, {}) for name in sorted(CLUSTERERS)]
    + _shipped_clusterers()
    + [("ncut", {"affinity": "knn"}), ("njw", {"affinity": "precomputed"}),
       ("kernel_kmeans", {"kernel": "linear"}), ("kernel_kmeans", {"kernel": "precomputed"}),
       ("kernel_kmeans", {"scale": "zscore"})]
)


def test_the_shipped_configuration_is_found():
    assert {"kmeans", "ncut", "njw", "kernel_kmeans"} <= {name for name, _ in
                                                         _shipped_clusterers()}


@pytest.mark.parametrize("name, params", CONFIGURATIONS,
                         ids=[f"{n}-{p}" for n, p in CONFIGURATIONS])
def test_the_tag_is_the_space_the_sweep_used_before(name, params):
    model = make_clusterer(name, params, n_clusters=3, random_state=0)
    assert distance_space(model) == _space_before_issue_22(model)


@pytest.mark.parametrize("name, params", [(n, p) for n, p in CONFIGURATIONS
                                          if "precomputed" not in p.values()])
def test_fit_on_the_tagged_distances_is_fit_on_the_features(name, params):
    model = make_clusterer(name, params, n_clusters=3, random_state=0)
    space = distance_space(model)
    if space is None:
        return
    D2 = squared_distances(X) if space == "none" else scaled_sq_distances(X, space)
    np.testing.assert_array_equal(model.fit(X, sq_distances=D2).labels_,
                                  model.fit(X).labels_)


def test_a_scaling_the_sweep_does_not_know_has_no_distance_space():
    # refused by the registry and by fit, but an instance may still be asked for its tags
    from fsclust.cluster.kernel_kmeans import KernelKMeans

    model = KernelKMeans(n_clusters=3, scale="unknown")
    assert distance_space(model) is None
    assert distance_space(model) == _space_before_issue_22(model)


def test_estimators_without_fsclust_tags_have_no_distance_space():
    assert distance_space(SklearnKMeans()) is None
