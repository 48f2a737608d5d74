"""Importing fsclust changes no global state: a notebook keeps its matplotlib backend.

Every module of the package is imported, one by one, in a fresh interpreter that has chosen a
non-default backend first; after each import the backend, ``matplotlib.rcParams``,
``MPLBACKEND`` and pyplot's open figures must be as they were, and the import must have
printed nothing. A failure names the module.
"""

import json
import os
import subprocess
import sys

import pytest

# runs in the fresh interpreter; argv[1]: where it writes what it found (its own stdout and
# stderr must stay empty)
CHILD = r"""
import contextlib, importlib, io, json, os, pkgutil, sys

import matplotlib

matplotlib.use("svg")  # what a notebook user chose, and not what a library would
BACKEND = matplotlib.get_backend()


def state():
    pyplot = sys.modules.get("matplotlib.pyplot")
    return {"backend": matplotlib.get_backend(), "rcParams": dict(matplotlib.rcParams),
            "MPLBACKEND": os.environ.get("MPLBACKEND"),
            "figures": pyplot.get_fignums() if pyplot else []}


def changes(before, after):
    found = [f"{key}: {before[key]!r} -> {after[key]!r}" for key in before
             if key != "rcParams" and before[key] != after[key]]
    rc_before, rc_after = before["rcParams"], after["rcParams"]
    for key in sorted(set(rc_before) | set(rc_after)):
        old, new = rc_before.get(key, "<unset>"), rc_after.get(key, "<unset>")
        if not (old is new or old == new):
            found.append(f"rcParams[{key!r}]: {old!r} -> {new!r}")
    return found


report = {"backend": BACKEND, "modules": [], "changed": {}, "printed": {}, "failed": {},
          "use_called_by": []}
first = state()
before = first
_use = matplotlib.use


def use(*args, **kwargs):
    # a module that changes the backend through another one's import is blamed with it: name
    # the one that called use
    report["use_called_by"].append(sys._getframe(1).f_globals.get("__name__"))
    return _use(*args, **kwargs)


matplotlib.use = use


def load(name):
    global before
    loaded = set(sys.modules)
    out, err = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            importlib.import_module(name)
    except Exception as error:  # noqa: BLE001 - reported by the test, with the module's name
        report["failed"][name] = f"{type(error).__name__}: {error}"
    report["modules"].append(name)
    if out.getvalue() or err.getvalue():
        report["printed"][name] = out.getvalue() + err.getvalue()
    after = state()
    if changes(before, after):
        also = sorted(m for m in set(sys.modules) - loaded
                      if m.startswith("fsclust.") and m != name)
        report["changed"][name] = changes(before, after) + (
            [f"(importing it also imported {', '.join(also)})"] if also else [])
    before = after  # each change is blamed on the module that made it only


load("fsclust")
import fsclust

# a package is imported here before walk_packages imports it to look inside
for info in pkgutil.walk_packages(fsclust.__path__, "fsclust."):
    load(info.name)
report["final"] = changes(first, state())
with open(sys.argv[1], "w") as f:
    json.dump(report, f)
"""


@pytest.mark.slow  # a new interpreter importing every module
def test_importing_every_module_keeps_the_backend_and_rcparams_and_prints_nothing(tmp_path):
    found = tmp_path / "found.json"
    env = {k: v for k, v in os.environ.items() if k != "MPLBACKEND"}
    run = subprocess.run([sys.executable, "-c", CHILD, str(found)], capture_output=True,
                         text=True, env=env, timeout=120, check=False)
    assert run.returncode == 0, run.stderr
    report = json.loads(found.read_text())
    assert report["backend"] == "svg"
    assert len(report["modules"]) > 10 and "fsclust.report.figures" in report["modules"]
    assert not report["failed"], f"modules that failed to import: {report['failed']}"
    assert not report["changed"], ("modules that changed matplotlib's global state when "
                                   f"imported: {report['changed']}; matplotlib.use called by "
                                   f"{report['use_called_by']}")
    assert not report["final"], report["final"]
    assert not report["printed"], f"modules that printed when imported: {report['printed']}"
    assert run.stdout == "" and run.stderr == "", (run.stdout, run.stderr)
