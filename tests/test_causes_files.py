"""The cause files: a cause classed ``tested`` must be tested on the rows it explains.

A row counts as "explained, tested" only when the cause's test would fail if the paper's claim
held, which needs at least that the test computes on the row's dataset, method and number of
features. Each tested cause declares them in ``tested_on``; these tests check that every row its
``explain`` entries can match lies inside that declaration, and that the test it names loads
the data it declares.
"""

import ast
from pathlib import Path

import pandas as pd
import pytest

from fsclust.report.reproduction import load_causes, rows_under_test

REPO = Path(__file__).resolve().parents[1]
CAUSE_FILES = sorted((REPO / "config" / "reproduction").glob("*.yaml"))


def _values(value):
    return {str(v) for v in value} if isinstance(value, list) else {str(value)}


def _tested_causes():
    for path in CAUSE_FILES:
        causes = load_causes(path)
        for cid, cause in causes["causes"].items():
            if cause["class"] == "tested":
                yield pytest.param(path, cid, causes, id=f"{path.stem}/{cid}")


def _test_source(spec):
    """The text of the test a cause names (tests/<file>.py::<name>[params]), decorators
    included, with that of the module-level constants, helpers and fixtures it names."""
    file, name = spec.split("::")
    text = (REPO / file).read_text()
    lines = text.splitlines()
    tree = ast.parse(text)
    top = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            top[node.name] = node
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            top.update({t.id: node for t in targets if isinstance(t, ast.Name)})

    def segment(node):
        first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
        return "\n".join(lines[first - 1:node.end_lineno])

    test = top.get(name.split("[")[0])
    assert isinstance(test, ast.FunctionDef), f"no test {name} in {file}"
    used = {n.id for n in ast.walk(test) if isinstance(n, ast.Name)}
    used |= {a.arg for a in test.args.args}  # fixtures
    return "\n".join([segment(test)] + [segment(top[u]) for u in sorted(used) if u in top
                                          and top[u] is not test])


@pytest.mark.parametrize(("path", "cid", "causes"), list(_tested_causes()))
def test_every_row_a_tested_cause_explains_is_one_its_test_computes_on(path, cid, causes):
    # each explain entry of the cause must pin the dataset, the method and the number of
    # features to values the test computes on: an entry left open would reach rows (another
    # data set, another method, another m) the test never touches
    declared = rows_under_test(causes["causes"][cid])
    assert set(declared) == {"dataset", "method", "n_features"}
    entries = [e for e in causes["explain"] if e["cause"] == cid]
    assert entries, f"{path.name}: {cid} explains no row"
    for entry in entries:
        where = entry.get("where") or {}
        for key, tested in declared.items():
            assert key in where, (
                f"{path.name}: {cid}: an explain entry leaves {key} open; its test computes on "
                f"{key} {sorted(_values(tested))} only")
            outside = _values(where[key]) - _values(tested)
            assert not outside, (
                f"{path.name}: {cid}: explains {key} {sorted(outside)}, which its test does not "
                f"compute on ({sorted(_values(tested))})")


@pytest.mark.parametrize(("path", "cid", "causes"), list(_tested_causes()))
def test_a_tested_cause_s_test_loads_the_data_it_declares(path, cid, causes):
    cause = causes["causes"][cid]
    catalogue = set(pd.read_csv(REPO / "config" / "datasets.tsv", sep="\t")["id"])
    data = _values(cause["tested_on"]["data"])
    assert data <= catalogue, f"{path.name}: {cid}: not in the catalogue: {data - catalogue}"
    # the test (or a constant, helper or fixture it uses) names each data set it loads: by its
    # catalogue key, or by scikit-learn's loader (load_iris, load_wine)
    source = _test_source(cause["test"])
    missing = sorted(d for d in data if d not in source)
    assert not missing, f"{path.name}: {cid}: its test {cause['test']} does not name {missing}"


def test_the_check_fails_for_a_cause_whose_test_does_not_touch_its_rows(tmp_path):
    # the property above, on a cause file that explains a method its test does not run
    text = """
paper: demo
causes:
  c:
    kind: not-reproducible
    class: tested
    tested_on: {dataset: [ORL], method: [EVSFSC], n_features: ["100"], data: [usps-4v9]}
    why: the test clusters EVSFSC's subset of ORL at m = 100 and finds it degenerate
    test: tests/test_causes_files.py::test_every_row_a_tested_cause_explains_is_one_its_test_computes_on
explain:
  - cause: c
    where: {dataset: ORL, method: [EVSFSC, SPEC], n_features: "100"}
"""
    (tmp_path / "demo.yaml").write_text(text)
    causes = load_causes(tmp_path / "demo.yaml")
    with pytest.raises(AssertionError, match=r"explains method \['SPEC'\]"):
        test_every_row_a_tested_cause_explains_is_one_its_test_computes_on(
            tmp_path / "demo.yaml", "c", causes)
    with pytest.raises(AssertionError, match=r"does not name \['usps-4v9'\]"):
        test_a_tested_cause_s_test_loads_the_data_it_declares(tmp_path / "demo.yaml", "c",
                                                               causes)
