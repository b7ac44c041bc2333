"""The store tests share the server fixtures of tests/shim/conftest.py: two real ``bangscore
serve`` processes over one Redis are how the Redis store's cross-process counting is tested."""

from tests.shim.conftest import shim_factory, snapshot_folder  # noqa: F401 -- fixtures
