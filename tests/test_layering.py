"""The package's layers: arrows point down only.

    scripts, workflow/rules  ->  studies, papers  ->  steps  ->  selection  ->  rankers
    ->  cluster  ->  datasets, report  ->  bricks (graphs, metrics, registry, ranking, _io, _lazy)

    front door (api, cli, userdata, pp)  ->  selection and everything below it

A module may import its own package, its layer and the layers below. The workflow (steps,
studies, papers, the rule scripts and the .smk files) never imports the front door, and the
front door never imports the workflow: a user's ``fsclust.select`` and a workflow job share the
library, not each other. A new top-level module or package must be given a layer here (the
test says so), so that a new upward import fails.
"""

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "fsclust"

#: Top-level module or package -> its layer (a module may import layers <= its own).
LAYERS = {
    "_io": 0, "_lazy": 0, "graphs": 0, "metrics": 0, "registry": 0, "ranking": 0,
    "datasets": 1, "report": 1, "counts": 1,
    "cluster": 2,
    "rankers": 3,
    "selection": 4,
    "steps": 5,
    "studies": 6, "papers": 6,
    # the front door: above the library, beside (never importing) the workflow
    "userdata": 5, "api": 6, "pp": 6, "cli": 7,
}
FRONT_DOOR = {"api", "cli", "userdata", "pp"}
WORKFLOW = {"steps", "studies", "papers"}


def _top(dotted):
    """``fsclust.steps.sweep`` -> ``steps``; ``fsclust`` -> None (the package root)."""
    parts = dotted.split(".")
    return parts[1] if len(parts) > 1 and parts[0] == "fsclust" else None


def _imports(tree, package):
    """The fsclust modules ``tree`` imports (at top level or inside functions), absolute;
    ``package`` is the importing module's package (relative imports start there)."""
    package = [*package.split("."), "_"]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names if a.name.split(".")[0] == "fsclust"]
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: from the importing module's package
                base = package[:len(package) - node.level]
                name = ".".join(base + ([node.module] if node.module else []))
            else:
                name = node.module or ""
            if name.split(".")[0] != "fsclust":
                continue
            if name == "fsclust":  # from fsclust import steps, __version__
                found += [f"fsclust.{a.name}" for a in node.names
                          if (PACKAGE / a.name).is_dir() or (PACKAGE / f"{a.name}.py").exists()]
            else:
                found.append(name)
    return found


def _package_modules():
    """``(path, module, package)`` of every module of fsclust."""
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        yield path, module, ".".join(parts[:-1])


def _violation(importer_top, imported):
    target = _top(imported)
    if target is None or target == importer_top:
        return None
    if target not in LAYERS:
        return f"{imported}: give fsclust.{target} a layer in tests/test_layering.py"
    if importer_top in WORKFLOW and target in FRONT_DOOR:
        return f"{imported}: the workflow never imports the front door"
    if importer_top in FRONT_DOOR and target in WORKFLOW:
        return f"{imported}: the front door never imports the workflow"
    if LAYERS[target] > LAYERS[importer_top]:
        return f"{imported}: an upward import (layer {LAYERS[target]} > {LAYERS[importer_top]})"
    return None


def test_every_top_level_module_has_a_layer():
    tops = {p.stem for p in PACKAGE.glob("*.py") if p.stem != "__init__"}
    tops |= {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists()}
    assert sorted(tops - set(LAYERS)) == []


def test_the_package_imports_point_down_only():
    faults = []
    for path, module, package in _package_modules():
        top = _top(module)
        if top is None:  # fsclust/__init__.py: the front door's own package
            continue
        for imported in _imports(ast.parse(path.read_text()), package):
            fault = _violation(top, imported)
            if fault:
                faults.append(f"{path.relative_to(ROOT)}: {fault}")
    assert faults == []


_SMK_IMPORT = re.compile(r"^\s*(?:from\s+(fsclust[\w.]*)\s+import\s+([\w, ]+)|import\s+(fsclust[\w.]*))",
                         re.M)


def _workflow_files():
    yield from sorted((ROOT / "scripts").glob("*.py"))
    yield from sorted((ROOT / "workflow").rglob("*.smk"))
    yield ROOT / "Snakefile"


@pytest.mark.parametrize("path", list(_workflow_files()), ids=lambda p: p.name)
def test_the_workflow_never_imports_the_front_door(path):
    """The rule scripts and the .smk files call steps, studies and papers, never api, cli or
    userdata (the user's front door may change its defaults without changing a result)."""
    faults = []
    for source, names, plain in _SMK_IMPORT.findall(path.read_text()):
        imported = [plain] if plain else (
            [f"{source}.{n.strip()}" for n in names.split(",")] if source == "fsclust"
            else [source])
        for name in imported:
            if _top(name) in FRONT_DOOR:
                faults.append(name)
    assert faults == []


@pytest.mark.parametrize("importer, imported, upward", [
    ("rankers", "fsclust.steps.sweep", True),
    ("cluster", "fsclust.rankers.base", True),
    ("steps", "fsclust.api", True),
    ("api", "fsclust.steps", True),
    ("graphs", "fsclust.cluster.kernel_kmeans", True),
    ("papers", "fsclust.steps.seeds", False),
    ("selection", "fsclust.rankers.base", False),
    ("cli", "fsclust.selection.figure", False),
])
def test_the_rule_catches_an_upward_import(importer, imported, upward):
    assert (_violation(importer, imported) is not None) is upward
