"""Lazy package exports (PEP 562): a name is imported from its module when first used.

A package ``__init__`` that imports every submodule makes ``import fsclust.rankers.laplacian``
import all twenty methods and their dependencies; ``fsclust select`` starts in about a second
only if it imports what it runs. The packages keep their public names (``from fsclust.rankers
import MCFS`` works as before) through a module ``__getattr__``.
"""

from __future__ import annotations

import importlib
import sys


def lazy_exports(package, exports):
    """The ``__getattr__``, ``__dir__`` and ``__all__`` of a package whose public names are
    imported on first use.

    Parameters
    ----------
    package : str
        The package's ``__name__``.
    exports : dict of str -> str
        Public name -> the submodule (relative to ``package``) that defines it.

    Returns
    -------
    (__getattr__, __dir__, __all__)

    Examples
    --------
    >>> getattr_, dir_, all_ = lazy_exports("fsclust.rankers", {"MCFS": "mcfs"})
    >>> getattr_("MCFS").__name__, all_
    ('MCFS', ['MCFS'])
    >>> getattr_("nope")
    Traceback (most recent call last):
    ...
    AttributeError: module 'fsclust.rankers' has no attribute 'nope'
    """

    def __getattr__(name):
        try:
            module = exports[name]
        except KeyError:
            raise AttributeError(f"module {package!r} has no attribute {name!r}") from None
        value = getattr(importlib.import_module(f"{package}.{module}"), name)
        setattr(sys.modules[package], name, value)  # the next lookup is a plain attribute
        return value

    def __dir__():
        return sorted(set(vars(sys.modules[package])) | set(exports))

    return __getattr__, __dir__, sorted(exports)
