import pytest
from _mirror import HAS_MIRROR, MIRROR, SKIP_REASON


@pytest.fixture
def mirror():
    """The offline data mirror directory; the test is skipped when it is absent."""
    if not HAS_MIRROR:
        pytest.skip(SKIP_REASON)
    return MIRROR
