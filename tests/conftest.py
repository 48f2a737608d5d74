import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def mirror_dir():
    """The offline data mirror: $FSCLUST_MIRROR, else ../shared/data beside the checkout."""
    return Path(os.environ.get("FSCLUST_MIRROR", REPO.parent / "shared" / "data"))


@pytest.fixture
def mirror():
    path = mirror_dir()
    if not (path / "MANIFEST.tsv").exists():
        pytest.skip(f"offline data mirror not found at {path} (set FSCLUST_MIRROR)")
    return path
