"""The build's heap: the collector is paused while the catalog is loaded, what is loaded is
frozen out of collections for the rest of the build, and everything is given back at the end."""

from __future__ import annotations

import gc

import pytest

from bangscore.build.heap import long_lived

# A process that read the real catalogue froze it (tests/support/real_catalogue.py); these
# tests count the frozen.
pytestmark = pytest.mark.usefixtures("thawed")


@pytest.mark.parametrize("enabled", [True, False], ids=["collector-on", "collector-off"])
def test_long_lived_pauses_then_freezes_then_gives_back(enabled: bool) -> None:
    was = gc.isenabled()
    (gc.enable if enabled else gc.disable)()
    try:
        with long_lived() as loaded:
            assert not gc.isenabled()
            kept = [{"appid": n} for n in range(1000)]
            before = gc.get_freeze_count()
            loaded()
            assert gc.get_freeze_count() >= before + len(kept)
            assert gc.isenabled() is enabled
        assert gc.get_freeze_count() == 0
        assert gc.isenabled() is enabled
    finally:
        (gc.enable if was else gc.disable)()


def test_long_lived_restores_the_collector_when_loading_fails() -> None:
    assert gc.isenabled()
    with pytest.raises(ValueError, match="bad catalog"), long_lived():
        assert not gc.isenabled()
        raise ValueError("bad catalog")
    assert gc.isenabled()
    assert gc.get_freeze_count() == 0
