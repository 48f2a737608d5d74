"""Where the tests find the offline data mirror: the one definition, imported by every test file.

``$FSCLUST_MIRROR``, else ``../shared/data`` beside the checkout (where CI machines have it).
"""

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
MIRROR = Path(os.environ.get("FSCLUST_MIRROR", REPO.parent / "shared" / "data"))
HAS_MIRROR = (MIRROR / "MANIFEST.tsv").is_file()
SKIP_REASON = f"offline data mirror not found at {MIRROR} (set FSCLUST_MIRROR to its directory)"
needs_mirror = pytest.mark.skipif(not HAS_MIRROR, reason=SKIP_REASON)
