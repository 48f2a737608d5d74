"""Make ``src/`` importable when fsclust is not installed (e.g. under ``--sdm conda``), show an
output that cannot be written (full disk, read-only folder) as its one-line message, and draw
figures without a display.

Snakemake appends this directory to ``sys.path`` before running a rule script; every rule script
imports this module first.
"""
import os
import sys
from pathlib import Path

# jobs run headless (cluster nodes, no display): matplotlib's Agg, chosen before anything imports
# matplotlib. The package itself chooses no backend (importing it must not change a notebook's)
os.environ.setdefault("MPLBACKEND", "Agg")

try:
    import fsclust  # noqa: F401
except ImportError:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from fsclust._io import OutputError  # noqa: E402

_print_traceback = sys.excepthook


def _one_line_output_errors(kind, value, traceback):
    # the message names the path and the fix; the job's log keeps the traceback
    if isinstance(value, OutputError):
        print(f"Error: {value}", file=sys.stderr)
    else:
        _print_traceback(kind, value, traceback)


sys.excepthook = _one_line_output_errors
