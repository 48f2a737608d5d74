import os
from pathlib import Path
import pytest
from _mirror import HAS_MIRROR, MIRROR, SKIP_REASON


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
