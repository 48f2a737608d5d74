"""Sphinx configuration: the API reference from the numpydoc docstrings, the Markdown pages
of docs/ and a gallery of runnable examples (docs/examples/, run at every build).

Build: ``sphinx-build -W -b html docs docs/_build/html`` (``pip install -e ".[docs]"``).
"""

import os
import re

import matplotlib

from fsclust import __version__

# the gallery's figures are written to files, never shown in a window
matplotlib.use("Agg")
# the examples run on the CI machine's two cores like everything else
os.environ.setdefault("OMP_NUM_THREADS", "1")

project = "fsclust"
author = "fsclust developers"
release = __version__
version = ".".join(__version__.split(".")[:2])

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build", "examples/GALLERY_HEADER.rst", "**.ipynb_checkpoints"]

# The pages under docs/ are also read on GitHub, where their links to the repository's files
# (../src/..., ../config/...) work; Sphinx cannot resolve those, and it need not.
myst_heading_anchors = 3
suppress_warnings = ["myst.xref_missing"]

autosummary_generate = True
autodoc_default_options = {"members": True, "inherited-members": False}
# numpydoc lists each class's members itself; autosummary's own table would list them twice
numpydoc_show_class_members = False
numpydoc_xref_param_type = False

sphinx_gallery_conf = {
    "examples_dirs": "examples",
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "download_all_examples": False,
    "reference_url": {"fsclust": None},
    "doc_module": ("fsclust",),
    "backreferences_dir": None,
    "remove_config_comments": True,
}

html_theme = "alabaster"
html_title = f"fsclust {release}"


def _skip_metadata_routing(app, what, name, obj, skip, options):
    # scikit-learn generates set_fit_request & co. on every estimator (metadata routing); their
    # docstrings point into scikit-learn's own glossary, and they are not fsclust's API
    if re.fullmatch(r"set_\w+_request", name):
        return True
    return None


def setup(app):
    app.connect("autodoc-skip-member", _skip_metadata_routing)
