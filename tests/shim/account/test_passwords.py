"""The dummy hash an unknown email's sign-in is verified against: one per process and set of
argon2 parameters, under the hasher's own parameters (so it costs what a real one does)."""

from __future__ import annotations

import pytest
from argon2 import PasswordHasher
from argon2.exceptions import VerifyMismatchError

from bangscore.shim.account.passwords import dummy_hash


def cheap(time_cost: int = 1, memory_cost: int = 1024, parallelism: int = 1) -> PasswordHasher:
    """Given argon2's costs, return a hasher with them (cheap ones by default)."""
    return PasswordHasher(time_cost=time_cost, memory_cost=memory_cost, parallelism=parallelism)


def test_the_dummy_hash_is_made_once_per_set_of_parameters() -> None:
    assert dummy_hash(cheap()) == dummy_hash(cheap())
    assert dummy_hash(cheap()) != dummy_hash(cheap(time_cost=2))


@pytest.mark.parametrize(
    "hasher",
    [
        pytest.param(cheap(), id="cheap"),
        pytest.param(cheap(memory_cost=2048, parallelism=2), id="more-memory-and-lanes"),
    ],
)
def test_the_dummy_hash_has_its_hashers_parameters(hasher: PasswordHasher) -> None:
    found = dummy_hash(hasher)
    # Verifying against it runs the hasher's full cost: a rehash would be asked for otherwise.
    assert not hasher.check_needs_rehash(found)
    with pytest.raises(VerifyMismatchError):
        hasher.verify(found, "any password at all")
