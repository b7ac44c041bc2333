"""The root of BangScore's own exceptions, so a caller can catch everything BangScore raises on
purpose (and nothing else) with one class, as httpx does.

The tree (module of each class in brackets)::

    BangScoreError
    ├── InvalidLocation (also ValueError)   a storage location or key no store can hold [errors]
    ├── SnapshotError                       a snapshot manifest or pointer is unusable [manifest]
    ├── ObjectStorageError                  object storage failed [storage]
    │   ├── ObjectNotFound (also KeyError)  no object under a key
    │   ├── ObjectStorageUnavailable        the store cannot be reached or written
    │   ├── PointerConflict                 another build moved ``current`` first
    │   └── CorruptObject                   a body does not match its digest [shim.source]
    ├── ExportError                         a Bulk export manifest is corrupt [contract.export]
    ├── CatalogRefused                      a catalogue a build must not publish [build.guard]
    ├── KeyStoreError                       the key and counter store failed [stores.keystore]
    │   ├── KeyStoreUnavailable             down, read-only or locked: answered 503
    │   ├── KeyStoreMissing                 a configured store that does not exist
    │   ├── UnknownKey (also LookupError)   no key with that id
    │   └── AccountExists                   sign-up for an email already taken
    ├── AuthFailure                         a key that cannot be used: 401 [shim.quota]
    ├── BadRequest                          request parameters refused: 400 [shim.problems]
    └── Refusal                             a resolver's refusal with a problem code [shim.answer]
        ├── NotFound                        404 (game_not_found, game_not_rated, not_found)
        └── Forbidden                       403 (insufficient_scope)

The ingest and scoring layers keep their own ``ValueError`` subclasses (``CatalogError``,
``UnscorableGame``, ``RowError``) and ingest's ``SourceError`` family: they describe bad input
data rather than a failing service, and the command line names each one it handles.
"""

from __future__ import annotations


class BangScoreError(Exception):
    """Base class of every exception BangScore raises on purpose."""


class InvalidLocation(BangScoreError, ValueError):
    """Raised for a storage location or object key no store can hold (a bad ``--out``,
    ``--snapshot`` or ``--export``, an unknown option, a key that would leave its folder)."""
