"""The one exception tree (bangscore/errors.py): every public exception class of ours is
defined there and derives from BangScoreError, so one ``except`` catches everything we raise
on purpose."""

from __future__ import annotations

import importlib
import inspect
import re

import pytest

from bangscore.errors import BangScoreError
from tests.support.package_files import module_files

MODULES = sorted(name for name in module_files() if not name.endswith("__main__"))


def exception_classes() -> list[type[BaseException]]:
    """Return every public exception class any module of ours defines or re-exports."""
    found: dict[str, type[BaseException]] = {}
    for name in MODULES:
        module = importlib.import_module(name)
        for attr, value in vars(module).items():
            if (
                inspect.isclass(value)
                and issubclass(value, BaseException)
                and value.__module__.startswith("bangscore.")
                and not attr.startswith("_")
                and not value.__name__.startswith("_")
            ):
                found[f"{value.__module__}.{value.__qualname__}"] = value
    return [found[k] for k in sorted(found)]


CLASSES = exception_classes()


def test_the_tree_is_found() -> None:
    assert len(CLASSES) >= 30


@pytest.mark.parametrize("cls", CLASSES, ids=[c.__name__ for c in CLASSES])
def test_every_exception_of_ours_is_in_the_tree(cls: type[BaseException]) -> None:
    assert issubclass(cls, BangScoreError)
    # The Python client's exceptions are its public surface: defined beside the client, in its
    # transport-free part, and imported by a caller from bangscore.client, which re-exports them.
    assert cls.__module__ in {"bangscore.errors", "bangscore.client_core"}
    if cls.__module__ == "bangscore.client_core":
        import bangscore.client

        assert getattr(bangscore.client, cls.__name__) is cls


def test_the_tree_drawn_in_the_docstring_names_every_class() -> None:
    import bangscore.errors

    doc = bangscore.errors.__doc__ or ""
    assert [c.__name__ for c in CLASSES if c.__name__ not in doc] == []


def test_every_name_of_the_tree_has_one_import_path() -> None:
    """No module re-exports a class of the tree under an alias (``from bangscore.errors import
    X as X``): a reader finds each exception where it is defined, and imports it from there."""
    from tests.support.package_files import module_files

    aliased = []
    for name, path in module_files().items():
        if name == "bangscore.errors":
            continue
        text = path.read_text(encoding="utf-8")
        aliased += [
            f"{name}: {m}" for m in re.findall(r"from bangscore\.errors import (\w+) as \1\b", text)
        ]
    assert aliased == []


def test_not_found_is_the_clients_404_alone() -> None:
    # One class per name (issue 47): the server's 404 refusal is ResourceNotFound, and
    # bangscore.errors has no NotFound, so `except bangscore.errors.NotFound` fails loudly
    # instead of missing the client's 404; the client's NotFound is an ApiError.
    import bangscore.client
    import bangscore.errors

    assert not hasattr(bangscore.errors, "NotFound")
    assert issubclass(bangscore.client.NotFound, bangscore.client.ApiError)
    assert issubclass(bangscore.client.NotFound, BangScoreError)
    assert issubclass(bangscore.errors.ResourceNotFound, bangscore.errors.ProblemRefusal)
    assert not issubclass(bangscore.errors.ResourceNotFound, bangscore.client.ApiError)


@pytest.mark.parametrize(
    ("name", "family"),
    [
        pytest.param("StoreUnavailable", "StoreError", id="unavailable-any-store"),
        pytest.param("StoreMissing", "StoreError", id="missing-any-store"),
        pytest.param("KeyExists", "KeyStoreError", id="key-exists"),
        pytest.param("UnknownKey", "KeyStoreError", id="unknown-key"),
        pytest.param("AccountExists", "KeyStoreError", id="account-exists"),
        pytest.param("UnknownWatch", "WatchStoreError", id="unknown-watch"),
        pytest.param("TooManyWatches", "WatchStoreError", id="too-many-watches"),
    ],
)
def test_a_store_failure_names_its_store(name: str, family: str) -> None:
    import bangscore.errors

    cls, base = getattr(bangscore.errors, name), getattr(bangscore.errors, family)
    assert issubclass(cls, base) and issubclass(cls, bangscore.errors.StoreError)
    others = {"KeyStoreError", "WatchStoreError"} - {family}
    assert not any(issubclass(cls, getattr(bangscore.errors, o)) for o in others)
