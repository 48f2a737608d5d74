"""Parameters declared once: the rankers' constraints, the registry's check, the registry as
the only list of methods."""

import dataclasses
import importlib
import inspect
import pkgutil
from pathlib import Path

import numpy as np
import pytest
import yaml
from sklearn.utils import get_tags

import fsclust.rankers
from fsclust import registry
from fsclust.registry import RANKERS, UnknownNameError, check_params, make_ranker
from fsclust.rankers.base import nested_selection, selected_features

CONFIG = Path(__file__).resolve().parents[1] / "config" / "experiments"


@pytest.fixture
def data():
    rng = np.random.RandomState(0)
    return np.repeat(rng.randn(3, 6) * 3, 10, axis=0) + rng.randn(30, 6)


# --- the private scikit-learn API the declarations rely on ------------------------------------

def test_the_private_scikit_learn_api_we_rely_on_is_where_we_pinned_it():
    # pyproject.toml pins scikit-learn because these names are private: if this fails, they
    # moved; follow them (and move the pin) before anything else
    try:
        from sklearn.base import _fit_context
        from sklearn.utils import Tags, get_tags
        from sklearn.utils._param_validation import (
            Interval,
            InvalidParameterError,
            StrOptions,
            validate_parameter_constraints,
        )
    except ImportError as exc:  # pragma: no cover - the failure this test exists for
        pytest.fail(f"scikit-learn moved a name fsclust's parameter checks import: {exc}")
    expected = {
        _fit_context: ["prefer_skip_nested_validation"],
        validate_parameter_constraints: ["parameter_constraints", "params", "caller_name"],
        Interval: ["type", "left", "right", "closed"],
        StrOptions: ["options", "deprecated"],
    }
    for function, names in expected.items():
        got = list(inspect.signature(function).parameters)
        assert got == names, (f"scikit-learn changed the signature of {function.__qualname__}: "
                              f"{got}, fsclust calls it with {names}")
    assert issubclass(InvalidParameterError, ValueError) and issubclass(
        InvalidParameterError, TypeError), "InvalidParameterError is no longer a ValueError " \
        "and a TypeError: the workflow and the CLI catch those two"
    assert dataclasses.is_dataclass(Tags) and callable(get_tags), \
        "scikit-learn's Tags is no longer a dataclass: RankerTags rides on a subclass of it"


# --- one test per kind of wrong value, through the registry and through fit -------------------

WRONG = {
    "range": ("laplacian", {"n_neighbors": -3}, ["'n_neighbors'", "[1, inf)", "-3"]),
    "choice": ("evsfsc", {"laplacian": "lrw"}, ["'laplacian'", "'rw'", "'sym'",
                                                "'unnormalized'", "'lrw'"]),
    "type": ("laplacian", {"n_neighbors": "five"}, ["'n_neighbors'", "an int", "'five'"]),
}


def _assert_one_line_naming(exc, words):
    message = str(exc.value)
    assert "\n" not in message
    for word in words:
        assert word in message


@pytest.mark.parametrize("kind", list(WRONG))
def test_check_params_refuses_a_wrong_value_in_one_line(kind):
    name, params, words = WRONG[kind]
    with pytest.raises((ValueError, TypeError)) as exc:
        check_params("method", name, params)
    _assert_one_line_naming(exc, words)


@pytest.mark.parametrize("kind", list(WRONG))
def test_fit_refuses_the_same_wrong_value_with_the_same_message(kind, data):
    name, params, words = WRONG[kind]
    ranker = registry.ranker_class(name)(**params)  # __init__ stores, fit checks
    with pytest.raises((ValueError, TypeError)) as exc:
        ranker.fit(data)
    _assert_one_line_naming(exc, words)
    with pytest.raises((ValueError, TypeError)) as again:
        check_params("method", name, params)
    assert str(again.value) == str(exc.value)


def test_an_unknown_parameter_is_one_line_listing_the_valid_ones():
    with pytest.raises(UnknownNameError) as exc:
        check_params("method", "laplacian", {"n_neighbours": 3})
    _assert_one_line_naming(exc, ["'n_neighbours'", "n_neighbors", "t_rule"])
    assert exc.value.name == "n_neighbours"


def test_an_unknown_name_lists_the_valid_names():
    with pytest.raises(UnknownNameError) as exc:
        check_params("method", "lapl", {})
    _assert_one_line_naming(exc, sorted(RANKERS))


def test_values_the_workflow_resolves_per_job_are_left_to_the_job():
    check_params("method", "mcfs", {"n_nonzero_coefs": {"selected_by": "kpkmeans"}})
    check_params("method", "frmv", {"ensemble": {"from": "frcm", "attribute": "ensemble"}})
    check_params("method", "kpkmeans", {"init_features": "relevant"})
    with pytest.raises(ValueError, match="init_features"):  # only that one word is resolved
        check_params("method", "kpkmeans", {"init_features": "irrelevant"})


def test_make_ranker_checks_before_building():
    with pytest.raises(ValueError, match="'n_neighbors'.*\\[1, inf\\)"):
        make_ranker("laplacian", {"n_neighbors": -3})


