"""Shared fixtures, and the two test tiers.

``python -m pytest`` runs the fast tier: every test not marked ``slow``. ``python -m pytest
--all`` runs both tiers, and an explicit ``-m`` expression selects by marker as usual
(``-m slow``: the slow tier alone). A test is slow when it runs the real workflow (marker
``workflow``, which implies ``slow``), starts Snakemake or another interpreter per case, drives
the browser, runs the BLAS-kernel matrix, prepares the whole mirror or reproduces a paper.
"""

import os
from pathlib import Path

import pytest
from _mirror import HAS_MIRROR, MIRROR, SKIP_REASON

_ALL_HELP = ("run the slow tier too (tests marked slow: real workflow runs, Snakemake "
             "subprocesses, the browser, the BLAS-kernel matrix, mirror-wide preparation, "
             "paper reproductions)")


#: BLAS and OpenMP pools, one thread each in the test workers
_ONE_THREAD = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")

#: How the idle threads of a BLAS or OpenMP pool wait, for every process the tests start (the
#: Snakemake runs' jobs, the BLAS matrix's workers): they sleep at once instead of spinning.
#: OpenBLAS's spin for 2^28 cycles (its default timeout 28, about 0.1 s) after every threaded
#: call, and libgomp's (scikit-learn's k-means) after every parallel loop; on 2 cores shared by
#: two workers the spinning takes the other worker's core. It changes no number, only how a
#: thread waits (tests/test_machine_independence.py, whose 2-thread configurations it concerns
#: most: 92 -> 50 s of CPU for the module's four subprocesses at load 6).
_IDLE_THREADS_SLEEP = {"OPENBLAS_THREAD_TIMEOUT": "4", "OMP_WAIT_POLICY": "PASSIVE"}


def pytest_configure(config):
    for name, value in _IDLE_THREADS_SLEEP.items():
        os.environ.setdefault(name, value)
    # Under pytest-xdist the workers are one process per core: one BLAS thread each, else each
    # worker's BLAS threads (OpenBLAS spins while it waits) fight the other's for the cores.
    # The controller sets it before it starts the workers (their BLAS reads it when loaded);
    # a worker also limits what is loaded already.
    if getattr(config.option, "numprocesses", None) and not os.environ.get("PYTEST_XDIST_WORKER"):
        for name in _ONE_THREAD:
            os.environ.setdefault(name, "1")
    if os.environ.get("PYTEST_XDIST_WORKER"):
        from threadpoolctl import threadpool_limits

        config._fsclust_blas_limit = threadpool_limits(limits=1)


def _uses_a_module_fixture(item):
    """Whether a test function asks for a module-scoped fixture, directly or through another."""
    info = getattr(item, "_fixtureinfo", None) if isinstance(item, pytest.Function) else None
    return info is not None and any(definitions[-1].scope == "module"
                                    for definitions in info.name2fixturedefs.values())


def pytest_addoption(parser):
    parser.addoption("--all", action="store_true", default=False, help=_ALL_HELP)


# tryfirst: before pytest-xdist's own hook, which reads the xdist_group marks to assign the
# groups; after it, a mark added here would be seen by no one
@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.get_closest_marker("workflow"):
            item.add_marker(pytest.mark.slow)
        if item.get_closest_marker("xdist_group"):
            # a group of its own (tests sharing a compilation across modules): xdist joins the
            # names of several marks, so adding the module's would split the group again
            continue
        if item.get_closest_marker("slow") or _uses_a_module_fixture(item):
            # a slow module's tests in one worker (--dist loadgroup): its module-scoped
            # fixtures (a workflow run, the BLAS matrix) are built once, not once per worker;
            # so are a fast module's (a selector fitted once for a module's tests: built in
            # both workers when its tests were handed out in turn, as the end of the fast tier
            # is)
            item.add_marker(pytest.mark.xdist_group(item.module.__name__))
    if config.getoption("--all") or config.getoption("markexpr"):
        # the slow tier's groups first (each a module of minutes, in one worker), the fast
        # tests after them: the workers fill the end with short tests instead of one of them
        # starting a long group when the other has nothing left (a stable sort: the order
        # within each tier is the collection's, the same in every worker)
        items.sort(key=lambda item: item.get_closest_marker("slow") is None)
        return
    slow = [item for item in items if item.get_closest_marker("slow")]
    if slow:
        config.hook.pytest_deselected(items=slow)
        items[:] = [item for item in items if not item.get_closest_marker("slow")]


def pytest_report_header(config):
    if not (config.getoption("--all") or config.getoption("markexpr")):
        return "fast tier: tests marked slow are deselected; --all runs them too"
    return None


@pytest.fixture
def mirror():
    """The offline data mirror directory; the test is skipped when it is absent."""
    if not HAS_MIRROR:
        pytest.skip(SKIP_REASON)
    return MIRROR


@pytest.fixture(params=[False, True], ids=["user", "as-root"])
def read_only_dir(request, tmp_path, monkeypatch):
    """A directory the command may not write into, for an ordinary user and for root.

    Root writes anywhere, so as root ``os.access`` is made to give the answer an ordinary
    user's would; an ordinary-user run under root is skipped.
    """
    ro = tmp_path / "ro"
    ro.mkdir(mode=0o555)
    if request.param:
        real_access = os.access
        monkeypatch.setattr(os, "access", lambda path, mode: False if Path(path) == ro
                            else real_access(path, mode))
    elif os.geteuid() == 0:
        pytest.skip("root may write to a read-only directory")
    return ro
