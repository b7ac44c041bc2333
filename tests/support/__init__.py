"""Helpers of the tests: real servers, factories of records, the real catalogue's cache,
the browser and the tool check. Fixtures here load through ``pytest_plugins`` in
``tests/conftest.py``."""
