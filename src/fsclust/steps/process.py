"""Process control of a workflow step: its log, its BLAS threads, and a fit in a child process
killed at a time limit, with its peak memory."""

from __future__ import annotations

import contextlib
import logging
import sys
import time
from pathlib import Path
from typing import NamedTuple

import numpy as np

log = logging.getLogger("fsclust")


def reuse_freed_memory():
    """Keep freed blocks of up to 32 MB in the process heap instead of returning them to the
    system (glibc ``mallopt``; a no-op elsewhere).

    Iterative methods allocate the same n x n temporaries at every step (KP-Kmeans: a dozen
    arrays of 3 MB per gradient step on the 622-sample toy sets). By default glibc serves
    blocks above 128 KB-32 MB with a fresh ``mmap`` and unmaps them on free, so every step
    page-faults its memory in again: measured, a third of KP-Kmeans' wall time was system
    time (4.8 s -> 3.3 s for 228 steps on zp-toy4-10u). The arithmetic is unchanged.
    """
    import ctypes
    import ctypes.util

    name = ctypes.util.find_library("c")
    if not name or not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(name)
        trim, top_pad, mmap_threshold = -1, -2, -3  # M_TRIM_THRESHOLD, M_TOP_PAD, ...
        return bool(libc.mallopt(mmap_threshold, 32 * 2**20)
                    and libc.mallopt(trim, 2**30) and libc.mallopt(top_pad, 64 * 2**20))
    except (OSError, AttributeError):  # not glibc
        return False


@contextlib.contextmanager
def logged(log_path, threads=1):
    """Send logging and stderr of a step to ``log_path``; log the exception if the step fails.

    The BLAS and OpenMP pools are limited to the rule's ``threads``: Snakemake sets
    ``OMP_NUM_THREADS`` for ``shell:`` jobs only, and two single-threaded jobs on two cores
    that each start a BLAS thread per core would fight for them."""
    from threadpoolctl import threadpool_limits

    reuse_freed_memory()
    Path(log_path).parent.mkdir(parents=True, exist_ok=True)
    with open(log_path, "w") as handle, threadpool_limits(limits=int(threads)):
        old_stderr = sys.stderr
        sys.stderr = handle
        logging.basicConfig(stream=handle, level=logging.INFO, force=True,
                            format="%(asctime)s %(levelname)s %(message)s")
        try:
            yield log
        except BaseException:
            log.exception("step failed")
            raise
        finally:
            sys.stderr = old_stderr


class FitFailure(NamedTuple):
    """A fit that gave no ranking, in an experiment with a time limit: ``status`` "timeout"
    (killed at the limit, or not tried again after an earlier seed's timeout) or "failed"
    (it raised, or its process died), ``message`` says which, ``seconds`` how long it ran,
    ``max_rss_mb`` its peak memory above the job's (None: not measured)."""

    status: str
    message: str
    seconds: float
    max_rss_mb: float | None = None


def _resident_mb(pid="self"):
    """The resident memory of a process now (``/proc/{pid}/statm``), in MB."""
    import os

    with open(f"/proc/{pid}/statm") as handle:
        return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def _peak_above_mb(pid, baseline_mb):
    """The peak resident memory of a live process (``VmHWM`` of ``/proc/{pid}/status``) above
    ``baseline_mb``, in MB; None when the process has just ended or not yet measured it."""
    try:
        with open(f"/proc/{pid}/status") as handle:
            kb = next(line.split()[1] for line in handle if line.startswith("VmHWM:"))
    except (OSError, StopIteration):  # gone, or a zombie without memory
        return None
    return None if np.isnan(baseline_mb) else round(int(kb) / 1024 - baseline_mb, 1)


def _fit_and_send(connection, baseline, fit, args, kwargs):
    """In the child process of :func:`within_time_limit`: ``fit(*args, **kwargs)``, send the
    outcome with the fit's peak memory above the child's resident memory at its start, exit.

    A forked child starts resident with the parent's pages (the data, the imports), which the
    fit did not allocate: its own cost is its peak (``ru_maxrss``, the high-water mark of this
    process alone) minus what it held at the start. That start is read from ``/proc/self/statm``
    (the resident pages now), not from ``ru_maxrss`` at the start, which is a high-water mark
    whose value for a fresh fork is the kernel's choice; the two agree on Linux. ``baseline``
    (shared memory) gives it to the parent too, which measures a child it kills itself."""
    import os
    import resource

    baseline.value = _resident_mb()
    try:
        outcome = fit(*args, **kwargs)
    except BaseException as error:  # noqa: BLE001 (the parent records any failure)
        outcome = FitFailure("failed", f"{type(error).__name__}: {error}", float("nan"))
    try:
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # kB on Linux
        connection.send(outcome._replace(max_rss_mb=round(peak - baseline.value, 1)))
    finally:
        connection.close()
        os._exit(0)  # no atexit handlers, no flush of the parent's inherited buffers


def within_time_limit(time_limit_s, fit, *args, **kwargs):
    """``fit(*args, **kwargs)`` in a child process killed after ``time_limit_s`` seconds.

    A signal cannot interrupt Python inside a long BLAS or LAPACK call, a separate process can
    be killed at once. The child is forked: it inherits the data and the BLAS thread limit
    of :func:`logged` without pickling or a new interpreter, and its fit is the same
    arithmetic as in this process (the ranking is the same bit for bit). ``fit`` returns a
    named tuple with a ``max_rss_mb`` field (:class:`Fit`). Returns what ``fit`` returns, or
    a :class:`FitFailure`, with the fit's peak memory above the child's start
    (:func:`_fit_and_send`; of a child killed at the limit, its peak so far)."""
    import multiprocessing

    context = multiprocessing.get_context("fork")
    receive, send = context.Pipe(duplex=False)
    baseline = context.RawValue("d", float("nan"))
    child = context.Process(target=_fit_and_send, args=(send, baseline, fit, args, kwargs),
                            daemon=True)
    start = time.perf_counter()
    child.start()
    send.close()
    try:
        if not receive.poll(time_limit_s):
            peak = _peak_above_mb(child.pid, baseline.value)
            child.kill()
            return FitFailure("timeout", f"the fit exceeded the time limit of {time_limit_s} s "
                              "and was stopped", time.perf_counter() - start, peak)
        outcome = receive.recv()
    except EOFError:  # the child died without a word: killed from outside, out of memory
        child.join()
        return FitFailure("failed", f"the fit's process ended with exit code {child.exitcode} "
                          "and no result (out of memory?)", time.perf_counter() - start)
    finally:
        receive.close()
    child.join()
    if isinstance(outcome, FitFailure):
        return outcome._replace(seconds=time.perf_counter() - start)
    return outcome
