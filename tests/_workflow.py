"""A copy of the workflow to run in isolation: the one definition, imported by the tests that
run Snakemake for real."""

import shutil
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
#: What a run needs; data/, results/ and .snakemake/ stay behind.
PARTS = ("Snakefile", "workflow", "scripts", "config", "envs", "src")


def copy_workflow(work):
    """Copy the workflow into the existing folder ``work``; return ``work``."""
    work = Path(work)
    for part in PARTS:
        src = REPO / part
        (shutil.copytree if src.is_dir() else shutil.copy)(src, work / part)
    return work


def _print_warning(message, category, filename, lineno, file=None, line=None):
    import sys
    import warnings

    sys.stderr.write(warnings.formatwarning(message, category, filename, lineno, line))


def snakemake_in_process(work, *args):
    """``python -m snakemake *args`` in ``work``, run in this process (Snakemake's command line,
    ``snakemake.cli.main``): for the dry runs, whose tests read the plan or the error it prints,
    the commands that end before any job (``--unlock``, a run refused on a stale lock), and the
    real runs of a test that is not about Snakemake's own process (its jobs are processes of
    their own either way).

    A subprocess costs ~5 s of CPU more than the plan itself (the interpreter, Snakemake's and
    scikit-learn's imports, which this process has already): here a dry run is its parse and
    its DAG; a real run saves the same ~2 s (20 -> 18 CPU-s for test_workflow's tiny run,
    measured). What Snakemake prints on stdout and stderr is captured as a subprocess's would
    be; a job's own output is not (it writes to this process's file descriptors, which pytest
    captures): a test that reads it runs Snakemake in a subprocess. The process is left as
    found (working directory, ``sys.path``, which the Snakefile extends with the copy's
    ``src``, the environment, the SIGTERM handler a run's scheduler installs). Returns a
    ``subprocess.CompletedProcess``.
    """
    import contextlib
    import gc
    import io
    import os
    import signal
    import subprocess
    import sys
    import warnings

    from snakemake.cli import main

    out, err = io.StringIO(), io.StringIO()
    cwd, path, environ = os.getcwd(), list(sys.path), dict(os.environ)
    on_sigterm = signal.getsignal(signal.SIGTERM)
    os.chdir(work)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), \
                warnings.catch_warnings():
            # warnings filtered and printed as a fresh interpreter does, not recorded by pytest
            warnings.resetwarnings()
            for quiet in (DeprecationWarning, PendingDeprecationWarning, ImportWarning,
                          ResourceWarning):
                warnings.simplefilter("ignore", quiet)
            warnings.showwarning = _print_warning
            try:
                main(list(map(str, args)))
                code = 0
            except SystemExit as exit:
                code = exit.code if isinstance(exit.code, int) else 1
            # the run's source cache, a temporary folder a process removes at its exit: removed
            # now (its finalizer; its ResourceWarning ignored above), not in a later test
            gc.collect()
    finally:
        os.chdir(cwd)
        sys.path[:] = path
        os.environ.clear()
        os.environ.update(environ)
        if on_sigterm is not None:
            signal.signal(signal.SIGTERM, on_sigterm)
    return subprocess.CompletedProcess(["snakemake", *map(str, args)], code, out.getvalue(),
                                       err.getvalue())