def test_a_class_without_constraints_gets_its_names_checked_only(monkeypatch):
    class Plain:
        def __init__(self, width=1):
            self.width = width

    monkeypatch.setitem(registry.CLUSTERERS, "plain", registry.Entry("builtins:object"))
    monkeypatch.setattr(registry, "_import", lambda path: Plain)
    assert check_params("clusterer", "plain", {"width": -3}) is Plain
    with pytest.raises(UnknownNameError, match="'height'.*valid parameters: width"):
        check_params("clusterer", "plain", {"height": 2})


def _shipped_specs():
    for path in sorted(CONFIG.glob("*.yaml")):
        config = yaml.safe_load(path.read_text())
        for experiment, spec in (config.get("experiments") or {}).items():
            for kind, key in (("method", "methods"), ("clusterer", "clusterers")):
                for label, entry in (spec.get(key) or {}).items():
                    yield pytest.param(kind, entry["method"], entry.get("params"),
                                       id=f"{path.stem}-{experiment}-{label}")
        # the selection blocks name registered rankers at their defaults ("all": the registry)
        for block, spec in (config.get("selection") or {}).items():
            if spec["methods"] != "all":
                for name in spec["methods"]:
                    yield pytest.param("method", name, None, id=f"{path.stem}-{block}-{name}")


@pytest.mark.parametrize("kind, name, params", list(_shipped_specs()))
def test_every_shipped_experiment_passes_the_check(kind, name, params):
    check_params(kind, name, params)


# --- every ranker declares every parameter --------------------------------------------------

@pytest.mark.parametrize("name", sorted(RANKERS))
def test_every_registered_ranker_declares_a_constraint_for_every_parameter(name):
    cls = registry.ranker_class(name)
    parameters = set(inspect.signature(cls.__init__).parameters) - {"self"}
    assert set(cls._parameter_constraints) == parameters


@pytest.mark.parametrize("name", sorted(RANKERS))
def test_the_test_parameters_and_presets_are_valid(name):
    check_params("method", name, registry.small_test_params("method", name))


# --- the registry is the only list ------------------------------------------------------------

def _ranker_modules():
    # base and the private modules of shared math (_sparse_learning) hold no method
    return sorted(m.name for m in pkgutil.iter_modules(fsclust.rankers.__path__)
                  if m.name != "base" and not m.name.startswith("_"))


def test_every_ranker_module_is_registered():
    registered = {entry.path.partition(":")[0].rpartition(".")[2] for entry in RANKERS.values()}
    missing = sorted(set(_ranker_modules()) - registered)
    assert not missing, f"modules under fsclust/rankers with no line in registry.RANKERS: {missing}"


def test_the_package_exports_exactly_the_registered_rankers():
    from fsclust.rankers.base import FeatureRanker

    registered = {registry.ranker_class(name) for name in RANKERS}
    exported = {getattr(fsclust.rankers, attr) for attr in fsclust.rankers.__all__}
    exported = {obj for obj in exported
                if inspect.isclass(obj) and issubclass(obj, FeatureRanker) and obj is not FeatureRanker}
    assert exported == registered
    for module in _ranker_modules():  # and the modules hold no unregistered ranker class
        mod = importlib.import_module(f"fsclust.rankers.{module}")
        local = {obj for obj in vars(mod).values() if inspect.isclass(obj)
                 and issubclass(obj, FeatureRanker) and obj.__module__ == mod.__name__}
        assert local <= registered, f"fsclust.rankers.{module}: {local - registered} not registered"


# --- the selection protocol is a tag ----------------------------------------------------------

@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("name", sorted(RANKERS))
def test_selected_features_follow_the_declared_protocol(name, data):
    ranker = make_ranker(name, registry.small_test_params("method", name), n_clusters=3,
                         random_state=0)
    if get_tags(ranker).ranker_tags.counts_input:  # tests/test_hvg.py, tests/test_deviance.py
        pytest.skip(f"{name} models raw counts and refuses these real-valued data")
    ranker.fit(data)
    for m in range(1, data.shape[1] + 1):
        chosen = selected_features(ranker, m)
        assert chosen.shape == (m,) and len(set(chosen.tolist())) == m
        if nested_selection(ranker):
            np.testing.assert_array_equal(chosen, ranker.feature_order_[:m])
        else:
            np.testing.assert_array_equal(chosen, ranker.subset(m))


def test_only_fsfs_udfs_and_sogfs_select_subsets_that_are_not_nested():
    # FSFS: one run per size; UDFS and SOGFS at their defaults: one fit per size (issue 40)
    assert [name for name in sorted(RANKERS)
            if not nested_selection(registry.ranker_class(name)())] == ["fsfs", "sogfs", "udfs"]


# --- the post-fit hook ------------------------------------------------------------------------

@pytest.mark.parametrize("name", sorted(RANKERS))
def test_no_ranker_overrides_fit(name):
    assert registry.ranker_class(name).fit is fsclust.rankers.FeatureRanker.fit


def test_kpkmeans_fit_takes_no_labels(data):
    model = make_ranker("kpkmeans", {"n_clusters": 3, "max_inner": 50}, random_state=0)
    model.fit(data, np.repeat([0, 1, 2], 10))
    assert not hasattr(model, "accuracy_path_")
    # the hook's order is the elimination order: the features still in use come first
    kept = model.n_features_selected_
    assert set(model.feature_order_[:kept]) == set(model.selected_features_)
