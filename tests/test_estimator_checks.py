"""scikit-learn's API conformance checks on every registered ranker and clusterer."""

from sklearn.utils.estimator_checks import parametrize_with_checks

from fsclust.registry import CLUSTERERS, RANKERS, make_clusterer, make_ranker, small_test_params


def _registered_estimators():
    """Each registered class once (presets differ in parameters only), with its test params."""
    seen, out = set(), []
    for kind, table, make in (("method", RANKERS, make_ranker),
                              ("clusterer", CLUSTERERS, make_clusterer)):
        for name, entry in table.items():
            if entry.path not in seen:
                seen.add(entry.path)
                out.append(make(name, small_test_params(kind, name)))
    return out


@parametrize_with_checks(_registered_estimators())
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)
